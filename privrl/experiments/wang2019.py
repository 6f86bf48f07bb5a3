"""Wang and Hegde (2019): profiles, run functions and numeric checks for Figures 1 and 2.

* :func:`run_learning_curve` trains one agent (one seed) of one method and returns its per-episode
  returns; :func:`figure1` and :func:`figure2` sweep it through :func:`privrl.sweep.run_sweep`.
* :func:`privacy_table` is the Appendix E.3 equivalent: the noise each method needs at
  :math:`(\\varepsilon, \\delta)`, from Theorem 5 and the baselines' calibrations.
* :func:`covariance_check`, :func:`lemma8_check`, :func:`rkhs_check`, :func:`proposition10_check`,
  :func:`scaling_check` are the chapter's numeric checks.

Privacy bookkeeping follows Theorem 5 literally: ``T`` = samples (``episodes * 50``), ``B`` = 128,
``alpha`` = the learning rate, ``L`` = 1; ``J = T`` (the paths are resampled at every gradient
step, at most ``T`` times).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd
import torch

from privrl.accounting import functional_noise as fn
from privrl.algorithms.functional_q import train_dqn
from privrl.envs.line import HORIZON
from privrl.mechanisms.gaussian_process import (
    OUSamplePath,
    _forward_ou,
    dense_gp_sample,
    rkhs_norm_squared,
)
from privrl.rng import SeedLike, as_generator
from privrl.sweep import run_sweep

PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        "n_runs": 2,
        "episodes": 30,
        "sigmas": [0.0, 1.0],
        "beta": 1.0,
        "lr": 0.01,
        "batch_size": 128,
        "lipschitz": 1.0,
        "dpsgd_warmup": 500,
        "epsilons": [0.9, 0.45],
        "delta": 1e-4,
        "cov_paths": 3000,
        "lemma8_paths": 300,
        "lemma8_grid": 2000,
        "prop10_reps": 20,
        "scaling_sizes": [1000, 4000, 16000, 64000],
    },
    "paper": {
        "n_runs": 10,
        "episodes": 100,
        "sigmas": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
        "beta": 1.0,
        "lr": 0.01,
        "batch_size": 128,
        "lipschitz": 1.0,
        "dpsgd_warmup": 1000,
        "epsilons": [0.9, 0.45],
        "delta": 1e-4,
        "cov_paths": 20000,
        "lemma8_paths": 2000,
        "lemma8_grid": 10000,
        "prop10_reps": 200,
        "scaling_sizes": [1000, 3000, 10000, 30000, 100000],
    },
}

FIG2_METHODS = ("functional", "output", "input", "dpsgd")


def run_learning_curve(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One training run: columns ``episode, samples, return`` (per-episode undiscounted return)."""
    torch.set_num_threads(1)
    resample = config.get("resampling", "never")
    frame, _, _ = train_dqn(
        config["method"],
        config["sigma"],
        as_generator(seed),
        episodes=config["episodes"],
        beta=config["beta"],
        resample_every=1 if resample == "every" else None,
        lr=config["lr"],
        warmup=config.get("warmup"),
    )
    return frame


def figure1(
    config: dict[str, Any], seed: int = 0, cache_dir=None, progress: bool = False
) -> pd.DataFrame:
    """Learning curves of Algorithm 1 for each sigma, resampling every round vs never."""
    configs = [
        {
            "method": "functional",
            "sigma": float(s),
            "resampling": r,
            "episodes": config["episodes"],
            "beta": config["beta"],
            "lr": config["lr"],
        }
        for r in ("every", "never")
        for s in config["sigmas"]
    ]
    return run_sweep(
        run_learning_curve,
        configs,
        config["n_runs"],
        seed,
        cache_dir=cache_dir,
        progress=progress,
        desc="wang2019 figure 1",
    )


