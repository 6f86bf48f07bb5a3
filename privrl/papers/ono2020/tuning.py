r"""ono2020, reference set-up: one protocol for every private arm's RMSProp step, chosen by the
claims' own metric on tuning trials, and every arm evaluated at it on fresh trials.

* **Arms.** Tables 1-3's private arms (:func:`private_arms`) over ``profile.reference_steps``;
  the non-private baseline at :data:`REFERENCE_BASELINE_STEP`.
* **Tuning.** :data:`TUNING_TRIALS` trials per arm and step of :data:`TUNING_SUBMISSIONS`
  submissions, no early stop; a trial succeeds when its first success time (eq. 26) is within
  the budget; its AUC is :math:`\frac1N\sum_{n=1}^N s_n` (eq. 25's scores, 0 after divergence).
* **Rule.** Per arm, the most tuning successes, ties to the higher mean AUC, then the smaller
  step (:func:`step_scores`, ``chosen``); the highest mean AUC (``chosen_auc``) is a sensitivity
  reading, never a verdict.
* **Seeds.** Tuning root ``profile.seed +`` :data:`TUNING_ROOT_OFFSET`, evaluation root
  ``profile.seed +`` :data:`EVALUATION_ROOT_OFFSET`: disjoint from each other and from every
  earlier tuning and evaluation, so the evaluation's trials were never looked at before.
* **Evaluation.** :data:`EVAL_TRIALS` trials per arm at its chosen step; the sensitivity arms on
  the same seeds (common random numbers).

:func:`record_tuned` (``python -m privrl.papers.ono2020.tuning record --cache-dir DIR``) runs
both, resumably, and writes :data:`TUNING_CSV`, :data:`TUNED_TRIALS_CSV` and the run record.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter import records
from privrl.chapter.records import RunRecord, command_line
from privrl.chapter.sweep import run_sweep
from privrl.chapter.verdicts import bootstrap_interval
from privrl.core.algorithms.a3c import train_pgc_a3c
from privrl.core.results_version import results_version
from privrl.papers.ono2020.profile import (
    GRAVITY_LABEL,
    INF,
    PAPER,
    PAPER_CAP,
    REFERENCE,
    OnoProfile,
)
from privrl.papers.ono2020.recorded import (
    REFERENCE_TRIALS_COLUMNS,
    Recording,
    add_recording_arguments,
    recording_started,
)
from privrl.papers.ono2020.reference import FIGURE2_EXTRA, arms
from privrl.papers.ono2020.trials import algorithm_config, run_first_success

#: The record's profile name: ``book/measurements/ono2020-tuned.json``.
TUNED = "tuned"
TUNED_RECORD_JSON = f"{PAPER}-{TUNED}.json"
TUNING_CSV = f"{PAPER}-tuning.csv"
TUNED_TRIALS_CSV = f"{PAPER}-{TUNED}-trials.csv"
#: Tuning trials per arm and step, and their budget (the paper's).
TUNING_TRIALS = 10
TUNING_SUBMISSIONS = PAPER_CAP
#: Evaluation trials per arm (the paper's count), one cached run each.
EVAL_TRIALS = 20
#: Root seed offsets of the tuning and of the evaluation (module docstring, **Seeds**).
TUNING_ROOT_OFFSET = 30_011
EVALUATION_ROOT_OFFSET = 20_011
#: A short run for the results-version probes.
_PROBE = {
    "variant": REFERENCE,
    "mechanism": "laplace",
    "epsilon": 1.0,
    "buffer_size": 1,
    "eta": 0.1,
    "n_submissions": 30,
    "trials_per_seed": 2,
}
ARM_COLUMNS = ["mechanism", "epsilon", "buffer_size"]
#: The criteria of :func:`step_scores`: the verdicts' (most tuning successes) and the
#: sensitivity reading's (highest mean AUC).
CRITERIA = {"successes": "chosen", "auc": "chosen_auc"}
#: The non-private arm's step: the reference record's chosen step (it succeeds 20/20 there; the
#: private claims only need it as their guard).
REFERENCE_BASELINE_STEP = 0.01
BASELINE = ("laplace", INF, 1)


def arm_label(mech: str, eps: float, buffer: int) -> str:
    """``"prs ε=1 |B|=100"``: an arm in the tidy tables and the figure."""
    return f"{mech} ε={eps:g} |B|={buffer}"


@results_version("2", probe=_PROBE, ignore=("seconds",))
def run_tuning_trials(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train ``config['trials_per_seed']`` trials for the whole budget (no early stop); one row
    per trial: ``auc`` (mean score per submission, module docstring), ``first_success`` (eq. 26),
    ``env_steps`` and ``seconds`` (its share of the batch's CPU time, no result)."""
    algo = algorithm_config(config, stop_at_success=False)
    k = int(config["trials_per_seed"])
    start = time.process_time()
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed))
    steps = np.nansum(res.scores, axis=1)
    return pd.DataFrame(
        {
            "trial": np.arange(k),
            "auc": np.nan_to_num(res.scores, nan=0.0).mean(axis=1),
            "first_success": res.first_success,
            "env_steps": steps.astype(np.int64),
            "seconds": (time.process_time() - start) * steps / max(steps.sum(), 1.0),
        }
    )


