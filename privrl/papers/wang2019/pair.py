"""Wang and Hegde (2019): the pair that decides "Algorithm 1 ends above input perturbation at
epsilon = 0.45", recorded at :data:`PAIR_SEEDS` seeds per arm.

At the paper profile's 10 seeds the claim is inconclusive (its price then: about 49 seeds per arm);
at 50 seeds per arm it stays inconclusive, about 324 per arm would decide it at that effect. The
pair is the paper profile's two Figure 2 runs at :data:`~privrl.papers.wang2019.profile.CLAIM_EPSILON`
(Algorithm 1 calibrated by Theorem 5 for the updates performed, and input perturbation, each with
the noise of the calibration table :func:`~privrl.papers.wang2019.calibration.privacy_table`),
the same configurations, root seed and seed sequence (seed ``i`` is child ``i`` of the profile's
seed), so its seeds 0-9 are the 10-seed record's runs of these arms. The claim is decided on it
with the same decider (:func:`~privrl.papers.wang2019.claims.beats`: the training return, mean
of the last 10 episodes per seed).

:func:`record_pair` runs them through :func:`privrl.chapter.sweep.run_sweep` with a cache folder
(resumable, keyed by :func:`run_pair_curve`'s results version) and writes
:data:`PAIR_CSV` (the curves table's columns) into the book's recorded results and the run record
``book/measurements/wang2019-pair.json`` (:data:`RECORD_JSON`, profile :data:`PROFILE`)::

    python -m privrl.papers.wang2019.pair record --n-seeds 50 \\
        --cache-dir book/measurements/cache/wang2019-pair
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.records import (
    RecordedRun,
    RunRecord,
    code_dirty,
    command_line,
    current_commit,
    recorded_file,
    recorded_run,
    results_dir,
)
from privrl.chapter.sweep import run_sweep
from privrl.core.results_version import results_version
from privrl.papers.wang2019.calibration import privacy_table
from privrl.papers.wang2019.profile import CLAIM_EPSILON, PAPER, WangProfile
from privrl.papers.wang2019.runs import figure2_configs, figure2_table, run_learning_curve

#: The record's profile name: ``book/measurements/wang2019-pair.json``.
PROFILE = "pair"
PAIR_CSV = f"{PAPER}-{PROFILE}-curves.csv"
RECORD_JSON = f"{PAPER}-{PROFILE}.json"
#: Seeds per arm: the 10-seed verdict's price (about 49) plus a margin; they did not decide it.
PAIR_SEEDS = 50
#: The two arms (Figure 2 variants) the claim compares.
PAIR_VARIANTS = ("functional", "input")
#: A run of three episodes (150 samples, 23 updates) for the results-version probe.
PROBE = {
    "method": "input",
    "reward_std": 5.0,
    "episodes": 3,
    "lr": 0.01,
    "batch_size": 128,
    "eval_episodes": 2,
}


@results_version("1", probe=PROBE)
def run_pair_curve(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One training run of the pair: :func:`~privrl.papers.wang2019.runs.run_learning_curve`
    (the same numbers), under a declared results version so the multi-sitting cache survives
    edits that change no number."""
    return run_learning_curve(config, seed)


def pair_configs(p: WangProfile) -> list[dict[str, Any]]:
    """The Figure 2 configurations (:func:`~privrl.papers.wang2019.runs.figure2_configs`) of
    :data:`PAIR_VARIANTS` at :data:`CLAIM_EPSILON`, in that order."""
    configs = [
        c
        for c in figure2_configs(p, privacy_table(p))
        if c.get("epsilon") == CLAIM_EPSILON and c.get("variant") in PAIR_VARIANTS
    ]
    found = [c["variant"] for c in configs]
    if sorted(found) != sorted(PAIR_VARIANTS):
        raise ValueError(f"profile: epsilons must include {CLAIM_EPSILON:g} (arms found: {found})")
    return sorted(configs, key=lambda c: PAIR_VARIANTS.index(c["variant"]))


def record_pair(
    p: WangProfile,
    n_seeds: int,
    out_dir: str | Path,
    *,
    cache_dir: str | Path,
    executor: Any = "process",
    max_workers: int | None = None,
    progress: bool = True,
    command: str = "",
    note: str = "",
) -> tuple[Path, Path]:
    """Run :func:`pair_configs` over ``n_seeds`` seeds (cached in ``cache_dir``), write
    :data:`PAIR_CSV` into ``out_dir`` (the book's ``book/measurements/results``) and the run
    record :data:`RECORD_JSON` into the folder above it (``note``: how it was run); returns both
    paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    commit = current_commit()
    dirty = code_dirty()
    started, t0 = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
    runs = run_sweep(
        run_pair_curve,
        pair_configs(p),
        n_seeds,
        p.seed,
        cache_dir=cache_dir,
        executor=executor,
        max_workers=max_workers,
        progress=progress,
        desc="wang2019 pair",
        order="seed",
    )
    csv = out / PAIR_CSV
    figure2_table(runs).to_csv(csv, index=False)
    record = RunRecord.now(
        notebook=PAPER,
        profile=PROFILE,
        wall_time_s=time.perf_counter() - t0,
        parameters={
            **p.as_dict(),
            "n_trials": n_seeds,
            "variants": list(PAIR_VARIANTS),
            "epsilon": CLAIM_EPSILON,
        },
        git_commit=commit,
        git_dirty=dirty,
        started=started,
        command=command,
        note=note,
        files=[csv.name],
        produced_by=[run_pair_curve.__module__],
    )
    return csv, record.write(out.parent / RECORD_JSON)


def read_pair() -> tuple[pd.DataFrame, RecordedRun] | None:
    """The recorded pair's curves and run record, or ``None`` when either is missing."""
    csv, run = recorded_file(PAIR_CSV), recorded_run(PAPER, PROFILE)
    return None if csv is None or run is None else (pd.read_csv(csv), run)


def main(argv: list[str] | None = None) -> None:
    """``record``: run the pair and record it (:func:`record_pair`)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.wang2019.pair")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the pair at n seeds per arm and record it")
    rec.add_argument("--n-seeds", type=int, default=PAIR_SEEDS)
    rec.add_argument(
        "--executor",
        default="process",
        help="'process', 'serial' or a Dask scheduler address tcp://HOST:8786",
    )
    rec.add_argument("--max-workers", type=int, default=None)
    rec.add_argument("--cache-dir", required=True, help="the resumable cache of finished runs")
    rec.add_argument("--out", default=None, help="directory (default book/measurements/results)")
    rec.add_argument("--note", default="", help="how it was run, for the run record")
    args = parser.parse_args(argv)
    command = command_line("privrl.papers.wang2019.pair", argv)
    paths = record_pair(
        WangProfile.paper(),
        args.n_seeds,
        args.out or results_dir(),
        cache_dir=args.cache_dir,
        executor=args.executor,
        max_workers=args.max_workers,
        command=command,
        note=args.note,
    )
    print("wrote", *paths)


if __name__ == "__main__":
    # through the importable module, so that the run functions are cached, pickled and named
    # (produced_by) by their module's name, not ``__main__``
    from privrl.papers.wang2019 import pair

    pair.main()
