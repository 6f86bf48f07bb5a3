"""The grid Laplace mechanism: exact discrete Laplace samples and an exact epsilon on doubles."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from privrl.core.mechanisms.discrete_laplace import (
    DEFAULT_STEP,
    discrete_laplace_mechanism,
    grid_epsilon,
    grid_scale,
    grid_sensitivity,
    noise_inflation,
    sample_discrete_laplace,
)


def _pmf(ks: np.ndarray, t: float) -> np.ndarray:
    q = math.exp(-1 / t)
    return (1 - q) / (1 + q) * q ** np.abs(ks)


def test_samples_follow_the_discrete_laplace_pmf():
    """Chi-square goodness of fit at t = 5/2 over 200,000 samples (cells |k| <= 12 and the two
    tails). With 26 degrees of freedom the test rejects a sampler whose scale is off by 2% with
    probability above 0.99 (noncentral chi-square), and the exact sampler with probability 0.001."""
    t = Fraction(5, 2)
    x = sample_discrete_laplace(t, 200_000, np.random.default_rng(1))
    ks = np.arange(-12, 13)
    observed = np.array([(x < -12).sum(), *((x == k).sum() for k in ks), (x > 12).sum()])
    inner = _pmf(ks, 2.5)
    tail = (1 - inner.sum()) / 2
    expected = len(x) * np.array([tail, *inner, tail])
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    assert x.dtype == np.int64 and abs(x.mean()) < 0.05


def test_epsilon_is_exact_and_never_above_the_target():
    for sens, eps, d in ((0.01, 1.0, 112), (1.0, 0.1, 3), (0.005, 10.0, 112)):
        t = grid_scale(sens, eps, d)
        L = grid_sensitivity(sens, d, DEFAULT_STEP)
        assert L == math.floor(Fraction(sens) / Fraction(DEFAULT_STEP)) + d
        exact = Fraction(L) / t
        assert exact <= Fraction(eps) and grid_epsilon(sens, d, t) >= float(exact)
        assert grid_epsilon(sens, d, t) == pytest.approx(eps, rel=1e-9)
        # halving the noise scale doubles the epsilon: a weakened call site is caught
        assert grid_epsilon(sens, d, t / 2) == pytest.approx(2 * eps, rel=1e-9)
    assert 1 < noise_inflation(0.01, 1.0, 112) < 1 + 2e-5


def test_rounded_neighbours_are_at_most_L_grid_units_apart():
    rng = np.random.default_rng(2)
    step, sens, d = 2.0**-10, 0.3, 5
    L = grid_sensitivity(sens, d, step)
    for _ in range(2000):
        x = rng.normal(size=d)
        delta = rng.normal(size=d)
        delta *= sens / np.abs(delta).sum() * rng.uniform(0.5, 1.0)
        gap = np.abs(np.rint(x / step) - np.rint((x + delta) / step)).sum()
        assert gap <= L


def test_outputs_are_exact_grid_points_whatever_the_input():
    x = np.random.default_rng(3).normal(size=(50, 112)) * 1e-3
    y = discrete_laplace_mechanism(x, 0.01, 1.0, np.random.default_rng(4))
    units = y / DEFAULT_STEP
    assert np.array_equal(units, np.rint(units))
    assert y.std() == pytest.approx(math.sqrt(2) * 0.01, rel=0.05)


def test_bad_input_is_rejected_with_a_clear_error():
    with pytest.raises(ValueError, match="power of two"):
        discrete_laplace_mechanism(np.zeros(3), 1.0, 1.0, 0, step=0.1)
    with pytest.raises(ValueError, match="Fraction"):
        sample_discrete_laplace(2.5, 10, 0)
    with pytest.raises(ValueError, match="epsilon"):
        grid_scale(1.0, -1.0, 3)
