"""Every declared results version (:mod:`privrl.core.results_version`) is honest: the run function
returns, on its probe, the frame committed for its tag in ``results_versions.json``.

A long recording's cache is keyed by these tags, so a number that changes under an unchanged tag
would mix old and new results in one record: this test fails first. After a deliberate change,
bump the tag and record the new probe frame:
``python tests/chapter/test_results_versions.py record`` (writes every declared function's entry).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.sweep import run_probe
from privrl.core.results_version import REGISTRY, VersionedRun

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).with_name("results_versions.json")
#: Relative tolerance of float columns: a probe is a few steps, where floating-point noise from
#: another BLAS or CPU stays far below it and any change of the maths does not.
RTOL = 1e-6
#: Absolute tolerance of a float column, as a fraction of its largest recorded magnitude: a
#: column near 0 by cancellation (PPO's KL, a mean of differences of float32 log-probabilities
#: near 1.8) carries float32 noise of about 1e-7 absolute, which on a 2.8 GHz Xeon with AVX-512
#: moved a KL of 1.8e-4 by 2.4e-8 (1.3e-4 relative; the column's scale is 0.017, and 1e-5 of it
#: is 1.7e-7). A change of the maths moves a column's largest entries by far more than 1e-5.
COLUMN_ATOL = 1e-5


def declaring_modules() -> list[str]:
    """The ``privrl`` modules whose source declares a results version."""
    found = []
    for path in sorted((ROOT / "privrl").rglob("*.py")):
        if "@results_version(" in path.read_text():
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def declared() -> dict[str, VersionedRun]:
    """Every declared run function of the package, by name."""
    for module in declaring_modules():
        importlib.import_module(module)
    return {k: v for k, v in REGISTRY.items() if k.startswith("privrl.")}


def as_record(frame: pd.DataFrame) -> dict[str, list]:
    """A probe frame as JSON: column -> values (floats as floats, NaN as None)."""
    out = {}
    for col in frame.columns:
        values = frame[col].to_numpy()
        if values.dtype.kind in "fiub":
            out[str(col)] = [None if np.isnan(x) else float(x) for x in values.astype(float)]
        else:
            out[str(col)] = [repr(x) for x in values]
    return out


def mismatches(frame: pd.DataFrame, recorded: dict[str, list]) -> list[str]:
    """How ``frame`` differs from a recorded probe frame (empty when it matches)."""
    now = as_record(frame)
    problems = (
        [f"columns {sorted(set(now) ^ set(recorded))} differ"] if set(now) != set(recorded) else []
    )
    for col in sorted(set(now) & set(recorded)):
        a, b = now[col], recorded[col]
        if len(a) != len(b):
            problems.append(f"{col}: {len(a)} rows, recorded {len(b)}")
        elif any(isinstance(x, str) for x in a + b):
            if a != b:
                problems.append(f"{col}: {a} != recorded {b}")
        else:
            x, y = (np.array([np.nan if v is None else v for v in z], float) for z in (a, b))
            scale = float(np.max(np.abs(y[np.isfinite(y)]), initial=0.0))  # inf: compared exactly
            atol = max(1e-12, COLUMN_ATOL * scale)
            if not np.allclose(x, y, rtol=RTOL, atol=atol, equal_nan=True):
                worst = int(np.nanargmax(np.abs(x - y)))
                problems.append(f"{col}: row {worst} is {x[worst]!r}, recorded {y[worst]!r}")
    return problems


def _recorded() -> dict:
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


@pytest.mark.parametrize("name", sorted(declared()))
def test_a_declared_results_version_returns_its_recorded_probe(name):
    versioned = declared()[name]
    entry = _recorded().get(name)
    assert entry is not None and entry["tag"] == versioned.tag, (
        f"{name} declares results version {versioned.tag!r} but {RECORDED.name} records "
        f"{None if entry is None else entry['tag']!r}: record it "
        "(python tests/chapter/test_results_versions.py record)"
    )
    problems = mismatches(run_probe(versioned), entry["frame"])
    assert not problems, (
        f"{name} changed its results under the unchanged tag {versioned.tag!r} "
        f"(its cached runs would mix with new ones): {problems}; bump the tag"
    )


def test_the_recorded_probes_are_exactly_the_declared_functions():
    assert sorted(_recorded()) == sorted(declared())


def test_a_changed_number_under_an_unchanged_tag_is_caught():
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        funcs = importlib.import_module("sweep_funcs")
    finally:
        sys.path.pop(0)
    versioned = REGISTRY[f"{funcs.__name__}.versioned_mean"]
    frame = run_probe(versioned)
    assert "pid" not in frame.columns  # declared as no result
    recorded = as_record(frame)
    assert mismatches(frame, recorded) == []
    assert mismatches(frame.assign(value=frame["value"] * (1 + 1e-4)), recorded)
    assert mismatches(frame.assign(extra=1.0), recorded)


def record() -> None:
    """Write every declared function's probe frame under its tag."""
    entries = {
        name: {
            "tag": v.tag,
            "probe": v.probe,
            "seed_index": v.seed_index,
            "frame": as_record(run_probe(v)),
        }
        for name, v in sorted(declared().items())
    }
    RECORDED.write_text(json.dumps(entries, indent=1, default=repr) + "\n")
    print(f"recorded {len(entries)} probes in {RECORDED}")


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python tests/chapter/test_results_versions.py record")
    record()
