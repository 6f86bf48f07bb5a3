r"""Finite Markov reward processes (a fixed policy on a finite MDP) with exact dynamics.

A :class:`TabularMDP` holds the transition matrix :math:`P` (N x N, rows sum to one), the
expected immediate reward :math:`R_s = \sum_{s'} P_{ss'} r(s, s')`, the reward of each transition
:math:`r(s, s')` (N x N) and the start distribution. Its exact values solve the Bellman equation
:math:`V = R + \gamma P V`, i.e. :math:`V = (I - \gamma P)^{-1} R` (Sutton and Barto 2018, eq. 4.4).

Observations of sampled trajectories are integer state indices ``0 .. N - 1``, so every tabular
algorithm (first-visit Monte Carlo, LSTD, GTD2) can read transitions ``(s_t, r_t, s_{t+1})``
straight from :class:`privrl.core.trajectories.Trajectories` and map states to features with a
feature matrix ``Phi[s]`` (see :func:`tabular_features`, :func:`aggregated_features`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_array, check_int, check_probability


@dataclass(frozen=True)
class TabularMDP:
    """A finite Markov reward process: ``P`` (N, N), ``rewards`` r(s, s') (N, N), ``start`` (N,),
    ``absorbing`` (N,) bool, each kept as a read-only copy (a later change to the caller's
    arrays cannot change the process). ``R`` (expected reward) is derived."""

    P: np.ndarray
    rewards: np.ndarray
    start: np.ndarray
    absorbing: np.ndarray

    def __post_init__(self) -> None:
        P = check_array(self.P, "P", ndim=2)
        n = P.shape[0]
        if P.shape != (n, n) or np.any(P < 0) or not np.allclose(P.sum(1), 1.0):
            raise ValueError("P must be a square row-stochastic matrix")
        check_array(self.rewards, "rewards", shape=(n, n))
        start = check_array(self.start, "start", shape=(n,))
        if np.any(start < 0) or not np.isclose(start.sum(), 1.0):
            raise ValueError("start must be a probability vector over the N states")
        absorbing = np.asarray(self.absorbing, dtype=bool)
        if absorbing.shape != (n,):
            raise ValueError(f"absorbing must have shape ({n},)")
        if np.any(start[absorbing] > 0):
            raise ValueError("start must put no mass on absorbing states")
        # read-only copies of our own: the caller's arrays may change after construction
        for name, value in (
            ("P", P),
            ("rewards", self.rewards),
            ("start", start),
            ("absorbing", absorbing),
        ):
            own = np.array(value, dtype=bool if name == "absorbing" else float)
            own.setflags(write=False)
            object.__setattr__(self, name, own)

    @property
    def n_states(self) -> int:
        return int(self.P.shape[0])

    @property
    def R(self) -> np.ndarray:
        """Expected immediate reward of each state, :math:`R_s = \\sum_{s'} P_{ss'} r(s, s')`."""
        return (self.P * self.rewards).sum(axis=1)

    def true_values(self, gamma: float) -> np.ndarray:
        r"""Exact values :math:`V = (I - \gamma P)^{-1} R` (a linear solve, no inverse formed)."""
        gamma = check_probability(gamma, "gamma")
        if gamma >= 1:
            raise ValueError("gamma must be < 1 for the values to be finite")
        return np.linalg.solve(np.eye(self.n_states) - gamma * self.P, self.R)

    def sample(self, m: int, rng: SeedLike, max_steps: int = 200) -> Trajectories:
        """``m`` trajectories from the start distribution, each until it enters an absorbing
        state (``terminated``) or for ``max_steps`` transitions; vectorised over the batch (one
        uniform draw per trajectory and step, inverted through the rows of ``P``). Padding past
        a trajectory's end is zero; actions are all 0 (a fixed policy)."""
        m = check_int(m, "m", minimum=1)
        horizon = check_int(max_steps, "max_steps", minimum=1)
        gen = as_generator(rng)
        cum_p, cum_start = np.cumsum(self.P, axis=1), np.cumsum(self.start)
        last = self.n_states - 1
        obs = np.zeros((m, horizon + 1), dtype=np.int64)
        obs[:, 0] = np.minimum(np.searchsorted(cum_start, gen.random(m), side="right"), last)
        rewards = np.zeros((m, horizon))
        lengths = np.full(m, horizon, dtype=np.int64)
        running = np.ones(m, dtype=bool)
        for t in range(horizon):
            s = obs[:, t]
            u = gen.random(m)
            nxt = np.minimum((u[:, None] >= cum_p[s]).sum(axis=1), last)
            obs[running, t + 1] = nxt[running]
            rewards[running, t] = self.rewards[s, nxt][running]
            ended = running & self.absorbing[nxt]
            lengths[ended] = t + 1
            running &= ~ended
            if not running.any():
                break
        terminated = ~running
        return Trajectories(
            observations=obs,
            actions=np.zeros((m, horizon), dtype=np.int64),
            rewards=rewards,
            lengths=lengths,
            terminated=terminated,
        )


def tabular_features(n: int) -> np.ndarray:
    """One indicator feature per state: ``Phi = I_n`` (d = n)."""
    n = check_int(n, "n", minimum=1)
    return np.eye(n)


def aggregated_features(n: int, group: int = 2) -> np.ndarray:
    """State aggregation: states ``g*j .. g*j + g - 1`` share feature ``j`` (d = ceil(n / g)).

    With ``group = 2`` adjacent pairs of states are forced to take the same value, the function
    approximation of Balle et al. (2016, Section 6).
    """
    n = check_int(n, "n", minimum=1)
    group = check_int(group, "group", minimum=1)
    d = -(-n // group)
    phi = np.zeros((n, d))
    phi[np.arange(n), np.arange(n) // group] = 1.0
    return phi
