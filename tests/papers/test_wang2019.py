"""Tests of the Wang and Hegde (2019) chapter package: profile, calibrations as run, the ledger's
events and cross-checks, claims (live and recorded) and errata."""

from __future__ import annotations

import dataclasses
import json
import string
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.sweep import seed_for
from privrl.core.algorithms.functional_q import DPSGDConfig, FunctionalNoiseConfig
from privrl.papers.wang2019 import calibration, chapter, checks, claims, runs
from privrl.papers.wang2019.profile import CURVE_COLUMNS, WangProfile
from privrl.papers.wang2019.runs import privacy_config, run_learning_curve

SMALL = {"episodes": 12, "dpsgd_warmup": 500, "epsilons": (0.9,)}


@pytest.fixture(scope="module")
def small():
    p = WangProfile.quick(**SMALL)
    return p, calibration.privacy_table(p)


def _context(p: WangProfile, **tables: pd.DataFrame) -> Context:
    ctx = Context(p, Report("wang2019", p.profile, seed=p.seed, config=p.as_dict()))
    ctx.tables.update(tables)
    return ctx


def test_profile_is_typed_and_validated():
    p = WangProfile.paper()
    assert p.n_trials == 10 and p.episodes == 100 and p.gp_sigmas == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    assert p.n_updates == 5000 - 128 + 1 and p.paper_updates == 39
    assert p.dpsgd_steps == 5000 - 1000 + 1
    with pytest.raises(ValueError, match="unknown"):
        WangProfile.from_parameters("quick", sigma=1.0)
    with pytest.raises(ValueError, match="epsilons"):
        WangProfile.quick(epsilons=(-1.0,))
    with pytest.raises(ValueError, match="dpsgd_warmup"):
        WangProfile.quick(episodes=5, dpsgd_warmup=500)
    with pytest.raises(ValueError, match="protocol"):
        WangProfile.quick(protocol="mine")
    with pytest.raises(ValueError, match="WangProfile"):
        chapter.run({"profile": "quick"})


def test_every_noise_in_the_runs_is_the_calibrated_one(small):
    """Figure 2's run configs carry each method's calibrated noise into its own config field."""
    p, table = small
    configs = runs.figure2_configs(p, table)
    for config in configs[:-1]:
        row = table[(table.method == config["variant"]) & (table.epsilon_target == config["epsilon"])]
        privacy = privacy_config(config)
        value = {"functional": "gp_sigma", "output": "output_std", "input": "reward_std",
                 "dpsgd": "noise_multiplier"}[config["method"]]
        assert getattr(privacy, value) == pytest.approx(float(row.value.iloc[0]))
        if isinstance(privacy, FunctionalNoiseConfig):
            assert privacy.gp_beta == pytest.approx(float(row.gp_beta.iloc[0]))
            assert privacy.target_path == "independent" and privacy.path_reset == "episode"
        if isinstance(privacy, DPSGDConfig):
            assert privacy.warmup == p.dpsgd_warmup
    assert configs[-1]["method"] == "none"


def test_dpsgd_steps_actually_taken_stay_within_the_claim(small):
    """Recompute the epsilon of the DP-SGD steps one Figure 2 run took, from the run's own record
    of sampling rates, and compare with the claimed epsilon. Starting the steps at the first
    batch (the old bug: warm-up not passed through) exceeds the claim, so the test can fail."""
    p, table = small
    config = next(c for c in runs.figure2_configs(p, table) if c.get("variant") == "dpsgd")
    z = config["noise_multiplier"]
    curve = run_learning_curve(config, seed_for(0, 0))
    assert curve.dp_steps.sum() == p.n_samples - p.dpsgd_warmup + 1
    assert calibration.recorded_dpsgd_epsilon(curve, z, p.delta) <= 0.9
    buggy = run_learning_curve({**config, "warmup": p.batch_size}, seed_for(0, 0))
    assert calibration.recorded_dpsgd_epsilon(buggy, z, p.delta) > 0.9


def test_calibration_table_is_within_target_and_states_relations(small):
    p, table = small
    assert (table.delta <= p.delta).all()
    main = table[table.method == "functional"].iloc[0]
    assert main.compositions == p.n_updates and main.calibrated_updates == p.n_updates
    assert main.n_paths == 4 * p.episodes
    tb = table[table.method == "functional (T/B)"].iloc[0]
    assert tb.calibrated_updates == p.paper_updates and tb.epsilon > 0.9
    assert set(table.relation) == {"replace-one reward function", "add/remove transition"}
    # every epsilon is its event's, and no baseline spends more than its target
    for row in table.itertuples():
        assert row.event.epsilon(row.delta) == pytest.approx(row.epsilon, rel=1e-9)
        if row.method != "functional (T/B)":
            assert row.epsilon <= row.epsilon_target * (1 + 1e-12)
            assert row.epsilon >= row.epsilon_target * (1 - 1e-3)
        check = row.cross_check
        assert check.kind == "upper bound"
        if row.method == "dpsgd":
            assert check.epsilon is None and "known once" in check.method
        else:
            assert check.epsilon <= row.epsilon * 1.01


