"""Gohari et al. (2021): the recorded AirRaid design of Figure 2's configurations.

The record is the *design* (profile ``design``), not the paper's scale: 10 of the paper's 30
seeds and 450 of its 4,000 roll-outs (:func:`scale_of` words it; the record's ``scale`` field
says it on every verdict decided on it). :func:`record_paper_curves` (CLI ``record-curves``) runs
the configurations at paper settings (at the seeds and roll-outs it is given) and writes
``gohari2021-design-curves.csv`` (:data:`CURVES_COLUMNS`, with the teacher's queries against its
allowance) into the book's recorded results (:func:`privrl.chapter.records.results_dir`) and its
run record, a :class:`privrl.chapter.records.RunRecord` (reference returns, thresholds, core time,
the command and the scale in its extra fields), to ``book/measurements/gohari2021-design.json``
(:data:`RECORD_JSON`, where :func:`privrl.chapter.records.recorded_run` judges its staleness).
:func:`load_paper_curves` reads both back (curves without the queries columns and the record
written beside the curves before, in the schema before :class:`~privrl.chapter.records.RunRecord`,
are read too); :func:`recorded_analysis` re-estimates Figure 2's bands and the speed-up on it.
The same two read the record of the deciding arms at the paper's horizon (profile
:data:`HORIZON`, written by :mod:`privrl.papers.gohari2021.horizon`), which has no kickstarting
and no privacy-unaware arm.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.records import (
    RunRecord,
    code_dirty,
    current_commit,
    recorded_file,
)
from privrl.papers.gohari2021.curves import band95, speedup_table, thresholds
from privrl.papers.gohari2021.diagnostics import COLUMNS as DIAGNOSTIC_COLUMNS
from privrl.papers.gohari2021.diagnostics import (
    diagnostic_labels,
    diagnostics_summary,
    diagnostics_table,
    first_spent_rollout,
)
from privrl.papers.gohari2021.profile import AWARE, PAPER, GohariProfile
from privrl.papers.gohari2021.runs import measure_references, query_table, run_figure2

#: The record's profile name: what was run (a reduced design), not the paper's scale.
DESIGN = "design"
#: The profile name of the record of the deciding arms at the paper's 4,000 roll-outs.
HORIZON = "horizon"
#: What names each record in a claim's evidence.
RECORD_WORDS = {
    DESIGN: "recorded AirRaid design",
    HORIZON: "recorded AirRaid run at the paper's horizon",
}
CURVES_CSV = f"{PAPER}-{DESIGN}-curves.csv"
#: The run record of the recorded curves, in ``book/measurements/``
#: (:func:`privrl.chapter.records.record_path` of profile :data:`DESIGN`).
RECORD_JSON = f"{PAPER}-{DESIGN}.json"
#: The columns every recorded table has (the first record's).
BASE_COLUMNS = ("config", "seed", "rollout", "env_steps", "avg_return", "epsilon_spent")
#: The teacher's queries answered from its data so far and the schedule's allowance so far.
QUERY_COLUMNS = ("queries", "queries_allowed")
#: With them, the per roll-out diagnostics :data:`DIAGNOSTIC_COLUMNS` (penalty activity, the
#: penalty's share of the policy gradient, policy entropy; empty where a run has none, e.g. the
#: penalty of plain PPO).
CURVES_COLUMNS = (*BASE_COLUMNS, *QUERY_COLUMNS, *DIAGNOSTIC_COLUMNS)
#: What the recorder adds to the run record (the chapter reads them).
RECORDER_FIELDS = ("references", "thresholds", "run_core_seconds")
#: Keys of records written before :class:`~privrl.chapter.records.RunRecord`, and their new names.
_LEGACY_KEYS = {"profile": "parameters", "commit": "git_commit", "wall_seconds": "wall_time_s"}


def paper_curves(runs: pd.DataFrame, profile: GohariProfile) -> pd.DataFrame:
    """The recorded run's tidy table (:data:`CURVES_COLUMNS`): one row per (config, seed,
    roll-out); ``epsilon_spent`` is the teacher's epsilon spent so far by basic composition
    (every visited state one query; 0 without a teacher, inf for the exact teacher);
    ``queries`` and ``queries_allowed`` are the queries answered from the teacher's data so far
    and the schedule's allowance so far (:func:`~privrl.papers.gohari2021.runs.query_table`);
    :data:`DIAGNOSTIC_COLUMNS` are the roll-out's diagnostics as the run logged them."""
    runs = runs.sort_values(["label", "seed", "epoch"])
    eps = runs["epsilon_query"] if "epsilon_query" in runs else pd.Series(np.nan, index=runs.index)
    per_rollout = eps.fillna(0.0).to_numpy(float) * profile.steps_per_epoch
    spent = pd.Series(per_rollout, index=runs.index).groupby([runs["label"], runs["seed"]]).cumsum()
    spent = spent.where(runs["method"] != "kickstart", np.inf)
    queries = query_table(runs, profile)
    return pd.DataFrame(
        {
            "config": runs["label"].to_numpy(),
            "seed": runs["seed"].to_numpy(),
            "rollout": runs["epoch"].to_numpy(),
            "env_steps": runs["env_steps"].to_numpy(),
            "avg_return": runs["avg_return"].to_numpy(),
            "epsilon_spent": spent.to_numpy(),
            "queries": queries["queries"].to_numpy(),
            "queries_allowed": queries["queries_allowed"].to_numpy(),
            **{
                c: (runs[c] if c in runs else pd.Series(np.nan, index=runs.index)).to_numpy(float)
                for c in DIAGNOSTIC_COLUMNS
            },
        }
    )


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
    output (for the estimators of :mod:`privrl.papers.gohari2021.curves` and, where the table
    has them, the diagnostics of :mod:`privrl.papers.gohari2021.diagnostics`)."""
    missing = set(BASE_COLUMNS) - set(curves.columns)
    if missing:
        raise ValueError(f"curves lack columns {sorted(missing)}")
    return pd.DataFrame(
        {
            "label": curves["config"],
            "panel": curves["config"].map(panel_of),
            "seed": curves["seed"],
            "epoch": curves["rollout"],
            "env_steps": curves["env_steps"],
            "avg_return": curves["avg_return"],
            "n_episodes": curves["avg_return"].notna().astype(int),
            **{c: curves[c] for c in DIAGNOSTIC_COLUMNS if c in curves},
        }
    )


def queries_of(curves: pd.DataFrame) -> pd.DataFrame | None:
    """The recorded table's queries against the allowance in the shape of
    :func:`~privrl.papers.gohari2021.runs.query_table` (label, seed, epoch, queries,
    queries_allowed), or ``None`` for a table recorded without them."""
    if not set(QUERY_COLUMNS) <= set(curves.columns):
        return None
    return pd.DataFrame(
        {
            "label": curves["config"],
            "seed": curves["seed"],
            "epoch": curves["rollout"],
            "queries": curves["queries"],
            "queries_allowed": curves["queries_allowed"],
        }
    )


def scale_of(profile: GohariProfile) -> str:
    """The scale of a run of ``profile`` against the paper's, in words: "10 of the paper's 30
    seeds, 450 of its 4,000 roll-outs" (what a verdict decided on it states)."""
    paper = GohariProfile.PAPER_SCALE
    return (
        f"{profile.n_trials:,} of the paper's {paper['n_trials']:,} seeds, "
        f"{profile.epochs:,} of its {paper['epochs']:,} roll-outs"
    )


