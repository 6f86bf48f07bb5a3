"""The Frontier chapter's sweeps: calibrate, tune on public seeds, then the map.

Each step is a :func:`privrl.chapter.sweep.run_sweep` over a run function of
:mod:`privrl.papers.frontier.trials`, so a recording killed at any point resumes from its cache:

1. :func:`calibrations` - GPOPE's noise multiplier for every (n, epsilon) of the map under each
   accountant (PLD and RDP), for the profile's delta and ``iterations`` steps;
2. :func:`tuned_steps` - GPOPE's step per (domain, n, epsilon, accountant): the step of
   ``step_grid`` with the smallest mean MSPBE on ``tune_datasets`` public datasets (seeds
   :data:`~privrl.papers.frontier.profile.TUNING_SEED`, disjoint from the replicates');
3. :func:`run_map` - ``n_datasets`` replicates of every domain (:func:`trials.run_frontier`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.papers.frontier import trials
from privrl.papers.frontier.profile import TUNING_SEED, FrontierProfile

ACCOUNTANTS: tuple[str, ...] = ("PLD", "RDP")


def calibrations(profile: FrontierProfile, **sweep: Any) -> pd.DataFrame:
    """``n, epsilon, accountant, iterations, z`` for every (n, epsilon) of the profile and each
    of :data:`ACCOUNTANTS`."""
    cfgs = [{"n": n, "epsilon": eps, "accountant": acct, "delta": profile.delta,
             "iterations": profile.iterations}
            for n in sorted(profile.sizes) for eps in profile.epsilons for acct in ACCOUNTANTS]
    out = run_sweep(trials.run_calibration, cfgs, 1, 0, desc="frontier calibrate", **sweep)
    return out[["n", "epsilon", "accountant", "iterations", "z"]]


def gpope_noise(calibration: pd.DataFrame, steps: pd.DataFrame | None = None
                ) -> tuple[tuple[int, float, str, float, float], ...]:
    """The ``gpope`` entry of a run config: ``(n, epsilon, accountant, z, step)`` per row of
    ``calibration`` (``steps``: one domain's tuned steps; ``None``: step 1, for tuning)."""
    rows = []
    for r in calibration.itertuples():
        step = 1.0
        if steps is not None:
            match = steps[(steps.n == r.n) & (steps.epsilon == r.epsilon)
                          & (steps.accountant == r.accountant)]
            step = float(match.step_size.iloc[0])
        rows.append((int(r.n), float(r.epsilon), str(r.accountant), float(r.z), step))
    return tuple(rows)


def tuned_steps(profile: FrontierProfile, calibration: pd.DataFrame, **sweep: Any
                ) -> pd.DataFrame:
    """``domain, n, epsilon, accountant, step_size, mspbe``: the tuned step of each GPOPE
    release (smallest mean MSPBE over the public tuning datasets)."""
    cfgs = [{**profile.domain_config(d), "gpope": gpope_noise(calibration)}
            for d in profile.domains]
    tuning = run_sweep(trials.run_tuning, cfgs, profile.tune_datasets, TUNING_SEED,
                       desc="frontier tune", **sweep)
    keys = ["domain", "n", "epsilon", "accountant"]
    mean = tuning.groupby([*keys, "step_size"])["mspbe"].mean().reset_index()
    return mean.loc[mean.groupby(keys)["mspbe"].idxmin()].reset_index(drop=True)


def map_configs(profile: FrontierProfile, calibration: pd.DataFrame, steps: pd.DataFrame
                ) -> list[dict[str, Any]]:
    """One :func:`trials.run_frontier` config per domain: its settings, every GPOPE release with
    its calibrated z and tuned step."""
    return [{**profile.domain_config(d),
             "gpope": gpope_noise(calibration, steps[steps.domain == d])}
            for d in profile.domains]


def run_map(profile: FrontierProfile, **sweep: Any) -> dict[str, pd.DataFrame]:
    """The whole map: tables ``calibration``, ``steps`` and ``points`` (every replicate's rows,
    with its ``seed``)."""
    calibration = calibrations(profile, **sweep)
    steps = tuned_steps(profile, calibration, **sweep)
    points = run_sweep(trials.run_frontier, map_configs(profile, calibration, steps),
                       profile.n_datasets, profile.seed, desc="frontier map",
                       **{"order": "seed", **sweep})
    keep = ["domain", "n", "method", "accountant", "epsilon", "noise", "step_size", "mspbe",
            "rmse", "clipped", "seconds", "seed"]
    return {"calibration": calibration, "steps": steps, "points": points[keep]}


__all__ = ["ACCOUNTANTS", "calibrations", "gpope_noise", "map_configs", "run_map", "tuned_steps"]
