"""Xie, Thomas and Miklau (2019): profiles, run functions and checks for the GPOPE chapter.

Experiments (tidy frames; ``seed`` and config columns added by :func:`privrl.sweep.run_sweep`):

* :func:`run_chain_steps` - GPOPE on one chain dataset for every step size of a grid (used to
  tune the step on *public* data, i.e. seeds disjoint from the private ones, and for Figure 1 b);
* :func:`run_chain_compare` - GPOPE (tuned and mis-tuned steps), DP-LSW, DP-LSL and LSTD on the
  same chain dataset (Figure 1 a);
* :func:`run_schedules` - constant vs diminishing step (Theorems 2 and 3), MSPBE along the run;
* :func:`gradient_variance` - variance of the per-trajectory gradient vs transitions used;
* :func:`privacy_table` - accountant epsilon, Poisson shortcut and Theorem 1's form per run;
* :func:`run_mountain_car` / :func:`run_hiv` - on- and off-policy GPOPE on Mountain Car and HIV.

The chain is the one of the Balle chapter (:mod:`privrl.experiments.balle2016`): N = 40,
stay 1/2, gamma = 0.99, 200-step cap, epsilon = 0.1, delta = 0.1, tabular features. Its MSPBE is
exact, from the model, with the state weighting of the data (expected visits of a trajectory).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

from privrl.accounting.subsampled import (
    calibrate_noise_multiplier,
    gpope_epsilon,
    poisson_shortcut_epsilon,
    theorem1_sigma,
)
from privrl.algorithms.gtd import SaddlePointStats, gpope, mspbe, saddle_point_solution
from privrl.algorithms.lstd import lstd, model_saddle_point, sample_saddle_point, wis_lstd
from privrl.algorithms.monte_carlo import (
    dp_lsl,
    dp_lsw,
    first_visit_returns,
    lsl_regularization,
    weighted_rmse,
)
from privrl.algorithms.q_learning import (
    epsilon_greedy,
    hiv_quadratic_features,
    load_hiv_weights,
    load_mountain_car_weights,
    softmax_policy,
)
from privrl.envs import hiv
from privrl.envs import mountain_car as mc
from privrl.envs.chain import chain_mdp, sample_trajectories, tabular_features
from privrl.rng import as_generator
from privrl.sweep import run_sweep

PAPER_SIZES = [10, 50, 100, 500, 1000, 1500, 2000, 2500, 3000, 4000]

_CHAIN: dict[str, Any] = {
    "n_states": 40,
    "p_stay": 0.5,
    "gamma": 0.99,
    "max_steps": 200,
    "epsilon": 0.1,
    "delta": 0.1,
    "return_bound": 1.0,
    "lsl_c": 1.0,
    "lsl_power": 0.4,
    "clip_norm": 0.05,
    "mistune_factors": [0.2, 5.0],
}

_MC: dict[str, Any] = {
    "gamma": 0.9,
    "max_steps": 200,
    "fourier_order": 5,
    "behaviour_epsilon": 0.1,
    "step_size": 0.003,
    "clip_norm": 1.0,
    "schedule": "constant",
}
_HIV: dict[str, Any] = {
    "gamma": 0.9,
    "behaviour_temperature": 1.0,
    "reward_scale": 1e-5,
    "step_size": 0.01,
    "clip_norm": 1.0,
    "schedule": "constant",
}

PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        **_CHAIN,
        "n_runs": 8,
        "tune_runs": 2,
        "chain_sizes": [50, 300, 1000],
        "epochs": 2,
        "min_iterations": 500,
        "max_iterations": 4000,
        "step_grid": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0],
        "sensitivity_n": 1000,
        "schedule_n": 1000,
        "schedule_iterations": [1000, 4000],
        "schedule_runs": 4,
        "variance_transitions": [1, 2, 4, 8, 16, 32, 64],
        "domain_delta": 1e-5,
        "domain_runs": 2,
        "domain_trials": 4,
        "mc_settings": _MC,
        "mc_n": [1000],
        "mc_epsilons": [1.0, 4.0],
        "mc_iterations": 1000,
        "mc_heldout": 500,
        "hiv_settings": {**_HIV, "max_steps": 40},
        "hiv_n": [40],
        "hiv_epsilons": [1.0, 4.0],
        "hiv_iterations": 1000,
        "hiv_heldout": 40,
        "retrain_policies": False,
    },
    "paper": {
        **_CHAIN,
        "n_runs": 100,
        "tune_runs": 10,
        "chain_sizes": PAPER_SIZES,
        "epochs": 5,
        "min_iterations": 1000,
        "max_iterations": 20000,
        "step_grid": [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0],
        "sensitivity_n": 1000,
        "schedule_n": 1000,
        "schedule_iterations": [2000, 8000, 32000],
        "schedule_runs": 20,
        "variance_transitions": [1, 2, 4, 8, 16, 32, 64],
        "domain_delta": 1e-5,
        "domain_runs": 5,
        "domain_trials": 20,
        "mc_settings": _MC,
        "mc_n": [100, 300, 1000, 3000],
        "mc_epsilons": [0.5, 1.0, 4.0],
        "mc_iterations": 5000,
        "mc_heldout": 2000,
        "hiv_settings": {**_HIV, "max_steps": 200},
        "hiv_n": [50, 150],
        "hiv_epsilons": [1.0, 4.0],
        "hiv_iterations": 5000,
        "hiv_heldout": 100,
        "retrain_policies": False,
    },
}


# --------------------------------------------------------------------------------- the chain


def chain_iterations(n: int, config: dict[str, Any]) -> int:
    """GPOPE iterations for a dataset of ``n`` trajectories: epochs * n, clipped to a range."""
    return int(min(max(config["epochs"] * n, config["min_iterations"]), config["max_iterations"]))


def chain_problem(config: dict[str, Any]) -> dict[str, Any]:
    """Model pieces of the chain: MDP, features (absorbing row zeroed), exact A, b, M, values.

    The MSPBE weighting ``D`` is the expected number of visits of each non-absorbing state in one
    trajectory (start uniform, capped at ``max_steps``): the state distribution of the data.
    """
    mdp = chain_mdp(config["n_states"], config["p_stay"], "uniform")
    Phi = tabular_features(mdp.n_states)
    Phi_td = Phi.copy()
    Phi_td[mdp.absorbing] = 0.0  # terminal value is 0: bootstraps from a zero feature
    occupancy = np.zeros(mdp.n_states)
    dist = mdp.start.copy()
    for _ in range(config["max_steps"]):
        occupancy += dist
        dist = dist @ mdp.P
    occupancy[mdp.absorbing] = 0.0
    A, b, M = model_saddle_point(mdp.P, mdp.R, Phi_td, occupancy, config["gamma"])
    return dict(
        mdp=mdp,
        Phi=Phi,
        Phi_td=Phi_td,
        A=A,
        b=b,
        M=M,
        V=mdp.true_values(config["gamma"]),
        occupancy=occupancy,
    )


def _chain_data(config: dict[str, Any], n: int, seed: np.random.SeedSequence):
    prob = chain_problem(config)
    data_ss, alg_ss = seed.spawn(2)
    traj = sample_trajectories(prob["mdp"], n, as_generator(data_ss), config["max_steps"])
    stats = SaddlePointStats.from_tabular(
        traj.observations,
        prob["Phi_td"],
        traj.rewards,
        traj.lengths,
        traj.terminated,
        config["gamma"],
    )
    return prob, traj, stats, as_generator(alg_ss)


def run_chain_steps(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE at every step size of ``config['step_grid']`` on one chain dataset of size ``n``.

    All step sizes run as parallel trials of one vectorised GPOPE call with the calibrated noise
    multiplier ``config['z']``.
    """
    n = config["n"]
    prob, _, stats, gen = _chain_data(config, n, seed)
    steps = np.asarray(config["step_grid"], dtype=float)
    res = gpope(
        stats,
        config["iterations"],
        steps,
        config["clip_norm"],
        config["z"],
        gen,
        n_trials=len(steps),
    )
    err = mspbe(res.theta, prob["A"], prob["b"], prob["M"])
    return pd.DataFrame({"n": n, "step_size": steps, "mspbe": err, "clipped": res.clipped_fraction})


