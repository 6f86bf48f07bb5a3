"""Compiled CartPole episodes of PGC-A3C's agents (Ono and Takahashi 2020, Algorithm 1, section 4).

Each episode runs on its own in a compiled loop (numba), costing only its own steps. Episode
``e`` plays the bias-free policy of ``theta[e]`` (layout of
:func:`privrl.core.algorithms.a3c.unpack`; ``h = relu(theta_c s)``, logits ``theta_p h``, the
float32 observation read as float64) on CartPole with gravity ``gravity[e]``
(:func:`~privrl.core.envs.cartpole.step_cart`), from ``U(-0.05, 0.05)^4``, until the pole falls
or ``max_steps`` steps. At each step: with probability ``alpha[e]`` a uniform action, else the
greedy one (action 1 iff its logit is larger; ``sample=True``: ``a ~ pi(.|s_t)``, the
``as_practised`` deviation).

**Draws**, from the generator's bit stream, episode after episode: the initial state (four
``uniform(-0.05, 0.05)``: ``x, x_dot, theta, theta_dot``); per step, if ``alpha[e] > 0``, one
``random()`` (explore iff below ``alpha[e]``), if exploring one ``integers(0, 2)``, else with
``sample`` one ``random()`` ``u`` (action 1 iff ``u (1 + exp(l_0 - l_1)) < 1``). Nothing else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from privrl.core.envs.cartpole import FORCE_MAG, step_cart, terminal_cart
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_int

N_OBS, N_HIDDEN, N_ACTIONS = 4, 16, 2
_POLICY = N_HIDDEN * N_OBS  # offset of theta_p in the flat parameters


@dataclass
class Episodes:
    """``E`` episodes laid end to end: ``obs`` (N, 4) and ``actions`` (N,) of their
    ``N = sum(lengths)`` steps (episode 0's, then episode 1's, ...), ``last_obs`` (E, 4) the state
    each ended in, ``lengths`` (E,) >= 1, ``terminated`` (E,) (the pole fell; else cut at
    ``max_steps``). Observations are the float64 values of gymnasium's float32 observations."""

    obs: np.ndarray
    last_obs: np.ndarray
    actions: np.ndarray
    lengths: np.ndarray
    terminated: np.ndarray


@numba.njit(cache=True)
def _observe(row: np.ndarray, x: float, x_dot: float, theta: float, theta_dot: float) -> None:
    row[0], row[1] = np.float32(x), np.float32(x_dot)
    row[2], row[3] = np.float32(theta), np.float32(theta_dot)


@numba.njit(cache=True)
def _policy_logits(th: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """``(l_0, l_1) = theta_p relu(theta_c s)`` for one observation."""
    l0, l1 = 0.0, 0.0
    for i in range(N_HIDDEN):
        pre = th[4 * i] * s[0] + th[4 * i + 1] * s[1] + th[4 * i + 2] * s[2] + th[4 * i + 3] * s[3]
        if pre > 0.0:
            l0 += th[_POLICY + i] * pre
            l1 += th[_POLICY + N_HIDDEN + i] * pre
    return l0, l1


@numba.njit(cache=True)
def _run(
    theta: np.ndarray,
    gravity: np.ndarray,
    alpha: np.ndarray,
    sample: bool,
    max_steps: int,
    gen: np.random.Generator,
    obs: np.ndarray,
    last_obs: np.ndarray,
    actions: np.ndarray,
    lengths: np.ndarray,
    terminated: np.ndarray,
) -> int:
    """Play every episode (module docstring) into the flat buffers; returns ``N``."""
    n = 0
    for e in range(theta.shape[0]):
        th, g, explore = theta[e], gravity[e], alpha[e]
        x = gen.uniform(-0.05, 0.05)
        x_dot = gen.uniform(-0.05, 0.05)
        ang = gen.uniform(-0.05, 0.05)
        ang_dot = gen.uniform(-0.05, 0.05)
        t, fell = 0, False
        while t < max_steps and not fell:
            s = obs[n]
            _observe(s, x, x_dot, ang, ang_dot)
            if explore > 0.0 and gen.random() < explore:
                a = int(gen.integers(0, N_ACTIONS))
            else:
                l0, l1 = _policy_logits(th, s)
                if sample:
                    a = 1 if gen.random() * (1.0 + math.exp(l0 - l1)) < 1.0 else 0
                else:
                    a = 1 if l1 > l0 else 0
            actions[n] = a
            x, x_dot, ang, ang_dot = step_cart(
                x, x_dot, ang, ang_dot, FORCE_MAG if a == 1 else -FORCE_MAG, g
            )
            fell = terminal_cart(x, ang)
            n += 1
            t += 1
        _observe(last_obs[e], x, x_dot, ang, ang_dot)
        lengths[e], terminated[e] = t, fell
    return n


def rollout(
    theta: np.ndarray,
    gravity: np.ndarray,
    alpha: np.ndarray,
    rng: SeedLike,
    max_steps: int,
    sample: bool = False,
) -> Episodes:
    """One episode per row of ``theta`` (E, 112) with gravity ``gravity`` and exploration rate
    ``alpha`` (each (E,) or a scalar), at most ``max_steps`` steps (module docstring)."""
    theta = check_array(theta, "theta", ndim=2)
    if theta.shape[1] != _POLICY + (N_ACTIONS + 1) * N_HIDDEN:
        raise ValueError(
            f"theta must have {_POLICY + (N_ACTIONS + 1) * N_HIDDEN} columns, got {theta.shape[1]}"
        )
    n_ep = theta.shape[0]
    gravity = np.broadcast_to(np.asarray(gravity, dtype=np.float64), (n_ep,))
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_ep,))
    if np.any(gravity <= 0) or np.any((alpha < 0) | (alpha > 1)):
        raise ValueError("gravity must be positive and alpha in [0, 1]")
    max_steps = check_int(max_steps, "max_steps", minimum=1)
    obs = np.empty((n_ep * max_steps, N_OBS), dtype=np.float64)
    actions = np.empty(n_ep * max_steps, dtype=np.int64)
    last_obs = np.empty((n_ep, N_OBS), dtype=np.float64)
    lengths = np.empty(n_ep, dtype=np.int64)
    terminated = np.empty(n_ep, dtype=np.bool_)
    n = _run(
        np.ascontiguousarray(theta),
        np.ascontiguousarray(gravity),
        np.ascontiguousarray(alpha),
        bool(sample),
        max_steps,
        as_generator(rng),
        obs,
        last_obs,
        actions,
        lengths,
        terminated,
    )
    return Episodes(obs[:n], last_obs, actions[:n], lengths, terminated)