@results_version("2", probe=_PROBE, ignore=("seconds",))
def run_tuned_trials(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """An evaluation batch: :func:`~privrl.papers.ono2020.trials.run_first_success` (the same
    numbers) under a declared results version, so the multi-sitting cache survives edits that
    change no number."""
    return run_first_success(config, seed)


def private_arms(profile: OnoProfile) -> list[tuple[str, float, int]]:
    """Tables 1-3's private arms of the reference set-up: Laplace |B| = 1 and PRS |B| = 100 at
    each finite epsilon of ``profile``."""
    return [a for a in arms(profile) if math.isfinite(a[1]) and a not in FIGURE2_EXTRA]


def seed_roots(profile: OnoProfile) -> dict[str, int]:
    """The root seeds of the tuning and of the evaluation (module docstring, **Seeds**)."""
    return {
        "tuning": profile.seed + TUNING_ROOT_OFFSET,
        "evaluation": profile.seed + EVALUATION_ROOT_OFFSET,
    }


def _config(arm: tuple[str, float, int], eta: float, budget: int, trials: int) -> dict[str, Any]:
    mech, eps, buffer = arm
    out = {
        "variant": REFERENCE,
        "mechanism": mech,
        "epsilon": float(eps),
        "buffer_size": int(buffer),
        "eta": float(eta),
        "n_submissions": int(budget),
        "trials_per_seed": int(trials),
    }
    return {**out, "clip": INF} if math.isinf(eps) else out


def tuning_configs(
    profile: OnoProfile,
    chosen_arms: list[tuple[str, float, int]],
    trials: int = TUNING_TRIALS,
    budget: int = TUNING_SUBMISSIONS,
) -> list[dict[str, Any]]:
    """Each of ``chosen_arms`` at every step of ``profile.reference_steps``: ``trials`` tuning
    trials of ``budget`` submissions."""
    if trials < 10:
        raise ValueError(f"trials must be >= 10 (a step chosen on fewer is noise), got {trials}")
    return [
        _config(a, step, budget, trials) for a in chosen_arms for step in profile.reference_steps
    ]


def _first(frame: pd.DataFrame, keys: list[str], ascending: list[bool]) -> np.ndarray:
    order = frame.sort_values([*ARM_COLUMNS, *keys], ascending=[True] * 3 + ascending)
    first = order.index[~order.duplicated(ARM_COLUMNS).to_numpy()]
    return frame.index.isin(first)


def step_scores(tuning: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per arm and step (``eta``): ``n_trials``, ``successes`` (finite ``first_success``: success
    within the tuning budget), mean AUC ``auc`` with its bootstrap 95% interval ``auc_lo``,
    ``auc_hi``; ``chosen`` (the arm's most successes, ties to the higher mean AUC, then to the
    smaller step) and ``chosen_auc`` (the highest mean AUC, ties to the smaller step)."""
    rows = []
    for (mech, eps, buffer, step), g in tuning.groupby([*ARM_COLUMNS, "eta"]):
        auc = g["auc"].to_numpy(dtype=float)
        lo, hi = bootstrap_interval(np.mean, [auc], seed=seed)
        rows.append(
            {
                "arm": arm_label(mech, eps, buffer),
                "mechanism": mech,
                "epsilon": eps,
                "buffer_size": buffer,
                "step_size": step,
                "n_trials": auc.size,
                "successes": int(np.isfinite(g["first_success"].to_numpy(float)).sum()),
                "auc": float(auc.mean()),
                "auc_lo": lo,
                "auc_hi": hi,
            }
        )
    out = pd.DataFrame(rows).sort_values([*ARM_COLUMNS, "step_size"]).reset_index(drop=True)
    return out.assign(
        chosen=_first(out, ["successes", "auc", "step_size"], [False, False, True]),
        chosen_auc=_first(out, ["auc", "step_size"], [False, True]),
    )


def chosen_step(
    scores: pd.DataFrame, arm: tuple[str, float, int], criterion: str = "successes"
) -> float:
    """The step :func:`step_scores` chose for ``arm`` under ``criterion`` (:data:`CRITERIA`)."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {sorted(CRITERIA)}, got {criterion!r}")
    mech, eps, buffer = arm
    row = scores[
        scores[CRITERIA[criterion]]
        & (scores.mechanism == mech)
        & (scores.epsilon == eps)
        & (scores.buffer_size == buffer)
    ]
    if len(row) != 1:
        raise ValueError(f"arm: no chosen step for {arm_label(*arm)}")
    return float(row.step_size.iloc[0])


def evaluation_configs(
    scores: pd.DataFrame,
    chosen_arms: list[tuple[str, float, int]],
    criterion: str = "successes",
    baseline_step: float = REFERENCE_BASELINE_STEP,
    budget: int = PAPER_CAP,
    trials: int = EVAL_TRIALS,
) -> list[dict[str, Any]]:
    """Each of ``chosen_arms`` at its step chosen under ``criterion`` (the non-private arm at
    ``baseline_step``, the reference record's): ``trials`` trials of ``budget`` submissions (the
    paper's)."""
    return [
        _config(
            arm,
            baseline_step if math.isinf(arm[1]) else chosen_step(scores, arm, criterion),
            budget,
            trials,
        )
        for arm in chosen_arms
    ]


def sensitivity_configs(
    scores: pd.DataFrame,
    chosen_arms: list[tuple[str, float, int]],
    budget: int = PAPER_CAP,
    trials: int = EVAL_TRIALS,
) -> list[dict[str, Any]]:
    """The private arms of ``chosen_arms`` whose AUC-chosen step differs from the chosen one, at
    the AUC-chosen step (:func:`evaluation_configs`)."""
    private = [
        a
        for a in chosen_arms
        if math.isfinite(a[1]) and chosen_step(scores, a, "auc") != chosen_step(scores, a)
    ]
    return evaluation_configs(scores, private, "auc", budget=budget, trials=trials)


def evaluated_at(
    trials: pd.DataFrame, scores: pd.DataFrame, criterion: str = "successes"
) -> pd.DataFrame:
    """The rows of ``trials`` (an evaluation, :data:`TUNED_TRIALS_CSV`'s columns) of each tuned
    arm at its step chosen under ``criterion`` (:func:`chosen_step`), and every row of an arm
    ``scores`` did not tune (the non-private baseline); an arm not evaluated at that step has no
    rows."""
    steps = {
        arm: chosen_step(scores, arm, criterion)
        for arm in set(scores[ARM_COLUMNS].itertuples(index=False, name=None))
    }
    keep = [
        steps.get((mech, eps, buffer), step) == step
        for mech, eps, buffer, step in trials[[*ARM_COLUMNS, "step_size"]].itertuples(
            index=False, name=None
        )
    ]
    return trials[np.asarray(keep, dtype=bool)].reset_index(drop=True)


def tuning_frame(tuning: pd.DataFrame) -> pd.DataFrame:
    """The tidy tuning CSV: ``arm, mechanism, epsilon, buffer_size, step_size, trial, auc,
    first_success, env_steps`` (``trial`` numbered over the seeds)."""
    out = tuning.assign(
        arm=[arm_label(*a) for a in tuning[ARM_COLUMNS].itertuples(index=False)],
        step_size=tuning["eta"],
        trial=tuning["seed"] * tuning["trials_per_seed"] + tuning["trial"],
    )
    cols = ["arm", *ARM_COLUMNS, "step_size", "trial", "auc", "first_success", "env_steps"]
    return out[cols].sort_values([*ARM_COLUMNS, "step_size", "trial"]).reset_index(drop=True)


def trials_frame(trials: pd.DataFrame) -> pd.DataFrame:
    """The evaluation's trials in the reference record's columns (``variant, mechanism, epsilon,
    buffer_size, step_size, gravity, trial, first_success, success, env_steps``)."""
    out = trials.assign(
        step_size=trials["eta"],
        gravity=GRAVITY_LABEL,
        trial=trials["seed"] * trials["trials_per_seed"] + trials["trial"],
    )
    return (
        out[REFERENCE_TRIALS_COLUMNS]
        .sort_values(["variant", *ARM_COLUMNS, "step_size", "trial"])
        .reset_index(drop=True)
    )


def record_tuned(
    profile: OnoProfile,
    how: Recording,
    *,
    tuning_trials: int = TUNING_TRIALS,
    tuning_budget: int = TUNING_SUBMISSIONS,
    budget: int = PAPER_CAP,
    trials: int = EVAL_TRIALS,
    command: str = "",
) -> RunRecord:
    """Tune every private arm of ``profile`` on ``tuning_trials`` trials of ``tuning_budget``
    submissions, evaluate the baseline and every private arm at its chosen step, then the
    sensitivity arms (:func:`sensitivity_configs`), ``trials`` trials of ``budget`` each, and
    write :data:`TUNING_CSV`, :data:`TUNED_TRIALS_CSV` into ``how.directory`` (default the
    book's recorded results) and the run record :data:`TUNED_RECORD_JSON` one folder up."""
    commit, dirty, start = recording_started()
    kw = how.options
    roots = seed_roots(profile)
    private = private_arms(profile)
    tuning = run_sweep(
        run_tuning_trials,
        tuning_configs(profile, private, tuning_trials, tuning_budget),
        1,
        roots["tuning"],
        desc="ono2020 tuning",
        **kw,
    )
    scores = step_scores(tuning)
    evaluated = [
        run_sweep(run_tuned_trials, configs, 1, roots["evaluation"], desc=desc, **kw)
        for configs, desc in (
            (
                evaluation_configs(scores, [BASELINE, *private], budget=budget, trials=trials),
                "ono2020 tuned evaluation",
            ),
            (
                sensitivity_configs(scores, private, budget=budget, trials=trials),
                "ono2020 sensitivity evaluation",
            ),
        )
        if configs
    ]
    runs = pd.concat(evaluated, ignore_index=True)
    record = RunRecord.now(
        notebook=PAPER,
        profile=TUNED,
        parameters={
            "profile": profile.profile,
            "seed": profile.seed,
            "reference_steps": list(profile.reference_steps),
            "tuning_trials": tuning_trials,
            "tuning_submissions": tuning_budget,
            "tuning_root_seed": roots["tuning"],
            "evaluation_root_seed": roots["evaluation"],
            "n_submissions": budget,
            "trials_per_seed": trials,
            "rule": "most tuning successes, then mean AUC, then the smaller step",
        },
        wall_time_s=time.perf_counter() - start,
        git_commit=commit,
        git_dirty=dirty,
        compute_s=round(float(tuning.seconds.sum() + runs.seconds.sum()), 1),
        env_steps=int(tuning.env_steps.sum() + runs.env_steps.sum()),
        workers=how.workers,
        note=how.note,
        command=command,
        files=[TUNING_CSV, TUNED_TRIALS_CSV],
        produced_by=[run_tuning_trials.__module__],
    )
    directory = Path(how.directory) if how.directory is not None else records.results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    tuning_frame(tuning).to_csv(directory / TUNING_CSV, index=False)
    trials_frame(runs).to_csv(directory / TUNED_TRIALS_CSV, index=False)
    record.write(directory.parent / TUNED_RECORD_JSON)
    return record


#: The recorded files, by the name :func:`recorded_tuned_run` gives their frames.
TUNED_FILES = {"trials": TUNED_TRIALS_CSV, "tuning": TUNING_CSV}


def recorded_scores(tuning: pd.DataFrame) -> pd.DataFrame:
    """:func:`step_scores` of the recorded tuning (:data:`TUNING_CSV`'s columns)."""
    return step_scores(tuning.rename(columns={"step_size": "eta"}))


def recorded_tuned_run(directory: Path | None = None) -> dict[str, Any] | None:
    """The recorded tuning and evaluation: ``{"tuning", "scores", "trials", "record"}``, or
    ``None`` when none is recorded (:func:`privrl.chapter.records.read_recorded`)."""
    out = records.read_recorded(TUNED_FILES, TUNED_RECORD_JSON, directory)
    if out is not None:
        out["scores"] = recorded_scores(out["tuning"])
    return out


def decided_trials(recorded: Mapping[str, Any]) -> pd.DataFrame:
    """The evaluation trials the claims are decided on, from the recorded frames
    (:data:`TUNED_FILES`): each private arm at its step with the most tuning successes, the
    non-private baseline at its own (:func:`evaluated_at`)."""
    return evaluated_at(recorded["trials"], recorded_scores(recorded["tuning"]))


def main(argv: list[str] | None = None) -> None:
    """``record``: tune, evaluate and record (:func:`record_tuned`)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.ono2020.tuning")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser(
        "record",
        help="tune every private arm by tuning successes, evaluate "
        "every arm at its chosen step on fresh trials, and record both",
    )
    rec.add_argument("--tuning-trials", type=int, default=TUNING_TRIALS)
    add_recording_arguments(rec)
    args = parser.parse_args(argv)
    record = record_tuned(
        OnoProfile.paper(),
        Recording.of(args),
        tuning_trials=args.tuning_trials,
        command=command_line("privrl.papers.ono2020.tuning", argv),
    )
    print(json.dumps(record.as_dict(), indent=1, default=str))


if __name__ == "__main__":
    # through the importable module, so that the run functions are cached, pickled and named
    # (produced_by) by their module's name, not ``__main__``
    from privrl.papers.ono2020 import tuning

    tuning.main()
