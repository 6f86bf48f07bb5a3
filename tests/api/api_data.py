"""A small dataset shared by the API tests: walks on a chain."""

from __future__ import annotations

import numpy as np

import privrl


def chain_data(
    m: int, n_states: int, horizon: int, seed: int, reward: float = 1.0
) -> privrl.Trajectories:
    """``m`` walks on a chain of ``n_states`` (stay or advance by one, the last state absorbing),
    reward ``reward`` on entering the last state; every trajectory ends there or at ``horizon``."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((m, horizon + 1), dtype=np.int64)
    rewards = np.zeros((m, horizon))
    lengths = np.full(m, horizon)
    terminated = np.zeros(m, dtype=bool)
    obs[:, 0] = rng.integers(0, n_states - 1, size=m)
    for i in range(m):
        for t in range(horizon):
            obs[i, t + 1] = min(obs[i, t] + int(rng.random() < 0.5), n_states - 1)
            if obs[i, t + 1] == n_states - 1:
                rewards[i, t] = reward
                lengths[i], terminated[i] = t + 1, True
                break
    return privrl.Trajectories(
        obs, np.zeros((m, horizon), dtype=np.int64), rewards, lengths, terminated
    )
