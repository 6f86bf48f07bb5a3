"""The Audits chapter's typed state: the audits table (the table a run returns) and their wall
time, handed from the auditing check to the bounds check and the prose."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class AuditsState:
    """What the audits found."""

    #: One row per audited release: its claimed epsilon, audited lower bound, weakened variant's
    #: bound and (where known) the pair's exact epsilon (:func:`~privrl.papers.audits.runs.run_audits`).
    audits: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Wall time of the audits, in seconds (one decimal).
    seconds: float | None = None


__all__ = ["AuditsState"]
