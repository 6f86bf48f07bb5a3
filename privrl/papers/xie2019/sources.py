"""Xie et al. (2019): the recorded run whose verdicts replace this run's (the chapter's one
declaration of it, read by :func:`~privrl.chapter.decided.decided_claims`)."""

from __future__ import annotations

from privrl.chapter.decided import EvidenceSource

#: The recorded paper-profile run: every claim decided again on its points of the paper's figures
#: and its runs of Theorems 2-3 (none of its verdicts is replayed).
PAPER_RUN = EvidenceSource(
    "paper",
    "_paper",
    "the recorded paper-profile run: every claim decided again on its points and its runs of "
    "Theorems 2-3",
)
SOURCES: tuple[EvidenceSource, ...] = (PAPER_RUN,)

__all__ = ["PAPER_RUN", "SOURCES"]
