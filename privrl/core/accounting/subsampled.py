r"""Privacy accounting of GPOPE (Xie, Thomas, Miklau 2019, Algorithm 1) with Google's dp-accounting.

An iteration samples one of the ``n`` trajectories (without replacement, :math:`q = 1/n`), clips
its primal-dual gradient to :math:`\ell_2` norm :math:`G` and adds :math:`N(0, s^2 I)`; datasets
are adjacent when one trajectory is replaced (Definition 1), so the sensitivity is :math:`2G` and
:math:`s = 2Gz` for noise multiplier :math:`z` (:func:`noise_std`). A run of ``T`` iterations is
``SelfComposedDpEvent(SampledWithoutReplacementDpEvent(n, 1, GaussianDpEvent(z)), T)`` under
``REPLACE_ONE``, accounted by RDP (Wang, Balle, Kasiviswanathan 2019, Theorem 27); the PLD
accountant supports it only at ``n = 1`` (:func:`gpope_pld_supported`).

* :func:`gpope_pld_epsilon`: Poisson sampling at ``1/n``, sensitivity ``2G``, multiplier ``z``,
  add/remove: attained by a GPOPE pair (a lower bound), GPOPE's epsilon where those pairs
  dominate the without-replacement step (Zhu, Dong and Wang 2022).
* :class:`GridGpopeEvent` (what ``privrl.gpope`` releases): gradients rounded to a grid and exact
  discrete Gaussian noise, whose Rényi curve :math:`\alpha/(2z^2)` (Canonne, Kamath and Steinke
  2020) is amplified by the general Theorem 9 of Wang et al. (:func:`wor_rdp_general`, capped at
  the unsampled curve).
* Comparison points: the common shortcut (Poisson rate ``1/n``, add/remove, sensitivity ``G``,
  multiplier ``2z``; it under-states epsilon) and Theorem 1's
  :math:`\sigma \propto \sqrt{T \log(1/\delta)}/(n \varepsilon)` (:func:`theorem1_sigma`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence

import dp_accounting
import numpy as np
from dp_accounting import NeighboringRelation
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon
from scipy.special import gammaln

from privrl.core.accounting.calibration import calibrate_decreasing
from privrl.core.accounting.events import pld_epsilon, rdp_epsilon, register_event
from privrl.core.validation import check_delta, check_epsilon, check_int, check_positive

__all__ = [
    "COARSE_RDP_ORDERS",
    "GPOPE_RDP_ORDERS",
    "GPOPE_PLD_INTERVAL",
    "GRID_GPOPE_ORDERS",
    "GpopeEvent",
    "GpopeRun",
    "GridGpopeEvent",
    "calibrate_grid_noise_multiplier",
    "grid_gpope_epsilon",
    "wor_rdp_general",
    "dp_accounting_epsilon",
    "gpope_event",
    "gpope_epsilon",
    "gpope_pld_epsilon",
    "gpope_pld_event",
    "gpope_pld_supported",
    "gpope_tv_bound",
    "gpope_tv_upper",
    "calibrate_noise_multiplier",
    "noise_std",
    "poisson_shortcut_epsilon",
    "theorem1_sigma",
]

#: A sparse grid (stops at 128): cheap, used only to bracket the calibration. Its epsilon can be
#: far above the tight one when the optimal order is large (small epsilon, large n).
COARSE_RDP_ORDERS: tuple[float, ...] = (
    1.25,
    1.5,
    1.75,
    2.0,
    2.5,
    3.0,
    4.0,
    5.0,
    6.0,
    8.0,
    10.0,
    12.0,
    16.0,
    20.0,
    24.0,
    32.0,
    48.0,
    64.0,
    96.0,
    128.0,
)

#: dp-accounting's default RDP orders (1.1 ... 10.9 by 0.1, 11 ... 63, 128, 256, 512, 1024),
#: written out here, united with the coarse grid. The minimum over a superset of the default
#: grid is never above the default accountant's epsilon, so the chapter's epsilons are the tight
#: figure (the tests check agreement within 1%, the ledger's cross-check recomputes it).
GPOPE_RDP_ORDERS: tuple[float, ...] = tuple(
    sorted(
        {1.0 + x / 10.0 for x in range(1, 100)}
        | {float(a) for a in range(11, 64)}
        | {128.0, 256.0, 512.0, 1024.0}
        | set(COARSE_RDP_ORDERS)
    )
)


def gpope_event(noise_multiplier: float, n: int, iterations: int) -> dp_accounting.DpEvent:
    """DpEvent of ``iterations`` GPOPE steps on ``n`` trajectories with noise multiplier ``z``."""
    z = check_positive(noise_multiplier, "noise_multiplier")
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    step = dp_accounting.SampledWithoutReplacementDpEvent(n, 1, dp_accounting.GaussianDpEvent(z))
    return dp_accounting.SelfComposedDpEvent(step, iterations)


def gpope_pld_supported(noise_multiplier: float = 1.0, n: int = 10, iterations: int = 1) -> bool:
    """Whether dp-accounting's PLD accountant accepts the GPOPE event under replace-one."""
    accountant = PLDAccountant(NeighboringRelation.REPLACE_ONE)
    return bool(accountant.supports(gpope_event(noise_multiplier, n, iterations)))