def privacy_table(config: dict[str, Any]) -> pd.DataFrame:
    """Noise each method needs at each epsilon (Appendix E.3 equivalent)."""
    T = config["episodes"] * HORIZON
    B, alpha, L, delta = config["batch_size"], config["lr"], config["lipschitz"], config["delta"]
    rows = []
    for eps in config["epsilons"]:
        # J = number of path resamplings: every gradient step (at most T of them), not T / B
        cal = fn.calibrate_algorithm1(eps, delta, T, B, alpha, L, J=T)
        k = cal["k"]
        steps = T - config["dpsgd_warmup"] + 1  # DP-SGD: one step per env step after warm-up
        rows += [
            {
                "epsilon": eps,
                "method": "functional",
                "parameter": "sigma (Theorem 5)",
                "value": cal["sigma"],
                "beta": cal["beta"],
                "k": k,
            },
            {
                "epsilon": eps,
                "method": "functional",
                "parameter": "sigma (Prop. 4 + Kairouz)",
                "value": fn.generic_sigma(eps, cal["delta_gauss"], T, B, alpha, k, L),
                "beta": cal["beta"],
                "k": k,
            },
            {
                "epsilon": eps,
                "method": "functional",
                "parameter": "sigma (Theorem 5, T updates)",
                "value": fn.theorem5_sigma(eps, cal["delta_gauss"], T * B, B, alpha, k, L),
                "beta": cal["beta"],
                "k": k,
            },
            {
                "epsilon": eps,
                "method": "output",
                "parameter": "sigma",
                "value": fn.output_perturbation_sigma(eps, delta, T, B, alpha, k, L),
                "beta": np.nan,
                "k": k,
            },
            {
                "epsilon": eps,
                "method": "input",
                "parameter": "sigma",
                "value": fn.input_perturbation_sigma(eps, delta, T),
                "beta": np.nan,
                "k": np.nan,
            },
            {
                "epsilon": eps,
                "method": "dpsgd",
                "parameter": "noise multiplier",
                "value": fn.dpsgd_growing_memory_noise_multiplier(
                    eps, delta, B, T, config["dpsgd_warmup"]
                ),
                "beta": np.nan,
                "k": np.nan,
                "steps": steps,
            },
        ]
    return pd.DataFrame(rows)


def figure2(
    config: dict[str, Any],
    table: pd.DataFrame,
    seed: int = 0,
    cache_dir=None,
    progress: bool = False,
) -> pd.DataFrame:
    """Algorithm 1 vs the three baselines at each epsilon, each with the noise from ``table``."""
    configs = []
    for eps in config["epsilons"]:
        t = table[table.epsilon == eps]
        pick = {
            "functional": t[t.parameter == "sigma (Theorem 5)"].iloc[0],
            "output": t[t.method == "output"].iloc[0],
            "input": t[t.method == "input"].iloc[0],
            "dpsgd": t[t.method == "dpsgd"].iloc[0],
        }
        for method in FIG2_METHODS:
            row = pick[method]
            beta = float(row["beta"]) if method == "functional" else config["beta"]
            configs.append(
                {
                    "method": method,
                    "sigma": float(row["value"]),
                    "resampling": "every",
                    "episodes": config["episodes"],
                    "beta": beta,
                    "lr": config["lr"],
                    "epsilon": float(eps),
                }
            )
    configs.append(
        {
            "method": "none",
            "sigma": 0.0,
            "resampling": "never",
            "episodes": config["episodes"],
            "beta": config["beta"],
            "lr": config["lr"],
            "epsilon": float("inf"),
        }
    )
    return run_sweep(
        run_learning_curve,
        configs,
        config["n_runs"],
        seed,
        cache_dir=cache_dir,
        progress=progress,
        desc="wang2019 figure 2",
    )


# ----------------------------------------------------------------------------- numeric checks


def covariance_check(n_paths: int, beta: float, sigma: float, rng: SeedLike) -> dict[str, Any]:
    """Empirical covariance of path values queried in random orders and chunks vs the kernel."""
    gen = as_generator(rng)
    pts = np.array([0.0, 0.05, 0.2, 0.21, 0.5, 0.77, 0.9, 1.0])
    vals = np.empty((n_paths, len(pts)))
    path = OUSamplePath(beta, sigma, gen)
    for m in range(n_paths):
        path.reset()
        order = gen.permutation(len(pts))
        cut = sorted(gen.choice(np.arange(1, len(pts)), 2, replace=False))
        for chunk in np.split(pts[order], cut):
            path(chunk)
        vals[m] = path(pts)
    emp = np.cov(vals.T)
    ker = sigma**2 * np.exp(-beta * np.abs(pts[:, None] - pts[None, :]))
    # standard error of a sample covariance of Gaussians: sqrt((K_ij^2 + K_ii K_jj) / n)
    se = np.sqrt((ker**2 + np.outer(np.diag(ker), np.diag(ker))) / n_paths)
    return {
        "points": pts,
        "empirical": emp,
        "kernel": ker,
        "max_z": float(np.max(np.abs(emp - ker) / se)),
    }


