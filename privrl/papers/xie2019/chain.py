"""The chain of the Xie, Thomas and Miklau (2019) chapter: Figure 1 and the theory checks.

The chain is the one of the Balle chapter (:func:`privrl.core.evaluation_domains.chain_problem`:
N states, stay with probability ``p_stay``, uniform start, capped episodes, tabular features);
its MSPBE is exact, from the model, with the state weighting of the data (expected visits of a
trajectory). Run functions (one seed of
:func:`privrl.chapter.sweep.run_sweep` = one fresh dataset) take a plain dict made by
:func:`privrl.papers.xie2019.profile.chain_config`:

* :func:`run_chain_steps` - GPOPE at every step of a grid (tuning on public seeds; Figure 1 b);
* :func:`run_chain_compare` - GPOPE (tuned and mis-tuned steps), noiseless GTD2 (the convergence
  gate), DP-LSW, DP-LSL and LSTD on one dataset (Figure 1 a);
* :func:`run_schedules` - constant vs diminishing step (Theorems 2 and 3), MSPBE along the run;
* :func:`gradient_variance` - variance of the per-trajectory gradient vs transitions used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrl.api.evaluation import smooth_gaussian_noise
from privrl.core.algorithms.gtd import SaddlePointStats, gpope, mspbe, saddle_point_solution
from privrl.core.algorithms.monte_carlo import (
    dp_lsl,
    dp_lsw,
    first_visit_returns,
    lsl_regularization,
    weighted_rmse,
)
from privrl.core.envs.chain import sample_trajectories
from privrl.core.evaluation_domains import chain_data, chain_problem

#: Schedule of the noiseless GTD2 of the convergence gate (its step is tuned separately, on
#: public seeds, over ``gate_step_grid``: large diminishing steps converge fastest without noise).
GATE_SCHEDULE = "diminishing"


def run_chain_steps(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """On one chain dataset of size ``n``: GPOPE (constant step, noise multiplier
    ``config['z']``) at every step of ``config['step_grid']`` and noiseless GTD2 (same clip,
    :data:`GATE_SCHEDULE`) at every step of ``config['gate_step_grid']``, each grid as parallel
    trials of one call. Rows: ``method, n, step_size, mspbe, clipped``."""
    n = config["n"]
    prob, _, stats, gen = chain_data(config, n, seed)
    frames = []
    for method, grid, z, schedule in (
        ("GPOPE", "step_grid", config["z"], "constant"),
        ("GTD2", "gate_step_grid", 0.0, GATE_SCHEDULE),
    ):
        steps = np.asarray(config[grid], dtype=float)
        res = gpope(
            stats,
            config["iterations"],
            steps,
            config["clip_norm"],
            z,
            gen,
            n_trials=len(steps),
            schedule=schedule,
        )
        frames.append(
            pd.DataFrame(
                {
                    "method": method,
                    "n": n,
                    "step_size": steps,
                    "mspbe": mspbe(res.theta, prob["A"], prob["b"], prob["M"]),
                    "clipped": res.clipped_fraction,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def lstd_counts_solution(stats: SaddlePointStats) -> np.ndarray:
    """LSTD on the data: every transition weighted equally, i.e. the system
    :math:`\\sum_i L_i \\hat A_i\\,\\theta = \\sum_i L_i \\hat b_i` (least squares if singular)."""
    L = stats.lengths.astype(float)
    return np.linalg.lstsq(np.tensordot(L, stats.A, axes=1), L @ stats.b, rcond=None)[0]


def run_chain_compare(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE (tuned step ``step_size`` and mis-tuned steps), noiseless GTD2 (``gate_step``,
    :data:`GATE_SCHEDULE`, same clip and T), DP-LSW, DP-LSL, LSTD and the zero estimate on one
    chain dataset."""
    n = config["n"]
    prob, traj, stats, gen = chain_data(config, n, seed)
    A, b, M, V, Phi = prob["A"], prob["b"], prob["M"], prob["V"], prob["Phi"]
    rho = np.full(prob["mdp"].n_states, 1.0 / prob["mdp"].n_states)
    factors = [1.0, *config["mistune_factors"]]
    labels = ["GPOPE"] + [f"GPOPE (step x{f:g})" for f in config["mistune_factors"]]
    res = gpope(
        stats,
        config["iterations"],
        config["step_size"] * np.array(factors),
        config["clip_norm"],
        config["z"],
        gen,
        n_trials=len(factors),
    )
    thetas = dict(zip(labels, res.theta, strict=True))
    thetas["GTD2"] = gpope(
        stats,
        config["iterations"],
        config["gate_step"],
        config["clip_norm"],
        0.0,
        gen,
        schedule=GATE_SCHEDULE,
    ).theta[0]
    fv = first_visit_returns(traj, prob["mdp"].n_states, config["gamma"])
    budget = smooth_gaussian_noise(
        epsilon=config["epsilon"],
        delta=config["delta"],
        return_bound=config["return_bound"],
        d=Phi.shape[1],
    ).budget
    thetas["DP-LSW"] = dp_lsw(fv, Phi, rho, budget, gen).theta
    lam = lsl_regularization(Phi, rho, n, config["lsl_c"], config["lsl_power"])
    thetas["DP-LSL"] = dp_lsl(fv, Phi, rho, lam, budget, gen).theta
    thetas["LSTD"] = lstd_counts_solution(stats)
    thetas["zero"] = np.zeros_like(thetas["LSTD"])
    return pd.DataFrame(
        [
            dict(
                method=k, n=n, mspbe=float(mspbe(th, A, b, M)), rmse=weighted_rmse(Phi, th, V, rho)
            )
            for k, th in thetas.items()
        ]
    )


