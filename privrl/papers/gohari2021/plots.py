"""Gohari et al. (2021): the chapter's figures (Figure 2 from live or recorded curves, the
speed-up against the paper's "roughly 4 times", Theorem 1 over k with the paper's (4.46, 0.05),
the AirRaid teacher, the radii of Lemma 1, times to threshold, the students' diagnostics).

Every legend is outside the data (:func:`~privrl.chapter.plotting.legend_outside`, or under its
panel), every configuration has one colour in every figure (:data:`COLOURS`), and the paper's
stated numbers are drawn with :func:`~privrl.chapter.plotting.mark_paper`. The paper's
sentences a figure is evidence for are quoted under it with
:func:`privrl.chapter.sentences.sentences_list`. The figures and tables the claims are decided on
are drawn from the two records (:data:`EXHIBITS`)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from privrl.chapter.colours import check_legend, colour, words
from privrl.chapter.figures import Exhibit, by_label
from privrl.chapter.paper_numbers import paper_number
from privrl.chapter.plotting import (
    legend_below,
    legend_outside,
    mark_paper,
    new_figure,
)
from privrl.papers.gohari2021 import theory
from privrl.papers.gohari2021.claims import RECORD_SOURCES, query_budget, random_play_condition
from privrl.papers.gohari2021.profile import AWARE, PAPER, UNAWARE, GohariProfile
from privrl.papers.gohari2021.recorded import (
    DESIGN,
    HORIZON,
    RecordedAnalysis,
    curves_csv,
    recorded_analysis,
)
from privrl.papers.gohari2021.state import AirRaidTeacher, RolloutCost

#: Every configuration Figure 2 and the diagnostics draw, each in its colour of the book
#: (:mod:`privrl.chapter.colours`) in every figure.
CONFIGS = (
    "PPO (64, 64)",
    "PPO (32, 32)",
    "kickstarting",
    "aware, c = 0.1",
    AWARE,
    UNAWARE,
    "unaware, c = 0.9",
    f"{AWARE}, union radius",
    f"{AWARE}, printed radius",
    f"{AWARE}, teacher silent after budget",
)
COLOURS = {c: colour(c) for c in CONFIGS}


def panel_labels(curves: pd.DataFrame, panel: str, student_label: str) -> list[str]:
    """The curves drawn in ``panel``: its own, with the student-sized plain PPO in (b)-(d), and
    the printed-radius student beside the union-radius one."""
    own = list(curves.loc[curves["panel"] == panel, "label"].unique())
    if panel in ("b", "c", "d"):
        return [student_label, *own]
    if panel in ("radius", "after budget"):
        return ["aware, c = 0.3", *own] if own else []
    return own


PANELS = (
    ("a", "(a) teacher vs student size"),
    ("b", "(b) kickstarting, no privacy"),
    ("c", "(c) privacy-aware"),
    ("d", "(d) privacy-unaware"),
    ("radius", "aware c = 0.3: radius of Lemma 1"),
    ("after budget", "aware c = 0.3: after the budget"),
)

#: The diagnostics of :func:`plot_diagnostics` (column, axis label).
DIAGNOSTICS = (
    ("penalised_fraction", "answers penalised by (16)"),
    ("aux_grad_share", "penalty's share of the gradient"),
    ("entropy", "policy entropy (nats)"),
)


def figure2_titles(
    budget: pd.DataFrame,
    curves: pd.DataFrame,
    lam: float,
    panels: tuple[tuple[str, str], ...] | None = None,
) -> dict[str, str]:
    """Panel titles (``panels``: (panel, text) pairs, Figure 2's by default) stating the
    teacher's total privacy spent per run (basic composition,
    :func:`~privrl.papers.gohari2021.runs.budget_table`)."""
    spent = budget.set_index("config") if len(budget) else budget
    titles = {}
    for panel, text in panels or PANELS:
        if panel == "c":
            text += f", lambda = {lam}"
        own = [
            lab
            for lab in curves.loc[curves["panel"] == panel, "label"].unique()
            if lab in spent.index
        ]
        if not own:
            extra = "teacher: no privacy (epsilon = inf)" if panel == "b" else "no teacher"
        else:
            extra = "teacher's spend per run (eps, delta):\n" + "\n".join(
                f"{lab.split(', ')[-1] if ', ' in lab else lab}: "
                f"({spent.loc[lab, 'basic_epsilon']:.0f}, {spent.loc[lab, 'basic_delta']:.2f})"
                for lab in own
            )
        titles[panel] = f"{text}\n{extra}"
    return titles


def plot_figure2(curves: pd.DataFrame, titles: dict[str, str], student_hidden: int):
    """Figure 2 (a)-(d) and the radius comparison from
    :func:`~privrl.papers.gohari2021.curves.figure2_curves` (live) or
    :func:`~privrl.papers.gohari2021.curves.band95` (recorded), two panels a row, each with its
    legend under it (outside the data); a panel without curves of its own (e.g. the radius arms
    of a recorded design without them) is not drawn. ``titles`` (panel -> title) default to
    :data:`PANELS`' words."""
    student = f"PPO ({student_hidden}, {student_hidden})"
    panels = [(panel, text) for panel, text in PANELS if (curves["panel"] == panel).any()]
    fig, axes = new_figure(max(1, math.ceil(len(panels) / 2)), 2, width=3.6, height=3.3)
    for ax, (panel, text) in zip(axes.flat, panels, strict=False):
        labels = panel_labels(curves, panel, student)
        for label in labels:
            g = curves[curves["label"] == label].sort_values("env_steps")
            ax.plot(g["env_steps"], g["center"], color=colour(label), label=label)
            ax.fill_between(
                g["env_steps"], g["lower"], g["upper"], color=colour(label), alpha=0.2, lw=0
            )
        ax.set(
            xlabel="environment steps",
            ylabel="average return per episode",
            title=titles.get(panel, text),
        )
        check_legend(zip(*ax.get_legend_handles_labels(), strict=True))
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=1, fontsize=8, frameon=False
        )
    for ax in axes.flat[len(panels) :]:
        ax.axis("off")
    return fig


