"""First-visit Monte Carlo, LSW, LSL, DP-LSW and DP-LSL (Balle et al. 2016)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import privrl.core.algorithms.monte_carlo as mc
from privrl.core.algorithms.monte_carlo import (
    SmoothGaussianBudget,
    dp_lsl,
    dp_lsl_sigma,
    dp_lsw,
    dp_lsw_sigma,
    first_visit_returns,
    lsl,
    lsl_loss,
    lsl_regularization,
    lsw,
    lsw_loss,
    weighted_rmse,
)
from privrl.core.envs.chain import (
    aggregated_features,
    chain_mdp,
    sample_trajectories,
    tabular_features,
)
from privrl.core.trajectories import Trajectories

GAMMA = 0.99
N = 40
RHO = np.full(N, 1 / N)
BUDGET = SmoothGaussianBudget(epsilon=0.1, delta=0.1, return_bound=1.0)


@pytest.fixture(scope="module")
def data():
    mdp = chain_mdp(N)
    return mdp, sample_trajectories(mdp, 150, 11)


def _slow_first_visit(traj, n, gamma):
    """Independent reference: plain loops over trajectories and times."""
    m = traj.n_trajectories
    F = np.zeros((m, n))
    seen = np.zeros((m, n), bool)
    for i in range(m):
        L = traj.lengths[i]
        last = L + 1 if traj.terminated[i] else L
        for t in range(last):
            s = traj.observations[i, t]
            if not seen[i, s]:
                seen[i, s] = True
                F[i, s] = sum(gamma ** (u - t) * traj.rewards[i, u] for u in range(t, L))
    return F, seen


def test_first_visit_returns_against_loops(data):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    F, seen = _slow_first_visit(tr, N, GAMMA)
    assert np.array_equal(fv.visited, seen)
    assert np.allclose(fv.returns, F, atol=1e-12)
    assert np.array_equal(fv.counts, seen.sum(0))
    with np.errstate(invalid="ignore"):
        means = np.where(seen.sum(0) > 0, F.sum(0) / seen.sum(0), 0.0)
    assert np.allclose(fv.means, means)


def test_first_visit_mean_is_unbiased_for_values():
    # 20k trajectories: first-visit means estimate V with SE <= 0.5/sqrt(count); 5 SE tolerance
    mdp = chain_mdp(N)
    fv = first_visit_returns(sample_trajectories(mdp, 20000, 0), N, GAMMA)
    V = mdp.true_values(GAMMA)
    ok = fv.counts > 100
    assert np.all(np.abs(fv.means[ok] - V[ok]) <= 5 * 0.5 / np.sqrt(fv.counts[ok]) + 2e-3)


@pytest.mark.parametrize(
    "phi", [tabular_features(N), aggregated_features(N, 2), aggregated_features(N, 5)]
)
def test_lsw_equals_direct_least_squares(data, phi):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    w = np.sqrt(RHO)
    direct = np.linalg.lstsq(w[:, None] * phi, w * fv.means, rcond=None)[0]
    assert np.allclose(lsw(fv, phi, RHO), direct, atol=1e-10)


@pytest.mark.parametrize("phi", [tabular_features(N), aggregated_features(N, 2)])
@pytest.mark.parametrize("lam", [0.05, 3.0, 500.0])
def test_lsl_equals_stacked_ridge(data, phi, lam):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    m, d = fv.m, phi.shape[1]
    ii, ss = np.nonzero(fv.visited)
    A = np.vstack([np.sqrt(RHO[ss] / m)[:, None] * phi[ss], math.sqrt(lam / (2 * m)) * np.eye(d)])
    b = np.concatenate([np.sqrt(RHO[ss] / m) * fv.returns[ii, ss], np.zeros(d)])
    direct = np.linalg.lstsq(A, b, rcond=None)[0]
    theta = lsl(fv, phi, RHO, lam)
    assert np.allclose(theta, direct, atol=1e-10)
    # and it minimises the objective: random perturbations never decrease it
    rng = np.random.default_rng(0)
    j = lsl_loss(fv, phi, RHO, lam, theta)
    assert all(
        lsl_loss(fv, phi, RHO, lam, theta + 1e-3 * rng.normal(size=d)) >= j for _ in range(20)
    )


def test_lsw_minimises_its_loss(data):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    phi = aggregated_features(N, 2)
    theta = lsw(fv, phi, RHO)
    rng = np.random.default_rng(1)
    j = lsw_loss(fv, phi, RHO, theta)
    assert all(lsw_loss(fv, phi, RHO, theta + 1e-3 * rng.normal(size=20)) >= j for _ in range(20))


def _sigma_lsw_reference(counts, phi, rho, eps, delta, F):
    """DP-LSW sigma written out from the paper's formulas, independently of the library."""
    d = phi.shape[1]
    alpha = 5 * math.sqrt(2 * math.log(2 / delta)) / eps
    beta = eps / (4 * (d + math.log(2 / delta)))
    svals = np.linalg.svd(np.sqrt(rho)[:, None] * phi, compute_uv=False)
    pinv_norm = 1 / svals[svals > 1e-12].min()
    psi = max(
        math.exp(-k * beta) * sum(r / max(c - k, 1) ** 2 for c, r in zip(counts, rho, strict=True))
        for k in range(int(max(counts)) + 3)
    )
    return alpha * F * pinv_norm * math.sqrt(psi)


