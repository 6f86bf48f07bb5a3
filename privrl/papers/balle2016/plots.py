"""The figures of the chapter: the paper's Figure 1 (four panels), what its claims are decided on
(:func:`plot_decided`, drawn from the record that decides them: :data:`EXHIBITS`) and the noise
rate of Theorem 11, and the table setting the paper's Figure 1 sentences beside the verdicts they
got.

Every figure draws a method in its colour and words of the book (:mod:`privrl.chapter.colours`) and
keeps its legends outside the data (:func:`~privrl.chapter.plotting.legend_outside`)."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privrl.chapter.colours import colour, words
from privrl.chapter.figures import Exhibit, by_label
from privrl.chapter.plotting import band_plot, legend_of, legend_outside, new_figure
from privrl.papers.balle2016.profile import (
    METHODS,
    PAPER,
    PAPER_BATCHES,
    SAME_ACCURACY_FACTOR,
    BalleProfile,
)

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
        band_plot(
            ax1,
            g,
            "m",
            "rmse",
            label=f"{words(meth)}, {feat}",
            color=colour(meth),
            ls=FEATURE_STYLES[feat],
        )
    ax1.set(title="(1) Non-private LSW and LSL")
    tab = df[(df["features"] == "tabular") & df["m"].isin(profile.reg_batch_sizes)]
    styles = dict(zip(sorted(profile.reg_batch_sizes), BATCH_STYLES, strict=False))
    for (m, meth), g in tab[tab["c"].notna()].groupby(["m", "method"]):
        band_plot(
            ax2,
            g,
            "c",
            "rmse",
            label=f"{words(meth)}, m = {m}",
            color=colour(meth),
            ls=styles.get(m, ":"),
        )
    for (m, meth), g in tab[tab["c"].isna()].groupby(["m", "method"]):
        ax2.axhline(
            g["rmse"].mean(),
            ls=":" if styles.get(m) == "-" else (0, (1, 4)),
            lw=1.4,
            color=colour(meth),
            label=f"{words(meth)}, m = {m} (no c)",
        )
    ax2.set(title="(2) Regularisation of LSL (tabular)", xlabel="regularisation constant c")
    d = df[(df["features"] == "aggregated") & df["default_c"]]
    for meth, g in d.groupby("method"):
        band_plot(ax3, g, "m", "rmse", label=words(meth), color=colour(meth))
    ax3.set(title="(3) All methods (aggregated)")
    d = df[df["method"].isin(["DP-LSW", "DP-LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(
            ax4,
            g,
            "m",
            "excess_risk",
            label=f"{words(meth)}, {feat}",
            color=colour(meth),
            ls=FEATURE_STYLES[feat],
        )
    ax4.set(title="(4) Excess empirical risk", ylabel="excess empirical risk")
    for ax in (ax1, ax3, ax4):
        ax.set_xlabel("batch size m (trajectories)")
    for ax in (ax1, ax2, ax3):
        ax.set_ylabel("RMSE of the estimate")
    for ax in (ax1, ax2, ax3, ax4):
        ax.set(xscale="log", yscale="log")
        legend_outside(ax)
    return fig


def _compared(ax: Axes, sizes: tuple[int, int]) -> None:
    """The smallest and the largest batch size, the two the claims compare, as grey lines."""
    for m in sizes:
        ax.axvline(m, color="grey", lw=1.0, ls="-", alpha=0.6, zorder=0)


def plot_decided(df: pd.DataFrame) -> Figure:
    """What the claims of Section 6 are decided on, one panel per quantity they compare (mean
    over the trials of ``df``, standard-error bands; colour = method, line style =
    representation; grey lines: the smallest and the largest batch size, the two the claims
    compare): (a) RMSE of LSW and LSL; (b) RMSE of every method on aggregated features, with
    the factor :data:`~privrl.papers.balle2016.profile.SAME_ACCURACY_FACTOR` above each
    non-private one that "the same solution" is read as (dotted); (c) the DP noise scale
    sigma_X on aggregated features; (d) the excess empirical risk of DP-LSW and DP-LSL. One
    legend below the panels."""
    fig, grid = new_figure(2, 2, width=3.4, height=2.6)
    (ax_a, ax_b), (ax_c, ax_d) = grid
    main = df[df["default_c"]]
    agg = main[main["features"] == "aggregated"]
    for (feat, meth), g in main[main["method"].isin(["LSW", "LSL"])].groupby(
        ["features", "method"]
    ):
        band_plot(ax_a, g, "m", "rmse", color=colour(meth), ls=FEATURE_STYLES[feat])
    for meth, g in agg.groupby("method"):
        band_plot(ax_b, g, "m", "rmse", color=colour(meth), ls=FEATURE_STYLES["aggregated"])
    for meth in ("LSW", "LSL"):
        level = agg[agg["method"] == meth].groupby("m")["rmse"].mean() * SAME_ACCURACY_FACTOR
        ax_b.plot(level.index, level.to_numpy(), color=colour(meth), ls=":", lw=1.4)
    for meth, g in agg[agg["method"].isin(["DP-LSW", "DP-LSL"])].groupby("method"):
        band_plot(ax_c, g, "m", "sigma", color=colour(meth), ls=FEATURE_STYLES["aggregated"])
    private = main[main["method"].isin(["DP-LSW", "DP-LSL"])]
    for (feat, meth), g in private.groupby(["features", "method"]):
        band_plot(ax_d, g, "m", "excess_risk", color=colour(meth), ls=FEATURE_STYLES[feat])
    sizes = (int(df["m"].min()), int(df["m"].max()))
    titles = (
        "(a) Non-private LSW and LSL",
        "(b) Every method, aggregated",
        "(c) DP noise scale, aggregated",
        "(d) Excess empirical risk",
    )
    ylabels = (
        "RMSE of the estimate",
        "RMSE of the estimate",
        r"noise scale $\sigma_X$",
        "excess empirical risk",
    )
    for ax, title, ylabel in zip((ax_a, ax_b, ax_c, ax_d), titles, ylabels, strict=True):
        _compared(ax, sizes)
        ax.set(
            xscale="log",
            yscale="log",
            title=title,
            ylabel=ylabel,
            xlabel="batch size m (trajectories)",
        )
    handles = [Line2D([], [], color=colour(m), label=words(m)) for m in METHODS]
    handles += [
        Line2D([], [], color="black", ls=FEATURE_STYLES[f], label=f"{f} features")
        for f in ("tabular", "aggregated")
    ]
    handles += [
        Line2D(
            [],
            [],
            color="black",
            ls=":",
            label=f"{SAME_ACCURACY_FACTOR:g} x non-private RMSE (same solution)",
        ),
        Line2D([], [], color="grey", alpha=0.6, label="batch sizes compared"),
    ]
    legend_of(fig, handles, ncol=3)
    return fig


def plot_noise_rate(rate: pd.DataFrame) -> Figure:
    """DP-LSW's noise variance d sigma_X^2 against m (Theorem 11), the paper's range shaded."""
    fig, axes = new_figure(1, 1, width=6.4, height=3.2)
    ax = axes[0, 0]
    for feat, g in rate.groupby("features"):
        ax.loglog(
            g["m"],
            g["noise_var"],
            marker="o",
            ms=2,
            color=colour("DP-LSW"),
            ls=FEATURE_STYLES.get(feat, ":"),
            label=f"{words('DP-LSW')}, {feat}",
        )
    ax.axvspan(
        min(PAPER_BATCHES), max(PAPER_BATCHES), color="grey", alpha=0.2, label="paper's batch sizes"
    )
    ax.set(xlabel="batch size m (trajectories)", ylabel=r"noise variance $d\,\sigma_X^2$")
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

#: The figure the claims are decided on, drawn from the record that decides them (the paper
#: profile's per-trial table: 20 trials per batch size).
EXHIBITS: dict[str, Exhibit] = by_label(
    Exhibit(
        "fig-balle2016-decided",
        f"{PAPER}-paper",
        {"figure1": f"{PAPER}-paper-results.csv"},
        "_paper",
        lambda data: plot_decided(data["figure1"]),
    ),
)


__all__ = ["EXHIBITS", "FIGURE1_SENTENCES", "plot_decided", "plot_figure1", "plot_noise_rate"]