def _two_and_five(y: float, _pos: int) -> str:
    """A log axis' minor tick label in plain numbers at 2 and 5 times a power of ten (2, 5,
    20, 0.5), blank elsewhere."""
    if y <= 0:
        return ""
    lead = round(y / 10 ** math.floor(math.log10(y)))
    return f"{y:g}" if lead in (2, 5) else ""


def refused_thresholds(
    speedup: pd.DataFrame, references: Mapping[str, float], profile: GohariProfile
) -> frozenset[float]:
    """The thresholds q of ``speedup`` at which no time to converge may decide anything:
    random play (its measured ``references``) reaches X_q within one window of ``profile``
    (validity condition 1, :func:`~privrl.papers.gohari2021.claims.random_play_condition`)."""
    levels = speedup.groupby("q")["threshold"].first()
    return frozenset(
        float(q)
        for q, x in levels.items()
        if random_play_condition(float(x), dict(references), profile) is not None
    )


#: The words of a speed-up at a refused threshold (:func:`refused_thresholds`).
REFUSED = "refused: random play reaches X_q"


def speedup_display(
    speedup: pd.DataFrame, refused: Collection[float] = frozenset()
) -> pd.DataFrame:
    """The speed-up table for reading: the ratio of times to converge with its 95% interval in
    words (an end the censored runs leave open is "unbounded"; "none at n seeds" where the
    seeds cannot give a 95% rank interval) and the censored runs per arm; at a ``refused``
    threshold (:func:`refused_thresholds`) the speed-up says it decides nothing
    (:data:`REFUSED`), without a ratio or an interval."""

    def interval(row: pd.Series) -> str:
        if float(row["q"]) in refused:
            return "none"
        if np.isnan(row["lower"]):
            return f"none at {row['n']:.0f} seeds"
        ends = [
            f"{v:.3g}" if np.isfinite(v) and v > 0 else ("0" if v == 0 else "unbounded")
            for v in (row["lower"], row["upper"])
        ]
        return f"[{ends[0]}, {ends[1]}]"

    return pd.DataFrame(
        {
            "threshold q": speedup["q"],
            "X_q": speedup["threshold"],
            "student": speedup["treated"],
            "over": speedup["baseline"],
            "speed-up": [
                REFUSED if float(q) in refused else r
                for q, r in zip(speedup["q"], speedup["ratio"], strict=True)
            ],
            "95% interval": speedup.apply(interval, axis=1),
            "seeds": speedup["n"],
            "never converged (over)": speedup["censored_baseline"],
            "never converged (student)": speedup["censored_treated"],
        }
    )


