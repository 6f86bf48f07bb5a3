"""The figures of the chapter: the paper's Figure 1 (four panels) and the noise rate of Theorem 11,
and the table setting the paper's Figure 1 sentences beside the verdicts they got.

Every figure keeps one colour per method (:func:`~privrl.chapter.plotting.method_colours`) and its
legends beside the data (:func:`~privrl.chapter.plotting.legend_outside`)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from privrl.chapter.plotting import band_plot, legend_outside, method_colours, new_figure
from privrl.papers.balle2016.profile import METHODS, PAPER_BATCHES, BalleProfile

#: One colour per method, the same in every figure of the chapter.
COLOURS = method_colours(METHODS)
#: Line style of each representation (and, in panel 2, of each batch size).
FEATURE_STYLES = {"tabular": "-", "aggregated": "--"}
BATCH_STYLES = ("-", "--")


def plot_figure1(df: pd.DataFrame, profile: BalleProfile) -> Figure:
    """The four panels of the paper's Figure 1, one above the other (mean over trials,
    standard-error bands), each with its legend beside it: colour = method, line style =
    representation (panel 2: batch size; the regulariser-free LSW and DP-LSW as dotted levels)."""
    fig, grid = new_figure(4, 1, width=6.4, height=2.5)
    ax1, ax2, ax3, ax4 = grid.ravel()
    d = df[df["method"].isin(["LSW", "LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(ax1, g, "m", "rmse", label=f"{meth}, {feat}", color=COLOURS[meth],
                  ls=FEATURE_STYLES[feat])
    ax1.set(title="(1) Non-private LSW and LSL")
    tab = df[(df["features"] == "tabular") & df["m"].isin(profile.reg_batch_sizes)]
    styles = dict(zip(sorted(profile.reg_batch_sizes), BATCH_STYLES, strict=False))
    for (m, meth), g in tab[tab["c"].notna()].groupby(["m", "method"]):
        band_plot(ax2, g, "c", "rmse", label=f"{meth}, m = {m}", color=COLOURS[meth],
                  ls=styles.get(m, ":"))
    for (m, meth), g in tab[tab["c"].isna()].groupby(["m", "method"]):
        ax2.axhline(g["rmse"].mean(), ls=":" if styles.get(m) == "-" else (0, (1, 4)), lw=1.4,
                    color=COLOURS[meth], label=f"{meth}, m = {m} (no c)")
    ax2.set(title="(2) Regularisation of LSL (tabular)", xlabel="regularisation constant c")
    d = df[(df["features"] == "aggregated") & df["default_c"]]
    for meth, g in d.groupby("method"):
        band_plot(ax3, g, "m", "rmse", label=meth, color=COLOURS[meth])
    ax3.set(title="(3) All methods (aggregated)")
    d = df[df["method"].isin(["DP-LSW", "DP-LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(ax4, g, "m", "excess_risk", label=f"{meth}, {feat}", color=COLOURS[meth],
                  ls=FEATURE_STYLES[feat])
    ax4.set(title="(4) Excess empirical risk", ylabel="excess empirical risk")
    for ax in (ax1, ax3, ax4):
        ax.set_xlabel("batch size m (trajectories)")
    for ax in (ax1, ax2, ax3):
        ax.set_ylabel("RMSE of the estimate")
    for ax in (ax1, ax2, ax3, ax4):
        ax.set(xscale="log", yscale="log")
        legend_outside(ax)
    return fig


def plot_noise_rate(rate: pd.DataFrame) -> Figure:
    """DP-LSW's noise variance d sigma_X^2 against m (Theorem 11), the paper's range shaded."""
    fig, axes = new_figure(1, 1, width=6.4, height=3.2)
    ax = axes[0, 0]
    for feat, g in rate.groupby("features"):
        ax.loglog(g["m"], g["noise_var"], marker="o", ms=2, color=COLOURS["DP-LSW"],
                  ls=FEATURE_STYLES.get(feat, ":"), label=f"DP-LSW, {feat}")
    ax.axvspan(min(PAPER_BATCHES), max(PAPER_BATCHES), color="grey", alpha=0.2,
               label="paper's batch sizes")
    ax.set(xlabel="batch size m (trajectories)",
           ylabel=r"noise variance $d\,\sigma_X^2$")
    legend_outside(ax)
    return fig


#: The sentences of Section 6 on Figure 1 (keys of ``book/paper_numbers/balle2016.yml``) and the
#: claims of the chapter that decide them.
FIGURE1_SENTENCES: dict[str, tuple[str, ...]] = {
    "fig1_nonprivate_converge": ("nonprivate_converge", "lsw_faster"),
    "fig1_dp_reach_nonprivate": ("dp_lsw_reaches_lsw", "dp_lsl_reaches_lsl"),
    "fig1_lsl_small_lsw_large": ("dp_lsl_better_small", "dp_lsw_better_large"),
    "fig1_schedule_best_accuracy": ("lsl_schedule",),
    "fig1_aggregation_helps": ("aggregation_helps_dp_lsw", "aggregation_helps_dp_lsl"),
    "fig1_noise_decreases": ("dp_noise_decreases",),
}



__all__ = ["COLOURS", "FIGURE1_SENTENCES", "plot_figure1", "plot_noise_rate"]
