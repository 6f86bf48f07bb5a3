"""Figures of ono2020: Tables 1-3 beside the paper's (:func:`plot_tables`), Figure 2 (average
score, eq. 25), Figure 3 (success ratio, eq. 27) and the per-report statistics of training.

House style (:mod:`privrl.chapter.plotting`): constrained layout (no figure calls
``tight_layout``), one legend per figure outside the data, each mechanism (Laplace, PRS), arm and
epsilon in its colour of the book (:mod:`privrl.chapter.colours`), and the numbers the paper
prints (Tables 1-3, ``book/paper_numbers/ono2020.yml``) drawn as hollow black diamonds where they
map to a point:
a Table 2 success ratio is Figure 3's curve at the budget, a Table 1 median first success time
the number of submissions at which that curve reaches one half.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from privrl.chapter.colours import colour as book_colour
from privrl.chapter.colours import epsilon_colour
from privrl.chapter.figures import Exhibit, by_label
from privrl.chapter.plotting import (
    band_plot,
    in_words,
    legend_below,
    legend_outside,
    mark_paper,
    new_figure,
)
from privrl.core.algorithms.a3c import DEFAULT_CLIP
from privrl.papers.ono2020.page import TABLE_EPSILONS as EPSILONS
from privrl.papers.ono2020.page import paper_cell
from privrl.papers.ono2020.profile import (
    CURVES_CSV,
    PAPER_CAP,
    RECORD_JSON,
    REFERENCE_CURVES_CSV,
    REFERENCE_RECORD_JSON,
    REFERENCE_TRIALS_CSV,
    TARGET,
    TRIALS_CSV,
    eps_label,
)
from privrl.papers.ono2020.recorded import recorded_curves
from privrl.papers.ono2020.sources import PAPER_RUN, REFERENCE_RUN, TUNED_RUN
from privrl.papers.ono2020.tables import success_tables
from privrl.papers.ono2020.trials import REFERENCE
from privrl.papers.ono2020.tuning import TUNED_FILES, TUNED_RECORD_JSON, decided_trials

MECHANISMS = ("laplace", "prs")
#: Buffer size of each mechanism in Tables 1-3 and Figure 3 (section 4.1).
TABLE_BUFFER = {"laplace": 1, "prs": 100}
#: Tables 1-3 as panels: our column and its axis label.
METRICS = {
    "success_ratio": "success ratio at the budget (Table 2)",
    "median_fst": "median first success time (Table 1)",
    "relative_auc": "AUC relative to no noise (Table 3)",
}
PAPER_TABLES_LABEL = "paper: Tables 1-3"


def mechanism_colours() -> dict[str, str]:
    """Laplace and PRS in their colours of the book (:mod:`privrl.chapter.colours`)."""
    return {m: book_colour(m) for m in MECHANISMS}


def _eps_ticks(ax: Axes) -> None:
    ax.set_xticks(range(len(EPSILONS)), ["1", "2", "5", "10", "no\nnoise"])
    ax.set_xlim(-0.5, len(EPSILONS) - 0.5)


def plot_tables(tables: pd.DataFrame, variant: str, budget: int) -> Figure:
    """Tables 1-3 of one set-up (``variant`` rows of :func:`.tables.success_tables` at
    ``budget``) beside the paper's: per epsilon and mechanism, our success ratio and median
    first success time with their 95% intervals, and our relative AUC, as coloured points; the
    paper's cells as hollow black diamonds. A median not reached within the budget (most trials
    failed) is drawn as a triangle on the budget's dashed line; a relative AUC is undefined
    (not drawn, said in the panel) when the set-up's no-noise AUC is 0."""
    fig, axes = new_figure(1, 3, width=3.3, height=3.4)
    colours = mechanism_colours()
    rows = tables[tables.variant == variant]
    for ax, (metric, ylabel) in zip(axes[0], METRICS.items(), strict=True):
        for offset, mech in zip((-0.12, 0.12), MECHANISMS, strict=True):
            _draw_ours(
                ax,
                rows[rows.mechanism == mech],
                metric,
                offset,
                colours[mech],
                f"{in_words(mech)} (|B| = {TABLE_BUFFER[mech]}), ours",
                budget,
            )
            xs = [
                i + offset
                for i, e in enumerate(EPSILONS)
                if paper_cell(metric, mech, e) is not None
            ]
            ys = [
                paper_cell(metric, mech, e)
                for e in EPSILONS
                if paper_cell(metric, mech, e) is not None
            ]
            mark_paper(ax, xs, ys, label=PAPER_TABLES_LABEL)
        _eps_ticks(ax)
        ax.set_ylabel(ylabel)
    ax_ratio, ax_fst, ax_auc = axes[0]
    ax_ratio.set_ylim(-0.03, 1.05)
    ax_fst.set_yscale("log")
    ax_fst.axhline(budget, color="grey", ls="--", lw=1, label=f"budget {budget:,} submissions")
    ax_fst.plot([], [], "^", color="grey", label="ours: median not reached")
    if rows.relative_auc.isna().all():
        ax_auc.text(
            0.5,
            0.2,
            "ours undefined:\nno-noise AUC is 0",
            transform=ax_auc.transAxes,
            ha="center",
            va="center",
        )
    ax_auc.set_ylim(-0.03, 1.1)
    fig.supxlabel("ε (local privacy budget of one report)")
    legend_outside(fig)
    return fig


