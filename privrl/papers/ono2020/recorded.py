"""The recorded paper-profile run of ono2020: recording it, reading it back, projecting its cost.

``python -m privrl.papers.ono2020.recorded record-paper`` runs Tables 1-3 and Figure 2 at the
paper's scale (20 trials, 90,000 submissions, resumable through the sweep cache) and writes two
tidy CSVs into ``book/measurements/results/`` (:func:`privrl.chapter.records.results_dir`) and
the run record (:class:`privrl.chapter.records.RunRecord`) one folder up, as
``book/measurements/ono2020-paper.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from privrl.chapter import records
from privrl.chapter.records import RunRecord, current_commit
from privrl.papers.ono2020.profile import (
    CURVES_CSV,
    GRAVITY_LABEL,
    PAPER,
    PAPER_CAP,
    RECORD_JSON,
    REFERENCE_CURVES_CSV,
    REFERENCE_RECORD,
    REFERENCE_RECORD_JSON,
    REFERENCE_SWEEP_CSV,
    REFERENCE_TRIALS_CSV,
    TRIALS_CSV,
    OnoProfile,
)
from privrl.papers.ono2020.reference import sweep_reference
from privrl.papers.ono2020.runs import SweepOptions, sweep_figure2, sweep_tables


def paper_trials_frame(trials: pd.DataFrame) -> pd.DataFrame:
    """The tidy trials CSV: ``variant, mechanism, epsilon, gravity, trial, first_success,
    success, env_steps``."""
    out = trials.assign(gravity=GRAVITY_LABEL)
    cols = [
        "variant",
        "mechanism",
        "epsilon",
        "gravity",
        "trial",
        "first_success",
        "success",
        "env_steps",
    ]
    return out[cols].sort_values(["variant", "mechanism", "epsilon", "trial"])


def paper_curves_frame(curves: pd.DataFrame) -> pd.DataFrame:
    """The tidy curves CSV: ``variant, mechanism, epsilon, trial, submission, avg_score``
    (Figure 2's buffer size is part of ``variant``: ``paper |B|=1`` / ``paper |B|=100``)."""
    out = curves.assign(variant=curves["variant"] + " |B|=" + curves["buffer_size"].astype(str))
    return out[["variant", "mechanism", "epsilon", "trial", "submission", "avg_score"]]


def write_paper_results(
    trials: pd.DataFrame,
    curves: pd.DataFrame | None,
    record: RunRecord,
    directory: Path | None = None,
) -> None:
    """Write the two tidy CSVs into ``directory`` (default: :func:`records.results_dir`) and the
    run record one folder up (used by :func:`record_paper_run`)."""
    directory = Path(directory) if directory is not None else records.results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    paper_trials_frame(trials).to_csv(directory / TRIALS_CSV, index=False)
    if curves is not None:
        paper_curves_frame(curves).to_csv(directory / CURVES_CSV, index=False)
    record.write(directory.parent / RECORD_JSON)


@dataclass(frozen=True)
class Recording:
    """How a recording runs: its sweep cache (resumable), the results ``directory`` (default
    :func:`records.results_dir`), the executor, a progress bar, the ``note`` stating what part of
    the paper profile was run and the ``workers`` it runs on."""

    cache_dir: Any
    directory: Path | None = None
    executor: Any = "serial"
    progress: bool = False
    note: str = ""
    workers: int = 1

    @classmethod
    def of(cls, args: argparse.Namespace) -> Recording:
        """The recording a command line asks for (:func:`add_recording_arguments`), in worker
        processes when more than one, with a progress bar."""
        return cls(
            cache_dir=args.cache_dir,
            directory=Path(args.out) if args.out else None,
            executor="process" if args.workers > 1 else "serial",
            progress=True,
            note=args.note,
            workers=args.workers,
        )

    @property
    def options(self) -> SweepOptions:
        """The sweeps' keywords (:class:`~.runs.SweepOptions`)."""
        return {
            "executor": self.executor,
            "cache_dir": self.cache_dir,
            "progress": self.progress,
            "max_workers": self.workers,
        }


def record_paper_run(profile: OnoProfile, how: Recording) -> RunRecord:
    """Run the tables and Figure 2 of ``profile`` and write the two CSVs and the run record
    (:func:`write_paper_results`); the record names the commit checked out when the run
    *started*."""
    started = recording_started()
    trials = sweep_tables(profile, **how.options)
    curves = sweep_figure2(profile, **how.options)
    record = _run_record(
        profile,
        profile.profile,
        started,
        [trials],
        how,
        files=[TRIALS_CSV, CURVES_CSV],
        produced_by="privrl.papers.ono2020.runs",
    )
    write_paper_results(trials, curves, record, how.directory)
    return record


def recording_started() -> tuple[str, bool, float]:
    """The commit checked out, whether the code is dirty, and the clock, as a recording starts."""
    return current_commit(), records.code_dirty(), time.perf_counter()


def _run_record(
    profile: OnoProfile,
    name: str,
    started: tuple[str, bool, float],
    frames: list[pd.DataFrame],
    how: Recording,
    *,
    files: list[str],
    produced_by: str,
) -> RunRecord:
    """The run record of a recording ``how`` of ``profile`` under profile ``name`` started at
    ``started`` (:func:`recording_started`): its parameters, wall time, and the compute seconds and
    CartPole steps summed over the trials of ``frames``."""
    commit, dirty, start = started
    return RunRecord.now(
        notebook=PAPER,
        profile=name,
        parameters=profile.record_parameters(),
        wall_time_s=time.perf_counter() - start,
        git_commit=commit,
        git_dirty=dirty,
        compute_s=round(sum(float(f.seconds.sum()) for f in frames), 1),
        env_steps=int(sum(f.env_steps.sum() for f in frames)),
        workers=how.workers,
        note=how.note,
        files=files,
        produced_by=[produced_by],
    )


#: The columns of the reference set-up's trials CSVs (:func:`reference_frames`, and the tuned
#: record's evaluation, :func:`.tuning.trials_frame`).
REFERENCE_TRIALS_COLUMNS = [
    "variant",
    "mechanism",
    "epsilon",
    "buffer_size",
    "step_size",
    "gravity",
    "trial",
    "first_success",
    "success",
    "env_steps",
]


def reference_frames(runs: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The reference set-up's tidy CSVs (:func:`.reference.sweep_reference`'s runs): trials
    ``variant, mechanism, epsilon, buffer_size, step_size, gravity, trial, first_success,
    success, env_steps`` (the ablation and the evaluation arms), the sweep's trials (same
    columns, variant ``reference``) and Figure 2's curves ``variant, mechanism, epsilon,
    step_size, trial, submission, avg_score`` (|B| in ``variant`` as in :data:`CURVES_CSV`)."""
    cols = REFERENCE_TRIALS_COLUMNS
    order = ["variant", "mechanism", "epsilon", "buffer_size", "step_size", "trial"]
    curves = runs["curves"]
    curves = curves.assign(variant=curves["variant"] + " |B|=" + curves["buffer_size"].astype(str))
    return {
        REFERENCE_TRIALS_CSV: runs["trials"].assign(gravity=GRAVITY_LABEL)[cols].sort_values(order),
        REFERENCE_SWEEP_CSV: runs["tuning"].assign(gravity=GRAVITY_LABEL)[cols].sort_values(order),
        REFERENCE_CURVES_CSV: curves[
            ["variant", "mechanism", "epsilon", "step_size", "trial", "submission", "avg_score"]
        ],
    }


def record_reference_run(profile: OnoProfile, how: Recording) -> RunRecord:
    """Run the reference set-up (:func:`.reference.sweep_reference`: ablation, step-size sweep,
    Tables 1-3 and Figure 2 at the chosen steps) of ``profile`` and write its three CSVs
    (:func:`reference_frames`) into ``how.directory`` and its run record one folder up
    (``ono2020-reference.json``)."""
    started = recording_started()
    runs = sweep_reference(profile, **how.options)
    record = _run_record(
        profile,
        REFERENCE_RECORD,
        started,
        [runs["tuning"], runs["trials"]],
        how,
        files=[REFERENCE_TRIALS_CSV, REFERENCE_SWEEP_CSV, REFERENCE_CURVES_CSV],
        produced_by="privrl.papers.ono2020.reference",
    )
    directory = Path(how.directory) if how.directory is not None else records.results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    for name, frame in reference_frames(runs).items():
        frame.to_csv(directory / name, index=False)
    record.write(directory.parent / REFERENCE_RECORD_JSON)
    return record


def recorded_reference_run(directory: Path | None = None) -> dict[str, Any] | None:
    """The recorded reference set-up: ``{"trials", "sweep", "curves", "record"}`` (curves with
    ``buffer_size`` back, as :func:`recorded_curves`), or ``None`` when none is recorded."""
    out = records.read_recorded(
        {
            "trials": REFERENCE_TRIALS_CSV,
            "sweep": REFERENCE_SWEEP_CSV,
            "curves": REFERENCE_CURVES_CSV,
        },
        REFERENCE_RECORD_JSON,
        directory,
    )
    if out is not None:
        out["curves"] = recorded_curves(out["curves"])
    return out


def recorded_paper_run(directory: Path | None = None) -> dict[str, Any] | None:
    """The recorded paper run: ``{"trials", "curves", "record"}`` or ``None`` if absent
    (looked up with :func:`records.recorded_file` unless ``directory`` is given)."""
    return records.read_recorded(
        {"trials": TRIALS_CSV, "curves": CURVES_CSV}, RECORD_JSON, directory
    )


def recorded_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """The recorded curves CSV back in the form of :func:`~.runs.sweep_figure2` (``buffer_size``
    from the variant label), as the claims and Figure 2 read it."""
    return curves.assign(buffer_size=curves["variant"].str.extract(r"=(\d+)$")[0].astype(int))


def worker_count(record: dict[str, Any]) -> int:
    """The worker processes a recorded run ran on (``workers``; older records state ``cpus``)."""
    return int(record.get("workers", record.get("cpus", 1)))


def projected_paper_hours(record: dict[str, Any], workers: int = 2) -> float:
    """Wall time (hours) of the full paper profile (90,000 submissions) on ``workers`` processes:
    measured when ``record`` is a full run on that many, else projected from its wall time
    scaled by the budget ratio (failing trials step about as fast late as early) and divided
    over ``workers``."""
    budget = int(record["parameters"]["n_submissions"])
    return float(record["wall_time_s"]) * PAPER_CAP / budget * worker_count(record) / workers / 3600


def paper_profile_at(n_submissions: int) -> OnoProfile:
    """The paper profile with every budget at ``n_submissions`` (Tables 1-3, Figure 2, the
    reference set-up) and the step sweep's tuning budget scaled with it, in the paper profile's
    proportion (30,000 of 90,000)."""
    paper = OnoProfile.PAPER_SCALE
    tuning = max(1, n_submissions * paper["tuning_submissions"] // paper["n_submissions"])
    return OnoProfile.from_parameters(
        "paper",
        n_submissions=n_submissions,
        fig2_submissions=n_submissions,
        reference_submissions=n_submissions,
        tuning_submissions=tuning,
    )


def add_recording_arguments(parser: argparse.ArgumentParser) -> None:
    """A recording command's options (:meth:`Recording.of`): ``--workers``, ``--cache-dir``,
    ``--out``, ``--note``."""
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--cache-dir", required=True, help="sweep cache (resumable)")
    parser.add_argument(
        "--out", default=None, help="results directory (default book/measurements/results)"
    )
    parser.add_argument("--note", default="")


def main(argv: list[str] | None = None) -> None:
    """``python -m privrl.papers.ono2020.recorded record-paper``: record the paper profile
    (Tables 1-3 and Figure 2 at 20 trials and 90,000 submissions unless told otherwise)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.ono2020.recorded")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record-paper", help="run and record the paper profile")
    prac = sub.add_parser(
        "record-reference",
        help="run and record the reference set-up "
        "(ablation, step-size sweep, Tables 1-3 and Figure 2)",
    )
    for command in (rec, prac):
        command.add_argument("--n-submissions", type=int, default=PAPER_CAP)
        add_recording_arguments(command)
    args = parser.parse_args(argv)
    profile = paper_profile_at(args.n_submissions)
    recorder = record_paper_run if args.command == "record-paper" else record_reference_run
    record = recorder(profile, Recording.of(args))
    print(json.dumps(record.as_dict(), indent=1, default=str))


if __name__ == "__main__":
    main()
