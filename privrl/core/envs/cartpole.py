"""Batched CartPole with per-agent gravity (Ono and Takahashi 2020, section 4).

The dynamics are gymnasium's ``CartPoleEnv`` (Barto, Sutton, Anderson 1983; Euler integration,
``tau = 0.02``, force 10 N, pole half-length 0.5, masses 1.0 and 0.1), written for a batch of
``n`` independent carts so thousands of episodes advance with one set of numpy operations. Each
cart has its own gravity ``psi_n`` (the paper draws it uniformly from {9.7, 9.8, 9.9}). The
paper's limits are those of ``CartPole-v0``: at most 200 steps, target score 195.

The state is kept in float64 exactly as gymnasium keeps it, observations are returned in
float32 as gymnasium returns them, so a batch stepped with the same initial states and actions
reproduces gymnasium's states bit for bit (checked in ``tests/test_cartpole.py``). The same
source compiled for one cart (:data:`step_cart`, :data:`terminal_cart`; numba) steps the compiled
rollouts of PGC-A3C (:mod:`privrl.core.algorithms.a3c_rollout`), which ``tests/core`` and
``tests/papers/test_ono2020.py`` replay with gymnasium's ``CartPoleEnv``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numba
import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_int

GRAVITIES = (9.7, 9.8, 9.9)
MAX_STEPS = 200
TARGET_SCORE = 195.0

_MASSCART = 1.0
_MASSPOLE = 0.1
_TOTAL_MASS = _MASSPOLE + _MASSCART
_LENGTH = 0.5
_POLEMASS_LENGTH = _MASSPOLE * _LENGTH
FORCE_MAG = 10.0
_TAU = 0.02
_THETA_THRESHOLD = 12 * 2 * math.pi / 360
_X_THRESHOLD = 2.4


def sample_gravities(n: int, rng: SeedLike, choices: tuple[float, ...] = GRAVITIES) -> np.ndarray:
    """Draw ``n`` gravities uniformly from ``choices`` (the agents' private dynamics ``psi_n``)."""
    n = check_int(n, "n", minimum=0)
    values = check_array(choices, "choices", ndim=1)
    if values.size == 0 or np.any(values <= 0):
        raise ValueError("choices must be a non-empty sequence of positive gravities")
    return as_generator(rng).choice(values, size=n)


def reset_states(n: int, rng: SeedLike) -> np.ndarray:
    """Initial states ``U(-0.05, 0.05)^4`` for ``n`` carts, shape ``(n, 4)``, float64."""
    n = check_int(n, "n", minimum=0)
    return as_generator(rng).uniform(-0.05, 0.05, size=(n, 4))


def step_rows(
    x: np.ndarray,
    x_dot: np.ndarray,
    theta: np.ndarray,
    theta_dot: np.ndarray,
    force: np.ndarray,
    gravity: np.ndarray | float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One Euler step of gymnasium's CartPole on the state's four rows (the inner loop).

    ``force`` is ``+10`` (push right, action 1) or ``-10`` (action 0) per cart. The operations and
    their order are gymnasium's, so the float64 results are bit-identical to ``CartPoleEnv``.
    The same source, compiled for one cart, is :func:`step_cart`.
    """
    costheta = np.cos(theta)
    sintheta = np.sin(theta)
    temp = (force + _POLEMASS_LENGTH * np.square(theta_dot) * sintheta) / _TOTAL_MASS
    thetaacc = (gravity * sintheta - costheta * temp) / (
        _LENGTH * (4.0 / 3.0 - _MASSPOLE * np.square(costheta) / _TOTAL_MASS)
    )
    xacc = temp - _POLEMASS_LENGTH * thetaacc * costheta / _TOTAL_MASS
    return (
        x + _TAU * x_dot,
        x_dot + _TAU * xacc,
        theta + _TAU * theta_dot,
        theta_dot + _TAU * thetaacc,
    )


def is_terminal(x: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Gymnasium's termination: the cart leaves [-2.4, 2.4] or the pole leans beyond 12 degrees."""
    return (np.abs(x) > _X_THRESHOLD) | (np.abs(theta) > _THETA_THRESHOLD)


#: :func:`step_rows` and :func:`is_terminal` compiled (numba) for one cart's float64 state, for
#: compiled rollouts (:mod:`privrl.core.algorithms.a3c_rollout`): one source for the dynamics.
step_cart = cast(
    Callable[..., tuple[float, float, float, float]], numba.njit(cache=True)(step_rows)
)
terminal_cart = cast(Callable[[float, float], bool], numba.njit(cache=True)(is_terminal))


def step_states(
    states: np.ndarray, actions: np.ndarray, gravity: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One Euler step of gymnasium's CartPole for a batch; returns ``(next_states, terminated)``.

    ``states`` (n, 4) float64 ``(x, x_dot, theta, theta_dot)``, ``actions`` (n,) in {0, 1}
    (0 pushes left, 1 pushes right), ``gravity`` (n,) or scalar. No validation here: this is the
    inner loop; :class:`BatchedCartPole` validates once.
    """
    force = np.where(actions == 1, FORCE_MAG, -FORCE_MAG)
    x, x_dot, theta, theta_dot = states.T
    new = np.stack(step_rows(x, x_dot, theta, theta_dot, force, gravity), axis=1)
    return new, is_terminal(new[:, 0], new[:, 2])


class BatchedCartPole:
    """``n`` CartPole episodes stepped together, each with its own gravity; no auto-reset.

    ``step`` advances only the carts still running; a finished cart keeps its final state. The
    reward is 1 per step taken (including the step that terminates), so an episode's score is
    its length, at most ``max_steps`` (200, as in ``CartPole-v0``).
    """

    def __init__(self, gravity: np.ndarray, max_steps: int = MAX_STEPS) -> None:
        self.gravity = check_array(gravity, "gravity", ndim=1)
        if np.any(self.gravity <= 0):
            raise ValueError("gravity must be positive")
        self.max_steps = check_int(max_steps, "max_steps", minimum=1)
        self.n = self.gravity.shape[0]
        self.state = np.zeros((self.n, 4))
        self.steps = np.zeros(self.n, dtype=np.int64)
        self.terminated = np.zeros(self.n, dtype=bool)
        self.truncated = np.zeros(self.n, dtype=bool)

    def reset(self, rng: SeedLike = None, states: np.ndarray | None = None) -> np.ndarray:
        """Start all episodes (from ``states`` if given, else ``U(-0.05, 0.05)``); float32 obs."""
        if states is None:
            states = reset_states(self.n, rng)
        self.state = check_array(states, "states", shape=(self.n, 4)).astype(np.float64).copy()
        self.steps[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        return self.state.astype(np.float32)

    @property
    def done(self) -> np.ndarray:
        """Episodes that terminated or hit the step limit."""
        return self.terminated | self.truncated

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply ``actions`` (n,) to running carts; returns ``(obs, reward, terminated, truncated)``."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,) or not np.all((actions == 0) | (actions == 1)):
            raise ValueError(
                f"actions must be an array of shape ({self.n},) with values in {{0, 1}}"
            )
        active = ~self.done
        new, term = step_states(self.state, actions, self.gravity)
        self.state = np.where(active[:, None], new, self.state)
        self.steps += active
        self.terminated |= active & term
        self.truncated |= active & ~self.terminated & (self.steps >= self.max_steps)
        reward = active.astype(np.float64)
        return self.state.astype(np.float32), reward, self.terminated.copy(), self.truncated.copy()