#: The speed-up axis: bounds beyond it (a censored run's unbounded end) are drawn at its edge
#: with an arrowhead.
SPEEDUP_AXIS = (0.01, 100.0)


def plot_speedup(speedup: pd.DataFrame, stated: float, refused: Collection[float] = frozenset()):
    """The speed-up (how many times sooner a student converges than the teacher-sized PPO: the
    Hodges-Lehmann ratio of times to converge) of each treated configuration at each threshold
    q, with its exact rank 95% interval, on a log scale; an end the censored runs leave
    unbounded (0 or infinite) is drawn at the axis edge (:data:`SPEEDUP_AXIS`) with an
    arrowhead. The paper's "roughly 4 times" (``stated``) is a dashed black level, no speed-up
    (1) a grey one. A ``refused`` threshold (:func:`refused_thresholds`: random play reaches
    it) is shaded grey and drawn without its ratios: it decides nothing."""
    speedup = speedup[~speedup["q"].astype(float).isin(list(refused))]
    fig, axes = new_figure(1, 1, width=6.0, height=3.2)
    ax = axes[0, 0]
    bottom, top = SPEEDUP_AXIS
    treated = list(dict.fromkeys(speedup["treated"]))
    offsets = np.linspace(-0.01, 0.01, len(treated)) if len(treated) > 1 else [0.0]
    for offset, label in zip(offsets, treated, strict=True):
        g = speedup[speedup["treated"] == label].sort_values("q")
        ratio = g["ratio"].clip(bottom, top)
        lower = g["lower"].fillna(bottom).clip(bottom, top)
        upper = g["upper"].fillna(top).clip(bottom, top)
        err = np.vstack([ratio - lower, upper - ratio])
        drawn = colour(label)
        x = g["q"] + offset
        ax.errorbar(
            x, ratio, yerr=err, fmt="o", capsize=3, color=drawn, label=f"{label} over PPO (64, 64)"
        )
        ax.plot(x[upper >= top], upper[upper >= top], "^", color=drawn, ms=6)
        ax.plot(x[lower <= bottom], lower[lower <= bottom], "v", color=drawn, ms=6)
    ax.axhline(1.0, color="grey", lw=0.8, ls=":", label="no speed-up")
    mark_paper(ax, y=stated, orientation="hline", label="paper: 'roughly 4 times' (Section 5)")
    for q in refused:
        ax.axvspan(q - 0.04, q + 0.04, color="0.85", lw=0, label=REFUSED)
    ax.set_yscale("log")
    ax.set_ylim(bottom / 1.5, top * 1.5)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(_two_and_five))
    ax.set(
        xlabel="threshold q (0: random play, 1: the teacher)",
        ylabel="speed-up (ratio of times\nto converge)",
        xticks=sorted({*speedup["q"].unique(), *refused}),
    )
    legend_below(fig, ncol=2)
    return fig