def plot_tuned_tables(recorded: Mapping[str, Any]) -> Figure:
    """Tables 1-3 on the reference set-up from the record that decides its claims (frames of
    :data:`~privrl.papers.ono2020.tuning.TUNED_FILES` and the run record): each private arm at
    its step with the most tuning successes, the baseline at its own
    (:func:`~privrl.papers.ono2020.tuning.decided_trials`), at the record's budget
    (:func:`plot_tables`)."""
    budget = int(recorded["record"]["parameters"]["n_submissions"])
    tables = success_tables(decided_trials(recorded), budget, reference=REFERENCE)
    return plot_tables(tables, REFERENCE, budget)


def plot_paper_tables(recorded: Mapping[str, Any]) -> Figure:
    """Tables 1-3 on the paper's set-up as stated from the record that decides its claims (the
    frame ``trials`` of :data:`~privrl.papers.ono2020.profile.TRIALS_CSV` and the run record), at
    the record's budget (:func:`plot_tables`)."""
    budget = int(recorded["record"]["parameters"]["n_submissions"])
    return plot_tables(success_tables(recorded["trials"], budget), "paper", budget)


def plot_reference_tables(recorded: Mapping[str, Any]) -> Figure:
    """Tables 1-3 on the reference set-up from its sweep-step record (the frame ``trials`` of
    :data:`~privrl.papers.ono2020.profile.REFERENCE_TRIALS_CSV`, each arm at the step its sweep
    chose, and the run record), at the record's budget (:func:`plot_tables`)."""
    budget = int(recorded["record"]["parameters"]["n_submissions"])
    tables = success_tables(recorded["trials"], budget, reference=REFERENCE)
    return plot_tables(tables, REFERENCE, budget)


def plot_recorded_figure2(recorded: Mapping[str, Any]) -> Figure:
    """Figure 2 (:func:`plot_figure2`) from a record's curves CSV (frame ``curves``, the buffer
    size in its variant label: :func:`~privrl.papers.ono2020.recorded.recorded_curves`)."""
    return plot_figure2(recorded_curves(recorded["curves"]))


def _draw_ours(
    ax: Axes, rows: pd.DataFrame, metric: str, offset: float, colour: str, label: str, budget: int
) -> None:
    """One mechanism's cells of ``metric`` at x = epsilon's column + ``offset``."""
    by_eps = rows.set_index("epsilon")
    for i, eps in enumerate(EPSILONS):
        if eps not in by_eps.index:
            continue
        r = by_eps.loc[eps]
        x = i + offset
        if metric == "success_ratio":
            ax.errorbar(
                x,
                r.success_ratio,
                yerr=[[r.success_ratio - r.success_lo], [r.success_hi - r.success_ratio]],
                fmt="o",
                color=colour,
                capsize=3,
                label=label,
            )
        elif metric == "median_fst" and np.isfinite(r.median_fst):
            hi = min(r.median_fst_hi, budget)
            ax.errorbar(
                x,
                r.median_fst,
                yerr=[[r.median_fst - r.median_fst_lo], [hi - r.median_fst]],
                fmt="o",
                color=colour,
                capsize=3,
                label=label,
            )
        elif metric == "median_fst":
            ax.plot(x, budget, "^", color=colour, label=label)
        elif np.isfinite(r.relative_auc):
            ax.plot(x, r.relative_auc, "o", color=colour, label=label)


