"""GPOPE accounting (privrl.core.accounting.subsampled) against independent computations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.accounting.gaussian import gaussian_epsilon
from privrl.core.accounting.subsampled import (
    COARSE_RDP_ORDERS,
    GpopeEvent,
    calibrate_noise_multiplier,
    dp_accounting_epsilon,
    gpope_epsilon,
    gpope_pld_supported,
    noise_std,
    poisson_shortcut_epsilon,
    theorem1_sigma,
)


def _rdp_to_eps_naive(rdp: np.ndarray, orders: np.ndarray, delta: float) -> float:
    """Mironov 2017 Prop. 3 conversion, written independently: min_a rdp(a) + log(1/delta)/(a-1)."""
    return float(np.min(rdp + math.log(1 / delta) / (orders - 1)))


def test_full_batch_matches_gaussian_closed_form():
    # n = 1: every step uses the only trajectory; one step is a plain Gaussian with ratio 1/z.
    z, delta = 2.0, 1e-5
    eps_rdp = gpope_epsilon(z, 1, 1, delta)
    eps_exact = gaussian_epsilon(z, delta)  # exact privacy profile (Balle and Wang 2018)
    orders = np.arange(2, 200, dtype=float)
    eps_naive = _rdp_to_eps_naive(orders / (2 * z**2), orders, delta)
    assert eps_exact <= eps_rdp <= eps_naive + 1e-9
    assert eps_rdp <= 1.15 * eps_exact  # RDP conversion is loose, but not by much here


def test_composition_is_linear_in_rdp():
    # T full-batch steps = Gaussian with ratio sqrt(T)/z; compare with the exact closed form.
    z, T, delta = 5.0, 16, 1e-5
    eps_rdp = gpope_epsilon(z, 1, T, delta)
    eps_exact = gaussian_epsilon(z / math.sqrt(T), delta)
    assert eps_exact <= eps_rdp <= 1.15 * eps_exact


def _wor_rdp_upper(q: float, z: float, alpha: int) -> float:
    """RDP of the unsampled Gaussian, alpha / (2 z^2): subsampling can only improve on it."""
    return alpha / (2 * z**2)


def test_subsampling_amplifies_and_is_monotone():
    delta, T = 1e-5, 100
    eps_full = gpope_epsilon(1.0, 1, T, delta)
    eps = [gpope_epsilon(1.0, n, T, delta) for n in (10, 100, 1000)]
    assert eps_full > eps[0] > eps[1] > eps[2] > 0
    # more noise, smaller epsilon
    assert gpope_epsilon(2.0, 100, T, delta) < gpope_epsilon(1.0, 100, T, delta)


def test_wor_dominates_poisson_addremove_lower_bound():
    # The shortcut (Poisson, add/remove, sensitivity G) treats the same noise as twice as large
    # relative to the sensitivity, so it must claim a smaller epsilon than the correct accounting.
    z, n, T, delta = 1.0, 100, 200, 1e-5
    assert gpope_epsilon(z, n, T, delta) > poisson_shortcut_epsilon(z, n, T, delta)


def test_sampled_gaussian_rdp_by_numerical_integration():
    # Independent check of the per-step RDP for q = 1/n at an integer order via numerical
    # integration of the Renyi divergence for one neighbouring pair (a lower bound on the worst
    # case): in units of the sensitivity 2G, the other trajectories' gradients sit at 0 and the
    # replaced one at +1/2 vs -1/2 (distance 1): P = (1-q) N(0, z^2) + q N(+1/2, z^2), Q likewise.
    from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_sample_wor_gaussian

    q, z, alpha = 0.1, 1.0, 4
    x = np.linspace(-20, 20, 400001)
    logp = logsumexp(
        [np.log(1 - q) - x**2 / (2 * z**2), np.log(q) - (x - 0.5) ** 2 / (2 * z**2)], axis=0
    )
    logq = logsumexp(
        [np.log(1 - q) - x**2 / (2 * z**2), np.log(q) - (x + 0.5) ** 2 / (2 * z**2)], axis=0
    )
    norm = -0.5 * np.log(2 * np.pi * z**2)
    integrand = np.exp(alpha * (logp + norm) + (1 - alpha) * (logq + norm))
    div = np.log(np.trapezoid(integrand, x)) / (alpha - 1)
    bound = float(_compute_rdp_sample_wor_gaussian(q, z, [alpha])[0])
    assert div <= bound + 1e-9  # the accountant's bound is valid for this neighbouring pair
    assert bound <= _wor_rdp_upper(q, z, alpha)  # and better than no amplification


def test_calibration_meets_target_and_is_monotone():
    delta, n, T = 1e-5, 500, 1000
    zs = []
    for eps in (0.5, 1.0, 2.0, 4.0):
        z = calibrate_noise_multiplier(eps, delta, n, T, rtol=1e-3)
        assert gpope_epsilon(z, n, T, delta) <= eps + 1e-9
        assert gpope_epsilon(z / 1.01, n, T, delta) > eps  # close to the smallest such z
        zs.append(z)
    assert all(a > b for a, b in zip(zs, zs[1:], strict=False))


def test_noise_std_is_twice_clip_times_multiplier():
    assert noise_std(0.7, 3.0) == pytest.approx(4.2)


def test_theorem1_form_scaling():
    s = theorem1_sigma(1.0, 1e-5, 100, 400)
    assert theorem1_sigma(1.0, 1e-5, 200, 400) == pytest.approx(s / 2)
    assert theorem1_sigma(1.0, 1e-5, 100, 1600) == pytest.approx(2 * s)
    assert theorem1_sigma(2.0, 1e-5, 100, 400) == pytest.approx(s / 2)


def test_pld_does_not_support_wor():
    assert gpope_pld_supported() is False


@pytest.mark.parametrize("eps", [0.0, -1.0])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_noise_multiplier(eps, 1e-5, 100, 10)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5])
def test_bad_delta(delta):
    with pytest.raises(ValueError, match="delta"):
        gpope_epsilon(1.0, 100, 10, delta)
    with pytest.raises(ValueError, match="delta"):
        calibrate_noise_multiplier(1.0, delta, 100, 10)


def test_bad_sizes():
    with pytest.raises(ValueError, match="n"):
        gpope_epsilon(1.0, 0, 10, 1e-5)
    with pytest.raises(ValueError, match="iterations"):
        gpope_epsilon(1.0, 10, 0, 1e-5)
    with pytest.raises(ValueError, match="noise_multiplier"):
        gpope_epsilon(0.0, 10, 10, 1e-5)


# Cases where the former 20-order grid (up to 128) overstated epsilon by 1% to 10x: small
# epsilon, large n, where the optimal order is 256 or more.
@pytest.mark.parametrize(
    ("z", "n", "T", "delta"),
    [
        (30.0, 40, 100, 1e-5),
        (1.0, 1000, 100, 1e-5),
        (10.0, 4000, 100, 1e-5),
        (1.0, 1000, 5000, 0.1),
        (5.0, 40, 1000, 1e-5),
        (0.65, 1000, 2000, 0.1),
    ],
)
def test_epsilon_is_tight_against_dp_accounting_default_orders(z, n, T, delta):
    ours = gpope_epsilon(z, n, T, delta)
    theirs = dp_accounting_epsilon(z, n, T, delta)
    assert ours <= theirs * (1 + 1e-12)  # a superset of the default orders
    assert ours >= 0.99 * theirs
    coarse = gpope_epsilon(z, n, T, delta, COARSE_RDP_ORDERS)
    assert coarse >= theirs  # the coarse grid is only an upper end


def test_calibration_is_tight_on_default_orders():
    eps, delta, n, T = 0.1, 0.1, 1000, 2000
    z = calibrate_noise_multiplier(eps, delta, n, T, rtol=1e-2)
    assert dp_accounting_epsilon(z, n, T, delta) <= eps * (1 + 1e-9)
    assert dp_accounting_epsilon(z / 1.02, n, T, delta) > eps  # within 2% of the smallest z


def test_bad_orders():
    with pytest.raises(ValueError, match="orders"):
        gpope_epsilon(1.0, 10, 10, 1e-5, orders=[])
    with pytest.raises(ValueError, match="orders"):
        calibrate_noise_multiplier(1.0, 1e-5, 10, 10, orders=[0.5])


def test_gpope_event_round_trips_and_recomputes_its_epsilon():
    """The ledger's GPOPE event survives JSON and gives back gpope_epsilon exactly; doubling its
    budget (2T steps) or halving its noise multiplier raises the epsilon."""
    event = GpopeEvent(np.float64(3.2), 500, 2000)
    data = json.loads(json.dumps(event_to_dict(event)))
    back = event_from_dict(data)
    assert back == event and isinstance(back, GpopeEvent)
    eps = gpope_epsilon(3.2, 500, 2000, 1e-5)
    assert back.epsilon(1e-5) == eps
    assert GpopeEvent(3.2, 500, 4000).epsilon(1e-5) > eps
    assert GpopeEvent(1.6, 500, 2000).epsilon(1e-5) > eps


@pytest.mark.parametrize("kw", [dict(noise_multiplier=0.0), dict(n=0), dict(iterations=1.5)])
def test_gpope_event_rejects_bad_parameters(kw):
    with pytest.raises(ValueError):
        GpopeEvent(**{**dict(noise_multiplier=1.0, n=10, iterations=5), **kw})


def test_gpope_tv_bound_is_pinsker_on_the_composed_kl():
    """TV <= sqrt(T / n) / (2 z) (capped at 1); at n = T = 1 it bounds the exact TV of two
    Gaussians a distance 1/z apart in noise units, 2 Phi(1 / (2 z)) - 1, from above; the RDP
    conversion at epsilon = 0 can only lower it."""
    from scipy.stats import norm

    from privrl.core.accounting.subsampled import gpope_tv_bound, gpope_tv_upper

    assert gpope_tv_bound(2.0, 100, 400) == pytest.approx(0.5)
    assert gpope_tv_bound(0.1, 10, 1000) == 1.0
    for z in (0.5, 1.0, 4.0):
        assert 2 * norm.cdf(1 / (2 * z)) - 1 <= gpope_tv_bound(z, 1, 1)
    assert gpope_tv_upper(2.0, 100, 400) <= gpope_tv_bound(2.0, 100, 400)
    assert gpope_tv_upper(0.72, 1000, 4000) < gpope_tv_bound(0.72, 1000, 4000)


def test_pld_epsilon_is_the_exact_gaussian_at_full_batch():
    """n = 1: every step uses the only trajectory; T Gaussians of ratio 1/z compose to one of
    sigma z / sqrt(T) (closed form of Balle and Wang 2018)."""
    from privrl.core.accounting.subsampled import gpope_pld_epsilon

    for z, T in [(4.0, 10), (1.0, 100)]:
        assert gpope_pld_epsilon(z, 1, T, 1e-5) == pytest.approx(
            gaussian_epsilon(z / math.sqrt(T), 1e-5), rel=2e-3
        )


def test_pld_epsilon_against_dp_accounting_directly_and_below_the_rdp_figure():
    """The same number from dp-accounting's low-level PLD constructor (remove and add pairs of
    the subsampled Gaussian at rate 1/n, sensitivity 1, std z, composed T times); below the RDP
    figure of the paper's accountant; halving z raises it."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    from privrl.core.accounting.subsampled import GPOPE_PLD_INTERVAL, gpope_pld_epsilon

    z, n, T, delta = 1.0, 50, 1000, 1e-5
    direct = (
        pld.from_gaussian_mechanism(
            z, sampling_prob=1.0 / n, value_discretization_interval=GPOPE_PLD_INTERVAL
        )
        .self_compose(T)
        .get_epsilon_for_delta(delta)
    )
    ours = gpope_pld_epsilon(z, n, T, delta)
    assert ours == pytest.approx(direct, rel=1e-9)
    assert ours < gpope_epsilon(z, n, T, delta)
    assert gpope_pld_epsilon(z / 2, n, T, delta) > 2 * ours