def curves_csv(name: str = DESIGN) -> str:
    """The file name of record ``name``'s curves (:data:`CURVES_CSV` for the design)."""
    return f"{PAPER}-{name}-curves.csv"


def record_json(results: Path, name: str = DESIGN) -> Path:
    """The run record of record ``name``'s curves in the results folder ``results``:
    ``gohari2021-<name>.json`` (:data:`RECORD_JSON` for the design) in the measurements folder
    above it (the book's layout, ``book/measurements/results``)."""
    return results.parent / f"{PAPER}-{name}.json"


@dataclass(frozen=True)
class Recording:
    """A recording begun (:meth:`begin`): its output folder, the code it runs (``commit``,
    uncommitted changes ``dirty``), when it started (``started`` in ISO time, ``t0`` of
    ``perf_counter``) and the reference returns ``refs`` of random play and the teacher."""

    out: Path
    commit: str
    dirty: bool
    started: str
    t0: float
    refs: dict[str, float]

    @classmethod
    def begin(cls, profile: GohariProfile, out_dir: str | Path) -> Recording:
        """Make ``out_dir`` and measure ``profile``'s reference returns (seed ``seed + 1``)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        commit, dirty = current_commit(), code_dirty()
        started, t0 = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
        refs = measure_references(profile, np.random.default_rng(profile.seed + 1))
        return cls(out, commit, dirty, started, t0, refs)

    def write(
        self,
        path: Path,
        profile: GohariProfile,
        label: str,
        csv: Path,
        runs: pd.DataFrame,
        command: str,
        produced_by: str,
        **extra: Any,
    ) -> Path:
        """Write to ``path`` the run record of profile ``label``: ``profile``'s parameters, the
        wall time until now, core time of ``runs``, reference returns, thresholds, ``command``,
        the file ``csv`` and the module ``produced_by`` that computed it, and ``extra``."""
        record = RunRecord.now(
            notebook=PAPER,
            profile=label,
            parameters=profile.as_dict(),
            wall_time_s=time.perf_counter() - self.t0,
            git_commit=self.commit,
            git_dirty=self.dirty,
            started=self.started,
            run_core_seconds=float(runs.groupby(["label", "seed"])["wall_time"].max().sum()),
            references=self.refs,
            thresholds=thresholds(self.refs["random"], self.refs["teacher"], profile.quantiles),
            command=command,
            files=[f"{self.out.name}/{csv.name}"],
            produced_by=[produced_by],
            **extra,
        )
        return record.write(path)


def add_recording_arguments(parser: argparse.ArgumentParser, n_trials: int, epochs: int) -> None:
    """The options of a recorder's command: seeds, roll-outs, root seed, executor, output."""
    parser.add_argument("--n-trials", type=int, default=n_trials)
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--executor",
        default="process",
        help="'process', 'serial' or a Dask scheduler address tcp://HOST:8786",
    )
    parser.add_argument("--out", default=None, help="directory (default book/measurements/results)")