def gpope_epsilon(
    noise_multiplier: float,
    n: int,
    iterations: int,
    delta: float,
    orders: Sequence[float] = GPOPE_RDP_ORDERS,
) -> float:
    """Epsilon of GPOPE at ``delta`` (RDP accountant, sampling without replacement, replace-one).
    Cached: a bisection and a release's event ask for the same epsilon more than once."""
    delta = check_delta(delta)
    gpope_event(noise_multiplier, n, iterations)  # validates the arguments
    return _gpope_rdp_epsilon(
        float(noise_multiplier), int(n), int(iterations), delta, _check_orders(orders)
    )


@functools.lru_cache(maxsize=4096)
def _gpope_rdp_epsilon(
    z: float, n: int, iterations: int, delta: float, orders: tuple[float, ...]
) -> float:
    event = gpope_event(z, n, iterations)
    return rdp_epsilon(event, delta, NeighboringRelation.REPLACE_ONE, orders=orders)


#: The PLD accountant's value discretisation interval for GPOPE (dp-accounting's own default; the
#: generic :func:`~privrl.core.accounting.events.pld_epsilon` keeps 1e-3 for its few
#: compositions): pessimistic rounding's excess grows with the number of compositions
#: (``tests/core/test_pld_discretisation.py`` bounds it at GPOPE's).
GPOPE_PLD_INTERVAL: float = 1e-4


def gpope_pld_event(noise_multiplier: float, n: int, iterations: int) -> dp_accounting.DpEvent:
    """The event :func:`gpope_pld_epsilon` accounts (under ``ADD_OR_REMOVE_ONE``): ``iterations``
    Poisson-subsampled Gaussians at rate ``1/n`` with noise multiplier ``z`` (sensitivity 2G,
    noise std 2Gz), whose remove pair is the GPOPE step of a pair that attains it (module text)."""
    z = check_positive(noise_multiplier, "noise_multiplier")
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    step = dp_accounting.PoissonSampledDpEvent(1.0 / n, dp_accounting.GaussianDpEvent(z))
    return dp_accounting.SelfComposedDpEvent(step, iterations)


def gpope_pld_epsilon(
    noise_multiplier: float,
    n: int,
    iterations: int,
    delta: float,
    value_discretization_interval: float = GPOPE_PLD_INTERVAL,
) -> float:
    """Tight epsilon of GPOPE at ``delta`` by dp-accounting's PLD accountant (beyond the paper):
    :func:`gpope_pld_event` under ``ADD_OR_REMOVE_ONE`` (pessimistic discretisation), for the
    stated relation to GPOPE's replace-one sampling without replacement see the module text.
    At ``n = 1`` it is the exact epsilon of one Gaussian of sigma ``z / sqrt(T)``."""
    delta = check_delta(delta)
    return pld_epsilon(
        gpope_pld_event(noise_multiplier, n, iterations),
        delta,
        NeighboringRelation.ADD_OR_REMOVE_ONE,
        value_discretization_interval,
    )