def plot_k_grid(
    grid: pd.DataFrame,
    eps_limit: float,
    eta: float,
    paper: tuple[float, float, float] | None = None,
):
    """Eq. (12) and eq. (6) over k (m = 6), with the k -> 0 limit of epsilon; ``paper``: the
    paper's (k, epsilon, delta) = (5, 4.46, 0.05), drawn as hollow black diamonds."""
    fig, ax = new_figure(1, 2, width=3.4, height=3.0)
    ax = ax[0]
    ax[0].semilogx(grid["k"], grid["epsilon"], "o-", ms=3, label="eq. (12)")
    ax[0].axhline(eps_limit, ls=":", c="gray", label="limit as k -> 0")
    ax[0].set(
        xlabel="Dirichlet concentration k", ylabel="epsilon per query", title=f"m = 6, eta = {eta}"
    )
    ax[1].semilogx(grid["k"], grid["delta"], "o-", ms=3, label="union bound (upper)")
    ax[1].semilogx(grid["k"], grid["delta (lower bound)"], "s--", ms=3, label="Bonferroni (lower)")
    ax[1].set(xlabel="Dirichlet concentration k", ylabel="delta per query (eq. 6)")
    if paper is not None:
        k, eps, delta = paper
        mark_paper(ax[0], k, eps, label="paper: (4.46, 0.05) at k = 5")
        mark_paper(ax[1], k, delta, label="paper: (4.46, 0.05) at k = 5")
    legend_below(fig, ncol=2)
    return fig


def plot_diagnostics(diagnostics: pd.DataFrame, labels: list[str], first_spent: int):
    """Per roll-out median over seeds of each of :data:`DIAGNOSTICS` for ``labels`` (tidy:
    label, epoch and the columns), with the first roll-out after the c = 0.3 budget marked; one
    colour per label in every panel."""
    fig, axes = new_figure(1, len(DIAGNOSTICS), width=2.6, height=2.6)
    for ax, (col, name) in zip(axes.flat, DIAGNOSTICS, strict=True):
        for label in labels:
            g = diagnostics[diagnostics["label"] == label].groupby("epoch")[col].median()
            ax.plot(g.index, g.to_numpy(), lw=1, c=colour(label), label=label)
        ax.axvline(first_spent, c="gray", ls=":", lw=0.8)
        ax.set(xlabel="roll-out")
        ax.set_title(name, fontsize=9)
    axes.flat[0].plot([], [], c="gray", ls=":", lw=0.8, label="c = 0.3 budget spent")
    legend_below(fig, ncol=2)
    return fig


def plot_airraid_teacher(air: AirRaidTeacher):
    """The committed AirRaid teacher's training curve, random play and the kept checkpoint."""
    fig, ax = new_figure(1, 1, width=5.0)
    ax = ax[0, 0]
    curve = air.curve
    ax.plot(curve.index, curve.to_numpy(), lw=0.5, alpha=0.4, label="per roll-out")
    ax.plot(
        curve.index,
        curve.rolling(50, min_periods=1).mean().to_numpy(),
        label="mean of 50 roll-outs",
    )
    ax.axhline(air.air_random, ls=":", c="gray", label="uniformly random play")
    ax.axvline(air.kept_steps, c="k", lw=0.8, label="kept checkpoint")
    ax.set(
        xlabel="environment steps",
        ylabel="average return per episode",
        title="AirRaid teacher (64, 64), training",
    )
    legend_outside(ax)
    return fig


def plot_radii(radii: pd.DataFrame, informed: np.ndarray, lam: float):
    """Ball radius alpha = lambda r(k) of each radius of Lemma 1 over k, against the simplex's
    diameter sqrt(2): above it the penalty (16) never acts."""
    fig, ax = new_figure(1, 1, width=5.0)
    ax = ax[0, 0]
    for kind, g in radii.groupby("radius", sort=False):
        ax.loglog(
            g["k"],
            g["alpha"],
            "o-",
            ms=3,
            color=colour(f"radius {kind}"),
            label=words(f"radius {kind}"),
        )
    ax.axhline(theory.SIMPLEX_DIAMETER, c="k", ls=":", label="sqrt(2), the simplex's diameter")
    for k in informed:
        ax.axvline(k, c="gray", lw=0.5, alpha=0.5)
    ax.set(
        xlabel="Dirichlet concentration k (grey: the c = 0.3 schedule's informed roll-outs)",
        ylabel=f"ball radius lambda r(k), lambda = {lam}",
    )
    legend_outside(ax)
    return fig


