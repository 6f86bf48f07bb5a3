"""The reference set-up of ono2020: a PGC-A3C that learns, its ablation and step-size sweep,
and the runs the private claims are decided on there.

Everything the paper states is kept (network, loss eqs. 15-18, clip C and Algorithms 2-3, the
epsilon-greedy schedule, 9 asynchronous workers, |B|) plus two changes: actions sampled
``a ~ pi`` in the non-random branch of epsilon-greedy (the paper's ``argmax`` collapses the
policy), and RMSProp at the aggregator instead of eq. (22)'s plain step, its step chosen per arm
(mechanism, epsilon, |B|). The non-private arm (epsilon = inf) is not clipped. Trials run
``profile.reference_submissions`` submissions.

* **Ablation** (:func:`ablation_configs`): the non-private arms that remove one change from the
  reference or add one to the paper's, at the profile's trials and budget.
* **Step-size sweep** (:func:`tuning_configs`, :func:`chosen_steps`): each arm at every step of
  ``profile.reference_steps`` on ``profile.tuning_trials`` trials of
  ``profile.tuning_submissions`` submissions, seeds under root ``profile.seed +``
  :data:`TUNING_SEED_OFFSET` (never an evaluation trial's); the most successes wins, ties to
  the lower censored median first success time, then to the smaller step.
* **Evaluation** (:func:`evaluation_configs`): each arm at its chosen step on the profile's
  seeds, as Tables 1-3 and Figure 2 on the paper's set-up.
"""

from __future__ import annotations

import math
from typing import Any, Unpack

import numpy as np
import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.papers.ono2020.profile import INF, REFERENCE, OnoProfile
from privrl.papers.ono2020.runs import SweepOptions, sweep_keywords
from privrl.papers.ono2020.trials import (
    algorithm_config,
    censored,
    run_first_success,
    run_learning_curve,
)

#: The tuning trials' root seed is ``profile.seed + TUNING_SEED_OFFSET``: their seed sequences
#: are disjoint from the evaluation trials' (root ``profile.seed``).
TUNING_SEED_OFFSET = 10_007
#: The ablation's non-private arms, in the order of the chapter's table.
ABLATION = (
    "ablation_sampled",
    "ablation_greedy_rmsprop",
    "ablation_sampled_no_clip",
    "ablation_clipped_reference",
)
#: Figure 2's arms beyond Tables 1-3: epsilon = 1 with the other buffer size.
FIGURE2_EXTRA = (("laplace", 1.0, 100), ("prs", 1.0, 1))


def arms(profile: OnoProfile) -> list[tuple[str, float, int]]:
    """``(mechanism, epsilon, |B|)`` of every arm of the reference set-up: the non-private
    baseline, Laplace (|B| = 1) and PRS (|B| = 100) at each finite epsilon (Tables 1-3), and
    Figure 2's other buffer sizes at epsilon = 1."""
    finite = [float(e) for e in profile.epsilons if math.isfinite(e)]
    out = [("laplace", INF, 1)] + [("laplace", e, 1) for e in finite]
    out += [("prs", e, 100) for e in finite]
    return out + [a for a in FIGURE2_EXTRA if a[1] in finite]


def _config(mech: str, eps: float, buffer: int, **extra: Any) -> dict[str, Any]:
    out = {"variant": REFERENCE, "mechanism": mech, "epsilon": eps, "buffer_size": buffer}
    if math.isinf(eps):
        out["clip"] = INF
    return {**out, **extra}


def ablation_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """The ablation's non-private arms (:data:`ABLATION`), Laplace clipping where they clip,
    |B| = 1, at the profile's trials and budget."""
    return [
        {
            "variant": v,
            "mechanism": "laplace",
            "epsilon": INF,
            "buffer_size": 1,
            "n_submissions": profile.reference_submissions,
            "trials_per_seed": profile.trials_per_seed,
        }
        for v in ABLATION
    ]


def tuning_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """Every arm at every step of the sweep, on the tuning trials and budget."""
    return [
        _config(
            m,
            e,
            b,
            eta=float(step),
            n_submissions=profile.tuning_submissions,
            trials_per_seed=profile.tuning_trials,
        )
        for m, e, b in arms(profile)
        for step in profile.reference_steps
    ]


