r"""The run functions of the Frontier chapter (one seed of :func:`privrl.chapter.sweep.run_sweep`
= one fresh dataset of the largest ``n`` of the map; imports only :mod:`privrl.core`).

A *replicate* (:func:`run_frontier`) draws ``max(sizes)`` trajectories of one domain
(:mod:`privrl.core.evaluation_domains`) once; every smaller ``n`` of the map uses its first ``n``
(prefixes), and every method and epsilon at that ``n`` uses the same data, its noise drawn after.
At each ``n`` it releases:

* GPOPE (Xie et al. 2019, Algorithm 1) at every (epsilon, accountant) of ``config["gpope"]``
  with the noise multiplier ``z`` calibrated in the parent for that (n, epsilon) by that
  accountant (PLD or RDP) and the step tuned on public seeds (:func:`run_tuning`);
* DP-LSW (and on the chain DP-LSL; Balle et al. 2016) at every epsilon, smooth sensitivity;
* the non-private reference on the same ``n``: LSTD on-policy, WIS-LSTD off-policy, and the
  zero estimate (what an evaluator that learns nothing scores).

Every estimate :math:`\theta` is scored against the **target** :math:`\theta^*`, the non-private
estimate on the full data (chain: the exact TD fixed point of the model, i.e. LSTD on infinite
data; Mountain Car: LSTD / WIS-LSTD on ``target_episodes`` public episodes), in two views of one
error: the MSPBE :math:`\|A\theta - b\|^2_{M^{-1}} = \|A(\theta - \theta^*)\|^2_{M^{-1}}` of the
target's problem (A, b, M), and the value RMSE
:math:`\sqrt{(\theta - \theta^*)^\top M (\theta - \theta^*)}` on its state distribution (M is
:math:`E[\phi\phi^\top]` over the behaviour's visits).
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np
import pandas as pd

from privrl.core.accounting.gpope_pld import calibrate_pld_noise_multiplier
from privrl.core.accounting.subsampled import calibrate_noise_multiplier
from privrl.core.algorithms.gtd import SaddlePointStats, gpope, mspbe, saddle_point_solution
from privrl.core.algorithms.lstd import FeatureTransitions, transition_sums
from privrl.core.algorithms.monte_carlo import (
    FirstVisitReturns,
    SmoothGaussianBudget,
    dp_lsl,
    dp_lsw,
    first_visit_returns,
    lsl_regularization,
)
from privrl.core.evaluation_domains import (
    MC_SETTINGS,
    cell_features,
    cell_trajectories,
    chain_data,
    chain_problem,
    mountain_car_episodes,
    mountain_car_features,
)
from privrl.core.results_version import results_version
from privrl.core.rng import as_generator

#: Root seed of the public full-data sample of Mountain Car (never a replicate's seed).
TARGET_SEED = 90_101
#: Episodes per chunk of the public full-data sample (bounds the memory of one chunk).
TARGET_CHUNK = 5_000
#: Trajectories per chunk when forming per-trajectory statistics.
STATS_CHUNK = 1_000
#: GPOPE's accountants: the PLD one (an upper bound by Zhu, Dong and Wang 2022's dominating
#: pair, the tightest) and the RDP one the paper's analysis uses.
CALIBRATORS = {"PLD": calibrate_pld_noise_multiplier, "RDP": calibrate_noise_multiplier}


@functools.lru_cache(maxsize=4)
def mountain_car_target(domain: str, episodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, b, M) per transition of ``episodes`` public behaviour episodes of ``domain`` (seed
    :data:`TARGET_SEED`, chunks of :data:`TARGET_CHUNK`): the full data's problem."""
    chunks = [TARGET_CHUNK] * (episodes // TARGET_CHUNK)
    if episodes % TARGET_CHUNK:
        chunks.append(episodes % TARGET_CHUNK)
    total = None
    for size, ss in zip(chunks, np.random.SeedSequence(TARGET_SEED).spawn(len(chunks)),
                        strict=True):
        traj, probs = mountain_car_episodes(domain, size, ss)
        sums = transition_sums(mountain_car_features(domain, traj, probs, MC_SETTINGS[domain]))
        total = sums if total is None else tuple(a + b for a, b in zip(total, sums, strict=True))
    A, b, M, count = total
    return A / count, b / count, M / count


def target_problem(config: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, b, M) of the full-data problem of ``config["domain"]`` (module text)."""
    if config["domain"] == "chain":
        prob = chain_problem(config)
        return prob["A"], prob["b"], prob["M"]
    return mountain_car_target(config["domain"], config["target_episodes"])


def errors(thetas: np.ndarray, problem: tuple[np.ndarray, np.ndarray, np.ndarray]
           ) -> tuple[np.ndarray, np.ndarray]:
    """(MSPBE, value RMSE) of each row of ``thetas`` (K, d) against the target's problem."""
    A, b, M = problem
    star = saddle_point_solution(A, b, M)
    diff = np.atleast_2d(thetas) - star
    rmse = np.sqrt(np.maximum(np.einsum("ki,ij,kj->k", diff, M, diff), 0.0))
    return mspbe(np.atleast_2d(thetas), A, b, M), rmse


def _chunked_stats(data: FeatureTransitions) -> SaddlePointStats:
    parts = [SaddlePointStats.from_features(data.subset(slice(i, i + STATS_CHUNK)))
             for i in range(0, data.n, STATS_CHUNK)]
    return SaddlePointStats(A=np.concatenate([p.A for p in parts]),
                            b=np.concatenate([p.b for p in parts]),
                            M=np.concatenate([p.M for p in parts]),
                            lengths=np.concatenate([p.lengths for p in parts]))


def prefix(stats: SaddlePointStats, n: int) -> SaddlePointStats:
    """The statistics of the first ``n`` trajectories."""
    return SaddlePointStats(A=stats.A[:n], b=stats.b[:n], M=stats.M[:n], lengths=stats.lengths[:n])


def reference_estimate(stats: SaddlePointStats) -> np.ndarray:
    r"""LSTD (on-policy statistics) or WIS-LSTD (importance-weighted statistics) on the data:
    every transition weighted equally, :math:`\sum_i L_i \hat A_i\,\theta = \sum_i L_i \hat b_i`
    (WIS-LSTD's normalisation by the sum of the ratios scales both sides alike); least squares
    if singular."""
    L = stats.lengths.astype(float)
    return np.linalg.lstsq(np.tensordot(L, stats.A, axes=1), L @ stats.b, rcond=None)[0]


def fv_prefix(fv: FirstVisitReturns, n: int) -> FirstVisitReturns:
    """The first-visit returns of the first ``n`` trajectories."""
    returns, visited = fv.returns[:n], fv.visited[:n]
    counts = visited.sum(axis=0)
    return FirstVisitReturns(returns=returns, visited=visited, counts=counts,
                             means=returns.sum(axis=0) / np.maximum(counts, 1))


def replicate_data(config: dict[str, Any], n: int, seed: np.random.SeedSequence):
    """One replicate's dataset of ``n`` trajectories of ``config["domain"]``, drawn from
    ``seed`` before anything else (so every run function given the seed sees the same data):
    (statistics, first-visit returns or None, Phi and rho of DP-LSW/LSL, the generator of the
    algorithms' randomness)."""
    domain = config["domain"]
    if domain == "chain":
        prob, traj, stats, gen = chain_data(config, n, seed)
        fv = first_visit_returns(traj, prob["mdp"].n_states, config["gamma"])
        rho = np.full(prob["mdp"].n_states, 1.0 / prob["mdp"].n_states)
        return stats, fv, prob["Phi"], rho, gen
    data_ss, alg_ss = seed.spawn(2)
    traj, probs = mountain_car_episodes(domain, n, data_ss)
    stats = _chunked_stats(mountain_car_features(domain, traj, probs, MC_SETTINGS[domain]))
    fv = Phi = rho = None
    if domain == "mountain_car_on" and config["lsw_cells"] > 0:
        k = config["lsw_cells"]
        fv = first_visit_returns(cell_trajectories(traj, k), k * k, MC_SETTINGS[domain].gamma)
        Phi, rho = cell_features(k), np.full(k * k, 1.0 / (k * k))
    return stats, fv, Phi, rho, as_generator(alg_ss)


def gpope_at(config: dict[str, Any], stats: SaddlePointStats, n: int, gen: np.random.Generator,
             steps: np.ndarray, zs: np.ndarray):
    """GPOPE (Algorithm 1) on the first ``n`` trajectories, one trial per (step, noise
    multiplier) pair of ``steps`` and ``zs``, with ``config``'s iterations, clip and schedule."""
    return gpope(prefix(stats, n), config["iterations"], steps, config["clip_norm"], zs, gen,
                 n_trials=len(zs), schedule=config["schedule"])


PROBE = {"domain": "chain", "sizes": (5, 10), "epsilons": (1.0,), "delta": 1e-5,
         "n_states": 10, "p_stay": 0.5, "gamma": 0.9, "max_steps": 50, "return_bound": 1.0,
         "lsl_c": 1.0, "lsl_power": 0.4, "iterations": 50, "clip_norm": 0.05,
         "schedule": "diminishing", "lsw_cells": 0, "target_episodes": 0,
         "gpope": ((5, 1.0, "PLD", 20.0, 0.1), (10, 1.0, "PLD", 10.0, 0.1),
                   (5, 1.0, "RDP", 25.0, 0.1), (10, 1.0, "RDP", 12.0, 0.1))}


@results_version("1", probe=PROBE, ignore=("seconds",))
def run_frontier(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One replicate of one domain (module text). ``config``: ``domain``, ``sizes``,
    ``epsilons``, ``delta``, ``gpope`` (tuples ``(n, epsilon, accountant, z, step)``), the GPOPE
    settings ``iterations, clip_norm, schedule``, the chain's ``n_states, p_stay, gamma,
    max_steps, return_bound, lsl_c, lsl_power``, Mountain Car's ``target_episodes`` and
    ``lsw_cells`` (0: no DP-LSW).

    Rows: ``domain, n, method`` (``reference``, ``zero``, ``GPOPE``, ``DP-LSW``, ``DP-LSL``),
    ``accountant, epsilon`` (NaN: non-private), ``noise`` (GPOPE's z,
    DP-LSW/LSL's sigma_X, 0 for the reference), ``step_size``, ``mspbe``, ``rmse``,
    ``clipped``, ``seconds`` (the replicate's CPU time, on every row; not a result)."""
    start = time.process_time()
    sizes = sorted(config["sizes"])
    stats, fv, Phi, rho, gen = replicate_data(config, sizes[-1], seed)
    problem = target_problem(config)
    rows, thetas = [], []
    for n in sizes:
        for method in ("reference", "zero"):
            rows.append(dict(n=n, method=method, accountant="none", epsilon=np.nan, noise=0.0,
                             step_size=np.nan, clipped=np.nan))
        thetas += [reference_estimate(prefix(stats, n)), np.zeros(stats.dim)]
        noisy = [g for g in config["gpope"] if g[0] == n]
        if noisy:
            res = gpope_at(config, stats, n, gen, np.array([g[4] for g in noisy]),
                            np.array([g[3] for g in noisy]))
            for (_, eps, acct, z, step), theta in zip(noisy, res.theta, strict=True):
                rows.append(dict(n=n, method="GPOPE", accountant=acct, epsilon=eps, noise=z,
                                 step_size=step, clipped=res.clipped_fraction))
                thetas.append(theta)
        if fv is None:
            continue
        part = fv_prefix(fv, n)
        for eps in config["epsilons"]:
            budget = SmoothGaussianBudget(eps, config["delta"], *_return_range(config))
            est = dp_lsw(part, Phi, rho, budget, gen)
            rows.append(dict(n=n, method="DP-LSW", accountant="smooth sensitivity",
                             epsilon=eps, noise=est.sigma, step_size=np.nan, clipped=np.nan))
            thetas.append(est.theta)
            if config["domain"] == "chain":
                lam = lsl_regularization(Phi, rho, n, config["lsl_c"], config["lsl_power"])
                est = dp_lsl(part, Phi, rho, lam, budget, gen)
                rows.append(dict(n=n, method="DP-LSL", accountant="smooth sensitivity",
                                 epsilon=eps, noise=est.sigma, step_size=np.nan, clipped=np.nan))
                thetas.append(est.theta)
    out = pd.DataFrame(rows)
    out["mspbe"], out["rmse"] = errors(np.vstack(thetas), problem)
    out.insert(0, "domain", config["domain"])
    out["seconds"] = time.process_time() - start
    return out


def _return_range(config: dict[str, Any]) -> tuple[float, float]:
    """:math:`(F_{max}, F_{low})`: the chain's returns lie in :math:`[0, F_{max}]`
    (``return_bound``); Mountain Car's rewards are -1 per step, so every return lies in
    :math:`[-F_{max}, 0]` with :math:`F_{max} = 1/(1-\\gamma)`."""
    if config["domain"] == "chain":
        return float(config["return_bound"]), 0.0
    bound = 1.0 / (1.0 - MC_SETTINGS[config["domain"]].gamma)
    return bound, -bound


@results_version("1", probe={**PROBE, "step_grid": (0.1, 1.0)})
def run_tuning(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE at every noise of ``config["gpope"]`` (its step ignored) and every step of
    ``config["step_grid"]`` on one **public** dataset (seeds disjoint from the replicates'),
    each ``n`` a prefix. Rows: ``domain, n, epsilon, accountant, step_size, mspbe``."""
    sizes = sorted(config["sizes"])
    stats, _, _, _, gen = replicate_data({**config, "lsw_cells": 0}, sizes[-1], seed)
    problem = target_problem(config)
    grid = np.asarray(config["step_grid"], dtype=float)
    frames = []
    for n in sizes:
        noisy = [g for g in config["gpope"] if g[0] == n]
        if not noisy:
            continue
        res = gpope_at(config, stats, n, gen, np.tile(grid, len(noisy)),
                        np.repeat([g[3] for g in noisy], len(grid)))
        frames.append(pd.DataFrame({
            "n": n, "epsilon": np.repeat([g[1] for g in noisy], len(grid)),
            "accountant": np.repeat([g[2] for g in noisy], len(grid)),
            "step_size": np.tile(grid, len(noisy)), "mspbe": errors(res.theta, problem)[0]}))
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "domain", config["domain"])
    return out


@results_version("2", probe={"n": 10, "epsilon": 1.0, "accountant": "PLD", "delta": 1e-5,
                             "iterations": 10})
def run_calibration(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """The smallest GPOPE noise multiplier ``z`` meeting ``config``'s ``(epsilon, delta)`` for
    ``n`` trajectories and ``iterations`` steps under its ``accountant`` (``"PLD"``:
    :func:`~privrl.core.accounting.gpope_pld.calibrate_pld_noise_multiplier`; ``"RDP"``:
    :func:`~privrl.core.accounting.subsampled.calibrate_noise_multiplier`), to 1%; ``seed`` is
    unused (a sweep caches the result). One row: ``n, epsilon, accountant, iterations, z``."""
    del seed
    args = (config["epsilon"], config["delta"], config["n"], config["iterations"])
    calibrate = CALIBRATORS[config["accountant"]]
    return pd.DataFrame([{**{k: config[k] for k in ("n", "epsilon", "accountant", "iterations")},
                          "z": calibrate(*args, rtol=1e-2)}])


__all__ = ["CALIBRATORS", "PROBE", "TARGET_SEED", "errors", "fv_prefix", "gpope_at",
           "mountain_car_target", "prefix", "reference_estimate", "replicate_data",
           "run_calibration", "run_frontier", "run_tuning", "target_problem"]