def test_sigma_formulas(data):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    for phi in (tabular_features(N), aggregated_features(N, 2)):
        assert dp_lsw_sigma(fv.counts, phi, RHO, BUDGET) == pytest.approx(
            _sigma_lsw_reference(fv.counts, phi, RHO, 0.1, 0.1, 1.0), rel=1e-10
        )
    phi = aggregated_features(N, 2)
    lam = lsl_regularization(phi, RHO, fv.m, 1.0)
    assert lam == pytest.approx(2 / N + fv.m**0.4)  # ||Phi||^2 = 2 (pairs), ||rho||_inf = 1/N
    alpha = 5 * math.sqrt(2 * math.log(20)) / 0.1
    beta = 0.1 / (4 * (20 + math.log(20)))
    norm = math.sqrt(2)
    psi = max(
        math.exp(-k * beta)
        * (
            norm / N / math.sqrt(2 * lam) * math.sqrt(sum(min(c + k, fv.m) / N for c in fv.counts))
            + 1 / math.sqrt(N)
        )
        ** 2
        for k in range(fv.m + 1)
    )
    expected = 2 * alpha * norm / (lam - 2 / N) * math.sqrt(psi)
    assert dp_lsl_sigma(fv.counts, fv.m, phi, RHO, lam, BUDGET) == pytest.approx(
        expected, rel=1e-10
    )
    # F_max scales both sigmas linearly: the budget's return bound reaches the release
    twice = SmoothGaussianBudget(0.1, 0.1, 2.0)
    assert dp_lsl_sigma(fv.counts, fv.m, phi, RHO, lam, twice) == pytest.approx(2 * expected)
    assert dp_lsw_sigma(fv.counts, phi, RHO, twice) == pytest.approx(
        2 * _sigma_lsw_reference(fv.counts, phi, RHO, 0.1, 0.1, 1.0), rel=1e-10
    )


def test_lsw_local_sensitivity_bound_on_neighbours(data):
    # ||theta_X - theta_X'|| <= F_max ||(Gamma^1/2 Phi)^+|| sqrt(phi_0(X)) (condition (a) before
    # smoothing), for random and adversarial single-trajectory replacements of a small batch.
    mdp, _ = data
    rng = np.random.default_rng(5)
    phi = aggregated_features(N, 2)
    pinv_norm = np.linalg.norm(np.linalg.pinv(np.sqrt(RHO)[:, None] * phi), 2)
    worst = 0.0
    for _ in range(40):
        X = sample_trajectories(mdp, 12, rng)
        pool = sample_trajectories(mdp, 30, rng)
        fvx = first_visit_returns(X, N, GAMMA)
        bound = pinv_norm * math.sqrt(np.sum(RHO / np.maximum(fvx.counts, 1) ** 2))
        for _ in range(25):
            i, j = int(rng.integers(12)), int(rng.integers(30))
            fvy = first_visit_returns(X.replace(i, pool, j), N, GAMMA)
            diff = np.linalg.norm(lsw(fvx, phi, RHO) - lsw(fvy, phi, RHO))
            worst = max(worst, diff / bound)
    assert worst <= 1 + 1e-12


