"""Each chapter's quick run, in CPU seconds, against the last recorded run.

Runs ``privrl run NAME -o TMP/NAME`` (the quick profile, as ``privrl book`` runs it) for every
chapter or the ones named, one after the other, and prints each chapter's CPU seconds (user +
system of the notebook's process and every process it started: the run record's
``cpu_time_s``), wall seconds and peak memory as ratios against the last run recorded in
``benchmarks/results/quick_book.json``, with the machine and its load average (wall times
depend on the other jobs of a shared machine; CPU seconds much less). Target: at most
``TARGET_CPU_S`` per chapter (issue of record: the quick profile earns its name)::

    .venv/bin/python benchmarks/bench_quick_book.py [NAME ...]            # compare
    .venv/bin/python benchmarks/bench_quick_book.py --record LABEL [NAME ...]   # and append

``--keep DIR`` keeps each run in ``DIR/NAME`` (the quick runs the re-stamp tool compares,
``python -m privrl.pipeline.restamp --after DIR``), else they go to a temporary folder.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from suite_times import machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "quick_book.json"
TARGET_CPU_S = 60.0


def chapter_names() -> list[str]:
    """The chapters of the book, in book order."""
    from privrl.pipeline.build import chapter_notebooks

    return chapter_notebooks(ROOT)


def run_chapter(name: str, folder: Path) -> dict[str, float]:
    """One quick run of ``name`` into ``folder``: its CPU and wall seconds and peak memory."""
    subprocess.run(
        [sys.executable, "-m", "privrl.pipeline.cli", "run", name, "-o", str(folder / name)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    record = json.loads((folder / name / f"{name}.run.json").read_text())
    return {
        "cpu_s": record["cpu_time_s"],
        "wall_s": round(record["wall_time_s"], 1),
        "peak_memory_mb": round(record["peak_memory_mb"]),
    }


def report(run: dict, reference: dict | None) -> str:
    """The run's chapters as text, each with its CPU ratio against ``reference``."""
    ref = (reference or {}).get("chapters", {})
    lines = [
        f"machine: {run['machine']}",
        "chapter        CPU s   vs last   wall s   peak MB   target",
    ]
    for name, c in run["chapters"].items():
        before = ref.get(name, {}).get("cpu_s")
        ratio = f"{c['cpu_s'] / before:.2f}x" if before else ""
        verdict = "within" if c["cpu_s"] <= TARGET_CPU_S else "OVER"
        lines.append(
            f"{name:<12} {c['cpu_s']:>7.1f}   {ratio:>7}   {c['wall_s']:>6.1f}   "
            f"{c['peak_memory_mb']:>7}   {verdict} {TARGET_CPU_S:.0f}"
        )
    return "\n".join(lines)


def git_commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="chapters (default: every chapter)")
    parser.add_argument("--record", metavar="LABEL", help="append this run to the results file")
    parser.add_argument(
        "--keep",
        metavar="DIR",
        type=Path,
        help="keep each chapter's run in DIR/NAME (default: a temporary folder)",
    )
    args = parser.parse_args(argv)
    names = args.names or chapter_names()
    load = os.getloadavg()[0]
    if args.keep:
        chapters = {name: run_chapter(name, args.keep) for name in names}
    else:
        with tempfile.TemporaryDirectory() as tmp:
            chapters = {name: run_chapter(name, Path(tmp)) for name in names}
    run = {
        "label": args.record or "",
        "commit": git_commit(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {**machine(), "load_average_1min_at_start": round(load, 2)},
        "chapters": chapters,
    }
    recorded = json.loads(RESULTS.read_text())["runs"] if RESULTS.exists() else []
    print(report(run, recorded[-1] if recorded else None))
    if args.record:
        data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        RESULTS.write_text(json.dumps({**data, "runs": [*recorded, run]}, indent=2) + "\n")
        print(f"recorded in {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
