"""Gohari et al. (2021): the chapter's figures (Figure 2 from live or recorded curves, Theorem 1
over k, the AirRaid teacher, the radii of Lemma 1, times to threshold)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.plotting import new_figure, plot_bands
from privrl.papers.gohari2021 import theory


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
    ("after budget", "aware c = 0.3: teacher after its budget"),
)

#: The diagnostics of :func:`plot_diagnostics` (column, axis label).
DIAGNOSTICS = (
    ("penalised_fraction", "share of answers penalised (16)"),
    ("aux_grad_share", "penalty's share of gradient norm"),
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
        own = [lab for lab in curves.loc[curves["panel"] == panel, "label"].unique() if lab in spent.index]
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
    :func:`~privrl.papers.gohari2021.curves.band95` (recorded), two panels a row; a panel
    without curves of its own (e.g. the radius arms of a recorded design without them) is not
    drawn."""
    student = f"PPO ({student_hidden}, {student_hidden})"
    panels = [(panel, text) for panel, text in PANELS if (curves["panel"] == panel).any()]
    fig, axes = new_figure(max(1, math.ceil(len(panels) / 2)), 2, width=3.6, height=2.9)
    for ax, (panel, _) in zip(axes.flat, panels, strict=False):
        labels = panel_labels(curves, panel, student)
        sub = curves[curves["label"].isin(labels)]
        sub = sub.assign(label=pd.Categorical(sub["label"], labels, ordered=True)).sort_values(
            ["label", "env_steps"]
        )
        plot_bands(ax, sub, "env_steps", hue="label")
        ax.set(xlabel="environment steps", ylabel="average return per episode",
               title=titles.get(panel, panel))
        ax.legend()
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    return fig


def plot_k_grid(grid: pd.DataFrame, eps_limit: float, eta: float):
    """Eq. (12) and eq. (6) over k (m = 6), with the k -> 0 limit of epsilon."""
    fig, ax = new_figure(1, 2, width=4.0)
    ax = ax[0]
    ax[0].semilogx(grid["k"], grid["epsilon"], "o-", label="eq. (12)")
    ax[0].axhline(eps_limit, ls=":", c="gray", label="limit as k -> 0")
    ax[0].set(xlabel="Dirichlet concentration k", ylabel="epsilon per query",
              title=f"m = 6, eta = {eta}")  # fmt: skip
    ax[0].legend()
    ax[1].semilogx(grid["k"], grid["delta"], "o-", label="union bound (upper)")
    ax[1].semilogx(grid["k"], grid["delta (lower bound)"], "s--", label="Bonferroni (lower)")
    ax[1].set(xlabel="Dirichlet concentration k", ylabel="delta per query (eq. 6)")
    ax[1].legend()
    return fig


def plot_diagnostics(diagnostics: pd.DataFrame, labels: list[str], first_spent: int):
    """Per roll-out median over seeds of each of :data:`DIAGNOSTICS` for ``labels`` (tidy:
    label, epoch and the columns), with the first roll-out after the c = 0.3 budget marked; one
    colour per label in every panel."""
    fig, axes = new_figure(1, len(DIAGNOSTICS), width=3.4, height=2.8)
    for ax, (col, name) in zip(axes.flat, DIAGNOSTICS, strict=True):
        for j, label in enumerate(labels):
            g = diagnostics[diagnostics["label"] == label].groupby("epoch")[col].median()
            ax.plot(g.index, g.to_numpy(), lw=1, c=f"C{j}", label=label)
        ax.axvline(first_spent, c="gray", ls=":", lw=0.8)
        ax.set(xlabel="roll-out (dotted: budget spent, c = 0.3)", ylabel=name)
    axes.flat[-1].legend(fontsize="x-small")
    return fig


def plot_airraid_teacher(air: dict[str, Any]):
    """The committed AirRaid teacher's training curve, random play and the kept checkpoint."""
    fig, ax = new_figure(1, 1, width=5.0)
    ax = ax[0, 0]
    curve = air["curve"]
    ax.plot(curve.index, curve.to_numpy(), lw=0.5, alpha=0.4, label="per roll-out")
    ax.plot(curve.index, curve.rolling(50, min_periods=1).mean().to_numpy(), label="mean of 50 roll-outs")
    ax.axhline(air["air_random"], ls=":", c="gray", label="uniformly random play")
    ax.axvline(air["kept_steps"], c="k", lw=0.8, label="kept checkpoint")
    ax.set(xlabel="environment steps", ylabel="average return per episode",
           title="AirRaid teacher (64, 64), training")  # fmt: skip
    ax.legend()
    return fig


def plot_radii(radii: pd.DataFrame, informed: np.ndarray, lam: float):
    """Ball radius alpha = lambda r(k) of each radius of Lemma 1 over k, against the simplex's
    diameter sqrt(2): above it the penalty (16) never acts."""
    fig, ax = new_figure(1, 1, width=5.0)
    ax = ax[0, 0]
    for kind, g in radii.groupby("radius", sort=False):
        ax.loglog(g["k"], g["alpha"], "o-", ms=3, label=kind)
    ax.axhline(theory.SIMPLEX_DIAMETER, c="k", ls=":", label="sqrt(2), the simplex's diameter")
    for k in informed:
        ax.axvline(k, c="gray", lw=0.5, alpha=0.5)
    ax.set(xlabel="Dirichlet concentration k (grey: the c = 0.3 schedule's informed roll-outs)",
           ylabel=f"ball radius lambda r(k), lambda = {lam}")  # fmt: skip
    ax.legend()
    return fig


def plot_times(times: pd.DataFrame, labels: tuple[str, ...]):
    """Time to each threshold per seed; censored runs drawn as open markers at the budget."""
    fig, ax = new_figure(1, 1, width=5.0)
    ax = ax[0, 0]
    for j, label in enumerate(labels):
        g = times[times["label"] == label]
        x = g["q"] + (j - (len(labels) - 1) / 2) * 0.03
        hit = ~g["censored"]
        (line,) = ax.plot(x[hit], g.loc[hit, "steps"], "o", label=label)
        ax.plot(x[~hit], g.loc[~hit, "steps"], "o", mfc="none", c=line.get_color(),
                label=f"{label}, censored at the budget" if (~hit).any() else None)  # fmt: skip
    ax.set(xlabel="threshold q (fraction of the way from random play to the teacher)",
           ylabel="environment steps to reach X_q")  # fmt: skip
    ax.legend()
    return fig
