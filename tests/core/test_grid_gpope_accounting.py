"""GPOPE on the grid: Theorem 9 of Wang, Balle and Kasiviswanathan 2019 for a mechanism with the
Gaussian's Rényi curve, sampling one of n records without replacement, replace-one.

Checked against two independent computations: dp-accounting's bound for the subsampled Gaussian
(Theorem 27, which is at most Theorem 9 at every order and *is* Theorem 9 above order 256, where
dp-accounting falls back to it), and the exact Rényi divergences of subsampled discrete Gaussians
summed over the integers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.rdp import RdpAccountant
from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_sample_wor_gaussian_scalar

from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.accounting.subsampled import (
    GRID_GPOPE_ORDERS,
    GridGpopeEvent,
    calibrate_grid_noise_multiplier,
    calibrate_noise_multiplier,
    gpope_event,
    grid_gpope_epsilon,
    wor_rdp_general,
)

# dp-accounting sums the same terms in another order: agreement to a few ulps
ULPS = 1e-12


@pytest.mark.parametrize("q", [0.001, 0.01, 0.1, 0.5])
@pytest.mark.parametrize("z", [0.6, 1.3, 4.0])
def test_theorem_9_is_above_theorem_27_and_equals_it_where_dp_accounting_uses_it(q, z):
    """Both capped at the unsampled curve alpha / (2 z^2) (ours always is: the mixture's bound)."""

    def theirs(alpha: int) -> float:
        return min(_compute_rdp_sample_wor_gaussian_scalar(q, z, alpha), alpha / (2 * z * z))

    for alpha in (2, 3, 4, 7, 16, 63, 128, 256):
        ours = wor_rdp_general(q, z, alpha)
        assert theirs(alpha) * (1 - ULPS) <= ours <= alpha / (2 * z * z), (
            alpha,
            ours,
            theirs(alpha),
        )
    for alpha in (257, 384, 1024):
        assert wor_rdp_general(q, z, alpha) == pytest.approx(theirs(alpha), rel=ULPS)


def test_more_noise_always_helps():
    """Capped at the unsampled curve, the bound has no floor: at q = 1/2 (two trajectories)
    Theorem 9 alone stays near epsilon 4 however large z is (n = 2, T = 10, delta = 1e-5)."""
    assert grid_gpope_epsilon(1000.0, 2, 10, 1e-5) < 0.01
    assert [grid_gpope_epsilon(z, 2, 10, 1e-5) for z in (2.0, 4.0, 8.0, 16.0)] == sorted(
        [grid_gpope_epsilon(z, 2, 10, 1e-5) for z in (2.0, 4.0, 8.0, 16.0)], reverse=True
    )


def test_no_sampling_is_the_gaussians_curve():
    assert wor_rdp_general(1.0, 2.0, 5) == 5 / 8


# --- exact Rényi divergences of subsampled discrete Gaussians --------------------------------------

K = np.arange(-200, 201)


def _log_mixture(s: int, centres: list[int]) -> np.ndarray:
    """log pmf on K of the discrete Gaussian N_Z(c, s) with c drawn uniformly from ``centres``."""
    logs = []
    for c in centres:
        unnormalised = -((K - c) ** 2) / (2.0 * s)
        logs.append(unnormalised - np.logaddexp.reduce(unnormalised))
    return np.logaddexp.reduce(logs, axis=0) - math.log(len(centres))


def _renyi(log_p: np.ndarray, log_q: np.ndarray, alpha: int) -> float:
    return float(np.logaddexp.reduce(alpha * log_p + (1 - alpha) * log_q)) / (alpha - 1)


@pytest.mark.parametrize(("s", "G"), [(4, 2), (2, 1), (16, 1)])
@pytest.mark.parametrize("n", [2, 4, 10])
def test_theorem_9_bounds_the_exact_divergence_of_subsampled_discrete_gaussians(s, G, n):
    """Datasets of n integers (rounded gradients, grid units) within G of each other, as every pair
    of GPOPE's rounded clipped gradients is; one record replaced (0 by G). The largest exact
    divergence, both directions, over the other records' values in {0, G/2, G}, is at most the
    bound at noise multiplier sqrt(s)/G. The bound is nearly attained at order 20 (ratio above
    0.99 for s = 4 and 2): halving it would fail here."""
    z = math.sqrt(s) / G
    worst: dict[int, float] = {}
    for others in itertools.product(sorted({0, G // 2, G}), repeat=min(n - 1, 2)):
        rest = list(others) + [others[-1]] * (n - 1 - len(others))
        log_p, log_q = _log_mixture(s, [*rest, 0]), _log_mixture(s, [*rest, G])
        for alpha in (2, 3, 4, 6, 10, 20):
            exact = max(_renyi(log_p, log_q, alpha), _renyi(log_q, log_p, alpha))
            worst[alpha] = max(worst.get(alpha, 0.0), exact)
    ratios = {alpha: worst[alpha] / wor_rdp_general(1 / n, z, alpha) for alpha in worst}
    assert max(ratios.values()) <= 1.0, ratios
    if s <= 4:
        assert ratios[20] > 0.98, ratios


# --- the event ------------------------------------------------------------------------------------


def test_grid_epsilon_is_at_least_dp_accountings_gaussian_on_the_same_orders():
    """Theorem 9 >= Theorem 27 order by order, so the grid's epsilon is at least what
    dp-accounting's RDP accountant gives the floating-point GPOPE on the same integer orders."""
    for z, n, T in [(1.0, 100, 1000), (3.0, 100, 1000), (0.8, 1000, 10_000), (1.1, 40, 1)]:
        accountant = RdpAccountant(list(GRID_GPOPE_ORDERS), NeighboringRelation.REPLACE_ONE)
        gaussian = float(accountant.compose(gpope_event(z, n, T)).get_epsilon(1e-5))
        assert grid_gpope_epsilon(z, n, T, 1e-5) >= gaussian * (1 - ULPS)


def test_calibration_meets_its_target_and_not_by_much():
    for epsilon, n, T in [(1.0, 100, 1000), (0.5, 1000, 5000), (4.0, 20, 200)]:
        z = calibrate_grid_noise_multiplier(epsilon, 1e-5, n, T)
        assert (
            grid_gpope_epsilon(z, n, T, 1e-5) <= epsilon < grid_gpope_epsilon(0.999 * z, n, T, 1e-5)
        )


def test_the_event_is_its_epsilon_and_survives_the_ledger():
    event = GridGpopeEvent(np.float64(1.5), 200, 3000)
    assert event.epsilon(1e-5) == grid_gpope_epsilon(1.5, 200, 3000, 1e-5)
    back = event_from_dict(event_to_dict(event))
    assert back == event and isinstance(back, GridGpopeEvent)
    assert GridGpopeEvent(1.5, 200, 6000).epsilon(1e-5) > event.epsilon(1e-5)
    assert GridGpopeEvent(1.5, 100, 3000).epsilon(1e-5) > event.epsilon(1e-5)


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((0.0, 10, 10), "noise_multiplier"),
        ((1.0, 0, 10), "n"),
        ((1.0, 10, 0), "iterations"),
    ],
)
def test_bad_arguments_are_named(args, name):
    with pytest.raises(ValueError, match=name):
        grid_gpope_epsilon(*args, 1e-5)
    with pytest.raises(ValueError, match="order"):
        wor_rdp_general(0.1, 1.0, 1)
    with pytest.raises(ValueError, match="q"):
        wor_rdp_general(0.0, 1.0, 2)


@pytest.mark.parametrize(
    ("epsilon", "delta", "n", "T", "low", "high"),
    [
        (0.1, 1e-5, 1000, 2000, 1.11, 1.13),  # the docs' "12%"
        (1.0, 1e-5, 100, 1000, 1.10, 1.12),  # "11%"
        (1.0, 0.1, 1000, 2000, 0.999, 1.001),  # "the same within 0.1%" at the chapter's delta
        (1.0, 1e-5, 300, 10_000, 1.02, 1.05),  # "4%"
        (1.0, 1e-5, 100, 10_000, 45.0, 55.0),  # "about 50 times"
        (3.1, 1e-5, 2, 10, 1.10, 1.20),  # "15%"
    ],
)
def test_the_price_of_theorem_9_the_docs_state(epsilon, delta, n, T, low, high):
    """The noise multiplier the grid needs over the one dp-accounting's Theorem 27 gives the
    floating-point GPOPE, as dp_toolkit.md and the accounting module state it."""
    grid = calibrate_grid_noise_multiplier(epsilon, delta, n, T)
    gaussian = calibrate_noise_multiplier(epsilon, delta, n, T)
    assert low <= grid / gaussian <= high
