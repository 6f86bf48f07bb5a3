"""What the chapter measures of the mechanisms and the environment before training: exact
worst-case ratios (Lemmas 2-3, corrected eq. 24), empirical output frequencies, PRS's shrinkage,
the moment of the random projection (eq. 5), the batched CartPole against gymnasium's, and the
scores of uniformly random play (:func:`random_play_scores`)."""

from __future__ import annotations

import functools
import math

import gymnasium as gym
import numpy as np
import pandas as pd

from privrl.core.algorithms import a3c
from privrl.core.envs.cartpole import BatchedCartPole, sample_gravities
from privrl.core.mechanisms import local as loc


def prs_ratio_table(epsilons: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0)) -> pd.DataFrame:
    """Exact worst-case log-likelihood ratio of PRS's sign vector (corrected eq. 24) and of a
    weakened PRS spending ``epsilon`` per coordinate (the misprint's risk), by enumeration."""
    rows = []
    for eps in epsilons:
        d_hat = loc.default_projection_dim(eps, a3c.D)
        rows.append(
            {
                "epsilon": eps,
                "d_hat": d_hat,
                "exact": loc.prs_worst_log_ratio(eps, d_hat),
                "weakened": loc.prs_worst_log_ratio(eps, d_hat, per_coordinate_epsilon=eps),
            }
        )
    return pd.DataFrame(rows)


def empirical_ldp_table(rng: np.random.Generator, n: int = 100_000) -> pd.DataFrame:
    """Largest |log ratio| of empirical output frequencies of both samplers for two extreme
    inputs, against ``epsilon`` plus four standard errors of that log ratio (a smoke test of the
    samplers; four rather than two because the maximum runs over up to 40 bins, many of them at
    the bound exactly)."""
    rows = []
    for eps in (1.0, 5.0):
        d_hat = loc.default_projection_dim(eps, a3c.D)
        m = loc.random_projection(1, d_hat, a3c.D, rng)[0]
        g_hi = m.sum(0) * 10.0  # M g_hi >> C in every coordinate
        freq = []
        for g in (g_hi, -g_hi):
            out = loc.projected_random_sign(
                np.tile(g, (n, 1)), eps, 1.0, rng, matrix=np.broadcast_to(m, (n, d_hat, a3c.D))
            )
            u = np.linalg.lstsq(m.T, out.T, rcond=None)[0].T
            codes = ((u > 0) * (2 ** np.arange(d_hat))).sum(1)
            freq.append(np.bincount(codes, minlength=2**d_hat) / n)
        p, q = freq
        lr = np.abs(np.log(p / q))
        se = np.sqrt((1 - p) / (n * p) + (1 - q) / (n * q))
        rows.append(
            {
                "mechanism": "prs",
                "epsilon": eps,
                "max_log_ratio": lr.max(),
                "bound": eps + 4 * se[lr.argmax()],
            }
        )
        clip = 0.01
        g1 = np.zeros((n, a3c.D))
        g1[:, 0] = 1.0
        y1 = loc.laplace_gradient_mechanism(g1, eps, clip, rng)[:, 0]
        y2 = loc.laplace_gradient_mechanism(-g1, eps, clip, rng)[:, 0]
        bins = np.linspace(-4 * clip / eps, 4 * clip / eps, 41)
        h1, h2 = np.histogram(y1, bins)[0], np.histogram(y2, bins)[0]
        ok = (h1 > 500) & (h2 > 500)
        lr = np.abs(np.log(h1[ok] / h2[ok]))
        se = np.sqrt(1 / h1[ok] + 1 / h2[ok])
        rows.append(
            {
                "mechanism": "laplace",
                "epsilon": eps,
                "max_log_ratio": lr.max(),
                "bound": eps + 4 * se[lr.argmax()],
            }
        )
    return pd.DataFrame(rows)


def prs_shrinkage_table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Measured ``E[M^T u_tilde] . g / |g|^2`` (mean of ``n`` reports) against
    ``d_hat tanh(epsilon / (2 d_hat))``."""
    rows = []
    for eps in (1.0, 5.0, 10.0):
        d_hat = loc.default_projection_dim(eps, a3c.D)
        g = rng.normal(size=a3c.D)
        g *= 0.9 / (math.sqrt(3) * np.abs(g).sum())
        out = loc.projected_random_sign(np.tile(g, (n, 1)), eps, 1.0, rng, d_hat=d_hat)
        proj = out @ g / (g @ g)
        rows.append(
            {
                "epsilon": eps,
                "d_hat": d_hat,
                "theory": d_hat * math.tanh(eps / (2 * d_hat)),
                "measured": float(proj.mean()),
                "se": float(proj.std() / math.sqrt(n)),
            }
        )
    return pd.DataFrame(rows)


def jl_moment_error(rng: np.random.Generator, n: int = 20_000, d_hat: int = 4) -> float:
    """``max |mean(M^T M) / d_hat - I|`` over ``n`` draws of eq. (5)."""
    m = loc.random_projection(n, d_hat, a3c.D, rng)
    return float(np.abs(np.einsum("nkd,nke->de", m, m) / (n * d_hat) - np.eye(a3c.D)).max())


def cartpole_matches_gymnasium(rng: np.random.Generator, n: int = 3, steps: int = 30) -> bool:
    """The batched CartPole steps bit for bit like gymnasium's ``CartPoleEnv`` (random actions)."""
    grav = sample_gravities(n, rng)
    batch = BatchedCartPole(grav)
    init = rng.uniform(-0.05, 0.05, size=(n, 4))
    batch.reset(states=init)
    envs = []
    for i in range(n):
        e = gym.make("CartPole-v1").unwrapped
        e.reset(seed=i)
        e.gravity, e.state = float(grav[i]), init[i].copy()
        envs.append(e)
    same = True
    for _ in range(steps):
        act = rng.integers(0, 2, size=n)
        running = ~batch.done
        obs = batch.step(act)[0]
        for i in np.flatnonzero(running):
            same &= bool(np.array_equal(envs[i].step(int(act[i]))[0], obs[i]))
        if batch.done.all():
            break
    return same


#: Episodes of random play :func:`random_play_scores` measures, and their seed (a property of the
#: environment, not of a run: drawn apart from every run's stream).
RANDOM_PLAY_EPISODES, RANDOM_PLAY_SEED = 1000, 20_200


@functools.lru_cache(maxsize=1)
def random_play_scores() -> tuple[float, float, float]:
    """Mean, standard deviation and largest score (steps balanced, eq. 25's s_n) of
    :data:`RANDOM_PLAY_EPISODES` episodes of uniformly random actions on the batched CartPole,
    each with a gravity drawn as the paper's agents' are (at most 200 steps)."""
    rng = np.random.default_rng(RANDOM_PLAY_SEED)
    batch = BatchedCartPole(sample_gravities(RANDOM_PLAY_EPISODES, rng))
    batch.reset(rng)
    while not batch.done.all():
        batch.step(rng.integers(0, 2, size=RANDOM_PLAY_EPISODES))
    scores = batch.steps.astype(float)
    return float(scores.mean()), float(scores.std(ddof=1)), float(scores.max())
