"""Gohari et al. (2021) at the paper's horizon: the recorder of the deciding arms at 4,000
roll-outs of 1,000 interactions, on the numpy run function
:func:`~privrl.papers.gohari2021.fast_student.run_agent_fast`.

Arms (:func:`horizon_configs`): plain PPO (32, 32) and (64, 64) (Figure 2a; the speed-up's
reference), the privacy-aware student at c = 0.3 with random answers after the budget (arm a,
radius ``"mc"``), with the teacher silent after the budget (arm b) and with the union radius
(arm c); every other setting is the paper profile's.

:func:`record_horizon` runs them through :func:`privrl.chapter.sweep.run_sweep` with a resumable
cache folder (finished runs kept, runs in flight resumed from their checkpoints) and writes
:data:`HORIZON_CSV` (:func:`~privrl.papers.gohari2021.recorded.paper_curves`) into the book's
recorded results and the run record :data:`RECORD_JSON`. Command::

    python -m privrl.papers.gohari2021.horizon record --n-trials 5 --epochs 4000 \
        --cache-dir book/measurements/cache/gohari2021-horizon
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from privrl.chapter.records import (
    command_line,
    results_dir,
)
from privrl.chapter.sweep import run_sweep
from privrl.papers.gohari2021.fast_student import run_agent_fast
from privrl.papers.gohari2021.profile import AWARE, PAPER, GohariProfile
from privrl.papers.gohari2021.recorded import Recording, add_recording_arguments, paper_curves
from privrl.papers.gohari2021.runs import after_budget_label, figure2_configs

#: The record's profile name: ``book/measurements/gohari2021-horizon.json``.
PROFILE = "horizon"
HORIZON_CSV = f"{PAPER}-{PROFILE}-curves.csv"
RECORD_JSON = f"{PAPER}-{PROFILE}.json"
#: The union-radius arm (c).
UNION = f"{AWARE}, union radius"


def horizon_profile(**overrides: Any) -> GohariProfile:
    """The paper profile with the arms of :func:`horizon_configs` (no supplement), then
    ``overrides`` (e.g. ``n_trials``, ``epochs``, ``seed``)."""
    return GohariProfile.paper(
        **{
            "supplement": False,
            "radius_arms": ("union",),
            "after_budget_arms": ("silent",),
            **overrides,
        }
    )


def horizon_labels(profile: GohariProfile) -> tuple[str, ...]:
    """The deciding arms: PPO (32, 32), PPO (64, 64), the aware student c = 0.3 (arm a), teacher
    silent after the budget (arm b), union radius (arm c)."""
    big, small = profile.baseline_labels()
    return small, big, AWARE, after_budget_label("silent"), UNION


def horizon_configs(profile: GohariProfile) -> list[dict[str, Any]]:
    """The Figure 2 configurations (:func:`~privrl.papers.gohari2021.runs.figure2_configs`) of
    the deciding arms, in :func:`horizon_labels`' order."""
    by_label = {c["label"]: c for c in figure2_configs(profile)}
    missing = [label for label in horizon_labels(profile) if label not in by_label]
    if missing:
        raise ValueError(f"profile lacks the arms {missing} (radius_arms, after_budget_arms)")
    return [by_label[label] for label in horizon_labels(profile)]


def record_horizon(
    profile: GohariProfile,
    out_dir: str | Path,
    *,
    cache_dir: str | Path | None,
    executor: Any = None,
    progress: bool = True,
    command: str = "",
) -> tuple[Path, Path]:
    """Run the deciding arms over ``profile.n_trials`` seeds (:func:`run_agent_fast`, cached in
    ``cache_dir``), write :data:`HORIZON_CSV` into ``out_dir`` (the book's
    ``book/measurements/results``) and the run record :data:`RECORD_JSON` into the folder above
    it; returns both paths."""
    rec = Recording.begin(profile, out_dir)
    runs = run_sweep(
        run_agent_fast,
        horizon_configs(profile),
        replicates=profile.n_trials,
        root_seed=profile.seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="gohari2021 horizon",
        order="seed",
    )
    csv = rec.out / HORIZON_CSV
    paper_curves(runs, profile).to_csv(csv, index=False)
    return csv, rec.write(
        rec.out.parent / RECORD_JSON,
        profile,
        PROFILE,
        csv,
        runs,
        command,
        run_agent_fast.__module__,
    )


def main(argv: list[str] | None = None) -> None:
    """``record``: run the deciding arms at the paper's horizon and record them
    (:func:`record_horizon`)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.gohari2021.horizon")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the deciding arms at the paper's horizon")
    add_recording_arguments(rec, n_trials=5, epochs=4000)
    rec.add_argument("--cache-dir", required=True, help="the resumable cache of finished runs")
    args = parser.parse_args(argv)
    profile = horizon_profile(n_trials=args.n_trials, epochs=args.epochs, seed=args.seed)
    command = command_line("privrl.papers.gohari2021.horizon", argv)
    paths = record_horizon(
        profile,
        args.out or results_dir(),
        cache_dir=args.cache_dir,
        executor=args.executor,
        command=command,
    )
    print("wrote", *paths)


if __name__ == "__main__":
    main()
