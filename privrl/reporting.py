"""What a notebook writes next to itself, and what it prints at its top.

papermill runs each notebook with its working directory set to the output folder, so results
written to the current directory land next to the executed notebook:
``<name>.results.csv`` (a tidy table: one row per observation) and ``<name>.summary.json``
(the profile, parameters and headline numbers).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Path):
        return str(value)
    return value


def show_profile(name: str, profile: str, config: Mapping[str, Any]) -> None:
    """Print which profile a notebook runs and its full configuration (first output of a chapter)."""
    print(f"privrl: notebook {name!r}, profile {profile!r}")
    for key, value in config.items():
        print(f"  {key} = {value!r}")


def save_results(
    name: str,
    table: pd.DataFrame,
    summary: Mapping[str, Any],
    directory: str | Path = ".",
) -> tuple[Path, Path]:
    """Write ``<name>.results.csv`` (tidy) and ``<name>.summary.json`` into ``directory``."""
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ValueError("table must be a non-empty pandas DataFrame")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    csv_path = directory / f"{name}.results.csv"
    json_path = directory / f"{name}.summary.json"
    table.to_csv(csv_path, index=False)
    json_path.write_text(json.dumps(_jsonable(dict(summary)), indent=2, sort_keys=True) + "\n")
    return csv_path, json_path


RECORDED = Path("book") / "measurements" / "results"


def recorded_summary_path(root: Path, name: str, profile: str) -> Path:
    """Where ``privrl run NAME --profile PROFILE --record`` keeps the run's summary."""
    return root / RECORDED / f"{name}-{profile}.json"


def recorded_summary(name: str, profile: str, start: str | Path | None = None) -> dict | None:
    """The recorded summary of a run of another profile (e.g. the paper-scale run shown in a
    quick-profile chapter), or ``None`` if none was recorded.

    Looked up in the book at or above ``start`` (default: the working directory, which is the
    staged book during ``privrl book``), else in the source tree the package was installed from.
    """
    from privrl.book import find_root

    roots = []
    try:
        roots.append(find_root(start))
    except ValueError:
        pass
    roots.append(Path(__file__).resolve().parents[1])
    for root in roots:
        path = recorded_summary_path(root, name, profile)
        if path.exists():
            return json.loads(path.read_text())
    return None
