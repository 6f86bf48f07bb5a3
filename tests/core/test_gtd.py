"""GTD2 / GPOPE / LSTD (privrl.core.algorithms.gtd, privrl.core.algorithms.lstd) on the chain."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from privrl.core.algorithms.gtd import (
    CLIP_MARGIN,
    SaddlePointStats,
    clip_rows,
    gpope,
    grid_gradient_sensitivity,
    gtd2_reference,
    mspbe,
    saddle_point_solution,
)
from privrl.core.algorithms.lstd import (
    FeatureTransitions,
    lstd,
    model_saddle_point,
    transition_sums,
    wis_lstd,
)
from privrl.core.envs.chain import (
    aggregated_features,
    chain_mdp,
    sample_trajectories,
    tabular_features,
)
from privrl.core.mechanisms.discrete_gaussian import GridGaussian, default_step

GAMMA = 0.99


def _data(traj, phi, rho=None, gamma=GAMMA):
    return FeatureTransitions(phi, traj.rewards, traj.lengths, traj.terminated, gamma, rho)


@pytest.fixture(scope="module")
def chain():
    mdp = chain_mdp(40, 0.5)
    Phi = tabular_features(40)
    Phi[mdp.absorbing] = 0.0
    occ = np.zeros(40)
    dist = mdp.start.copy()
    for _ in range(200):
        occ += dist
        dist = dist @ mdp.P
    occ[mdp.absorbing] = 0
    return mdp, Phi, occ


@pytest.fixture(scope="module")
def data(chain):
    mdp, Phi, _ = chain
    traj = sample_trajectories(mdp, 60, 3)
    phi = Phi[traj.observations]
    return traj, phi


def test_model_saddle_point_is_td_solution(chain):
    mdp, Phi, occ = chain
    A, b, M = model_saddle_point(mdp.P, mdp.R, Phi, occ, GAMMA)
    theta = saddle_point_solution(A, b, M)
    V = mdp.true_values(GAMMA)
    assert np.allclose(theta[:39], V[:39], atol=1e-10)  # tabular: TD fixed point = true values
    assert mspbe(theta, A, b, M) < 1e-20
    # aggregated features: GTD2's minimiser solves the projected Bellman equation A theta = b
    Phi2 = aggregated_features(40)
    Phi2[mdp.absorbing] = 0
    A2, b2, M2 = model_saddle_point(mdp.P, mdp.R, Phi2, occ, GAMMA)
    th2 = saddle_point_solution(A2, b2, M2)
    assert np.allclose(A2 @ th2, b2, atol=1e-12)


def test_gtd2_dynamics_converge_to_lstd_fixed_point(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    A, b, M = st.mean()
    target = np.linalg.lstsq(A, b, rcond=None)[0]
    mask = np.abs(A).sum(axis=1) > 0  # states present in the data
    A, b, M = A[np.ix_(mask, mask)], b[mask], M[np.ix_(mask, mask)]
    target = target[mask]
    d = A.shape[0]
    # expected (full-batch) GTD2 map (theta, w) -> (theta + a A^T w, w + a (b - A theta - M w)):
    # (target, 0) is a fixed point, and the map is a contraction (spectral radius < 1)
    a = 0.5
    J = np.block([[np.eye(d), a * A.T], [-a * A, np.eye(d) - a * M]])
    fixed = np.concatenate([target, np.zeros(d)])
    const = np.concatenate([np.zeros(d), a * b])
    assert np.allclose(J @ fixed + const, fixed, atol=1e-12)
    assert np.max(np.abs(np.linalg.eigvals(J))) < 1
    # LSTD with per-trajectory weights 1/L_i equals the same fixed point
    Aw = np.tensordot(np.ones(st.n), st.A, axes=1)[np.ix_(mask, mask)]
    assert np.allclose(np.linalg.solve(Aw, st.b.sum(0)[mask]), target, atol=1e-8)


def test_lstd_and_wis_lstd_agree_on_policy(data):
    traj, phi = data
    th = lstd(_data(traj, phi))
    th_w = wis_lstd(_data(traj, phi, rho=np.ones(traj.rewards.shape)))
    assert np.allclose(th, th_w)
    # LSTD solves the transition-weighted system, built here by an explicit loop
    A = np.zeros((40, 40))
    b = np.zeros(40)
    for i in range(traj.n_trajectories):
        for t in range(traj.lengths[i]):
            f = phi[i, t]
            fn = 0 * f if (traj.terminated[i] and t == traj.lengths[i] - 1) else phi[i, t + 1]
            A += np.outer(f, f - GAMMA * fn)
            b += traj.rewards[i, t] * f
    mask = np.abs(A).sum(axis=1) > 0
    assert np.allclose((A @ th)[mask], b[mask], atol=1e-9)
    A2, b2, _, _ = transition_sums(_data(traj, phi))
    assert np.allclose(A2, A) and np.allclose(b2, b)


def test_from_tabular_equals_from_features(chain, data):
    _, Phi, _ = chain
    traj, phi = data
    rho = np.random.default_rng(0).uniform(0.5, 2, size=traj.rewards.shape)
    a = SaddlePointStats.from_tabular(
        traj.observations, Phi, traj.rewards, traj.lengths, traj.terminated, GAMMA, rho
    )
    b = SaddlePointStats.from_features(_data(traj, phi, rho))
    for k in "AbM":
        assert np.allclose(getattr(a, k), getattr(b, k))


def test_gpope_without_noise_and_clip_is_gtd2(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    res = gpope(st, 400, 0.7, math.inf, 0.0, 11)
    idx = np.random.default_rng(11).integers(st.n, size=(400, 1))[:, 0]  # same draws as gpope
    ref = gtd2_reference(_data(traj, phi), idx, 0.7)
    assert np.allclose(res.theta[0], ref, rtol=1e-12, atol=1e-14)
    assert np.abs(ref).max() > 1e-3  # the comparison is not trivial


def test_gpope_trials_are_independent_copies(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    res = gpope(st, 50, 0.5, 0.1, 1.0, 0, n_trials=3)
    assert not np.allclose(res.theta[0], res.theta[1])


def _gradients_of_run(st, T, step, G, z, seed):
    """Re-run GPOPE step by step, returning the clean gradients and the applied updates."""
    res_prev = np.zeros((1, st.dim)), np.zeros((1, st.dim))
    applied, clean = [], []
    for t in range(1, T + 1):
        r = gpope(st, t, step, G, z, seed)
        theta, w = r.theta, r.w
        applied.append(np.concatenate([res_prev[0] - theta, res_prev[1] - w], axis=1)[0] / step)
        res_prev = theta, w
    return np.array(applied), clean


def test_clipping_bounds_every_gradient(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    G = 0.01
    applied, _ = _gradients_of_run(st, 60, 0.5, G, 0.0, 5)
    norms = np.linalg.norm(applied, axis=1)
    assert np.all(norms <= G * (1 + 1e-9))
    assert np.mean(norms > 0.999 * G) > 0.5  # clipping was active


def test_noise_has_std_two_g_z(data):
    # Weakened mechanism detector: the applied update minus the clipped gradient is the noise;
    # over T * 2d = 60 * 80 = 4800 coordinates its sample std estimates 2 G z within ~1% (sd of
    # the std estimate is 2Gz / sqrt(2 * 4800) = 1%); halving the noise or dropping it fails by
    # 50 sd, a 10% tolerance has false-positive probability ~ 1e-20.
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    G, z = 0.05, 0.8
    noisy, _ = _gradients_of_run(st, 60, 0.5, G, z, 9)
    # clean clipped gradients have norm <= G: their share of the sample variance is tiny
    # compared with (2 G z)^2 * 80; subtract nothing and allow for it in the tolerance
    sd = noisy.std()
    assert abs(sd - 2 * G * z) < 0.1 * 2 * G * z


def test_noise_scale_rejects_infinite_clip(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    with pytest.raises(ValueError, match="clip_norm"):
        gpope(st, 10, 0.1, math.inf, 1.0, 0)


def test_bad_inputs(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    with pytest.raises(ValueError, match="step_size"):
        gpope(st, 10, 0.0, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="iterations"):
        gpope(st, 0, 0.1, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="schedule"):
        gpope(st, 10, 0.1, 1.0, 1.0, 0, schedule="cosine")
    with pytest.raises(ValueError, match="noise_multiplier"):
        gpope(st, 10, 0.1, 1.0, [1.0, 2.0], 0, n_trials=3)
    with pytest.raises(ValueError, match="empty"):
        FeatureTransitions(np.zeros((0, 3, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0), GAMMA)
    # a trajectory made of one state only (no transition) cannot give an estimate
    with pytest.raises(ValueError, match="at least one transition"):
        FeatureTransitions(
            np.ones((2, 3, 2)), np.zeros((2, 2)), np.array([1, 0]), np.zeros(2, bool), GAMMA
        )
    with pytest.raises(ValueError, match="gamma"):
        _data(traj, phi, gamma=1.5)
    with pytest.raises(ValueError, match="terminated"):
        FeatureTransitions(phi, traj.rewards, traj.lengths, traj.terminated[:-1], GAMMA)
    with pytest.raises(ValueError, match="rho"):
        wis_lstd(_data(traj, phi))
    with pytest.raises(ValueError, match="FeatureTransitions"):
        SaddlePointStats.from_features(phi)


def test_per_trial_noise_multipliers(data):
    # trial 0 noiseless, trial 1 noisy: trial 0 must equal transition-by-transition GTD2 on its
    # own trajectory draws (so no noise leaks into it), trial 1 must differ
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    idx = np.random.default_rng(4)
    draws = []
    for _ in range(30):
        draws.append(idx.integers(st.n, size=2)[0])
        idx.standard_normal((2, 2 * st.dim))
    ref = gtd2_reference(_data(traj, phi), np.array(draws), 0.5)
    both = gpope(st, 30, 0.5, 1e9, np.array([0.0, 3.0]), 4, n_trials=2)  # clip never active
    assert np.allclose(both.theta[0], ref, rtol=1e-10, atol=1e-12)
    assert np.abs(ref).max() > 1e-3 and not np.allclose(both.theta[1], ref)


def test_diminishing_schedule_reduces_final_noise(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    T = 400
    c = gpope(st, T, 0.3, 0.05, 2.0, 1, n_trials=50)
    d = gpope(st, T, 0.3, 0.05, 2.0, 1, n_trials=50, schedule="diminishing")
    # final-step variance across trials is ~ alpha_T; diminishing alpha_T = alpha / 11
    assert d.theta.var(axis=0).sum() < c.theta.var(axis=0).sum()


def test_record_steps_returns_every_noisy_step_and_changes_nothing_else(data):
    """record_steps draws nothing more: the iterates are bit-identical to the default path; the
    recorded steps are the released noisy gradients, so the final iterate is minus the step
    size times their sum (constant schedule, start at 0); their spread is the noise's 2 G z."""
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    G, z, alpha, T = 0.05, 0.8, 0.5, 60
    plain = gpope(st, T, alpha, G, z, 3, n_trials=4, record_every=20)
    seen = gpope(st, T, alpha, G, z, 3, n_trials=4, record_every=20, record_steps=True)
    assert plain.steps is None
    for name in ("theta", "w", "history", "history_iterations"):
        assert np.array_equal(getattr(plain, name), getattr(seen, name))
    assert plain.clipped_fraction == seen.clipped_fraction
    d = st.dim
    assert seen.steps.shape == (4, T, 2 * d)
    np.testing.assert_allclose(
        -alpha * seen.steps.sum(axis=1), np.concatenate([seen.theta, seen.w], axis=1), atol=1e-12
    )
    assert abs(seen.steps.std() - 2 * G * z) < 0.1 * 2 * G * z


