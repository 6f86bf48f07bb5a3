"""What the steps of the toy chapter hand each other (:class:`ToyState`); its data-frame fields
are the tables a run returns, under the field names."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class ToyState:
    """The state of one run of :class:`~toy2024.chapter.ToyChapter`."""

    #: One row per release: record count ``n`` and the release's ``abs_error`` (the sweep).
    errors: pd.DataFrame = field(default_factory=pd.DataFrame)
