"""Every audit and its weakened variant, one row per release (:mod:`privrl.papers.audits.releases`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from privrl.papers.audits.releases import AUDITS, WEAKENINGS


def run_audits(size: str = "quick", seed: int = 0, names: list[str] | None = None) -> pd.DataFrame:
    """Audit each release of ``names`` (default: all of :data:`AUDITS`) and its weakened variant,
    the ``i``-th with seeds ``seed + 2 i`` and ``seed + 2 i + 1``: one row per release."""
    rows: list[dict[str, Any]] = []
    for i, name in enumerate(names or list(AUDITS)):
        base = AUDITS[name](size, seed + 2 * i)
        weak = AUDITS[name](size, seed + 2 * i + 1, weakened=True)
        rows.append(
            dict(
                release=name,
                claimed_epsilon=base.claimed_epsilon,
                delta=base.delta,
                epsilon_lower=base.epsilon_lower,
                epsilon_estimate=base.epsilon_estimate,
                epsilon_upper=base.epsilon_upper,
                exact_epsilon=base.exact_epsilon,
                n_samples=base.n_samples,
                statistic=base.statistic,
                weakening=WEAKENINGS[name],
                weakened_lower=weak.epsilon_lower,
                weakened_upper=weak.epsilon_upper,
                weakened_exact_epsilon=weak.exact_epsilon,
            )
        )
    return pd.DataFrame(rows)
