"""Figures of ono2020: Figure 2 (average score, eq. 25), Figure 3 (success ratio, eq. 27) and the
per-report statistics of training. The house style lays figures out with matplotlib's
constrained layout (:mod:`privrl.chapter.plotting`), so no figure calls ``tight_layout``."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from privrl.chapter.plotting import band_plot, new_figure
from privrl.core.algorithms.a3c import DEFAULT_CLIP
from privrl.papers.ono2020.profile import TARGET, eps_label


def plot_figure2(curves: pd.DataFrame, title: str = "") -> Figure:
    """Figure 2: average score (eq. 25) over submissions, Laplace and PRS at epsilon = 1, with
    and without the buffer (mean over trials, band = one standard error)."""
    fig, axes = new_figure(1, 2, sharey=True)
    for ax, mech in zip(axes[0], ("laplace", "prs"), strict=True):
        band_plot(ax, curves[curves.mechanism == mech], "submission", "avg_score",
                  hue="buffer_size", label_fmt="|B| = {}")
        ax.axhline(TARGET, color="k", ls=":", lw=1, label="target 195")
        ax.set_title(f"{'Laplace' if mech == 'laplace' else 'PRS'}, ε = 1 {title}".strip())
        ax.set_xlabel("submissions")
        ax.legend()
    axes[0][0].set_ylabel("average score of the last 10 episodes (steps)")
    axes[0][1].set_ylabel("")
    return fig


def plot_figure3(success_curves: pd.DataFrame, title: str = "", variant: str = "paper") -> Figure:
    """Figure 3: success ratio (eq. 27) against the number of submissions, per epsilon, of
    ``variant`` (the paper's set-up, or the reference set-up)."""
    fig, axes = new_figure(1, 2, sharey=True)
    paper_rows = success_curves[success_curves.variant == variant]
    for ax, mech in zip(axes[0], ("laplace", "prs"), strict=True):
        for eps, g in paper_rows[paper_rows.mechanism == mech].groupby("epsilon"):
            ax.step(g.submission, g.success_ratio, where="post", label=eps_label(eps))
        ax.set_title(f"{'Laplace' if mech == 'laplace' else 'PRS'} {title}".strip())
        ax.set_xlabel("submissions")
        ax.set_ylim(-0.03, 1.03)
        ax.legend()
    axes[0][0].set_ylabel("fraction of trials that succeeded")
    return fig


def plot_failure(diagnostics: pd.DataFrame) -> Figure:
    """Four panels over training (mean over trials): raw report L1 norms (10/50/90% quantiles)
    against the clip C/2 (eq. 19); the L1 size of each applied update (eq. 22); the actor's share
    of the gradient; the fraction of steps taking the episode's most frequent action."""
    fig, axes = new_figure(2, 2, width=4.4, height=3.0)
    ax_norm, ax_update, ax_share, ax_major = axes.ravel()
    paper_rows = diagnostics[diagnostics.variant == "paper"]
    for eps, g in paper_rows.groupby("epsilon"):
        mean = g.groupby("submission").mean(numeric_only=True)
        label = f"paper, {eps_label(eps)}"
        (line,) = ax_norm.plot(mean.index, mean["raw_norm_q50"], label=f"{label}: median")
        ax_norm.fill_between(mean.index, mean["raw_norm_q10"], mean["raw_norm_q90"],
                             color=line.get_color(), alpha=0.2, lw=0)
        ax_update.plot(mean.index, mean["update_norm"], label=label)
        ax_share.plot(mean.index, mean["actor_share"], label=label)
        ax_major.plot(mean.index, mean["majority_fraction"], label=label)
    for variant, g in diagnostics[diagnostics.variant != "paper"].groupby("variant"):
        mean = g.groupby("submission").mean(numeric_only=True)
        ax_major.plot(mean.index, mean["majority_fraction"], ls="--", label=f"{variant} (not "
                      "the paper's)")
    ax_norm.axhline(DEFAULT_CLIP["laplace"] / 2, color="k", ls=":", label="clip C/2 = 0.005")
    ax_norm.set_yscale("log")
    ax_norm.set_ylabel("gradient L1 norm before the clip")
    ax_update.set_yscale("log")
    ax_update.set_ylabel("L1 size of the applied update")
    ax_share.set_ylabel("actor's share of |gradient|_1")
    ax_share.set_ylim(0, 1)
    ax_major.set_ylabel("fraction of steps with the most\nfrequent action")
    for ax in axes.ravel():
        ax.set_xlabel("submissions")
        ax.legend(fontsize=8)
    return fig


def plot_tuning_curves(scores: pd.DataFrame) -> Figure:
    """The step-size tuning of the reference set-up's private arms
    (:func:`~privrl.papers.ono2020.tuning.step_scores`): per arm, the mean area under the return
    curve (mean score per submission) against the RMSProp step, with its bootstrap 95% interval,
    and the chosen step (the highest mean) marked."""
    arms = list(dict.fromkeys(scores.sort_values(["mechanism", "epsilon"]).arm))
    ncols = min(4, len(arms))
    nrows = -(-len(arms) // ncols)
    fig, axes = new_figure(nrows, ncols, width=3.4, height=2.8, sharey=True)
    for ax, label in zip(axes.ravel(), arms, strict=False):
        g = scores[scores.arm == label].sort_values("step_size")
        ax.errorbar(g.step_size, g.auc, yerr=[g.auc - g.auc_lo, g.auc_hi - g.auc], marker="o",
                    capsize=3, label="mean, 95% interval")
        best = g[g.chosen]
        ax.plot(best.step_size, best.auc, marker="*", ms=14, ls="none", color="k",
                label=f"chosen: {best.step_size.iloc[0]:g}")
        ax.set_xscale("log")
        ax.set_title(f"{label} ({int(g.n_trials.min())} trials)", fontsize=9)
        ax.set_xlabel("RMSProp step")
        ax.legend(fontsize=7)
    for ax in axes.ravel()[len(arms):]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel("mean score per submission")
    return fig
