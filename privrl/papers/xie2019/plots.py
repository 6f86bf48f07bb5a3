"""The figures of the Xie, Thomas and Miklau (2019) chapter, drawn on a matplotlib ``Axes``.

* :func:`plot_points` - Figures 1 a, 2, 3 and 4: mean MSPBE against the data size n;
* :func:`plot_steps` - Figure 1 b: MSPBE against the step size at a fixed n;
* :func:`plot_schedules` - Theorems 2 and 3: constant against diminishing steps along a run;
* :func:`plot_variance` - the gradient variance against the transitions used per trajectory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from privrl.chapter.plotting import band_plot

if TYPE_CHECKING:
    from matplotlib.axes import Axes

METHOD_LABELS = {"GPOPE": "GPOPE (gradient perturbation)", "DP-LSW": "DP-LSW (output pert. V1)",
                 "DP-LSL": "DP-LSL (output pert. V2)", "LSTD": "LSTD (non-private)",
                 "WIS-LSTD": "WIS-LSTD (non-private)", "GTD2": "GTD2 (noiseless)",
                 "zero": "zero estimate (no data)"}


def plot_points(ax: Axes, points: pd.DataFrame, domain: str, ylabel: str = "MSPBE") -> None:
    """Mean MSPBE against n (log-log), error bars one standard deviation (as the paper plots
    them), one line per method and epsilon, for one domain of a points table."""
    t = points[points.domain == domain].copy()
    t["label"] = [METHOD_LABELS.get(m, m) + ("" if np.isnan(e) else f", epsilon = {e:g}")
                  for m, e in zip(t.method, t.epsilon, strict=True)]
    for label, g in t.groupby("label", sort=True):
        band_plot(ax, g, "n", "mspbe", err="std", label=label, marker="o")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("data size n (trajectories)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def plot_steps(ax: Axes, sensitivity: pd.DataFrame, zero_mspbe: float) -> None:
    """Figure 1 b: GPOPE's MSPBE against the step size (mean, one standard deviation)."""
    band_plot(ax, sensitivity, "step_size", "mspbe", err="std", marker="o", label="GPOPE")
    ax.axhline(zero_mspbe, color="gray", ls="--", label="zero estimate")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step size")
    ax.set_ylabel("MSPBE")
    ax.legend()


def plot_schedules(ax: Axes, schedules: pd.DataFrame) -> None:
    """MSPBE along GPOPE runs, constant and diminishing steps, for each total T."""
    for (T, sched), g in schedules.groupby(["iterations", "schedule"]):
        band_plot(ax, g, "iteration", "mspbe", err="std", label=f"{sched} step, T = {T}",
                  ls="-" if sched == "constant" else "--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("MSPBE")
    ax.legend(fontsize=8)


def plot_variance(ax: Axes, variance: pd.DataFrame) -> float:
    """Gradient variance against transitions used, with the 1/k law; returns the log-log slope."""
    slope = float(np.polyfit(np.log(variance.transitions), np.log(variance.variance), 1)[0])
    ax.loglog(variance.transitions, variance.variance, "o-", label=f"measured (slope {slope:.2f})")
    ax.loglog(variance.transitions, variance.variance.iloc[0] / variance.transitions, "k--",
              label="1/k")
    ax.set_xlabel("transitions used per trajectory, k")
    ax.set_ylabel("total variance of the gradient")
    ax.legend()
    return slope


__all__ = ["METHOD_LABELS", "plot_points", "plot_schedules", "plot_steps", "plot_variance"]
