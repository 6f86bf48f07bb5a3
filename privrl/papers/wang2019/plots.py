"""Figures of the Wang and Hegde (2019) chapter (house style from :mod:`privrl.chapter.plotting`).

Learning curves are small multiples (:func:`plot_figure1`, :func:`plot_figure2`: one panel per
noise amplitude or method, the non-private curve in each for reference), because seven 95% bands
in one panel cover the whole range of returns. What the claims are decided on, the final return
of each run, is drawn beside them (:func:`plot_final_sigma`, :func:`plot_final_methods`: mean over
seeds with its 95% t-interval). Bands and whiskers are 95% t-intervals of the mean over seeds,
not the paper's 1-std shadow. The figures drawn from the records (:data:`EXHIBITS`) are what the
claims are decided on: the paper-profile record's and the pair's. The paper's sentences a figure is evidence for are quoted under it with
:func:`privrl.chapter.sentences.sentences_list`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from privrl.chapter.colours import colour, words
from privrl.chapter.figures import Exhibit, by_label
from privrl.chapter.plotting import (
    legend_below,
    legend_outside,
    mark_paper,
    new_figure,
)
from privrl.papers.wang2019.pair import PAIR_CSV
from privrl.papers.wang2019.profile import CURVES_CSV, FINAL_EPISODES, SMALL_SIGMA, WangProfile
from privrl.papers.wang2019.runs import final_returns

#: Returns lie in [0, 25]: 50 steps of reward 0.5 - |s' - 0.5| in [0, 0.5].
RETURN_RANGE = (0.0, 25.0)
#: The two metrics as panel titles of the final-return figures.
METRIC_TITLES = {
    "train_return": "training return (the paper's metric)",
    "eval_return": "released function's greedy return",
}
RETURN_LABELS = {
    "eval_return": "return of the released function\n(greedy, fixed episodes)",
    "train_return": "training return\n(epsilon-greedy on Q + g)",
}
#: Figure 2's methods (the curves' ``variant``) in words, in drawing order: what each arm's
#: privacy is (output perturbation's release has none; the usual DP-SGD protects a transition).
VARIANT_WORDS = {
    v: words(v)
    for v in ("functional", "functional (T/B)", "input", "dpsgd (reward fn)", "dpsgd", "output")
}
NON_PRIVATE = words("none")
#: Each method's colour of the book (:mod:`privrl.chapter.colours`; the non-private reference is
#: black).
COLOURS = {v: colour(v) for v in (*VARIANT_WORDS, "none")}


def _band(wide: pd.DataFrame) -> tuple[pd.Series, pd.Series, pd.Series]:
    """Mean over the columns (seeds) of ``wide`` and its 95% t-interval, clipped to the returns."""
    mean, n = wide.mean(axis=1), wide.shape[1]
    if n < 2:
        return mean, mean, mean
    half = stats.t.ppf(0.975, n - 1) * wide.std(axis=1, ddof=1) / np.sqrt(n)
    lo, hi = (np.clip(mean + sign * half, *RETURN_RANGE) for sign in (-1, 1))
    return mean, lo, hi


def curve(
    ax: plt.Axes, runs: pd.DataFrame, column: str, colour: str, label: str, band: bool = True
) -> None:
    """Mean of ``column`` over the seeds of ``runs`` against samples, with its 95% t-interval."""
    mean, lo, hi = _band(runs.pivot_table(index="samples", columns="seed", values=column))
    if band:
        ax.fill_between(mean.index, lo, hi, color=colour, alpha=0.25, lw=0)
    ax.plot(mean.index, mean, color=colour, lw=1.4 if band else 1.0, label=label)


def _grid(nrows: int, ncols: int, column: str):
    fig, axes = new_figure(
        nrows, ncols, width=3.3, height=1.75, sharex=True, sharey=True, layout="constrained"
    )
    for ax in axes.flat:
        ax.set_ylim(RETURN_RANGE[0] - 0.5, RETURN_RANGE[1] + 0.5)
    for ax in axes[-1]:
        ax.set_xlabel("samples trained on")
    fig.supylabel(RETURN_LABELS[column].replace("\n", " "), fontsize=10)
    return fig, axes


def plot_figure1(curves: pd.DataFrame, protocol: str, column: str = "train_return"):
    """Figure 1 as small multiples: one row per noise amplitude sigma > 0, paths redrawn every
    episode (left) or never (right); ``column``'s mean over seeds with its 95% t-interval, and
    the non-private run (sigma = 0) in black in every panel. Panel titles name the curve (no
    legend: the caption says what black is)."""
    fig1 = curves[curves.sigma.notna() & (curves.protocol == protocol)]
    sigmas = sorted(s for s in fig1.sigma.unique() if s > 0)
    fig, axes = _grid(len(sigmas), 2, column)
    colours = dict(
        zip(sigmas, plt.get_cmap("viridis")(np.linspace(0.0, 0.85, len(sigmas))), strict=True)
    )
    every = "every episode" if protocol == "authors" else "every update"
    for j, resample in enumerate(("every", "never")):
        runs = fig1[fig1["resample"] == resample]
        for i, sigma in enumerate(sigmas):
            ax = axes[i, j]
            curve(ax, runs[runs.sigma == 0], column, "black", "sigma = 0 (non-private)", band=False)
            curve(ax, runs[runs.sigma == sigma], column, colours[sigma], f"sigma = {sigma:g}")
            where = f"redrawn {every}" if resample == "every" else "never redrawn (J = 1)"
            ax.set_title(f"sigma = {sigma:g}, paths {where}", fontsize=9)
    return fig


def plot_figure2(curves: pd.DataFrame, delta: float, column: str = "train_return"):
    """Figure 2 as small multiples: one row per method (:data:`VARIANT_WORDS`), one column per
    target epsilon; ``column``'s mean over seeds with its 95% t-interval, the non-private DQN
    in black in every panel. Panel titles name the method (no legend)."""
    fig2 = curves[curves.epsilon.notna()]
    ref = fig2[~np.isfinite(fig2.epsilon)]
    eps_list = sorted(fig2.epsilon[np.isfinite(fig2.epsilon)].unique(), reverse=True)
    variants = [v for v in VARIANT_WORDS if (fig2.variant == v).any()]
    fig, axes = _grid(len(variants), len(eps_list), column)
    for j, eps in enumerate(eps_list):
        runs = fig2[fig2.epsilon == eps]
        for i, variant in enumerate(variants):
            ax = axes[i, j]
            curve(ax, ref, column, "black", NON_PRIVATE, band=False)
            curve(
                ax, runs[runs.variant == variant], column, COLOURS[variant], VARIANT_WORDS[variant]
            )
            ax.set_title(
                f"{VARIANT_WORDS[variant]}\nepsilon = {eps:g}, delta = {delta:g}", fontsize=9
            )
    return fig


def _mean_ci(values: pd.Series) -> tuple[float, float]:
    """Mean and the half-width of its 95% t-interval (0 with one value)."""
    n = values.size
    half = stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
    return float(values.mean()), float(half)


def plot_final_sigma(curves: pd.DataFrame, protocol: str, small_sigma: float):
    """What Figure 1's claims are decided on: each run's final return (last episodes) against
    sigma, mean over seeds with its 95% t-interval, for paths redrawn every episode and never;
    the training return (the paper's metric) and the released function's return. The paper's
    "especially when sigma < 0.4" is marked at ``small_sigma``."""
    fig1 = curves[curves.sigma.notna() & (curves.protocol == protocol)]
    fig, axes = new_figure(1, 2, width=3.3, height=2.8, sharey=True, layout="constrained")
    styles = {
        r: (colour(f"resample {r}"), fmt, words(f"resample {r}"))
        for r, fmt in (("every", "o-"), ("never", "s--"))
    }
    for ax, column in zip(axes.flat, ("train_return", "eval_return"), strict=True):
        final = final_returns(fig1, ["sigma", "resample"], column)
        for resample, (drawn, fmt, label) in styles.items():
            rows = final[final["resample"] == resample].groupby("sigma")[column]
            points = np.array([(s, *_mean_ci(g)) for s, g in rows])
            ax.errorbar(
                points[:, 0],
                points[:, 1],
                yerr=points[:, 2],
                fmt=fmt,
                color=drawn,
                capsize=3,
                ms=4,
                label=label,
            )
        mark_paper(
            ax,
            x=small_sigma,
            orientation="vline",
            label=f"paper: converges 'especially when sigma < {small_sigma:g}'",
        )
        ax.set(
            xlabel="noise amplitude sigma",
            title=METRIC_TITLES[column],
            ylim=(RETURN_RANGE[0] - 0.5, RETURN_RANGE[1] + 0.5),
        )
    axes[0, 0].set_ylabel(f"final return\n(mean of the last {FINAL_EPISODES} episodes)")
    legend_below(fig, ncol=2)
    return fig


def plot_final_methods(curves: pd.DataFrame):
    """What Figure 2's claims are decided on: each method's final return (last episodes) at
    each target epsilon, mean over seeds with its 95% t-interval, the non-private DQN as a
    black level; the training return (the paper's metric) and the released function's."""
    fig2 = curves[curves.epsilon.notna()]
    eps_list = sorted(fig2.epsilon[np.isfinite(fig2.epsilon)].unique(), reverse=True)
    variants = [v for v in VARIANT_WORDS if (fig2.variant == v).any()]
    fig, axes = new_figure(1, 2, width=3.3, height=2.8, sharey=True, layout="constrained")
    offsets = np.linspace(-0.3, 0.3, len(variants))
    for ax, column in zip(axes.flat, ("train_return", "eval_return"), strict=True):
        final = final_returns(fig2, ["variant", "epsilon"], column)
        none, _ = _mean_ci(final.loc[final.variant == "none", column])
        ax.axhline(none, color="black", lw=1.0, label=NON_PRIVATE)
        for offset, variant in zip(offsets, variants, strict=True):
            rows = final[final.variant == variant]
            points = np.array(
                [
                    (j + offset, *_mean_ci(rows.loc[rows.epsilon == e, column]))
                    for j, e in enumerate(eps_list)
                ]
            )
            ax.errorbar(
                points[:, 0],
                points[:, 1],
                yerr=points[:, 2],
                fmt="o",
                color=COLOURS[variant],
                capsize=2,
                ms=4,
                label=VARIANT_WORDS[variant],
            )
        ax.set_xticks(range(len(eps_list)), [f"{e:g}" for e in eps_list])
        ax.set(
            xlabel="target epsilon (delta = 1e-4)",
            title=METRIC_TITLES[column],
            ylim=(RETURN_RANGE[0] - 0.5, RETURN_RANGE[1] + 0.5),
        )
        ax.grid(False, axis="x")
    axes[0, 0].set_ylabel(f"final return\n(mean of the last {FINAL_EPISODES} episodes)")
    legend_below(fig, ncol=2)
    return fig


def plot_pair(curves: pd.DataFrame):
    """The recorded pair (:mod:`~privrl.papers.wang2019.pair`): Algorithm 1 and input
    perturbation at one target epsilon, each seed's return over its last
    :data:`~privrl.papers.wang2019.profile.FINAL_EPISODES` episodes (dots) and the mean over seeds
    with its 95% t-interval (bar); left the training return the claim is decided on, right the
    released function's greedy return."""
    variants = [v for v in VARIANT_WORDS if (curves.variant == v).any()]
    fig, axes = new_figure(1, 2, width=3.3, height=2.8, sharey=True, layout="constrained")
    rng = np.random.default_rng(0)  # the dots' horizontal jitter only
    for ax, column in zip(axes.flat, ("train_return", "eval_return"), strict=True):
        final = final_returns(curves, ["variant"], column)
        for x, variant in enumerate(variants):
            values = final.loc[final.variant == variant, column]
            ax.plot(
                x + rng.uniform(-0.15, 0.15, values.size),
                values,
                "o",
                ms=3,
                alpha=0.4,
                color=COLOURS[variant],
            )
            mean, half = _mean_ci(values)
            ax.errorbar(x + 0.3, mean, yerr=half, fmt="D", capsize=4, color=COLOURS[variant])
        ax.set_xticks(range(len(variants)), [VARIANT_WORDS[v].split(" (")[0] for v in variants])
        ax.set(
            title=METRIC_TITLES[column],
            xlim=(-0.5, len(variants) - 0.3),
            ylim=(RETURN_RANGE[0] - 0.5, RETURN_RANGE[1] + 0.5),
        )
        ax.grid(False, axis="x")
    axes[0, 0].plot([], [], "o", ms=3, color="grey", label="one seed")
    axes[0, 0].errorbar(
        [], [], yerr=[], fmt="D", capsize=4, color="grey", label="mean over seeds, 95% interval"
    )
    seeds = curves.seed.nunique()
    axes[0, 0].set_ylabel(
        f"final return, {seeds} seeds per arm\n(mean of the last {FINAL_EPISODES} episodes)"
    )
    legend_below(fig, ncol=2)
    return fig


def plot_covariance(empirical: np.ndarray, kernel: np.ndarray):
    """Empirical covariance of sample-path values beside the kernel."""
    fig, axes = new_figure(1, 2, width=3.4, height=3.0)
    for ax, mat, title in zip(
        axes.ravel(), (empirical, kernel), ("empirical covariance", "kernel"), strict=True
    ):
        im = ax.imshow(mat, vmin=0, vmax=1)
        ax.set_title(title)
        ax.set_xlabel("query point index")
        ax.set_ylabel("query point index")
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8)
    return fig


def plot_scaling(scaling: pd.DataFrame):
    """Wall time of N queries (sample path in one batch, in batches of 128, dense Cholesky)."""
    fig, axes = new_figure(width=5.0)
    ax = axes[0, 0]
    for method, g in scaling.groupby("method"):
        ax.loglog(g.n, g.seconds, "o-", label=method)
    one = scaling[scaling.method == "sample path (one batch)"].set_index("n").seconds
    n = one.index.to_numpy(dtype=float)
    ax.loglog(n, one.iloc[-1] * n * np.log(n) / (n[-1] * np.log(n[-1])), "k:", label="N log N")
    ax.set_xlabel("number of queried states N")
    ax.set_ylabel("wall time (seconds)")
    legend_outside(ax)
    return fig


#: The paper's sentences (keys of ``book/paper_numbers/wang2019.yml``) and the chapter's claims
#: that decide them, per figure.
SENTENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "figure1": {
        "fig1_noise_needs_samples": ("fig1_noise_slows", "fig1_noise_slows_beyond"),
        "fig1_converges_below_sigma": ("fig1_small_sigma", "fig1_small_sigma_beyond"),
        "suggested_reset": ("fig1_resample_helps", "fig1_resample_helps_beyond"),
    },
    "figure2": {
        "fig2_outperforms_baselines": (
            "fig2_beats_input",
            "fig2_beats_dpsgd",
            "fig2_beats_input_beyond",
            "fig2_beats_dpsgd_beyond",
            "fig2_beats_dpsgd_transition_beyond",
        ),
    },
}


