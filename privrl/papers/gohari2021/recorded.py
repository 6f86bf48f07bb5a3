"""Gohari et al. (2021): the recorded AirRaid run of Figure 2's configurations.

:func:`record_paper_curves` (CLI ``record-curves``) runs the configurations at paper settings and
writes ``gohari2021-paper-curves.csv`` (:data:`CURVES_COLUMNS`) into the book's recorded results
(:func:`privrl.chapter.records.results_dir`), with its run record beside it written by
:class:`privrl.chapter.records.RunRecord` (reference returns, thresholds, core time and the
command in its extra fields). :func:`load_paper_curves` reads it back (records written before the
one run-record schema are read too), :func:`recorded_analysis` re-estimates Figure 2's bands and
the speed-up on it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.records import (
    SOURCE_ROOT,
    RunRecord,
    current_commit,
    git,
    recorded_file,
)
from privrl.papers.gohari2021.curves import band95, speedup_table, thresholds
from privrl.papers.gohari2021.profile import AWARE, NAME, GohariProfile
from privrl.papers.gohari2021.runs import measure_references, run_figure2

CURVES_CSV = "gohari2021-paper-curves.csv"
CURVES_COLUMNS = ("config", "seed", "rollout", "env_steps", "avg_return", "epsilon_spent")
#: Keys of records written before :class:`~privrl.chapter.records.RunRecord`, and their new names.
_LEGACY_KEYS = {"profile": "parameters", "commit": "git_commit", "wall_seconds": "wall_time_s"}


def paper_curves(runs: pd.DataFrame, steps_per_epoch: int) -> pd.DataFrame:
    """The recorded run's tidy table (:data:`CURVES_COLUMNS`): one row per (config, seed,
    roll-out); ``epsilon_spent`` is the teacher's epsilon spent so far by basic composition
    (every visited state one query; 0 without a teacher, inf for the exact teacher)."""
    runs = runs.sort_values(["label", "seed", "epoch"])
    eps = runs["epsilon_query"] if "epsilon_query" in runs else pd.Series(np.nan, index=runs.index)
    per_rollout = eps.fillna(0.0).to_numpy(float) * steps_per_epoch
    spent = pd.Series(per_rollout, index=runs.index).groupby([runs["label"], runs["seed"]]).cumsum()
    spent = spent.where(runs["method"] != "kickstart", np.inf)
    return pd.DataFrame({"config": runs["label"], "seed": runs["seed"], "rollout": runs["epoch"],
                         "env_steps": runs["env_steps"], "avg_return": runs["avg_return"],
                         "epsilon_spent": spent}).reset_index(drop=True)  # fmt: skip


def panel_of(label: str) -> str:
    """Figure 2 panel of a configuration label."""
    if label.startswith("PPO"):
        return "a"
    if label == "kickstarting":
        return "b"
    if label.endswith("radius"):
        return "radius"
    if label.endswith("after budget"):
        return "after budget"
    return "c" if label.startswith("aware") else "d" if label.startswith("unaware") else "other"


def runs_from_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """A recorded table back in the shape of :func:`~privrl.papers.gohari2021.runs.run_figure2`'s
    output (for the estimators of :mod:`privrl.papers.gohari2021.curves`)."""
    missing = set(CURVES_COLUMNS) - set(curves.columns)
    if missing:
        raise ValueError(f"curves lack columns {sorted(missing)}")
    return pd.DataFrame({"label": curves["config"], "panel": curves["config"].map(panel_of),
                         "seed": curves["seed"], "epoch": curves["rollout"],
                         "env_steps": curves["env_steps"], "avg_return": curves["avg_return"],
                         "n_episodes": curves["avg_return"].notna().astype(int)})  # fmt: skip


def record_paper_curves(profile: GohariProfile, out_dir: str | Path, *, executor: Any = None,
                        cache_dir: str | Path | None = None, progress: bool = True,
                        command: str = "") -> tuple[Path, Path]:  # fmt: skip
    """Run the Figure 2 configurations of ``profile`` and write :data:`CURVES_CSV` and its run
    record (``.json``, a :class:`~privrl.chapter.records.RunRecord` whose extra fields are the
    start time, core time of the runs, reference returns, thresholds and the command)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    commit = current_commit()
    dirty = bool(git(SOURCE_ROOT, "status", "--porcelain", "--untracked-files=no", "--", "privrl"))
    started, t0 = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
    refs = measure_references(profile, np.random.default_rng(profile.seed + 1))
    runs = run_figure2(profile, executor=executor, cache_dir=cache_dir, progress=progress)
    wall = time.perf_counter() - t0
    csv = out / CURVES_CSV
    paper_curves(runs, profile.steps_per_epoch).to_csv(csv, index=False)
    run_seconds = float(runs.groupby(["label", "seed"])["wall_time"].max().sum())
    record = RunRecord.now(
        notebook=NAME, profile=profile.profile, parameters=profile.as_dict(), wall_time_s=wall,
        git_commit=commit, git_dirty=dirty, started=started, run_core_seconds=run_seconds,
        references=refs, thresholds=thresholds(refs["random"], refs["teacher"], profile.quantiles),
        command=command, files=[csv.name], produced_by=[run_figure2.__module__],
    )  # fmt: skip
    return csv, record.write(csv.with_suffix(".json"))


