r"""The one-dimensional continuous MDP of Wang and Hegde (2019), Appendix E.1.

State :math:`s \in [0, 1]`, :math:`s_0 \sim U(0, 1)`, two actions, step :math:`u \sim U(0, 0.25)`:
action 0 moves right, :math:`s' = \min(s + u, 1)`; action 1 moves left, :math:`s' = \max(s - u, 0)`.
Reward :math:`r = 0.5 - |s' - 0.5|` (largest at the centre); an episode lasts 50 steps.

:class:`ContinuousLineEnv` is the gymnasium environment (``privrl/ContinuousLine-v0``);
:class:`BatchedLineEnv` steps many independent copies at once with numpy (used in training).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_int

HORIZON = 50
MAX_STEP = 0.25


def line_step(
    states: np.ndarray, actions: np.ndarray, u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Next states and rewards for arrays of states, actions (0 right, 1 left) and steps ``u``."""
    nxt = np.where(actions == 0, np.minimum(states + u, 1.0), np.maximum(states - u, 0.0))
    return nxt, 0.5 - np.abs(nxt - 0.5)


class ContinuousLineEnv(gym.Env):
    """Gymnasium version: observation ``Box(0, 1, (1,))``, ``Discrete(2)``, truncated at 50 steps."""

    metadata = {"render_modes": []}

    def __init__(self, horizon: int = HORIZON) -> None:
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(2)
        self._state = 0.0
        self._t = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._state = float(self.np_random.uniform(0.0, 1.0))
        self._t = 0
        return np.array([self._state], dtype=np.float32), {}

    def step(self, action):
        if not self.action_space.contains(action):
            raise ValueError(f"action must be 0 or 1, got {action!r}")
        u = self.np_random.uniform(0.0, MAX_STEP)
        nxt, reward = line_step(np.array(self._state), np.array(int(action)), np.array(u))
        self._state = float(nxt)
        self._t += 1
        obs = np.array([self._state], dtype=np.float32)
        return obs, float(reward), False, self._t >= self.horizon, {}


class BatchedLineEnv:
    """``n`` independent copies stepped together (all episodes have the same length)."""

    def __init__(self, n: int, rng: SeedLike, horizon: int = HORIZON) -> None:
        self.n = check_int(n, "n", minimum=1)
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.rng = as_generator(rng)
        self.states = np.zeros(self.n)
        self.t = 0

    def reset(self) -> np.ndarray:
        self.states = self.rng.uniform(0.0, 1.0, self.n)
        self.t = 0
        return self.states.copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
        """Returns ``(next_states, rewards, episode_over)``."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,) or not np.all((actions == 0) | (actions == 1)):
            raise ValueError(f"actions must be an array of {self.n} values in {{0, 1}}")
        self.states, rewards = line_step(
            self.states, actions, self.rng.uniform(0.0, MAX_STEP, self.n)
        )
        self.t += 1
        return self.states.copy(), rewards, self.t >= self.horizon