#: The recorded runs' figures the claims are decided on, each drawn from its record's curves:
#: the final returns over sigma (Figure 1's claims) and over the methods (Figure 2's) and the
#: learning curves of the paper-profile record, and the recorded pair (the claims keyed
#: ``_pair``).
_PAPER = WangProfile.paper()
_ON_PAPER = ("wang2019-paper", {"curves": CURVES_CSV}, "_paper")
EXHIBITS: dict[str, Exhibit] = by_label(
    Exhibit(
        "fig-wang2019-record-final-sigma",
        *_ON_PAPER,
        lambda data: plot_final_sigma(data["curves"], _PAPER.protocol, SMALL_SIGMA),
    ),
    Exhibit(
        "fig-wang2019-record-final-methods",
        *_ON_PAPER,
        lambda data: plot_final_methods(data["curves"]),
    ),
    Exhibit(
        "fig-wang2019-figure1-paper",
        *_ON_PAPER,
        lambda data: plot_figure1(data["curves"], _PAPER.protocol),
    ),
    Exhibit(
        "fig-wang2019-figure2-paper",
        *_ON_PAPER,
        lambda data: plot_figure2(data["curves"], _PAPER.delta),
    ),
    Exhibit(
        "fig-wang2019-pair",
        "wang2019-pair",
        {"curves": PAIR_CSV},
        "_pair",
        lambda data: plot_pair(data["curves"]),
    ),
)
