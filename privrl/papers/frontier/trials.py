r"""The run functions of the Frontier chapter (one seed of :func:`privrl.chapter.sweep.run_sweep`
= one fresh dataset of the largest ``n`` of the map; imports :mod:`privrl.core` and the api's
calibrations).

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
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrl.api.evaluation import (
    SmoothGaussianNoise,
    gpope_noise,
    smooth_gaussian_noise,
    ssp_lstd_noise,
)
from privrl.core.accounting.subsampled import GPOPE_PLD_INTERVAL, gpope_pld_epsilon
from privrl.core.algorithms import ssp_lstd as ssp
from privrl.core.algorithms.gtd import SaddlePointStats, gpope, mspbe, saddle_point_solution
from privrl.core.algorithms.lstd import FeatureTransitions, transition_sums
from privrl.core.algorithms.monte_carlo import (
    FirstVisitReturns,
    dp_lsl,
    dp_lsw,
    first_visit_returns,
    lsl_regularization,
)
from privrl.core.envs.mountain_car import fourier_features
from privrl.core.evaluation_domains import (
    MC_FOURIER_ORDER,
    MC_MAX_STEPS,
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
from privrl.core.trajectories import Trajectories

#: Root seed of the public full-data sample of Mountain Car (never a replicate's seed).
TARGET_SEED = 90_101
#: Episodes per chunk of the public full-data sample (bounds the memory of one chunk).
TARGET_CHUNK = 5_000
#: Trajectories per chunk when forming per-trajectory statistics.
STATS_CHUNK = 1_000
#: States of the fixed public sample the value RMSEs of Mountain Car are taken over (drawn
#: uniformly over the transitions of the first chunk of the public target episodes, so weighted
#: as the behaviour visits them).
VALUE_STATES = 5_000
#: GPOPE's accountants (the calibration table's names) and the api's name of each
#: (:func:`~privrl.api.evaluation.gpope_noise`): the PLD one (an upper bound by Zhu, Dong and
#: Wang 2022's dominating pair, the tightest) and the RDP one the paper's analysis uses.
API_ACCOUNTANT: dict[str, Literal["pld", "rdp"]] = {"PLD": "pld", "RDP": "rdp"}
#: The cross-check of a calibrated GPOPE release, ``(z, n, iterations, delta) -> epsilon``, a
#: tighter figure its epsilon must not undercut: for a PLD release the same pair's PLD at half the
#: discretisation interval (pessimistic rounding's excess shrinks with it), for an RDP release
#: the tight PLD figure on the same ``z``. Kept in the calibration table: at the map's largest
#: ``n`` and ``iterations`` a finer PLD takes seconds per release.
CROSS_CHECKS = {
    "PLD": lambda z, n, T, delta: gpope_pld_epsilon(z, n, T, delta, GPOPE_PLD_INTERVAL / 2),
    "RDP": lambda z, n, T, delta: gpope_pld_epsilon(z, n, T, delta),
}


@functools.lru_cache(maxsize=4)
def _mountain_car_public(domain: str, episodes: int):
    chunks = [TARGET_CHUNK] * (episodes // TARGET_CHUNK)
    if episodes % TARGET_CHUNK:
        chunks.append(episodes % TARGET_CHUNK)
    total, states = None, None
    for size, ss in zip(
        chunks, np.random.SeedSequence(TARGET_SEED).spawn(len(chunks)), strict=True
    ):
        traj, probs = mountain_car_episodes(domain, size, ss)
        data = mountain_car_features(domain, traj, probs, MC_SETTINGS[domain])
        sums = transition_sums(data)
        total = sums if total is None else tuple(a + b for a, b in zip(total, sums, strict=True))
        if states is None:  # the first chunk: every visited state, one row per transition
            steps = np.arange(data.phi.shape[1] - 1)[None, :] < data.lengths[:, None]
            visited = data.phi[:, :-1][steps]
            pick = np.random.default_rng(TARGET_SEED).choice(
                len(visited), size=min(VALUE_STATES, len(visited)), replace=False
            )
            states = visited[np.sort(pick)]
    A, b, M, count = total
    return A / count, b / count, M / count, states


def mountain_car_target(domain: str, episodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, b, M) per transition of ``episodes`` public behaviour episodes of ``domain`` (seed
    :data:`TARGET_SEED`, chunks of :data:`TARGET_CHUNK`): the full data's problem."""
    return _mountain_car_public(domain, episodes)[:3]


