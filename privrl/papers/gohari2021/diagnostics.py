"""Gohari et al. (2021): why the private students learn or do not, from the per
roll-out diagnostics PPO logs (:mod:`privrl.core.algorithms.ppo`,
:meth:`privrl.core.algorithms.kickstarting.Kickstarter.diagnostics`).

* ``penalised_fraction``: the fraction of the roll-out's teacher answers whose penalty (16) is
  non-zero (the student's policy further than :math:`\\alpha_\\lambda` from the answer);
* ``aux_grad_share``: the penalty's share of the policy-gradient norm,
  :math:`\\|\\nabla\\phi\\| / (\\|\\nabla\\phi\\| + \\|\\nabla L^{\\rm clip}\\|)`, at the roll-out policy;
* ``entropy``: the student's mean policy entropy over the roll-out's states (nats; uniform play
  over m actions is :math:`\\log m`).

:func:`diagnostics_table` keeps them per (label, seed, roll-out); :func:`diagnostics_summary`
averages them over the roll-outs the c = 0.3 teacher answers from its data and over those after
its budget is spent, per configuration (median over seeds); :func:`penalised_after_budget` keeps
the aware student's penalised fraction after the budget per radius, and
:func:`after_budget_finding` states in one paragraph what they and the final returns say about the teacher's spent answers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privrl.papers.gohari2021.curves import final_returns
from privrl.papers.gohari2021.profile import AWARE, UNAWARE, GohariProfile
from privrl.papers.gohari2021.runs import after_budget_label, informed_rollouts
from privrl.papers.gohari2021.teacher import load_teacher

#: The diagnostics, in the order they are shown.
COLUMNS: tuple[str, ...] = ("penalised_fraction", "aux_grad_share", "entropy")
#: Arm (c): the c = 0.3 aware student with the union radius (the label runs.figure2_configs gives it).
UNION = f"{AWARE}, union radius"


def diagnostic_labels(profile: GohariProfile, runs: pd.DataFrame) -> list[str]:
    """The configurations the diagnostics compare: plain PPO of the student's size, the c = 0.3
    aware and unaware students and the deciding arms (union radius, silent teacher) that ran."""
    wanted = [
        profile.baseline_labels()[1],
        AWARE,
        UNAWARE,
        UNION,
        *(after_budget_label(a) for a in profile.after_budget_arms),
    ]
    present = set(runs["label"])
    return [label for label in dict.fromkeys(wanted) if label in present]


def diagnostics_table(runs: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Per (label, seed, epoch) the diagnostics of :data:`COLUMNS` (NaN where a run has none,
    e.g. the penalty of plain PPO)."""
    sub = runs[runs["label"].isin(labels)]
    cols = {c: sub[c] if c in sub else pd.Series(np.nan, index=sub.index) for c in COLUMNS}
    return pd.DataFrame({"label": sub["label"], "seed": sub["seed"], "epoch": sub["epoch"], **cols})


def first_spent_rollout(profile: GohariProfile, coefficient: float = 0.3) -> int:
    """The first roll-out after the ``coefficient`` schedule's budget is spent (k_t < k_min)."""
    return informed_rollouts(profile.k0, coefficient, profile.k_min)


def diagnostics_summary(table: pd.DataFrame, first_spent: int) -> pd.DataFrame:
    """Per label and phase (roll-outs ``< first_spent``: "teacher informed", the rest: "budget
    spent") the median over seeds of each run's mean diagnostic."""
    phase = np.where(table["epoch"] < first_spent, "teacher informed", "budget spent")
    per_run = (
        table.assign(phase=phase)
        .groupby(["label", "phase", "seed"], sort=False)[list(COLUMNS)]
        .mean()
    )
    return per_run.groupby(level=["label", "phase"], sort=False).median()


def budget_spent(summary: pd.DataFrame) -> pd.DataFrame | None:
    """The "budget spent" rows of a :func:`diagnostics_summary`, or ``None`` when the run has
    no roll-out after the c = 0.3 budget."""
    if "budget spent" not in set(summary.index.get_level_values("phase")):
        return None
    return summary.xs("budget spent", level="phase")


def penalised_after_budget(summary: pd.DataFrame) -> dict[str, float]:
    """The c = 0.3 aware student's penalised fraction after its budget, with the Monte Carlo
    (``"aware"``) and the union radius (``"union"``); NaN where the run has no such arm or no
    roll-out after the budget."""
    spent = budget_spent(summary)
    return {
        key: float(spent.loc[label, "penalised_fraction"])
        if spent is not None and label in spent.index
        else float("nan")
        for key, label in (("aware", AWARE), ("union", UNION))
    }


def after_budget_finding(runs: pd.DataFrame, summary: pd.DataFrame, profile: GohariProfile) -> str:
    """One paragraph from a run's diagnostics ``summary`` (:func:`diagnostics_summary`) and final
    returns (:func:`~privrl.papers.gohari2021.curves.final_returns`, median over seeds): after
    the c = 0.3 budget, how often the aware student is penalised towards random answers and the
    penalty's share of its gradient, under the Monte Carlo (arm a) and union (arm c) radii; its
    entropy against plain PPO's; and the median final returns of plain PPO, arm (a), the silent
    teacher (arm b) and arm (c). Only the arms the run has are named; empty when the run has no
    roll-out after the budget or no c = 0.3 aware student."""
    spent = budget_spent(summary)
    if spent is None or AWARE not in spent.index:
        return ""
    small = profile.baseline_labels()[1]
    arms = {
        AWARE: "(a) random answers, Monte Carlo radius",
        UNION: "(c) union radius",
        after_budget_label("silent"): "(b) teacher silent",
    }
    penalty = "; ".join(
        f"{name}: penalty active on {spent.loc[label, 'penalised_fraction']:.0%} of the answers, "
        f"{spent.loc[label, 'aux_grad_share']:.0%} of the policy-gradient norm"
        for label, name in arms.items()
        if label in spent.index and "silent" not in label
    )
    entropy = "; ".join(
        f"{name.split(' ')[0]} {spent.loc[label, 'entropy']:.2f}"
        for label, name in {small: "PPO", **arms}.items()
        if label in spent.index
    )
    final = final_returns(runs).groupby("label", sort=False)["avg_return"].median()
    ends = "; ".join(
        f"{name} {final[label]:.0f}"
        for label, name in {small: f"plain {small}", **arms}.items()
        if label in final.index
    )
    return (
        f"After the c = 0.3 budget (roll-outs {first_spent_rollout(profile)} to {runs['epoch'].max()}, "
        f"median over {runs['seed'].nunique()} seeds of each run's mean): {penalty}. Policy entropy "
        f"(nats; uniform play {np.log(load_teacher(profile.env)[1]['n_actions']):.2f}): {entropy}. Median final "
        f"returns: {ends}."
    )
