"""The Frontier chapter's sweeps: calibrate, tune on public seeds, then the map.

Each step is a :func:`privrl.chapter.sweep.run_sweep` over a run function of
:mod:`privrl.papers.frontier.trials`, so a recording killed at any point resumes from its cache:

1. :func:`calibrations` - GPOPE's noise multiplier for every (n, epsilon, iterations) of the map
   under each accountant (PLD and RDP), for the profile's delta: every value of
   ``iterations_grid`` (more iterations, more noise for the same budget);
2. :func:`tuned_settings` - GPOPE's (iterations, step) per (domain, n, epsilon, accountant), and
   per (domain, n) without noise: the pair of ``iterations_grid`` x ``step_grid`` with the
   smallest mean MSPBE on ``tune_datasets`` public datasets (seeds
   :data:`~privrl.papers.frontier.profile.TUNING_SEED`, disjoint from the replicates'), each
   flagged where it lies at an edge of a grid (:func:`edges`);
3. :func:`tuned_lams` - SSP-LSTD's ridge per (domain, n, epsilon) on the on-policy domains, the
   value of ``lam_grid`` with the smallest mean MSPBE on the same public datasets;
4. :func:`run_map` - ``n_datasets`` replicates of every domain (:func:`trials.run_frontier`) and
   of SSP-LSTD on the on-policy ones (:func:`trials.run_ssp_lstd`, the same datasets).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.papers.frontier import trials
from privrl.papers.frontier.profile import TUNING_SEED, FrontierProfile

#: GPOPE's accountants, in the calibration table's order (:data:`trials.API_ACCOUNTANT`).
ACCOUNTANTS: tuple[str, ...] = tuple(trials.API_ACCOUNTANT)
#: The domains SSP-LSTD runs on: on-policy LSTD (off-policy, its statistics would carry
#: products of importance ratios, unbounded, so no finite sensitivity).
SSP_DOMAINS: tuple[str, ...] = ("chain", "mountain_car_on")
#: A tuned GPOPE *learns nothing* when its mean MSPBE over the tuning datasets is less than this
#: fraction below the zero estimate's: within the spread of the tuning itself (on the chain at
#: n = 10 and 100 one setting's MSPBE differs between the 3 public datasets by 4% to 10% of the
#: zero estimate's, e.g. 0.92, 1.00 and 1.02 times it), so its optimum is no better than
#: learning nothing, the limit of a vanishing step, which no grid brackets: the smallest step
#: or iterations of a grid is no edge there.
ZERO_TOLERANCE = 0.05


#: The columns of a calibration table: ``z`` calibrated for the first four, ``cross_epsilon`` its
#: ledger cross-check (:func:`trials.run_calibration`).
CALIBRATION_COLUMNS: tuple[str, ...] = (
    "n",
    "epsilon",
    "accountant",
    "iterations",
    "z",
    "cross_epsilon",
)


def calibrations(
    profile: FrontierProfile, known: pd.DataFrame | None = None, **sweep: Any
) -> pd.DataFrame:
    """``n, epsilon, accountant, iterations, z, cross_epsilon`` for every (n, epsilon) of the
    profile, every
    value of its ``iterations_grid`` and each of :data:`ACCOUNTANTS`: the rows of ``known`` (a
    calibration table of :func:`trials.run_calibration` at the profile's delta, e.g. a current
    record's) as they are, the others calibrated here."""
    cfgs = [
        {"n": n, "epsilon": eps, "accountant": acct, "delta": profile.delta, "iterations": T}
        for n in sorted(profile.sizes)
        for eps in profile.epsilons
        for T in sorted(profile.iterations_grid)
        for acct in ACCOUNTANTS
    ]
    columns, keys = list(CALIBRATION_COLUMNS), list(CALIBRATION_COLUMNS[:4])
    wanted = pd.DataFrame(cfgs)[keys]
    parts = [] if known is None else [wanted.merge(known[columns], on=keys)]
    done = {row for part in parts for row in part[keys].itertuples(index=False, name=None)}
    missing = [c for c in cfgs if tuple(c[k] for k in keys) not in done]
    if missing:
        parts.append(
            run_sweep(trials.run_calibration, missing, 1, 0, desc="frontier calibrate", **sweep)[
                columns
            ]
        )
    return wanted.merge(pd.concat(parts, ignore_index=True), on=keys)[columns]


def tuning_noise(calibration: pd.DataFrame) -> tuple[tuple[int, float, str, int, float], ...]:
    """The ``gpope`` entry of a tuning config: ``(n, epsilon, accountant, iterations, z)`` per
    row of ``calibration``."""
    return tuple(
        (int(r.n), float(r.epsilon), str(r.accountant), int(r.iterations), float(r.z))
        for r in calibration.itertuples()
    )


def map_noise(
    calibration: pd.DataFrame, settings: pd.DataFrame
) -> tuple[tuple[int, float, str, float, float, int], ...]:
    """The ``gpope`` entry of a map config: ``(n, epsilon, accountant, z, step, iterations)``
    per private row of one domain's tuned ``settings``, its z the one calibrated for its
    (n, epsilon, accountant, iterations)."""
    cal = calibration.set_index(["n", "epsilon", "accountant", "iterations"]).z
    rows = []
    for r in settings[settings.accountant != "none"].itertuples():
        T = int(r.iterations)
        z = float(cal.loc[(r.n, r.epsilon, r.accountant, T)])
        rows.append((int(r.n), float(r.epsilon), str(r.accountant), z, float(r.step_size), T))
    return tuple(rows)


def noiseless_settings(settings: pd.DataFrame) -> tuple[tuple[int, float, int], ...]:
    """The ``noiseless`` entry of a map config: ``(n, step, iterations)`` per row of one
    domain's tuned ``settings`` without noise."""
    return tuple(
        (int(r.n), float(r.step_size), int(r.iterations))
        for r in settings[settings.accountant == "none"].itertuples()
    )


def edges(
    chosen: pd.DataFrame,
    zero: dict[tuple[str, int], float],
    step_grid: tuple[float, ...],
    iterations_grid: tuple[int, ...],
) -> pd.DataFrame:
    """``chosen`` with ``edge`` (where the chosen setting lies at an end of its grid, in words:
    ``"step high"``, ``"step low"``, ``"iterations low"``, ``"iterations cap"``, joined by
    ``"; "``, or ``""``), ``at_edge`` (``edge`` is not empty), ``learns_nothing`` (its mean
    MSPBE is at least the zero estimate's less :data:`ZERO_TOLERANCE` of it: the optimum is
    the limit of a vanishing step, which no grid brackets) and ``at_edge_undeclared``: below
    the compute cap (the largest iterations value, declared), the largest step, or the
    smallest step or iterations where GPOPE learns something. ``zero``: the zero estimate's
    MSPBE per (domain, n). A cell at the cap is declared whatever else lies at an edge: a
    step at the end of its grid there stands in for the iterations the cap withholds (on
    Mountain Car at n = 100, epsilon 1, the smallest step at 8,000 iterations)."""
    lo_s, hi_s = min(step_grid), max(step_grid)
    lo_t, hi_t = min(iterations_grid), max(iterations_grid)
    words, nothing, undeclared = [], [], []
    for r in chosen.itertuples():
        found = []
        if len(step_grid) > 1 and r.step_size >= hi_s:
            found.append("step high")
        if len(step_grid) > 1 and r.step_size <= lo_s:
            found.append("step low")
        if len(iterations_grid) > 1 and r.iterations <= lo_t:
            found.append("iterations low")
        if len(iterations_grid) > 1 and r.iterations >= hi_t:
            found.append("iterations cap")
        floor = zero[(r.domain, int(r.n))]
        none = bool(r.mspbe >= (1 - ZERO_TOLERANCE) * floor)
        words.append("; ".join(found))
        nothing.append(none)
        capped = "iterations cap" in found
        undeclared.append(
            not capped
            and (
                "step high" in found
                or (not none and ("step low" in found or "iterations low" in found))
            )
        )
    return chosen.assign(
        edge=words,
        at_edge=[bool(w) for w in words],
        learns_nothing=nothing,
        at_edge_undeclared=undeclared,
    )


def zero_mspbe(profile: FrontierProfile, domain: str) -> float:
    """The MSPBE of the zero estimate on ``domain``'s target problem (what learning nothing
    scores)."""
    problem = trials.target_problem(profile.domain_config(domain))
    return float(trials.errors(np.zeros((1, problem[0].shape[0])), problem)[0][0])


def tuned_settings(
    profile: FrontierProfile, calibration: pd.DataFrame, **sweep: Any
) -> pd.DataFrame:
    """``domain, n, epsilon, accountant, iterations, step_size, mspbe, edge, at_edge,
    learns_nothing, at_edge_undeclared``: the tuned (iterations, step) of each GPOPE release and, with
    ``accountant`` ``"none"`` and ``epsilon`` NaN, of GPOPE without noise per (domain, n) (the
    smallest mean MSPBE over the public tuning datasets; :func:`edges`)."""
    cfgs = [
        {**profile.domain_config(d), "gpope": tuning_noise(calibration)} for d in profile.domains
    ]
    tuning = run_sweep(
        trials.run_tuning, cfgs, profile.tune_datasets, TUNING_SEED, desc="frontier tune", **sweep
    )
    tuning["epsilon"] = tuning.epsilon.fillna(-1.0)  # groupby keeps the noiseless rows
    keys = ["domain", "n", "epsilon", "accountant"]
    mean = tuning.groupby([*keys, "iterations", "step_size"])["mspbe"].mean().reset_index()
    chosen = mean.loc[mean.groupby(keys)["mspbe"].idxmin()].reset_index(drop=True)
    chosen["epsilon"] = chosen.epsilon.where(chosen.epsilon >= 0)
    zero = {d: zero_mspbe(profile, d) for d in profile.domains}
    zeros = {(d, int(n)): zero[d] for d, n in zip(chosen.domain, chosen.n, strict=True)}
    return edges(chosen, zeros, tuple(profile.step_grid), tuple(profile.iterations_grid))


def map_configs(
    profile: FrontierProfile, calibration: pd.DataFrame, settings: pd.DataFrame
) -> list[dict[str, Any]]:
    """One :func:`trials.run_frontier` config per domain: its settings, every GPOPE release with
    its tuned (iterations, step) and the z calibrated for them, and GPOPE without noise at its
    own tuned settings."""
    return [
        {
            **profile.domain_config(d),
            "gpope": map_noise(calibration, settings[settings.domain == d]),
            "noiseless": noiseless_settings(settings[settings.domain == d]),
        }
        for d in profile.domains
    ]


def ssp_configs(
    profile: FrontierProfile, lams: dict[tuple[str, int, float], tuple[float, ...]]
) -> list[dict[str, Any]]:
    """One :func:`trials.run_ssp_lstd` config per on-policy domain of ``profile``, with the
    ridges ``lams[(domain, n, epsilon)]`` at each (n, epsilon)."""
    return [
        {
            **profile.domain_config(d),
            "floor_lam": min(profile.lam_grid),
            "ssp_lams": tuple(
                (n, eps, lam)
                for n in sorted(profile.sizes)
                for eps in profile.epsilons
                for lam in lams[(d, n, eps)]
            ),
        }
        for d in profile.domains
        if d in SSP_DOMAINS
    ]


def tuned_lams(profile: FrontierProfile, **sweep: Any) -> pd.DataFrame:
    """``domain, n, epsilon, lam, mspbe, edge, at_edge, learns_nothing``: SSP-LSTD's ridge per
    (domain, n, epsilon), the value of ``lam_grid`` with the smallest mean MSPBE over the
    public tuning datasets (seeds :data:`TUNING_SEED`), flagged at an end of the grid
    (``"lam high"``: the estimate shrunk towards zero, ``"lam low"``: towards plain LSTD on
    the noisy statistics) and where it learns nothing (within :data:`ZERO_TOLERANCE` of the zero
    estimate's MSPBE)."""
    grid = tuple(sorted(profile.lam_grid))
    every = {
        (d, n, eps): grid
        for d in profile.domains
        for n in profile.sizes
        for eps in profile.epsilons
    }
    cfgs = ssp_configs(profile, every)
    if not cfgs:
        return pd.DataFrame(
            columns=["domain", "n", "epsilon", "lam", "mspbe", "edge", "at_edge", "learns_nothing"]
        )
    tuning = run_sweep(
        trials.run_ssp_lstd,
        cfgs,
        profile.tune_datasets,
        TUNING_SEED,
        desc="frontier tune SSP-LSTD",
        **sweep,
    )
    keys = ["domain", "n", "epsilon"]
    mean = tuning.groupby([*keys, "lam"])["mspbe"].mean().reset_index()
    chosen = mean.loc[mean.groupby(keys)["mspbe"].idxmin()].reset_index(drop=True)
    zero = {d: zero_mspbe(profile, d) for d in set(chosen.domain)}
    words = [
        ("lam high" if r.lam >= grid[-1] else "lam low" if r.lam <= grid[0] else "")
        for r in chosen.itertuples()
    ]
    nothing = [bool(r.mspbe >= (1 - ZERO_TOLERANCE) * zero[r.domain]) for r in chosen.itertuples()]
    return chosen.assign(edge=words, at_edge=[bool(w) for w in words], learns_nothing=nothing)


#: The columns of the map's points table.
POINTS = [
    "domain",
    "n",
    "method",
    "accountant",
    "epsilon",
    "noise",
    "step_size",
    "iterations",
    "mspbe",
    "rmse",
    "rmse_clipped",
    "floor_mspbe",
    "floor_rmse",
    "floor_rmse_clipped",
    "clipped",
    "lam",
    "seconds",
    "seed",
]


def run_map(
    profile: FrontierProfile, known: pd.DataFrame | None = None, **sweep: Any
) -> dict[str, pd.DataFrame]:
    """The whole map: tables ``calibration`` (``known`` rows as they are, :func:`calibrations`),
    ``steps`` (:func:`tuned_settings`), ``lams``
    (:func:`tuned_lams`) and ``points`` (every replicate's rows, with its ``seed``; ``lam``:
    SSP-LSTD's ridge, NaN on the other rows)."""
    calibration = calibrations(profile, known, **sweep)
    steps = tuned_settings(profile, calibration, **sweep)
    lams = tuned_lams(profile, **sweep)
    points = run_sweep(
        trials.run_frontier,
        map_configs(profile, calibration, steps),
        profile.n_datasets,
        profile.seed,
        desc="frontier map",
        **{"order": "seed", **sweep},
    )
    chosen = {(r.domain, int(r.n), float(r.epsilon)): (float(r.lam),) for r in lams.itertuples()}
    cfgs = ssp_configs(profile, chosen)
    if cfgs:
        ssp_points = run_sweep(
            trials.run_ssp_lstd,
            cfgs,
            profile.n_datasets,
            profile.seed,
            desc="frontier map SSP-LSTD",
            **{"order": "seed", **sweep},
        )
        points = pd.concat([points, ssp_points], ignore_index=True)
    points = points.reindex(columns=POINTS)
    return {"calibration": calibration, "steps": steps, "lams": lams, "points": points}


__all__ = [
    "ACCOUNTANTS",
    "CALIBRATION_COLUMNS",
    "POINTS",
    "SSP_DOMAINS",
    "ZERO_TOLERANCE",
    "calibrations",
    "edges",
    "map_noise",
    "map_configs",
    "noiseless_settings",
    "run_map",
    "ssp_configs",
    "tuned_lams",
    "tuned_settings",
    "tuning_noise",
    "zero_mspbe",
]