def _thousands(ax: Axes) -> None:
    """Submissions on the x axis with thousands separators (90,000), at most four ticks."""
    ax.xaxis.set_major_locator(MaxNLocator(nbins=3, steps=[1, 3, 5, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))


def plot_figure2(curves: pd.DataFrame) -> Figure:
    """Figure 2: average score (eq. 25) over submissions, Laplace and PRS at epsilon = 1, with
    and without the buffer (mean over trials, band = one standard error)."""
    fig, axes = new_figure(1, 2, sharey=True, width=3.6, height=3.2)
    for ax, mech in zip(axes[0], MECHANISMS, strict=True):
        rows = curves[curves.mechanism == mech]
        for size, g in rows.groupby("buffer_size"):
            band_plot(
                ax,
                g,
                "submission",
                "avg_score",
                label=f"|B| = {size}",
                color=book_colour(f"buffer {int(size)}"),
            )
        ax.axhline(TARGET, color="k", ls=":", lw=1, label="target 195")
        ax.set_title(f"{in_words(mech)}, ε = 1")
        ax.set_xlabel("submissions")
        _thousands(ax)
    axes[0][0].set_ylabel("average score of the last 10 episodes")
    axes[0][1].set_ylabel("")
    legend_outside(fig)
    return fig


def plot_figure3(
    success_curves: pd.DataFrame, variant: str = "paper", budget: int | None = None
) -> Figure:
    """Figure 3: success ratio (eq. 27) against the number of submissions, per epsilon, of
    ``variant`` (the paper's set-up, or the reference set-up). At the paper's budget
    (``budget`` = 90,000) the paper's Table 2 is marked there, each diamond labelled with its
    epsilons."""
    fig, axes = new_figure(1, 2, sharey=True, width=3.6, height=3.2)
    rows = success_curves[success_curves.variant == variant]
    for ax, mech in zip(axes[0], MECHANISMS, strict=True):
        for eps, g in rows[rows.mechanism == mech].groupby("epsilon"):
            ax.step(
                g.submission,
                g.success_ratio,
                where="post",
                label=eps_label(eps),
                color=epsilon_colour(float(eps)),
            )
        if budget == PAPER_CAP:
            _mark_tables_on_curves(ax, mech)
        ax.set_title(f"{in_words(mech)} (|B| = {TABLE_BUFFER[mech]})")
        ax.set_xlabel("submissions")
        ax.set_ylim(-0.03, 1.05)
        _thousands(ax)
    axes[0][0].set_ylabel("fraction of trials that succeeded")
    legend_outside(fig)
    return fig


def _mark_tables_on_curves(ax: Axes, mech: str) -> None:
    """The paper's Table 2 ratios of ``mech`` at x = 90,000 (the budget they are counted at),
    each diamond labelled with its epsilons (equal ratios share one diamond)."""
    at: dict[float, list[str]] = {}
    for eps in EPSILONS:
        ratio = paper_cell("success_ratio", mech, eps)
        if ratio is not None:
            at.setdefault(ratio, []).append("∞" if math.isinf(eps) else f"{eps:g}")
    mark_paper(ax, [PAPER_CAP] * len(at), list(at), label="paper: Table 2 (ε beside)")
    ax.set_xlim(right=1.3 * PAPER_CAP)  # room for the labels
    for ratio, names in at.items():
        ax.annotate(
            ", ".join(names),
            (PAPER_CAP, ratio),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )


def _deviation_label(variant: str, last: float, end: float) -> str:
    """A deviation of the failure figure in words (the caption says none is the paper's); one
    whose statistics stop early (no clip: its gradients overflow) says where."""
    words = in_words(variant)
    return words if last >= end else f"{words} (statistics end at {last:,.0f})"


def plot_failure(diagnostics: pd.DataFrame) -> Figure:
    """Four panels over training (mean over trials): raw report L1 norms (median, band 10-90%)
    against the clip C/2 (eq. 19); the L1 size of each applied update (eq. 22); the actor's share
    of the gradient; the fraction of steps taking the episode's most frequent action, with the
    deviations (dashed) that have such statistics."""
    fig, axes = new_figure(2, 2, width=3.2, height=2.6)
    ax_norm, ax_update, ax_share, ax_major = axes.ravel()
    paper_rows = diagnostics[diagnostics.variant == "paper"]
    for eps, g in paper_rows.groupby("epsilon"):
        mean = g.groupby("submission").mean(numeric_only=True)
        label = f"paper's set-up, {eps_label(eps)}"
        colour = epsilon_colour(float(eps))
        ax_norm.plot(mean.index, mean["raw_norm_q50"], label=label, color=colour)
        ax_norm.fill_between(
            mean.index, mean["raw_norm_q10"], mean["raw_norm_q90"], color=colour, alpha=0.2, lw=0
        )
        ax_update.plot(mean.index, mean["update_norm"], label=label, color=colour)
        ax_share.plot(mean.index, mean["actor_share"], label=label, color=colour)
        ax_major.plot(mean.index, mean["majority_fraction"], label=label, color=colour)
    deviations = diagnostics[diagnostics.variant != "paper"]
    end = diagnostics.submission.max()
    for variant, g in deviations.groupby("variant"):
        mean = g.groupby("submission").mean(numeric_only=True)["majority_fraction"].dropna()
        if mean.empty:  # nothing to draw: no entry in the legend
            continue
        ax_major.plot(
            mean.index,
            mean.to_numpy(),
            ls="--",
            color=book_colour(variant),
            label=_deviation_label(variant, mean.index.max(), end),
        )
    ax_norm.axhline(DEFAULT_CLIP["laplace"] / 2, color="grey", ls=":", label="clip C/2 = 0.005")
    ax_norm.set_yscale("log")
    ax_norm.set_ylabel("gradient L1 norm\nbefore the clip")
    ax_update.set_yscale("log")
    ax_update.set_ylabel("L1 size of the\napplied update")
    ax_share.set_ylabel("actor's share of\nthe gradient's L1 norm")
    ax_share.set_ylim(0, 1)
    ax_major.set_ylabel("fraction of steps with\nthe most frequent action")
    for ax in axes.ravel():
        ax.set_xlabel("submissions")
    legend_outside(fig)
    return fig


#: How :func:`plot_tuning_curves` marks each arm's steps chosen by the other criterion (the
#: sensitivity reading) and by the claims' own (column of :func:`.tuning.step_scores`).
STEP_MARKS: dict[str, dict[str, Any]] = {
    "chosen_auc": {
        "marker": "o",
        "ms": 12,
        "mfc": "none",
        "color": "0.4",
        "label": "the step of highest mean AUC (sensitivity)",
    },
    "chosen": {
        "marker": "*",
        "ms": 14,
        "color": "k",
        "label": "the chosen step (most tuning successes)",
    },
}


def plot_tuning_curves(scores: pd.DataFrame) -> Figure:
    """The step-size tuning of the reference set-up's private arms
    (:func:`~privrl.papers.ono2020.tuning.step_scores`): per arm, the mean area under the return
    curve (mean score per submission) against the RMSProp step, with its bootstrap 95% interval,
    the chosen step (the most tuning successes) marked and named with its successes in the
    panel's title, and the step of highest mean AUC (the sensitivity reading's) marked."""
    arms = list(dict.fromkeys(scores.sort_values(["mechanism", "epsilon"]).arm))
    words = {r.arm: f"{in_words(r.mechanism)}, ε = {r.epsilon:g}" for r in scores.itertuples()}
    ncols = min(3, len(arms))
    nrows = -(-len(arms) // ncols)
    fig, axes = new_figure(nrows, ncols, width=3.4, height=2.8, sharey=True)
    for ax, label in zip(axes.ravel(), arms, strict=False):
        g = scores[scores.arm == label].sort_values("step_size")
        ax.errorbar(
            g.step_size,
            g.auc,
            yerr=[g.auc - g.auc_lo, g.auc_hi - g.auc],
            marker="o",
            capsize=3,
            label="mean AUC with its 95% interval",
        )
        for column, style in STEP_MARKS.items():
            marked = g[g[column]]
            ax.plot(marked.step_size, marked.auc, ls="none", **style)
        best = g[g.chosen]
        ax.set_xscale("log")
        ax.set_title(
            f"{words[label]}\nchosen {best.step_size.iloc[0]:g}: "
            f"{int(best.successes.iloc[0])} of {int(best.n_trials.iloc[0])} "
            "tuning successes",
            fontsize=9,
        )
        ax.set_xlabel("RMSProp step")
    for ax in axes.ravel()[len(arms) :]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel("mean score\nper submission")
    legend_below(fig)
    return fig


#: The figures the claims are decided on, each drawn from the record that decides them: Tables
#: 1-3 and Figure 2 of the paper's set-up (the paper-profile record), Tables 1-3 and Figure 2 of
#: the reference set-up at its sweep's steps (its record; its curves decide the buffer claims)
#: and Tables 1-3 of the reference set-up at tuned steps (each private arm at its tuned step,
#: 20 fresh trials per arm), whose verdicts win over the sweep-step record's where it has arms.
EXHIBITS: dict[str, Exhibit] = by_label(
    Exhibit(
        "fig-ono2020-tables-paper",
        RECORD_JSON.removesuffix(".json"),
        {"trials": TRIALS_CSV},
        PAPER_RUN.suffix,
        plot_paper_tables,
    ),
    Exhibit(
        "fig-ono2020-figure2-paper",
        RECORD_JSON.removesuffix(".json"),
        {"curves": CURVES_CSV},
        PAPER_RUN.suffix,
        plot_recorded_figure2,
    ),
    Exhibit(
        "fig-ono2020-tables-reference",
        REFERENCE_RECORD_JSON.removesuffix(".json"),
        {"trials": REFERENCE_TRIALS_CSV},
        REFERENCE_RUN.suffix,
        plot_reference_tables,
    ),
    Exhibit(
        "fig-ono2020-figure2-reference",
        REFERENCE_RECORD_JSON.removesuffix(".json"),
        {"curves": REFERENCE_CURVES_CSV},
        REFERENCE_RUN.suffix,
        plot_recorded_figure2,
    ),
    Exhibit(
        "fig-ono2020-tables-tuned",
        TUNED_RECORD_JSON.removesuffix(".json"),
        TUNED_FILES,
        TUNED_RUN.suffix,
        plot_tuned_tables,
    ),
)
