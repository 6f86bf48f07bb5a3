"""Where each verdict was decided (:mod:`privrl.chapter.decided_on`): the record, the trials per
arm and the scale, for the claims tables."""

from __future__ import annotations

import json

from privrl.chapter.decided import EvidenceSource, decided_claims
from privrl.chapter.decided_on import (
    claims_for_reading,
    claims_table,
    decided_on,
    every_record,
    evidence_sentence,
    horizon,
    on_run,
    record_of,
)
from privrl.chapter.verdicts import Claim

SOURCES = (
    EvidenceSource("tuned", "_tuned", "tuned steps"),
    EvidenceSource("pair", "_pair", "a record made to decide"),
    EvidenceSource("paper", "_paper", "the paper-profile record"),
)


def _claim(key: str, profile: str, commit: str, n: int = 20) -> Claim:
    return Claim(
        verdict="reproduced",
        statistic="mean",
        value=1.0,
        interval=(0.5, 1.5),
        n_trials=n,
        reason="why",
        key=key,
        statement=f"claim {key}",
        profile=profile,
        commit=commit,
    )


def test_a_verdict_names_the_one_record_with_its_commit(tmp_path):
    for name, commit in (("toy-paper", "rec1"), ("toy-other", "rec2"), ("toy-third", "rec2")):
        (tmp_path / f"{name}.json").write_text(json.dumps({"git_commit": commit}))
    rows = {
        d.key: d
        for d in decided_claims(
            [
                _claim("a", "quick", "live", 5),
                _claim("a_paper", "paper", "rec1"),
                _claim("b_paper", "paper", "rec2"),
                _claim("c", "quick", "live", 1),
            ],
            SOURCES,
        )
    }
    assert record_of("toy", rows["a"], tmp_path) == "toy-paper"
    assert record_of("toy", rows["b"], tmp_path) is None  # two records share the commit
    assert record_of("toy", rows["c"], tmp_path) is None  # this run's verdict
    assert decided_on("toy", rows["a"], directory=tmp_path) == (
        "record toy-paper: 20 trials per arm, paper scale"
    )
    assert decided_on("toy", rows["b"], "10 of 30 seeds", tmp_path) == (
        "recorded run of commit rec2: 20 trials per arm, 10 of 30 seeds"
    )
    assert decided_on("toy", rows["c"], directory=tmp_path) == (
        "this run (quick profile): 1 trial per arm, quick run (CI scale)"
    )


def test_the_claims_table_has_a_decided_on_column_and_takes_a_scale_per_key():
    rows = decided_claims(
        [_claim("a", "quick", "live", 5), _claim("b", "quick", "live", 5)], SOURCES
    )
    table = claims_table("toy", rows, {"b": "5 of the paper's 100 trials"})
    assert list(table.columns) == ["key", "claim", "verdict", "evidence", "decided on"]
    assert table["decided on"].tolist() == [
        "this run (quick profile): 5 trials per arm, quick run (CI scale)",
        "this run (quick profile): 5 trials per arm, 5 of the paper's 100 trials",
    ]
    assert table["evidence"].iloc[0].startswith("mean = 1, 95% interval [0.5, 1.5], n = 5")


def test_claims_for_reading_writes_the_key_beneath_its_claim_and_the_claim_widest():
    rows = decided_claims([_claim("a", "quick", "live", 5)], SOURCES)
    table = claims_for_reading(claims_table("toy", rows))
    assert list(table.frame.columns) == ["claim", "verdict", "evidence", "decided on"]
    assert table.beneath == {"claim": ("a",)}
    assert max(table.widths, key=table.widths.get) == "claim"


def test_every_record_keeps_each_records_row_and_leaves_this_run_out():
    claims = [
        _claim("a", "quick", "live"),
        _claim("a_paper", "paper", "r1"),
        _claim("a_pair", "paper", "r2"),
    ]
    rows = every_record(claims, SOURCES)
    assert [(d.key, d.claim.key) for d in rows] == [("a", "a_paper"), ("a", "a_pair")]
    assert [d.claim.key for d in on_run(claims, "quick")] == ["a"]


def test_the_evidence_sentence_writes_numbers_as_the_tables_do_and_an_open_end_unbounded():
    claim = Claim(
        verdict="reproduced",
        statistic="speed-up",
        value=19.478,
        n_trials=10,
        interval=(16.59, float("inf")),
        reason="the 95% interval lies on the claimed side of 1",
        key="k",
        statement="s",
        profile="design",
        commit="c",
    )
    assert evidence_sentence(claim) == (
        "speed-up = 19.5, 95% interval [16.6, unbounded], "
        "n = 10; the 95% interval lies on the claimed side of 1"
    )
    bare = Claim(
        verdict="untestable",
        statistic="",
        value=None,
        interval=None,
        n_trials=3,
        reason="too few trials",
        key="k",
        statement="s",
        profile="quick",
        commit="c",
    )
    assert evidence_sentence(bare) == "too few trials (n = 3)"


def test_decided_on_names_each_trials_horizon_where_the_record_states_it(tmp_path):
    (tmp_path / "toy-tuned.json").write_text(
        json.dumps({"git_commit": "rec1", "parameters": {"n_submissions": 90000}})
    )
    (tmp_path / "toy-design.json").write_text(
        json.dumps({"git_commit": "rec2", "parameters": {"epochs": 450}})
    )
    rows = {
        d.key: d
        for d in decided_claims(
            [_claim("a_tuned", "paper", "rec1"), _claim("b_paper", "paper", "rec2")], SOURCES
        )
    }
    assert horizon("toy-tuned", tmp_path) == "90,000 submissions"
    assert decided_on("toy", rows["a"], directory=tmp_path) == (
        "record toy-tuned: 20 trials per arm x 90,000 submissions, paper scale"
    )
    # a scale that already says the horizon is not told it twice
    assert decided_on("toy", rows["b"], "10 of 30 seeds, 450 of its 4,000 roll-outs", tmp_path) == (
        "record toy-design: 20 trials per arm, 10 of 30 seeds, 450 of its 4,000 roll-outs"
    )
