"""Balle et al. (2016): the recorded run whose verdicts replace this run's (the chapter's one
declaration of it, read by :func:`~privrl.chapter.decided.decided_claims`)."""

from __future__ import annotations

from privrl.chapter.decided import EvidenceSource

#: The verdicts of the recorded paper-profile run (20 trials per batch size).
PAPER_RUN = EvidenceSource("paper", "_paper", "the recorded paper-profile run's verdicts")
SOURCES: tuple[EvidenceSource, ...] = (PAPER_RUN,)

__all__ = ["PAPER_RUN", "SOURCES"]
