"""What the steps of Balle et al. (2016)'s chapter hand each other (:class:`BalleState`); its
data-frame fields are the tables a run returns, under the field names."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class BalleState:
    """The state of one run of :class:`~privrl.papers.balle2016.chapter.Balle2016Chapter`."""

    #: Figure 1, tidy: one row per trial x batch x features x method x c (the sweep).
    figure1: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Vectorised smooth bounds against brute force, one row per case (check ``smooth_bounds``).
    smooth_bounds: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Lemma 1's ratios (a) and (b) on neighbouring pairs (check ``lemma1``).
    neighbours: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Local-sensitivity ratios of LSW and LSL on arbitrary datasets.
    arbitrary: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Monte Carlo privacy loss at the worst pair found, one row per (method, features) release.
    privacy_loss: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: DP-LSW's noise scale and variance at the expected counts, per features and batch size.
    noise_rate: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Mean RMSE at the default c, by (features, method) and batch size (Figure 1's third panel).
    rmse: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Log-log slope of the noise variance for m >= 1e7, by features (check ``rate_m2_asymptotic``).
    rate_slope_tail: dict[str, float] = field(default_factory=dict)
    #: The batch size from which the m^-2 regime holds, by features (:func:`~privrl.papers.
    #: balle2016.rate.rate_onset`).
    rate_onset: dict[str, int] = field(default_factory=dict)
    #: Every number the prose reads, by glue key (saved in the run's summary).
    numbers: dict[str, float] = field(default_factory=dict)