def test_pld_epsilon_is_attained_by_a_gpope_pair_by_numerical_integration():
    """One step at n = 2 (q = 1/2), z = 1: the GPOPE pair whose other trajectory has the
    neighbour's clipped gradient, (1 - q) N(G) + q N(-G) against N(G) (noise std 2 G z), has
    hockey-stick divergence at e^eps equal to the PLD accountant's delta (both directions,
    numerical integration on a fine grid); dp-accounting's centred REPLACE_ONE Poisson pair
    gives a smaller delta, so it would understate GPOPE's epsilon."""
    from dp_accounting import GaussianDpEvent, NeighboringRelation, PoissonSampledDpEvent
    from dp_accounting.pld import PLDAccountant
    from scipy.stats import norm

    from privrl.core.accounting.subsampled import gpope_pld_event

    q, z, eps = 0.5, 1.0, 0.5
    y = np.linspace(-30, 30, 600_001)
    s = 2 * z  # noise std in units of G
    p_x = (1 - q) * norm.pdf(y, 1, s) + q * norm.pdf(y, -1, s)
    p_xp = norm.pdf(y, 1, s)
    dy = y[1] - y[0]
    exact = max(
        np.maximum(p_x - math.exp(eps) * p_xp, 0).sum() * dy,
        np.maximum(p_xp - math.exp(eps) * p_x, 0).sum() * dy,
    )
    acc = PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=1e-4)
    ours = acc.compose(gpope_pld_event(z, 2, 1)).get_delta(eps)
    assert ours == pytest.approx(exact, rel=1e-3)
    centred = PLDAccountant(NeighboringRelation.REPLACE_ONE, value_discretization_interval=1e-4)
    centred.compose(PoissonSampledDpEvent(q, GaussianDpEvent(2 * z)))
    assert centred.get_delta(eps) < 0.9 * exact
