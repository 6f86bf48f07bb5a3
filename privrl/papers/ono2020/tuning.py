r"""ono2020, reference set-up: each private arm's step size chosen by a continuous score, and the
arms the inconclusive claims name evaluated at it (issue 34).

The reference set-up's sweep (:func:`.reference.chosen_steps`) picked each step on 5 tuning trials
by most successes; with success rates of 0.2-0.5 at every step that choice is mostly noise. Here:

* **Score.** A tuning trial runs the arm for :data:`TUNING_SUBMISSIONS` submissions without early
  stop; its score is the area under its return curve divided by the budget, the mean score per
  submission :math:`\frac1N\sum_{n=1}^N s_n` (eq. 25's per-episode score :math:`s_n`; a trial
  that diverged scores 0 on the submissions it did not play). An arm's score at a step is the
  mean over :data:`TUNING_TRIALS` (at least 10) trials, with its bootstrap 95% interval
  (:func:`~privrl.chapter.verdicts.bootstrap_interval`); the step with the highest mean wins,
  ties to the smaller step (:func:`step_scores`).
* **Seeds.** The tuning trials' root seed is ``profile.seed +``
  :data:`~privrl.papers.ono2020.reference.TUNING_SEED_OFFSET` (disjoint from the evaluation's root
  ``profile.seed``).
* **Arms.** Tables 1-3's private arms (Laplace |B| = 1 and PRS |B| = 100 at every finite epsilon,
  :func:`private_arms`) over ``profile.reference_steps``.
* **Evaluation.** The arms of the claims that stayed inconclusive at 20 trials
  (:data:`DECIDING_ARMS`: PRS learns at epsilon = 1, 2, 5; Laplace beats PRS at epsilon = 5; the
  median first success time of Laplace at epsilon = 1), plus the non-private baseline the private
  claims are guarded by, each at its chosen step on the trials the claim named plus a margin, in
  batches of :data:`EVAL_BATCH` trials per seed as the reference record (so a batch whose step is
  unchanged repeats the reference record's trials).

:func:`record_tuned` runs both through :func:`privrl.chapter.sweep.run_sweep` (resumable, keyed by
the run functions' results versions) and writes :data:`TUNING_CSV` (tidy: arm, step, trial, AUC),
:data:`TUNED_TRIALS_CSV` (the evaluation's trials, the reference record's columns) and the run
record ``book/measurements/ono2020-tuned.json``::

    python -m privrl.papers.ono2020.tuning record \\
        --cache-dir book/measurements/cache/ono2020-tuned
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter import records
from privrl.chapter.records import RunRecord, command_line, current_commit
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
from privrl.papers.ono2020.reference import FIGURE2_EXTRA, TUNING_SEED_OFFSET, arms
from privrl.papers.ono2020.trials import algorithm_config, run_first_success

#: The record's profile name: ``book/measurements/ono2020-tuned.json``.
TUNED = "tuned"
TUNED_RECORD_JSON = f"{PAPER}-{TUNED}.json"
TUNING_CSV = f"{PAPER}-tuning.csv"
TUNED_TRIALS_CSV = f"{PAPER}-{TUNED}-trials.csv"
#: Tuning trials per arm and step, and their budget (the reference record's tuning budget).
TUNING_TRIALS = 10
TUNING_SUBMISSIONS = PAPER_CAP // 3
#: Evaluation trials per cached run (the reference record's ``trials_per_seed``).
EVAL_BATCH = 20
#: The evaluation's arms ``(mechanism, epsilon, |B|)`` and trials: the trials the inconclusive
#: claims named at 20 (PRS at epsilon = 1, 2, 5: about 76, 39, 30; Laplace against PRS at
#: epsilon = 5: about 45; Laplace's median first success time at epsilon = 1: about 48) plus a
#: margin, in batches of :data:`EVAL_BATCH`; the non-private baseline guards every private claim.
DECIDING_ARMS: dict[tuple[str, float, int], int] = {
    ("laplace", INF, 1): 20,
    ("prs", 1.0, 100): 100,
    ("prs", 2.0, 100): 60,
    ("prs", 5.0, 100): 60,
    ("laplace", 5.0, 1): 60,
    ("laplace", 1.0, 1): 60,
}
#: A short run for the results-version probes.
_PROBE = {"variant": REFERENCE, "mechanism": "laplace", "epsilon": 1.0, "buffer_size": 1,
          "eta": 0.1, "n_submissions": 30, "trials_per_seed": 2}
ARM_COLUMNS = ["mechanism", "epsilon", "buffer_size"]
#: The non-private arm's step: the reference record's chosen step (it succeeds 20/20 there; the
#: private claims only need it as their guard).
REFERENCE_BASELINE_STEP = 0.01


def arm_label(mech: str, eps: float, buffer: int) -> str:
    """``"prs ε=1 |B|=100"``: an arm in the tidy tables and the figure."""
    return f"{mech} ε={eps:g} |B|={buffer}"


@results_version("1", probe=_PROBE, ignore=("seconds",))
def run_tuning_trials(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train ``config['trials_per_seed']`` trials for the whole budget (no early stop); one row
    per trial: ``auc`` (mean score per submission, module docstring), ``first_success`` (eq. 26),
    ``env_steps`` and ``seconds`` (its share of the batch's CPU time, no result)."""
    algo = algorithm_config(config, stop_at_success=False)
    k = int(config["trials_per_seed"])
    start = time.process_time()
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed))
    steps = np.nansum(res.scores, axis=1)
    return pd.DataFrame({
        "trial": np.arange(k), "auc": np.nan_to_num(res.scores, nan=0.0).mean(axis=1),
        "first_success": res.first_success, "env_steps": steps.astype(np.int64),
        "seconds": (time.process_time() - start) * steps / max(steps.sum(), 1.0),
    })  # fmt: skip