def record_paper_curves(
    profile: GohariProfile,
    out_dir: str | Path,
    *,
    executor: Any = None,
    cache_dir: str | Path | None = None,
    progress: bool = True,
    command: str = "",
) -> tuple[Path, Path]:
    """Run the Figure 2 configurations of ``profile``, write :data:`CURVES_CSV` into ``out_dir``
    (the book's ``book/measurements/results``) and its run record to :func:`record_json` (a
    :class:`~privrl.chapter.records.RunRecord` of profile :data:`DESIGN` whose extra fields are
    the scale (:func:`scale_of`), the start time, core time of the runs, reference returns,
    thresholds, the command, the files and the module that produced the table)."""
    rec = Recording.begin(profile, out_dir)
    runs = run_figure2(profile, executor=executor, cache_dir=cache_dir, progress=progress)
    csv = rec.out / CURVES_CSV
    paper_curves(runs, profile).to_csv(csv, index=False)
    return csv, rec.write(
        record_json(rec.out),
        profile,
        DESIGN,
        csv,
        runs,
        command,
        run_figure2.__module__,
        scale=scale_of(profile),
    )


def _legacy_record(path: Path) -> dict[str, Any]:
    """A record the recorder wrote beside the curves (before it wrote :data:`RECORD_JSON`),
    its keys renamed to the run-record schema where it predates it."""
    if not path.exists():
        return {}
    record = json.loads(path.read_text())
    return (
        record if "git_commit" in record else {_LEGACY_KEYS.get(k, k): v for k, v in record.items()}
    )


def load_paper_curves(
    directory: str | Path | None = None, name: str = DESIGN
) -> tuple[pd.DataFrame, dict] | None:
    """Record ``name``'s curves (:func:`curves_csv`; the design's by default, :data:`HORIZON`
    for the paper's horizon) and their run record (keys as
    :class:`~privrl.chapter.records.RunRecord` writes them: ``parameters``, ``git_commit``,
    ``wall_time_s``, plus the recorder's :data:`RECORDER_FIELDS` and ``command``), or ``None``
    when nothing is recorded. ``directory`` (a results folder) defaults to the book's recorded
    results (:func:`~privrl.chapter.records.recorded_file`). The record is :func:`record_json`;
    a record there without the recorder's fields (written by hand from an earlier recorder's
    output) is completed from that output beside the curves (``.json``), its own keys (the
    book's restamped commit) winning."""
    if name not in RECORD_WORDS:
        raise ValueError(f"name must be one of {sorted(RECORD_WORDS)}, not {name!r}")
    file = curves_csv(name)
    csv = Path(directory) / file if directory is not None else recorded_file(file)
    if csv is None or not csv.exists():
        return None
    path = record_json(csv.parent, name)
    record = json.loads(path.read_text()) if path.exists() else {}
    if not all(k in record for k in RECORDER_FIELDS):
        record = {**_legacy_record(csv.with_suffix(".json")), **record}
    missing = [k for k in ("parameters", "git_commit", *RECORDER_FIELDS) if k not in record]
    if missing:
        raise ValueError(f"the run record of {csv} ({path}) lacks {missing}")
    return pd.read_csv(csv), record