def plot_times(times: pd.DataFrame, labels: tuple[str, ...]):
    """Time to each threshold per seed; censored runs drawn as open markers at the budget."""
    fig, ax = new_figure(1, 1, width=5.0)
    ax = ax[0, 0]
    for j, label in enumerate(labels):
        g = times[times["label"] == label]
        x = g["q"] + (j - (len(labels) - 1) / 2) * 0.03
        hit = ~g["censored"]
        ax.plot(x[hit], g.loc[hit, "steps"], "o", c=colour(label), label=label)
        ax.plot(
            x[~hit],
            g.loc[~hit, "steps"],
            "o",
            mfc="none",
            c=colour(label),
            label=f"{label}, censored at the budget" if (~hit).any() else None,
        )
    ax.set(
        xlabel="threshold q (fraction of the way from random play to the teacher)",
        ylabel="environment steps to reach X_q",
    )
    legend_outside(ax)
    return fig


#: The abstract's results (ii) and (iii) and the claims that decide them, quoted under the design's
#: Figure 2(d) and under the record at the paper's horizon.
_ABSTRACT: dict[str, tuple[str, ...]] = {
    "abstract_beyond_unaided": ("aware_beats_small_ppo", "aware_beats_small_ppo_union_beyond"),
    "abstract_keeps_performance": (
        "random_answers_harmless",
        "random_answers_harmless_union_beyond",
    ),
}
#: The paper's sentences (keys of ``book/paper_numbers/gohari2021.yml``) and the chapter's claims
#: that decide them, per figure they are quoted under (the AirRaid design's Figure 2(d) and its
#: speed-up, the record at the paper's horizon), each shown with the verdict the book reports.
SENTENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "figure2": {
        "fig2d_unaware_worse": (
            "aware_beats_unaware",
            "aware_beats_unaware_union_beyond",
        ),
        "fig2d_unaware_below_ppo": ("unaware_below_small_ppo",),
        **_ABSTRACT,
    },
    "speedup": {
        "aware_speedup": ("speedup_aware",),
        "fig2b_sample_efficiency": ("speedup_kickstarting",),
    },
    "horizon": {
        "aware_speedup": ("speedup_aware",),
        **_ABSTRACT,
    },
}


def cost_sentence(cost: RolloutCost | None) -> str:
    """The paper profile's cost in words: timed in this run (``cost.source == "measured"``),
    the recorded AirRaid design's, or neither."""
    if cost is None:
        return (
            "The cost of the paper profile is neither measured in this run (`measure_cost`) "
            "nor recorded."
        )
    if cost.source == "measured":
        return (
            "We time a few roll-outs of the most expensive run at paper settings, the "
            "privacy-aware student kickstarted by the AirRaid teacher (a teacher query and a "
            "Dirichlet draw per step), and of the teacher-sized PPO, in CPU seconds (a run of "
            "four roll-outs minus a run of one, so that set-up costs cancel; the table gives "
            "the step rate, interactions per CPU second). One paper-profile run of 4,000 "
            f"roll-outs costs about {cost.hours_run:.1f} core-hours "
            f"({cost.sec_rollout:.2f} CPU seconds per roll-out of 1,000 interactions on "
            "the machine that built this page; the paper reports at most 9 s)."
        )
    return (
        "This run does not time roll-outs at paper settings (`measure_cost` is off in the "
        "quick profile; `-p measure_cost=True` times them), so the cost is the recorded "
        "AirRaid design's: its CPU time summed over its runs, over its roll-outs, "
        f"{cost.sec_rollout:.2f} CPU seconds per roll-out of 1,000 interactions (a mean "
        "over its configurations; the paper reports at most 9 s). One paper-profile run of "
        f"4,000 roll-outs costs about {cost.hours_run:.1f} core-hours."
    )


