"""The Gaussian calibrations against independent computations (scipy closed form, PLD accountant)."""

import math

import dp_accounting
import numpy as np
import pytest
from scipy.stats import norm

from privrl.core.accounting.events import NeighboringRelation, pld_epsilon, rdp_epsilon
from privrl.core.accounting.gaussian import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
)


@pytest.mark.parametrize("eps,delta,sens", [(0.1, 1e-5, 1.0), (1.0, 1e-6, 2.5), (5.0, 0.1, 0.3)])
def test_analytic_sigma_is_tight(eps, delta, sens):
    """At the calibrated sigma the exact profile equals delta; 1% less noise exceeds it."""
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    assert gaussian_delta(sigma, eps, sens) == pytest.approx(delta, rel=1e-6)
    assert gaussian_delta(0.99 * sigma, eps, sens) > delta * 1.01


def test_gaussian_delta_matches_privacy_loss_integral():
    """delta(eps) = P_X[L > eps] - e^eps P_X'[L > eps], where the privacy loss L is N(eta, 2 eta)
    under X and N(-eta, 2 eta) under X' (eta = Delta^2 / (2 sigma^2))."""
    sigma, eps, sens = 1.3, 0.7, 1.0
    eta = sens**2 / (2 * sigma**2)
    direct = norm.sf(eps, eta, math.sqrt(2 * eta)) - math.exp(eps) * norm.sf(
        eps, -eta, math.sqrt(2 * eta)
    )
    assert gaussian_delta(sigma, eps, sens) == pytest.approx(direct, rel=1e-10)


def test_epsilon_inverts_delta():
    sigma = 2.0
    eps = gaussian_epsilon(sigma, 1e-5)
    assert gaussian_delta(sigma, eps) == pytest.approx(1e-5, rel=1e-6)


def test_pld_accountant_agrees_with_closed_form():
    """dp-accounting's PLD accountant on one Gaussian step (an independent code path)."""
    sigma = 1.7
    pld = pld_epsilon(
        dp_accounting.GaussianDpEvent(sigma), 1e-5, value_discretization_interval=1e-4
    )
    exact = gaussian_epsilon(sigma, 1e-5)
    assert exact <= pld <= exact + 0.01


def test_rdp_is_an_upper_bound():
    sigma = 1.7
    rdp = rdp_epsilon(dp_accounting.GaussianDpEvent(sigma), 1e-5)
    assert rdp >= gaussian_epsilon(sigma, 1e-5)
    # dp-accounting reads a Gaussian's noise multiplier relative to the sensitivity under the
    # relation in use: an unsampled Gaussian has the same epsilon under both relations, so a
    # caller whose replace-one sensitivity is twice the add/remove one must halve the multiplier.
    rep = rdp_epsilon(dp_accounting.GaussianDpEvent(sigma), 1e-5, NeighboringRelation.REPLACE_ONE)
    assert rep == pytest.approx(rdp, rel=1e-9)


def test_classic_is_looser_and_restricted():
    for eps in (0.1, 0.5, 0.9):
        assert classic_gaussian_sigma(eps, 1e-5) > analytic_gaussian_sigma(eps, 1e-5)
        assert classic_gaussian_sigma(eps, 1e-5, 3.0) == pytest.approx(
            3 * math.sqrt(2 * math.log(1.25e5)) / eps
        )
    with pytest.raises(ValueError, match="epsilon must be < 1"):
        classic_gaussian_sigma(1.5, 1e-5)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"epsilon": 0, "delta": 1e-5}, "epsilon"),
        ({"epsilon": 1, "delta": 0}, "delta"),
        ({"epsilon": 1, "delta": 1e-5, "sensitivity": -1}, "sensitivity"),
    ],
)
def test_bad_inputs(kwargs, name):
    with pytest.raises(ValueError, match=name):
        analytic_gaussian_sigma(**kwargs)


def test_noise_scales_linearly_in_sensitivity():
    s = np.array([analytic_gaussian_sigma(0.5, 1e-5, d) for d in (0.5, 1.0, 4.0)])
    np.testing.assert_allclose(s / s[1], [0.5, 1.0, 4.0], rtol=1e-9)