def lemma8_check(
    betas, n_paths: int, n_grid: int, rng: SeedLike, sigma: float = 1.0
) -> pd.DataFrame:
    """Monte Carlo P(max f >= 8.68 sqrt(beta) sigma + u) on a fine grid vs exp(-u^2/2)."""
    gen = as_generator(rng)
    grid = np.linspace(0.0, 1.0, n_grid)
    rows = []
    for beta in betas:
        maxima = np.array([_forward_ou(None, grid, beta, sigma, gen).max() for _ in range(n_paths)])
        level = fn.LEMMA8_CONSTANT * math.sqrt(beta) * sigma
        for u in (0.0, 0.5, 1.0, 2.0):
            rows.append(
                {
                    "beta": beta,
                    "u": u,
                    "mc_probability": float(np.mean(maxima >= level + u)),
                    "bound": math.exp(-(u**2) / 2),
                    "mean_max": float(maxima.mean()),
                    "level": level,
                }
            )
        # the actual scale of the maximum: sqrt(2 ln(beta)) sigma for large beta
    return pd.DataFrame(rows)


def rkhs_check(nets, beta: float, n_grid: int = 4001) -> pd.DataFrame:
    """||f||_H^2 of differences of Q networks vs Lemma 6's bound (1 + beta/2) c^2 + L^2/(2 beta)."""
    grid = np.linspace(0.0, 1.0, n_grid)
    with torch.no_grad():
        outs = [
            net(torch.tensor(grid, dtype=torch.float32)[:, None]).double().numpy() for net in nets
        ]
    rows = []
    for i in range(len(outs)):
        for j in range(i + 1, len(outs)):
            for a in range(outs[i].shape[1]):
                f = outs[i][:, a] - outs[j][:, a]
                c = float(np.abs(f).max())
                lip = float(np.abs(np.diff(f) / np.diff(grid)).max())
                rows.append(
                    {
                        "pair": f"{i}-{j}",
                        "action": a,
                        "sup": c,
                        "lipschitz": lip,
                        "norm_sq": rkhs_norm_squared(f, grid, beta),
                        "bound": (1 + beta / 2) * c**2 + lip**2 / (2 * beta),
                    }
                )
    return pd.DataFrame(rows)


def _noisy_value(
    P: np.ndarray, R: np.ndarray, gamma: float, g: np.ndarray, tol: float = 1e-10
) -> np.ndarray:
    """Fixed point of v(s) = max_a [R(s, a) + g_a(s) + gamma sum_s' P(s'|s, a) v(s')]."""
    v = np.zeros(P.shape[0])
    while True:
        new = (R + g + gamma * np.einsum("sat,t->sa", P, v)).max(1)
        if np.max(np.abs(new - v)) < tol:
            return new
        v = new


def proposition10_check(
    sizes, reps: int, sigma: float, beta: float, gamma: float, rng: SeedLike
) -> pd.DataFrame:
    """Simulated E[(1/n)||v' - v*||_1] with one fixed noise path (J = 1) vs Proposition 10's bound.

    Random MDPs with n states placed at i/(n-1) in [0, 1] and 2 actions; v' is the value of the
    Bellman operator whose Q outputs carry the functional noise g_a(s) (one path per action).
    """
    gen = as_generator(rng)
    rows = []
    for n in sizes:
        x = np.linspace(0.0, 1.0, n)
        errs = []
        for _ in range(reps):
            P = gen.dirichlet(np.ones(n), size=(n, 2))
            R = gen.uniform(0, 1, (n, 2))
            g = np.stack([_forward_ou(None, x, beta, sigma, gen) for _ in range(2)], axis=1)
            errs.append(
                np.mean(np.abs(_noisy_value(P, R, gamma, g) - _noisy_value(P, R, gamma, 0 * g)))
            )
        rows.append(
            {
                "n": n,
                "simulated": float(np.mean(errs)),
                "se": float(np.std(errs) / math.sqrt(reps)),
                "bound": 2 * math.sqrt(2) * sigma / (math.sqrt(n * math.pi) * (1 - gamma)),
            }
        )
    return pd.DataFrame(rows)


def scaling_check(sizes, rng: SeedLike, dense_max: int = 2000) -> pd.DataFrame:
    """Wall time of answering N random-order queries (batch, and in chunks of 128) and dense Cholesky."""
    gen = as_generator(rng)
    rows = []
    for n in sizes:
        x = gen.uniform(0, 1, n)
        path = OUSamplePath(1.0, 1.0, gen)
        t0 = time.perf_counter()
        path(x)
        rows.append(
            {"n": n, "method": "sample path (one batch)", "seconds": time.perf_counter() - t0}
        )
        path.reset()
        t0 = time.perf_counter()
        for chunk in np.array_split(x, max(1, n // 128)):
            path(chunk)
        rows.append(
            {"n": n, "method": "sample path (batches of 128)", "seconds": time.perf_counter() - t0}
        )
        if n <= dense_max:
            t0 = time.perf_counter()
            dense_gp_sample(x, 1.0, 1.0, gen)
            rows.append({"n": n, "method": "dense Cholesky", "seconds": time.perf_counter() - t0})
    return pd.DataFrame(rows)
