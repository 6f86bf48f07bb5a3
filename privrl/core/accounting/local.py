"""Budget of the multi-round extension of PGC (Ono and Takahashi 2020, section 3.2.1).

An agent that submits ``T`` randomised gradients, each ``epsilon/T``-LDP, is ``epsilon``-LDP by
sequential composition (their Theorem 1): the budgets add up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from privrl.core.validation import check_epsilon, check_int


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
