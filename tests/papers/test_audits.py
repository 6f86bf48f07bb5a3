"""Tests of the black-box audit (privrl.core.audit) and of every release's audit set-up (privrl.papers.audits.chapter).

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
    audit_release,
    clopper_pearson_bounds,
    epsilon_from_rates,
    lower_bound_from_counts,
)
from privrl.core.mechanisms.gaussian import gaussian_noise_scale
from privrl.papers.audits import chapter as audits

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
        _gaussian_release(sigma), 0.0, 1.0, claimed_epsilon=EPS, delta=DELTA,
        n_samples=100_000, rng=1, score=lambda z: z[:, 0],
    )
    assert res.epsilon_lower <= res.epsilon_estimate <= res.epsilon_upper
    assert 0.3 < res.epsilon_lower < EPS
    assert res.epsilon_lower == pytest.approx(0.64, abs=0.01)


def test_gaussian_power_halved_noise():
    """Sigma halved (true epsilon 2.3 at 1e-5): audited lower bound 1.32 > claimed 1."""
    sigma = gaussian_noise_scale(EPS, DELTA, 1.0) / 2
    res = audit_release(
        _gaussian_release(sigma), 0.0, 1.0, claimed_epsilon=EPS, delta=DELTA,
        n_samples=100_000, rng=1, score="linear",
    )
    assert res.epsilon_lower > EPS
    assert res.epsilon_lower == pytest.approx(1.32, abs=0.01)
    assert res.epsilon_lower < gaussian_epsilon(sigma, DELTA)


def test_audit_rejects_bad_input():
    with pytest.raises(ValueError, match="score"):
        audit_release(_gaussian_release(1.0), 0.0, 1.0, claimed_epsilon=1, delta=0, n_samples=100,
                      rng=0, score="cubic")
    with pytest.raises(ValueError, match="n_samples"):
        audit_release(_gaussian_release(1.0), 0.0, 1.0, claimed_epsilon=1, delta=0, n_samples=1,
                      rng=0)
    with pytest.raises(ValueError, match="one row per run"):
        audit_release(lambda v, n, rng: np.zeros(3), 0.0, 1.0, claimed_epsilon=1, delta=0,
                      n_samples=100, rng=0)


@pytest.mark.parametrize("name", list(audits.AUDITS))
def test_release_audit_and_its_weakened_variant(name):
    """Quick size, seed 0: no audited lower bound exceeds its claim; every weakened variant's does."""
    base = audits.AUDITS[name]("quick", 0)
    weak = audits.AUDITS[name]("quick", 1, weakened=True)
    assert base.epsilon_lower <= base.claimed_epsilon
    assert weak.epsilon_lower > weak.claimed_epsilon
    if not math.isnan(base.exact_epsilon):
        assert base.epsilon_lower <= base.exact_epsilon + 1e-9


@pytest.mark.parametrize(
    "name, exact",
    [("pgc_laplace", 1.0), ("pgc_bit_flip", 1.0), ("pgc_prs", 1.0)],
)
def test_local_reports_exact_ratio_equals_per_report_budget(name, exact):
    """Per-report epsilon of a 2-round run of epsilon 2 is 1, and so is the exact worst-case ratio."""
    assert audits.AUDITS[name]("quick", 0).exact_epsilon == pytest.approx(exact)
