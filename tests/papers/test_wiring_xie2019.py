"""Wiring tests of GPOPE (Xie et al. 2019): the noise std 2 G z the algorithm adds and the
(epsilon, delta) the experiment calibrates for.

Targets: ``gtd.gpope`` (noise std), every run function reached from the profile through
``xie2019.runs`` (each noisy GPOPE call meets its target and no more), ``xie2019.mc_lsw`` (DP-LSW's
sigma on Mountain Car), ``xie2019.runs.run_chain`` / ``run_domain`` (the profile's
budget is calibrated through ``xie2019.privacy.GpopeBudget.noise``, the api's ``gpope_noise``,
and the calibrated z meets it for the T steps run), ``xie2019.chain.run_chain_steps`` and
``xie2019.domains.run_domain_trial`` (the calibrated z, clip and T reach GPOPE).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privrl.api import evaluation as api_evaluation
from privrl.chapter.sweep import seed_for
from privrl.core.accounting.subsampled import gpope_epsilon
from privrl.core.algorithms import gtd
from privrl.core.algorithms.monte_carlo import (
    SmoothGaussianBudget,
    dp_lsw_sigma,
    first_visit_returns,
)
from privrl.core.envs import mountain_car as mc
from privrl.core.rng import as_generator
from privrl.papers.xie2019 import chain as xie2019_chain
from privrl.papers.xie2019 import domains as xie2019_domains
from privrl.papers.xie2019 import mc_lsw
from privrl.papers.xie2019 import runs as xie2019_runs
from privrl.papers.xie2019.profile import XieProfile, chain_config


class _Stop(Exception):
    """Raised by the sweep spy once the configs of the first sweep are seen."""


def _first_sweep_configs(monkeypatch) -> list[dict]:
    configs: list[dict] = []

    def spy(func, cfgs, **kw):
        configs.extend(cfgs)
        raise _Stop

    monkeypatch.setattr(xie2019_runs, "run_sweep", spy)
    return configs


def test_gpope_noise_std_is_two_G_z():
    """With zero statistics the gradient is pure noise: after one step theta = -alpha * N(0,
    (2 G z)^2). 20,000 trials x 2 coordinates: std within 3% of 2 G z (se 0.5%)."""
    stats = gtd.SaddlePointStats(
        A=np.zeros((3, 2, 2)),
        b=np.zeros((3, 2)),
        M=np.zeros((3, 2, 2)),
        lengths=np.ones(3, dtype=int),
    )
    res = gtd.gpope(stats, 1, 0.5, clip_norm=0.3, noise_multiplier=1.7, rng=0, n_trials=20_000)
    assert (res.theta / 0.5).std() == pytest.approx(2 * 0.3 * 1.7, rel=0.03)


def test_chain_calibrations_use_the_profiles_budget_and_meet_it(monkeypatch):
    """Every chain config carries a z calibrated for the profile's (epsilon, delta), its n and
    the T steps run; that z meets epsilon under the GPOPE accountant (halved z, doubled epsilon
    or T dropped to one step all break the bound or the calibration call)."""
    seen = []
    real = api_evaluation.calibrate_noise_multiplier

    def spy(epsilon, delta, n, iterations, **kw):
        seen.append((epsilon, delta, n, iterations))
        return real(epsilon, delta, n, iterations, **kw)

    monkeypatch.setattr(api_evaluation, "calibrate_noise_multiplier", spy)
    configs = _first_sweep_configs(monkeypatch)
    profile = XieProfile.quick(
        epsilon=0.3, delta=0.05, chain_sizes=(100, 1000), chain_iterations=500
    )
    with pytest.raises(_Stop):
        xie2019_runs.run_chain(profile)
    assert sorted(c["n"] for c in configs) == [100, 1000]
    assert sorted(set(seen)) == [(0.3, 0.05, 100, 500), (0.3, 0.05, 1000, 500)]
    for c in configs:
        assert c["iterations"] == 500 and c["clip_norm"] == profile.clip_norm
        assert gpope_epsilon(c["z"], c["n"], c["iterations"], profile.delta) <= profile.epsilon
        # the smallest such z (to the calibration's 1% tolerance): not a needlessly loud one
        assert gpope_epsilon(c["z"] / 1.02, c["n"], c["iterations"], profile.delta) > 0.3


def test_domain_noise_is_calibrated_for_each_epsilon_and_domain_delta(monkeypatch):
    configs = _first_sweep_configs(monkeypatch)
    profile = XieProfile.quick(mc_n=(100, 300), mc_epsilons=(0.5, 4.0))
    with pytest.raises(_Stop):
        xie2019_runs.run_domain(profile, "mountain_car_on")
    T = xie2019_domains.SETTINGS["mountain_car_on"].iterations
    assert sorted(c["n"] for c in configs) == [100, 300]
    for c in configs:
        assert sorted(e for e, _ in c["noise"]) == [0.5, 4.0]
        for eps, z in c["noise"]:
            assert gpope_epsilon(z, c["n"], T, profile.domain_delta) <= eps
            assert gpope_epsilon(z / 1.02, c["n"], T, profile.domain_delta) > eps


def test_run_chain_steps_passes_z_and_clip(monkeypatch):
    seen = []
    real = xie2019_chain.gpope

    def spy(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw):
        seen.append((clip_norm, noise_multiplier, iterations))
        return real(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw)

    monkeypatch.setattr(xie2019_chain, "gpope", spy)
    cfg = {
        **chain_config(XieProfile.quick()),
        "n": 20,
        "z": 3.25,
        "iterations": 10,
        "step_grid": [0.1, 0.2],
    }
    xie2019_chain.run_chain_steps(cfg, np.random.SeedSequence(0))
    # GPOPE at the calibrated z; the noiseless GTD2 gate (z = 0) is the non-private baseline
    assert seen == [(cfg["clip_norm"], 3.25, 10), (cfg["clip_norm"], 0.0, 10)]


def test_domain_trial_runs_each_z_for_the_calibrated_T_at_the_settings_clip(monkeypatch):
    """The z of each epsilon reaches GPOPE with the domain's clip G and T = its iterations (the
    T the noise was calibrated for above); the first trial is the noiseless GTD2 baseline."""
    seen = []
    real = xie2019_domains.gpope

    def spy(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw):
        seen.append((iterations, clip_norm, np.asarray(noise_multiplier).tolist()))
        return real(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw)

    monkeypatch.setattr(xie2019_domains, "gpope", spy)
    settings = xie2019_domains.SETTINGS["mountain_car_on"]
    cfg = {
        "domain": "mountain_car_on",
        "n": 20,
        "noise": [(0.5, 3.0, 0.01), (4.0, 1.5, 0.03)],
        "hiv_horizon": 40,
        "hiv_pool_size": 30,
        "hiv_heldout": 10,
    }
    out = xie2019_domains.run_domain_trial(cfg, np.random.SeedSequence(0))
    assert seen == [(settings.iterations, settings.clip_norm, [0.0, 3.0, 1.5])]
    assert out[out.method == "GPOPE"].epsilon.tolist() == [0.5, 4.0]


def test_halving_gpope_noise_anywhere_fails_in_every_run_function(monkeypatch):
    """Every run function (chain tuning and comparison, chain steps, Theorems 2-3, domain tuning
    and trials) run from the typed profile through ``runs``: each noisy GPOPE call meets its
    target (epsilon, delta) for its n and T, and the smallest calibrated z to 1% (z / 1.02
    breaks it): halving z, doubling a budget or dropping steps anywhere fails here. One epsilon
    per domain, so every noisy z has one target."""
    calls = []
    for module in (xie2019_chain, xie2019_domains):
        real = module.gpope

        def spy(
            stats,
            iterations,
            step,
            clip_norm,
            noise_multiplier,
            rng,
            _real=real,
            _name=module.__name__,
            **kw,
        ):
            calls.append(
                (
                    _name,
                    stats.n,
                    iterations,
                    clip_norm,
                    np.atleast_1d(noise_multiplier).astype(float),
                )
            )
            return _real(stats, iterations, step, clip_norm, noise_multiplier, rng, **kw)

        monkeypatch.setattr(module, "gpope", spy)

    def one_seed(func, cfgs, n_seeds, root_seed, desc, **kw):
        return pd.concat(
            [func(c, seed_for(root_seed, 0)).assign(seed=0) for c in cfgs], ignore_index=True
        )

    monkeypatch.setattr(xie2019_runs, "_sweep", one_seed)
    profile = XieProfile.quick(
        chain_sizes=(30,),
        sensitivity_n=30,
        chain_iterations=200,
        schedule_iterations=(200,),
        mc_n=(20,),
        mc_epsilons=(4.0,),
        step_grid=(0.1,),
        gate_step_grid=(3.0,),
        n_trials=1,
    )
    xie2019_runs.run_chain(profile)
    xie2019_runs.run_theorem23(profile, 0.1)
    for domain in ("mountain_car_on", "mountain_car_off"):
        xie2019_runs.run_domain(profile, domain)
    names = {name for name, *_ in calls}
    assert names == {xie2019_chain.__name__, xie2019_domains.__name__}
    noisy = 0
    for name, n, T, clip, zs in calls:
        chain_call = name == xie2019_chain.__name__
        eps, delta = (profile.epsilon, profile.delta) if chain_call else (4.0, profile.domain_delta)
        expected_clip = (
            profile.clip_norm
            if chain_call
            else xie2019_domains.SETTINGS["mountain_car_on"].clip_norm
        )
        assert clip == expected_clip
        for z in zs[zs > 0]:
            noisy += 1
            assert gpope_epsilon(z, n, T, delta) <= eps
            assert gpope_epsilon(z / 1.02, n, T, delta) > eps
    # chain tuning, comparison (3 steps), steps, 2 schedules, 2 x (domain tuning + trial)
    assert noisy >= 8


def test_mc_dp_lsw_noise_is_balles_sigma_at_the_profiles_budget():
    """DP-LSW on Mountain Car releases with sigma_X of Algorithm 1 at the profile's (epsilon,
    delta) on the cell counts, F_max = 1 / (1 - gamma): a halved sigma or a doubled budget
    fails."""
    cfg = {"n": 15, "grids": (4,), "epsilons": (1.0,), "delta": 1e-5}
    seed = np.random.SeedSequence(3)
    out = mc_lsw.run_lsw_trial(cfg, seed)
    data_ss, _ = seed.spawn(2)
    behaviour, _ = xie2019_domains.policies("mountain_car_on")
    traj, _ = mc.collect(behaviour, 15, as_generator(data_ss), xie2019_domains.MC_MAX_STEPS)
    fv = first_visit_returns(mc_lsw.cell_trajectories(traj, 4), 16, 0.9)
    expected = dp_lsw_sigma(
        fv.counts,
        mc_lsw.cell_features(4),
        np.full(16, 1 / 16),
        SmoothGaussianBudget(1.0, 1e-5, 10.0),
    )
    assert out[out.method == "DP-LSW"].sigma.item() == pytest.approx(expected, rel=1e-12)
    assert mc_lsw.return_bound() == pytest.approx(10.0)