@results_version("1", probe=_PROBE, ignore=("seconds",))
def run_tuned_trials(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """An evaluation batch: :func:`~privrl.papers.ono2020.trials.run_first_success` (the same
    numbers) under a declared results version, so the multi-sitting cache survives edits that
    change no number."""
    return run_first_success(config, seed)


def private_arms(profile: OnoProfile) -> list[tuple[str, float, int]]:
    """Tables 1-3's private arms of the reference set-up: Laplace |B| = 1 and PRS |B| = 100 at
    each finite epsilon of ``profile``."""
    return [a for a in arms(profile) if math.isfinite(a[1]) and a not in FIGURE2_EXTRA]


def _config(arm: tuple[str, float, int], eta: float, budget: int, trials: int) -> dict[str, Any]:
    mech, eps, buffer = arm
    out = {"variant": REFERENCE, "mechanism": mech, "epsilon": float(eps),
           "buffer_size": int(buffer), "eta": float(eta), "n_submissions": int(budget),
           "trials_per_seed": int(trials)}
    return {**out, "clip": INF} if math.isinf(eps) else out


def tuning_configs(profile: OnoProfile, chosen_arms: list[tuple[str, float, int]],
                   trials: int = TUNING_TRIALS, budget: int = TUNING_SUBMISSIONS
                   ) -> list[dict[str, Any]]:
    """Each of ``chosen_arms`` at every step of ``profile.reference_steps``: ``trials`` tuning
    trials of ``budget`` submissions."""
    if trials < 10:
        raise ValueError(f"trials must be >= 10 (a step chosen on fewer is noise), got {trials}")
    return [_config(a, step, budget, trials) for a in chosen_arms
            for step in profile.reference_steps]


def step_scores(tuning: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per arm and step (``eta``): ``n_trials``, mean AUC ``auc`` with its bootstrap 95% interval
    ``auc_lo``, ``auc_hi``, and ``chosen`` (True on the arm's highest mean, ties to the smaller
    step)."""
    rows = []
    for (mech, eps, buffer, step), g in tuning.groupby([*ARM_COLUMNS, "eta"]):
        auc = g["auc"].to_numpy(dtype=float)
        lo, hi = bootstrap_interval(np.mean, [auc], seed=seed)
        rows.append({"arm": arm_label(mech, eps, buffer), "mechanism": mech, "epsilon": eps,
                     "buffer_size": buffer, "step_size": step, "n_trials": auc.size,
                     "auc": float(auc.mean()), "auc_lo": lo, "auc_hi": hi})
    out = pd.DataFrame(rows).sort_values([*ARM_COLUMNS, "auc", "step_size"],
                                         ascending=[True, True, True, False, True])
    first = ~out.duplicated(ARM_COLUMNS)
    return out.assign(chosen=first.to_numpy()).sort_values([*ARM_COLUMNS, "step_size"]
                                                          ).reset_index(drop=True)


def chosen_step(scores: pd.DataFrame, arm: tuple[str, float, int]) -> float:
    """The step :func:`step_scores` chose for ``arm``."""
    mech, eps, buffer = arm
    row = scores[scores.chosen & (scores.mechanism == mech) & (scores.epsilon == eps)
                 & (scores.buffer_size == buffer)]
    if len(row) != 1:
        raise ValueError(f"arm: no chosen step for {arm_label(*arm)}")
    return float(row.step_size.iloc[0])


def evaluation_configs(scores: pd.DataFrame, chosen_arms: dict[tuple[str, float, int], int],
                       baseline_step: float = REFERENCE_BASELINE_STEP, budget: int = PAPER_CAP
                       ) -> dict[int, list[dict[str, Any]]]:
    """The evaluation batches by number of seeds: each arm of ``chosen_arms`` (arm -> trials, a
    multiple of :data:`EVAL_BATCH`) at its chosen step (the non-private arm at
    ``baseline_step``, the reference record's), :data:`EVAL_BATCH` trials per seed of ``budget``
    submissions (the paper's)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for arm, trials in chosen_arms.items():
        if trials % EVAL_BATCH or trials < EVAL_BATCH:
            raise ValueError(f"chosen_arms: trials of {arm_label(*arm)} must be a positive "
                             f"multiple of {EVAL_BATCH}, got {trials}")
        step = baseline_step if math.isinf(arm[1]) else chosen_step(scores, arm)
        out.setdefault(trials // EVAL_BATCH, []).append(_config(arm, step, budget, EVAL_BATCH))
    return out


def evaluate(batches: dict[int, list[dict[str, Any]]], root_seed: int, **sweep: Any
             ) -> pd.DataFrame:
    """The evaluation's trials of ``batches`` (:func:`evaluation_configs`), run seed by seed:
    seed ``i`` of every arm that needs more than ``i`` seeds before seed ``i + 1`` of any, so a
    recording stopped early has its arms equally far (``sweep``: options of
    :func:`~privrl.chapter.sweep.run_sweep`, its cache among them)."""
    done = []
    for k in range(1, max(batches) + 1):
        configs = [c for n, group in batches.items() if n >= k for c in group]
        runs = run_sweep(run_tuned_trials, configs, k, root_seed,
                         desc=f"ono2020 tuned evaluation, seed {k - 1}", **sweep)
        last = {tuple(c[col] for col in ARM_COLUMNS) for c in batches.get(k, [])}
        keys = zip(*(runs[col] for col in ARM_COLUMNS), strict=True)
        done.append(runs[[key in last for key in keys]])
    return pd.concat(done, ignore_index=True)


def tuning_frame(tuning: pd.DataFrame) -> pd.DataFrame:
    """The tidy tuning CSV: ``arm, mechanism, epsilon, buffer_size, step_size, trial, auc,
    first_success, env_steps`` (``trial`` numbered over the seeds)."""
    out = tuning.assign(arm=[arm_label(*a) for a in tuning[ARM_COLUMNS].itertuples(index=False)],
                        step_size=tuning["eta"],
                        trial=tuning["seed"] * tuning["trials_per_seed"] + tuning["trial"])
    cols = ["arm", *ARM_COLUMNS, "step_size", "trial", "auc", "first_success", "env_steps"]
    return out[cols].sort_values([*ARM_COLUMNS, "step_size", "trial"]).reset_index(drop=True)


def trials_frame(trials: pd.DataFrame) -> pd.DataFrame:
    """The evaluation's trials in the reference record's columns (``variant, mechanism, epsilon,
    buffer_size, step_size, gravity, trial, first_success, success, env_steps``)."""
    out = trials.assign(step_size=trials["eta"], gravity=GRAVITY_LABEL,
                        trial=trials["seed"] * trials["trials_per_seed"] + trials["trial"])
    cols = ["variant", *ARM_COLUMNS, "step_size", "gravity", "trial", "first_success", "success",
            "env_steps"]
    return out[cols].sort_values(["variant", *ARM_COLUMNS, "trial"]).reset_index(drop=True)


def record_tuned(profile: OnoProfile, *, cache_dir: Any, tune: str = "all",
                 tuning_trials: int = TUNING_TRIALS, tuning_budget: int = TUNING_SUBMISSIONS,
                 evaluation: dict[tuple[str, float, int], int] | None = None,
                 budget: int = PAPER_CAP, directory: Path | None = None,
                 executor: Any = "process", workers: int = 2, progress: bool = True,
                 note: str = "", command: str = "") -> RunRecord:
    """Tune (the private arms of ``evaluation``, default :data:`DECIDING_ARMS`, first; then with
    ``tune="all"`` every private arm of ``profile``) on ``tuning_trials`` trials of
    ``tuning_budget`` submissions, evaluate ``evaluation``'s arms at the chosen steps at
    ``budget``, and write :data:`TUNING_CSV`, :data:`TUNED_TRIALS_CSV` into ``directory``
    (default the book's recorded results) and the run record :data:`TUNED_RECORD_JSON` one
    folder up."""
    if tune not in ("deciding", "all"):
        raise ValueError(f"tune must be 'deciding' or 'all', got {tune!r}")
    commit, start = current_commit(), time.perf_counter()
    dirty = records.code_dirty()
    kw = {"executor": executor, "cache_dir": cache_dir, "progress": progress,
          "max_workers": workers}
    evaluation = DECIDING_ARMS if evaluation is None else evaluation
    deciding = [a for a in evaluation if math.isfinite(a[1])]
    later = [a for a in private_arms(profile) if a not in deciding] if tune == "all" else []
    tuning = [run_sweep(run_tuning_trials,
                        tuning_configs(profile, group, tuning_trials, tuning_budget), 1,
                        profile.seed + TUNING_SEED_OFFSET, desc="ono2020 tuning", **kw)
              for group in (deciding, later) if group]
    tuning_all = pd.concat(tuning, ignore_index=True)
    scores = step_scores(tuning_all)
    trials = evaluate(evaluation_configs(scores, evaluation, budget=budget), profile.seed, **kw)
    record = RunRecord.now(
        notebook=PAPER, profile=TUNED,
        parameters={"profile": profile.profile, "seed": profile.seed,
                    "reference_steps": list(profile.reference_steps),
                    "tuning_trials": tuning_trials, "tuning_submissions": tuning_budget,
                    "tuning_root_seed": profile.seed + TUNING_SEED_OFFSET,
                    "n_submissions": budget, "trials_per_seed": EVAL_BATCH,
                    "evaluation_trials": {arm_label(*a): n for a, n in evaluation.items()}},
        wall_time_s=time.perf_counter() - start, git_commit=commit, git_dirty=dirty,
        compute_s=round(float(tuning_all.seconds.sum() + trials.seconds.sum()), 1),
        env_steps=int(tuning_all.env_steps.sum() + trials.env_steps.sum()),
        workers=workers, note=note, command=command, files=[TUNING_CSV, TUNED_TRIALS_CSV],
        produced_by=[run_tuning_trials.__module__])
    directory = Path(directory) if directory is not None else records.results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    tuning_frame(tuning_all).to_csv(directory / TUNING_CSV, index=False)
    trials_frame(trials).to_csv(directory / TUNED_TRIALS_CSV, index=False)
    record.write(directory.parent / TUNED_RECORD_JSON)
    return record


def recorded_tuned_run(directory: Path | None = None) -> dict[str, Any] | None:
    """The recorded tuning and evaluation: ``{"tuning", "scores", "trials", "record"}``, or
    ``None`` when none is recorded (:func:`privrl.chapter.records.read_recorded`)."""
    out = records.read_recorded({"trials": TUNED_TRIALS_CSV, "tuning": TUNING_CSV},
                                TUNED_RECORD_JSON, directory)
    if out is not None:
        out["scores"] = step_scores(out["tuning"].rename(columns={"step_size": "eta"}))
    return out


def main(argv: list[str] | None = None) -> None:
    """``record``: tune, evaluate and record (:func:`record_tuned`)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.ono2020.tuning")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="tune the private arms by AUC, evaluate the deciding "
                         "arms at the chosen steps, and record both")
    rec.add_argument("--tune", choices=("deciding", "all"), default="all",
                     help="tune the deciding arms only, or every private arm")
    rec.add_argument("--tuning-trials", type=int, default=TUNING_TRIALS)
    rec.add_argument("--max-trials", type=int, default=None, help="evaluate every arm on at "
                     "most this many trials (a multiple of 20: a record of what has landed)")
    rec.add_argument("--workers", type=int, default=2, help="worker processes")
    rec.add_argument("--cache-dir", required=True, help="sweep cache (resumable)")
    rec.add_argument("--out", default=None, help="results directory (default "
                     "book/measurements/results)")
    rec.add_argument("--note", default="")
    args = parser.parse_args(argv)
    command = command_line("privrl.papers.ono2020.tuning", argv)
    cap = args.max_trials or max(DECIDING_ARMS.values())
    record = record_tuned(OnoProfile.paper(), cache_dir=args.cache_dir, tune=args.tune,
                          tuning_trials=args.tuning_trials,
                          evaluation={arm: min(n, cap) for arm, n in DECIDING_ARMS.items()},
                          directory=Path(args.out) if args.out else None,
                          executor="process" if args.workers > 1 else "serial",
                          workers=args.workers, note=args.note, command=command)
    print(json.dumps(record.as_dict(), indent=1, default=str))


if __name__ == "__main__":
    # through the importable module, so that the run functions are cached, pickled and named
    # (produced_by) by their module's name, not ``__main__``
    from privrl.papers.ono2020 import tuning

    tuning.main()
