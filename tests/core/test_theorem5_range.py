"""Theorem 5 (Wang and Hegde 2019) holds only below an epsilon limit: above it the stated
(epsilon, delta) is false for two neighbours at the theorem's own sensitivity, so calibration
refuses it and the event certifies nothing there."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from privrl.core.accounting import functional_noise as fn

#: One update's constants (v = 4 alpha (k + 1) / B = 1, C = 1) and a short run.
ARGS = dict(n_updates=10, B=4, alpha=0.5, k=1, L=1.0 / math.sqrt(2.0))


def hockey_stick(epsilon: float, sensitivity: float, sigma: float) -> float:
    """delta(epsilon) of N(sensitivity, sigma^2) against N(0, sigma^2) by quadrature of
    max(p - e^eps q, 0), over x above the crossing (independent of the closed form)."""
    cross = sigma**2 * epsilon / sensitivity + sensitivity / 2.0
    p, q = stats.norm(sensitivity, sigma), stats.norm(0.0, sigma)
    value, _ = integrate.quad(
        lambda x: p.pdf(x) - math.exp(epsilon) * q.pdf(x),
        cross,
        cross + 40.0 * sigma,
        epsabs=1e-14,
        epsrel=1e-10,
        limit=200,
    )
    return value


@pytest.mark.parametrize("delta", [1e-5, 1e-3, 0.1])
def test_the_limit_is_where_the_theorem_stops_holding(delta):
    limit = fn.theorem5_epsilon_limit(delta)
    assert 12.0 < limit < 15.0
    C = fn.theorem5_C(ARGS["alpha"], ARGS["k"], ARGS["L"], ARGS["B"])
    sensitivity = math.sqrt(ARGS["n_updates"] * C)  # Lemma 6 at equality, U updates composed
    for eps, holds in ((0.98 * limit, True), (1.02 * limit, False), (2.0 * limit, False)):
        sigma = fn.theorem5_sigma(
            eps, delta, ARGS["n_updates"], ARGS["B"], ARGS["alpha"], ARGS["k"], ARGS["L"]
        )
        assert (hockey_stick(eps, sensitivity, sigma) <= delta) is holds, eps


def test_the_limit_holds_on_a_grid_below_it():
    delta = 1e-5
    limit = fn.theorem5_epsilon_limit(delta)
    for eps in np.geomspace(0.05, 0.99 * limit, 12):
        mu = eps / math.sqrt(2.0 * math.log(math.e + eps / delta))
        assert hockey_stick(eps, mu, 1.0) <= delta, eps


def test_calibration_refuses_the_range_where_the_theorem_is_false():
    delta = 1e-4
    limit = fn.theorem5_epsilon_limit(delta / 2)  # the Gaussian part's share of delta
    args = (ARGS["n_updates"], ARGS["B"], ARGS["alpha"], ARGS["L"], 20)
    with pytest.raises(ValueError, match="epsilon must lie below"):
        fn.calibrate_algorithm1(limit * 1.001, delta, *args)
    with pytest.raises(ValueError, match="epsilon must lie below"):
        fn.calibrate_algorithm1(3000.0, delta, *args)
    assert fn.calibrate_algorithm1(0.9, delta, *args)["sigma"] > 0


def test_the_event_certifies_nothing_above_the_limit():
    cal = fn.calibrate_algorithm1(
        0.9, 1e-4, ARGS["n_updates"], ARGS["B"], ARGS["alpha"], ARGS["L"], 20
    )
    event = fn.Theorem5Event(
        cal["sigma"], ARGS["n_updates"], ARGS["B"], ARGS["alpha"], cal["k"], ARGS["L"], 20
    )
    assert event.epsilon(1e-4) <= 0.9
    weak = fn.Theorem5Event(
        cal["sigma"] / 100.0, ARGS["n_updates"], ARGS["B"], ARGS["alpha"], cal["k"], ARGS["L"], 20
    )
    assert weak.epsilon(1e-4) == math.inf
