"""Command line: ``privrl run NAME``, ``privrl book``, ``privrl list``.

Examples::

    privrl run balle2016 --profile paper -p epsilon=0.5 -o out/
    privrl run xie2019 --profile paper --record      # also stores the run record in book/measurements/
    privrl run gohari2021 --profile paper --scheduler tcp://HOST:8786   # runs on a Dask cluster
    privrl book                                        # execute every chapter (quick) and build the HTML
    privrl book --only wang2019                        # one chapter
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from privrl.chapter.records import record_path, recorded_summary_path
from privrl.chapter.sweep import is_scheduler_address
from privrl.pipeline.build import (
    PROFILES,
    NotebookFailed,
    build_book,
    chapter_notebooks,
    find_root,
    run_notebook,
)


def parse_parameters(items: list[str]) -> dict[str, Any]:
    """``key=value`` pairs, values read as YAML (``0.5`` -> float, ``[1, 2]`` -> list, ``x`` -> str)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"parameter must look like name=value, got {item!r}")
        out[key] = yaml.safe_load(raw)
    return out


def with_scheduler(params: dict[str, Any], scheduler: str | None) -> dict[str, Any]:
    """``params`` with the notebook's ``executor`` set to the Dask scheduler address
    ``scheduler`` (the chapters hand it to :func:`privrl.chapter.sweep.run_sweep`), if given."""
    if scheduler is None:
        return params
    if not is_scheduler_address(scheduler):
        raise ValueError(
            f"--scheduler must be a Dask scheduler address such as tcp://HOST:8786, "
            f"got {scheduler!r}"
        )
    if "executor" in params:
        raise ValueError("give either --scheduler or -p executor=..., not both")
    return {**params, "executor": scheduler}


def record_run(
    root: Path, name: str, profile: str, output: str, record: dict[str, Any]
) -> list[Path]:
    """Store a run's record in ``book/measurements/`` (for the reproducibility page) and, if the
    notebook wrote them, its tidy results table ``<name>.results.csv`` as
    ``book/measurements/results/<name>-<profile>-results.csv`` (named in the record's ``files``)
    and its summary with the record beside it in ``book/measurements/results/`` (for a chapter
    that shows a recorded run of another profile)."""
    results = Path(output) / f"{name}.results.csv"
    written = []
    if results.exists():
        dest = recorded_summary_path(root, name, profile).with_name(f"{name}-{profile}-results.csv")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results, dest)
        record = {**record, "files": [*record.get("files", []), dest.name]}
        written.append(dest)
    dest = record_path(root, name, profile)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(record, indent=2) + "\n")
    written.insert(0, dest)
    summary = Path(output) / f"{name}.summary.json"
    if summary.exists():
        dest = recorded_summary_path(root, name, profile)
        dest.parent.mkdir(parents=True, exist_ok=True)
        payload = {"record": record, "summary": json.loads(summary.read_text())}
        dest.write_text(json.dumps(payload, indent=2) + "\n")
        written.append(dest)
    return written


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="privrl", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="execute one chapter notebook with papermill")
    run.add_argument("name", help="notebook name, e.g. balle2016")
    run.add_argument("--profile", choices=PROFILES, default="quick")
    run.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="notebook parameter (repeatable), value parsed as YAML",
    )
    run.add_argument(
        "-o", "--output", default="out", help="folder for the executed notebook and results"
    )
    run.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the chapter's sweep on a Dask cluster (its scheduler, e.g. tcp://HOST:8786)",
    )
    run.add_argument(
        "--record",
        action="store_true",
        help="also store the run record (and summary) in book/measurements/ for the book",
    )

    book = sub.add_parser("book", help="execute every chapter and build the HTML book")
    book.add_argument("--profile", choices=PROFILES, default="quick")
    book.add_argument("--only", action="append", metavar="NAME", help="build only these chapters")
    book.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="parameter passed to every notebook (repeatable)",
    )
    book.add_argument(
        "--output", default=None, help="folder that receives _build/ (default: repo root)"
    )
    book.add_argument(
        "--jobs", type=int, default=None, help="chapters executed at once (default: one per CPU)"
    )

    sub.add_parser("list", help="list the chapter notebooks")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        root = find_root()
        if args.command == "list":
            print("\n".join(chapter_notebooks(root)))
            return 0
        params = parse_parameters(args.parameter)
        if args.command == "run":
            params = with_scheduler(params, args.scheduler)
            record = run_notebook(args.name, args.output, args.profile, params, root)
            print(json.dumps(record.as_dict(), indent=2))
            if args.record:
                for dest in record_run(
                    root, args.name, args.profile, args.output, record.as_dict()
                ):
                    print(f"recorded in {dest.relative_to(root)}")
            return 0
        build_book(root, args.output, args.profile, args.only, params, args.jobs)
        return 0
    except (ValueError, NotebookFailed, RuntimeError) as err:
        print(f"privrl: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
