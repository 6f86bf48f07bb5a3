r"""Privacy accounting of GPOPE (Xie, Thomas, Miklau 2019, Algorithm 1) with Google's dp-accounting.

One GPOPE iteration samples **one** trajectory out of the ``n`` in the dataset (sampling without
replacement of a batch of size 1, so :math:`q = 1/n`), clips its primal-dual gradient to
:math:`\ell_2` norm :math:`G` and adds :math:`N(0, s^2 I)`. Two datasets are adjacent when one
trajectory is *replaced* by another (Definition 1 of the paper), so the dataset size ``n`` is
public and the relation is ``NeighboringRelation.REPLACE_ONE``.

**Noise scaling (our decision, documented in the chapter).** Under replace-one, two clipped
gradients can point in opposite directions, so the :math:`\ell_2`-sensitivity of the clipped
gradient is :math:`2G`. dp-accounting's ``GaussianDpEvent(z)`` means noise standard deviation
:math:`z` times the sensitivity, hence GPOPE adds noise of standard deviation
:math:`s = 2 G z` (:func:`noise_std`). The whole run is

.. code-block:: python

    SelfComposedDpEvent(SampledWithoutReplacementDpEvent(n, 1, GaussianDpEvent(z)), T)

accounted with the RDP accountant (Wang, Balle, Kasiviswanathan 2019, Thm 27 for the subsampled
Gaussian under replace-one). dp-accounting's PLD accountant does **not** support
``SampledWithoutReplacementDpEvent`` (nor a Gaussian under ``REPLACE_ONE``);
:func:`gpope_pld_supported` checks that at run time, and the PLD column is reported only for the
full-batch case ``n = 1`` (where the event reduces to a Gaussian of sensitivity ratio ``1/z`` and
the exact closed form :func:`privrl.accounting.gaussian.gaussian_epsilon` applies) and for the
Poisson shortcut.

Two comparison points shown in the chapter:

* the *common shortcut*: Poisson sampling with rate ``1/n`` under add/remove with sensitivity ``G``
  (so the same noise std ``s`` is a noise multiplier ``s / G = 2z``); it under-states epsilon;
* Theorem 1's form :math:`\sigma \propto \sqrt{T \log(1/\delta)}/(n \varepsilon)` with unknown
  constants (:func:`theorem1_sigma`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import dp_accounting
from dp_accounting import NeighboringRelation
from dp_accounting.pld import PLDAccountant

from privrl.accounting.calibration import calibrate_decreasing
from privrl.accounting.events import pld_epsilon, rdp_epsilon
from privrl.validation import check_delta, check_epsilon, check_int, check_positive

__all__ = [
    "GPOPE_RDP_ORDERS",
    "gpope_event",
    "gpope_epsilon",
    "gpope_pld_supported",
    "calibrate_noise_multiplier",
    "noise_std",
    "poisson_shortcut_epsilon",
    "theorem1_sigma",
]

#: RDP orders for the without-replacement bound. Its integer-order evaluation costs grow quickly
#: with the order, so the list is sparse and stops at 128 (the optimal order for the chapter's
#: settings lies well inside; the tests compare against a dense list).
GPOPE_RDP_ORDERS: tuple[float, ...] = (
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
    """Epsilon of GPOPE at ``delta`` (RDP accountant, sampling without replacement, replace-one)."""
    delta = check_delta(delta)
    event = gpope_event(noise_multiplier, n, iterations)
    return rdp_epsilon(event, delta, NeighboringRelation.REPLACE_ONE, orders=orders)


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

    Bisection on ``log z`` (:func:`privrl.accounting.calibration.calibrate_decreasing`); epsilon
    is decreasing in ``z``. The returned ``z`` always meets the target (the bracket's safe end).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    rtol = check_positive(rtol, "rtol")

    def eps_of(z: float) -> float:
        return gpope_epsilon(z, n, iterations, delta, orders)

    return calibrate_decreasing(eps_of, epsilon, lo=1e-2, hi=1.0, rtol=rtol)


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