def test_dp_determinism(data):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    phi = tabular_features(N)
    a = dp_lsw(fv, phi, RHO, BUDGET, 3)
    b = dp_lsw(fv, phi, RHO, BUDGET, 3)
    assert np.array_equal(a.theta, b.theta)
    lam = lsl_regularization(phi, RHO, fv.m, 1.0)
    c = dp_lsl(fv, phi, RHO, lam, BUDGET, 3)
    assert np.array_equal(c.theta, dp_lsl(fv, phi, RHO, lam, BUDGET, 3).theta)
    assert not np.array_equal(c.theta, dp_lsl(fv, phi, RHO, lam, BUDGET, 4).theta)


def _noise_scale_ok(release, fv, phi, required_sigma, n_releases=300) -> bool:
    """Statistical check that a release adds noise of at least the required scale.

    Pools n_releases * d standardised noise coordinates z = (theta~ - theta) / sigma_required
    (d = 20: 6000 values). For the correct mechanism mean(z^2) ~ chi2(6000)/6000, mean 1 and sd
    sqrt(2/6000) = 0.018, so the threshold 0.85 is 8 sd below 1 (false rejection < 1e-15). Noise
    of scale sigma/2 gives mean(z^2) ~ 0.25, caught with certainty (power ~ 1).
    """
    centre = lsw(fv, phi, RHO)
    z = np.stack([(release(seed) - centre) / required_sigma for seed in range(n_releases)])
    return float(np.mean(z**2)) >= 0.85


def test_dp_lsw_noise_scale_and_weakened_version_is_caught(data, monkeypatch):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    phi = aggregated_features(N, 2)
    required = _sigma_lsw_reference(fv.counts, phi, RHO, 0.1, 0.1, 1.0)

    def release(seed):
        return dp_lsw(fv, phi, RHO, BUDGET, seed).theta

    def weakened(seed):
        return dp_lsw(fv, phi, RHO, BUDGET, seed, noise_multiplier=0.5).theta

    assert _noise_scale_ok(release, fv, phi, required)
    assert not _noise_scale_ok(weakened, fv, phi, required)

    # a weakened implementation (noise halved inside the release) is caught the same way
    original = mc.smooth_gaussian_release
    monkeypatch.setattr(mc, "smooth_gaussian_release", lambda v, s, rng: original(v, s / 2, rng))
    assert not _noise_scale_ok(release, fv, phi, required)


def test_rmse_and_excess_risk():
    phi = tabular_features(3)
    assert weighted_rmse(phi, [1.0, 2.0, 3.0], [1.0, 2.0, 5.0], [0.5, 0.25, 0.25]) == pytest.approx(
        1.0
    )


def test_input_validation(data):
    _, tr = data
    fv = first_visit_returns(tr, N, GAMMA)
    phi = tabular_features(N)
    with pytest.raises(ValueError):
        first_visit_returns("not trajectories", N, GAMMA)
    with pytest.raises(ValueError):
        first_visit_returns(tr, 10, GAMMA)  # states beyond n_states
    with pytest.raises(ValueError):
        first_visit_returns(tr, N, 1.5)
    bad = Trajectories(
        tr.observations.astype(float), tr.actions, tr.rewards, tr.lengths, tr.terminated
    )
    with pytest.raises(ValueError):
        first_visit_returns(bad, N, GAMMA)
    with pytest.raises(ValueError):
        lsw(fv, phi[:10], RHO)
    with pytest.raises(ValueError):
        lsw(fv, phi, -RHO)
    with pytest.raises(ValueError):
        lsl(fv, phi, RHO, 0.0)
    with pytest.raises(ValueError):
        dp_lsl_sigma(fv.counts, fv.m, phi, RHO, 0.01, BUDGET)  # lam <= ||rho|| ||Phi||^2
    with pytest.raises(ValueError):
        dp_lsw(fv, phi, RHO, BUDGET, 0, noise_multiplier=0.0)
    with pytest.raises(ValueError):
        SmoothGaussianBudget(-0.1, 0.1, 1.0)
    with pytest.raises(ValueError):
        SmoothGaussianBudget(0.1, 1.0, 1.0)  # delta must lie in (0, 1)
    with pytest.raises(ValueError):
        SmoothGaussianBudget(0.1, 0.1, 0.0)
    with pytest.raises(ValueError):
        dp_lsw(fv, phi, RHO, (0.1, 0.1, 1.0), 0)  # a bare tuple is not a budget
    with pytest.raises(ValueError):
        lsl_regularization(phi, RHO, 0, 1.0)


