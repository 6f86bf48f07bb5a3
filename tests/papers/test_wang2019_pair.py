"""The wang2019 pair (:mod:`privrl.papers.wang2019.pair`): its two arms are the paper profile's
Figure 2 runs at epsilon = 0.45 with their calibrated noise, its run function computes what the
chapter's does, its recorder writes a record the chapter reads back, and the claim comparing the
two arms (and only it) is decided on it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.evidence import LIVE
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.sweep import seed_for
from privrl.papers.wang2019 import chapter, claims, pair
from privrl.papers.wang2019.calibration import privacy_table
from privrl.papers.wang2019.profile import CLAIM_EPSILON, CURVE_COLUMNS, WangProfile
from privrl.papers.wang2019.runs import run_learning_curve
from privrl.papers.wang2019.state import WangState

TINY = {"episodes": 3, "dpsgd_warmup": 128, "eval_episodes": 2}


def test_the_pair_is_the_paper_profiles_two_arms_with_their_calibrated_noise():
    p = WangProfile.paper()
    table = privacy_table(p).set_index(["method", "epsilon_target"])
    functional, input_ = pair.pair_configs(p)
    assert (functional["variant"], input_["variant"]) == pair.PAIR_VARIANTS
    assert functional["epsilon"] == input_["epsilon"] == CLAIM_EPSILON == 0.45
    assert functional["gp_sigma"] == table.loc[("functional", 0.45), "value"]
    assert functional["gp_beta"] == table.loc[("functional", 0.45), "gp_beta"]
    assert input_["reward_std"] == table.loc[("input", 0.45), "value"]
    for config in (functional, input_):
        assert config["episodes"] == 100 and config["batch_size"] == 128
    assert functional["protocol"] == "authors" and functional["resample"] == "every"
    with pytest.raises(ValueError, match="epsilons must include 0.45"):
        pair.pair_configs(WangProfile.quick(epsilons=(0.9,)))


def test_the_pairs_run_function_computes_the_chapters_numbers():
    config = {**pair.PROBE, "reward_std": 2.0, "episodes": 6}
    ours = pair.run_pair_curve(config, seed_for(0, 3))
    theirs = run_learning_curve(config, seed_for(0, 3))
    pd.testing.assert_frame_equal(ours, theirs)
    # updates start once a batch (128 samples) is stored: episodes 3-5 learn from noisy rewards
    halved = run_learning_curve({**config, "reward_std": 1.0}, seed_for(0, 3))
    assert not np.allclose(ours.train_return[3:], halved.train_return[3:])


def test_the_recorder_writes_the_pairs_curves_and_run_record(tmp_path):
    out = tmp_path / "measurements" / "results"
    csv, record = pair.record_pair(
        WangProfile.quick(**TINY),
        3,
        out,
        cache_dir=tmp_path / "cache",
        executor="serial",
        progress=False,
        command="test",
    )
    curves = pd.read_csv(csv)
    assert set(CURVE_COLUMNS) <= set(curves.columns)
    assert sorted(curves.variant.unique()) == sorted(pair.PAIR_VARIANTS)
    assert curves.groupby("variant").seed.nunique().to_dict() == {"functional": 3, "input": 3}
    assert (curves.epsilon == CLAIM_EPSILON).all() and curves.episode.max() == 2
    saved = json.loads(record.read_text())
    assert record.name == "wang2019-pair.json" and saved["profile"] == pair.PROFILE
    assert saved["parameters"]["n_trials"] == 3 and saved["command"] == "test"
    assert saved["produced_by"] == ["privrl.papers.wang2019.pair"]
    # a rerun reads every run from the cache: the same curves
    again, _ = pair.record_pair(
        WangProfile.quick(**TINY),
        3,
        tmp_path / "again",
        cache_dir=tmp_path / "cache",
        executor="serial",
        progress=False,
    )
    pd.testing.assert_frame_equal(pd.read_csv(again), curves)


def _pair_curves(effect: float, n_seeds: int) -> pd.DataFrame:
    """Pair curves whose functional arm ends exactly ``effect`` above input perturbation on
    average, with seed-level noise of standard deviation exactly 3 (standardised draws)."""
    rng = np.random.default_rng(1)
    rows = []
    for variant, level in (("functional", effect), ("input", 0.0)):
        z = rng.normal(size=n_seeds)
        ends = level + 3.0 * (z - z.mean()) / z.std()
        for seed in range(n_seeds):
            for ep in range(12):
                rows.append(
                    {
                        "method": variant,
                        "variant": variant,
                        "protocol": "authors",
                        "sigma": np.nan,
                        "resample": "every",
                        "epsilon": CLAIM_EPSILON,
                        "seed": seed,
                        "episode": ep,
                        "train_return": ends[seed],
                        "eval_return": ends[seed],
                    }
                )
    return pd.DataFrame(rows)


def _pair_claims(monkeypatch, curves: pd.DataFrame) -> dict:
    run = SimpleNamespace(commit="abc123", record={"wall_time_s": 1000.0, "cpus": 2})
    monkeypatch.setattr(chapter, "read_pair", lambda: (curves, run))
    monkeypatch.setattr(claims, "read_paper_curves", lambda: None)
    p = WangProfile.quick()
    ctx = Context(
        p,
        Report("wang2019", p.profile, seed=p.seed, config=p.as_dict()),
        state=WangState(curves=curves),
    )
    chapter.Wang2019Chapter().prepare(ctx)
    evidence = {ev.name: ev for ev in chapter.Wang2019Chapter().evidence(ctx)}
    assert list(evidence) == [LIVE, claims.PAIR]
    ev = evidence[claims.PAIR]
    return {
        spec.key + ev.suffix: ev.decide(ctx, spec)
        for spec in claims.CLAIMS
        if spec.on is None or ev.name in spec.on
    }


def test_the_input_perturbation_claim_is_decided_on_the_pair_and_no_other(monkeypatch):
    """A mean gap of 1.5 at seed spread 3: reproduced at 50 seeds (the interval's half-width is
    about 1.2 there), inconclusive at 10 (about 2.6); a reversed gap is not reproduced."""
    decided = _pair_claims(monkeypatch, _pair_curves(1.5, 50))
    assert sorted(decided) == ["fig2_beats_input_beyond_pair", "fig2_beats_input_pair"]
    claim = decided["fig2_beats_input_pair"]
    assert (claim.verdict, claim.n_trials, claim.commit) == ("reproduced", 50, "abc123")
    assert "50 seeds per arm" in claim.source and "50 seeds per arm" in claim.evidence
    assert claim.statistic == "mean(functional) - mean(input)"
    few = _pair_claims(monkeypatch, _pair_curves(1.5, 10))
    assert few["fig2_beats_input_pair"].verdict == "inconclusive"
    reversed_ = _pair_claims(monkeypatch, _pair_curves(-1.5, 50))
    assert reversed_["fig2_beats_input_pair"].verdict == "not reproduced"


def test_only_the_claims_comparing_the_pairs_arms_are_decided_on_it():
    on_pair = [spec.key for spec in claims.CLAIMS if claims.PAIR in spec.on]
    assert on_pair == list(claims.ON_PAIR) == ["fig2_beats_input", "fig2_beats_input_beyond"]
    assert all(LIVE in spec.on and "paper" in spec.on for spec in claims.CLAIMS)
