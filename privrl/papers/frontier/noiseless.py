r"""GPOPE without noise on the Frontier's datasets, as the *earlier* record measured it: a reader.

The map now carries every method's own noiseless floor at every point and GPOPE without noise at
its own tuned (iterations, step) (:func:`~privrl.papers.frontier.trials.run_frontier`), so there
is no separate noiseless recording any more. Until the new map is recorded, the chapter still
reads the earlier record (``book/measurements/results/frontier-noiseless-points.csv``, run
record ``book/measurements/frontier-noiseless.json``: GPOPE at noise multiplier 0 on the map's
replicate seeds at every step of the old grid): :func:`optimisation_share` keeps, per
(domain, n), the step of the lowest geometric-mean RMSE over the replicates (an oracle choice)
and sets it beside the non-private reference, the zero estimate and GPOPE (PLD) at the map's
smallest and largest epsilon.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from privrl.chapter import records
from privrl.chapter.plotting import in_words
from privrl.papers.frontier.analysis import GPOPE_PLD, log_errors
from privrl.papers.frontier.profile import PAPER

#: The record's profile name and files (``book/measurements/``).
NOISELESS = "noiseless"
POINTS_CSV = f"{PAPER}-{NOISELESS}-points.csv"
RECORD_JSON = f"{PAPER}-{NOISELESS}.json"
#: The label of GPOPE without noise at its best step.
LABEL = "GPOPE without noise"


def optimisation_share(points: pd.DataFrame, noiseless: pd.DataFrame) -> pd.DataFrame:
    """Per (domain, n): the geometric-mean RMSE over replicates of the non-private
    ``reference``, the ``zero`` estimate, GPOPE without noise at its best step (``step``, the
    lowest geometric mean) and GPOPE (PLD) at the map's smallest and largest epsilon, and
    ``share``: of GPOPE (PLD)'s log10 distance to the reference at the largest epsilon, the
    fraction GPOPE without noise keeps (1: all of it is optimisation; 0: none)."""
    logs = log_errors(points)
    lo, hi = logs.index.get_level_values("epsilon").min(), logs.index.get_level_values("epsilon").max()
    noise = noiseless.assign(value=np.log10(np.maximum(noiseless.rmse.to_numpy(float), 1e-300)))
    by_step = noise.groupby(["domain", "n", "step_size"]).value.mean().reset_index()
    best = by_step.loc[by_step.groupby(["domain", "n"]).value.idxmin()].set_index(["domain", "n"])
    rows = []
    for (domain, n), g in logs.groupby(level=["domain", "n"]):
        at = g.groupby(level="epsilon").mean()
        if (domain, n) not in best.index or GPOPE_PLD not in at:
            continue
        ref, free = at["reference"].iloc[0], best.loc[(domain, n), "value"]
        private = at.loc[hi, GPOPE_PLD]
        rows.append({"domain": domain, "n": int(n), "reference": 10 ** ref,
                     "zero": 10 ** at["zero"].iloc[0], LABEL: 10 ** free,
                     "step": float(best.loc[(domain, n), "step_size"]),
                     f"GPOPE, epsilon = {lo:g}": 10 ** at.loc[lo, GPOPE_PLD],
                     f"GPOPE, epsilon = {hi:g}": 10 ** private,
                     "share": (free - ref) / (private - ref) if private > ref else np.nan})
    return pd.DataFrame(rows)


def _span(low: float, high: float, fmt: str) -> str:
    """"low to high" in ``fmt``, or one number where both read the same."""
    a, b = format(low, fmt), format(high, fmt)
    return a if a == b else f"{a} to {b}"


def optimisation_findings(share: pd.DataFrame, step_grid: tuple[float, ...]) -> str:
    """One sentence per domain of :func:`optimisation_share`'s table (the chain, then Mountain
    Car on- and off-policy): the range over n of GPOPE without noise, of the non-private
    reference and of the share, and where the best step is the largest of ``step_grid`` (a
    larger step might do better: the share is then optimisation at the map's grid)."""
    order = ["chain", "mountain_car_on", "mountain_car_off"]
    lines = []
    for domain in [d for d in order if d in set(share.domain)]:
        g = share[share.domain == domain]
        name = "the chain" if domain == "chain" else in_words(domain)
        top = (g.step == max(step_grid)).all()
        lines.append(
            f"On {name}, GPOPE without noise stays at {_span(g[LABEL].min(), g[LABEL].max(), '.2g')} "
            f"(value RMSE) over n = {g.n.min():,} to {g.n.max():,}, where the non-private estimate "
            f"reaches {_span(g.reference.min(), g.reference.max(), '.2g')}: "
            f"{_span(g.share.min(), g.share.max(), '.0%')} of private GPOPE's log10 distance to it "
            "at the largest epsilon is there without noise"
            + (f"; its best step is the grid's largest ({max(step_grid):g}) at every n" if top else "")
            + ".")
    return " ".join(lines)


def recorded_noiseless(directory: Path | None = None) -> pd.DataFrame | None:
    """The recorded :data:`POINTS_CSV` (``None`` if not recorded), from ``directory`` or the
    book's results."""
    path = Path(directory) / POINTS_CSV if directory is not None else records.recorded_file(POINTS_CSV)
    return pd.read_csv(path) if path is not None and path.exists() else None


__all__ = ["LABEL", "NOISELESS", "POINTS_CSV", "RECORD_JSON", "optimisation_findings",
           "optimisation_share", "recorded_noiseless"]
