"""The points of the paper's figures (Figures 1 a, 2, 3, 4), tidy: the paper profile's record.

A run's tables become one table ``domain, method, n, epsilon, trial, mspbe``
(:func:`paper_points`; LSW and DP-LSW on a Mountain Car grid of k cells a side are labelled
``"LSW kxk"``, ``"DP-LSW kxk"``). The paper profile's points are written by :func:`write_paper_points` to
``book/measurements/results/xie2019-paper-points.csv`` and read back by
:func:`read_paper_points`, so a quick-profile chapter can show the recorded paper-scale figures;
the runs of Theorems 2-3 likewise (:func:`write_paper_schedules`, :data:`PAPER_SCHEDULES`).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from privrl.chapter.records import recorded_file, results_dir
from privrl.papers.xie2019 import domains

POINT_COLUMNS = ("domain", "method", "n", "epsilon", "trial", "mspbe")
POINT_DOMAINS = ("chain", "mountain_car_on", "mountain_car_off", "hiv")
POINT_METHODS = ("GPOPE", "DP-LSW", "DP-LSL", "LSTD", "WIS-LSTD", "GTD2")
#: File name of the recorded paper-profile points in the results folder.
PAPER_POINTS = "xie2019-paper-points.csv"
#: File name of the recorded paper-profile runs of Theorems 2-3 (the chapter's ``schedules``
#: table, its columns :data:`SCHEDULE_COLUMNS`) in the results folder.
PAPER_SCHEDULES = "xie2019-paper-schedules.csv"
SCHEDULE_COLUMNS = ("iterations", "schedule", "seed", "iteration", "mspbe", "step_size", "z")


def paper_points(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The tidy points of the paper's figures: ``domain, method, n, epsilon, trial, mspbe``
    (chain: at the profile's epsilon; non-private methods: epsilon NaN)."""
    parts = []
    cmp = tables["chain_compare"]
    cmp = cmp[cmp.method.isin(POINT_METHODS)]
    eps = cmp["epsilon"].where(cmp.method.isin(["GPOPE", "DP-LSW", "DP-LSL"]), np.nan)
    parts.append(
        pd.DataFrame(
            {
                "domain": "chain",
                "method": cmp.method,
                "n": cmp.n,
                "epsilon": eps,
                "trial": cmp.seed,
                "mspbe": cmp.mspbe,
            }
        )
    )
    for domain in domains.DOMAINS:
        t = tables[domain]
        t = t[t.method.isin(POINT_METHODS)]
        value = t["relative_mspbe"] if domain == "hiv" else t["mspbe"]
        parts.append(
            pd.DataFrame(
                {
                    "domain": domain,
                    "method": t.method,
                    "n": t.n,
                    "epsilon": t.epsilon,
                    "trial": t.seed,
                    "mspbe": value,
                }
            )
        )
    if "mc_lsw" in tables:
        t = tables["mc_lsw"]
        t = t[t.method != "LSTD"]
        parts.append(
            pd.DataFrame(
                {
                    "domain": t.domain,
                    "method": lsw_label(t.method, t.grid),
                    "n": t.n,
                    "epsilon": t.epsilon,
                    "trial": t.seed,
                    "mspbe": t.mspbe,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)[list(POINT_COLUMNS)]


def lsw_label(method: pd.Series, grid: pd.Series) -> pd.Series:
    """Point labels of (DP-)LSW on a Mountain Car grid: ``"DP-LSW 10x10"`` (our reading,
    :mod:`privrl.papers.xie2019.mc_lsw`)."""
    return method + " " + grid.astype(int).astype(str) + "x" + grid.astype(int).astype(str)


def _known_method(method: str) -> bool:
    return method in POINT_METHODS or re.fullmatch(r"(DP-)?LSW \d+x\d+", method) is not None


def write_paper_points(points: pd.DataFrame, path: str | Path | None = None) -> Path:
    """Write the points table (validated columns and labels) as CSV, by default as
    :data:`PAPER_POINTS` in :func:`~privrl.chapter.records.results_dir`; returns the path."""
    missing = [c for c in POINT_COLUMNS if c not in points.columns]
    if missing:
        raise ValueError(f"points: missing columns {missing}")
    bad_domain = sorted(set(points.domain) - set(POINT_DOMAINS))
    bad_method = sorted(m for m in set(points.method) if not _known_method(m))
    if bad_domain or bad_method:
        raise ValueError(f"points: unknown domains {bad_domain} or methods {bad_method}")
    path = results_dir() / PAPER_POINTS if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    points[list(POINT_COLUMNS)].to_csv(path, index=False)
    return path


def read_paper_points(path: str | Path | None = None) -> pd.DataFrame | None:
    """The recorded paper-profile points, or ``None`` if none were recorded. Looked up at
    ``path``, else in the book at or above the working directory, else beside the package."""
    found = Path(path) if path is not None else recorded_file(PAPER_POINTS)
    return pd.read_csv(found) if found is not None and found.exists() else None


def write_paper_schedules(schedules: pd.DataFrame, path: str | Path | None = None) -> Path:
    """Write the ``schedules`` table's :data:`SCHEDULE_COLUMNS` as CSV, by default as
    :data:`PAPER_SCHEDULES` in :func:`~privrl.chapter.records.results_dir`; returns the path."""
    missing = [c for c in SCHEDULE_COLUMNS if c not in schedules.columns]
    if missing:
        raise ValueError(f"schedules: missing columns {missing}")
    path = results_dir() / PAPER_SCHEDULES if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    schedules[list(SCHEDULE_COLUMNS)].to_csv(path, index=False)
    return path


def summarise_points(points: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of the MSPBE per (domain, method, n, epsilon), as plotted."""
    keys = ["domain", "method", "n", "epsilon"]
    out = points.groupby(keys, dropna=False)["mspbe"].agg(["mean", "std", "count"])
    return out.reset_index()


__all__ = [
    "PAPER_POINTS",
    "PAPER_SCHEDULES",
    "POINT_COLUMNS",
    "POINT_DOMAINS",
    "POINT_METHODS",
    "SCHEDULE_COLUMNS",
    "lsw_label",
    "paper_points",
    "read_paper_points",
    "summarise_points",
    "write_paper_points",
    "write_paper_schedules",
]