@dataclasses.dataclass(frozen=True)
class GpopeRun:
    """A GPOPE run as the accountants see it: ``iterations`` steps on ``n`` trajectories, each
    sampling one trajectory without replacement, noise multiplier ``noise_multiplier``,
    replace-one (validated). Its events differ only in the accountant of their epsilon."""

    noise_multiplier: float
    n: int
    iterations: int

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "noise_multiplier", check_positive(self.noise_multiplier, "noise_multiplier")
        )
        object.__setattr__(self, "n", check_int(self.n, "n", minimum=1))
        object.__setattr__(self, "iterations", check_int(self.iterations, "iterations", minimum=1))


@register_event
@dataclasses.dataclass(frozen=True)
class GpopeEvent(GpopeRun):
    """The guarantee of a GPOPE run (:class:`GpopeRun`) as a ledger event; its epsilon is
    :func:`gpope_epsilon` (privrl's RDP accountant on :data:`GPOPE_RDP_ORDERS`).

    Not a plain :class:`~privrl.core.accounting.events.DpAccountingEvent`: that one accounts on
    :data:`~privrl.core.accounting.events.DEFAULT_RDP_ORDERS`, a different grid of orders, so it
    would not give back the epsilon GPOPE is calibrated and reported at.
    """

    def epsilon(self, delta: float) -> float:
        return gpope_epsilon(self.noise_multiplier, self.n, self.iterations, delta)

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """:func:`gpope_event` (replace-one)."""
        return gpope_event(self.noise_multiplier, self.n, self.iterations)


#: The orders of the grid accountant: Theorem 9 holds at integer orders only.
GRID_GPOPE_ORDERS: tuple[int, ...] = (*range(2, 257), 384, 512, 768, 1024)


def wor_rdp_general(q: float, noise_multiplier: float, order: int) -> float:
    r"""Rényi DP at integer ``order`` :math:`\alpha \ge 2` of a mechanism with the Gaussian's curve
    :math:`\varepsilon(j) = j/(2z^2)` run on a sample of a fraction ``q`` of the records drawn
    without replacement, replace-one: Wang, Balle and Kasiviswanathan 2019, Theorem 9, with
    :math:`\varepsilon(\infty) = \infty`,

    .. math::

        \frac{1}{\alpha - 1}\log\Big(1 + q^2\tbinom{\alpha}{2}\min\{4(e^{\varepsilon(2)} - 1),
        2e^{\varepsilon(2)}\} + \sum_{j=3}^{\alpha} 2q^j\tbinom{\alpha}{j}
        e^{(j-1)\varepsilon(j)}\Big).

    At ``q = 1`` there is no sampling: :math:`\varepsilon(\alpha)` itself. The result is never
    above :math:`\varepsilon(\alpha)`: a step's output is the mixture over the sampled record, and
    the Rényi divergence of two mixtures with the same weights is at most the largest of its
    components' (joint quasi-convexity, van Erven and Harremoës 2014, Theorem 13), which is
    :math:`\varepsilon(\alpha)` for the replaced record and 0 for the others. Without that cap,
    Theorem 9's higher terms :math:`2q^j\tbinom{\alpha}{j}` do not vanish as the noise grows, and
    for large ``q`` its bound stays above a floor however much noise is added."""
    z = check_positive(noise_multiplier, "noise_multiplier")
    alpha = check_int(order, "order", minimum=2)
    q = float(q)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"q must be in (0, 1], got {q}")
    if q == 1.0:
        return alpha / (2.0 * z * z)
    e2 = 1.0 / (z * z)  # epsilon(2)
    j = np.arange(3, alpha + 1, dtype=float)
    log_comb = gammaln(alpha + 1.0) - gammaln(j + 1.0) - gammaln(alpha - j + 1.0)
    terms = [
        0.0,
        2.0 * math.log(q)
        + math.log(alpha * (alpha - 1) / 2.0)
        + min(math.log(4.0) + e2 + math.log(-math.expm1(-e2)), math.log(2.0) + e2),
    ]
    higher = j * math.log(q) + log_comb + math.log(2.0) + (j - 1.0) * j / (2.0 * z * z)
    logs = np.concatenate([terms, higher])
    top = int(np.argmax(logs))
    rest = np.exp(np.delete(logs, top) - logs[top]).sum()  # log-sum-exp, accurate near log 1
    return min(float(logs[top] + math.log1p(rest)) / (alpha - 1.0), alpha / (2.0 * z * z))


