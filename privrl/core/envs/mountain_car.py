r"""Mountain Car (gymnasium ``MountainCar-v0``) with a Fourier basis, and batched data collection.

The physical constants are read from gymnasium's ``MountainCarEnv``; :func:`batched_step`
applies gymnasium's update rule to a whole batch of cars at once (the tests check it step by step
against ``gymnasium.make("MountainCar-v0")``). Reward -1 per step, episode ends at the goal
(``position >= 0.5``) or after 200 steps.

Fourier basis of order ``k`` (Konidaris, Osentoski, Thomas 2011): with the state scaled to
:math:`x \in [0, 1]^2`, :math:`\phi_c(x) = \cos(\pi\, c^\top x)` for every
:math:`c \in \{0, \dots, k\}^2`, i.e. :math:`(k+1)^2 = 36` features for ``k = 5``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from gymnasium.envs.classic_control.mountain_car import MountainCarEnv

from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_array, check_int

__all__ = ["CONSTANTS", "N_ACTIONS", "batched_step", "fourier_features", "collect", "reset_states"]

_ENV = MountainCarEnv()
CONSTANTS: dict[str, float] = {
    k: float(getattr(_ENV, k))
    for k in (
        "min_position",
        "max_position",
        "max_speed",
        "goal_position",
        "goal_velocity",
        "force",
        "gravity",
    )
}
N_ACTIONS = 3
LOW = np.array([CONSTANTS["min_position"], -CONSTANTS["max_speed"]])
HIGH = np.array([CONSTANTS["max_position"], CONSTANTS["max_speed"]])


def reset_states(m: int, rng: SeedLike) -> np.ndarray:
    """Start states as gymnasium draws them: position U(-0.6, -0.4), velocity 0. Shape (m, 2)."""
    gen = as_generator(rng)
    return np.stack([gen.uniform(-0.6, -0.4, size=m), np.zeros(m)], axis=1)


def batched_step(states: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gymnasium's Mountain Car update for a batch: returns (next states (m, 2), terminated (m,))."""
    c = CONSTANTS
    pos, vel = states[:, 0].copy(), states[:, 1].copy()
    vel += (np.asarray(actions) - 1) * c["force"] + np.cos(3 * pos) * (-c["gravity"])
    vel = np.clip(vel, -c["max_speed"], c["max_speed"])
    pos = np.clip(pos + vel, c["min_position"], c["max_position"])
    vel = np.where((pos == c["min_position"]) & (vel < 0), 0.0, vel)
    terminated = (pos >= c["goal_position"]) & (vel >= c["goal_velocity"])
    return np.stack([pos, vel], axis=1), terminated


def fourier_features(states: np.ndarray, order: int = 5) -> np.ndarray:
    """Fourier basis features of shape (..., (order + 1)^2) for states (..., 2)."""
    order = check_int(order, "order", minimum=0)
    states = check_array(states, "states")
    if states.shape[-1] != 2:
        raise ValueError(f"states must have a last axis of size 2, got {states.shape}")
    x = np.clip((states - LOW) / (HIGH - LOW), 0.0, 1.0)
    coeffs = np.array(list(itertools.product(range(order + 1), repeat=2)), dtype=float)  # (d, 2)
    return np.cos(np.pi * x @ coeffs.T)


def collect(
    policy: Callable[[np.ndarray], np.ndarray], m: int, rng: SeedLike, max_steps: int = 200
) -> tuple[Trajectories, np.ndarray]:
    """Run ``m`` episodes of ``policy`` in parallel (vectorised over the batch).

    ``policy(states (k, 2)) -> probabilities (k, 3)``. Returns the trajectories (observations
    (m, H+1, 2), reward -1 per step) and the behaviour probabilities of the actions taken (m, H),
    for importance ratios.
    """
    m = check_int(m, "m", minimum=1)
    H = check_int(max_steps, "max_steps", minimum=1)
    gen = as_generator(rng)
    obs = np.zeros((m, H + 1, 2))
    actions = np.zeros((m, H), dtype=np.int64)
    probs_taken = np.ones((m, H))
    obs[:, 0] = reset_states(m, gen)
    alive = np.ones(m, dtype=bool)
    lengths = np.full(m, H)
    terminated = np.zeros(m, dtype=bool)
    for t in range(H):
        idx = np.nonzero(alive)[0]
        if idx.size == 0:
            break
        p = policy(obs[idx, t])
        a = (gen.random(idx.size)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
        a = np.minimum(a, N_ACTIONS - 1)
        actions[idx, t] = a
        probs_taken[idx, t] = p[np.arange(idx.size), a]
        nxt, done = batched_step(obs[idx, t], a)
        obs[idx, t + 1] = nxt
        ended = idx[done]
        lengths[ended] = t + 1
        terminated[ended] = True
        alive[ended] = False
    rewards = -(np.arange(H)[None, :] < lengths[:, None]).astype(float)
    traj = Trajectories(
        observations=obs, actions=actions, rewards=rewards, lengths=lengths, terminated=terminated
    )
    return traj, probs_taken
