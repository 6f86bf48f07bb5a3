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
from collections.abc import Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class FigureData:
    """What the chapter's claims are decided on, from one run (this one or the recorded
    paper-profile run): ``points`` (:func:`paper_points`), ``schedules`` the runs of Theorems
    2-3 (:data:`SCHEDULE_COLUMNS`; ``None`` when a record does not keep them) and
    ``gate_caveat``, the convergence gates' caveat every privacy-cost verdict carries ("":
    none)."""

    points: pd.DataFrame
    schedules: pd.DataFrame | None = None
    gate_caveat: str = ""


def paper_points(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
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
    t = tables.get("mc_lsw")
    if t is not None:
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


def dp_lsw_points(points: pd.DataFrame) -> pd.DataFrame:
    """The DP-LSW rows of the points, labelled ``"DP-LSW"`` with their grid's cells a side in a
    ``grid`` column (the inverse of :func:`lsw_label`)."""
    grid = points.method.str.extract(r"^DP-LSW (\d+)x\d+$", expand=False)
    rows = points[grid.notna()]
    return rows.assign(method="DP-LSW", grid=grid[grid.notna()].astype(int))


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


def read_paper_schedules(path: str | Path | None = None) -> pd.DataFrame | None:
    """The recorded paper-profile runs of Theorems 2-3 (:data:`PAPER_SCHEDULES`), or ``None`` if
    none were recorded; looked up as :func:`read_paper_points` looks up the points."""
    found = Path(path) if path is not None else recorded_file(PAPER_SCHEDULES)
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
    "FigureData",
    "dp_lsw_points",
    "lsw_label",
    "paper_points",
    "read_paper_points",
    "read_paper_schedules",
    "summarise_points",
    "write_paper_points",
    "write_paper_schedules",
]
