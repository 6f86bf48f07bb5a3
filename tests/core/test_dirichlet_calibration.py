"""The Dirichlet mechanism calibrated to a target (epsilon, delta): the concentration and
threshold found meet the target, recomputed here from eq. (12) and the rigorous bound on eq. (6),
and are the largest that do (a slightly larger concentration misses it); the per-query shares of
a composed target compose, by the teacher budget's own code, to at most the target."""

from __future__ import annotations

import math

import pytest
from scipy.special import gammaln

from privrl.core.accounting import dirichlet as dacc
from privrl.core.accounting import dirichlet_calibration as dcal

SETUPS = [  # (epsilon, delta, m, eta, lipschitz, b)
    (20.0, 1e-5, 2, 0.05, 0.5, 0.1),
    (2.0, 1e-3, 6, 0.1, 0.001, 1.0),
    (50.0, 1e-2, 4, 0.2, 0.5, 1.0),
    (400.0, 1e-6, 6, 0.01, 0.05, 1.0),
]


def _eq12(k: float, m: int, eta: float, tau: float, lb: float) -> float:
    return (
        math.sqrt(m) * lb * k * math.log(1 / tau)
        + (m - 1) * gammaln(k * eta)
        + gammaln(k * (1 - (m - 1) * eta))
        - m * gammaln(k / m)
    )


@pytest.mark.parametrize(("epsilon", "delta", "m", "eta", "lipschitz", "b"), SETUPS)
def test_the_calibrated_concentration_meets_the_target_and_is_the_largest(
    epsilon, delta, m, eta, lipschitz, b
):
    k, tau = dcal.calibrate_concentration(epsilon, delta, m, eta, lipschitz, b)
    assert dacc.theorem1_delta_bound(dacc.Theorem1Mechanism(k, m, eta, tau)) <= delta
    assert _eq12(k, m, eta, tau, lipschitz * b) <= epsilon * (1 + 1e-12)
    assert _eq12(k, m, eta, tau, lipschitz * b) > 0.95 * epsilon  # the noise is not wasted
    above = k * (1 + 3e-3)  # beyond the bisection's bracket: misses the target
    assert dcal.epsilon_at(above, delta, m, eta, lipschitz, b)[0] > epsilon


def test_a_target_below_theorem_1s_floor_names_epsilon_and_the_floor():
    with pytest.raises(ValueError, match=r"epsilon: .* \(the smallest is 18.13, at k = 1\)"):
        dcal.calibrate_concentration(1.0, 1e-5, 2, 0.05, 0.5, 0.1)
    assert dcal.epsilon_at(0.01, 1e-5, 2, 0.05, 0.5, 0.1)[0] == math.inf  # no tau meets delta


@pytest.mark.parametrize("composition", ["basic", "advanced"])
@pytest.mark.parametrize("n", [2, 40, 5000])
def test_per_query_shares_compose_to_the_target(composition, n):
    epsilon, delta, slack = 30.0, 1e-4, 5e-5
    e0, d0 = dcal.per_query_target(epsilon, delta, n, composition, slack)
    budget = dacc.teacher_budget([e0] * n, [d0] * n, slack)
    assert budget[f"{composition}_epsilon"] <= epsilon
    assert budget[f"{composition}_delta"] <= delta
    if composition == "advanced":  # the largest share: a hair more exceeds the target
        more = dacc.teacher_budget([e0 * (1 + 1e-6)] * n, [d0] * n, slack)
        assert more["advanced_epsilon"] > epsilon
        assert d0 == pytest.approx((delta - slack) / n, rel=1e-8)
    else:
        assert (e0, d0) == pytest.approx((epsilon / n, delta / n), rel=1e-8)
    assert dcal.per_query_target(epsilon, delta, 1, composition, slack) == (epsilon, delta)
    with pytest.raises(ValueError, match="delta_slack must be below delta"):
        dcal.per_query_target(epsilon, delta, 3, "advanced", delta)
