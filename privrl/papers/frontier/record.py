"""The recorded paper-profile run of the Frontier chapter: recording it and reading it back.

``python -m privrl.papers.frontier.record --cache-dir book/measurements/cache/frontier-v2`` runs the
map of the paper profile (:func:`privrl.papers.frontier.runs.run_map`, resumable through the sweep
cache) and writes three tidy CSVs into ``book/measurements/results/``
(:func:`privrl.chapter.records.results_dir`: ``frontier-paper-points.csv``, the error of every
release of every replicate; ``frontier-paper-calibration.csv``, GPOPE's noise per (n, epsilon,
accountant, iterations); ``frontier-paper-steps.csv``, its tuned (iterations, step) with and
without noise, flagged at a grid edge; ``frontier-paper-lams.csv``, SSP-LSTD's tuned ridge) and
the run record
(:class:`privrl.chapter.records.RunRecord`) one folder up, ``book/measurements/frontier-paper.json``.
The map carries every method's own noiseless floor and GPOPE without noise at its own tuned
settings, so there is no separate noiseless record any more.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import pandas as pd

from privrl.chapter import records
from privrl.chapter.records import RunRecord, current_commit
from privrl.papers.frontier.profile import PAPER, FrontierProfile
from privrl.papers.frontier.runs import run_map

#: The CSVs of the record, by table name, in the results folder.
FILES: dict[str, str] = {
    name: f"{PAPER}-paper-{name}.csv" for name in ("points", "calibration", "steps", "lams")
}
RECORD_JSON = f"{PAPER}-paper.json"
#: The shell command that records the map, but for ``--workers`` (the record's own count).
COMMAND = "python -m privrl.papers.frontier.record --cache-dir book/measurements/cache/frontier-v2"


def record_paper_run(
    profile: FrontierProfile,
    *,
    cache_dir: Any,
    directory: Path | None = None,
    workers: int = 2,
    progress: bool = True,
    note: str = "",
) -> RunRecord:
    """Run the map of ``profile`` and write its CSVs and run record (module text); the record
    names the commit checked out when the run *started*."""
    commit, dirty, start = current_commit(), records.code_dirty(), time.perf_counter()
    tables = run_map(
        profile,
        cache_dir=cache_dir,
        progress=progress,
        max_workers=workers,
        executor="process" if workers > 1 else "serial",
    )
    points = tables["points"]
    record = RunRecord.now(
        notebook=PAPER,
        profile=profile.profile,
        parameters=profile.record_parameters(),
        wall_time_s=time.perf_counter() - start,
        git_commit=commit,
        git_dirty=dirty,
        compute_s=round(
            float(
                points.assign(ssp=points.method == "SSP-LSTD")
                .groupby(["domain", "seed", "ssp"])
                .seconds.first()
                .sum()
            ),
            1,
        ),
        workers=workers,
        note=note,
        command=f"{COMMAND} --workers {workers}",
        files=sorted(FILES.values()),
        produced_by=["privrl.papers.frontier.runs"],
    )
    directory = Path(directory) if directory is not None else records.results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    for name, file in FILES.items():
        frame = tables[name].drop(columns=["seconds"], errors="ignore")
        frame.to_csv(directory / file, index=False)
    record.write(directory.parent / RECORD_JSON)
    return record


def recorded_tables(directory: Path | None = None) -> dict[str, pd.DataFrame] | None:
    """The recorded tables (``points``, ``calibration``, ``steps``), or ``None`` if the run was
    not recorded. Looked up in ``directory``, else in the book's results folder."""
    found = {}
    for name, file in FILES.items():
        path = Path(directory) / file if directory is not None else records.recorded_file(file)
        if path is None or not path.exists():
            return None
        found[name] = pd.read_csv(path)
    return found


def main(argv: list[str] | None = None) -> None:
    """``python -m privrl.papers.frontier.record``: record the paper profile's map."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.frontier.record")
    parser.add_argument("--cache-dir", required=True, help="sweep cache (resumable)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--out", default=None, help="results directory (default book/measurements/results)"
    )
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    record = record_paper_run(
        FrontierProfile.paper(),
        cache_dir=args.cache_dir,
        directory=Path(args.out) if args.out else None,
        workers=args.workers,
        note=args.note,
    )
    print(json.dumps(record.as_dict(), indent=1, default=str))


if __name__ == "__main__":
    main()
