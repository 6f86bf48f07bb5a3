r"""Gohari et al. (2021): estimators on Figure 2's learning curves.

* smoothing (:func:`smoothed_returns`) and the curves the figure draws: point-wise median and
  15-85% band of the live runs (:func:`figure2_curves`), mean and 95% t-band of the recorded run
  (:func:`band95`);
* the speed-up behind "converge roughly 4 times faster" (Section 5): thresholds between a
  uniformly random policy and the teacher, :math:`X_q = R_{\rm random} + q (R_{\rm teacher} -
  R_{\rm random})`, both returns measured in the same run with the same episode cap
  (:func:`thresholds`); a run's time to converge to :math:`X_q` is the first roll-out from which
  its rolling-mean return over full windows stays at or above :math:`X_q` to the end of the run,
  censored at the budget if it ends below (:func:`time_to_threshold`); the speed-up is the
  ratio of times, the Hodges-Lehmann shift of log times with its exact rank 95% interval
  (:func:`speedup`; censored times enter with their bounds);
* final returns, the mean over the last tenth of a run (:func:`final_returns`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from privrl.chapter.plotting import summarise
from privrl.chapter.verdicts import hodges_lehmann, shift_interval
from privrl.core.validation import check_int

FIGURE2_CURVE_COLUMNS = ("panel", "label", "env_steps", "center", "lower", "upper", "count")


def smoothed_returns(runs: pd.DataFrame, window: int, full: bool = False) -> pd.DataFrame:
    """``runs`` with ``avg_return`` replaced, per run (label, seed), by the average return of the
    episodes finished in the last ``window`` roll-outs (episode-weighted; NaN if none finished;
    ``full``: NaN too in the first ``window - 1`` roll-outs, whose windows are partial)."""
    window = check_int(window, "window", minimum=1)
    if window == 1:
        return runs
    runs = runs.sort_values(["label", "seed", "epoch"])
    total = runs["avg_return"].fillna(0.0) * runs["n_episodes"]
    keys = [runs["label"], runs["seed"]]
    least = window if full else 1

    def rolling_sum(x: pd.Series) -> pd.Series:
        return x.groupby(keys).transform(lambda c: c.rolling(window, min_periods=least).sum())

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
        smoothed_returns(runs, window),
        "env_steps",
        "avg_return",
        by=["panel", "label"],
        err="quantile",
        center="median",
    )
    steps = np.sort(curves["env_steps"].unique())
    keep = steps[:: max(1, math.ceil(len(steps) / max_points))]
    return curves[curves["env_steps"].isin(keep)][list(FIGURE2_CURVE_COLUMNS)].reset_index(
        drop=True
    )


def band95(runs: pd.DataFrame, window: int) -> pd.DataFrame:
    """Per (panel, label, env steps): mean over seeds of the smoothed return with a 95%
    t-interval (the recorded Figure 2's bands)."""
    stats_ = summarise(
        smoothed_returns(runs, window), "env_steps", "avg_return", by=["panel", "label"], err="std"
    )
    t = stats.t.ppf(0.975, np.maximum(stats_["count"] - 1, 1))
    half = t * stats_["std"].fillna(0.0) / np.sqrt(stats_["count"])
    return stats_.assign(
        center=stats_["mean"], lower=stats_["mean"] - half, upper=stats_["mean"] + half
    )


def thresholds(
    r_random: float, r_teacher: float, quantiles: tuple[float, ...]
) -> dict[float, float]:
    r""":math:`X_q = R_{\rm random} + q (R_{\rm teacher} - R_{\rm random})` for every q."""
    if not r_teacher > r_random:
        raise ValueError(
            f"the teacher's return ({r_teacher:g}) must exceed random play's "
            f"({r_random:g}) for thresholds between them"
        )
    return {float(q): r_random + q * (r_teacher - r_random) for q in quantiles}


def time_to_threshold(runs: pd.DataFrame, threshold: float, window: int) -> pd.DataFrame:
    """Per run (label, seed): env steps of the first roll-out from which the rolling mean return
    over full windows of ``window`` roll-outs (episode-weighted, :func:`smoothed_returns`) stays
    at or above ``threshold`` to the end of the run (a window without a finished episode keeps
    the last mean); a run whose last mean is below it, or that has no full window, is censored
    at its budget (last env steps, ``censored`` True: its time lies beyond)."""
    smooth = smoothed_returns(runs, window, full=True)
    rows = []
    for (label, seed), g in smooth.groupby(["label", "seed"], sort=False):
        g = g.sort_values("epoch")
        mean = g["avg_return"].ffill().to_numpy(float)
        below = ~(mean >= threshold)  # NaN (no full window yet) counts as below
        censored = bool(below[-1])
        first = int(np.flatnonzero(below)[-1]) + 1 if below.any() else 0
        steps = g["env_steps"].to_numpy(float)
        rows.append(
            {
                "label": label,
                "seed": seed,
                "censored": censored,
                "steps": float(steps[-1] if censored else steps[first]),
            }
        )
    return pd.DataFrame(rows)


def speedup(times: pd.DataFrame, baseline: str, treated: str) -> dict[str, Any]:
    """How many times sooner ``treated`` converges than ``baseline``: exp of the Hodges-Lehmann
    shift of log times (baseline over treated), with the exact rank 95% interval
    (:func:`~privrl.chapter.verdicts.shift_interval`; ``None`` bounds when the seeds cannot reach
    95%). A censored time lies beyond the budget: it enters the interval with the budget as its
    lower bound and no upper bound, so the interval holds whatever the censored times are."""
    rows = {label: times[times["label"] == label] for label in (baseline, treated)}
    if any(len(r) == 0 for r in rows.values()):
        raise ValueError(f"no times for {baseline!r} or {treated!r}")
    logs = {label: np.log(r["steps"].to_numpy(float)) for label, r in rows.items()}
    highs = {
        label: np.where(r["censored"].to_numpy(bool), np.inf, logs[label])
        for label, r in rows.items()
    }
    interval = shift_interval(logs[baseline], highs[baseline], logs[treated], highs[treated])
    lower, upper = (
        (np.nan, np.nan)
        if interval is None
        else (float(np.exp(interval[0])), float(np.exp(interval[1])))
    )
    return {
        "baseline": baseline,
        "treated": treated,
        "ratio": float(np.exp(hodges_lehmann(logs[baseline], logs[treated]))),
        "lower": lower,
        "upper": upper,
        "n": int(min(len(r) for r in rows.values())),
        "censored_baseline": int(rows[baseline]["censored"].sum()),
        "censored_treated": int(rows[treated]["censored"].sum()),
    }


def speedup_table(
    runs: pd.DataFrame,
    levels: dict[float, float],
    window: int,
    baseline: str,
    treated: tuple[str, ...],
) -> tuple[pd.DataFrame, pd.DataFrame]:
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
