"""Wiring tests of Q-learning with functional noise (Wang and Hegde 2019) and its baselines.

Targets: the noise scale ``train_dqn`` passes for DP-SGD, functional, output and input noise;
the noise each Figure 2 run receives from the calibrations (``privrl.papers.wang2019``); the delta
split of Theorem 5's calibration; ``output_perturbation_sigma``; the block charging of DP-SGD on a
growing replay memory.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import dp_accounting
import numpy as np
import pandas as pd
import pytest

from privrl.core.accounting import functional_noise as fn
from privrl.core.accounting.composition import kairouz_composition
from privrl.core.accounting.events import rdp_epsilon
from privrl.core.algorithms import functional_q as fq
from privrl.core.envs.line import HORIZON
from privrl.papers.wang2019 import calibration
from privrl.papers.wang2019 import runs as wang2019_runs
from privrl.papers.wang2019.profile import WangProfile

SMALL = dict(episodes=1, batch_size=8)


def test_train_dqn_dpsgd_passes_noise_multiplier_and_clip(monkeypatch):
    calls = []
    real = fq.dpsgd_gradient

    def spy(grads, clip, noise_multiplier, batch_size, generator):
        calls.append((clip, noise_multiplier, batch_size))
        return real(grads, clip, noise_multiplier, batch_size, generator)

    monkeypatch.setattr(fq, "dpsgd_gradient", spy)
    fq.train_dqn(fq.DPSGDConfig(noise_multiplier=1.7, clip=0.3, warmup=8), 0, **SMALL)
    assert calls and set(calls) == {(0.3, 1.7, 8)}


def test_train_dqn_dpsgd_steps_start_at_the_warmup():
    """Warm-up 20, batch 8, one episode of 50 transitions: Poisson steps at memory sizes 20..50,
    so 31 recorded rates, the largest 8/20 (a run ignoring the warm-up would start at rate 1)."""
    run = fq.train_dqn(fq.DPSGDConfig(noise_multiplier=1.0, warmup=20), 0, **SMALL)
    assert len(run.sampling_rates) == 50 - 20 + 1
    assert run.sampling_rates.max() == pytest.approx(8 / 20)


def test_train_dqn_functional_noise_uses_gp_sigma_and_gp_beta(monkeypatch):
    calls = []
    real = fq.FunctionalNoise

    def spy(n_actions, beta, sigma, rng):
        calls.append((n_actions, beta, sigma))
        return real(n_actions, beta, sigma, rng)

    monkeypatch.setattr(fq, "FunctionalNoise", spy)
    fq.train_dqn(fq.FunctionalNoiseConfig(gp_sigma=0.8, gp_beta=3.0), 0, **SMALL)
    # the authors' protocol: paths for the policy network and for the target network, and a
    # fresh path for the released function evaluated after the one episode
    assert calls == [(2, 3.0, 0.8)] * 3


def test_train_dqn_output_noise_has_std_output_std():
    """20,000 noise values of the run's policy noise source: std within 3% of 2.5."""
    run = fq.train_dqn(fq.OutputPerturbation(output_std=2.5), 0, **SMALL)
    values = run.policy_noise.values(np.linspace(0.0, 1.0, 10_000))
    assert values.shape == (10_000, 2)
    assert values.std() == pytest.approx(2.5, rel=0.03)


def test_train_dqn_input_noise_has_std_reward_std(monkeypatch):
    """With gamma = 0 every regression target is an observed reward r + N(0, sigma^2); true
    rewards lie in [-1, 1], so with sigma = 50 the spread of the 50 stored rewards is within 30%
    of sigma (chi-square, 49 degrees of freedom: 99.9% within 0.72 .. 1.3)."""
    targets = {}
    real = fq.nn.functional.smooth_l1_loss

    def spy(pred, y):
        for v in y.detach().numpy():
            targets[float(v)] = True
        return real(pred, y)

    monkeypatch.setattr(fq.nn.functional, "smooth_l1_loss", spy)
    fq.train_dqn(fq.InputPerturbation(reward_std=50.0), 0, gamma=0.0, **SMALL)
    y = np.array(list(targets))
    assert len(y) >= 40
    assert y.std(ddof=1) == pytest.approx(50.0, rel=0.3)


