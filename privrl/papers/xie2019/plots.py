"""The figures of the Xie, Thomas and Miklau (2019) chapter, drawn on a matplotlib ``Axes``.

* :func:`plot_points` - Figures 1 a, 2, 3 and 4: mean MSPBE against the data size n;
* :func:`plot_zoom` - Figure 2 a zoomed: GPOPE at each epsilon against LSTD, on-policy Mountain
  Car, with :func:`zoom_numbers` (what the panel shows at its largest n, for the prose);
* :func:`plot_steps` - Figure 1 b: MSPBE against the step size at a fixed n;
* :func:`plot_schedules` - Theorems 2 and 3: constant against diminishing steps along a run;
* :func:`plot_variance` - the gradient variance against the transitions used per trajectory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from privrl.chapter.plotting import band_plot
from privrl.papers.xie2019.figure2 import FIGURE2

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


#: The zoom's domain and series. Section 7: "Figure 2(a) provides a zoomed in view of the same plot
#: [the on-policy Mountain Car comparison] to show the speed with which our algorithm converges
#: when using different privacy settings" (the text's numbering; the seed text captions these
#: panels "Figure 3: Detailed empirical results in mountain car", (a) on-policy). The zoom drops
#: DP-LSW, orders of magnitude above, and keeps GPOPE at each epsilon and LSTD.
ZOOM_DOMAIN = FIGURE2[0]
ZOOM_METHODS = ("GPOPE", "LSTD")


def plot_zoom(ax: Axes, points: pd.DataFrame, where: str) -> pd.DataFrame:
    """Figure 2 a zoomed, from a points table (this run's or the recorded paper-scale run's,
    named by ``where`` in the title): GPOPE at each epsilon and LSTD on :data:`ZOOM_DOMAIN`.

    The paper's axes, as its text states them: MSPBE against the data size n (the number of
    trajectories), mean of the trials with one-standard-deviation error bars. The seed text lost
    the figure itself, so its scales are unknown; both axes are logarithmic here, the only scale
    on which LSTD (about 1e-5) and GPOPE (about 1) are both readable. Returns the plotted means:
    ``method, epsilon, n, mean, std, count``."""
    t = points[(points.domain == ZOOM_DOMAIN) & points.method.isin(ZOOM_METHODS)]
    missing = sorted(set(ZOOM_METHODS) - set(t.method))
    if missing:
        raise ValueError(f"plot_zoom ({where}): no {missing} points on {ZOOM_DOMAIN}")
    plot_points(ax, t, ZOOM_DOMAIN)
    ax.set_title(f"Mountain Car on-policy, zoomed ({where})")
    shown = t.groupby(["method", "epsilon", "n"], dropna=False)["mspbe"].agg(["mean", "std",
                                                                              "count"])
    return shown.reset_index()


def zoom_numbers(shown: pd.DataFrame) -> dict[str, float | int | str]:
    """What a zoom (:func:`plot_zoom`'s table) shows at the largest n where GPOPE and LSTD both
    are: ``n``, LSTD's mean MSPBE ``lstd``, GPOPE's at each epsilon as text (``by_epsilon``) and
    ``ratio``, GPOPE's at the largest epsilon over LSTD's."""
    both = set(shown.n[shown.method == "GPOPE"]) & set(shown.n[shown.method == "LSTD"])
    if not both:
        raise ValueError("zoom_numbers: no n has both GPOPE and LSTD")
    at = shown[shown.n == max(both)]
    gpope = at[at.method == "GPOPE"].sort_values("epsilon")
    lstd = float(at[at.method == "LSTD"]["mean"].iloc[0])
    parts = [f"{m:.3g} at ε = {e:g}" for m, e in zip(gpope["mean"], gpope.epsilon, strict=True)]
    by_epsilon = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return dict(n=int(max(both)), lstd=lstd, by_epsilon=by_epsilon,
                ratio=float(gpope["mean"].iloc[-1]) / lstd)


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


__all__ = ["METHOD_LABELS", "ZOOM_DOMAIN", "ZOOM_METHODS", "plot_points", "plot_schedules",
           "plot_steps", "plot_variance", "plot_zoom", "zoom_numbers"]
