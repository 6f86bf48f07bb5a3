"""Local DP budgets of PGC (Ono and Takahashi 2020, sections 3.1-3.2) and their events.

An agent that submits ``T`` randomised gradients, each ``epsilon/T``-LDP, is ``epsilon``-LDP by
sequential composition (their Theorem 1): the budgets add up. One Laplace report (Algorithm 2) is
``C/b``-LDP (Lemma 2), one randomised sign (eq. 4) ``log((1 - p)/p)``-LDP for its smallest output
probability ``p``, and PRS's ``d_hat`` signs compose (Lemma 3). The ledger stores these
guarantees as events that recompute their epsilon from the noise: :class:`GridLaplaceReportEvent`
for the Laplace report as released (on a power-of-two grid with discrete Laplace noise, private on
IEEE doubles), :class:`LaplaceReportEvent` for the textbook continuous Laplace report (the
mathematical idealisation: not private on real computers, Mironov 2012), :class:`BitFlipEvent`
for PRS.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from privrl.core.accounting.events import register_event
from privrl.core.validation import check_epsilon, check_int, check_positive


def per_round_epsilon(epsilon: float, rounds: int) -> float:
    """Budget ``epsilon / T`` of each of ``T = rounds`` submissions (``inf`` stays ``inf``)."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    rounds = check_int(rounds, "rounds", minimum=1)
    return math.inf if math.isinf(epsilon) else epsilon / rounds


def sequential_epsilon(epsilons: Sequence[float]) -> float:
    """Total LDP budget of a sequence of submissions: the sum of their epsilons (Theorem 1)."""
    if len(epsilons) == 0:
        raise ValueError("epsilons must not be empty")
    return float(
        sum(check_epsilon(e, f"epsilons[{i}]", allow_inf=True) for i, e in enumerate(epsilons))
    )


def laplace_epsilon(sensitivity: float, scale: float) -> float:
    """Epsilon of one Laplace report: L1 ``sensitivity`` over the per-coordinate ``scale`` ``b``
    (Lemma 2: the output density ratio is at most ``exp(sensitivity / b)``, eqs. 20-21)."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    scale = check_positive(scale, "scale")
    return sensitivity / scale


def grid_laplace_epsilon(sensitivity: float, d: int, scale: Fraction, step: float) -> float:
    """Exact epsilon of one grid Laplace report (Algorithm 2 released on the grid ``step``):
    ``L / t`` with ``L = floor(sensitivity / step) + d`` the L1 grid distance of the rounded images
    of two inputs ``sensitivity`` apart (rounding moves each of the ``d`` coordinates by at most
    half a step) and ``t = scale`` the discrete Laplace scale in grid units. Computed in rational
    arithmetic and rounded up to the next double, so the float never understates it (the same
    value as :func:`privrl.core.mechanisms.discrete_laplace.grid_epsilon`, computed here
    independently because accounting sits below the mechanisms)."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    d = check_int(d, "d", minimum=1)
    step = check_positive(step, "step")
    if math.frexp(step)[0] != 0.5:
        raise ValueError(f"step must be a power of two, got {step!r}")
    if not isinstance(scale, Fraction) or scale <= 0:
        raise ValueError(f"scale must be a positive Fraction, got {scale!r}")
    value = (math.floor(Fraction(sensitivity) / Fraction(step)) + d) / scale
    as_float = float(value)
    return as_float if Fraction(as_float) >= value else math.nextafter(as_float, math.inf)


def bit_flip_epsilon(flip_probability: float) -> float:
    """Epsilon of one randomised sign (eq. 4) whose smallest output probability is
    ``flip_probability`` ``p`` (in (0, 1/2]): the likelihood ratio is at most ``(1 - p) / p``."""
    p = check_positive(flip_probability, "flip_probability")
    if p > 0.5:
        raise ValueError(f"flip_probability must lie in (0, 1/2], got {p}")
    return math.log((1.0 - p) / p)


@register_event
@dataclass(frozen=True)
class LaplaceReportEvent:
    """``reports`` reports of the textbook L1-clipped Laplace mechanism on the reals (Algorithm 2,
    ``floating_point=True`` in :mod:`privrl.core.mechanisms.local`), each with L1
    sensitivity ``sensitivity`` (``C``: clipped to ``C/2``, eqs. 19-20) and Laplace noise of
    scale ``scale`` per coordinate (eq. 21): ``reports * C / b`` by Lemma 2 and sequential
    composition (Theorem 1). Pure local DP: ``delta`` is ignored."""

    sensitivity: float
    scale: float
    reports: int = 1

    def epsilon(self, delta: float) -> float:
        per_report = laplace_epsilon(self.sensitivity, self.scale)
        reports = check_int(self.reports, "reports", minimum=1)
        return sequential_epsilon([per_report] * reports)


@register_event
@dataclass(frozen=True)
class GridLaplaceReportEvent:
    """``reports`` Laplace reports as released (Algorithm 2 on the grid ``step``): the L1-clipped
    gradient (``d`` coordinates, L1 sensitivity ``sensitivity`` = ``C``, eqs. 19-20) rounded to
    the grid plus discrete Laplace noise of scale ``scale_numerator / scale_denominator`` grid
    units per coordinate. Each report is exactly :func:`grid_laplace_epsilon`-LDP; ``reports``
    compose sequentially (Theorem 1). Pure local DP: ``delta`` is ignored.

    :attr:`noise_scale` is the noise scale in the gradient's units (``t * step``), slightly above
    the continuous ``C / epsilon`` of eq. (21): the slack of the exact release."""

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
        """``t * step``: the per-coordinate noise scale in the gradient's units."""
        return float(self.scale * Fraction(self.step))

    def epsilon(self, delta: float) -> float:
        per_report = grid_laplace_epsilon(self.sensitivity, self.d, self.scale, self.step)
        reports = check_int(self.reports, "reports", minimum=1)
        return sequential_epsilon([per_report] * reports)


@register_event
@dataclass(frozen=True)
class BitFlipEvent:
    """``bits`` independent randomised signs (eq. 4), each reported wrongly with probability at
    least ``flip_probability`` at the extremes of its input: PRS's ``d_hat`` signs (Algorithm 3,
    corrected eq. 24, Lemma 3) or one bit flip (``bits = 1``). Their epsilons add up (Theorem 1).
    Pure local DP: ``delta`` is ignored."""

    flip_probability: float
    bits: int = 1

    def epsilon(self, delta: float) -> float:
        bits = check_int(self.bits, "bits", minimum=1)
        return sequential_epsilon([bit_flip_epsilon(self.flip_probability)] * bits)