@pytest.fixture(scope="module")
def figure2():
    profile = WangProfile.quick()
    return profile, wang2019_runs.figure2_configs(profile, calibration.privacy_table(profile))


def test_figure2_runs_receive_the_calibrated_noise(figure2):
    """Each method's own noise parameter, recomputed from the profile: U = T - B + 1 updates
    (one per sample once a batch is stored), a union bound over the 4 paths (2 actions x policy
    and target network) redrawn at every episode start, T rewards, DP-SGD from the warm-up."""
    p, configs = figure2
    T = p.episodes * HORIZON
    B, alpha, L, delta = p.batch_size, p.lr, p.lipschitz, p.delta
    U, n_paths = T - B + 1, 4 * p.episodes
    assert calibration.n_paths_drawn(p) == n_paths
    for eps in p.epsilons:
        got = {c["variant"]: c for c in configs if c["epsilon"] == eps}
        cal = fn.calibrate_algorithm1(eps, delta, U, B, alpha, L, n_paths)
        assert got["functional"]["gp_sigma"] == cal["sigma"]
        assert got["functional"]["gp_beta"] == cal["beta"]
        assert got["output"]["output_std"] == fn.output_perturbation_sigma(
            eps, delta, U, B, alpha, cal["k"], L
        )
        assert got["input"]["reward_std"] == fn.input_perturbation_sigma(eps, delta, T)
        assert got["dpsgd"]["noise_multiplier"] == fn.dpsgd_growing_memory_noise_multiplier(
            eps, delta, B, T, p.dpsgd_warmup
        )
        assert got["dpsgd (reward fn)"]["noise_multiplier"] == (
            fn.dpsgd_reward_function_noise_multiplier(eps, delta, B, T - p.dpsgd_warmup + 1)
        )
        for c in got.values():
            assert (c["episodes"], c["batch_size"], c["lr"]) == (p.episodes, B, alpha)


def test_figure2_dpsgd_runs_start_after_the_calibrated_warmup(figure2):
    """Fixed: DP-SGD's noise is calibrated for steps from ``dpsgd_warmup`` on, and its runs start
    there (the run's DPSGDConfig carries the warm-up; ``train_dqn`` honours it, tested above)."""
    p, configs = figure2
    dpsgd = [c for c in configs if c["method"] == "dpsgd"]
    assert len(dpsgd) == 2 * len(p.epsilons)
    for c in dpsgd:
        assert wang2019_runs.privacy_config(c).warmup == p.dpsgd_warmup == c["warmup"]


def test_run_learning_curve_passes_each_methods_noise(monkeypatch):
    calls = []

    def fake_train(privacy, rng, **kw):
        calls.append((privacy, kw))
        return SimpleNamespace(curve=pd.DataFrame({"episode": [0]}), updates=0, path_resets=[])

    monkeypatch.setattr(wang2019_runs, "train_dqn", fake_train)
    common = dict(episodes=3, lr=0.1, batch_size=16, eval_episodes=2)
    for cfg in (
        dict(method="input", reward_std=1.25),
        dict(method="output", output_std=0.7),
        dict(method="dpsgd", noise_multiplier=2.5, warmup=77, sampling="fixed"),
        wang2019_runs.functional_config(0.9, 2.0, "every", "authors", {}),
    ):
        wang2019_runs.run_learning_curve({**cfg, **common}, np.random.SeedSequence(0))
    assert [c[1] for c in calls] == [common] * 4
    assert [c[0] for c in calls] == [
        fq.InputPerturbation(1.25),
        fq.OutputPerturbation(0.7),
        fq.DPSGDConfig(2.5, 1.0, 77, "fixed"),
        fq.FunctionalNoiseConfig(0.9, 2.0, "independent", "episode"),
    ]


