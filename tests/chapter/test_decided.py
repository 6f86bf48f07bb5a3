"""The one choice of the verdict the book reports per claim (:mod:`privrl.chapter.decided`), and
the counts and runs every page states from it."""

from __future__ import annotations

import dataclasses

import pytest

from privrl.chapter.decided import (
    EvidenceSource,
    base_key,
    counts_text,
    decided_claims,
    deciding_runs,
    verdict_counts,
)
from privrl.chapter.verdicts import Claim


def _claim(
    key: str, verdict: str, profile: str = "quick", commit: str = "live00", scale: str = ""
) -> Claim:
    return Claim(
        verdict=verdict,
        statistic="",
        value=None,
        interval=None,
        n_trials=5,
        reason="why",
        key=key,
        statement=f"claim {key}",
        profile=profile,
        commit=commit,
        scale=scale,
    )


#: Toy sources, in the precedence the chapters declare theirs: a record made to decide a claim
#: (wang2019's pair; ono2020's tuned steps, deciding the reference set-up's claims) before the
#: paper-profile record, a record at the paper's horizon before a shorter design.
SOURCES = (
    EvidenceSource("pair", "_pair", "a record made to decide"),
    EvidenceSource("tuned", "_reference_tuned", "tuned steps", decides="_reference"),
    EvidenceSource("paper", "_paper", "the paper-profile record"),
    EvidenceSource("reference_paper", "_reference_paper", "reference record", decides="_reference"),
    EvidenceSource("horizon", "_horizon", "the paper's horizon"),
    EvidenceSource("airraid", "_airraid", "a shorter design"),
)
RECORD = {"profile": "paper", "commit": "rec000", "scale": "paper scale"}
CLAIMS = [
    _claim("a", "not reproduced"),
    _claim("b", "untestable"),
    _claim("c_beyond", "reproduced"),
    _claim("a_paper", "reproduced", **RECORD),
    _claim("b_paper", "inconclusive", **RECORD),
    _claim("c_beyond_paper", "not reproduced", **RECORD),
    _claim("d_reference", "inconclusive"),
    _claim("d_reference_paper", "reproduced", **RECORD),
    _claim("e", "reproduced"),
    _claim("f_airraid", "reproduced", "paper", "rec111", "10 of 30 seeds"),
]


def test_one_verdict_per_key_the_records_where_there_is_one_with_the_rerun_beside_it():
    rows = decided_claims(CLAIMS, SOURCES)
    assert [d.key for d in rows] == ["a", "b", "c_beyond", "d_reference", "e", "f"]
    by_key = {d.key: d for d in rows}
    assert by_key["a"].claim.key == "a_paper" and by_key["a"].rerun.key == "a"
    assert by_key["a"].claim.verdict == "reproduced" and by_key["a"].recorded
    assert by_key["e"].claim.key == "e" and by_key["e"].rerun is None and not by_key["e"].recorded
    assert by_key["f"].rerun is None and by_key["f"].scale == "10 of 30 seeds"
    assert by_key["d_reference"].claim.key == "d_reference_paper"
    # the quick rerun checks a row only where it decides something
    assert by_key["a"].rerun_agrees is False and by_key["b"].rerun_agrees is None
    assert by_key["d_reference"].rerun_agrees is False and by_key["e"].rerun_agrees is None
    assert by_key["c_beyond"].beyond and not by_key["a"].beyond


def test_counts_leave_out_the_rows_beyond_the_paper_and_say_so():
    rows = decided_claims(CLAIMS, SOURCES)
    assert verdict_counts(rows) == {
        "reproduced": 4,
        "not reproduced": 0,
        "inconclusive": 1,
        "untestable": 0,
    }
    assert counts_text(rows) == (
        "5 claims: 4 reproduced, 1 inconclusive (and 1 row beyond the paper)"
    )
    assert (
        counts_text(decided_claims([_claim("e", "reproduced")], SOURCES)) == "1 claim: 1 reproduced"
    )