def value_states(config: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(features (K, d), weights (K,) summing to 1): the fixed public states the value RMSEs are
    taken over. The chain: its states, weighted by the occupancy its M uses (so the unclipped
    RMSE over them is :func:`errors`' exactly); Mountain Car: :data:`VALUE_STATES` states of
    the public target episodes, uniform over their transitions (the behaviour's visits, which
    its M averages over), equal weights."""
    if config["domain"] == "chain":
        prob = chain_problem(config)
        occ = prob["occupancy"]
        return prob["Phi_td"], occ / occ.sum()
    states = _mountain_car_public(config["domain"], config["target_episodes"])[3]
    return states, np.full(len(states), 1.0 / len(states))


def value_range(config: dict[str, Any]) -> tuple[float, float]:
    r"""(low, high): the interval every value of ``config["domain"]`` lies in, the return bound
    its DP-LSW / DP-LSL releases' sensitivity uses (:func:`_return_range`): the chain
    :math:`[0, F_{max}]`, Mountain Car :math:`[-1/(1-\gamma), 0]`."""
    bound, low = _return_range(config)
    return low, low + bound


def clipped_rmse(thetas: np.ndarray, config: dict[str, Any], problem) -> np.ndarray:
    r"""The value RMSE of each row of ``thetas`` after free post-processing: every released value
    :math:`\phi(s)^\top\theta` clipped to :func:`value_range`, against the target's (unclipped)
    values, over :func:`value_states`."""
    phi, w = value_states(config)
    low, high = value_range(config)
    star = saddle_point_solution(*problem)
    values = np.clip(np.atleast_2d(thetas) @ phi.T, low, high)
    return np.sqrt(np.maximum((values - phi @ star) ** 2 @ w, 0.0))


def target_problem(config: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, b, M) of the full-data problem of ``config["domain"]`` (module text)."""
    if config["domain"] == "chain":
        prob = chain_problem(config)
        return prob["A"], prob["b"], prob["M"]
    return mountain_car_target(config["domain"], config["target_episodes"])


def errors(
    thetas: np.ndarray, problem: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(MSPBE, value RMSE) of each row of ``thetas`` (K, d) against the target's problem."""
    A, b, M = problem
    star = saddle_point_solution(A, b, M)
    diff = np.atleast_2d(thetas) - star
    rmse = np.sqrt(np.maximum(np.einsum("ki,ij,kj->k", diff, M, diff), 0.0))
    return mspbe(np.atleast_2d(thetas), A, b, M), rmse


def _chunked_stats(data: FeatureTransitions) -> SaddlePointStats:
    parts = [
        SaddlePointStats.from_features(data.subset(slice(i, i + STATS_CHUNK)))
        for i in range(0, data.n, STATS_CHUNK)
    ]
    return SaddlePointStats(
        A=np.concatenate([p.A for p in parts]),
        b=np.concatenate([p.b for p in parts]),
        M=np.concatenate([p.M for p in parts]),
        lengths=np.concatenate([p.lengths for p in parts]),
    )


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
    return FirstVisitReturns(
        returns=returns,
        visited=visited,
        counts=counts,
        means=returns.sum(axis=0) / np.maximum(counts, 1),
    )


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


def gpope_at(
    config: dict[str, Any],
    stats: SaddlePointStats,
    n: int,
    gen: np.random.Generator,
    steps: np.ndarray,
    zs: np.ndarray,
    iterations: int | None = None,
):
    """GPOPE (Algorithm 1) on the first ``n`` trajectories, one trial per (step, noise
    multiplier) pair of ``steps`` and ``zs``, with ``iterations`` steps (default
    ``config["iterations"]``) and ``config``'s clip and schedule."""
    T = int(config["iterations"] if iterations is None else iterations)
    return gpope(
        prefix(stats, n),
        T,
        steps,
        config["clip_norm"],
        zs,
        gen,
        n_trials=len(zs),
        schedule=config["schedule"],
    )


#: The label of GPOPE run without noise at its own tuned (iterations, step): its converged floor
#: (the same string as :data:`privrl.papers.frontier.analysis.NOISELESS`).
NOISELESS = "GPOPE without noise"

#: The chain, its privacy delta and return bound shared by :data:`PROBE` and :data:`SSP_PROBE`.
_PROBE_CHAIN = {
    "delta": 1e-5,
    "n_states": 10,
    "p_stay": 0.5,
    "gamma": 0.9,
    "max_steps": 50,
    "return_bound": 1.0,
}

PROBE = {
    "domain": "chain",
    "sizes": (5, 10),
    "epsilons": (1.0,),
    **_PROBE_CHAIN,
    "lsl_c": 1.0,
    "lsl_power": 0.4,
    "clip_norm": 0.05,
    "schedule": "diminishing",
    "lsw_cells": 0,
    "target_episodes": 0,
    "gpope": (
        (5, 1.0, "PLD", 20.0, 0.1, 50),
        (10, 1.0, "PLD", 10.0, 0.1, 30),
        (5, 1.0, "RDP", 25.0, 0.3, 50),
        (10, 1.0, "RDP", 12.0, 0.1, 50),
    ),
    "noiseless": ((5, 1.0, 50), (10, 0.1, 30)),
}


def scored(
    rows: list[dict],
    thetas: list[np.ndarray],
    floors: list[np.ndarray],
    config: dict[str, Any],
    problem: tuple[np.ndarray, np.ndarray, np.ndarray],
    start: float,
) -> pd.DataFrame:
    """A replicate's ``rows`` with each release's errors (MSPBE, value RMSE, RMSE clipped to the
    value range) and its floor's, against ``problem``; ``domain`` first and ``seconds`` (the
    CPU time since ``start``) last."""
    out = pd.DataFrame(rows)
    thetas_, floors_ = np.vstack(thetas), np.vstack(floors)
    out["mspbe"], out["rmse"] = errors(thetas_, problem)
    out["rmse_clipped"] = clipped_rmse(thetas_, config, problem)
    out["floor_mspbe"], out["floor_rmse"] = errors(floors_, problem)
    out["floor_rmse_clipped"] = clipped_rmse(floors_, config, problem)
    out.insert(0, "domain", config["domain"])
    out["seconds"] = time.process_time() - start
    return out


def _gpope_rows(
    config: dict[str, Any], stats: SaddlePointStats, n: int, gen: np.random.Generator
) -> tuple[list[dict], list[np.ndarray], list[np.ndarray]]:
    """GPOPE's rows at ``n`` (module text of :func:`run_frontier`): one call of Algorithm 1 per
    iterations value in use, its trials every private release at that value, the same
    (iterations, step) without noise (each release's own floor) and GPOPE without noise at its
    tuned settings. Returns (rows, thetas, floor thetas)."""
    noisy = [g for g in config["gpope"] if g[0] == n]
    free = [g for g in config.get("noiseless", ()) if g[0] == n]
    rows, thetas, floors = [], [], []
    for T in sorted({g[5] for g in noisy} | {g[2] for g in free}):
        here = [g for g in noisy if g[5] == T]
        settings = sorted({g[4] for g in here} | {g[1] for g in free if g[2] == T})
        steps = np.array([g[4] for g in here] + settings, dtype=float)
        zs = np.array([g[3] for g in here] + [0.0] * len(settings), dtype=float)
        res = gpope_at(config, stats, n, gen, steps, zs, iterations=T)
        floor = dict(zip(settings, res.theta[len(here) :], strict=True))
        for (_, eps, acct, z, step, _), theta in zip(here, res.theta[: len(here)], strict=True):
            rows.append(
                dict(
                    n=n,
                    method="GPOPE",
                    accountant=acct,
                    epsilon=eps,
                    noise=z,
                    step_size=step,
                    iterations=T,
                    clipped=res.clipped_fraction,
                )
            )
            thetas.append(theta)
            floors.append(floor[step])
        for _, step, _ in [g for g in free if g[2] == T]:
            rows.append(
                dict(
                    n=n,
                    method=NOISELESS,
                    accountant="none",
                    epsilon=np.nan,
                    noise=0.0,
                    step_size=step,
                    iterations=T,
                    clipped=res.clipped_fraction,
                )
            )
            thetas.append(floor[step])
            floors.append(floor[step])
    return rows, thetas, floors


def _untuned_row(
    n: int, method: str, accountant: str, epsilon: float, noise: float
) -> dict[str, Any]:
    """A row of :func:`run_frontier` for a method with no step, iterations or clipping (the
    reference, the zero estimate, DP-LSW, DP-LSL): those columns NaN."""
    return dict(
        n=n,
        method=method,
        accountant=accountant,
        epsilon=epsilon,
        noise=noise,
        step_size=np.nan,
        iterations=np.nan,
        clipped=np.nan,
    )


@results_version("2", probe=PROBE, ignore=("seconds",))
def run_frontier(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One replicate of one domain (module text). ``config``: ``domain``, ``sizes``,
    ``epsilons``, ``delta``, ``gpope`` (tuples ``(n, epsilon, accountant, z, step,
    iterations)``: each private GPOPE release, its noise calibrated for its iterations),
    ``noiseless`` (tuples ``(n, step, iterations)``: GPOPE without noise at its own tuned
    settings), the GPOPE settings ``clip_norm, schedule``, the chain's ``n_states, p_stay, gamma,
    max_steps, return_bound, lsl_c, lsl_power``, Mountain Car's ``target_episodes`` and
    ``lsw_cells`` (0: no DP-LSW).

    Rows: ``domain, n, method`` (``reference``, ``zero``, ``GPOPE``, ``GPOPE without noise``,
    ``DP-LSW``, ``DP-LSL``), ``accountant, epsilon`` (NaN: non-private), ``noise`` (GPOPE's z,
    DP-LSW/LSL's sigma_X, 0 for the non-private rows), ``step_size``, ``iterations``,
    ``mspbe``, ``rmse``, ``rmse_clipped`` (every value clipped to the value range: free
    post-processing, :func:`clipped_rmse`), ``floor_mspbe``, ``floor_rmse``,
    ``floor_rmse_clipped`` (the method's own noiseless estimate on the same data: GPOPE at the
    release's (iterations, step) with z = 0; DP-LSW / DP-LSL with sigma = 0, their least-squares
    fit of the first-visit returns; a non-private row's own error), ``clipped`` (GPOPE's clipped
    gradient fraction), ``seconds`` (the replicate's CPU time, on every row; not a result)."""
    start = time.process_time()
    sizes = sorted(config["sizes"])
    stats, fv, Phi, rho, gen = replicate_data(config, sizes[-1], seed)
    problem = target_problem(config)
    rows, thetas, floors = [], [], []
    for n in sizes:
        rows += [_untuned_row(n, method, "none", np.nan, 0.0) for method in ("reference", "zero")]
        thetas += [reference_estimate(prefix(stats, n)), np.zeros(stats.dim)]
        floors += thetas[-2:]
        more = _gpope_rows(config, stats, n, gen)
        rows += more[0]
        thetas += more[1]
        floors += more[2]
        if fv is None:
            continue
        part = fv_prefix(fv, n)
        for eps in config["epsilons"]:
            budget = smooth_noise(config, eps, Phi.shape[1]).budget
            est = dp_lsw(part, Phi, rho, budget, gen)
            rows.append(_untuned_row(n, "DP-LSW", "smooth sensitivity", eps, est.sigma))
            thetas.append(est.theta)
            floors.append(est.theta_nonprivate)
            if config["domain"] == "chain":
                lam = lsl_regularization(Phi, rho, n, config["lsl_c"], config["lsl_power"])
                est = dp_lsl(part, Phi, rho, lam, budget, gen)
                rows.append(_untuned_row(n, "DP-LSL", "smooth sensitivity", eps, est.sigma))
                thetas.append(est.theta)
                floors.append(est.theta_nonprivate)
    return scored(rows, thetas, floors, config, problem, start)


def ssp_bounds(config: dict[str, Any]) -> ssp.SSPBounds:
    r"""SSP-LSTD's public bounds on ``config["domain"]`` (on-policy domains only): the chain's
    one-hot features (:math:`F = 1`), rewards in {0, 1} (:math:`R = 1`) and trajectories capped
    at ``max_steps`` (:math:`L`); Mountain Car's Fourier features of order
    :data:`~privrl.core.evaluation_domains.MC_FOURIER_ORDER`, every coordinate a cosine
    (:math:`F = \sqrt{d}`, :math:`d = 36`), rewards -1 (:math:`R = 1`), episodes capped at
    :data:`~privrl.core.evaluation_domains.MC_MAX_STEPS`. Each holds by construction; the
    release enforces it all the same."""
    if config["domain"] == "chain":
        return ssp.SSPBounds(1.0, 1.0, int(config["max_steps"]), float(config["gamma"]))
    if config["domain"] != "mountain_car_on":
        raise ValueError(f"SSP-LSTD is on-policy LSTD: no bounds for {config['domain']!r}")
    d = (MC_FOURIER_ORDER + 1) ** 2
    return ssp.SSPBounds(float(np.sqrt(d)), 1.0, MC_MAX_STEPS, MC_SETTINGS[config["domain"]].gamma)


def ssp_contributions(
    config: dict[str, Any], n: int, seed: np.random.SeedSequence
) -> tuple[np.ndarray, int, np.random.Generator]:
    """(contributions (n, d^2 + d), d, generator of the noise) of one replicate's dataset: the
    same ``n`` trajectories :func:`replicate_data` draws from ``seed`` (its first child), with
    :func:`ssp_bounds` enforced, each trajectory's :math:`(\\mathrm{vec}\\,A_i, b_i)`
    (:func:`~privrl.core.algorithms.ssp_lstd.trajectory_statistics`, in chunks of
    :data:`STATS_CHUNK`); the generator from a child of ``seed`` none of the other methods
    uses (the third)."""
    bounds = ssp_bounds(config)
    if config["domain"] == "chain":
        prob, traj, _, _ = chain_data(config, n, seed)
        phi = prob["Phi_td"]
    else:
        data_ss, _ = seed.spawn(2)
        traj, _ = mountain_car_episodes(config["domain"], n, data_ss)
        phi = None
    rows = []
    for lo in range(0, n, STATS_CHUNK):
        part = traj.subset(slice(lo, min(lo + STATS_CHUNK, n)))
        if phi is None:  # Mountain Car: the observations in features
            part = Trajectories(
                fourier_features(part.observations, MC_FOURIER_ORDER),
                part.actions,
                part.rewards,
                part.lengths,
                part.terminated,
            )
        rows.append(
            ssp.trajectory_statistics(ssp.bounded_transitions(part, phi, bounds, strict=True))
        )
    dim = phi.shape[1] if phi is not None else (MC_FOURIER_ORDER + 1) ** 2
    return np.concatenate(rows), dim, as_generator(seed.spawn(1)[0])


SSP_PROBE = {
    "domain": "chain",
    "sizes": (5, 10),
    "epsilons": (1.0, 10.0),
    **_PROBE_CHAIN,
    "floor_lam": 0.1,
    "ssp_lams": ((5, 1.0, 10.0), (5, 10.0, 1.0), (10, 1.0, 100.0), (10, 10.0, 3.0)),
}


@results_version("1", probe=SSP_PROBE, ignore=("seconds",))
def run_ssp_lstd(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    r"""SSP-LSTD (:mod:`privrl.core.algorithms.ssp_lstd`) on one replicate of an on-policy
    domain: at each ``n`` of ``config["sizes"]`` (prefixes of one dataset, the one
    :func:`run_frontier` draws from the same seed) and each epsilon of ``config["epsilons"]``,
    one release of :math:`(\mathrm{vec}\,A, b)` under replace-one trajectory with the noise
    multiplier of one Gaussian release at (epsilon, ``delta``) for :func:`ssp_bounds`, solved
    with every ridge :math:`\lambda` of ``config["ssp_lams"]`` (tuples ``(n, epsilon, lam)``:
    the whole grid on the public tuning datasets, the tuned value on the map); solving is
    post-processing, so all of them share one noise draw. Its floor: the same grid sums without
    noise solved with ``config["floor_lam"]`` (the smallest ridge of the grid: LSTD on the same
    data, so the ridge privacy forces counts as privacy's cost). Rows as :func:`run_frontier`'s (``method`` ``SSP-LSTD``,
    ``accountant`` ``RDP``, ``noise`` the multiplier) with ``lam``."""
    start = time.process_time()
    sizes = sorted(config["sizes"])
    contributions, dim, gen = ssp_contributions(config, sizes[-1], seed)
    bounds, problem = ssp_bounds(config), target_problem(config)
    rows, thetas, floors = [], [], []
    for eps in config["epsilons"]:
        calibrated = ssp_lstd_noise(epsilon=eps, delta=config["delta"], bounds=bounds, d=dim)
        z, noise = calibrated.noise_multiplier, calibrated.noise
        sums = np.cumsum(ssp.on_grid(contributions, noise.step), axis=0)
        for n in sizes:
            lams = [g[2] for g in config["ssp_lams"] if g[0] == n and g[1] == eps]
            if not lams:
                continue
            A, b = ssp.unstack(ssp.noisy_statistics(sums[n - 1], n, bounds, noise, gen), dim)
            floor = ssp.solve(*ssp.unstack(sums[n - 1] * noise.step, dim), config["floor_lam"])
            for lam in lams:
                rows.append(
                    dict(
                        n=n,
                        method="SSP-LSTD",
                        accountant="RDP",
                        epsilon=eps,
                        noise=z,
                        step_size=np.nan,
                        iterations=np.nan,
                        clipped=0.0,
                        lam=lam,
                    )
                )
                thetas.append(ssp.solve(A, b, lam))
                floors.append(floor)
    return scored(rows, thetas, floors, config, problem, start)


def smooth_noise(config: dict[str, Any], epsilon: float, d: int) -> SmoothGaussianNoise:
    """DP-LSW's and DP-LSL's calibration on ``config``'s domain at ``(epsilon, config["delta"])``
    for ``d``-dimensional weights: the api's (:func:`~privrl.api.evaluation.smooth_gaussian_noise`,
    Lemma 1 of Balle et al.) on the domain's return range (:func:`_return_range`)."""
    bound, low = _return_range(config)
    return smooth_gaussian_noise(
        epsilon=epsilon, delta=config["delta"], return_bound=bound, d=d, return_low=low
    )


def _return_range(config: dict[str, Any]) -> tuple[float, float]:
    """:math:`(F_{max}, F_{low})`: the chain's returns lie in :math:`[0, F_{max}]`
    (``return_bound``); Mountain Car's rewards are -1 per step, so every return lies in
    :math:`[-F_{max}, 0]` with :math:`F_{max} = 1/(1-\\gamma)`."""
    if config["domain"] == "chain":
        return float(config["return_bound"]), 0.0
    bound = 1.0 / (1.0 - MC_SETTINGS[config["domain"]].gamma)
    return bound, -bound


@results_version(
    "2",
    probe={
        **PROBE,
        "step_grid": (0.1, 1.0),
        "iterations_grid": (20, 50),
        "gpope": (
            (5, 1.0, "PLD", 20, 20.0),
            (5, 1.0, "PLD", 50, 30.0),
            (10, 1.0, "PLD", 20, 9.0),
            (10, 1.0, "PLD", 50, 12.0),
        ),
    },
)
def run_tuning(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE on one **public** dataset (seeds disjoint from the replicates'), each ``n`` a
    prefix, at every (iterations, step) of ``config["iterations_grid"]`` x
    ``config["step_grid"]``: with every noise of ``config["gpope"]`` (tuples ``(n, epsilon,
    accountant, iterations, z)``: the noise calibrated for that many iterations) and without
    noise (``epsilon`` NaN, ``accountant`` ``"none"``). One call of Algorithm 1 per (n,
    iterations). Rows: ``domain, n, epsilon, accountant, iterations, step_size, mspbe``."""
    sizes = sorted(config["sizes"])
    stats, _, _, _, gen = replicate_data({**config, "lsw_cells": 0}, sizes[-1], seed)
    problem = target_problem(config)
    grid = np.asarray(config["step_grid"], dtype=float)
    frames = []
    for n in sizes:
        for T in config["iterations_grid"]:
            noisy = [g for g in config["gpope"] if g[0] == n and g[3] == T]
            zs = [g[4] for g in noisy] + [0.0]
            res = gpope_at(
                config,
                stats,
                n,
                gen,
                np.tile(grid, len(zs)),
                np.repeat(zs, len(grid)),
                iterations=T,
            )
            frames.append(
                pd.DataFrame(
                    {
                        "n": n,
                        "epsilon": np.repeat([g[1] for g in noisy] + [np.nan], len(grid)),
                        "accountant": np.repeat([g[2] for g in noisy] + ["none"], len(grid)),
                        "iterations": T,
                        "step_size": np.tile(grid, len(zs)),
                        "mspbe": errors(res.theta, problem)[0],
                    }
                )
            )
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "domain", config["domain"])
    return out


@results_version(
    "3", probe={"n": 10, "epsilon": 1.0, "accountant": "PLD", "delta": 1e-5, "iterations": 10}
)
def run_calibration(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """The smallest GPOPE noise multiplier ``z`` meeting ``config``'s ``(epsilon, delta)`` for
    ``n`` trajectories and ``iterations`` steps under its ``accountant`` (:data:`API_ACCOUNTANT`),
    the api's calibration of the floating-point Gaussian to 1%
    (:func:`~privrl.api.evaluation.gpope_noise`, ``exact=False``), and
    ``cross_epsilon``, the ledger's cross-check of that release (:data:`CROSS_CHECKS`); ``seed``
    is unused (a sweep caches the result). One row: ``n, epsilon, accountant, iterations, z,
    cross_epsilon``."""
    del seed
    n, T, delta = config["n"], config["iterations"], config["delta"]
    z = gpope_noise(
        epsilon=config["epsilon"],
        delta=delta,
        n=n,
        iterations=T,
        exact=False,
        accountant=API_ACCOUNTANT[config["accountant"]],
    ).noise_multiplier
    return pd.DataFrame(
        [
            {
                **{k: config[k] for k in ("n", "epsilon", "accountant", "iterations")},
                "z": z,
                "cross_epsilon": CROSS_CHECKS[config["accountant"]](z, n, T, delta),
            }
        ]
    )


__all__ = [
    "API_ACCOUNTANT",
    "CROSS_CHECKS",
    "NOISELESS",
    "PROBE",
    "TARGET_SEED",
    "VALUE_STATES",
    "clipped_rmse",
    "errors",
    "fv_prefix",
    "gpope_at",
    "mountain_car_target",
    "prefix",
    "reference_estimate",
    "replicate_data",
    "run_calibration",
    "run_frontier",
    "run_ssp_lstd",
    "run_tuning",
    "ssp_bounds",
    "smooth_noise",
    "ssp_contributions",
    "target_problem",
    "value_range",
    "value_states",
]
