"""Theorem 11 (Section 5): DP-LSW's excess empirical risk falls as O(1/m^2) once every state is
visited. The noise variance d sigma_X^2 at the chain's expected visit counts shows where that
regime starts (:func:`rate_onset`), far beyond the paper's batch sizes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privrl.core.algorithms.monte_carlo import dp_lsw_sigma
from privrl.papers.balle2016.profile import BalleProfile


def expected_counts(profile: BalleProfile, m: int) -> np.ndarray:
    """Expected first-visit counts m P(s visited): the chain never skips a state, so s is visited
    iff the start is <= s (truncation at 200 steps ignored; the absorbing state as N - 2)."""
    p = np.cumsum(profile.mdp().start)
    p[-1] = p[-2]
    return np.floor(m * p).astype(np.int64)


def noise_rate(profile: BalleProfile, batch_sizes: np.ndarray) -> pd.DataFrame:
    """DP-LSW's noise scale sigma_X and variance d sigma_X^2 at the expected counts, per batch size."""
    rho = profile.rho()
    rows = []
    for feat, Phi in profile.features().items():
        d = Phi.shape[1]
        budget = profile.noise(d).budget
        for m in batch_sizes:
            s = dp_lsw_sigma(expected_counts(profile, int(m)), Phi, rho, budget)
            rows.append(dict(features=feat, m=int(m), method="DP-LSW", sigma=s, noise_var=d * s**2))
    return pd.DataFrame(rows)


def log_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def rate_onset(rate: pd.DataFrame, slope: float = -2.0, tol: float = 0.05) -> dict[str, int]:
    """Per features: the smallest m from which every local log-log slope of the noise variance
    stays within ``tol`` of ``slope`` (the m^-2 regime of Theorem 11)."""
    out = {}
    for feat, g in rate.groupby("features"):
        m, v = g["m"].to_numpy(float), g["noise_var"].to_numpy()
        local = np.diff(np.log(v)) / np.diff(np.log(m))
        off = np.flatnonzero(np.abs(local - slope) > tol)
        out[feat] = int(m[off[-1] + 1]) if off.size else int(m[0])
    return out