@pytest.mark.parametrize("share", [0.5, 0.8, 0.45, 0.73])
def test_theorem5_delta_split_sums_to_at_most_delta(share):
    """Paper profile (U = 4873 updates, 400 paths). Shares 0.45, 0.73 and 0.8: the smallest k
    whose approximation term is below the whole delta leaves it above delta minus the Gaussian
    share (a calibration that forgets the split fails)."""
    eps, delta, U, B, alpha, L, n_paths = 0.9, 1e-4, 4873, 128, 0.01, 1.0, 400
    cal = fn.calibrate_algorithm1(eps, delta, U, B, alpha, L, n_paths, delta_share=share)
    assert cal["delta_gauss"] == pytest.approx(share * delta, rel=1e-12)
    assert cal["delta_gauss"] + cal["delta_approx"] <= delta
    # Theorem 5's sigma at the Gaussian share, written out
    v = 4 * alpha * (cal["k"] + 1) / B
    sigma = math.sqrt(2 * U * math.log(math.e + eps / cal["delta_gauss"]) * (v**2 + v)) / eps
    assert cal["sigma"] == pytest.approx(sigma, rel=1e-12)
    assert cal["beta"] == pytest.approx(1 / v, rel=1e-12)
    gap = 2 * cal["k"] - 8.68 * math.sqrt(1 / v) * sigma
    assert cal["delta_approx"] == pytest.approx(n_paths * math.exp(-(gap**2) / 2), rel=1e-9)


def test_output_perturbation_sigma_composes_to_the_target():
    """Back out the per-update epsilon from sigma (classic Gaussian mechanism, sensitivity
    4 alpha L (k + 1) / B) and compose over the U updates (Kairouz et al.): (epsilon, delta)."""
    eps, delta, U, B, alpha, k, L = 0.9, 1e-4, 1373, 8, 0.01, 3, 1.0
    sigma = fn.output_perturbation_sigma(eps, delta, U, B, alpha, k, L)
    steps = U
    delta0 = 1 - ((1 - delta) / (1 - delta / 2)) ** (1 / steps)
    eps0 = math.sqrt(2 * math.log(1.25 / delta0)) * 4 * alpha * L * (k + 1) / B / sigma
    eps_total, delta_total = kairouz_composition(eps0, delta0, steps, delta / 2)
    assert eps_total == pytest.approx(eps, rel=1e-6)
    assert delta_total <= delta * (1 + 1e-9)


def test_growing_memory_block_charging_bounds_the_exact_composition():
    """The noise multiplier from block charging, accounted step by step with the exact rate
    B / min(t, N) of every step t = warmup .. n_samples, meets the target."""
    eps, delta, B, n, w, N = 1.0, 1e-4, 16, 400, 100, 250
    z = fn.dpsgd_growing_memory_noise_multiplier(eps, delta, B, n, w, replay_size=N)
    rates = [B / min(t, N) for t in range(w, n + 1)]
    exact = rdp_epsilon(
        dp_accounting.ComposedDpEvent(
            [
                dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z))
                for q in rates
            ]
        ),
        delta,
    )
    assert exact <= eps * (1 + 1e-4)
    assert exact >= 0.65 * eps  # and block charging is not wildly loose (0.73 here)


def test_dpsgd_calibration_is_on_the_safe_side():
    """Fixed: the calibrated z meets the target (brentq's root once gave 0.45000617 for 0.45)."""
    for eps in (0.45, 0.9):
        z = fn.dpsgd_noise_multiplier(eps, 1e-4, 128 / 10_000, 1400)
        assert fn.dpsgd_epsilon(z, 128 / 10_000, 1400, 1e-4) <= eps


def test_input_perturbation_sigma_protects_all_T_rewards():
    """All T rewards may change by 1: l2 sensitivity sqrt(T); the exact epsilon of the Gaussian
    mechanism at that sensitivity is the target (and not below half of it, as it would be for a
    sensitivity taken as 1)."""
    from privrl.core.accounting.gaussian import gaussian_delta, gaussian_epsilon

    eps, delta, T = 0.9, 1e-4, 1500
    sigma = fn.input_perturbation_sigma(eps, delta, T)
    assert gaussian_delta(sigma, eps, math.sqrt(T)) <= delta
    assert gaussian_epsilon(sigma, delta, math.sqrt(T)) == pytest.approx(eps, rel=1e-6)