def test_experiment_run_batch_deterministic_and_tidy():
    from privrl.papers.balle2016 import chapter as exp

    cfg = exp.BalleProfile.quick(seed=1, n_trials=2, batch_sizes=[20, 40], reg_batch_sizes=[20])
    a = exp.run_figure1(cfg, executor="serial")
    b = exp.run_figure1(cfg, executor="serial")
    assert a.equals(b)
    assert {"features", "method", "m", "rmse", "excess_risk", "sigma", "seed"} <= set(a.columns)
    assert set(a["method"]) == {"LSW", "LSL", "DP-LSW", "DP-LSL"}
    assert (a["excess_risk"] >= -1e-9).all()  # the non-private solution minimises each objective


def test_local_sensitivity_bounds_on_arbitrary_datasets():
    # Privacy must hold for every neighbouring pair, not only chain-generated ones: random small
    # problems (arbitrary visits, returns in [0, 1], features, lambda) never exceed either bound.
    from privrl.papers.balle2016.privacy import arbitrary_dataset_check

    res = arbitrary_dataset_check(3000, 0)
    assert res["ratio_lsw"].max() <= 1 + 1e-9
    assert res["ratio_lsl"].max() <= 1 + 1e-9
    assert res["ratio_lsw"].max() > 0.99  # the LSW bound is attained: the check has teeth


def test_noise_scales_refuse_features_whatever_the_counts():
    """The refusal rests on the public bound Psi <= sum rho: the same for every dataset, so it
    says nothing about the data (all-zero counts and full counts are refused alike)."""
    for counts in (np.zeros(N, int), np.full(N, 50)):
        for scale in (0.0, 1e-308):
            with pytest.raises(ValueError, match=r"features \(phi\): DP-LSW"):
                dp_lsw_sigma(counts, np.eye(N) * scale, RHO, BUDGET)
        with pytest.raises(ValueError, match=r"features \(phi\): DP-LSL"):
            dp_lsl_sigma(counts, 50, np.eye(N) * 1e155, RHO, 1.0, BUDGET)


def test_public_limits_of_the_noise_scales_are_refused_whatever_the_data(data):
    """Refusals that depended on the data (returns of 1e307 summing beyond a double for some
    datasets only; a DP-LSL noise scale of inf on one neighbour) are now public ones, and tiny
    weights, whose squares lost precision (DP-LSL's scale came out at 0.82 of its formula),
    are refused."""
    fv = first_visit_returns(data[1], N, GAMMA)
    huge = SmoothGaussianBudget(0.1, 0.1, 1e307)
    with pytest.raises(ValueError, match="return_bound: 150 returns of up to 1e\\+307"):
        dp_lsw(fv, np.eye(N), RHO, huge, 0)
    # refused before a return is read: no clipping warning, no overflow in the clipped means
    outside = mc.FirstVisitReturns(fv.returns * 3e307, fv.visited, fv.counts, fv.means)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="return_bound: 150 returns"):
            dp_lsw(outside, np.eye(N), RHO, huge, 0)
    with pytest.raises(ValueError, match="DP-LSL's noise scale could reach"):
        dp_lsl_sigma(np.zeros(N, int), 30, np.eye(N), RHO, 1.0, huge)
    for sigma in (dp_lsw_sigma, lambda c, p, r, b: dp_lsl_sigma(c, 30, p, r, 1e-160, b)):
        with pytest.raises(ValueError, match=r"weights \(rho\): the largest is 2.7e-162"):
            sigma(fv.counts, np.eye(N), np.full(N, 2.7e-162), BUDGET)
