r"""Gohari et al. (2021): estimators on Figure 2's learning curves.

* smoothing (:func:`smoothed_returns`) and the curves the figure draws: point-wise median and
  15-85% band of the live runs (:func:`figure2_curves`), mean and 95% t-band of the recorded run
  (:func:`band95`);
* the speed-up behind "converge roughly 4 times faster" (Section 5): thresholds between a
  uniformly random policy and the teacher, :math:`X_q = R_{\rm random} + q (R_{\rm teacher} -
  R_{\rm random})`, both returns measured in the same run with the same episode cap
  (:func:`thresholds`); a run's time to threshold is the first roll-out whose rolling-mean return
  reaches :math:`X_q`, censored at the budget if none does (:func:`time_to_threshold`); the
  speed-up is the ratio of median times with a bootstrap 95% interval (:func:`speedup`);
* final returns, the mean over the last tenth of a run (:func:`final_returns`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from privrl.chapter.plotting import summarise
from privrl.chapter.verdicts import bootstrap_interval
from privrl.core.validation import check_int

FIGURE2_CURVE_COLUMNS = ("panel", "label", "env_steps", "center", "lower", "upper", "count")


def smoothed_returns(runs: pd.DataFrame, window: int) -> pd.DataFrame:
    """``runs`` with ``avg_return`` replaced, per run (label, seed), by the average return of the
    episodes finished in the last ``window`` roll-outs (episode-weighted; NaN if none finished)."""
    window = check_int(window, "window", minimum=1)
    if window == 1:
        return runs
    runs = runs.sort_values(["label", "seed", "epoch"])
    total = runs["avg_return"].fillna(0.0) * runs["n_episodes"]
    keys = [runs["label"], runs["seed"]]

    def rolling_sum(x: pd.Series) -> pd.Series:
        return x.groupby(keys).transform(lambda c: c.rolling(window, min_periods=1).sum())

    episodes = rolling_sum(runs["n_episodes"])
    return runs.assign(avg_return=rolling_sum(total) / episodes.where(episodes > 0))


def figure2_curves(
    runs: pd.DataFrame, max_points: int = 250, window: int | None = None
) -> pd.DataFrame:
    """Point-wise median and 15-85% band of the average return over seeds, per panel and label,
    thinned to at most ``max_points`` roll-outs per curve (small enough to record). Each run's
    returns are first averaged over ``window`` roll-outs (:func:`smoothed_returns`; default one
    hundredth of the run, so 1 in the quick profile: with roll-outs of 1,000 interactions most
    AirRaid roll-outs finish no episode or one)."""
    if window is None:
        window = max(1, (int(runs["epoch"].max()) + 1) // 100)
    curves = summarise(
        smoothed_returns(runs, window), "env_steps", "avg_return", by=["panel", "label"],
        err="quantile", center="median",
    )  # fmt: skip
    steps = np.sort(curves["env_steps"].unique())
    keep = steps[:: max(1, math.ceil(len(steps) / max_points))]
    return curves[curves["env_steps"].isin(keep)][list(FIGURE2_CURVE_COLUMNS)].reset_index(drop=True)


def band95(runs: pd.DataFrame, window: int) -> pd.DataFrame:
    """Per (panel, label, env steps): mean over seeds of the smoothed return with a 95%
    t-interval (the recorded Figure 2's bands)."""
    stats_ = summarise(smoothed_returns(runs, window), "env_steps", "avg_return",
                       by=["panel", "label"], err="std")  # fmt: skip
    t = stats.t.ppf(0.975, np.maximum(stats_["count"] - 1, 1))
    half = t * stats_["std"].fillna(0.0) / np.sqrt(stats_["count"])
    return stats_.assign(center=stats_["mean"], lower=stats_["mean"] - half, upper=stats_["mean"] + half)


def thresholds(r_random: float, r_teacher: float, quantiles: tuple[float, ...]) -> dict[float, float]:
    r""":math:`X_q = R_{\rm random} + q (R_{\rm teacher} - R_{\rm random})` for every q."""
    if not r_teacher > r_random:
        raise ValueError(f"the teacher's return ({r_teacher:g}) must exceed random play's "
                         f"({r_random:g}) for thresholds between them")  # fmt: skip
    return {float(q): r_random + q * (r_teacher - r_random) for q in quantiles}


def time_to_threshold(runs: pd.DataFrame, threshold: float, window: int) -> pd.DataFrame:
    """Per run (label, seed): env steps of the first roll-out whose rolling mean return over
    ``window`` roll-outs (episode-weighted, :func:`smoothed_returns`) reaches ``threshold``; runs
    that never reach it are censored at their budget (last env steps, ``censored`` True)."""
    smooth = smoothed_returns(runs, window)
    rows = []
    for (label, seed), g in smooth.groupby(["label", "seed"], sort=False):
        g = g.sort_values("epoch")
        hit = g.loc[g["avg_return"] >= threshold, "env_steps"]
        censored = hit.empty
        rows.append({"label": label, "seed": seed, "censored": censored,
                     "steps": float(g["env_steps"].max() if censored else hit.iloc[0])})  # fmt: skip
    return pd.DataFrame(rows)


def speedup(times: pd.DataFrame, baseline: str, treated: str, seed: int = 0) -> dict[str, Any]:
    """Ratio of median times to threshold (baseline / treated) with a percentile bootstrap 95%
    interval over seeds (each arm resampled). Censored times enter at the budget, so a censored
    baseline makes the ratio a lower bound and a censored treated arm an upper bound."""
    a = times.loc[times["label"] == baseline, "steps"].to_numpy(float)
    b = times.loc[times["label"] == treated, "steps"].to_numpy(float)
    if len(a) == 0 or len(b) == 0:
        raise ValueError(f"no times for {baseline!r} or {treated!r}")
    lo, hi = bootstrap_interval(lambda u, v: np.median(u) / np.median(v), [a, b], seed=seed)
    return {"baseline": baseline, "treated": treated, "ratio": float(np.median(a) / np.median(b)),
            "lower": lo, "upper": hi, "n": int(min(len(a), len(b))),
            "censored_baseline": int(times.loc[times["label"] == baseline, "censored"].sum()),
            "censored_treated": int(times.loc[times["label"] == treated, "censored"].sum())}  # fmt: skip


def speedup_table(runs: pd.DataFrame, levels: dict[float, float], window: int,
                  baseline: str, treated: tuple[str, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """Times to every threshold of ``levels`` (q -> X_q) and the speed-up of each ``treated``
    label over ``baseline`` at each q."""
    times, rows = [], []
    for q, x in levels.items():
        t = time_to_threshold(runs, x, window).assign(q=q, threshold=x)
        times.append(t)
        for label in treated:
            rows.append({"q": q, "threshold": x, **speedup(t, baseline, label)})
    return pd.concat(times, ignore_index=True), pd.DataFrame(rows)


def final_returns(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run (label, seed): mean return over its last tenth of roll-outs (at least three)."""
    n_epochs = int(runs["epoch"].max()) + 1
    last = runs[runs["epoch"] >= n_epochs - max(3, n_epochs // 10)]
    return last.groupby(["label", "seed"], sort=False)["avg_return"].mean().reset_index()