def test_ledger_entries_carry_events_and_the_steps_taken(small):
    """Every calibration row becomes a ledger entry whose event gives back its epsilon; the
    DP-SGD entry's cross-check is the epsilon of the steps taken once the runs are done."""
    p, table = small
    table = table.copy()
    ctx = _context(p, privacy=table)
    entries = list(chapter.Wang2019Chapter().releases(ctx))
    assert len(entries) == len(table) and all(isinstance(e, LedgerEntry) for e in entries)
    assert all(e.problems(0.01) == [] for e in entries)
    assert {e.audit for e in entries} == {"audits:gp_update", "", "audits:input_perturbation",
                                          "audits:dpsgd_step"}
    calibration.with_steps_taken(table, 0.9, 0.61)
    dpsgd = [e for e in chapter.Wang2019Chapter().releases(ctx) if e.relation == "add/remove"]
    assert [e.cross_check.epsilon for e in dpsgd] == [0.61]
    assert dpsgd[0].cross_check.method == calibration.STEPS_TAKEN
    # a doubled budget in the entry is caught by its event
    with pytest.raises(Exception, match="event gives"):
        ctx.report.ledger(dataclasses.replace(entries[0], epsilon=2 * entries[0].epsilon))


def _synthetic_curves(effect: float, n_seeds: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for seed in range(n_seeds):
        for sigma in (0.0, 0.2, 1.0):
            for resample in ("every", "never"):
                base = 20 - effect * sigma - (effect if resample == "never" else 0)
                for ep in range(12):
                    rows.append({"method": "functional", "sigma": sigma, "resample": resample,
                                 "seed": seed, "episode": ep, "eval_return": base + rng.normal(),
                                 "train_return": base, "epsilon": np.nan,
                                 "variant": "functional", "protocol": "authors"})
        for variant, level in (("functional", 20), ("dpsgd", 20 - effect), ("input", 20 - effect),
                               ("dpsgd (reward fn)", 20 - effect)):
            for ep in range(12):
                rows.append({"method": variant.split(" ")[0], "sigma": np.nan, "resample": "every",
                             "seed": seed, "episode": ep, "eval_return": level + rng.normal(),
                             "train_return": level, "epsilon": 0.45, "variant": variant,
                             "protocol": "authors"})
    return pd.DataFrame(rows)


def _decide(curves: pd.DataFrame) -> dict[str, str]:
    ctx = SimpleNamespace(tables={"curves": curves})
    return {s.key: s.decide(ctx, s).verdict for s in claims.CLAIMS if not s.key.endswith("_paper")}


def test_claims_are_decided_four_ways():
    strong = _decide(_synthetic_curves(10.0))
    assert strong["fig1_noise_slows"] == "reproduced"
    assert strong["fig1_resample_helps"] == "reproduced"
    assert strong["fig2_beats_dpsgd"] == "reproduced"
    null = _decide(_synthetic_curves(0.0))
    assert null["fig1_noise_slows"] == "inconclusive"  # no effect: the data cannot decide
    assert null["fig2_beats_input"] == "inconclusive"
    reversed_ = _decide(_synthetic_curves(-10.0))
    assert reversed_["fig1_noise_slows"] == "not reproduced"  # the data exclude the claim
    few = _decide(_synthetic_curves(10.0, n_seeds=2))
    assert set(few.values()) == {"untestable"}
    other_eps = _synthetic_curves(10.0).replace({"epsilon": {0.45: 0.9}})
    assert _decide(other_eps)["fig2_beats_input"] == "untestable"


def test_claims_have_sources_and_paper_twins():
    keys = [s.key for s in claims.CLAIMS]
    live = [k for k in keys if not k.endswith("_paper")]
    assert keys == live + [f"{k}_paper" for k in live]
    assert all("Section 4" in s.source and "p. 8" in s.source for s in claims.CLAIMS)


def test_paper_claims_are_decided_on_the_recorded_run(monkeypatch):
    recorded = _synthetic_curves(10.0)
    monkeypatch.setattr(claims, "read_paper_curves", lambda: recorded)
    monkeypatch.setattr(claims, "recorded_run", lambda name: SimpleNamespace(commit="abc123"))
    spec = next(s for s in claims.CLAIMS if s.key == "fig1_noise_slows_paper")
    quick = _context(WangProfile.quick())
    claim = spec.decide(quick, spec)
    assert (claim.key, claim.verdict, claim.profile, claim.commit) == (
        spec.key, "reproduced", "paper", "abc123")
    assert quick.extra["paper_curves"] is recorded
    # a paper-profile run decides its own claims; none recorded: nothing to decide
    assert spec.decide(_context(WangProfile.paper()), spec) is None
    monkeypatch.setattr(claims, "read_paper_curves", lambda: None)
    assert spec.decide(_context(WangProfile.quick()), spec) is None


def test_errata_read_only_numbers_the_checks_glue(small):
    p, _ = small
    ctx = _context(p)
    checks.check_calibration(ctx)
    fields = {name for e in claims.ERRATA for text in (e.statement, e.evidence)
              for _, name, _, _ in string.Formatter().parse(text) if name}
    glued_by_prop10 = {"p10_n", "p10_linear_ratio", "p10_bias_ratio", "p10_ou_ratio"}
    assert fields - glued_by_prop10 <= set(ctx.values)
    ctx.values.update(dict.fromkeys(glued_by_prop10, 1.0))
    assert all(e.applies(ctx) and e.make(ctx).evidence for e in claims.ERRATA)


def test_curves_table_has_the_recorded_columns(tmp_path):
    fig1 = pd.DataFrame({"gp_sigma": [0.2], "resample": ["every"], "seed": [0], "episode": [0],
                         "samples": [50], "train_return": [1.0], "eval_return": [2.0],
                         "method": ["functional"], "protocol": ["authors"]})
    fig2 = pd.DataFrame({"variant": ["dpsgd (reward fn)"], "seed": [0], "episode": [0],
                         "samples": [50], "train_return": [1.0], "eval_return": [2.0],
                         "method": ["dpsgd"], "epsilon": [0.45], "protocol": [None]})
    curves = runs.curves_table(fig1, fig2)
    assert list(curves.columns[: len(CURVE_COLUMNS)]) == list(CURVE_COLUMNS)
    assert curves.method.tolist() == ["functional", "dpsgd"]
    path = runs.write_paper_curves(curves, tmp_path / "c.csv")
    assert runs.read_paper_curves(path).shape == curves.shape
    with pytest.raises(ValueError, match="columns"):
        runs.write_paper_curves(curves.drop(columns="eval_return"), tmp_path / "d.csv")


def test_profile_fields_are_all_typed():
    hints = {f.name: f.type for f in dataclasses.fields(WangProfile)}
    assert "sigma" not in hints and "gp_sigmas" in hints


def test_figure1_runs_the_chosen_protocol_and_the_other_at_the_largest_amplitude():
    p = WangProfile.quick()
    configs = runs.figure1_configs(p)
    seen = {(c["protocol"], c["gp_sigma"], c["resample"]): privacy_config(c) for c in configs}
    authors = seen[("authors", 1.0, "every")]
    assert (authors.target_path, authors.path_reset) == ("independent", "episode")
    assert seen[("authors", 0.0, "never")].path_reset == "never"
    earlier = seen[("earlier", 1.0, "every")]
    assert (earlier.target_path, earlier.path_reset) == ("shared", "updates")
    assert ("earlier", 0.0, "every") not in seen
    assert calibration.n_paths_drawn(p) == 4 * p.episodes
    assert calibration.n_paths_drawn(dataclasses.replace(p, protocol="earlier")) == 2 * p.n_samples


def test_the_chapter_is_the_skeleton_with_the_packages_parts():
    ch = chapter.Wang2019Chapter
    assert (ch.name, ch.profile_type) == ("wang2019", WangProfile)
    assert ch.checks == checks.CHECKS and ch.claims == claims.CLAIMS
    assert ch.errata == claims.ERRATA
    assert chapter.run.__self__.__class__ is ch


def test_the_paper_recorder_writes_its_curves_and_run_record(tmp_path, monkeypatch):
    """``record_paper_curves`` writes the curves into the book's results folder and its run
    record (a RunRecord naming the file) into ``book/measurements/``."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book" / "measurements").mkdir(parents=True)
    (tmp_path / "_config.yml").write_text("title: test\n")
    monkeypatch.chdir(tmp_path)
    curves = pd.DataFrame([dict.fromkeys(CURVE_COLUMNS, 1.0)])
    ran = []

    def fake_run(profile, **kw):
        ran.append(profile)
        return SimpleNamespace(table=lambda name: curves)

    monkeypatch.setattr(chapter, "run", fake_run)
    csv = chapter.record_paper_curves(executor="serial")
    assert ran == [WangProfile.paper()]
    assert csv == tmp_path / "book" / "measurements" / "results" / "wang2019-paper-curves.csv"
    assert pd.read_csv(csv).shape == curves.shape
    record = json.loads((tmp_path / "book" / "measurements" / "wang2019-paper.json").read_text())
    assert (record["notebook"], record["profile"], record["files"]) == (
        "wang2019", "paper", ["wang2019-paper-curves.csv"])
    assert {"git_commit", "git_dirty", "wall_time_s", "versions"} <= set(record)