def chosen_steps(tuning: pd.DataFrame, cap: int) -> pd.DataFrame:
    """Per arm, the sweep's step sizes ranked: successes (more first), median first success time
    censored at ``cap`` (lower first), step (smaller first); one row per arm and step with
    ``successes``, ``n_trials``, ``median_fst`` and ``chosen`` (True on the winner)."""
    rows = []
    for (mech, eps, buffer, step), g in tuning.groupby(
        ["mechanism", "epsilon", "buffer_size", "eta"]
    ):
        fst = censored(g["first_success"], cap)
        rows.append(
            {
                "mechanism": mech,
                "epsilon": eps,
                "buffer_size": buffer,
                "step_size": step,
                "successes": int(g["success"].sum()),
                "n_trials": len(g),
                "median_fst": float(np.median(fst)),
            }
        )
    out = pd.DataFrame(rows).sort_values(
        ["mechanism", "epsilon", "buffer_size", "successes", "median_fst", "step_size"],
        ascending=[True, True, True, False, True, True],
    )
    first = ~out.duplicated(["mechanism", "epsilon", "buffer_size"])
    return out.assign(chosen=first.to_numpy()).reset_index(drop=True)


def _step_of(steps: pd.DataFrame, mech: str, eps: float, buffer: int) -> float:
    row = steps[
        steps.chosen
        & (steps.mechanism == mech)
        & (steps.epsilon == eps)
        & (steps.buffer_size == buffer)
    ]
    if len(row) != 1:
        raise ValueError(f"no chosen step for {mech} eps={eps:g} |B|={buffer}")
    return float(row.step_size.iloc[0])


def evaluation_configs(profile: OnoProfile, steps: pd.DataFrame) -> list[dict[str, Any]]:
    """Tables 1-3's arms of the reference set-up at their chosen steps (evaluation trials)."""
    return [
        _config(
            m,
            e,
            b,
            eta=_step_of(steps, m, e, b),
            n_submissions=profile.reference_submissions,
            trials_per_seed=profile.trials_per_seed,
        )
        for m, e, b in arms(profile)
        if (m, e, b) not in FIGURE2_EXTRA
    ]


def figure2_reference_configs(profile: OnoProfile, steps: pd.DataFrame) -> list[dict[str, Any]]:
    """Figure 2's four arms at epsilon = 1 (Laplace and PRS, |B| in {1, 100}) of the reference
    set-up at their chosen steps, learning curves without early stop."""
    return [
        _config(
            m,
            1.0,
            b,
            eta=_step_of(steps, m, 1.0, b),
            n_submissions=profile.reference_submissions,
            trials_per_seed=profile.fig2_trials,
            record_every=profile.record_every,
        )
        for m in ("laplace", "prs")
        for b in (1, 100)
    ]


def sweep_reference(
    profile: OnoProfile, **options: Unpack[SweepOptions]
) -> dict[str, pd.DataFrame]:
    """The reference set-up's runs: ``ablation`` and ``trials`` (one row per trial, with
    ``step_size``), ``tuning`` (the sweep's trials), ``steps`` (:func:`chosen_steps`) and
    ``curves`` (Figure 2). Resumable through the sweep cache."""
    kw = sweep_keywords(options)
    if 1.0 not in profile.epsilons:
        raise ValueError("the reference set-up's Figure 2 needs epsilon = 1 in the profile")
    n_seeds = profile.n_trials // profile.trials_per_seed
    tuning = run_sweep(
        run_first_success,
        tuning_configs(profile),
        replicates=1,
        root_seed=profile.seed + TUNING_SEED_OFFSET,
        desc="ono2020 step sweep",
        **kw,
    )
    steps = chosen_steps(tuning, profile.tuning_submissions)
    trials = run_sweep(
        run_first_success,
        ablation_configs(profile) + evaluation_configs(profile, steps),
        replicates=n_seeds,
        root_seed=profile.seed,
        desc="ono2020 reference set-up",
        **kw,
    )
    trials["trial"] = trials["seed"] * profile.trials_per_seed + trials["trial"]
    curves = run_sweep(
        run_learning_curve,
        figure2_reference_configs(profile, steps),
        replicates=1,
        root_seed=profile.seed,
        desc="ono2020 reference figure 2",
        **kw,
    )
    return {
        "tuning": _with_step(tuning),
        "steps": steps,
        "trials": _with_step(trials),
        "curves": _with_step(curves),
    }


def _with_step(frame: pd.DataFrame) -> pd.DataFrame:
    """``eta`` as ``step_size``; where the variant fixes its own step (the ablation), that step."""
    out = frame.rename(columns={"eta": "step_size"})
    if "step_size" not in out:
        out["step_size"] = np.nan
    fixed = out["step_size"].isna()
    out.loc[fixed, "step_size"] = [
        algorithm_config({"variant": v, "epsilon": INF}, stop_at_success=True).eta
        for v in out.loc[fixed, "variant"]
    ]
    return out
