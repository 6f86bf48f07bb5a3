"""Wang and Hegde (2019): the recorded runs whose verdicts replace this run's, in order of
precedence (the chapter's one declaration of them, read by
:func:`~privrl.chapter.decided.decided_claims`)."""

from __future__ import annotations

from privrl.chapter.decided import EvidenceSource

#: The recorded pair (Algorithm 1 and input perturbation at epsilon = 0.45, 50 seeds per arm):
#: made to decide the claims comparing the two arms, it decides them before the paper profile.
PAIR_RUN = EvidenceSource("pair", "_pair", "the recorded pair, 50 seeds per arm")
#: The recorded paper-profile run's curves.
PAPER_RUN = EvidenceSource("paper", "_paper", "the recorded paper-profile run's curves")
SOURCES: tuple[EvidenceSource, ...] = (PAIR_RUN, PAPER_RUN)

__all__ = ["PAIR_RUN", "PAPER_RUN", "SOURCES"]
