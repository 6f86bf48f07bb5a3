r"""The chain of Balle, Gomrokchi and Precup (2016, Section 6), also used by Xie et al. (2019).

States ``0 .. N - 1`` (N = 40 by default). From every non-absorbing state ``s < N - 1`` the
single-action policy stays with probability ``p_stay = 1/2`` and advances to ``s + 1``
otherwise; ``N - 1`` is absorbing. The reward is 1 on the transition that enters the goal
state ``N - 2`` from ``N - 3`` and 0 otherwise, so every return lies in ``[0, 1]`` (our reading:
the paper and the versions of the authors' code differ; the ``balle2016`` chapter tabulates
them). Trajectories start uniformly over the non-absorbing states and stop at the absorbing
state or after ``max_steps = 200`` transitions. Observations are integer state indices; a
trajectory's final observation is the absorbing state (value 0) when ``terminated``, else an
ordinary state."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from privrl.core.envs.tabular import TabularMDP, aggregated_features, tabular_features
from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_choice, check_int, check_probability

__all__ = [
    "ChainEnv",
    "aggregated_features",
    "chain_mdp",
    "sample_trajectories",
    "tabular_features",
]


def chain_mdp(n_states: int = 40, p_stay: float = 0.5, start: str = "uniform") -> TabularMDP:
    """The chain as a :class:`TabularMDP` with exact ``P``, ``r(s, s')`` and start distribution.

    ``start="uniform"``: uniform over the non-absorbing states (ours; the authors' code also
    draws the absorbing state);
    ``start="first"``: every trajectory starts in state 0.
    """
    n = check_int(n_states, "n_states", minimum=3)
    p_stay = check_probability(p_stay, "p_stay")
    if p_stay >= 1:
        raise ValueError("p_stay must be < 1, otherwise the chain never advances")
    check_choice(start, "start", ("uniform", "first"))
    P = np.zeros((n, n))
    idx = np.arange(n - 1)
    P[idx, idx] = p_stay
    P[idx, idx + 1] += 1.0 - p_stay
    P[n - 1, n - 1] = 1.0
    rewards = np.zeros((n, n))
    rewards[n - 3, n - 2] = 1.0  # entering the goal state
    mu = np.zeros(n)
    if start == "uniform":
        mu[: n - 1] = 1.0 / (n - 1)
    else:
        mu[0] = 1.0
    absorbing = np.zeros(n, dtype=bool)
    absorbing[n - 1] = True
    return TabularMDP(P=P, rewards=rewards, start=mu, absorbing=absorbing)


def _is_chain(mdp: TabularMDP) -> bool:
    n = mdp.n_states
    p = mdp.P[0, 0]
    expected = chain_mdp(n, p) if 0 <= p < 1 else None
    return (
        expected is not None
        and np.array_equal(mdp.P, expected.P)
        and np.array_equal(mdp.rewards, expected.rewards)
    )


def sample_trajectories(
    mdp: TabularMDP, m: int, rng: SeedLike, max_steps: int = 200
) -> Trajectories:
    """Sample ``m`` trajectories of the chain, vectorised over the batch.

    The chain only moves right by 0 or 1, so the whole batch is drawn at once: state at time t is
    ``min(s_0 + cumsum(advance)_t, N - 1)`` with i.i.d. Bernoulli(1 - p_stay) advances. Padding
    after a trajectory's end is zero (see :class:`Trajectories`). Actions are all 0.
    """
    if not isinstance(mdp, TabularMDP) or not _is_chain(mdp):
        raise ValueError("mdp must be a chain built by chain_mdp()")
    m = check_int(m, "m", minimum=1)
    H = check_int(max_steps, "max_steps", minimum=1)
    gen = as_generator(rng)
    n = mdp.n_states
    p_stay = mdp.P[0, 0]
    s0 = gen.choice(n, size=m, p=mdp.start)
    steps = gen.random((m, H)) >= p_stay
    obs = np.empty((m, H + 1), dtype=np.int64)
    obs[:, 0] = s0
    obs[:, 1:] = np.minimum(s0[:, None] + np.cumsum(steps, axis=1), n - 1)
    at_end = obs == n - 1
    terminated = at_end[:, -1]
    lengths = np.where(terminated, np.argmax(at_end, axis=1), H)
    t = np.arange(H + 1)[None, :]
    obs[t > lengths[:, None]] = 0
    mask = t[:, :H] < lengths[:, None]
    rewards = (mdp.rewards[obs[:, :-1], obs[:, 1:]] * mask).astype(float)
    return Trajectories(
        observations=obs,
        actions=np.zeros((m, H), dtype=np.int64),
        rewards=rewards,
        lengths=lengths.astype(np.int64),
        terminated=terminated,
    )


class ChainEnv(gymnasium.Env):
    """Gymnasium interface to the chain (id ``privrl/Chain-v0``): one action, integer states.

    ``reset`` draws the start state from the start distribution; ``step(0)`` stays or advances;
    the episode terminates on reaching the absorbing state and is truncated after ``max_steps``.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self, n_states: int = 40, p_stay: float = 0.5, start: str = "uniform", max_steps: int = 200
    ) -> None:
        self.mdp = chain_mdp(n_states, p_stay, start)
        self.max_steps = check_int(max_steps, "max_steps", minimum=1)
        self.observation_space = spaces.Discrete(self.mdp.n_states)
        self.action_space = spaces.Discrete(1)
        self._state = 0
        self._t = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._state = int(self.np_random.choice(self.mdp.n_states, p=self.mdp.start))
        self._t = 0
        return self._state, {}

    def step(self, action: int):
        if not self.action_space.contains(action):
            raise ValueError(f"action must be 0, got {action!r}")
        s = self._state
        s_next = int(self.np_random.choice(self.mdp.n_states, p=self.mdp.P[s]))
        reward = float(self.mdp.rewards[s, s_next])
        self._state, self._t = s_next, self._t + 1
        terminated = bool(self.mdp.absorbing[s_next])
        truncated = self._t >= self.max_steps and not terminated
        return s_next, reward, terminated, truncated, {}
