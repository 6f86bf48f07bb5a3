r"""GPOPE accounted and calibrated through its privacy loss distribution (PLD).

One GPOPE step samples one of ``n`` trajectories without replacement, clips its gradient to
:math:`G` and adds :math:`N(0, (2Gz)^2 I)`; neighbours differ in one trajectory (replace-one).
By Zhu, Dong and Wang (2022) the step is dominated by the Poisson-subsampled Gaussian's
remove/add pair at rate :math:`q = 1/n`, sensitivity :math:`2G`, noise multiplier :math:`z`;
dominating pairs compose, so ``T`` steps are dominated by ``SelfComposed(PoissonSampled(1/n,
Gaussian(z)), T)`` under add-or-remove, accounted by dp-accounting's PLD accountant with
pessimistic discretisation (:func:`privrl.core.accounting.subsampled.gpope_pld_epsilon`). A
GPOPE pair attains that pair, so the figure is GPOPE's epsilon up to the discretisation, never
above the RDP figure :func:`~privrl.core.accounting.subsampled.gpope_epsilon`.

* :class:`GpopePldEvent`: the ledger event of a run accounted this way;
* :func:`calibrate_pld_noise_multiplier`: the smallest ``z`` whose PLD epsilon meets a target."""

from __future__ import annotations

import dataclasses
import functools

import dp_accounting

from privrl.core.accounting.calibration import calibrate_decreasing
from privrl.core.accounting.events import register_event
from privrl.core.accounting.subsampled import GpopeRun, gpope_event, gpope_pld_epsilon
from privrl.core.validation import check_delta, check_epsilon, check_int, check_positive

__all__ = ["GpopePldEvent", "calibrate_pld_noise_multiplier"]


@register_event
@dataclasses.dataclass(frozen=True)
class GpopePldEvent(GpopeRun):
    """The guarantee of a GPOPE run (:class:`~privrl.core.accounting.subsampled.GpopeRun`) as a
    ledger event, its epsilon by the PLD accountant (module text)."""

    def epsilon(self, delta: float) -> float:
        return _pld_epsilon(self.noise_multiplier, self.n, self.iterations, check_delta(delta))

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """:func:`~privrl.core.accounting.subsampled.gpope_event` (replace-one)."""
        return gpope_event(self.noise_multiplier, self.n, self.iterations)


@functools.lru_cache(maxsize=4096)
def _pld_epsilon(z: float, n: int, iterations: int, delta: float) -> float:
    return gpope_pld_epsilon(z, n, iterations, delta)


def calibrate_pld_noise_multiplier(
    epsilon: float, delta: float, n: int, iterations: int, rtol: float = 1e-3
) -> float:
    """Smallest noise multiplier ``z`` (to relative tolerance ``rtol``) whose PLD epsilon at
    ``delta`` is at most ``epsilon`` (the bracket's safe end: the target always holds; the
    bracket is widened from [0.05, 1] by :func:`calibrate_decreasing`)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n, "n", minimum=1)
    iterations = check_int(iterations, "iterations", minimum=1)
    rtol = check_positive(rtol, "rtol")
    return _calibrate(epsilon, delta, n, iterations, rtol)


@functools.lru_cache(maxsize=256)
def _calibrate(epsilon: float, delta: float, n: int, iterations: int, rtol: float) -> float:
    return calibrate_decreasing(
        lambda z: _pld_epsilon(z, n, iterations, delta), epsilon, lo=0.05, hi=1.0, rtol=rtol
    )