def test_the_deciding_runs_are_named_with_their_scale_and_commit():
    assert deciding_runs(decided_claims(CLAIMS, SOURCES)) == [
        "the record of commit `rec000` (paper scale, 5 trials per arm; 4 rows)",
        "this run of commit `live00` (quick run (CI scale), 5 trials per arm; 1 row)",
        "the record of commit `rec111` (10 of 30 seeds, 5 trials per arm; 1 row)",
    ]
    assert deciding_runs(decided_claims(CLAIMS[:3], SOURCES), counted=False) == [
        "this run of commit `live00` (quick run (CI scale), 5 trials per arm)"
    ]
    one = dataclasses.replace(_claim("z_paper", "reproduced", **RECORD), n_trials=1)
    more = dataclasses.replace(_claim("y_paper", "reproduced", **RECORD), n_trials=20)
    assert deciding_runs(decided_claims([one, more], SOURCES), counted=False) == [
        "the record of commit `rec000` (paper scale, 1 to 20 trials per arm)"
    ]
    assert deciding_runs(decided_claims([one], SOURCES)) == [
        "the record of commit `rec000` (paper scale, 1 trial per arm; 1 row)"
    ]


def test_a_key_decided_twice_on_one_run_is_an_error():
    with pytest.raises(ValueError, match="'a' is decided twice"):
        decided_claims([_claim("a", "reproduced"), _claim("a", "untestable")], SOURCES)


@pytest.mark.parametrize("order", [1, -1])
def test_a_record_made_to_decide_a_claim_takes_precedence_over_the_paper_record(order):
    """wang2019's 50-seed pair decides over the 10-seed paper record, ono2020's tuned
    evaluation over the reference record, whatever order the claims come in."""
    claims = [
        _claim("g", "inconclusive"),
        _claim("g_paper", "inconclusive", **RECORD),
        _claim("g_pair", "reproduced", "paper", "rec222", "50 seeds per arm"),
        _claim("h_reference_paper", "reproduced", **RECORD),
        _claim("h_reference_tuned", "not reproduced", "paper", "rec333"),
    ][::order]
    by_key = {d.key: d for d in decided_claims(claims, SOURCES)}
    assert set(by_key) == {"g", "h_reference"}
    assert by_key["g"].claim.key == "g_pair" and by_key["g"].rerun.key == "g"
    assert by_key["h_reference"].claim.key == "h_reference_tuned"
    with pytest.raises(ValueError, match="decided twice"):
        decided_claims([_claim("g_pair", "reproduced"), _claim("g_pair", "inconclusive")], SOURCES)


@pytest.mark.parametrize("order", [1, -1])
def test_a_record_at_the_papers_horizon_decides_over_a_shorter_design(order):
    """gohari2021's record of 4,000 roll-outs decides a claim over the 450-roll-out design; a
    claim the horizon record did not decide stays the design's."""
    design = {"profile": "design", "commit": "rec111", "scale": "10 of 30 seeds, 450 of 4,000"}
    horizon = {"profile": "horizon", "commit": "rec444", "scale": "5 of 30 seeds, 4,000 of 4,000"}
    claims = [
        _claim("i", "untestable"),
        _claim("i_airraid", "inconclusive", **design),
        _claim("i_horizon", "reproduced", **horizon),
        _claim("j", "untestable"),
        _claim("j_airraid", "not reproduced", **design),
    ][::order]
    by_key = {d.key: d for d in decided_claims(claims, SOURCES)}
    assert set(by_key) == {"i", "j"}
    assert by_key["i"].claim.key == "i_horizon" and by_key["i"].scale == horizon["scale"]
    assert by_key["i"].rerun.key == "i" and by_key["j"].claim.key == "j_airraid"


def test_a_key_is_a_records_only_by_the_sources_its_chapter_declares():
    """The generic layer knows no suffix: without sources every claim is this run's, and a
    source's ``decides`` names the key its record decides."""
    rows = decided_claims([_claim("a", "inconclusive"), _claim("a_paper", "reproduced")], ())
    assert [(d.key, d.recorded) for d in rows] == [("a", False), ("a_paper", False)]
    assert base_key("d_reference_tuned", SOURCES) == "d_reference"
    assert base_key("d_reference_paper", SOURCES) == "d_reference"
    assert base_key("d_reference", SOURCES) == "d_reference"
    with pytest.raises(ValueError, match="suffix must start"):
        EvidenceSource("bad", "paper", "no underscore")
    with pytest.raises(ValueError, match="declared twice"):
        decided_claims([], (SOURCES[2], SOURCES[2]))
