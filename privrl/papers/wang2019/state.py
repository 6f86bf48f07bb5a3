"""What the steps of Wang and Hegde (2019)'s chapter hand each other (:class:`WangState`); its
data-frame fields are the tables a run returns, under the field names."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from privrl.chapter.records import RecordedRun


@dataclass(frozen=True)
class PaperRecord:
    """The recorded paper-profile run: its learning curves (the columns of
    :data:`~privrl.papers.wang2019.profile.CURVE_COLUMNS`) and its run record."""

    curves: pd.DataFrame
    run: RecordedRun


@dataclass
class WangState:
    """The state of one run of :class:`~privrl.papers.wang2019.chapter.Wang2019Chapter`."""

    #: Empirical against kernel covariance of the sample paths, entry by entry (Appendix A).
    covariance: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Lemma 8: Monte Carlo tails of the path maximum and their bound, by beta and u.
    lemma8: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Lemma 6: RKHS norms of differences of trained Q networks and their bound.
    lemma6: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Proposition 9: seconds per sample-path size, by method.
    scaling: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Proposition 10's simulation: errors and bound by noise, actions and n.
    proposition10: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The calibration table: one row per (method, target epsilon), with its event and cross-check.
    privacy: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Figure 1's runs (Algorithm 1 at each amplitude), one row per seed and episode.
    figure1: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Figure 2's runs (every method at each target epsilon), one row per seed and episode.
    figure2: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Figures 1 and 2's learning curves in one table (what the claims are decided on).
    curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The recorded paper-profile run (``None``: none recorded), read when the run starts.
    paper_record: PaperRecord | None = None