@dataclass(frozen=True)
class RecordedAnalysis:
    """The recorded AirRaid run, analysed: its ``profile`` and ``record``, Figure 2's 95%
    ``bands``, ``times`` to threshold, ``speedup`` table, the estimators' ``runs``, the
    ``source`` sentence that names it in evidence, the teacher's ``queries`` against its
    allowance (:func:`queries_of`; ``None`` when the record has no queries columns) and the
    ``diagnostics`` of the configurations :func:`~privrl.papers.gohari2021.diagnostics.diagnostic_labels`
    compares (:func:`~privrl.papers.gohari2021.diagnostics.diagnostics_table`; ``None`` when the
    record has no diagnostics columns)."""

    profile: GohariProfile
    record: dict[str, Any]
    runs: pd.DataFrame
    bands: pd.DataFrame
    times: pd.DataFrame
    speedup: pd.DataFrame
    source: str
    queries: pd.DataFrame | None
    diagnostics: pd.DataFrame | None

    @property
    def commit(self) -> str:
        return str(self.record["git_commit"])

    @property
    def name(self) -> str:
        """The record's profile name (:data:`DESIGN` or :data:`HORIZON`; the profile its claims
        are stamped with)."""
        return str(self.record.get("profile", DESIGN))

    @property
    def references(self) -> dict[str, float]:
        """The returns of random play and the teacher the record's thresholds sit between."""
        return self.record["references"]

    @property
    def core_seconds(self) -> float:
        """CPU seconds of the record's runs, summed (0: not recorded)."""
        return float(self.record.get("run_core_seconds") or 0.0)

    @property
    def wall_seconds(self) -> float:
        """Wall time of the recording, in seconds."""
        return float(self.record["wall_time_s"])

    @property
    def command(self) -> str:
        """The command that recorded it."""
        return str(self.record.get("command", ""))

    @property
    def labels(self) -> frozenset[str]:
        """The configurations the record ran."""
        return frozenset(self.runs["label"])

    @property
    def scale(self) -> str:
        """The record's scale against the paper's, in words (:func:`scale_of`)."""
        return str(self.record.get("scale") or scale_of(self.profile))

    @property
    def first_spent(self) -> int:
        """The first roll-out after the c = 0.3 budget is spent."""
        return first_spent_rollout(self.profile)

    @property
    def diagnostic_labels(self) -> list[str]:
        """The configurations whose diagnostics are shown (those the record has)."""
        return [] if self.diagnostics is None else list(dict.fromkeys(self.diagnostics["label"]))

    def diagnostics_summary(self) -> pd.DataFrame | None:
        """:func:`~privrl.papers.gohari2021.diagnostics.diagnostics_summary` of the record
        (``None`` without diagnostics)."""
        return (
            None
            if self.diagnostics is None
            else diagnostics_summary(self.diagnostics, self.first_spent)
        )


def recorded_analysis(curves: pd.DataFrame, record: dict[str, Any]) -> RecordedAnalysis:
    """The recorded AirRaid run: its Figure 2 with 95% bands, its speed-up at the recorded
    thresholds of the kickstarted arms it ran (kickstarting and the aware student; the claims
    on it are decided in :mod:`privrl.papers.gohari2021.claims`) and its diagnostics where it
    has them. Its ``source`` names the record (:data:`RECORD_WORDS`) and its scale."""
    prof = GohariProfile(**record["parameters"])
    runs = runs_from_curves(curves).assign(method="")
    levels = {float(k): v for k, v in record["thresholds"].items()}
    big, _ = prof.baseline_labels()
    treated = tuple(label for label in ("kickstarting", AWARE) if label in set(runs["label"]))
    times, speed = speedup_table(runs, levels, prof.smoothing_window, big, treated)
    scale = record.get("scale") or scale_of(prof)
    words = RECORD_WORDS.get(str(record.get("profile", DESIGN)), RECORD_WORDS[DESIGN])
    source = (
        f"{words} ({scale}: not the paper's scale; roll-outs of "
        f"{prof.steps_per_epoch:,} interactions), commit {record['git_commit']}"
    )
    diagnostics = (
        diagnostics_table(runs, diagnostic_labels(prof, runs))
        if set(DIAGNOSTIC_COLUMNS) <= set(curves.columns)
        else None
    )
    return RecordedAnalysis(
        prof,
        record,
        runs,
        band95(runs, prof.smoothing_window),
        times,
        speed,
        source,
        queries_of(curves),
        diagnostics,
    )
