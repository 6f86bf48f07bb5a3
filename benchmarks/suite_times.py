"""What each stage of ``bash dev.sh test`` costs, against the last recorded run.

``bash dev.sh test`` writes ``_build/test/timings.json``: the wall time of each stage (install,
browser, book, tests), each chapter's quick run in the book (wall and CPU seconds, peak memory,
from its run record), each test module's summed test time (``tests/conftest.py``), the number of
tests run and of ``assert`` statements under ``tests/``, and the machine. This script prints
every figure as a ratio against the last run recorded in ``benchmarks/results/suite.json``, so a
regression shows in review::

    .venv/bin/python benchmarks/suite_times.py [compare [FILE]]   # the last test run against the record
    .venv/bin/python benchmarks/suite_times.py record [FILE]      # append it to the record
    .venv/bin/python benchmarks/suite_times.py stages FILE name=ms ...   # (dev.sh) write stages

Targets (issue of record: the test command within 15 minutes, the quick book within 5, on two
cores): ``TARGETS``; a chapter's quick run at most 60 CPU seconds.
"""

from __future__ import annotations

import ast
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "suite.json"
DEFAULT = ROOT / "_build" / "test" / "timings.json"
#: Wall seconds: the whole test command (install included), and the book stage.
TARGETS = {"total": 15 * 60, "book": 5 * 60}
CHAPTER_CPU_TARGET = 60.0


def machine() -> dict[str, object]:
    """CPU model, cores and memory of this machine."""
    model = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_gib, 1),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def assert_statements(tests: Path = ROOT / "tests") -> int:
    """``assert`` statements in the test files (a test that loses one shows here)."""
    return sum(
        isinstance(node, ast.Assert)
        for path in tests.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
    )


def chapters(build: Path) -> dict[str, dict[str, float]]:
    """Each executed chapter's wall and CPU seconds and peak memory, from its run record."""
    out = {}
    for path in sorted((build / "src" / "notebooks").glob("*.run.json")):
        record = json.loads(path.read_text())
        out[record["notebook"]] = {
            "wall_s": round(record["wall_time_s"], 1),
            "cpu_s": record.get("cpu_time_s"),
            "peak_memory_mb": round(record["peak_memory_mb"]),
        }
    return out


def write_stages(path: Path, stages: list[str]) -> dict:
    """Merge the stage times (``name=milliseconds``) and the book's chapters into ``path``."""
    run = json.loads(path.read_text()) if path.exists() else {}
    run["stages_s"] = {name: int(ms) / 1000 for name, ms in (s.split("=", 1) for s in stages)}
    run["stages_s"]["total"] = round(sum(run["stages_s"].values()), 1)
    run["chapters"] = chapters(path.parent / "_build")
    run["assert_statements"] = assert_statements()
    run["machine"] = machine()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(run, indent=2) + "\n")
    return run


def _ratio(now: float | None, before: float | None) -> str:
    if now is None or not before:
        return ""
    return f"{now / before:.2f}x"


def report(run: dict, reference: dict | None) -> str:
    """The run's figures as text, each with its ratio against ``reference``."""
    ref = reference or {}
    lines = [f"machine: {run.get('machine')}"]
    lines.append("stage            seconds   vs last   target")
    for name, s in run.get("stages_s", {}).items():
        target = TARGETS.get(name)
        verdict = "" if target is None else ("within" if s <= target else "OVER") + f" {target}"
        lines.append(
            f"{name:<16} {s:>7.1f}   {_ratio(s, ref.get('stages_s', {}).get(name)):>7}   {verdict}"
        )
    lines.append("chapter          wall s    CPU s   vs last   peak MB")
    for name, c in run.get("chapters", {}).items():
        cpu = c.get("cpu_s")
        flag = (
            "" if cpu is None or cpu <= CHAPTER_CPU_TARGET else f"  OVER {CHAPTER_CPU_TARGET:.0f}"
        )
        before = ref.get("chapters", {}).get(name, {}).get("cpu_s")
        lines.append(
            f"{name:<16} {c['wall_s']:>6.1f} {cpu or float('nan'):>8.1f}   "
            f"{_ratio(cpu, before):>7}   {c['peak_memory_mb']:>7}{flag}"
        )
    modules = run.get("test_modules_s", {})
    slow = sorted(modules.items(), key=lambda kv: -kv[1])[:15]
    lines.append("test module (15 slowest)                                  seconds   vs last")
    for name, s in slow:
        lines.append(
            f"{name:<56} {s:>8.1f}   {_ratio(s, ref.get('test_modules_s', {}).get(name)):>7}"
        )
    for key in ("tests", "assert_statements"):
        if key in run:
            lines.append(f"{key}: {run[key]} (last recorded: {ref.get(key, 'none')})")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    recorded = json.loads(RESULTS.read_text())["runs"] if RESULTS.exists() else []
    if argv[:1] == ["stages"]:
        run = write_stages(Path(argv[1]), argv[2:])
        print(report(run, recorded[-1] if recorded else None))
        return 0
    command, *rest = argv or ["compare"]
    if command not in ("compare", "record"):
        print(__doc__, file=sys.stderr)
        return 2
    run = json.loads((Path(rest[0]) if rest else DEFAULT).read_text())
    if command == "record":
        RESULTS.write_text(json.dumps({"runs": [*recorded, run]}, indent=2) + "\n")
        print(f"recorded run {len(recorded) + 1} in {RESULTS.relative_to(ROOT)}")
        return 0
    print(report(run, recorded[-1] if recorded else None))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