def load_paper_curves(directory: str | Path | None = None) -> tuple[pd.DataFrame, dict] | None:
    """The recorded curves and their run record (keys as :class:`~privrl.chapter.records.RunRecord`
    writes them: ``parameters``, ``git_commit``, ``wall_time_s``, plus the recorder's ``references``,
    ``thresholds``, ``run_core_seconds`` and ``command``), or ``None`` when nothing is recorded.
    ``directory`` defaults to the book's recorded results
    (:func:`~privrl.chapter.records.recorded_file`)."""
    csv = Path(directory) / CURVES_CSV if directory is not None else recorded_file(CURVES_CSV)
    if csv is None or not csv.exists():
        return None
    record = json.loads(csv.with_suffix(".json").read_text())
    if "git_commit" not in record:  # written before the one run-record schema
        record = {_LEGACY_KEYS.get(k, k): v for k, v in record.items()}
    return pd.read_csv(csv), record


@dataclass(frozen=True)
class RecordedAnalysis:
    """The recorded AirRaid run, analysed: its ``profile`` and ``record``, Figure 2's 95%
    ``bands``, ``times`` to threshold, ``speedup`` table, the estimators' ``runs`` and the
    ``source`` sentence that names it in evidence."""

    profile: GohariProfile
    record: dict[str, Any]
    runs: pd.DataFrame
    bands: pd.DataFrame
    times: pd.DataFrame
    speedup: pd.DataFrame
    source: str

    @property
    def commit(self) -> str:
        return str(self.record["git_commit"])


def recorded_analysis(curves: pd.DataFrame, record: dict[str, Any]) -> RecordedAnalysis:
    """The recorded AirRaid run: its Figure 2 with 95% bands and its speed-up at the recorded
    thresholds (the claims on it are decided in :mod:`privrl.papers.gohari2021.claims`)."""
    prof = GohariProfile(**record["parameters"])
    runs = runs_from_curves(curves).assign(method="")
    levels = {float(k): v for k, v in record["thresholds"].items()}
    big, _ = prof.baseline_labels()
    times, speed = speedup_table(runs, levels, prof.smoothing_window, big, ("kickstarting", AWARE))
    source = (f"recorded AirRaid run, commit {record['git_commit']}, {prof.n_trials} seeds x "
              f"{prof.epochs} roll-outs of {prof.steps_per_epoch}")  # fmt: skip
    return RecordedAnalysis(prof, record, runs, band95(runs, prof.smoothing_window), times, speed, source)
