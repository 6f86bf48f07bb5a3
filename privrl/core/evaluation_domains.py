r"""Policy-evaluation domains shared by chapters: the chain of Balle et al. (2016) and Xie et al.
(2019) with its exact model, and Mountain Car on- and off-policy (Xie et al. 2019, Section 7).

* **Chain** (:func:`chain_problem`, :func:`chain_data`): N states, stay with probability
  ``p_stay``, uniform start, capped episodes, tabular features; the MSPBE pieces ``A, b, M`` are
  exact, from the model, weighted by the expected visits of one trajectory (the data's state
  distribution); the absorbing state's feature row is zeroed for TD (its value is 0).
* **Mountain Car** (:func:`mountain_car_policies`, :func:`mountain_car_collect`): the learned
  epsilon-greedy Fourier-basis policy as behaviour; on-policy it is also the target, off-policy
  the target is the uniform random policy (ratios :math:`\pi/\mu` per step). Features: the Fourier
  basis of order :data:`MC_FOURIER_ORDER`. :data:`MC_SETTINGS` holds the GTD2/GPOPE settings
  the Xie chapter tuned on public seeds.
* **Grid cells** (:func:`cell_index`, :func:`cell_features`, :func:`cell_trajectories`): the
  partition of Mountain Car's (position, velocity) box into ``k x k`` cells that lets a
  tabular method (DP-LSW) run on it, with each cell's features the Fourier basis at its centre.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privrl.core.algorithms.gtd import SaddlePointStats
from privrl.core.algorithms.lstd import FeatureTransitions, model_saddle_point
from privrl.core.algorithms.q_learning import epsilon_greedy, load_mountain_car_weights
from privrl.core.envs import mountain_car as mc
from privrl.core.envs.chain import chain_mdp, sample_trajectories, tabular_features
from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_choice, check_int

Policy = Callable[[np.ndarray], np.ndarray]
MOUNTAIN_CAR_DOMAINS: tuple[str, ...] = ("mountain_car_on", "mountain_car_off")
MC_MAX_STEPS = 200
MC_BEHAVIOUR_EPSILON = 0.1
MC_FOURIER_ORDER = 5


@dataclass(frozen=True)
class DomainSettings:
    """GTD2/GPOPE settings of one domain (public choices, tuned on public seeds)."""

    gamma: float
    step_size: float
    schedule: str
    iterations: int
    clip_norm: float
    heldout: int  # Mountain Car: episodes of the public held-out sample (HIV: the profile's)
    reward_scale: float = 1.0


MC_SETTINGS: dict[str, DomainSettings] = {
    domain: DomainSettings(
        gamma=0.9,
        step_size=3.0,
        schedule="diminishing",
        iterations=5_000,
        clip_norm=1.0,
        heldout=2000,
    )
    for domain in MOUNTAIN_CAR_DOMAINS
}


def mountain_car_policies(domain: str) -> tuple[Policy, Policy]:
    """(behaviour, target) of a Mountain Car domain; each maps raw (position, velocity) states
    (k, 2) to action probabilities (k, 3)."""
    domain = str(check_choice(domain, "domain", MOUNTAIN_CAR_DOMAINS))
    W = load_mountain_car_weights()

    def behaviour(s: np.ndarray) -> np.ndarray:
        return epsilon_greedy(mc.fourier_features(s) @ W, MC_BEHAVIOUR_EPSILON)

    if domain == "mountain_car_on":
        return behaviour, behaviour

    def uniform(s: np.ndarray) -> np.ndarray:
        return np.full((len(s), mc.N_ACTIONS), 1.0 / mc.N_ACTIONS)

    return behaviour, uniform


def mountain_car_features(
    domain: str, traj: Trajectories, behaviour_probs: np.ndarray, settings: DomainSettings
) -> FeatureTransitions:
    """Behaviour trajectories of a Mountain Car domain in Fourier features, with the
    target/behaviour ratios off-policy and the rewards scaled by ``settings``."""
    _, target = mountain_car_policies(domain)
    phi = mc.fourier_features(traj.observations, MC_FOURIER_ORDER)
    off_policy = None if domain == "mountain_car_on" else target
    return behaviour_transitions(
        traj, phi, traj.observations, off_policy, behaviour_probs, settings
    )


def behaviour_transitions(
    traj: Trajectories,
    phi: np.ndarray,
    states: np.ndarray,
    target: Policy | None,
    behaviour_probs: np.ndarray,
    settings: DomainSettings,
) -> FeatureTransitions:
    r"""Behaviour trajectories ``traj`` in features ``phi`` (m, H + 1, d), rewards scaled by
    ``settings.reward_scale``, discount ``settings.gamma``, and the importance ratios
    :math:`\rho_t = \pi(a_t \mid s_t) / \mu(a_t \mid s_t)` of the ``target`` policy
    :math:`\pi`, read at ``states`` (m, H + 1, dim), over ``behaviour_probs`` :math:`\mu` (m, H)
    (``target=None``: on-policy, no ratios)."""
    rho = None
    if target is not None:
        dim = states.shape[-1]
        pt = target(states[:, :-1].reshape(-1, dim)).reshape(*behaviour_probs.shape, -1)
        rho = np.take_along_axis(pt, traj.actions[..., None], axis=-1)[..., 0] / behaviour_probs
    return FeatureTransitions(
        phi,
        traj.rewards * settings.reward_scale,
        traj.lengths,
        traj.terminated,
        settings.gamma,
        rho,
    )


def mountain_car_episodes(domain: str, n: int, rng: SeedLike) -> tuple[Trajectories, np.ndarray]:
    """``n`` new behaviour episodes of a Mountain Car domain: (trajectories, behaviour probs)."""
    behaviour, _ = mountain_car_policies(domain)
    return mc.collect(behaviour, check_int(n, "n", 1), as_generator(rng), MC_MAX_STEPS)


def mountain_car_collect(domain: str, n: int, rng: SeedLike) -> FeatureTransitions:
    """:func:`mountain_car_episodes` in features (:func:`mountain_car_features`)."""
    traj, probs = mountain_car_episodes(domain, n, rng)
    return mountain_car_features(domain, traj, probs, MC_SETTINGS[domain])


@functools.lru_cache(maxsize=4)
def _chain_problem(n_states: int, p_stay: float, gamma: float, max_steps: int) -> dict[str, Any]:
    mdp = chain_mdp(n_states, p_stay, "uniform")
    Phi = tabular_features(mdp.n_states)
    Phi_td = Phi.copy()
    Phi_td[mdp.absorbing] = 0.0  # terminal value is 0: bootstraps from a zero feature
    occupancy = np.zeros(mdp.n_states)
    dist = mdp.start.copy()
    for _ in range(max_steps):
        occupancy += dist
        dist = dist @ mdp.P
    occupancy[mdp.absorbing] = 0.0
    A, b, M = model_saddle_point(mdp.P, mdp.R, Phi_td, occupancy, gamma)
    return dict(
        mdp=mdp,
        Phi=Phi,
        Phi_td=Phi_td,
        A=A,
        b=b,
        M=M,
        V=mdp.true_values(gamma),
        occupancy=occupancy,
    )


def chain_problem(config: dict[str, Any]) -> dict[str, Any]:
    """Model pieces of the chain (``config``: ``n_states, p_stay, gamma, max_steps``): MDP,
    features (``Phi``; ``Phi_td`` with the absorbing row zeroed), exact ``A, b, M``, true values
    ``V`` and the ``occupancy`` weighting ``D`` of the MSPBE (expected visits of each
    non-absorbing state in one trajectory, start uniform, capped at ``max_steps``)."""
    return _chain_problem(
        config["n_states"], config["p_stay"], config["gamma"], config["max_steps"]
    )


def chain_data(config: dict[str, Any], n: int, seed: np.random.SeedSequence):
    """(problem, trajectories, per-trajectory statistics, algorithm generator) of one chain
    dataset of ``n`` trajectories: the data from the first child of ``seed``, the generator
    from the second."""
    prob = chain_problem(config)
    data_ss, alg_ss = seed.spawn(2)
    traj = sample_trajectories(prob["mdp"], n, as_generator(data_ss), config["max_steps"])
    stats = SaddlePointStats.from_trajectories(traj, config["gamma"], prob["Phi_td"])
    return prob, traj, stats, as_generator(alg_ss)


def cell_index(states: np.ndarray, cells: int) -> np.ndarray:
    """The cell (``0 .. cells^2 - 1``, position-major) of each state (..., 2) on a uniform
    ``cells x cells`` grid over ``[LOW, HIGH]`` (states on the upper edge go to the last cell)."""
    k = check_int(cells, "cells", minimum=1)
    x = (np.asarray(states, dtype=float) - mc.LOW) / (mc.HIGH - mc.LOW)
    ij = np.clip(np.floor(x * k).astype(np.int64), 0, k - 1)
    return ij[..., 0] * k + ij[..., 1]


def cell_features(cells: int) -> np.ndarray:
    """Fourier features (order :data:`MC_FOURIER_ORDER`) of the ``cells^2`` cell centres, in the
    order of :func:`cell_index`: shape (cells^2, d)."""
    k = check_int(cells, "cells", minimum=1)
    centre = (np.arange(k) + 0.5) / k
    pos, vel = np.meshgrid(centre, centre, indexing="ij")
    states = mc.LOW + (mc.HIGH - mc.LOW) * np.stack([pos.ravel(), vel.ravel()], axis=1)
    return mc.fourier_features(states, MC_FOURIER_ORDER)


def cell_trajectories(traj: Trajectories, cells: int) -> Trajectories:
    """``traj`` with each observation replaced by its cell (integer states)."""
    return Trajectories(
        observations=cell_index(traj.observations, cells),
        actions=traj.actions,
        rewards=traj.rewards,
        lengths=traj.lengths,
        terminated=traj.terminated,
    )


__all__ = [
    "DomainSettings",
    "MC_BEHAVIOUR_EPSILON",
    "MC_FOURIER_ORDER",
    "MC_MAX_STEPS",
    "MC_SETTINGS",
    "MOUNTAIN_CAR_DOMAINS",
    "cell_features",
    "cell_index",
    "cell_trajectories",
    "chain_data",
    "chain_problem",
    "mountain_car_collect",
    "mountain_car_episodes",
    "mountain_car_features",
    "mountain_car_policies",
]
