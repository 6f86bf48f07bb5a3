"""Tests of the Wang and Hegde (2019) experiment module: profile, calibrations as run, claims."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.sweep import seed_for
from privrl.core.algorithms.functional_q import DPSGDConfig, FunctionalNoiseConfig
from privrl.papers.wang2019 import chapter as exp
from privrl.papers.wang2019.runs import privacy_config, run_learning_curve

SMALL = {"episodes": 12, "dpsgd_warmup": 500, "epsilons": (0.9,)}


@pytest.fixture(scope="module")
def small():
    p = exp.WangProfile.quick(**SMALL)
    return p, exp.privacy_table(p)


def test_profile_is_typed_and_validated():
    p = exp.WangProfile.paper()
    assert p.n_trials == 10 and p.episodes == 100 and p.gp_sigmas == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    assert p.n_updates == 5000 - 128 + 1 and p.paper_updates == 39
    with pytest.raises(ValueError, match="unknown"):
        exp.WangProfile.from_parameters("quick", sigma=1.0)
    with pytest.raises(ValueError, match="epsilons"):
        exp.WangProfile.quick(epsilons=(-1.0,))
    with pytest.raises(ValueError, match="dpsgd_warmup"):
        exp.WangProfile.quick(episodes=5, dpsgd_warmup=500)
    with pytest.raises(ValueError, match="protocol"):
        exp.WangProfile.quick(protocol="mine")
    with pytest.raises(ValueError, match="WangProfile"):
        exp.run({"profile": "quick"})


def test_every_noise_in_the_runs_is_the_calibrated_one(small):
    """Figure 2's run configs carry each method's calibrated noise into its own config field."""
    p, table = small
    configs = exp.figure2_configs(p, table)
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
    config = next(c for c in exp.figure2_configs(p, table) if c.get("variant") == "dpsgd")
    z = config["noise_multiplier"]
    curve = run_learning_curve(config, seed_for(0, 0))
    assert curve.dp_steps.sum() == p.n_samples - p.dpsgd_warmup + 1
    assert exp.recorded_dpsgd_epsilon(curve, z, p.delta) <= 0.9
    buggy = run_learning_curve({**config, "warmup": p.batch_size}, seed_for(0, 0))
    assert exp.recorded_dpsgd_epsilon(buggy, z, p.delta) > 0.9


def test_calibration_table_is_within_target_and_states_relations(small):
    p, table = small
    assert (table.delta <= p.delta).all()
    main = table[table.method == "functional"].iloc[0]
    assert main.compositions == p.n_updates and main.calibrated_updates == p.n_updates
    assert main.n_paths == 4 * p.episodes
    tb = table[table.method == "functional (T/B)"].iloc[0]
    assert tb.calibrated_updates == p.paper_updates and tb.epsilon > 0.9
    assert set(table.relation) == {"replace-one reward function", "add/remove transition"}
    assert (table.dropna(subset=["cross_check_epsilon"]).eval(
        "cross_check_epsilon <= epsilon * 1.01")).all()


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


def test_claims_are_decided_three_ways():
    strong = {c.key: c.verdict for c in exp.decide_claims(_synthetic_curves(10.0))}
    assert strong["fig1_noise_slows"] == "reproduced"
    assert strong["fig1_resample_helps"] == "reproduced"
    assert strong["fig2_beats_dpsgd"] == "reproduced"
    null = {c.key: c.verdict for c in exp.decide_claims(_synthetic_curves(0.0))}
    assert null["fig1_noise_slows"] == "not reproduced"
    assert null["fig2_beats_input"] == "not reproduced"
    few = {c.key: c.verdict for c in exp.decide_claims(_synthetic_curves(10.0, n_seeds=2))}
    assert set(few.values()) == {"untestable"}


def test_curves_table_has_the_recorded_columns(tmp_path):
    fig1 = pd.DataFrame({"gp_sigma": [0.2], "resample": ["every"], "seed": [0], "episode": [0],
                         "samples": [50], "train_return": [1.0], "eval_return": [2.0],
                         "method": ["functional"], "protocol": ["authors"]})
    fig2 = pd.DataFrame({"variant": ["dpsgd (reward fn)"], "seed": [0], "episode": [0],
                         "samples": [50], "train_return": [1.0], "eval_return": [2.0],
                         "method": ["dpsgd"], "epsilon": [0.45], "protocol": [None]})
    curves = exp.curves_table(fig1, fig2)
    assert list(curves.columns[: len(exp.CURVE_COLUMNS)]) == list(exp.CURVE_COLUMNS)
    assert curves.method.tolist() == ["functional", "dpsgd"]
    path = exp.write_paper_curves(curves, tmp_path / "c.csv")
    assert exp.read_paper_curves(path).shape == curves.shape
    with pytest.raises(ValueError, match="columns"):
        exp.write_paper_curves(curves.drop(columns="eval_return"), tmp_path / "d.csv")


def test_profile_fields_are_all_typed():
    hints = {f.name: f.type for f in dataclasses.fields(exp.WangProfile)}
    assert "sigma" not in hints and "gp_sigmas" in hints


def test_figure1_runs_the_chosen_protocol_and_the_other_at_the_largest_amplitude():
    p = exp.WangProfile.quick()
    configs = exp.figure1_configs(p)
    seen = {(c["protocol"], c["gp_sigma"], c["resample"]): privacy_config(c) for c in configs}
    authors = seen[("authors", 1.0, "every")]
    assert (authors.target_path, authors.path_reset) == ("independent", "episode")
    assert seen[("authors", 0.0, "never")].path_reset == "never"
    earlier = seen[("earlier", 1.0, "every")]
    assert (earlier.target_path, earlier.path_reset) == ("shared", "updates")
    assert ("earlier", 0.0, "every") not in seen
    assert exp.n_paths_drawn(p) == 4 * p.episodes
    assert exp.n_paths_drawn(dataclasses.replace(p, protocol="earlier")) == 2 * p.n_samples
