"""Gohari et al. (2021): the recorded AirRaid runs whose verdicts replace this run's, in order
of precedence (the chapter's one declaration of them, read by
:func:`~privrl.chapter.decided.decided_claims`)."""

from __future__ import annotations

from privrl.chapter.decided import EvidenceSource

#: The record at the paper's horizon: it decides before the shorter design.
HORIZON_RUN = EvidenceSource(
    "horizon", "_horizon", "the recorded AirRaid run at the paper's horizon"
)
#: The recorded AirRaid design (fewer seeds and roll-outs than the paper's).
DESIGN_RUN = EvidenceSource("airraid", "_airraid", "the recorded AirRaid design")
SOURCES: tuple[EvidenceSource, ...] = (HORIZON_RUN, DESIGN_RUN)

__all__ = ["DESIGN_RUN", "HORIZON_RUN", "SOURCES"]