def budget_display(queries: pd.DataFrame) -> pd.DataFrame:
    """The teacher's data-dependent queries per private arm (:func:`~privrl.papers.gohari2021.
    claims.query_budget`, per run, summarised): runs, queries answered and the allowance per
    run (the least and the most over runs) and the most queries a run answered beyond its
    allowance, what the budget claim is decided on."""

    def spread(values: pd.Series) -> str:
        low, high = float(values.min()), float(values.max())
        return f"{low:,.0f}" if low == high else f"{low:,.0f} to {high:,.0f}"

    runs = query_budget(queries)
    return pd.DataFrame(
        [
            {
                "arm": label,
                "runs": len(g),
                "queries answered per run": spread(g["answered"]),
                "allowance per run": spread(g["allowance"]),
                "most beyond the allowance": float(g["beyond allowance"].max()),
            }
            for label, g in runs.groupby("label", sort=False)
        ],
        columns=[
            "arm",
            "runs",
            "queries answered per run",
            "allowance per run",
            "most beyond the allowance",
        ],
    )


def _analysed(data: Mapping[str, Any]) -> RecordedAnalysis:
    """A record's curves and run record (an :class:`~privrl.chapter.figures.Exhibit`'s frames),
    analysed (:func:`~privrl.papers.gohari2021.recorded.recorded_analysis`)."""
    return recorded_analysis(data["curves"], dict(data["record"]))


def _figure2(data: Mapping[str, Any]):
    """:func:`plot_figure2` of a record's 95% bands."""
    rec = _analysed(data)
    return plot_figure2(rec.bands, {}, rec.profile.student_hidden)


def _speedup_figure(data: Mapping[str, Any]):
    """:func:`plot_speedup` of a record, its refused thresholds shaded."""
    rec = _analysed(data)
    refused = refused_thresholds(rec.speedup, rec.references, rec.profile)
    return plot_speedup(rec.speedup, paper_number(PAPER, "aware_speedup").value, refused)


def _speedup_table(data: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`speedup_display` of a record, its refused thresholds said so."""
    rec = _analysed(data)
    refused = refused_thresholds(rec.speedup, rec.references, rec.profile)
    return speedup_display(rec.speedup, refused)


def _diagnostics_figure(data: Mapping[str, Any]):
    """:func:`plot_diagnostics` of a record (``ValueError`` on a record without them)."""
    rec = _analysed(data)
    if rec.diagnostics is None:
        raise ValueError(f"the record {rec.name} has no diagnostics columns")
    return plot_diagnostics(rec.diagnostics, rec.diagnostic_labels, rec.first_spent)


def _budget_table(data: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`budget_display` of a record (``ValueError`` on a record without the queries)."""
    rec = _analysed(data)
    if rec.queries is None:
        raise ValueError(f"the record {rec.name} has no queries columns")
    return budget_display(rec.queries)


def _exhibits(record: str, prefix: str, diagnostics: bool) -> tuple[Exhibit, ...]:
    """The exhibits of ``record`` (:data:`~privrl.papers.gohari2021.recorded.DESIGN` or
    :data:`~privrl.papers.gohari2021.recorded.HORIZON`), labelled ``fig-<prefix>``,
    ``fig-<prefix>-speedup``, ``<prefix>-speedup-table``, ``<prefix>-budget`` and, with
    ``diagnostics``, ``fig-<prefix>-diagnostics``."""
    on = (f"{PAPER}-{record}", {"curves": curves_csv(record)}, RECORD_SOURCES[record].suffix)
    drawn = [
        Exhibit(f"fig-{prefix}", *on, _figure2),
        Exhibit(f"fig-{prefix}-speedup", *on, _speedup_figure),
        Exhibit(f"{prefix}-speedup-table", *on, _speedup_table),
        Exhibit(f"{prefix}-budget", *on, _budget_table),
    ]
    if diagnostics:
        drawn.append(Exhibit(f"fig-{prefix}-diagnostics", *on, _diagnostics_figure))
    return tuple(drawn)


#: The figures and tables the claims are decided on, each drawn from its record's curves: on
#: the recorded design (claims keyed ``_airraid``) Figure 2, the speed-up (figure and table),
#: the teacher's queries against its allowance and the diagnostics; at the paper's horizon
#: (claims keyed ``_horizon``) the same but the diagnostics.
EXHIBITS: dict[str, Exhibit] = by_label(
    *_exhibits(DESIGN, f"{PAPER}-recorded", diagnostics=True),
    *_exhibits(HORIZON, f"{PAPER}-horizon", diagnostics=False),
)
