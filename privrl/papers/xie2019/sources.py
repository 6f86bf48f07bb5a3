"""Xie et al. (2019): the recorded run whose verdicts replace this run's (the chapter's one
declaration of it, read by :func:`~privrl.chapter.decided.decided_claims`)."""

from __future__ import annotations

from privrl.chapter.decided import EvidenceSource

#: The recorded paper-profile run: its verdicts, and the claims decided again on its points.
PAPER_RUN = EvidenceSource(
    "paper", "_paper", "the recorded paper-profile run's verdicts and the claims on its points"
)
SOURCES: tuple[EvidenceSource, ...] = (PAPER_RUN,)

__all__ = ["PAPER_RUN", "SOURCES"]
