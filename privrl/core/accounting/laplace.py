r"""The Laplace mechanism's privacy: continuous (Dwork and Roth 2014, Def. 3.3) and on a grid
(private on IEEE doubles, :mod:`privrl.core.mechanisms.discrete_laplace`), and their events.

* Continuous: noise :math:`\mathrm{Lap}(b)^d` on a value of :math:`\ell_1`-sensitivity
  :math:`\Delta` is :math:`\Delta/b`-DP (:func:`laplace_epsilon`).
* Grid: the value rounded to :math:`\text{step}\,\mathbb{Z}` plus discrete Laplace noise of scale
  :math:`t` grid units. Two inputs :math:`\Delta` apart in :math:`\ell_1` round to grid points at
  most :math:`L = \lfloor\Delta/\text{step}\rfloor + d` apart (:func:`grid_sensitivity`), so the
  release is exactly :math:`L/t`-DP (:func:`grid_laplace_epsilon`, rational arithmetic, rounded
  up to the next double so the float never understates it).

``reports`` releases compose by adding their epsilons (basic composition of pure DP,
:func:`~privrl.core.accounting.composition.sequential_epsilon`). Pure DP: the events ignore
``delta``. Ono and Takahashi's local reports (Algorithm 2) are such releases, one per gradient.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import dp_accounting
from dp_accounting import dp_event

from privrl.core.accounting.composition import sequential_epsilon
from privrl.core.accounting.events import register_event
from privrl.core.validation import check_int, check_positive

#: The largest grid step: 2^53 steps of it are still a double (2^53 x 2^970 = 2^1023).
MAX_STEP = 2.0**970


def check_step(step: float) -> float:
    """``step`` after checking it is a positive power of two (so ``x / step`` rounds exactly)
    of at most :data:`MAX_STEP` (so every value of fewer than 2^53 steps is a double)."""
    step = check_positive(step, "step")
    if math.frexp(step)[0] != 0.5:
        raise ValueError(f"step must be a power of two (exact rounding), got {step!r}")
    if step > MAX_STEP:
        raise ValueError(f"step must be at most 2^970 (2^53 steps must be a double), got {step!r}")
    return step


def laplace_epsilon(sensitivity: float, scale: float) -> float:
    """Epsilon of one continuous Laplace release: L1 ``sensitivity`` over the per-coordinate
    ``scale`` ``b`` (the output density ratio is at most ``exp(sensitivity / b)``)."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    scale = check_positive(scale, "scale")
    return sensitivity / scale


def grid_sensitivity(sensitivity: float, d: int, step: float) -> int:
    r""":math:`L = \lfloor \Delta/\text{step} \rfloor + d`: the L1 distance, in grid units, between
    the rounded images of two inputs at most ``sensitivity`` apart in L1 (``d`` coordinates;
    rounding moves each by at most half a step)."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    d = check_int(d, "d", minimum=1)
    return math.floor(Fraction(sensitivity) / Fraction(check_step(step))) + d


def grid_laplace_epsilon(sensitivity: float, d: int, scale: Fraction, step: float) -> float:
    """Exact epsilon :math:`L / t` of one grid Laplace release with discrete Laplace scale
    ``scale`` (``t``, grid units), rounded up to the next double."""
    if not isinstance(scale, Fraction) or scale <= 0:
        raise ValueError(f"scale must be a positive Fraction (from grid_scale), got {scale!r}")
    value = Fraction(grid_sensitivity(sensitivity, d, step)) / scale
    as_float = float(value)
    return as_float if Fraction(as_float) >= value else math.nextafter(as_float, math.inf)


@register_event
@dataclass(frozen=True)
class LaplaceReportEvent:
    """``reports`` continuous Laplace releases, each of L1 sensitivity ``sensitivity`` and noise
    scale ``scale`` per coordinate: ``reports * sensitivity / scale`` (:func:`laplace_epsilon`,
    basic composition). The mathematical idealisation: not private on real computers (Mironov
    2012); :class:`GridLaplaceReportEvent` is the release as made. Pure DP: ``delta`` is
    ignored."""

    sensitivity: float
    scale: float
    reports: int = 1

    def epsilon(self, delta: float) -> float:
        per_report = laplace_epsilon(self.sensitivity, self.scale)
        reports = check_int(self.reports, "reports", minimum=1)
        return sequential_epsilon([per_report] * reports)

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """``LaplaceDpEvent(scale / sensitivity)``, self-composed ``reports`` times."""
        reports = check_int(self.reports, "reports", minimum=1)
        event = dp_accounting.LaplaceDpEvent(self.scale / self.sensitivity)
        return event if reports == 1 else dp_accounting.SelfComposedDpEvent(event, reports)


@register_event
@dataclass(frozen=True)
class GridLaplaceReportEvent:
    """``reports`` grid Laplace releases of a ``d``-vector of L1 sensitivity ``sensitivity``,
    rounded to the grid ``step`` plus discrete Laplace noise of scale
    ``scale_numerator / scale_denominator`` grid units per coordinate: each exactly
    :func:`grid_laplace_epsilon`-DP, composed by adding. Pure DP: ``delta`` is ignored.

    :attr:`noise_scale` is the noise scale in the value's units (``t * step``), slightly above the
    continuous ``sensitivity / epsilon``: the slack of the exact release."""

    sensitivity: float
    d: int
    scale_numerator: int
    scale_denominator: int
    step: float
    reports: int = 1

    @property
    def scale(self) -> Fraction:
        """The discrete Laplace scale ``t`` in grid units."""
        num = check_int(self.scale_numerator, "scale_numerator", minimum=1)
        den = check_int(self.scale_denominator, "scale_denominator", minimum=1)
        return Fraction(num, den)

    @property
    def noise_scale(self) -> float:
        """``t * step``: the per-coordinate noise scale in the value's units."""
        return float(self.scale * Fraction(self.step))

    def epsilon(self, delta: float) -> float:
        per_report = grid_laplace_epsilon(self.sensitivity, self.d, self.scale, self.step)
        reports = check_int(self.reports, "reports", minimum=1)
        return sequential_epsilon([per_report] * reports)

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """``DiscreteLaplaceDpEvent(1 / t, L)`` (:func:`grid_sensitivity` ``L`` grid units),
        self-composed ``reports`` times."""
        reports = check_int(self.reports, "reports", minimum=1)
        event = dp_event.DiscreteLaplaceDpEvent(
            float(1 / self.scale), grid_sensitivity(self.sensitivity, self.d, self.step)
        )
        return event if reports == 1 else dp_accounting.SelfComposedDpEvent(event, reports)


__all__ = [
    "GridLaplaceReportEvent",
    "LaplaceReportEvent",
    "check_step",
    "grid_laplace_epsilon",
    "grid_sensitivity",
    "laplace_epsilon",
]
