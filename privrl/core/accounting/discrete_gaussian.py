r"""The privacy of the grid Gaussian release (:mod:`privrl.core.mechanisms.discrete_gaussian`).

The release rounds a ``d``-vector to the grid :math:`\text{step}\,\mathbb{Z}` and adds a
multivariate discrete Gaussian :math:`\mathcal{N}_\mathbb{Z}(0, s)^d` (``s`` an integer, in grid
units squared).

* **Grid sensitivity.** Inputs at most :math:`\Delta` apart in :math:`\ell_2` round to grid
  points whose difference :math:`v` has :math:`|v_i| \le |x_i - x'_i|/\text{step} + 1`, so
  :math:`\|v\|_2 \le G = \Delta/\text{step} + \sqrt d` (:func:`grid_l2_sensitivity`, rounded up).
* **Privacy.** The multivariate discrete Gaussian is :math:`\rho`-zCDP with
  :math:`\rho = \|v\|_2^2/(2s)` (Canonne, Kamath and Steinke 2020): Rényi divergence at most
  :math:`\alpha G^2/(2s)`, the curve of the Gaussian mechanism of noise multiplier
  :math:`z = \sqrt{s}/G`, so its :math:`(\varepsilon, \delta)` is at most dp-accounting's RDP
  figure for ``GaussianDpEvent(z)`` (:func:`discrete_gaussian_event`), stored as a
  :class:`~privrl.core.accounting.events.DpAccountingEvent` (a little looser than the continuous
  Gaussian's exact profile, Balle and Wang 2018).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import dp_accounting

from privrl.core.accounting.calibration import calibrate_decreasing
from privrl.core.accounting.events import DpAccountingEvent, rdp_epsilon
from privrl.core.accounting.laplace import check_step
from privrl.core.validation import check_delta, check_epsilon, check_int, check_positive

#: Bits of the rational upper bound on sqrt(d) (its error is below 2^-30).
_SQRT_BITS = 30


def _round_up(value: Fraction) -> float:
    """The smallest double at or above ``value``."""
    as_float = float(value)
    return as_float if Fraction(as_float) >= value else math.nextafter(as_float, math.inf)


def grid_l2_sensitivity(sensitivity: float, d: int, step: float) -> float:
    r""":math:`G = \Delta/\text{step} + \sqrt d` rounded up to a double: the :math:`\ell_2`
    distance, in grid units, between the rounded images of two ``d``-vectors at most
    ``sensitivity`` apart in :math:`\ell_2` (rounding moves each coordinate by at most half a
    step). A ``ValueError`` names ``step`` when :math:`G` exceeds the largest double."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    d = check_int(d, "d", minimum=1)
    step = check_step(step)
    sqrt_d_up = Fraction(math.isqrt(d * 4**_SQRT_BITS) + 1, 2**_SQRT_BITS)
    grid = Fraction(sensitivity) / Fraction(step) + sqrt_d_up
    if grid > sys.float_info.max:
        raise ValueError(
            f"step: a sensitivity of {sensitivity:.6g} is more than the largest "
            f"double in steps of {step:.6g}; choose a larger step"
        )
    return _round_up(grid)


def noise_multiplier(variance: int, grid_sensitivity: float) -> float:
    r""":math:`z = \sqrt{s}/G` rounded down to a double (so the epsilon computed from it never
    understates the release's): the noise multiplier of variance parameter ``variance``
    (:math:`s`, grid units squared) at grid sensitivity ``grid_sensitivity`` (:math:`G`)."""
    variance = check_int(variance, "variance", minimum=1)
    grid_sensitivity = check_positive(grid_sensitivity, "grid_sensitivity")
    z = math.sqrt(variance) / grid_sensitivity
    while Fraction(z) ** 2 * Fraction(grid_sensitivity) ** 2 > variance:
        z = math.nextafter(z, 0.0)
    return z


def discrete_gaussian_event(
    variance: int, sensitivity: float, d: int, step: float, relation: str = "add/remove"
) -> DpAccountingEvent:
    """The ledger event of one grid Gaussian release of variance parameter ``variance`` (grid
    units squared) on a ``d``-vector of l2 ``sensitivity`` between neighbours under
    ``relation``: dp-accounting's RDP epsilon of a Gaussian of noise multiplier
    :func:`noise_multiplier` at :func:`grid_l2_sensitivity` (the same under either relation)."""
    z = noise_multiplier(variance, grid_l2_sensitivity(sensitivity, d, step))
    return DpAccountingEvent(dp_accounting.GaussianDpEvent(z), "rdp", relation)


def gaussian_rdp_epsilon(z: float, delta: float) -> float:
    """Epsilon at ``delta`` of the RDP curve ``alpha / (2 z^2)`` (a Gaussian of noise multiplier
    ``z``), from dp-accounting's RDP accountant."""
    return rdp_epsilon(dp_accounting.GaussianDpEvent(check_positive(z, "z")), check_delta(delta))


def required_noise_multiplier(epsilon: float, delta: float) -> float:
    """The smallest noise multiplier ``z`` (relative tolerance 1e-6) whose
    :func:`gaussian_rdp_epsilon` at ``delta`` is at most ``epsilon`` (exactly as evaluated)."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    return calibrate_decreasing(
        lambda z: gaussian_rdp_epsilon(z, delta),
        epsilon,
        lo=0.5,
        hi=2.0,
        rtol=1e-6,
        max_scale=1e8,
        min_scale=1e-4,
    )


__all__ = [
    "discrete_gaussian_event",
    "gaussian_rdp_epsilon",
    "grid_l2_sensitivity",
    "noise_multiplier",
    "required_noise_multiplier",
]