def run_schedules(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """MSPBE along GPOPE runs with constant and diminishing steps (same data, same privacy).

    ``config['iterations']`` is the total T the noise is calibrated for; both schedules start from
    the same base step ``config['step_size']`` (diminishing: alpha_t = alpha t0 / (t0 + t), t0 = T/10).
    """
    n, T = config["n"], config["iterations"]
    prob, _, stats, gen = chain_data(config, n, seed)
    rows = []
    for schedule in ("constant", "diminishing"):
        res = gpope(
            stats,
            T,
            config["step_size"],
            config["clip_norm"],
            config["z"],
            gen,
            schedule=schedule,
            record_every=max(T // 40, 1),
        )
        err = mspbe(res.history[:, 0], prob["A"], prob["b"], prob["M"])
        rows.append(
            pd.DataFrame({"schedule": schedule, "iteration": res.history_iterations, "mspbe": err})
        )
    return pd.concat(rows, ignore_index=True)


def gradient_variance(config: dict[str, Any], rng: Any, n: int = 4000) -> pd.DataFrame:
    """Total variance of the per-trajectory primal-dual gradient when only the first ``k``
    transitions of each trajectory are used, at the population saddle point of the chain.

    Only trajectories with at least ``max(k)`` transitions are kept, so every k uses the same
    trajectories. The paper's argument: variance ~ 1/k (independent transitions); consecutive
    transitions of a chain trajectory are correlated, so the measured slope is reported.
    """
    prob = chain_problem(config)
    traj = sample_trajectories(prob["mdp"], n, rng, config["max_steps"])
    kmax = max(config["variance_transitions"])
    keep = traj.lengths >= kmax
    if keep.sum() < 10:
        raise ValueError("too few trajectories with max(variance_transitions) transitions")
    traj = traj.subset(np.nonzero(keep)[0])
    A, b, M = prob["A"], prob["b"], prob["M"]
    theta = saddle_point_solution(A, b, M)
    w = np.linalg.pinv(M) @ (b - A @ theta)
    rows = []
    for k in config["variance_transitions"]:
        lengths = np.full(traj.n_trajectories, k)
        term = traj.terminated & (traj.lengths == k)
        st = SaddlePointStats.from_tabular(
            traj.observations, prob["Phi_td"], traj.rewards, lengths, term, config["gamma"]
        )
        g = np.concatenate(
            [-st.A.transpose(0, 2, 1) @ w, -(st.b - st.A @ theta - st.M @ w)], axis=1
        )
        rows.append(
            dict(
                transitions=k,
                variance=float(g.var(axis=0).sum()),
                n_trajectories=traj.n_trajectories,
            )
        )
    return pd.DataFrame(rows)


__all__ = [
    "GATE_SCHEDULE",
    "chain_data",
    "chain_problem",
    "gradient_variance",
    "lstd_counts_solution",
    "run_chain_compare",
    "run_chain_steps",
    "run_schedules",
]
