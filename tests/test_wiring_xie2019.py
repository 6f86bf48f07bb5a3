"""Wiring tests of GPOPE (Xie et al. 2019): the noise std 2 G z the algorithm adds and the
(epsilon, delta) the experiment calibrates for.

Targets: ``gtd.gpope`` (noise std), ``experiments.xie2019.calibrations`` (profile's budget,
calibrated z meets it) and ``run_chain_steps`` (the calibrated z and clip reach GPOPE).
"""

from __future__ import annotations

import numpy as np
import pytest

from privrl.accounting.subsampled import gpope_epsilon
from privrl.algorithms import gtd
from privrl.experiments import xie2019


def test_gpope_noise_std_is_two_G_z():
    """With zero statistics the gradient is pure noise: after one step theta = -alpha * N(0,
    (2 G z)^2). 20,000 trials x 2 coordinates: std within 3% of 2 G z (se 0.5%)."""
    zeros = np.zeros((3, 2, 2))
    stats = gtd.SaddlePointStats.from_features(zeros, np.zeros((3, 1)), np.ones(3, dtype=int),
                                               np.ones(3, dtype=bool), 0.9)
    res = gtd.gpope(stats, 1, 0.5, clip_norm=0.3, noise_multiplier=1.7, rng=0, n_trials=20_000)
    assert (res.theta / 0.5).std() == pytest.approx(2 * 0.3 * 1.7, rel=0.03)


def test_calibrations_use_the_profiles_budget_and_meet_it(monkeypatch):
    seen = []
    real = xie2019.calibrate_noise_multiplier

    def spy(epsilon, delta, n, iterations, **kw):
        seen.append((epsilon, delta))
        return real(epsilon, delta, n, iterations, **kw)

    monkeypatch.setattr(xie2019, "calibrate_noise_multiplier", spy)
    cfg = dict(xie2019.PROFILES["quick"])
    cal = xie2019.calibrations(cfg, [50])
    assert seen == [(cfg["epsilon"], cfg["delta"])]
    row = cal.iloc[0]
    assert gpope_epsilon(row.z, 50, int(row.iterations), cfg["delta"]) <= cfg["epsilon"]


def test_run_chain_steps_passes_z_and_clip(monkeypatch):
    seen = []
    real = xie2019.gpope

    def spy(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw):
        seen.append((clip_norm, noise_multiplier, iterations))
        return real(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw)

    monkeypatch.setattr(xie2019, "gpope", spy)
    cfg = {**xie2019.PROFILES["quick"], "n": 20, "z": 3.25, "iterations": 10,
           "step_grid": [0.1, 0.2]}
    xie2019.run_chain_steps(cfg, np.random.SeedSequence(0))
    assert seen == [(cfg["clip_norm"], 3.25, 10)]
