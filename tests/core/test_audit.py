"""Tests of the black-box audit method (privrl.core.audit).

Fixed seeds. The Gaussian numbers were measured with these seeds and are stated in the tests; the
statistical guarantee itself (lower bound <= true epsilon with probability >= 95%) does not depend
on them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.chapter.verdicts import clopper_pearson
from privrl.core.accounting.gaussian import gaussian_epsilon
from privrl.core.audit import (
    REGIONS,
    BatchedNormal,
    audit_release,
    clopper_pearson_bounds,
    epsilon_candidates,
    epsilon_from_rates,
    lower_bound_from_counts,
)
from privrl.core.mechanisms.gaussian import gaussian_noise_scale

EPS, DELTA = 1.0, 1e-5


def _gaussian_release(sigma: float):
    return lambda value, n, rng: value + sigma * rng.standard_normal((n, 1))


def test_clopper_pearson_matches_verdicts():
    lo, hi = clopper_pearson_bounds(np.array([0, 7, 50]), 50)
    for k, a, b in zip([0, 7, 50], lo, hi, strict=True):
        ref = clopper_pearson(k, 50)
        assert a == pytest.approx(ref[0], abs=1e-12) and b == pytest.approx(ref[1], abs=1e-12)


def test_epsilon_from_rates_is_the_hypothesis_testing_inequality():
    # P(S | X) = 0.1, P(S | X') = 0.5: ln(0.5 / 0.1) from the region, ln(0.9 / 0.5) from its complement
    assert epsilon_from_rates(np.float64(0.1), np.float64(0.5), 0.1, 0.5, 0.0) == pytest.approx(
        math.log(5.0)
    )
    # delta enters as P(S|X') - delta
    assert epsilon_from_rates(np.float64(0.1), np.float64(0.5), 0.1, 0.5, 0.05) == pytest.approx(
        math.log(4.5)
    )
    # identical rates: nothing to detect
    assert epsilon_from_rates(np.float64(0.3), np.float64(0.3), 0.3, 0.3, 0.0) == 0.0


def test_lower_bound_is_conservative_for_zero_counts():
    # 0 of 1000 under X vs 1000 of 1000 under X': bounded by ln(CP upper of 1000/1000 / CP upper of 0)
    bound = float(lower_bound_from_counts(np.array(0), np.array(1000), 1000, 0.0))
    lo, hi = clopper_pearson(1000, 1000)[0], clopper_pearson(0, 1000)[1]
    assert bound == pytest.approx(math.log(lo / hi))
    assert 5.0 < bound < 6.0


def test_gaussian_no_false_alarm():
    """Sigma calibrated to (1, 1e-5): audited lower bound 0.64 (interval up to 0.97) <= 1."""
    sigma = gaussian_noise_scale(EPS, DELTA, 1.0)
    res = audit_release(
        _gaussian_release(sigma),
        0.0,
        1.0,
        claimed_epsilon=EPS,
        delta=DELTA,
        n_samples=100_000,
        rng=1,
        score=lambda z: z[:, 0],
    )
    assert res.epsilon_lower <= res.epsilon_estimate <= res.epsilon_upper
    assert 0.3 < res.epsilon_lower < EPS
    assert res.epsilon_lower == pytest.approx(0.64, abs=0.01)


def test_gaussian_power_halved_noise():
    """Sigma halved (true epsilon 2.3 at 1e-5): audited lower bound 1.32 > claimed 1."""
    sigma = gaussian_noise_scale(EPS, DELTA, 1.0) / 2
    res = audit_release(
        _gaussian_release(sigma),
        0.0,
        1.0,
        claimed_epsilon=EPS,
        delta=DELTA,
        n_samples=100_000,
        rng=1,
        score="linear",
    )
    assert res.epsilon_lower > EPS
    assert res.epsilon_lower == pytest.approx(1.32, abs=0.01)
    assert res.epsilon_lower < gaussian_epsilon(sigma, DELTA)


def test_audit_rejects_bad_input():
    with pytest.raises(ValueError, match="score"):
        audit_release(
            _gaussian_release(1.0),
            0.0,
            1.0,
            claimed_epsilon=1,
            delta=0,
            n_samples=100,
            rng=0,
            score="cubic",
        )
    with pytest.raises(ValueError, match="n_samples"):
        audit_release(
            _gaussian_release(1.0), 0.0, 1.0, claimed_epsilon=1, delta=0, n_samples=1, rng=0
        )
    with pytest.raises(ValueError, match="one row per run"):
        audit_release(
            lambda v, n, rng: np.zeros(3),
            0.0,
            1.0,
            claimed_epsilon=1,
            delta=0,
            n_samples=100,
            rng=0,
        )


def test_batched_normal_draws_n_releases_of_the_shape_asked_for():
    """Shape (n, *size), the same numbers as one Generator call of that shape."""
    draws = BatchedNormal(np.random.default_rng(3), 4).normal(1.0, 2.0, size=(2, 3))
    assert draws.shape == (4, 2, 3)
    np.testing.assert_array_equal(draws, np.random.default_rng(3).normal(1.0, 2.0, (4, 2, 3)))
    assert BatchedNormal(np.random.default_rng(3), 5).normal(size=()).shape == (5,)


def _label_epsilon(label: str, p_x: float, p_xp: float, delta: float) -> float:
    """The epsilon a region label's inequality ``A <= e^eps B + delta`` forces, read from the
    label's text alone (independent of epsilon_candidates' formulas)."""
    rates = {"P(X in S)": p_x, "P(X' in S)": p_xp, "P(X in S^c)": 1 - p_x, "P(X' in S^c)": 1 - p_xp}
    left, right = label.split(" <= e^eps ")
    a, b = rates[left], rates[right.removesuffix(" + delta")]
    return max(0.0, math.log(max(a - delta, 1e-300) / b))


@pytest.mark.parametrize(
    "p_x, p_xp", [(0.5, 0.01), (0.01, 0.5), (0.99, 0.5), (0.5, 0.99), (0.2, 0.7)]
)
def test_region_labels_name_the_inequality_each_candidate_tests(p_x, p_xp):
    """REGIONS[i] is the inequality behind epsilon_candidates(...)[i] (the two complement labels
    were swapped: (0.5, 0.01) forces ln(0.99 / 0.5) through P(X' in S^c) <= e^eps P(X in S^c))."""
    delta = 0.001
    cands = epsilon_candidates(np.float64(p_x), np.float64(p_xp), p_x, p_xp, delta)
    for label, value in zip(REGIONS, cands, strict=True):
        assert value == pytest.approx(_label_epsilon(label, p_x, p_xp, delta), abs=1e-12)


def test_audit_reports_the_region_of_the_complement_it_used():
    """X releases 0 or 1 with equal odds, X' always 1: caught on S^c = {score <= 0}, which X'
    never reaches, so P(X in S^c) = 1/2 <= e^eps P(X' in S^c) = 0 fails (epsilon >= 7 from 10^4
    runs); before the fix the result named the other complement inequality."""

    def release(p: float, n: int, rng: np.random.Generator) -> np.ndarray:
        return (rng.random((n, 1)) < p).astype(float)

    res = audit_release(
        release,
        0.5,
        1.0,
        claimed_epsilon=1.0,
        delta=0.0,
        n_samples=10_000,
        rng=0,
        score=lambda z: z[:, 0],
    )
    assert res.region == "P(X in S^c) <= e^eps P(X' in S^c) + delta"
    assert res.rate_x == pytest.approx(0.5, abs=0.02) and res.rate_x_prime == 1.0
    assert res.epsilon_lower > 7.0
