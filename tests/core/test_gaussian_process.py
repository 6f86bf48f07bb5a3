"""Tests of the Ornstein-Uhlenbeck sample-path mechanism (Wang and Hegde 2019)."""

from __future__ import annotations

import numpy as np
import pytest

from privrl.core.mechanisms.gaussian_process import (
    FunctionalNoise,
    OUSamplePath,
    bridge_moments,
    dense_gp_sample,
    ou_kernel,
    rkhs_norm_squared,
)


def dense_conditional(s, stored_x, stored_g, beta, sigma):
    """Mean and variance of g(s) given g(stored_x) = stored_g by dense Gaussian conditioning."""
    kss = ou_kernel(stored_x, stored_x, beta, sigma)
    ks = ou_kernel(np.array([s]), stored_x, beta, sigma)
    mean = (ks @ np.linalg.solve(kss, stored_g))[0]
    var = sigma**2 - (ks @ np.linalg.solve(kss, ks.T))[0, 0]
    return mean, var


STORED_X = np.array([0.2, 0.35, 0.7])
STORED_G = np.array([0.5, -0.8, 1.1])


@pytest.mark.parametrize("beta", [0.3, 2.0, 20.0])
@pytest.mark.parametrize("s", [0.25, 0.5, 0.69])
def test_bridge_moments_match_dense_conditioning(beta, s):
    i = np.searchsorted(STORED_X, s)
    mean, var = bridge_moments(
        s - STORED_X[i - 1], STORED_X[i] - s, STORED_G[i - 1], STORED_G[i], beta, 1.7
    )
    mean_d, var_d = dense_conditional(s, STORED_X, STORED_G, beta, 1.7)
    assert mean == pytest.approx(mean_d, rel=1e-9, abs=1e-12)
    assert var == pytest.approx(var_d, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("beta", [0.3, 2.0, 20.0])
@pytest.mark.parametrize("s", [0.05, 0.3, 0.5, 0.9, 1.0])
def test_sampled_conditional_law_matches_dense(beta, s):
    """The value the path draws at s (left of, between, right of the stored points) has the
    conditional law of dense GP conditioning. M = 4000 draws: the mean test uses |z| < 4.5
    (false-positive rate ~7e-6 per case); the variance ratio has sd sqrt(2/M) = 0.022, tolerance
    0.12 (5.4 sd). Anchoring right-end points on the leftmost value (the authors' erratum) shifts
    the mean at s = 0.9 by > 0.5 sd per draw, i.e. z > 30; halving sigma makes the ratio 0.25."""
    sigma, m = 1.3, 4000
    rng = np.random.default_rng(123)
    path = OUSamplePath(beta, sigma, rng)
    draws = np.empty(m)
    for j in range(m):
        path.reset()
        path.store.insert(STORED_X.copy(), STORED_G.copy())
        draws[j] = path(s)
    mean_d, var_d = dense_conditional(s, STORED_X, STORED_G, beta, sigma)
    z = (draws.mean() - mean_d) / np.sqrt(var_d / m)
    assert abs(z) < 4.5
    assert abs(draws.var() / var_d - 1) < 0.12


def empirical_covariance(beta, sigma, n_paths, rng, points):
    path = OUSamplePath(beta, sigma, rng)
    vals = np.empty((n_paths, len(points)))
    for j in range(n_paths):
        path.reset()
        order = rng.permutation(len(points))
        path(points[order[:2]])
        path(points[order[2:]])
        vals[j] = path(points)
    return np.cov(vals.T)


def max_standardised_deviation(cov, beta, sigma, n_paths, points):
    ker = ou_kernel(points, points, beta, sigma)
    se = np.sqrt((ker**2 + np.outer(np.diag(ker), np.diag(ker))) / n_paths)
    return float(np.max(np.abs(cov - ker) / se))


@pytest.mark.parametrize("beta", [0.5, 5.0])
def test_covariance_of_paths_matches_kernel_in_random_orders(beta):
    """21 distinct entries, each standardised deviation ~N(0,1) for 5000 paths; threshold 4.5
    gives a family-wise false-positive rate below 1.5e-4. A path with sigma halved has
    deviations of (1 - 1/4) K_ii / se ~ 0.75 / 0.02 = 37 standard errors on the diagonal."""
    points = np.array([0.0, 0.1, 0.15, 0.5, 0.8, 1.0])
    rng = np.random.default_rng(7)
    cov = empirical_covariance(beta, 1.0, 5000, rng, points)
    assert max_standardised_deviation(cov, beta, 1.0, 5000, points) < 4.5
    weak = empirical_covariance(beta, 0.5, 5000, rng, points)
    assert max_standardised_deviation(weak, beta, 1.0, 5000, points) > 4.5


def test_repeated_queries_are_consistent():
    path = OUSamplePath(3.0, 1.0, 0)
    x = np.array([0.3, 0.1, 0.9, 0.5])
    first = path(x)
    again = path(x[::-1])[::-1]
    np.testing.assert_array_equal(first, again)
    assert path(0.1) == first[1]
    mixed = path(np.array([[0.5, 0.42], [0.3, 0.0]]))
    assert mixed.shape == (2, 2)
    assert mixed[0, 0] == first[3] and mixed[1, 0] == first[0]
    assert len(path) == 6
    path.reset()
    assert len(path) == 0


def test_reset_gives_fresh_path_and_actions_are_independent():
    noise = FunctionalNoise(2, 1.0, 1.0, 0)
    x = np.linspace(0, 1, 5)
    v = noise(x)
    assert v.shape == (5, 2)
    assert not np.allclose(v[:, 0], v[:, 1])
    noise.reset()
    assert not np.allclose(noise(x), v)


def test_large_beta_is_stable_and_has_unit_variance():
    """beta * range far above the exp overflow limit: chunked forward recursion stays finite."""
    rng = np.random.default_rng(1)
    vals = np.concatenate(
        [OUSamplePath(5000.0, 1.0, rng)(np.linspace(0, 1, 4000)) for _ in range(5)]
    )
    assert np.all(np.isfinite(vals))
    # near-independent values: sample variance of 20000 draws within 5 sd (sd ~ 0.01)
    assert abs(vals.var() - 1) < 0.05


def test_sigma_zero_gives_zero_noise():
    assert np.all(OUSamplePath(1.0, 0.0, 0)(np.linspace(0, 1, 7)) == 0)


def test_dense_sampler_matches_kernel_statistically():
    x = np.array([0.2, 0.4])
    rng = np.random.default_rng(3)
    draws = np.array([dense_gp_sample(x, 1.0, 1.0, rng) for _ in range(4000)])
    assert abs(np.corrcoef(draws.T)[0, 1] - np.exp(-0.2)) < 0.05


def test_rkhs_norm_of_kernel_section_is_one():
    grid = np.linspace(0, 1, 20001)
    for beta, x0 in [(1.0, 0.3), (7.0, 0.0), (0.2, 1.0)]:
        f = np.exp(-beta * np.abs(grid - x0))
        assert rkhs_norm_squared(f, grid, beta) == pytest.approx(1.0, rel=1e-3)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"beta": 0.0, "sigma": 1.0},
        {"beta": -1.0, "sigma": 1.0},
        {"beta": 1.0, "sigma": -0.1},
        {"beta": float("nan"), "sigma": 1.0},
    ],
)
def test_invalid_parameters_raise(kwargs):
    with pytest.raises(ValueError):
        OUSamplePath(rng=0, **kwargs)


