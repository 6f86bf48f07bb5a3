"""Local DP budgets of PGC (Ono and Takahashi 2020, sections 3.1-3.2) and their events.

An agent that submits ``T`` randomised gradients, each ``epsilon/T``-LDP, is ``epsilon``-LDP by
sequential composition (their Theorem 1): the budgets add up. One Laplace report (Algorithm 2) is
``C/b``-LDP (Lemma 2), one randomised sign (eq. 4) ``log((1 - p)/p)``-LDP for its smallest output
probability ``p``, and PRS's ``d_hat`` signs compose (Lemma 3). The ledger stores these
guarantees as events (:class:`LaplaceReportEvent`, :class:`BitFlipEvent`) that recompute their
epsilon from the noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    """``reports`` reports of the L1-clipped Laplace mechanism (Algorithm 2), each with L1
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
