"""Wiring of the Balle et al. (2016) experiment: every DP-LSW / DP-LSL release of Figure 1 uses the
profile's (epsilon, delta, F) and the noise scale of Algorithms 1 and 2.

Two independent tests watch the call sites of :mod:`privrl.papers.balle2016.chapter`:

* a spy on ``dp_lsw`` / ``dp_lsl`` as the experiment calls them records every argument and result;
  each release's ``sigma`` must equal an independent re-computation (loops written out from the
  formulas) with the *profile's* epsilon and delta: a different epsilon or delta at the call site,
  a ``noise_multiplier``, or a scaled sigma inside the algorithm changes it;
* the empirical spread of ``released - non-private`` divided by that reference sigma, pooled over
  all coordinates of all releases (about 300 per algorithm), must have mean square in [0.6, 1.6].
  Under the correct noise the mean square is chi^2_n / n with n ~ 300: P(< 0.6) ~ 1e-11 and
  P(> 1.6) ~ 1e-10. With the noise halved anywhere (call site, algorithm or mechanism) it is
  chi^2_n / (4n) ~ 0.25: P(>= 0.6) ~ 1e-60. The seed is fixed, so the outcome is deterministic;
  the numbers state the power of the test for any seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.core.algorithms import monte_carlo as mc
from privrl.papers.balle2016 import chapter as exp

PROFILE = exp.BalleProfile.quick(
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
        * (norm * max(rho) / math.sqrt(2 * lam)
           * math.sqrt(sum(r * min(c + k, m) for c, r in zip(counts, rho, strict=True)))
           + math.sqrt(sum(r * r for r in rho))) ** 2
        for k in range(m + 1)
    )
    return 2 * alpha * F * norm / (lam - max(rho) * norm**2) * math.sqrt(psi)


def _spy_releases(monkeypatch) -> list[dict]:
    """Record every DP-LSW / DP-LSL call the experiment makes (the real release still runs)."""
    calls: list[dict] = []

    def spy(name, original):
        def wrapped(*args, **kwargs):
            result = original(*args, **kwargs)
            calls.append(dict(name=name, args=args, kwargs=kwargs, result=result))
            return result
        return wrapped

    monkeypatch.setattr(exp, "dp_lsw", spy("DP-LSW", mc.dp_lsw))
    monkeypatch.setattr(exp, "dp_lsl", spy("DP-LSL", mc.dp_lsl))
    return calls


def _reference(call: dict, profile: exp.BalleProfile) -> float:
    """Sigma of the recorded release from the profile's privacy parameters (not the call's)."""
    eps, dl, F = profile.epsilon, profile.delta, profile.return_bound
    if call["name"] == "DP-LSW":
        fv, phi, rho = call["args"][:3]
        return _reference_sigma_lsw(fv.counts, phi, rho, eps, dl, F)
    fv, phi, rho, lam = call["args"][:4]
    expected_lam = np.linalg.norm(phi, 2) ** 2 * max(rho) + profile.lsl_c * fv.m**profile.lsl_power
    assert lam == pytest.approx(expected_lam, rel=1e-12)
    return _reference_sigma_lsl(fv.counts, fv.m, phi, rho, lam, eps, dl, F)


def _spread_ok(calls: list[dict], profile: exp.BalleProfile, name: str) -> bool:
    z = np.concatenate([
        (c["result"].theta - c["result"].theta_nonprivate) / _reference(c, profile)
        for c in calls if c["name"] == name
    ])
    assert z.size >= 250
    return 0.6 <= float(np.mean(z**2)) <= 1.6


def _sigmas_match(calls: list[dict], profile: exp.BalleProfile) -> bool:
    return all(
        math.isclose(c["result"].sigma, _reference(c, profile), rel_tol=1e-9) for c in calls
    )


def test_every_release_uses_the_profiles_epsilon_delta_and_bound(monkeypatch):
    calls = _spy_releases(monkeypatch)
    exp.run_figure1(PROFILE, executor="serial")
    assert {c["name"] for c in calls} == {"DP-LSW", "DP-LSL"}
    for c in calls:
        eps, dl, F = c["args"][3:6] if c["name"] == "DP-LSW" else c["args"][4:7]
        assert (eps, dl, F) == (PROFILE.epsilon, PROFILE.delta, PROFILE.return_bound)
        assert c["kwargs"].get("noise_multiplier", 1.0) == 1.0
    assert _sigmas_match(calls, PROFILE)


@pytest.mark.parametrize("name", ["DP-LSW", "DP-LSL"])
def test_released_noise_has_the_calibrated_spread(monkeypatch, name):
    calls = _spy_releases(monkeypatch)
    exp.run_figure1(PROFILE, executor="serial")
    assert _spread_ok(calls, PROFILE, name)


@pytest.mark.parametrize("name", ["DP-LSW", "DP-LSL"])
def test_halved_noise_in_the_mechanism_is_caught(monkeypatch, name):
    # the weakening this file guards against: sigma halved where the noise is drawn
    original = mc.smooth_gaussian_release
    monkeypatch.setattr(mc, "smooth_gaussian_release", lambda v, s, rng: original(v, s / 2, rng))
    calls = _spy_releases(monkeypatch)
    exp.run_figure1(PROFILE, executor="serial")
    assert _sigmas_match(calls, PROFILE)  # the reported sigma is unchanged ...
    assert not _spread_ok(calls, PROFILE, name)  # ... but the spread gives it away


def test_a_different_epsilon_at_the_call_site_is_caught(monkeypatch):
    # the experiment passing 2 epsilon (or halving sigma through noise_multiplier) to DP-LSW
    original = mc.dp_lsw
    monkeypatch.setattr(mc, "dp_lsw", lambda fv, phi, rho, eps, *rest, **kw:
                        original(fv, phi, rho, 2 * eps, *rest, **kw))
    calls = _spy_releases(monkeypatch)
    exp.run_figure1(PROFILE, executor="serial")
    assert not _sigmas_match(calls, PROFILE)
    assert not _spread_ok(calls, PROFILE, "DP-LSW")


def test_ledger_reports_the_epsilon_the_releases_use(monkeypatch):
    tiny = exp.BalleProfile.quick(
        n_states=10, n_trials=2, batch_sizes=(20, 40), reg_batch_sizes=(20,), reg_n=2,
        n_pairs=50, mc_samples=500, n_arbitrary=50, epsilon=0.7, delta=0.01,
    )
    calls = _spy_releases(monkeypatch)
    report = exp.run(tiny, executor="serial").report
    assert len(report.entries) == 4
    for entry in report.entries:
        assert (entry.epsilon, entry.delta) == (tiny.epsilon, tiny.delta)
        assert (entry.relation, entry.unit, entry.compositions) == ("replace-one", "trajectory", 1)
    assert {c["args"][3 if c["name"] == "DP-LSW" else 4] for c in calls} == {tiny.epsilon}
