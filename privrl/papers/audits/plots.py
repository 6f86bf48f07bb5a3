"""The Audits chapter's figure (claimed epsilon, audited lower bound and weakened bound per
release) and its caption, generated from the data drawn."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.colours import colour, words
from privrl.chapter.plotting import in_words, legend_outside
from privrl.papers.audits.releases import UNDETECTABLE
from privrl.papers.audits.tables import SAVED_COLUMNS


def recorded_audits(recorded: dict[str, Any] | None) -> pd.DataFrame | None:
    """The recorded run's audits as its summary saved them (one row per release, the columns of
    :data:`~privrl.papers.audits.tables.SAVED_COLUMNS`), for :func:`plot_audits`; ``None`` if
    nothing was recorded or the summary predates its ``audits`` entry."""
    if recorded is None or "audits" not in recorded["summary"]:
        return None
    return pd.DataFrame(recorded["summary"]["audits"], columns=list(SAVED_COLUMNS))


def plot_audits(table: pd.DataFrame, ax: Any) -> None:
    """Claimed epsilon, audited lower bound (with its interval's upper end when ``table`` has
    ``epsilon_upper``), and the weakened variant's bound, one row per release (epsilon on a log
    axis, capped at 20; releases named in words); the legend beside the axes."""
    y = np.arange(len(table))[::-1]

    def cap(v: Any) -> np.ndarray:
        return np.clip(np.asarray(v, float), 0.01, 20.0)

    lo = cap(table.epsilon_lower)
    if "epsilon_upper" in table:
        hi = cap(table.epsilon_upper)
        ax.errorbar(
            lo,
            y + 0.15,
            xerr=[np.zeros_like(lo), hi - lo],
            fmt="o",
            capsize=2,
            color=colour("audited"),
            label=f"{words('audited')}\n(line: to its interval's end)",
        )
    else:
        ax.plot(lo, y + 0.15, "o", color=colour("audited"), label=words("audited"))
    ax.scatter(cap(table.claimed_epsilon), y, marker="|", s=200, color="k", label="claimed epsilon")
    ax.scatter(
        cap(table.weakened_lower),
        y - 0.15,
        marker="x",
        color=colour("weakened"),
        label=words("weakened"),
    )
    ax.set_yticks(y, [in_words(r) for r in table.release])
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (log scale; 0 shown at 0.01)")
    legend_outside(ax)


def _names(releases: list[str]) -> str:
    """Releases in words, listed ("GPOPE, sampled trajectories" as "GPOPE (sampled
    trajectories)", so that the list's commas stay unambiguous)."""
    words = [
        w.replace(", ", " (", 1) + ")" if ", " in w else w for w in (in_words(r) for r in releases)
    ]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def audits_caption(table: pd.DataFrame, where: str) -> str:
    """The figure's caption, true for ``table`` (the run named by ``where``): which dots lie left
    of their bar (audited bound below the claim) and which crosses right of it (weakening
    caught), naming the exceptions and whether they are listed as undetectable."""
    above = list(table.release[table.epsilon_lower > table.claimed_epsilon])
    missed = list(table.release[table.weakened_lower <= table.claimed_epsilon])
    listed = [r for r in missed if r in UNDETECTABLE]
    unlisted = [r for r in missed if r not in UNDETECTABLE]
    interval = " with the upper end of its interval (line)" if "epsilon_upper" in table else ""
    parts = [
        f"Claimed epsilon (black bar), audited 95% lower bound (dot){interval} and the "
        f"weakened variant's lower bound (cross) for the {len(table)} releases of {where}."
    ]
    parts.append(
        "Every dot lies left of its bar: no audit exceeds its claim."
        if not above
        else f"Dots right of their bar (an audit above its claim): {_names(above)}."
    )
    if not missed:
        parts.append("Every cross lies right of its bar: every weakening is caught.")
    else:
        parts.append(
            f"{len(table) - len(missed)} crosses lie right of their bar (the weakening is caught)"
        )
        if listed:
            parts[-1] += (
                f"; those of {_names(listed)} lie left of it: no audit of this size can "
                "detect their weakening (listed at the end of the chapter)"
            )
        if unlisted:
            parts[-1] += f"; not caught and not listed: {_names(unlisted)}"
        parts[-1] += "."
    parts.append("Epsilon is on a log scale; an audited bound of 0 is shown at 0.01.")
    return " ".join(parts)


__all__ = ["audits_caption", "plot_audits", "recorded_audits"]
