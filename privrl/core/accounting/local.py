"""Local DP budgets of PGC (Ono and Takahashi 2020, sections 3.1-3.2) and their events.

An agent that submits ``T`` randomised gradients, each ``epsilon/T``-LDP, is ``epsilon``-LDP by
sequential composition (their Theorem 1,
:func:`~privrl.core.accounting.composition.sequential_epsilon`): the budgets add up. One Laplace
report (Algorithm 2) is ``C/b``-LDP (Lemma 2); its accounting is the Laplace mechanism's, in
:mod:`privrl.core.accounting.laplace` (:class:`GridLaplaceReportEvent` for the report as released,
on a power-of-two grid with discrete Laplace noise, private on IEEE doubles;
:class:`LaplaceReportEvent` for the textbook continuous report). One randomised sign (eq. 4) is
``log((1 - p)/p)``-LDP for its smallest output probability ``p``, and PRS's ``d_hat`` signs
compose (Lemma 3): :class:`BitFlipEvent`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NoReturn

from privrl.core.accounting.composition import sequential_epsilon
from privrl.core.accounting.events import register_event
from privrl.core.accounting.laplace import (
    GridLaplaceReportEvent,
    LaplaceReportEvent,
    grid_laplace_epsilon,
    laplace_epsilon,
)
from privrl.core.validation import check_epsilon, check_int, check_positive

__all__ = [
    "BitFlipEvent",
    "GridLaplaceReportEvent",
    "LaplaceReportEvent",
    "bit_flip_epsilon",
    "grid_laplace_epsilon",
    "laplace_epsilon",
    "per_round_epsilon",
    "sequential_epsilon",
]


def per_round_epsilon(epsilon: float, rounds: int) -> float:
    """Budget ``epsilon / T`` of each of ``T = rounds`` submissions (``inf`` stays ``inf``)."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    rounds = check_int(rounds, "rounds", minimum=1)
    return math.inf if math.isinf(epsilon) else epsilon / rounds


def bit_flip_epsilon(flip_probability: float) -> float:
    """Epsilon of one randomised sign (eq. 4) whose smallest output probability is
    ``flip_probability`` ``p`` (in (0, 1/2]): the likelihood ratio is at most ``(1 - p) / p``."""
    p = check_positive(flip_probability, "flip_probability")
    if p > 0.5:
        raise ValueError(f"flip_probability must lie in (0, 1/2], got {p}")
    return math.log((1.0 - p) / p)


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

    def to_dp_event(self) -> NoReturn:
        """None: a local guarantee (each report on its own input), not a relation between
        datasets dp-accounting composes; raises ``NotImplementedError``."""
        raise NotImplementedError("BitFlipEvent: a local DP report has no dp-accounting event")
