"""The Audits chapter's displayed tables: this run's audits, and the recorded paper-profile run's."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from privrl.papers.audits.releases import AUDITS, UNDETECTABLE


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """The chapter's table: release, claim, audited lower bound (interval), its ratio to the
    claimed epsilon, the weakened variant's bound and ratio, and whether the weakening is caught
    (or listed as undetectable)."""
    return pd.DataFrame(
        {
            "release": table.release,
            "claimed (epsilon, delta)": [
                f"({e:.3g}, {d:.2g})"
                for e, d in zip(table.claimed_epsilon, table.delta, strict=True)
            ],
            "audited lower bound (interval)": [
                f"{lo:.3f} ({lo:.3f}, {hi:.3f})"
                for lo, hi in zip(table.epsilon_lower, table.epsilon_upper, strict=True)
            ],
            "lower bound / claim": (table.epsilon_lower / table.claimed_epsilon).map(
                lambda v: f"{v:.2f}"
            ),
            "exact epsilon of the pair": table.exact_epsilon.map(
                lambda v: "" if math.isnan(v) else f"{v:.3f}"
            ),
            "weakening": table.weakening,
            "weakened lower bound": table.weakened_lower.map(lambda v: f"{v:.3f}"),
            "weakened / claim": (table.weakened_lower / table.claimed_epsilon).map(
                lambda v: f"{v:.2f}"
            ),
            "weakening caught": [
                "undetectable (listed)" if name in UNDETECTABLE else ("yes" if w > c else "NO")
                for name, w, c in zip(
                    table.release, table.weakened_lower, table.claimed_epsilon, strict=True
                )
            ],
            "runs per input": table.n_samples.map(lambda n: f"2 x {n:,}"),
        }
    )


def undetectable_list(table: pd.DataFrame) -> str:
    """Markdown list of this run's audits whose realistic weakening cannot be detected, with why
    (:data:`~privrl.papers.audits.releases.UNDETECTABLE`)."""
    rows = [row for row in table.itertuples() if row.release in UNDETECTABLE]
    if not rows:
        return "No audit of this run is listed as unable to detect its weakening."
    return "\n".join(
        f"* **{row.release}** ({row.weakening}: lower bound {row.weakened_lower:.3f} for a claim "
        f"of {row.claimed_epsilon:.3g}): {UNDETECTABLE[row.release]}."
        for row in rows
    )


#: The columns of this run's audits a saved summary keeps (``audits``), for the recorded table.
SAVED_COLUMNS = ("release", "claimed_epsilon", "epsilon_lower", "weakening", "weakened_lower")


def saved_audits(table: pd.DataFrame) -> list[dict[str, Any]]:
    """This run's audits as the summary's ``audits`` entry (:data:`SAVED_COLUMNS`), so that a
    recorded run lists every release, the undetectable weakenings included."""
    return [
        {k: (v if isinstance(v, str) else float(v)) for k, v in row.items()}
        for row in table[list(SAVED_COLUMNS)].to_dict("records")
    ]


def recorded_table(recorded: dict[str, Any] | None) -> pd.DataFrame | None:
    """The recorded run's claimed epsilon, audited lower bound and weakened bound per release, with
    whether the weakening was caught (or is listed as undetectable), and its profile, commit and
    wall time; ``None`` if nothing was recorded. Read from the summary's ``audits`` entry
    (:func:`saved_audits`), or, for a record saved before it existed, from its checks (which leave
    out the releases whose weakening is listed as undetectable)."""
    if recorded is None:
        return None
    summary = recorded["summary"]
    if "audits" in summary:
        rows = [
            {
                "release": a["release"],
                "claimed epsilon": round(a["claimed_epsilon"], 3),
                "audited lower bound": round(a["epsilon_lower"], 3),
                "weakening": a["weakening"],
                "weakened lower bound": round(a["weakened_lower"], 3),
                "weakening caught": (
                    "undetectable (listed)"
                    if a["release"] in UNDETECTABLE
                    else "yes"
                    if a["weakened_lower"] > a["claimed_epsilon"]
                    else "NO"
                ),
            }
            for a in summary["audits"]
        ]
    else:
        checks = {c["key"]: c for c in summary["checks"]}
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