def run_chain_compare(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE (tuned step and mis-tuned steps), DP-LSW, DP-LSL, LSTD on one chain dataset."""
    n = config["n"]
    prob, traj, stats, gen = _chain_data(config, n, seed)
    A, b, M, V, Phi = prob["A"], prob["b"], prob["M"], prob["V"], prob["Phi"]
    rho = np.full(prob["mdp"].n_states, 1.0 / prob["mdp"].n_states)
    labels = ["GPOPE (tuned step)"] + [f"GPOPE (step x{f:g})" for f in config["mistune_factors"]]
    steps = config["step_size"] * np.array([1.0, *config["mistune_factors"]])
    res = gpope(
        stats,
        config["iterations"],
        steps,
        config["clip_norm"],
        config["z"],
        gen,
        n_trials=len(steps),
    )
    thetas = dict(zip(labels, res.theta, strict=True))
    fv = first_visit_returns(traj, prob["mdp"].n_states, config["gamma"])
    eps, dl, F = config["epsilon"], config["delta"], config["return_bound"]
    thetas["DP-LSW (output pert. V1)"] = dp_lsw(fv, Phi, rho, eps, dl, F, gen).theta
    lam = lsl_regularization(Phi, rho, n, config["lsl_c"], config["lsl_power"])
    thetas["DP-LSL (output pert. V2)"] = dp_lsl(fv, Phi, rho, lam, eps, dl, F, gen).theta
    # LSTD weights every transition equally: sum_i L_i A_i, sum_i L_i b_i (= lstd() on the data)
    L = stats.lengths.astype(float)
    thetas["LSTD (non-private)"] = np.linalg.lstsq(
        np.tensordot(L, stats.A, axes=1), L @ stats.b, rcond=None
    )[0]
    thetas["zero (no data)"] = np.zeros_like(thetas["LSTD (non-private)"])
    rows = [
        dict(method=k, n=n, mspbe=float(mspbe(th, A, b, M)), rmse=weighted_rmse(Phi, th, V, rho))
        for k, th in thetas.items()
    ]
    return pd.DataFrame(rows)


def _chain_base(config: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "n_states",
        "p_stay",
        "gamma",
        "max_steps",
        "epsilon",
        "delta",
        "return_bound",
        "lsl_c",
        "lsl_power",
        "clip_norm",
        "mistune_factors",
        "step_grid",
    )
    return {k: config[k] for k in keys}


def calibrations(config: dict[str, Any], sizes: list[int]) -> pd.DataFrame:
    """Noise multiplier per dataset size (bisection on the RDP accountant) and its timing."""
    rows = []
    for n in sizes:
        T = chain_iterations(n, config)
        t0 = time.perf_counter()
        z = calibrate_noise_multiplier(config["epsilon"], config["delta"], n, T, rtol=1e-2)
        rows.append(dict(n=n, iterations=T, z=z, calibration_seconds=time.perf_counter() - t0))
    return pd.DataFrame(rows)


def run_chain(
    config: dict[str, Any],
    seed: int = 0,
    cache_dir: str | None = None,
    progress: bool = False,
    executor: Any = None,
) -> dict[str, pd.DataFrame]:
    """Figure 1 a, b: tune the step per n on public seeds, then compare on private seeds."""
    sizes = sorted(set(config["chain_sizes"]) | {config["sensitivity_n"]})
    cal = calibrations(config, sizes)
    base = _chain_base(config)
    step_cfgs = [
        {**base, "n": int(r.n), "iterations": int(r.iterations), "z": float(r.z)}
        for r in cal.itertuples()
    ]
    tuning = run_sweep(
        run_chain_steps,
        step_cfgs,
        n_seeds=config["tune_runs"],
        root_seed=seed + 10_000,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="xie2019 tune",
    )
    best = tuning.groupby(["n", "step_size"])["mspbe"].mean().reset_index()
    best = best.loc[best.groupby("n")["mspbe"].idxmin()].set_index("n")["step_size"]
    cmp_cfgs = [
        {**c, "step_size": float(best[c["n"]])}
        for c in step_cfgs
        if c["n"] in config["chain_sizes"]
    ]
    compare = run_sweep(
        run_chain_compare,
        cmp_cfgs,
        n_seeds=config["n_runs"],
        root_seed=seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="xie2019 chain",
    )
    sens_cfg = [c for c in step_cfgs if c["n"] == config["sensitivity_n"]]
    sensitivity = run_sweep(
        run_chain_steps,
        sens_cfg,
        n_seeds=config["n_runs"],
        root_seed=seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="xie2019 steps",
    )
    return dict(
        calibration=cal,
        tuning=tuning,
        best_steps=best.reset_index(),
        compare=compare,
        sensitivity=sensitivity,
    )


# ----------------------------------------------------------------------- theory: Thm 2 vs 3


def run_schedules(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """MSPBE along GPOPE runs with constant and diminishing steps (same data, same privacy).

    ``config['iterations']`` is the total T the noise is calibrated for; both schedules start from
    the same base step ``config['step_size']`` (diminishing: alpha_t = alpha t0 / (t0 + t), t0 = T/10).
    """
    n, T = config["n"], config["iterations"]
    prob, _, stats, gen = _chain_data(config, n, seed)
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


def run_theorem23(
    config: dict[str, Any],
    step_size: float,
    seed: int = 0,
    cache_dir: str | None = None,
    progress: bool = False,
    executor: Any = None,
) -> pd.DataFrame:
    """:func:`run_schedules` for every total T in ``config['schedule_iterations']``."""
    n = config["schedule_n"]
    base = _chain_base(config)
    cfgs = []
    for T in config["schedule_iterations"]:
        z = calibrate_noise_multiplier(config["epsilon"], config["delta"], n, T, rtol=1e-2)
        cfgs.append({**base, "n": n, "iterations": T, "z": z, "step_size": step_size})
    return run_sweep(
        run_schedules,
        cfgs,
        n_seeds=config["n_runs"],
        root_seed=seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="xie2019 schedules",
    )


# ------------------------------------------------------------ theory: gradient variance vs k


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


# ----------------------------------------------------------------------- Mountain Car and HIV


def _policies(config: dict[str, Any]):
    """(behaviour, target, featurise, reward scale) of a domain; policies map states to probs."""
    if config["domain"] == "mountain_car":
        W = load_mountain_car_weights()

        def behaviour(s: np.ndarray) -> np.ndarray:
            return epsilon_greedy(mc.fourier_features(s) @ W, config["behaviour_epsilon"])

        if config["mode"] == "on":
            target = behaviour
        else:

            def target(s: np.ndarray) -> np.ndarray:
                return np.full((len(s), mc.N_ACTIONS), 1.0 / mc.N_ACTIONS)

        return (
            behaviour,
            target,
            (lambda obs: mc.fourier_features(obs, config["fourier_order"])),
            1.0,
        )
    W = load_hiv_weights()

    def q_of(x: np.ndarray) -> np.ndarray:  # x: scaled log state
        return hiv_quadratic_features(x) @ W

    def behaviour(x: np.ndarray) -> np.ndarray:
        return softmax_policy(q_of(x), config["behaviour_temperature"])

    def target(x: np.ndarray) -> np.ndarray:
        return epsilon_greedy(q_of(x), 0.0)

    return (
        behaviour,
        target,
        (lambda obs: hiv_quadratic_features(hiv.scaled_log_state(obs))),
        config["reward_scale"],
    )


def _collect(config: dict[str, Any], m: int, gen: np.random.Generator):
    behaviour, target, feat, scale = _policies(config)
    if config["domain"] == "mountain_car":
        traj, pb = mc.collect(behaviour, m, gen, config["max_steps"])
        states = traj.observations
    else:
        traj, pb = hiv.collect_hiv(behaviour, m, gen, config["max_steps"])
        states = hiv.scaled_log_state(traj.observations)
    rho = None
    if config["mode"] == "off":
        pt = target(states[:, :-1].reshape(-1, states.shape[-1])).reshape(*pb.shape, -1)
        rho = np.take_along_axis(pt, traj.actions[..., None], axis=-1)[..., 0] / pb
    return traj, feat(traj.observations), traj.rewards * scale, rho


def run_domain(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One dataset of ``n`` trajectories (+ a held-out sample for the MSPBE) on Mountain Car or
    HIV, on- or off-policy; GPOPE for every (epsilon, z) of ``config['noise']`` with
    ``n_trials`` GPOPE runs each (MSPBE recorded along the run), and LSTD / WIS-LSTD.

    ``relative_mspbe`` = MSPBE / (mean reward per step of the held-out sample)^2.
    """
    data_ss, alg_ss = seed.spawn(2)
    gen = as_generator(data_ss)
    n, ho = config["n"], config["heldout"]
    traj, phi, rewards, rho = _collect(config, n + ho, gen)
    part = slice(0, n), slice(n, n + ho)
    pieces = [
        (phi[p], rewards[p], traj.lengths[p], traj.terminated[p], None if rho is None else rho[p])
        for p in part
    ]
    g = config["gamma"]
    A, b, M = sample_saddle_point(*pieces[1][:4], g, pieces[1][4])
    rbar2 = float(np.mean(rewards[n:][traj.mask()[n:]])) ** 2
    stats = SaddlePointStats.from_features(*pieces[0][:4], g, pieces[0][4])
    if rho is None:
        base, label = lstd(*pieces[0][:4], g), "LSTD (non-private)"
    else:
        base, label = wis_lstd(*pieces[0][:4], g, pieces[0][4]), "WIS-LSTD (non-private)"
    rows = [
        pd.DataFrame(
            {
                "method": [label, "zero (no data)"],
                "epsilon": np.nan,
                "iteration": np.nan,
                "trial": 0,
                "mspbe": [float(mspbe(base, A, b, M)), float(mspbe(0 * base, A, b, M))],
            }
        )
    ]
    alg = as_generator(alg_ss)
    T = config["iterations"]
    for eps, z in config["noise"]:
        res = gpope(
            stats,
            T,
            config["step_size"],
            config["clip_norm"],
            z,
            alg,
            n_trials=config["n_trials"],
            schedule=config["schedule"],
            record_every=max(T // 20, 1),
        )
        err = mspbe(res.history, A, b, M)  # (R, K)
        it = np.repeat(res.history_iterations, err.shape[1])
        trial = np.tile(np.arange(err.shape[1]), err.shape[0])
        rows.append(
            pd.DataFrame(
                {
                    "method": "GPOPE",
                    "epsilon": eps,
                    "iteration": it,
                    "trial": trial,
                    "mspbe": err.ravel(),
                    "clipped": res.clipped_fraction,
                }
            )
        )
    out = pd.concat(rows, ignore_index=True)
    out["relative_mspbe"] = out["mspbe"] / rbar2
    return out


def run_domain_sweep(
    config: dict[str, Any],
    domain: str,
    mode: str,
    seed: int = 0,
    cache_dir: str | None = None,
    progress: bool = False,
    executor: Any = None,
) -> pd.DataFrame:
    """:func:`run_domain` over the profile's sizes and epsilons (noise calibrated in the parent)."""
    key = "mc" if domain == "mountain_car" else "hiv"
    T = config[f"{key}_iterations"]
    base = {k: config[k] for k in (f"{key}_settings",)}[f"{key}_settings"]
    cfgs = []
    for n in config[f"{key}_n"]:
        noise = [
            (eps, calibrate_noise_multiplier(eps, config["domain_delta"], n, T, rtol=1e-2))
            for eps in config[f"{key}_epsilons"]
        ]
        cfgs.append(
            {
                **base,
                "domain": domain,
                "mode": mode,
                "n": n,
                "iterations": T,
                "noise": noise,
                "heldout": config[f"{key}_heldout"],
                "n_trials": config["domain_trials"],
            }
        )
    return run_sweep(
        run_domain,
        cfgs,
        n_seeds=config["domain_runs"],
        root_seed=seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc=f"xie2019 {domain} {mode}",
    )


# ---------------------------------------------------------------------------- privacy table


def privacy_table(config: dict[str, Any], cal: pd.DataFrame) -> pd.DataFrame:
    """For each calibrated run: the accountant's epsilon (RDP, sampling without replacement,
    replace-one), what the Poisson/add-remove shortcut would claim for the same noise, and the
    constant ``c`` that Theorem 1's form sigma = c sqrt(T log(1/delta)) / (n epsilon) needs."""
    rows = []
    eps, dl = config["epsilon"], config["delta"]
    for r in cal.itertuples():
        n, T, z = int(r.n), int(r.iterations), float(r.z)
        rows.append(
            dict(
                n=n,
                iterations=T,
                noise_multiplier=z,
                eps_rdp_wor=gpope_epsilon(z, n, T, dl),
                eps_poisson_shortcut=poisson_shortcut_epsilon(z, n, T, dl),
                theorem1_constant=z / theorem1_sigma(eps, dl, n, T),
            )
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m privrl.experiments.xie2019")
    parser.add_argument("command", choices=["train-policies"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "train-policies":
        from privrl.algorithms.q_learning import train_and_save_all

        for path in train_and_save_all(args.seed):
            print(path)


if __name__ == "__main__":
    main()


__all__ = [
    "PROFILES",
    "PAPER_SIZES",
    "chain_iterations",
    "chain_problem",
    "run_chain_steps",
    "run_chain_compare",
    "run_chain",
    "run_schedules",
    "run_theorem23",
    "gradient_variance",
    "privacy_table",
    "calibrations",
    "run_domain",
    "run_domain_sweep",
]
