"""What a recorded run cost and how to run it again: the compute line and the rerun command of a
run record (``book/measurements/<name>.json``), for every chapter's page.

A record's compute in core-hours is read from the first of its fields that it has (a label
says which, since they are not the same measurement):

* ``compute_s``: the seconds its workers measured (their sum), core-hours ``compute_s / 3600``;
* ``cpu_time_s``: the CPU seconds of the notebook and every process it started (``wait4``),
  core-hours ``cpu_time_s / 3600``;
* ``workers``: core-hours ``wall_time_s x workers / 3600`` (each worker busy the whole run);
* otherwise a bound: at most ``wall_time_s x cpus / 3600``;

beside its wall time (``wall_time_s``) and machine (``cpus``, ``machine``). Its rerun command is
its ``command`` field; a record without one (``privrl run NAME --record``) says so.
:func:`compute_line` and :func:`rerun_command` read one record; :func:`record_line` writes both
for a record by name (:func:`privrl.chapter.decided_on.records_note`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from privrl.chapter.records import MEASUREMENTS, SOURCE_ROOT, find_root, format_duration

#: What the reader is told for a record without a ``command`` field.
NO_COMMAND = "rerun command not recorded (its parameters are on the reproducibility page)"


def core_hours(record: Mapping[str, Any]) -> tuple[float, str]:
    """The record's compute in core-hours and how it was obtained, in words (the rules in the
    module docstring); the words open with "at most" where only a bound is known. Raises
    ``ValueError`` for a record without a positive ``wall_time_s``."""
    wall = float(record.get("wall_time_s") or 0.0)
    if not wall > 0:
        raise ValueError(f"run record {record.get('notebook')!r}: no positive wall_time_s")
    for key, how in (("compute_s", "workers' compute"), ("cpu_time_s", "CPU time")):
        if record.get(key) is not None:
            return float(record[key]) / 3600, f"{how}, {float(record[key]):,.0f} s"
    if record.get("workers") is not None:
        workers = int(record["workers"])
        return wall * workers / 3600, f"wall time x {workers} worker{'s' * (workers != 1)}"
    cpus = int(record.get("cpus") or 1)
    return wall * cpus / 3600, f"at most: wall time x {cpus} CPUs"


def compute_line(record: Mapping[str, Any]) -> str:
    """The record's compute in words: core-hours (how obtained), wall time and machine, e.g.
    "0.70 core-hours (workers' compute, 2,523 s), wall time 51.8 min on 2 CPUs, x86_64"."""
    hours, how = core_hours(record)
    at_most = how.startswith("at most")
    return (
        f"{'at most ' if at_most else ''}{hours:.2f} core-hours "
        f"({how.removeprefix('at most: ')}), wall time "
        f"{format_duration(float(record['wall_time_s']))} on {record.get('cpus', '?')} CPUs, "
        f"{record.get('machine', '?')}"
    )


def rerun_command(record: Mapping[str, Any]) -> str | None:
    """The shell command that reruns the record (its ``command`` field); ``None`` when it has
    none."""
    command = record.get("command")
    return str(command) if command else None


def measurements() -> Path:
    """``book/measurements`` of the book at or above the working directory, else of the source
    tree: the folder of the run records."""
    try:
        root = find_root()
    except ValueError:
        root = SOURCE_ROOT
    return root / MEASUREMENTS if (root / MEASUREMENTS).is_dir() else SOURCE_ROOT / MEASUREMENTS


def record_line(name: str, directory: Path | None = None) -> str:
    """Markdown of one record's compute and rerun command: "Record `ono2020-tuned`: 0.70
    core-hours (...), wall time 51.8 min on 2 CPUs, x86_64; rerun: `python -m ...`" (or
    :data:`NO_COMMAND`). ``directory``: the records' folder (default: :func:`measurements`)."""
    record = json.loads(((directory or measurements()) / f"{name}.json").read_text())
    command = rerun_command(record)
    rerun = f"rerun: `{command}`" if command else NO_COMMAND
    return f"Record `{name}`: {compute_line(record)}; {rerun}."


__all__ = [
    "NO_COMMAND",
    "compute_line",
    "core_hours",
    "measurements",
    "record_line",
    "rerun_command",
]
