"""Wiring of DP-LSW / DP-LSL (Balle et al. 2016): the noise each release adds and the (epsilon,
delta) the chapter passes.

Targets: ``monte_carlo.dp_lsw`` / ``dp_lsl`` (released minus non-private estimate has the spread of
Algorithm 1 / 2's sigma) and :mod:`privrl.papers.balle2016.runs` (``run_figure1`` / ``run_batch``:
the profile's epsilon, delta, F_max and the LSL regularisation reach the releases). Two independent
tests watch the call sites of the sweep:

* a spy on ``dp_lsw`` / ``dp_lsl`` as the sweep calls them records every argument and result;
  each release's ``sigma`` must equal an independent re-computation (loops written out from the
  formulas) with the *profile's* epsilon and delta: a different epsilon or delta at the call site,
  a ``noise_multiplier``, or a scaled sigma inside the algorithm changes it;
* the empirical spread of ``released - non-private`` divided by that reference sigma, pooled over
  all coordinates of all releases (about 300 per algorithm), must have mean square in [0.6, 1.6].
  Under the correct noise the mean square is chi^2_n / n with n ~ 300: P(< 0.6) ~ 1e-11 and
  P(> 1.6) ~ 1e-10. With the noise halved anywhere (call site, algorithm or mechanism) it is
  chi^2_n / (4n) ~ 0.25: P(>= 0.6) ~ 1e-60. The seed is fixed, so the outcome is deterministic;
  the numbers state the power of the test for any seed.

The ledger's entries must report the epsilon the releases use, with the event that gives it back.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from privrl.core.accounting.smooth_sensitivity import SmoothGaussianEvent
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.envs.chain import chain_mdp, sample_trajectories
from privrl.papers.balle2016 import chapter, runs
from privrl.papers.balle2016.profile import BalleProfile

PROFILE = BalleProfile.quick(
    n_states=10, n_trials=10, batch_sizes=(30, 80), reg_batch_sizes=(), epsilon=0.5, delta=0.05
)


def _alpha_beta(epsilon: float, delta: float, d: int) -> tuple[float, float]:
    log_term = math.log(2 / delta)
    return 5 * math.sqrt(2 * log_term) / epsilon, epsilon / (4 * (d + log_term))


def _reference_sigma_lsw(counts, phi, rho, epsilon, delta, F) -> float:
    alpha, beta = _alpha_beta(epsilon, delta, phi.shape[1])
    psi = max(
        math.exp(-k * beta) * sum(r / max(c - k, 1) ** 2 for c, r in zip(counts, rho, strict=True))
        for k in range(int(max(counts)) + 1)
    )
    pinv = np.linalg.pinv(np.diag(np.sqrt(rho)) @ phi)
    return alpha * F * np.linalg.svd(pinv, compute_uv=False)[0] * math.sqrt(psi)


def _reference_sigma_lsl(counts, m, phi, rho, lam, epsilon, delta, F) -> float:
    alpha, beta = _alpha_beta(epsilon, delta, phi.shape[1])
    norm = np.linalg.svd(phi, compute_uv=False)[0]
    psi = max(
        math.exp(-k * beta)
        * (
            norm
            * max(rho)
            / math.sqrt(2 * lam)
            * math.sqrt(sum(r * min(c + k, m) for c, r in zip(counts, rho, strict=True)))
            + math.sqrt(sum(r * r for r in rho))
        )
        ** 2
        for k in range(m + 1)
    )
    return 2 * alpha * F * norm / (lam - max(rho) * norm**2) * math.sqrt(psi)


def _spy_releases(monkeypatch) -> list[dict]:
    """Record every DP-LSW / DP-LSL call the sweep makes (the real release still runs)."""
    calls: list[dict] = []

    def spy(name, original):
        def wrapped(*args, **kwargs):
            result = original(*args, **kwargs)
            calls.append(dict(name=name, args=args, kwargs=kwargs, result=result))
            return result

        return wrapped

    monkeypatch.setattr(runs, "dp_lsw", spy("DP-LSW", mc.dp_lsw))
    monkeypatch.setattr(runs, "dp_lsl", spy("DP-LSL", mc.dp_lsl))
    return calls


def _reference(call: dict, profile: BalleProfile) -> float:
    """Sigma of the recorded release from the profile's privacy parameters (not the call's)."""
    eps, dl, F = profile.epsilon, profile.delta, profile.return_bound
    if call["name"] == "DP-LSW":
        fv, phi, rho = call["args"][:3]
        return _reference_sigma_lsw(fv.counts, phi, rho, eps, dl, F)
    fv, phi, rho, lam = call["args"][:4]
    expected_lam = np.linalg.norm(phi, 2) ** 2 * max(rho) + profile.lsl_c * fv.m**profile.lsl_power
    assert lam == pytest.approx(expected_lam, rel=1e-12)
    return _reference_sigma_lsl(fv.counts, fv.m, phi, rho, lam, eps, dl, F)


def _spread_ok(calls: list[dict], profile: BalleProfile, name: str) -> bool:
    z = np.concatenate(
        [
            (c["result"].theta - c["result"].theta_nonprivate) / _reference(c, profile)
            for c in calls
            if c["name"] == name
        ]
    )
    assert z.size >= 250
    return 0.6 <= float(np.mean(z**2)) <= 1.6


def _sigmas_match(calls: list[dict], profile: BalleProfile) -> bool:
    return all(math.isclose(c["result"].sigma, _reference(c, profile), rel_tol=1e-9) for c in calls)


def test_every_release_uses_the_profiles_epsilon_delta_and_bound(monkeypatch):
    calls = _spy_releases(monkeypatch)
    runs.run_figure1(PROFILE, executor="serial")
    assert {c["name"] for c in calls} == {"DP-LSW", "DP-LSL"}
    for c in calls:
        budget = c["args"][3 if c["name"] == "DP-LSW" else 4]
        assert budget == mc.SmoothGaussianBudget(
            PROFILE.epsilon, PROFILE.delta, PROFILE.return_bound
        )
        assert c["kwargs"].get("noise_multiplier", 1.0) == 1.0
    assert _sigmas_match(calls, PROFILE)


@pytest.mark.parametrize("name", ["DP-LSW", "DP-LSL"])
def test_released_noise_has_the_calibrated_spread(monkeypatch, name):
    calls = _spy_releases(monkeypatch)
    runs.run_figure1(PROFILE, executor="serial")
    assert _spread_ok(calls, PROFILE, name)


@pytest.mark.parametrize("name", ["DP-LSW", "DP-LSL"])
def test_halved_noise_in_the_mechanism_is_caught(monkeypatch, name):
    # the weakening this file guards against: sigma halved where the noise is drawn
    original = mc.smooth_gaussian_release
    monkeypatch.setattr(mc, "smooth_gaussian_release", lambda v, s, rng: original(v, s / 2, rng))
    calls = _spy_releases(monkeypatch)
    runs.run_figure1(PROFILE, executor="serial")
    assert _sigmas_match(calls, PROFILE)  # the reported sigma is unchanged ...
    assert not _spread_ok(calls, PROFILE, name)  # ... but the spread gives it away


def test_a_different_epsilon_at_the_call_site_is_caught(monkeypatch):
    # the experiment passing 2 epsilon (or halving sigma through noise_multiplier) to DP-LSW
    original = mc.dp_lsw
    monkeypatch.setattr(
        mc,
        "dp_lsw",
        lambda fv, phi, rho, budget, *rest, **kw: original(
            fv, phi, rho, dataclasses.replace(budget, epsilon=2 * budget.epsilon), *rest, **kw
        ),
    )
    calls = _spy_releases(monkeypatch)
    runs.run_figure1(PROFILE, executor="serial")
    assert not _sigmas_match(calls, PROFILE)
    assert not _spread_ok(calls, PROFILE, "DP-LSW")


def test_ledger_reports_the_epsilon_the_releases_use(monkeypatch):
    tiny = BalleProfile.quick(
        n_states=10,
        n_trials=2,
        batch_sizes=(20, 40),
        reg_batch_sizes=(20,),
        reg_n=2,
        n_pairs=50,
        mc_samples=500,
        n_arbitrary=50,
        epsilon=0.7,
        delta=0.01,
    )
    calls = _spy_releases(monkeypatch)
    report = chapter.run(tiny, executor="serial").report
    assert len(report.entries) == 4
    for entry in report.entries:
        assert (entry.epsilon, entry.delta) == (tiny.epsilon, tiny.delta)
        assert (entry.relation, entry.unit, entry.compositions) == ("replace-one", "trajectory", 1)
        # the event holds the constants the releases' sigma was calibrated with (written out here)
        d = 10 if "tabular" in entry.release else 5
        assert isinstance(entry.event, SmoothGaussianEvent) and entry.event.d == d
        assert (entry.event.alpha, entry.event.beta) == pytest.approx(
            _alpha_beta(tiny.epsilon, tiny.delta, d), rel=1e-12
        )
        assert entry.recomputed_epsilon() == pytest.approx(tiny.epsilon, rel=1e-9)
        assert entry.cross_check.kind == "empirical"
    assert {c["args"][3 if c["name"] == "DP-LSW" else 4].epsilon for c in calls} == {tiny.epsilon}


@pytest.fixture(scope="module")
def chain_fv():
    mdp = chain_mdp(6, 0.5, "uniform")
    traj = sample_trajectories(mdp, 30, np.random.default_rng(0), 50)
    return mc.first_visit_returns(traj, 6, 0.9), np.eye(6), np.full(6, 1 / 6)


@pytest.mark.parametrize("which", ["lsw", "lsl"])
def test_release_spread_is_the_algorithms_sigma(chain_fv, which):
    """1,000 releases x 6 coordinates: the empirical std is within 5% of sigma (se 0.9%)."""
    fv, Phi, rho = chain_fv
    budget = mc.SmoothGaussianBudget(0.5, 1e-3, 1.0)
    rng = np.random.default_rng(1)
    if which == "lsw":
        sigma = mc.dp_lsw_sigma(fv.counts, Phi, rho, budget)
        draws = [mc.dp_lsw(fv, Phi, rho, budget, rng) for _ in range(1000)]
    else:
        lam = mc.lsl_regularization(Phi, rho, fv.m, 1.0)
        sigma = mc.dp_lsl_sigma(fv.counts, fv.m, Phi, rho, lam, budget)
        draws = [mc.dp_lsl(fv, Phi, rho, lam, budget, rng) for _ in range(1000)]
    assert all(d.sigma == sigma for d in draws)
    noise = np.stack([d.theta - d.theta_nonprivate for d in draws])
    assert noise.std() == pytest.approx(sigma, rel=0.05)


def test_experiment_passes_the_profiles_budget(monkeypatch):
    seen = []
    for name in ("dp_lsw", "dp_lsl"):
        real = getattr(runs, name)

        def spy(fv, Phi, rho, *args, _real=real, _name=name, **kw):
            seen.append(
                (
                    _name,
                    args[:-1] if _name == "dp_lsw" else args[1:-1],
                    args[0] if _name == "dp_lsl" else None,
                    fv.m,
                    Phi,
                    rho,
                )
            )
            return _real(fv, Phi, rho, *args, **kw)

        monkeypatch.setattr(runs, name, spy)
    # the configs run_figure1 hands to run_sweep, from a profile with a non-default budget
    configs = []
    monkeypatch.setattr(runs, "run_sweep", lambda func, cfgs, **kw: configs.extend(cfgs))
    profile = BalleProfile.quick(
        epsilon=0.37,
        delta=0.013,
        return_bound=1.7,
        lsl_power=0.3,
        batch_sizes=(10, 20),
        reg_batch_sizes=(),
    )
    runs.run_figure1(profile)
    cfg = next(c for c in configs if c["m"] == 20)
    assert (cfg["epsilon"], cfg["delta"], cfg["return_bound"]) == (0.37, 0.013, 1.7)
    runs.run_batch(cfg, np.random.SeedSequence(0))
    budget = mc.SmoothGaussianBudget(cfg["epsilon"], cfg["delta"], cfg["return_bound"])
    assert {s[0] for s in seen} == {"dp_lsw", "dp_lsl"}
    for name, args, lam, m, Phi, rho in seen:
        assert tuple(args) == (budget,)
        if name == "dp_lsl":
            assert lam == mc.lsl_regularization(Phi, rho, m, cfg["lsl_c"], cfg["lsl_power"])
