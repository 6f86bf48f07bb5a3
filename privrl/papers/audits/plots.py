"""The Audits chapter's figure: claimed epsilon, audited lower bound and weakened bound per release."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def plot_audits(table: pd.DataFrame, ax: Any) -> None:
    """Claimed epsilon, audited lower bound with its interval, and the weakened variant's bound,
    one row per release (epsilon on a log axis, capped at 20)."""
    y = np.arange(len(table))[::-1]

    def cap(v: Any) -> np.ndarray:
        return np.clip(np.asarray(v, float), 0.01, 20.0)

    lo, hi = cap(table.epsilon_lower), cap(table.epsilon_upper)
    ax.errorbar(lo, y + 0.15, xerr=[np.zeros_like(lo), hi - lo], fmt="o", capsize=2,
                label="audited lower bound (to the interval's upper end)")
    ax.scatter(cap(table.claimed_epsilon), y, marker="|", s=200, color="k", label="claimed epsilon")
    ax.scatter(cap(table.weakened_lower), y - 0.15, marker="x", color="C3",
               label="weakened variant's lower bound")
    ax.set_yticks(y, table.release)
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (log scale; 0 shown at 0.01, values above 20 at 20)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8)
