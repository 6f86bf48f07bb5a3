r"""Wang and Hegde (2019): the simulations behind the chapter's checks of the mechanism and the
paper's lemmas and propositions.

* :func:`covariance_check`: Ornstein-Uhlenbeck sample paths (the GP with kernel
  :math:`\sigma^2 e^{-\beta|x-y|}`, Appendix A) queried in random orders and chunks have the
  kernel's covariance;
* :func:`lemma8_check`: Lemma 8's tail :math:`P(\max f \ge 8.68\sqrt\beta\sigma + u) \le e^{-u^2/2}`;
* :func:`rkhs_check`: Lemma 6's bound :math:`\|f\|_{\mathcal H}^2 \le (1 + \beta/2)\|f\|_\infty^2 +
  L^2/(2\beta)` on differences of Q networks;
* :func:`scaling_check`: Proposition 9's :math:`O(N\log N)` queries against dense sampling;
* :func:`proposition10_check`: where Proposition 10's utility bound holds and where it fails;
* :func:`oracle_return`: the move-to-the-centre policy's return, the reference for "the
  non-private DQN converges".
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch

from privrl.core.accounting.functional_noise import LEMMA8_CONSTANT
from privrl.core.envs.line import HORIZON, BatchedLineEnv
from privrl.core.mechanisms.gaussian_process import (
    OUSamplePath,
    _forward_ou,
    dense_gp_sample,
    rkhs_norm_squared,
)
from privrl.core.rng import SeedLike, as_generator
from privrl.papers.wang2019.profile import COV_POINTS, LEMMA8_OFFSETS


def covariance_check(n_paths: int, beta: float, sigma: float, rng: SeedLike) -> dict[str, Any]:
    """Empirical covariance of path values queried in random orders and chunks vs the kernel."""
    gen = as_generator(rng)
    pts = np.array(COV_POINTS)
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
    betas: Sequence[float], n_paths: int, n_grid: int, rng: SeedLike, sigma: float = 1.0
) -> pd.DataFrame:
    """Monte Carlo P(max f >= 8.68 sqrt(beta) sigma + u) on a fine grid vs exp(-u^2/2) (Lemma 8).

    The maximum's actual scale is about sqrt(2 ln(beta)) sigma for large beta (``mean_max``)."""
    gen = as_generator(rng)
    grid = np.linspace(0.0, 1.0, n_grid)
    rows = []
    for beta in betas:
        maxima = np.array([_forward_ou(None, grid, beta, sigma, gen).max() for _ in range(n_paths)])
        level = LEMMA8_CONSTANT * math.sqrt(beta) * sigma
        for u in LEMMA8_OFFSETS:
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
    return pd.DataFrame(rows)


def rkhs_check(nets: Sequence[torch.nn.Module], beta: float, n_grid: int = 4001) -> pd.DataFrame:
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


def scaling_check(sizes: Sequence[int], rng: SeedLike, dense_max: int = 2000) -> pd.DataFrame:
    """Wall time of answering N random-order queries (batch, and in chunks of 128) and of dense
    Cholesky sampling (Proposition 9)."""
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
    sizes: Sequence[int], reps: int, sigma: float, beta: float, gamma: float, rng: SeedLike
) -> pd.DataFrame:
    """Where Proposition 10's bound comes from, and where it fails.

    Random MDPs with n states at i/(n-1) in [0, 1]; rewards carry noise g (one Ornstein-Uhlenbeck
    path per action, J = 1, or i.i.d. N(0, sigma^2) per state and action); with one action the
    noisy value is linear in g, with two it goes through the max of the Bellman optimality
    operator. Per (n, noise, actions): the mean absolute error (1/n)||v' - v*||_1 (what the
    proposition bounds), the signed mean error (1/n) 1^T (v' - v*) and its absolute value, and
    the bound 2 sqrt(2) sigma / (sqrt(n pi) (1 - gamma)).
    """
    gen = as_generator(rng)
    rows = []
    for n in sizes:
        x = np.linspace(0.0, 1.0, n)
        acc: dict[tuple[str, int], list[tuple[float, float]]] = {}
        for _ in range(reps):
            P = gen.dirichlet(np.ones(n), size=(n, 2))
            R = gen.uniform(0, 1, (n, 2))
            noises = {
                "OU paths": np.stack([_forward_ou(None, x, beta, sigma, gen) for _ in range(2)], 1),
                "i.i.d.": sigma * gen.standard_normal((n, 2)),
            }
            for m in (1, 2):
                v_star = _noisy_value(P[:, :m], R[:, :m], gamma, np.zeros((n, m)))
                for name, g in noises.items():
                    d = _noisy_value(P[:, :m], R[:, :m], gamma, g[:, :m]) - v_star
                    acc.setdefault((name, m), []).append((np.mean(np.abs(d)), np.mean(d)))
        bound = 2 * math.sqrt(2) * sigma / (math.sqrt(n * math.pi) * (1 - gamma))
        for (name, m), vals in acc.items():
            arr = np.array(vals)
            rows.append(
                {
                    "n": n,
                    "noise": name,
                    "actions": m,
                    "bound": bound,
                    "mean_abs_error": float(arr[:, 0].mean()),
                    "signed_error": float(arr[:, 1].mean()),
                    "signed_error_se": float(arr[:, 1].std(ddof=1) / math.sqrt(reps)),
                    "abs_signed_error": float(np.abs(arr[:, 1]).mean()),
                }
            )
    return pd.DataFrame(rows)


def oracle_return(n_episodes: int, rng: SeedLike) -> float:
    """Mean return of the move-to-the-centre policy (right below 0.5, left above): a reference
    for 'the non-private DQN converges'."""
    env = BatchedLineEnv(n_episodes, as_generator(rng))
    s, total = env.reset(), np.zeros(n_episodes)
    for _ in range(HORIZON):
        s, r, _ = env.step((s >= 0.5).astype(int))
        total += r
    return float(total.mean())
