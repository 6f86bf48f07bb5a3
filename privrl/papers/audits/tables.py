"""The Audits chapter's displayed tables: this run's audits, and the recorded paper-profile run's."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from privrl.papers.audits.releases import AUDITS


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """The chapter's table: release, claim, audited lower bound (interval), weakened bound."""
    return pd.DataFrame(
        {
            "release": table.release,
            "claimed (epsilon, delta)": [
                f"({e:.3g}, {d:.2g})" for e, d in zip(table.claimed_epsilon, table.delta, strict=True)
            ],
            "audited lower bound (interval)": [
                f"{lo:.3f} ({lo:.3f}, {hi:.3f})"
                for lo, hi in zip(table.epsilon_lower, table.epsilon_upper, strict=True)
            ],
            "exact epsilon of the pair": table.exact_epsilon.map(
                lambda v: "" if math.isnan(v) else f"{v:.3f}"),
            "weakening": table.weakening,
            "weakened lower bound": table.weakened_lower.map(lambda v: f"{v:.3f}"),
            "runs per input": table.n_samples.map(lambda n: f"2 x {n:,}"),
        }
    )


def recorded_table(recorded: dict[str, Any] | None) -> pd.DataFrame | None:
    """The recorded run's claimed epsilon, audited lower bound and weakened bound per release (from
    its checks), with its profile, commit and wall time; ``None`` if nothing was recorded."""
    if recorded is None:
        return None
    checks = {c["key"]: c for c in recorded["summary"]["checks"]}
    rows = [
        {
            "release": name,
            "claimed epsilon": round(checks[f"{name}_lower"]["bound"], 3),
            "audited lower bound": round(checks[f"{name}_lower"]["observed"], 3),
            "weakened lower bound": round(checks[f"{name}_weakened"]["observed"], 3),
        }
        for name in AUDITS
        if f"{name}_lower" in checks and f"{name}_weakened" in checks
    ]
    run = recorded["record"]
    frame = pd.DataFrame(rows)
    frame.attrs["provenance"] = (
        f"{run['profile']} profile, commit {run['git_commit']}, {run['finished_at'][:10]}, "
        f"{run['wall_time_s'] / 60:.1f} min on {run['cpus']} cores"
    )
    return frame
