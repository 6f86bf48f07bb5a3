"""The Frontier chapter's figures (plotting computes no number: the tables come from
:mod:`privrl.papers.frontier.analysis`).

* :func:`plot_map` - the winner at every (n, epsilon) of each domain, decided or not, and where
  no method comes within 10x of the non-private error;
* :func:`plot_cost` - what privacy costs each method at one n against epsilon, over its own
  noiseless version and over the non-private estimate, with intervals;
* :func:`plot_errors` - geometric-mean error against n at one epsilon, every method with the
  reference and the zero estimate;
* :func:`plot_gap` - the paired log10 gap between DP-LSW and GPOPE (RDP) on Mountain Car;
* the map, the errors and the cost of privacy are each drawn against both references: the
  non-private estimate and each method's own noiseless version on the same data (its floor).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privrl.chapter.colours import colour, epsilon_colour
from privrl.chapter.plotting import in_words, legend_of, legend_outside, new_figure
from privrl.papers.frontier.analysis import LABELS, log_errors
from privrl.papers.frontier.trials import NOISELESS

#: The colour of every label the figures draw: its method's in every chapter
#: (:mod:`privrl.chapter.colours`; GPOPE under the PLD accountant is GPOPE's).
COLOURS = {label: colour(label) for label in (*LABELS, "reference", "zero", NOISELESS)}
#: The words of a label in a legend.
WORDS = {
    "GPOPE": "GPOPE (PLD)",
    "GPOPE (RDP)": "GPOPE (RDP)",
    "DP-LSW": "DP-LSW",
    "DP-LSL": "DP-LSL",
    "SSP-LSTD": "SSP-LSTD (beyond the papers)",
    "reference": "non-private (LSTD / WIS-LSTD)",
    "zero": "zero estimate",
    NOISELESS: "GPOPE without noise (tuned, at the cap)",
}


def _domains(frame: pd.DataFrame) -> list[str]:
    order = ["chain", "mountain_car_on", "mountain_car_off"]
    return [d for d in order if d in set(frame.domain)]


def _title(domain: str) -> str:
    return "chain" if domain == "chain" else in_words(domain).replace(", ", ",\n")


def _short(n: int) -> str:
    """A data size as a tick label that fits four to a small panel: 10, 100, 1k, 10k."""
    return f"{n // 1000:g}k" if n >= 1000 and n % 1000 == 0 else f"{n:g}"


def plot_map(win: pd.DataFrame) -> Figure:
    """One panel per domain: a square per (n, epsilon) in the winner's colour, filled where the
    win is decided (95% interval of the paired gap to the runner-up above 0), hollow where not;
    a cross where even the winner is beyond 10x of the non-private error (interval above 10x);
    a dot where privacy costs the winner less than 2x over its own noiseless version (interval
    below 2x, on a map with floors)."""
    domains = _domains(win)
    fig, axes = new_figure(1, len(domains), width=3.2, height=3.0)
    for ax, domain in zip(axes[0], domains, strict=True):
        part = win[win.domain == domain]
        sizes, eps = sorted(part.n.unique()), sorted(part.epsilon.unique())
        for r in part.itertuples():
            x, y = sizes.index(r.n), eps.index(r.epsilon)
            colour = COLOURS[r.winner]
            ax.scatter(
                x,
                y,
                s=260,
                marker="s",
                edgecolors=colour,
                linewidths=2,
                facecolors=colour if r.decided else "none",
            )
            if r.frontier == "beyond 10x":
                ax.scatter(x, y, s=60, marker="x", color="black", linewidths=1.5)
            if getattr(r, "within_2x_own", False):
                ax.scatter(
                    x,
                    y,
                    s=14,
                    marker="o",
                    color="white",
                    edgecolors="black",
                    linewidths=0.8,
                    zorder=3,
                )
        ax.set_xticks(range(len(sizes)), [_short(n) for n in sizes])
        ax.set_yticks(range(len(eps)), [f"{e:g}" for e in eps])
        ax.set(
            title=_title(domain),
            xlabel="trajectories n",
            xlim=(-0.6, len(sizes) - 0.4),
            ylim=(-0.6, len(eps) - 0.4),
        )
        ax.grid(False)
    axes[0][0].set_ylabel("epsilon")
    winners = sorted(set(win.winner), key=LABELS.index)
    handles = [
        Line2D(
            [],
            [],
            marker="s",
            linestyle="none",
            markersize=10,
            color=COLOURS[w],
            label=f"{WORDS[w]} wins",
        )
        for w in winners
    ]
    handles += [
        Line2D(
            [],
            [],
            marker="s",
            linestyle="none",
            markersize=10,
            markerfacecolor="none",
            color="grey",
            label="hollow: not decided",
        ),
        Line2D(
            [], [], marker="x", linestyle="none", color="black", label="beyond 10x of non-private"
        ),
    ]
    if "within_2x_own" in win.columns:
        handles.append(
            Line2D(
                [],
                [],
                marker="o",
                linestyle="none",
                markerfacecolor="white",
                color="black",
                markersize=4,
                label="within 2x of its own noiseless version",
            )
        )
    legend_of(fig, handles, loc="outside right upper")
    return fig


def plot_cost(cost: pd.DataFrame, n: int) -> Figure:
    """One panel per domain: what privacy costs each method at ``n`` trajectories against
    epsilon, as the paired log10 ratio of its error to its own noiseless version (solid; GPOPE:
    GPOPE without noise at its own tuned settings) and to the non-private estimate (dashed),
    with 95% intervals; ``cost`` from :func:`~privrl.papers.frontier.analysis.privacy_cost`.
    (It replaces the n-needed-for-2x figure, which drew only "not within 2x" triangles: no
    method comes within 2x of the non-private estimate anywhere on the map.)"""
    part = cost[cost.n == n]
    domains = _domains(part)
    fig, axes = new_figure(1, len(domains), width=3.2, height=3.0)
    for ax, domain in zip(axes[0], domains, strict=True):
        here = part[part.domain == domain]
        for i, (label, g) in enumerate(here.groupby("label", sort=False)):
            g = g.sort_values("epsilon")
            x = g.epsilon.to_numpy(float) * (1 + 0.05 * (i - 1.5))
            for col, style in (("noiseless", "-"), ("total", "--")):
                y = g[col].to_numpy(float)
                ax.errorbar(
                    x,
                    y,
                    yerr=[y - g[f"{col}_lo"], g[f"{col}_hi"] - y],
                    marker="o",
                    markersize=3,
                    capsize=2,
                    color=COLOURS[label],
                    linestyle=style,
                    label=WORDS[label] if style == "-" else None,
                )
        for style, words in (
            ("-", "solid: over its own noiseless version"),
            ("--", "dashed: over the non-private estimate"),
        ):
            ax.plot([], [], color="grey", linestyle=style, label=words)
        ax.axhline(0.0, color="grey", linewidth=0.8)
        ax.axhline(np.log10(2.0), color="grey", linestyle=":", linewidth=0.8)
        ax.set(title=_title(domain), xscale="log", xlabel="epsilon")
    axes[0][0].set_ylabel(f"log10 error ratio at n = {n:,}")
    legend_outside(fig)
    return fig


def plot_errors(points: pd.DataFrame, epsilon: float, metric: str = "rmse") -> Figure:
    """One panel per domain: the geometric-mean error (over replicates) against n at
    ``epsilon``, every method beside the non-private reference, the zero estimate and GPOPE
    without noise at its own tuned settings (dashed), and, on a map with floors, each method's
    own noiseless version on the same data (dotted, in its colour)."""
    logs = log_errors(points, metric)
    logs = logs[logs.index.get_level_values("epsilon") == epsilon]
    floors = None
    if f"floor_{metric}" in points.columns:
        floors = log_errors(points.assign(**{metric: points[f"floor_{metric}"]}), metric)
        floors = floors[floors.index.get_level_values("epsilon") == epsilon]
    domains = _domains(points)
    fig, axes = new_figure(1, len(domains), width=3.2, height=3.0)
    for ax, domain in zip(axes[0], domains, strict=True):
        part = logs[logs.index.get_level_values("domain") == domain]
        means = part.groupby(level="n").mean()
        for label in [*LABELS, "reference", "zero", NOISELESS]:
            if label in means.columns and means[label].notna().any():
                ax.plot(
                    means.index,
                    10 ** means[label],
                    marker="o",
                    color=COLOURS[label],
                    linestyle="--" if label in ("reference", "zero", NOISELESS) else "-",
                    label=WORDS[label],
                )
            if floors is not None and label in LABELS and label in floors.columns:
                floor = floors[floors.index.get_level_values("domain") == domain]
                floor = floor.groupby(level="n").mean()[label]
                if floor.notna().any():
                    ax.plot(
                        floor.index,
                        10**floor,
                        marker=".",
                        color=COLOURS[label],
                        linestyle=":",
                        linewidth=1,
                    )
        ax.set(title=_title(domain), xscale="log", yscale="log", xlabel="trajectories n")
    axes[0][0].set_ylabel(
        {"rmse": "value RMSE", "rmse_clipped": "value RMSE, clipped"}.get(metric, "MSPBE")
    )
    legend_outside(fig)
    return fig


def plot_gap(gap: pd.DataFrame) -> Figure:
    """The paired log10 MSPBE gap DP-LSW minus GPOPE (RDP) on on-policy Mountain Car against n,
    one line per epsilon, with its 95% interval."""
    fig, axes = new_figure(width=4.2, height=3.0)
    ax = axes[0][0]
    for eps, g in gap.groupby("epsilon"):
        g = g.sort_values("n")
        ax.errorbar(
            g.n,
            g.gap,
            yerr=[g.gap - g.gap_lo, g.gap_hi - g.gap],
            marker="o",
            capsize=2,
            color=epsilon_colour(float(eps)),
            label=f"ε = {eps:g}",
        )
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1.0, label="one order of magnitude")
    ax.set(xscale="log", xlabel="trajectories n", ylabel="log10 MSPBE gap")
    legend_outside(ax)
    return fig


__all__ = ["COLOURS", "WORDS", "plot_cost", "plot_errors", "plot_gap", "plot_map"]


def cost_table(cost: pd.DataFrame) -> pd.DataFrame:
    """What privacy costs at the map's largest n (:func:`~privrl.papers.frontier.analysis.
    privacy_cost` rows), for reading: per domain, method and epsilon, each part of the error in
    log10 value RMSE as "mean (95% interval)"."""
    top = cost[cost.n == cost.n.max()]

    def span(column: str) -> list[str]:
        return [
            f"{m:.2f} ({lo:.2f} to {hi:.2f})"
            for m, lo, hi in zip(top[column], top[f"{column}_lo"], top[f"{column}_hi"], strict=True)
        ]

    return pd.DataFrame(
        {
            "domain": top.domain.map(in_words).to_numpy(),
            "method": top.label.map(WORDS).to_numpy(),
            "epsilon": top.epsilon.to_numpy(),
            "over its own noiseless version": span("noiseless"),
            "noise alone, at its settings": span("own"),
            "noiseless version over non-private": span("free"),
            "over non-private": span("total"),
        }
    )
