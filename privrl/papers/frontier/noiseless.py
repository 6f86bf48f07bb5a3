r"""GPOPE without noise on the Frontier's datasets: how much of GPOPE's error on the map is its
optimisation (``iterations`` steps of Algorithm 1 under its clip), not its privacy.

:func:`run_noiseless` runs Algorithm 1 with noise multiplier 0 (the map's clip, schedule,
iterations and sampling of one trajectory per step) at every step of ``step_grid`` on one
replicate's dataset and its prefixes. The recorder (:func:`record_noiseless`) runs it on the
map's own replicate seeds, so on the map's data: :func:`~privrl.papers.frontier.trials.run_frontier`
and this function both draw the dataset from the seed first
(:func:`~privrl.papers.frontier.trials.replicate_data`). :func:`optimisation_share` keeps, per
(domain, n), the step of the lowest geometric-mean RMSE over the replicates (an oracle choice,
the most favourable to GPOPE without noise, so its error is a floor on optimisation's share) and
sets it beside the non-private reference, the zero estimate and GPOPE (PLD) at the map's
smallest and largest epsilon. Record (resumable through the sweep cache)::

    python -m privrl.papers.frontier.record --noiseless --cache-dir book/measurements/cache/frontier-noiseless

writes ``book/measurements/results/frontier-noiseless-points.csv`` and its run record
``book/measurements/frontier-noiseless.json`` (judged by this module's results version).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter import records
from privrl.chapter.plotting import in_words
from privrl.chapter.records import RunRecord, current_commit
from privrl.chapter.sweep import run_sweep
from privrl.core.results_version import results_version
from privrl.papers.frontier import trials
from privrl.papers.frontier.analysis import GPOPE_PLD, log_errors
from privrl.papers.frontier.profile import PAPER, FrontierProfile

#: The record's profile name and files (``book/measurements/``).
NOISELESS = "noiseless"
POINTS_CSV = f"{PAPER}-{NOISELESS}-points.csv"
RECORD_JSON = f"{PAPER}-{NOISELESS}.json"
#: The label of GPOPE without noise at its best step.
LABEL = "GPOPE without noise"
#: The module the record names as its producer (its run function's results version judges it).
MODULE = "privrl.papers.frontier.noiseless"


@results_version("1", probe={**trials.PROBE, "step_grid": (0.1, 1.0)}, ignore=("seconds",))
def run_noiseless(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE with noise multiplier 0 at every step of ``config["step_grid"]`` and every ``n`` of
    ``config["sizes"]`` (prefixes of one dataset drawn from ``seed``; ``config`` as
    :func:`~privrl.papers.frontier.trials.run_frontier` takes it, its ``gpope`` entry unused).
    Rows: ``domain, n, step_size, mspbe, rmse, clipped, seconds`` (the replicate's CPU time,
    on every row; not a result)."""
    start = time.process_time()
    sizes = sorted(config["sizes"])
    stats, _, _, _, gen = trials.replicate_data({**config, "lsw_cells": 0}, sizes[-1], seed)
    problem = trials.target_problem(config)
    grid = np.asarray(config["step_grid"], dtype=float)
    frames = []
    for n in sizes:
        res = trials.gpope_at(config, stats, n, gen, grid, np.zeros(len(grid)))
        mspbe, rmse = trials.errors(res.theta, problem)
        frames.append(pd.DataFrame({"n": n, "step_size": grid, "mspbe": mspbe, "rmse": rmse,
                                    "clipped": res.clipped_fraction}))
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "domain", config["domain"])
    out["seconds"] = time.process_time() - start
    return out


def run_noiseless_map(profile: FrontierProfile, **sweep: Any) -> pd.DataFrame:
    """:func:`run_noiseless` on every domain of ``profile`` over the map's replicate seeds
    (``profile.n_datasets`` from ``profile.seed``, as :func:`~privrl.papers.frontier.runs.run_map`
    draws them), with their ``seed``."""
    configs = [profile.domain_config(d) for d in profile.domains]
    return run_sweep(run_noiseless, configs, profile.n_datasets, profile.seed,
                     desc="frontier without noise", **{"order": "seed", **sweep})


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


def record_noiseless(profile: FrontierProfile, *, cache_dir: Any, directory: Path | None = None,
                     workers: int = 2, progress: bool = True, command: str = "") -> RunRecord:
    """Run :func:`run_noiseless_map` and write :data:`POINTS_CSV` into ``directory`` (default
    the book's results) and its run record :data:`RECORD_JSON` one folder up (profile
    :data:`NOISELESS`, produced by :data:`MODULE`, so judged by its results version;
    ``command``: the command line that made it)."""
    commit, start = current_commit(), time.perf_counter()
    dirty = records.code_dirty()
    points = run_noiseless_map(profile, cache_dir=cache_dir, progress=progress,
                               max_workers=workers,
                               executor="process" if workers > 1 else "serial")
    record = RunRecord.now(
        notebook=PAPER, profile=NOISELESS,
        parameters={k: list(v) if isinstance(v, tuple) else v
                    for k, v in dataclasses.asdict(profile).items()},
        wall_time_s=time.perf_counter() - start, git_commit=commit, git_dirty=dirty,
        compute_s=round(float(points.groupby(["domain", "seed"]).seconds.first().sum()), 1),
        workers=workers, command=command, files=[POINTS_CSV], produced_by=[MODULE])
    directory = Path(directory) if directory is not None else records.results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    points.drop(columns=["seconds"]).to_csv(directory / POINTS_CSV, index=False)
    record.write(directory.parent / RECORD_JSON)
    return record


def recorded_noiseless(directory: Path | None = None) -> pd.DataFrame | None:
    """The recorded :data:`POINTS_CSV` (``None`` if not recorded), from ``directory`` or the
    book's results."""
    path = Path(directory) / POINTS_CSV if directory is not None else records.recorded_file(POINTS_CSV)
    return pd.read_csv(path) if path is not None and path.exists() else None


__all__ = ["LABEL", "MODULE", "NOISELESS", "POINTS_CSV", "RECORD_JSON", "optimisation_findings",
           "optimisation_share", "record_noiseless", "recorded_noiseless", "run_noiseless",
           "run_noiseless_map"]
