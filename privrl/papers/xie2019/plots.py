"""The figures of the Xie, Thomas and Miklau (2019) chapter, drawn on a matplotlib ``Axes``.

* :func:`plot_points` - Figures 1 a, 2, 3 and 4: mean MSPBE against the data size n;
* :func:`figure_by_epsilon` - the same as small multiples, a row per domain and a column per
  epsilon (at most 8 legend entries, one colour per method, a line style per epsilon or grid),
  with :func:`mark_order_of_magnitude` (the chain's "order of magnitude", Section 7);
* :func:`plot_zoom` - Figure 2 a zoomed: GPOPE at each epsilon against LSTD, on-policy Mountain
  Car, with :func:`zoom_numbers` (what the panel shows at its largest n, for the prose);
* :func:`plot_steps` - Figure 1 b: MSPBE against the step size at a fixed n;
* :func:`plot_schedules` - Theorems 2 and 3: constant against diminishing steps along a run;
  :func:`plot_schedules_decided` - the same beside each trial's final MSPBE at the largest T,
  what the claim is decided on, drawn from the record (:data:`EXHIBITS`);
* :func:`plot_variance` - the gradient variance against the transitions used per trajectory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from privrl.chapter.colours import colour, words
from privrl.chapter.figures import Exhibit, by_label
from privrl.chapter.paper_numbers import paper_number
from privrl.chapter.plotting import (
    band_plot,
    in_words,
    legend_of,
    legend_outside,
    mark_paper,
    summarise,
)
from privrl.papers.xie2019.figure2 import FIGURE2, off_on_table
from privrl.papers.xie2019.points import PAPER_POINTS, PAPER_SCHEDULES
from privrl.papers.xie2019.profile import PAPER, XieProfile

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

METHOD_LABELS = {
    "GPOPE": "GPOPE (gradient perturbation)",
    "DP-LSW": "DP-LSW (output pert. V1)",
    "DP-LSL": "DP-LSL (output pert. V2)",
    "LSTD": "LSTD (non-private)",
    "WIS-LSTD": "WIS-LSTD (non-private)",
    "GTD2": "GTD2 (noiseless)",
    "zero": "zero estimate (no data)",
}

#: GPOPE's colour in every figure of the book (:mod:`privrl.chapter.colours`).
GPOPE_COLOUR = colour("GPOPE")

#: Line styles that tell apart the variants of one method (its epsilons, or DP-LSW's grids).
VARIANT_STYLES = ("-", "--", ":", "-.")
VARIANT_MARKERS = ("o", "s", "^", "v")


def split_method(label: str) -> tuple[str, str]:
    """A points label as (method, variant): ``"DP-LSW 10x10"`` is ``("DP-LSW", "10x10")``,
    ``"GPOPE"`` is ``("GPOPE", "")``."""
    method, _, variant = label.partition(" ")
    return method, variant


#: Short legend labels of the small multiples (the captions say what each method is).
SHORT_LABELS = {
    "LSTD": "LSTD (non-private)",
    "WIS-LSTD": "WIS-LSTD (non-private)",
    "GTD2": "GTD2 (noiseless)",
    "zero": "zero estimate",
}
#: Width, in inches, that the legend of the small multiples takes beside the panels.
LEGEND_INCHES = 2.2


def _styled(
    t: pd.DataFrame, by_epsilon: bool, labels: dict[str, str] | None = None
) -> pd.DataFrame:
    """``t`` with a legend ``label`` (``labels``, default :data:`METHOD_LABELS`), a ``colour``
    per method (its colour of the book, :func:`privrl.chapter.colours.colour`) and a ``variant`` rank per method (its epsilon when
    ``by_epsilon``, else its grid)."""
    labels = METHOD_LABELS if labels is None else labels
    t = t.copy()
    parts = [split_method(m) for m in t.method]
    t["base"] = [b for b, _ in parts]
    t["grid"] = [v for _, v in parts]
    t["colour"] = t.base.map(colour)
    eps = [("" if np.isnan(e) or not by_epsilon else f", ε = {e:g}") for e in t.epsilon]
    t["label"] = [
        labels.get(b, b) + (f", {g} grid" if g else "") + e
        for b, g, e in zip(t.base, t.grid, eps, strict=True)
    ]
    key = (
        t.epsilon.fillna(-1.0)
        if by_epsilon
        else t.grid.map(lambda g: int(g.partition("x")[0]) if g else 0)
    )
    t["variant"] = key.groupby(t.base).rank(method="dense").astype(int)
    return t


#: The order of the methods in a legend.
METHOD_ORDER = ("GPOPE", "DP-LSW", "DP-LSL", "LSW", "GTD2", "LSTD", "WIS-LSTD", "zero")


def _draw(ax: Axes, t: pd.DataFrame) -> None:
    """One line per label of a :func:`_styled` table (methods in :data:`METHOD_ORDER`): mean
    MSPBE against n, with one standard deviation shaded where the band stays above zero at every
    n (below zero it cannot be drawn on a log axis)."""
    order = {m: i for i, m in enumerate(METHOD_ORDER)}
    t = t.assign(order=t.base.map(lambda b: order.get(b, len(order))))
    for _, g in t.groupby(["order", "variant", "label"], sort=True):
        k = int(g.variant.iloc[0]) - 1
        style = dict(
            color=g.colour.iloc[0],
            ls=VARIANT_STYLES[k % len(VARIANT_STYLES)],
            marker=VARIANT_MARKERS[k % len(VARIANT_MARKERS)],
            ms=4,
        )
        stats = summarise(g, "n", "mspbe", err="std")
        ax.plot(stats.n, stats.center, label=g.label.iloc[0], **style)
        if (stats.lower > 0).all():
            ax.fill_between(
                stats.n, stats.lower, stats.upper, color=style["color"], alpha=0.15, lw=0
            )


def plot_points(ax: Axes, points: pd.DataFrame, domain: str, ylabel: str = "MSPBE") -> None:
    """Mean MSPBE against n (log-log), one standard deviation shaded, one line per method and
    epsilon (one colour per method, a line style per epsilon), for one domain of a points
    table; the legend beside the axes."""
    t = _styled(points[points.domain == domain], by_epsilon=True)
    _draw(ax, t)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("data size n (trajectories)")
    ax.set_ylabel(ylabel)
    legend_outside(ax)


def figure_by_epsilon(
    points: pd.DataFrame,
    domains: tuple[str, ...],
    *,
    ylabel: str = "MSPBE",
    lsw: bool = False,
    width: float = 3.0,
    height: float = 2.6,
    order_of_magnitude: float | None = None,
) -> Figure:
    """Small multiples of Figures 1 a, 2 and 4: a row per domain, a column per epsilon of its
    private methods, each panel the private methods at that epsilon (one colour per method, a
    line style per DP-LSW grid) and the non-private ones (the same in every column); mean MSPBE
    against n, log-log, one standard deviation shaded where it stays above zero, y shared.
    Non-private LSW on Mountain Car's grids is left out unless ``lsw``; the chain's panel marks
    the paper's ``order_of_magnitude`` (:func:`mark_order_of_magnitude`) when given. One legend
    beside the panels (at most 8 entries)."""
    t = points[points.domain.isin(domains)]
    if not lsw:
        t = t[~t.method.str.startswith("LSW ")]
    epsilons = sorted(t.epsilon.dropna().unique())
    if not epsilons:
        raise ValueError(f"points: no private method on {domains}")
    fig, axes = plt.subplots(
        len(domains),
        len(epsilons),
        sharex=True,
        sharey=True,
        squeeze=False,
        figsize=(width * len(epsilons) + LEGEND_INCHES, height * len(domains)),
    )
    styled = _styled(t, by_epsilon=False, labels=SHORT_LABELS)
    for r, (row, domain) in enumerate(zip(axes, domains, strict=True)):
        d = styled[styled.domain == domain]
        for ax, eps in zip(row, epsilons, strict=True):
            shown = d[d.epsilon.isna() | np.isclose(d.epsilon, eps)]
            ax.set(xscale="log", yscale="log", xlabel="", ylabel="")
            if not shown.epsilon.notna().any():
                ax.set_visible(False)
                continue
            _draw(ax, shown)
            if domain == "chain" and order_of_magnitude is not None:
                mark_order_of_magnitude(ax, points, order_of_magnitude)
            if r == 0:
                ax.set_title(f"ε = {eps:g}", fontsize=10)
        words = in_words(domain)
        row[0].set_ylabel(f"{words[0].upper()}{words[1:]}\n{ylabel}")
    for ax in axes[-1]:
        ax.set_xlabel("data size n (trajectories)")
    legend_outside(fig)
    return fig


def mark_order_of_magnitude(
    ax: Axes, points: pd.DataFrame, factor: float, domain: str = "chain"
) -> pd.DataFrame:
    """Mark, at each n, where the paper puts GPOPE on the chain: ``factor`` (its "order of
    magnitude", :mod:`privrl.chapter.paper_numbers` key ``chain_order_of_magnitude``) below the
    better of DP-LSW and DP-LSL (their mean MSPBE), in the paper's style
    (:func:`~privrl.chapter.plotting.mark_paper`). Returns the marked levels (``n``,
    ``output``: the better output perturbation's mean, ``paper``: it over ``factor``)."""
    t = points[(points.domain == domain) & points.method.isin(["DP-LSW", "DP-LSL"])]
    best = t.groupby(["n", "method"])["mspbe"].mean().groupby("n").min()
    if best.empty:
        raise ValueError(f"points: no DP-LSW or DP-LSL on {domain}")
    mark_paper(
        ax,
        best.index.to_numpy(float),
        best.to_numpy() / factor,
        label=f"paper: {factor:g}x below output perturbation",
    )
    return pd.DataFrame(
        {"n": best.index, "output": best.to_numpy(), "paper": best.to_numpy() / factor}
    )


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
    ax.set_title(f"Zoom: {where}")
    shown = t.groupby(["method", "epsilon", "n"], dropna=False)["mspbe"].agg(
        ["mean", "std", "count"]
    )
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
    return dict(
        n=int(max(both)),
        lstd=lstd,
        by_epsilon=by_epsilon,
        ratio=float(gpope["mean"].iloc[-1]) / lstd,
    )


def plot_steps(ax: Axes, sensitivity: pd.DataFrame, zero_mspbe: float) -> None:
    """Figure 1 b: GPOPE's MSPBE against the step size (mean, one standard deviation)."""
    band_plot(
        ax,
        sensitivity,
        "step_size",
        "mspbe",
        err="std",
        marker="o",
        label=words("GPOPE"),
        color=GPOPE_COLOUR,
    )
    ax.axhline(zero_mspbe, color=colour("zero"), ls="--", label=words("zero"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step size")
    ax.set_ylabel("MSPBE")
    legend_outside(ax)


def plot_schedules(ax: Axes, schedules: pd.DataFrame) -> None:
    """MSPBE along GPOPE runs (GPOPE's colour), constant (solid) and diminishing (dashed) steps,
    a marker per total T."""
    totals = sorted(schedules.iterations.unique())
    for (T, sched), g in schedules.groupby(["iterations", "schedule"]):
        band_plot(
            ax,
            g,
            "iteration",
            "mspbe",
            err="std",
            label=f"{sched} step, T = {T:,}",
            ls=SCHEDULE_STYLES[sched],
            color=GPOPE_COLOUR,
            marker="os^vD"[totals.index(T) % 5],
            markevery=0.2,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("MSPBE")
    legend_outside(ax)


#: Line style of each step schedule (:func:`plot_schedules`).
SCHEDULE_STYLES = {"constant": "-", "diminishing": "--"}


def plot_schedules_decided(schedules: pd.DataFrame) -> Figure:
    """What "a diminishing step ends below a constant one" is decided on: (left) MSPBE along the
    GPOPE runs at every total T (:func:`plot_schedules`); (right) each trial's final MSPBE at
    the largest T, constant and diminishing step on the same dataset joined by a grey line, and
    the mean of each schedule (a black bar). One legend below the panels: the schedules' line
    styles, the totals' markers, a trial and a mean."""
    fig, (ax_run, ax_end) = plt.subplots(
        1, 2, figsize=(7.0, 3.6), gridspec_kw={"width_ratios": [1.6, 1.0]}
    )
    plot_schedules(ax_run, schedules)
    ax_run.get_legend().remove()
    totals = sorted(schedules.iterations.unique())
    T = int(totals[-1])
    end = schedules[(schedules.iterations == T) & (schedules.iteration == T)]
    paired = end.pivot(index="seed", columns="schedule", values="mspbe")[list(SCHEDULE_STYLES)]
    xs = np.arange(len(SCHEDULE_STYLES))
    for _, row in paired.iterrows():
        ax_end.plot(xs, row.to_numpy(), color="0.75", lw=0.8, zorder=1)
    for x, sched in zip(xs, SCHEDULE_STYLES, strict=True):
        ax_end.plot(np.full(len(paired), x), paired[sched], ".", ms=7, color=GPOPE_COLOUR, zorder=2)
        ax_end.hlines(paired[sched].mean(), x - 0.25, x + 0.25, color="black", lw=2.0, zorder=3)
    ax_end.set_xticks(xs, [f"{s}\nstep" for s in SCHEDULE_STYLES])
    ax_end.set_xlim(-0.5, len(xs) - 0.5)
    ax_end.set_ylabel(f"final MSPBE at T = {T:,}")
    ax_end.set_title(f"{len(paired)} trials at T = {T:,}", fontsize=10)
    handles = [
        Line2D([], [], color=GPOPE_COLOUR, ls=ls, label=f"GPOPE, {sched} step")
        for sched, ls in SCHEDULE_STYLES.items()
    ]
    handles += [
        Line2D(
            [],
            [],
            color=GPOPE_COLOUR,
            ls="none",
            marker="os^vD"[i % 5],
            label=f"T = {t:,} iterations",
        )
        for i, t in enumerate(totals)
    ]
    handles += [
        Line2D(
            [], [], color=GPOPE_COLOUR, ls="none", marker=".", ms=7, label=f"one trial at T = {T:,}"
        ),
        Line2D([], [], color="black", lw=2.0, label="mean over the trials"),
    ]
    legend_of(fig, handles, ncol=3)
    return fig


def _chain_figure(data: Mapping[str, Any]) -> Figure:
    """Figure 1 a from the recorded points, the paper's "order of magnitude" marked."""
    order = paper_number(PAPER, "chain_order_of_magnitude").value
    return figure_by_epsilon(
        data["points"], ("chain",), width=4.6, height=3.4, order_of_magnitude=order
    )


#: The recorded paper-profile run's figures and table that its claims are decided on, each
#: drawn from the record's files: Figures 1 a and 2 (its points), GPOPE off-policy against
#: on-policy (:func:`~privrl.papers.xie2019.figure2.off_on_table` of its points, at the paper
#: profile's seed) and Theorems 2-3 (its runs of the step schedules).
EXHIBITS: dict[str, Exhibit] = by_label(
    Exhibit(
        "fig-xie2019-paper-chain",
        f"{PAPER}-paper",
        {"points": PAPER_POINTS},
        "_paper",
        _chain_figure,
    ),
    Exhibit(
        "fig-xie2019-paper-mountain-car",
        f"{PAPER}-paper",
        {"points": PAPER_POINTS},
        "_paper",
        lambda data: figure_by_epsilon(data["points"], ("mountain_car_on", "mountain_car_off")),
    ),
    Exhibit(
        "xie2019-off-on-record",
        f"{PAPER}-paper",
        {"points": PAPER_POINTS},
        "_paper",
        lambda data: off_on_table(data["points"], XieProfile.paper().seed),
    ),
    Exhibit(
        "fig-xie2019-schedules-record",
        f"{PAPER}-paper",
        {"schedules": PAPER_SCHEDULES},
        "_paper",
        lambda data: plot_schedules_decided(data["schedules"]),
    ),
)


def record_scales(profile: XieProfile) -> dict[str, str]:
    """The scale of the claims the recorded run decided on fewer trials than the paper's (the
    "decided on" column): the step schedules, at ``schedule_trials`` of the ``n_trials``."""
    return {
        "diminishing_beats_constant": f"{profile.schedule_trials} of the paper's {profile.n_trials} trials, T = "
        f"{max(profile.schedule_iterations):,} iterations"
    }


def plot_variance(ax: Axes, variance: pd.DataFrame) -> float:
    """Gradient variance against transitions used, with the 1/k law; returns the log-log slope."""
    slope = float(np.polyfit(np.log(variance.transitions), np.log(variance.variance), 1)[0])
    ax.loglog(
        variance.transitions,
        variance.variance,
        "o-",
        color=GPOPE_COLOUR,
        label=f"GPOPE's gradient, measured\n(slope {slope:.2f})",
    )
    ax.loglog(
        variance.transitions, variance.variance.iloc[0] / variance.transitions, "k--", label="1/k"
    )
    ax.set_xlabel("transitions used per trajectory, k")
    ax.set_ylabel("total variance of the gradient")
    legend_outside(ax)
    return slope


#: The paper's sentences on its figures (keys of ``book/paper_numbers/xie2019.yml``) and the
#: claims of the chapter that decide them (none: no claim tests the sentence), per figure.
SENTENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "chain": {
        "chain_order_of_magnitude": ("chain_order_of_magnitude",),
        "stronger_privacy_same_error": (),
        "fig1a_imprecise_still_better": (),
    },
    "mountain_car": {
        "mountain_car_orders_of_magnitude": ("mc_beats_output_perturbation",),
        "fig2_off_on_similar": ("off_policy_like_on_policy",),
    },
    "hiv": {"fig4_hiv": ()},
}


__all__ = [
    "EXHIBITS",
    "METHOD_LABELS",
    "SCHEDULE_STYLES",
    "SENTENCES",
    "ZOOM_DOMAIN",
    "ZOOM_METHODS",
    "figure_by_epsilon",
    "mark_order_of_magnitude",
    "plot_points",
    "plot_schedules",
    "plot_schedules_decided",
    "plot_steps",
    "plot_variance",
    "plot_zoom",
    "record_scales",
    "split_method",
    "zoom_numbers",
]
