"""Helpers shared by the benchmarks: timing, and writing a result file."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path


def best_of(fn: Callable[[], object], repeats: int) -> float:
    """The shortest wall time of ``repeats`` calls of ``fn`` (seconds): the least disturbed by
    whatever else the machine is doing."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def write_result(filename: str, out: dict) -> dict:
    """Print ``out`` as JSON and write it to ``benchmarks/results/<filename>``; returns ``out``."""
    print(json.dumps(out, indent=2))
    path = Path(__file__).resolve().parent / "results" / filename
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    return out
