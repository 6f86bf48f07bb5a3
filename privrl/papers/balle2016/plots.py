"""The figures of the chapter: the paper's Figure 1 (four panels) and the noise rate of Theorem 11."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from privrl.chapter.plotting import band_plot, new_figure
from privrl.papers.balle2016.profile import PAPER_BATCHES, BalleProfile


def plot_figure1(df: pd.DataFrame, profile: BalleProfile) -> Figure:
    """The four panels of the paper's Figure 1 (mean over trials, standard-error bands)."""
    fig, grid = new_figure(2, 2, width=3.6, height=2.9)
    ax1, ax2, ax3, ax4 = grid.ravel()
    d = df[df["method"].isin(["LSW", "LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(ax1, g, "m", "rmse", label=f"{meth} ({feat})")
    ax1.set(title="(1) Non-private LSW and LSL")
    tab = df[(df["features"] == "tabular") & df["m"].isin(profile.reg_batch_sizes)]
    for (m, meth), g in tab[tab["c"].notna()].groupby(["m", "method"]):
        band_plot(ax2, g, "c", "rmse", label=f"{meth}, m = {m}")
    for (m, meth), g in tab[tab["c"].isna()].groupby(["m", "method"]):
        ax2.axhline(g["rmse"].mean(), ls="--", lw=1, color="k" if meth == "LSW" else "grey",
                    label=f"{meth}, m = {m}")
    ax2.set(title="(2) Regularisation (tabular)", xlabel="regularisation constant c")
    d = df[(df["features"] == "aggregated") & df["default_c"]]
    for meth, g in d.groupby("method"):
        band_plot(ax3, g, "m", "rmse", label=meth)
    ax3.set(title="(3) All methods (aggregated)")
    d = df[df["method"].isin(["DP-LSW", "DP-LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(ax4, g, "m", "excess_risk", label=f"{meth} ({feat})")
    ax4.set(title="(4) Excess empirical risk", ylabel="excess empirical risk")
    for ax in (ax1, ax3, ax4):
        ax.set_xlabel("batch size m (trajectories)")
    for ax in (ax1, ax2, ax3):
        ax.set_ylabel("RMSE of the value estimate")
    for ax in (ax1, ax2, ax3, ax4):
        ax.set(xscale="log", yscale="log")
        ax.legend(fontsize=8, ncol=2 if ax is ax2 else 1)
    return fig


def plot_noise_rate(rate: pd.DataFrame) -> Figure:
    """DP-LSW's noise variance d sigma_X^2 against m (Theorem 11), the paper's range shaded."""
    fig, axes = new_figure(1, 1, width=5.0, height=3.2)
    ax = axes[0, 0]
    for feat, g in rate.groupby("features"):
        ax.loglog(g["m"], g["noise_var"], marker="o", ms=2, label=f"DP-LSW ({feat})")
    ax.axvspan(min(PAPER_BATCHES), max(PAPER_BATCHES), color="grey", alpha=0.2,
               label="paper's batch sizes")
    ax.set(xlabel="batch size m (trajectories)",
           ylabel=r"noise variance $d\,\sigma_X^2$ at expected counts")
    ax.legend(fontsize=8)
    return fig
