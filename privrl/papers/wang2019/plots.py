"""Figures of the Wang and Hegde (2019) chapter (house style from :mod:`privrl.chapter.plotting`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from privrl.chapter.plotting import new_figure

#: Returns lie in [0, 25]: 50 steps of reward 0.5 - |s' - 0.5| in [0, 0.5].
RETURN_RANGE = (0.0, 25.0)
RETURN_LABELS = {
    "eval_return": "return of the released function\n(greedy, fixed episodes)",
    "train_return": "training return\n(epsilon-greedy on Q + g)",
}


def curve_panel(
    ax: plt.Axes, curves: pd.DataFrame, hue: str, column: str, label_fmt: str = "{}"
) -> None:
    """Mean over seeds with a 95% t-interval band (clipped to the possible returns) and each
    seed as a faint line, per ``hue``."""
    for i, (key, group) in enumerate(curves.groupby(hue, sort=True)):
        color = f"C{i}"
        wide = group.pivot_table(index="samples", columns="seed", values=column)
        ax.plot(wide.index, wide.to_numpy(), color=color, alpha=0.12, lw=0.5)
        mean = wide.mean(axis=1)
        n = wide.shape[1]
        if n > 1:
            half = stats.t.ppf(0.975, n - 1) * wide.std(axis=1, ddof=1) / np.sqrt(n)
            lo, hi = (np.clip(mean + sign * half, *RETURN_RANGE) for sign in (-1, 1))
            ax.fill_between(wide.index, lo, hi, color=color, alpha=0.2, lw=0)
        ax.plot(wide.index, mean, color=color, lw=1.6, label=label_fmt.format(key))
    ax.set_xlabel("samples trained on (transitions)")
    ax.set_ylabel(RETURN_LABELS[column])
    ax.set_ylim(RETURN_RANGE[0] - 0.5, RETURN_RANGE[1] + 0.5)


def plot_figure1(curves: pd.DataFrame, protocol: str):
    """Figure 1: Algorithm 1 for each noise amplitude; columns resampled every round / never,
    rows the training return the paper plots and the released function's greedy return."""
    fig1 = curves[curves.sigma.notna() & (curves.protocol == protocol)]
    fig, axes = new_figure(2, 2, width=4.2, height=3.0, sharex=True, layout="constrained")
    for j, resample in enumerate(("every", "never")):
        for i, column in enumerate(("train_return", "eval_return")):
            curve_panel(
                axes[i, j], fig1[fig1["resample"] == resample], "sigma", column, "sigma = {:g}"
            )
        every = "every episode" if protocol == "authors" else "every update"
        axes[0, j].set_title(
            f"paths redrawn {every}" if resample == "every" else "paths never redrawn (J = 1)"
        )
    _legend_below(fig, axes[0, 0])
    return fig


def _legend_below(fig: plt.Figure, ax: plt.Axes) -> None:
    """One legend for the figure, below its axes (it would hide curves inside a panel)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 4), fontsize=8)


#: Figure 2's legend: what each arm's privacy is (output perturbation's release has none; the
#: usual DP-SGD protects a transition, not a reward function).
VARIANT_LABELS = {
    "output": "output: no guarantee",
    "dpsgd": "dpsgd (one transition)",
    "dpsgd (reward fn)": "dpsgd (reward function)",
    "none": "non-private",
}


def plot_figure2(curves: pd.DataFrame, delta: float):
    """Figure 2: every method at each epsilon (columns), the training return the paper plots
    (top) and the released function's greedy return (bottom), non-private for reference; output
    perturbation labelled "no guarantee" (:data:`VARIANT_LABELS`)."""
    fig2 = curves[curves.epsilon.notna()]
    fig2 = fig2.assign(variant=fig2.variant.replace(VARIANT_LABELS))
    ref = fig2[~np.isfinite(fig2.epsilon)]
    eps_list = sorted(fig2.epsilon[np.isfinite(fig2.epsilon)].unique(), reverse=True)
    fig, axes = new_figure(2, len(eps_list), width=4.6, height=3.2, sharex=True, sharey=True,
                           layout="constrained")
    for j, eps in enumerate(eps_list):
        for i, column in enumerate(("train_return", "eval_return")):
            curve_panel(axes[i, j], pd.concat([fig2[fig2.epsilon == eps], ref]), "variant",
                        column)
        axes[0, j].set_title(f"target epsilon = {eps:g}, delta = {delta:g}")
    _legend_below(fig, axes[0, 0])
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
    fig, axes = new_figure()
    ax = axes[0, 0]
    for method, g in scaling.groupby("method"):
        ax.loglog(g.n, g.seconds, "o-", label=method)
    one = scaling[scaling.method == "sample path (one batch)"].set_index("n").seconds
    n = one.index.to_numpy(dtype=float)
    ax.loglog(n, one.iloc[-1] * n * np.log(n) / (n[-1] * np.log(n[-1])), "k:", label="N log N")
    ax.set_xlabel("number of queried states N")
    ax.set_ylabel("wall time (seconds)")
    ax.legend(fontsize=8)
    return fig