def test_grid_noise_releases_grid_points_with_its_spread(data):
    """With ``grid``, every released step is on the grid, exactly, and spreads as the grid
    Gaussian's sqrt(s) step (T * 2d = 4,800 coordinates: the std within 10%, as above); the
    steps lie within sqrt(s) step of the clipped gradients, not of twice them."""
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    G, T = 0.05, 60
    step = default_step(2.0 * G * 0.8)
    noise = GridGaussian.of_scale(2.0 * G * 0.8 / step, step)
    run = gpope(st, T, 0.5, G, 0.0, 9, record_steps=True, grid=noise)
    steps = run.steps[0]
    assert np.all(steps / noise.step == np.rint(steps / noise.step))
    assert abs(steps.std() - noise.sigma) < 0.1 * noise.sigma
    assert noise.sigma == pytest.approx(2 * G * 0.8, rel=1e-5)
    np.testing.assert_allclose(
        -0.5 * steps.sum(axis=0), np.concatenate([run.theta[0], run.w[0]]), atol=1e-12
    )


@pytest.mark.parametrize("k", [2, 3, 64, 4096, 2**16])
def test_the_clip_on_doubles_stays_within_its_margin(k):
    """The clip of :func:`gpope` (``g *= G / norm`` with the norm of numpy's einsum) leaves
    gradients whose exact norm, summed in rationals, is within ``G * CLIP_MARGIN`` (the grid
    sensitivity ``2 G CLIP_MARGIN`` rests on it), and within the float error its comment states,
    a relative (2k + 8) 2^-53 on the norm: up to 40 gradients of k coordinates each, of mixed
    magnitudes."""
    gen = np.random.default_rng(k)
    G = 0.37
    worst = Fraction(0)
    for _ in range(min(40, 2**18 // k)):
        g = gen.standard_normal((1, k)) * np.exp(gen.uniform(-20, 20, size=(1, k)))
        norms = np.sqrt(np.einsum("ki,ki->k", g, g))
        g *= (G / norms)[:, None]
        exact = sum(Fraction(float(x)) ** 2 for x in g[0])
        worst = max(worst, exact / Fraction(G) ** 2)
    assert 1 < worst <= Fraction(CLIP_MARGIN) ** 2  # the clip alone overshoots G: no margin fails
    assert worst - 1 < Fraction(2 * (2 * k + 8), 2**53)
    assert grid_gradient_sensitivity(G, k) == 2 * G * CLIP_MARGIN


def test_the_clip_is_total_on_gradients_that_overflow():
    """Rows with an inf or NaN entry become 0, a finite row whose norm overflows keeps its
    direction at norm G; finite rows are clipped by the plain formula, bit for bit; nothing
    warns or raises (either would depend on the data)."""
    G = 0.5
    g = np.array(
        [
            [3.0, 4.0],
            [0.1, 0.2],
            [1e200, -1e200],
            [1.7e308, 1.7e308],
            [np.inf, 1.0],
            [np.nan, 0.0],
            [-np.inf, np.inf],
        ]
    )
    plain = g[:2] * np.minimum(1.0, G / np.linalg.norm(g[:2], axis=1))[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clip_rows(g, G) == 6
    assert np.array_equal(g[:2], plain)
    assert np.all(np.linalg.norm(g, axis=1) <= G * CLIP_MARGIN)
    np.testing.assert_allclose(
        g[2:4],
        [[G / math.sqrt(2), -G / math.sqrt(2)], [G / math.sqrt(2), G / math.sqrt(2)]],
        rtol=1e-15,
    )
    assert np.array_equal(g[4:], np.zeros((3, 2)))


def test_gpope_on_statistics_that_overflow_releases_clipped_steps(data):
    """A reward of 1.7e308 (finite data) overflows its trajectory's b to inf: its gradients are
    clipped to 0 and every released step stays a grid point, with no exception in any seed."""
    traj, phi = data
    rewards = traj.rewards.copy()
    rewards[0, 0] = 1.7e308
    st = SaddlePointStats.from_features(
        FeatureTransitions(1e4 * phi, rewards, traj.lengths, traj.terminated, GAMMA)
    )
    assert not np.all(np.isfinite(st.b[0]))
    noise = GridGaussian.of_scale(2**19, 2.0**-20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runs = [
            gpope(st, 40, 0.1, 1.0, 0.0, seed, n_trials=4, grid=noise, record_steps=True)
            for seed in range(5)
        ]
    for run in runs:
        assert np.all(np.isfinite(run.steps)) and np.all(np.isfinite(run.theta))


def test_the_grid_sensitivity_refuses_what_its_margin_does_not_cover():
    assert grid_gradient_sensitivity(1.0, 2**19) == 2.0 * CLIP_MARGIN
    with pytest.raises(ValueError, match="features: at most 524288 features"):
        grid_gradient_sensitivity(1.0, 2**19 + 1, "features")
    with pytest.raises(ValueError, match="clip_norm"):
        grid_gradient_sensitivity(math.inf, 3)


def test_grid_noise_is_instead_of_the_floating_point_noise(data):
    traj, phi = data
    st = SaddlePointStats.from_features(_data(traj, phi))
    noise = GridGaussian.of_scale(2**19, 2.0**-20)
    with pytest.raises(ValueError, match="grid"):
        gpope(st, 10, 0.1, 0.05, 0.8, 0, grid=noise)
    with pytest.raises(ValueError, match="grid"):
        gpope(st, 10, 0.1, math.inf, 0.0, 0, grid=noise)
    with pytest.raises(ValueError, match="grid"):
        gpope(st, 10, 0.1, 0.05, 0.0, 0, grid=(1, 2, 0.5))