@pytest.mark.parametrize("states", [[-0.1], [1.2], [0.5, float("nan")], [float("inf")]])
def test_out_of_domain_states_raise(states):
    with pytest.raises(ValueError, match="states"):
        OUSamplePath(1.0, 1.0, 0)(np.array(states))


def test_sorted_levels_stay_logarithmic_and_answer_like_one_sorted_array():
    """Inserting 10,000 points in batches of 128 keeps O(log N) levels; lookups and neighbours
    agree with one sorted array (the O(N^2) structure the levels replace)."""
    from privrl.core.mechanisms.gaussian_process import _SortedLevels

    rng = np.random.default_rng(0)
    store = _SortedLevels()
    xs = rng.permutation(np.linspace(0.0, 1.0, 10_000))
    for chunk in np.array_split(xs, 10_000 // 128):
        store.insert(chunk, 2.0 * chunk)
    assert store.size == 10_000
    assert len(store.levels) <= 2 * np.log2(10_000 / 128) + 2
    ref = np.sort(xs)
    found, values = store.lookup(ref[::7])
    assert found.all()
    np.testing.assert_array_equal(values[:, 0], 2.0 * ref[::7])
    query = rng.uniform(ref[0], ref[-1], 500)
    query = np.sort(query[~np.isin(query, ref)])
    xl, gl, xr, gr = store.neighbours(query)
    pos = np.searchsorted(ref, query)
    np.testing.assert_array_equal(xl, ref[pos - 1])
    np.testing.assert_array_equal(xr, ref[pos])
    np.testing.assert_array_equal(gl[:, 0], 2.0 * ref[pos - 1])
    lo, g_lo, hi, g_hi = store.ends()
    assert (lo, g_lo[0], hi, g_hi[0]) == (ref[0], 2.0 * ref[0], ref[-1], 2.0 * ref[-1])
