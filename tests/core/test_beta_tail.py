"""Rigorous bounds on the regularised incomplete beta (privrl.core.accounting.beta_tail), against
independent computations: mpmath's own betainc at 80 digits where it converges, closed forms, and
the binomial identity where it does not."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from privrl.core.accounting.beta_tail import MAX_TERMS, beta_cdf_bounds, terms_needed


def _encloses(a: float, b: float, x: float, exact: mpmath.mpf) -> None:
    low, high = beta_cdf_bounds(a, b, x)
    assert mpmath.mpf(low) <= exact <= mpmath.mpf(high)
    assert high - low <= 4 * math.ulp(max(high, 1e-300))


@pytest.mark.parametrize(
    ("a", "b", "x"),
    [
        (0.5, 4.5, 1.84e-5),
        (4.5, 0.5, 1.84e-5),
        (0.5, 0.5, 0.3),
        (2.0, 3.0, 0.4),
        (0.5, 50_000.0, 1e-4),  # the direct series with a large first term, above the mean
        (50_000.0, 0.5, 0.99999),  # x near 1: the series of I_{1-x}(b, a)
        (1e-3, 1.0, 1e-3),
        (3.0, 1e-3, 0.5),
        (50.0, 0.5, 0.1),
        (0.5, 0.3, 0.999),
    ],
)
def test_encloses_mpmath_at_80_digits(a, b, x):
    with mpmath.workdps(80):
        _encloses(a, b, x, mpmath.betainc(a, b, 0, x, regularized=True))


@pytest.mark.parametrize(
    ("a", "b", "x"), [(1.0, 7.5, 0.3), (1.0, 0.2, 0.9), (6.25, 1.0, 0.7), (0.01, 1.0, 1e-9)]
)
def test_closed_forms(a, b, x):
    """I_x(1, b) = 1 - (1 - x)^b and I_x(a, 1) = x^a."""
    with mpmath.workdps(80):
        mx = mpmath.mpf(x)
        exact = 1 - (1 - mx) ** b if a == 1.0 else mx**a
        _encloses(a, b, x, exact)


@pytest.mark.parametrize(
    ("a", "b", "x"), [(5000, 95000, 0.05), (5000, 95000, 0.0501), (20000, 20000, 0.5)]
)
def test_large_shapes_near_the_mean_where_mpmath_gives_up(a, b, x):
    """I_x(a, b) = P(Binomial(a + b - 1, x) >= a) for integers a, b; mpmath.betainc fails to
    converge here (the reason this module exists). The binomial tail is summed exactly in
    mpmath over every term within 40 standard deviations of its mean (the rest is below 1e-300)."""
    with (
        mpmath.workdps(30),
        pytest.raises((mpmath.libmp.NoConvergence, ValueError), match="converge"),
    ):
        mpmath.betainc(a, b, 0, x, regularized=True)
    n = a + b - 1
    sd = math.sqrt(n * x * (1 - x))
    top = min(n, int(n * x + 40 * sd))
    with mpmath.workdps(60):
        mx = mpmath.mpf(x)
        exact = mpmath.fsum(
            mpmath.binomial(n, j) * mx**j * (1 - mx) ** (n - j) for j in range(a, top + 1)
        )
        _encloses(a, b, x, exact)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(1e-3, 1e4), b=st.floats(1e-3, 1e4), x=st.floats(1e-12, 1 - 1e-12))
def test_agrees_with_scipy_and_its_complement(a, b, x):
    low, high = beta_cdf_bounds(a, b, x)
    assert 0.0 <= low <= high <= 1.0
    assert high - low <= 1e-14 * high + 5e-324
    assert low - 1e-12 <= special.betainc(a, b, x) <= high + 1e-12
    c_low, c_high = beta_cdf_bounds(b, a, float(mpmath.mpf(1) - x))  # 1 - x, exact when >= 1/2
    if 1 - (1 - x) == x:
        assert c_low + low <= 1.0 + 1e-15 and c_high + high >= 1.0 - 1e-15


def test_a_tiny_value_through_the_complement_is_tight():
    """I_0.875(452, 1) = 0.875^452 = 6.1e-27 sums the complement series, which cancels against 1:
    its tail stopped at 1e-40 absolute, 17 units in the last place wide (found by the property
    test above); the tail now shrinks with the retry's digits."""
    low, high = beta_cdf_bounds(452.0, 1.0, 0.875)
    with mpmath.workdps(60):
        exact = mpmath.mpf(0.875) ** 452
    assert low <= exact <= high and high - low <= 1e-14 * high


def test_ends_at_the_extremes_and_refuses_what_neither_series_reaches():
    assert beta_cdf_bounds(2.0, 3.0, 0.0) == (0.0, 0.0)
    assert beta_cdf_bounds(2.0, 3.0, 1.0) == (1.0, 1.0)
    assert terms_needed(1e9, 1e9, 0.5) > MAX_TERMS
    with pytest.raises(ValueError, match="needs more than 200000 terms"):
        beta_cdf_bounds(1e9, 1e9, 0.5)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((0.0, 1.0, 0.5), "a"),
        ((1.0, -1.0, 0.5), "b"),
        ((1.0, 1.0, 1.5), "x"),
        ((math.inf, 1.0, 0.5), "a"),
        ((1.0, 1.0, np.nan), "x"),
    ],
)
def test_bad_input_names_the_argument(args, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        beta_cdf_bounds(*args)