def grid_gpope_epsilon(noise_multiplier: float, n: int, iterations: int, delta: float) -> float:
    """Epsilon at ``delta`` of ``iterations`` GPOPE steps on ``n`` trajectories whose noise meets
    the Rényi curve of a Gaussian of noise multiplier ``z`` (the grid release): ``iterations``
    times :func:`wor_rdp_general` at ``q = 1/n`` on :data:`GRID_GPOPE_ORDERS`, converted by
    dp-accounting's ``compute_epsilon`` (Canonne, Kamath and Steinke 2020). Cached."""
    run = GpopeRun(noise_multiplier, n, iterations)  # validates the arguments
    return _grid_gpope_epsilon(
        float(run.noise_multiplier), run.n, run.iterations, check_delta(delta)
    )


@functools.lru_cache(maxsize=4096)
def _grid_gpope_epsilon(z: float, n: int, iterations: int, delta: float) -> float:
    rdp = [iterations * wor_rdp_general(1.0 / n, z, a) for a in GRID_GPOPE_ORDERS]
    return float(compute_epsilon(GRID_GPOPE_ORDERS, rdp, delta)[0])


def calibrate_grid_noise_multiplier(
    epsilon: float, delta: float, n: int, iterations: int, rtol: float = 1e-4
) -> float:
    """The smallest noise multiplier ``z`` (to relative tolerance ``rtol``) whose
    :func:`grid_gpope_epsilon` at ``delta`` is at most ``epsilon``, exactly as evaluated."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    n, iterations = check_int(n, "n", minimum=1), check_int(iterations, "iterations", minimum=1)
    rtol = check_positive(rtol, "rtol")
    return calibrate_decreasing(
        lambda z: grid_gpope_epsilon(z, n, iterations, delta),
        epsilon,
        lo=0.5,
        hi=2.0,
        rtol=rtol,
        max_scale=1e6,
        min_scale=1e-3,
    )


@register_event
@dataclasses.dataclass(frozen=True)
class GridGpopeEvent(GpopeRun):
    r"""The guarantee of a GPOPE run on the grid (:class:`GpopeRun`, ``noise_multiplier`` the grid
    noise's :math:`\sqrt{s}/G`) as a ledger event; its epsilon is :func:`grid_gpope_epsilon`
    (Theorem 9, the bound that holds for the discrete Gaussian)."""

    def epsilon(self, delta: float) -> float:
        return grid_gpope_epsilon(self.noise_multiplier, self.n, self.iterations, delta)

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """None exact: dp-accounting has no sampled discrete Gaussian; raises
        ``NotImplementedError``."""
        raise NotImplementedError(
            "GridGpopeEvent: dp-accounting has no event for a sampled "
            "discrete Gaussian; its epsilon is Theorem 9's bound"
        )


def gpope_tv_bound(noise_multiplier: float, n: int, iterations: int) -> float:
    r"""An upper bound on the total variation between GPOPE's whole runs on two replace-one
    neighbours, i.e. the :math:`\delta` at which the run is :math:`(0, \delta)`-DP.

    Each step draws one of the ``n`` trajectories uniformly (independently of the past) and adds
    :math:`N(0, (2Gz)^2 I)` to a gradient of sensitivity :math:`2G`. By joint convexity of the
    KL divergence over the draw (pairing trajectory ``i`` with ``i``), one step's KL, given the
    past, is at most :math:`\frac1n \cdot \frac{(2G)^2}{2(2Gz)^2} = \frac{1}{2nz^2}`; the chain
    rule sums it over the ``T`` adaptive steps, :math:`KL \le T/(2nz^2)`, and Pinsker's
    inequality gives :math:`TV \le \sqrt{KL/2} = \sqrt{T/n}/(2z)` (capped at 1).
    """
    z = check_positive(noise_multiplier, "noise_multiplier")
    n = check_int(n, "n", 1)
    T = check_int(iterations, "iterations", 1)
    return min(1.0, math.sqrt(T / n) / (2.0 * z))


def gpope_tv_upper(noise_multiplier: float, n: int, iterations: int) -> float:
    """The smaller of two upper bounds on the total variation of a GPOPE run (its delta at
    epsilon = 0): :func:`gpope_tv_bound` (Pinsker) and dp-accounting's RDP conversion at
    epsilon = 0 (replace-one, orders :data:`GPOPE_RDP_ORDERS`)."""
    acc = RdpAccountant(list(GPOPE_RDP_ORDERS), NeighboringRelation.REPLACE_ONE)
    acc.compose(gpope_event(noise_multiplier, n, iterations))
    return min(gpope_tv_bound(noise_multiplier, n, iterations), float(acc.get_delta(0.0)))


def noise_std(noise_multiplier: float, clip_norm: float) -> float:
    """Standard deviation ``2 G z`` of the Gaussian noise GPOPE adds (replace-one sensitivity 2G)."""
    return (
        2.0
        * check_positive(clip_norm, "clip_norm")
        * check_positive(noise_multiplier, "noise_multiplier")
    )


def calibrate_noise_multiplier(
    epsilon: float,
    delta: float,
    n: int,
    iterations: int,
    rtol: float = 1e-3,
    orders: Sequence[float] = GPOPE_RDP_ORDERS,
) -> float:
    """Smallest noise multiplier ``z`` (to relative tolerance ``rtol``) with GPOPE epsilon <= target.

    Bisection on ``log z`` (:func:`privrl.core.accounting.calibration.calibrate_decreasing`); epsilon
    is decreasing in ``z``. The returned ``z`` always meets the target (the bracket's safe end).
    The bracket is first found on the cheap :data:`COARSE_RDP_ORDERS` (whose epsilon is never
    below the one on a superset of orders, so its ``z`` is an upper end) and then refined on
    ``orders``. Results are cached.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    rtol = check_positive(rtol, "rtol")
    orders = _check_orders(orders)
    return _calibrate(epsilon, delta, n, iterations, rtol, orders)


@functools.lru_cache(maxsize=256)
def _calibrate(
    epsilon: float, delta: float, n: int, iterations: int, rtol: float, orders: tuple[float, ...]
) -> float:
    def coarse(z: float) -> float:
        return gpope_epsilon(z, n, iterations, delta, COARSE_RDP_ORDERS)

    def fine(z: float) -> float:
        return gpope_epsilon(z, n, iterations, delta, orders)

    z = calibrate_decreasing(coarse, epsilon, lo=1e-2, hi=1.0, rtol=rtol)
    return calibrate_decreasing(fine, epsilon, lo=z / 1.25, hi=z, rtol=rtol)


def dp_accounting_epsilon(noise_multiplier: float, n: int, iterations: int, delta: float) -> float:
    """Independent cross-check: dp-accounting's ``RdpAccountant`` with its **default** orders
    (no orders passed), replace-one, on the same event."""
    delta = check_delta(delta)
    accountant = RdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    return float(
        accountant.compose(gpope_event(noise_multiplier, n, iterations)).get_epsilon(delta)
    )


def _check_orders(orders: Sequence[float]) -> tuple[float, ...]:
    values = tuple(float(a) for a in orders)
    if not values or any(not math.isfinite(a) or a <= 1.0 for a in values):
        raise ValueError("orders must be a non-empty sequence of finite RDP orders > 1")
    return values


def poisson_shortcut_epsilon(
    noise_multiplier: float, n: int, iterations: int, delta: float
) -> float:
    """What the common shortcut would claim for the same noise: Poisson sampling (rate 1/n),
    add/remove adjacency, sensitivity ``G`` (noise multiplier ``2z``), PLD accountant."""
    z = check_positive(noise_multiplier, "noise_multiplier")
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    step = dp_accounting.PoissonSampledDpEvent(1.0 / n, dp_accounting.GaussianDpEvent(2.0 * z))
    event = dp_accounting.SelfComposedDpEvent(step, iterations)
    return pld_epsilon(event, delta, NeighboringRelation.ADD_OR_REMOVE_ONE)


def theorem1_sigma(
    epsilon: float, delta: float, n: int, iterations: int, constant: float = 1.0
) -> float:
    r"""Theorem 1's form :math:`c\,\sqrt{T\log(1/\delta)}/(n\varepsilon)` (the paper leaves ``c`` open)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    return (
        check_positive(constant, "constant")
        * math.sqrt(iterations * math.log(1.0 / delta))
        / (n * epsilon)
    )
