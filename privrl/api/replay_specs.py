r"""The replay spec of every release of :mod:`privrl.api` for :func:`privrl.core.replay.replay_audit`:
its value before the noise, sensitivity, norm, relation and targeted neighbours.

A statistic is composed of the functions the release calls before its noise, its sensitivity is
the one its event is computed from, public parameters (grid step, noise) are read from a release
made with the same arguments, and random draws before the noise are frozen. By release (norm;
statistic and sensitivity):

* ``gaussian_mechanism`` (L2), ``laplace_mechanism`` (L1): the value on the grid, in steps
  (:math:`\Delta/\text{step}+\sqrt d`; :math:`\lfloor\Delta/\text{step}\rfloor + d`);
* ``dp_lsw``, ``dp_lsl`` (L2): the fit of the clipped first-visit returns (:math:`\sigma_X/\alpha`);
* ``gpope`` (L2 per row): each clipped gradient on the grid at every iterate
  (:math:`2G(1+2^{-30})/\text{step} + \sqrt{2d}`);
* ``ssp_lstd`` (L2): the integer sum of the rounded :math:`(\mathrm{vec}\,A_i, b_i)`
  (:math:`\Delta_2/\text{step} + \sqrt{d^2+d}`);
* ``laplace_report`` (L1 per row, :math:`\lfloor C/\text{step}\rfloor + d`), ``sign_report``
  (Linf per row, :math:`2C`), ``dirichlet_teacher_answer`` (L2 per row, :math:`Lb`).

``functional_q_learning`` is not audited: it takes no data, and Theorem 5 bounds the RKHS norm
of a whole run's change, not one value the noise is added to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from functools import partial

import numpy as np

from privrl.api.evaluation import dp_lsl, dp_lsw, gpope, grid_gpope_noise, ssp_lstd
from privrl.api.local import laplace_report, sign_report
from privrl.api.mechanisms import gaussian_mechanism, laplace_mechanism
from privrl.api.release import Release
from privrl.core.accounting.discrete_gaussian import grid_l2_sensitivity
from privrl.core.accounting.laplace import grid_sensitivity
from privrl.core.algorithms import gtd, monte_carlo
from privrl.core.algorithms import ssp_lstd as ssp
from privrl.core.mechanisms import dirichlet as dm
from privrl.core.mechanisms import local as loc
from privrl.core.mechanisms.discrete_laplace import grid_centre
from privrl.core.replay import ReplaySpec
from privrl.core.trajectories import Trajectories

#: The seed of every draw a statistic freezes (a projection, a run's noise).
FROZEN_SEED = 0


def _directions(d: int) -> Iterator[np.ndarray]:
    """Unit vectors: each axis and the diagonal, both ways (L2 units; scale for L1)."""
    for k in range(d):
        for sign in (1.0, -1.0):
            yield sign * np.eye(d)[k]
    for sign in (1.0, -1.0):
        yield sign * np.ones(d) / math.sqrt(d)


def _moved(value: np.ndarray, distance: float, norm: str) -> Iterator[np.ndarray]:
    flat = value.reshape(-1)
    for u in _directions(flat.size):
        u = u / np.abs(u).sum() if norm == "l1" else u
        yield (flat + distance * u).reshape(value.shape)


def _value_spec(
    name: str, value: object, step: float, sensitivity: float, grid: float, norm: str, relation: str
) -> ReplaySpec:
    return ReplaySpec(
        name,
        lambda v: grid_centre(np.asarray(v, dtype=float), step),
        grid,
        norm,  # type: ignore[arg-type]
        f"values at most the sensitivity {sensitivity:g} apart in {norm} ({relation})",
        lambda v: _moved(np.asarray(v, dtype=float), sensitivity, norm),
    )


def gaussian_mechanism_spec(
    value: object, *, sensitivity: float, epsilon: float, delta: float, relation: str = "add/remove"
) -> ReplaySpec:
    """:func:`~privrl.api.mechanisms.gaussian_mechanism`: ``value`` rounded to its grid
    (:func:`~privrl.core.mechanisms.discrete_laplace.grid_centre`, as
    :func:`~privrl.core.mechanisms.discrete_gaussian.discrete_gaussian_mechanism` rounds it)."""
    arr = np.asarray(value, dtype=float)
    step = gaussian_mechanism(
        arr,
        sensitivity=sensitivity,
        epsilon=epsilon,
        delta=delta,
        relation=relation,
        rng=FROZEN_SEED,
    ).parameters["step"]
    grid = grid_l2_sensitivity(sensitivity, arr.size, step)
    return _value_spec("gaussian_mechanism", arr, step, sensitivity, grid, "l2", relation)


def laplace_mechanism_spec(value: object, *, sensitivity: float, epsilon: float) -> ReplaySpec:
    """:func:`~privrl.api.mechanisms.laplace_mechanism`: ``value`` rounded to its grid."""
    arr = np.asarray(value, dtype=float)
    step = laplace_mechanism(
        arr, sensitivity=sensitivity, epsilon=epsilon, rng=FROZEN_SEED
    ).parameters["step"]
    grid = float(grid_sensitivity(sensitivity, max(arr.size, 1), step))
    return _value_spec(
        "laplace_mechanism", arr, step, sensitivity, grid, "l1", "the caller's relation"
    )


def trajectory_neighbours(
    traj: Trajectories, n_states: int, rewards: Sequence[float]
) -> Iterator[Trajectories]:
    """Replace-one neighbours at the edges: the first or last trajectory replaced by the longest
    (ending in a terminal state or truncated) or the shortest, every reward one of ``rewards``,
    its states all the first, all the last, alternating between them, or every state in
    turn."""
    m, horizon = traj.n_trajectories, traj.horizon
    t = np.arange(horizon + 1)
    patterns = [
        np.zeros(horizon + 1, np.int64),
        np.full(horizon + 1, n_states - 1),
        np.where(t % 2 == 0, 0, n_states - 1),
        t % n_states,
    ]
    for i in sorted({0, m - 1}):
        for length, terminated in ((horizon, True), (horizon, False), (1, True)):
            for states in patterns:
                for r in rewards:
                    other = Trajectories(
                        states[None, :],
                        np.zeros((1, horizon), np.int64),
                        np.full((1, horizon), float(r)),
                        np.array([length]),
                        np.array([terminated]),
                    )
                    yield traj.replace(i, other)


def _at_bounds(low: float, high: float, gamma: float, horizon: int) -> list[float]:
    """Constant rewards whose longest return is ``low``, ``high`` and beyond ``high``."""
    scale = (1.0 - gamma) / (1.0 - gamma**horizon) if gamma < 1 else 1.0 / horizon
    return [low * scale, high * scale, 10.0 * (abs(high) + 1.0) * scale]


def _smooth_spec(
    traj: Trajectories,
    n_states: int,
    gamma: float,
    features: object,
    weights: object | None,
    epsilon: float,
    delta: float,
    return_bound: float,
    return_low: float,
    lam: float | None,
) -> ReplaySpec:
    """The spec of DP-LSW (``lam`` ``None``) or of DP-LSL at ``lam``, its arguments first
    validated by making the release once (at :data:`FROZEN_SEED`)."""
    release: Callable[..., Release] = dp_lsw if lam is None else partial(dp_lsl, lam=lam)
    release(
        traj,
        n_states=n_states,
        gamma=gamma,
        features=features,
        epsilon=epsilon,
        delta=delta,
        return_bound=return_bound,
        return_low=return_low,
        weights=weights,
        rng=FROZEN_SEED,
    )
    budget = monte_carlo.SmoothGaussianBudget(epsilon, delta, return_bound, return_low)
    name = "dp_lsw" if lam is None else "dp_lsl"
    phi = np.asarray(features, dtype=float)
    rho = np.full(n_states, 1.0 / n_states) if weights is None else np.asarray(weights, float)
    alpha, _ = budget.constants(phi.shape[1])

    def statistic(
        data: Trajectories,
    ) -> np.ndarray:  # as monte_carlo.dp_lsw, monte_carlo.dp_lsl before _release
        fv = monte_carlo.bounded_returns(
            monte_carlo.first_visit_returns(data, n_states, gamma), budget
        )
        return monte_carlo.lsw(fv, phi, rho) if lam is None else monte_carlo.lsl(fv, phi, rho, lam)

    def sensitivity(data: Trajectories) -> float:  # Lemma 1 (a): sigma_X / alpha
        counts = monte_carlo.first_visit_returns(data, n_states, gamma).counts
        sigma = (
            monte_carlo.dp_lsw_sigma(counts, phi, rho, budget)
            if lam is None
            else monte_carlo.dp_lsl_sigma(counts, data.n_trajectories, phi, rho, lam, budget)
        )
        return sigma / alpha

    low, high = budget.return_range
    rewards = _at_bounds(low, high, gamma, traj.horizon)
    return ReplaySpec(
        name,
        statistic,
        sensitivity,
        "l2",
        "replace-one (one trajectory)",
        lambda d: trajectory_neighbours(d, n_states, rewards),
    )


def dp_lsw_spec(
    traj: Trajectories,
    *,
    n_states: int,
    gamma: float,
    features: object,
    epsilon: float,
    delta: float,
    return_bound: float,
    return_low: float = 0.0,
    weights: object | None = None,
) -> ReplaySpec:
    """:func:`~privrl.api.evaluation.dp_lsw`: the fit before the noise, against the local
    sensitivity bound :math:`\\sigma_X/\\alpha` its noise is calibrated to (read at each
    dataset replayed)."""
    return _smooth_spec(
        traj, n_states, gamma, features, weights, epsilon, delta, return_bound, return_low, None
    )


def dp_lsl_spec(
    traj: Trajectories,
    *,
    n_states: int,
    gamma: float,
    features: object,
    lam: float,
    epsilon: float,
    delta: float,
    return_bound: float,
    return_low: float = 0.0,
    weights: object | None = None,
) -> ReplaySpec:
    """:func:`~privrl.api.evaluation.dp_lsl`, as :func:`dp_lsw_spec`."""
    return _smooth_spec(
        traj, n_states, gamma, features, weights, epsilon, delta, return_bound, return_low, lam
    )


def gpope_spec(
    traj: Trajectories,
    *,
    features: object,
    gamma: float,
    iterations: int,
    step_size: float,
    clip_norm: float,
    noise_multiplier: float,
    delta: float = 1e-5,
) -> ReplaySpec:
    """:func:`~privrl.api.evaluation.gpope` (integer states with ``features``): at each iterate
    of a run on ``traj`` (its sampled trajectories and noise frozen: the transcript the later
    steps depend on), the gradient of every trajectory clipped and on the grid
    (:func:`~privrl.core.algorithms.gtd.clipped_gradients`, then the grid noise's rounding);
    each row is one noisy step, bounded by the grid sensitivity of one clipped gradient."""
    release = gpope(
        traj,
        features=features,
        gamma=gamma,
        noise_multiplier=noise_multiplier,
        delta=delta,
        iterations=iterations,
        step_size=step_size,
        clip_norm=clip_norm,
        rng=FROZEN_SEED,
    )
    phi = np.asarray(features, dtype=float)
    dim = phi.shape[1]
    noise, _ = grid_gpope_noise(noise_multiplier, clip_norm, dim, traj.n_trajectories, iterations)
    if noise.step != release.parameters["step"]:
        raise RuntimeError("gpope_spec: its grid is not the release's")
    stats = gtd.SaddlePointStats.from_trajectories(traj, gamma, phi)
    run = gtd.gpope(
        stats, iterations, step_size, clip_norm, 0.0, FROZEN_SEED, grid=noise, record_steps=True
    )
    steps = np.asarray(run.steps)[0]  # (iterations, 2 dim): every noisy step of the run
    iterates = np.concatenate([np.zeros((1, 2 * dim)), -step_size * np.cumsum(steps, axis=0)[:-1]])
    n = traj.n_trajectories
    everyone = np.tile(np.arange(n), len(iterates))
    at = np.repeat(iterates, n, axis=0)

    def statistic(data: Trajectories) -> np.ndarray:
        B, h = gtd.gradient_operator(gtd.SaddlePointStats.from_trajectories(data, gamma, phi))
        with np.errstate(over="ignore", invalid="ignore"):
            g, _ = gtd.clipped_gradients(B, h, everyone, at, clip_norm)
        return grid_centre(g, noise.step)

    sensitivity = grid_l2_sensitivity(
        gtd.grid_gradient_sensitivity(clip_norm, dim), 2 * dim, noise.step
    )
    return ReplaySpec(
        "gpope",
        statistic,
        sensitivity,
        "l2",
        "replace-one (one trajectory)",
        lambda d: trajectory_neighbours(d, phi.shape[0], (1.0, -1.0, 1e3, -1e3)),
        rows=True,
    )


def ssp_lstd_spec(
    traj: Trajectories,
    *,
    features: object,
    gamma: float,
    epsilon: float,
    delta: float,
    feature_bound: float,
    reward_bound: float,
    max_length: int,
    lam: float,
) -> ReplaySpec:
    """:func:`~privrl.api.evaluation.ssp_lstd` (integer states with ``features``): the bounded
    transitions' rounded contributions summed on the noise's grid
    (:func:`~privrl.core.algorithms.ssp_lstd.grid_statistics`), against the grid sensitivity of
    :math:`\\Delta_2` with its margin."""
    release = ssp_lstd(
        traj,
        features=features,
        gamma=gamma,
        epsilon=epsilon,
        delta=delta,
        feature_bound=feature_bound,
        reward_bound=reward_bound,
        max_length=max_length,
        lam=lam,
        rng=FROZEN_SEED,
    )
    phi = np.asarray(features, dtype=float)
    bounds = ssp.SSPBounds(feature_bound, reward_bound, max_length, gamma)
    step = release.parameters["step"]
    coordinates = phi.shape[1] ** 2 + phi.shape[1]

    def statistic(data: Trajectories) -> np.ndarray:
        return ssp.grid_statistics(ssp.bounded_transitions(data, phi, bounds), step).astype(float)

    sensitivity = grid_l2_sensitivity(bounds.sensitivity, coordinates, step)
    rewards = (reward_bound, -reward_bound, 1e3, -1e3)
    return ReplaySpec(
        "ssp_lstd",
        statistic,
        sensitivity,
        "l2",
        "replace-one (one trajectory)",
        lambda d: trajectory_neighbours(d, phi.shape[0], rewards),
    )


def _report_neighbours(g: np.ndarray, clip: float) -> Iterator[np.ndarray]:
    """Each report's input replaced by the extremes."""
    g = np.atleast_2d(np.asarray(g, dtype=float))
    for i in range(len(g)):
        for x in [
            *(10.0 * clip * u for u in _directions(g.shape[1])),
            -10.0 * g[i],
            np.zeros(g.shape[1]),
        ]:
            other = g.copy()
            other[i] = x
            yield other


def laplace_report_spec(gradients: object, *, epsilon: float, clip: float) -> ReplaySpec:
    """:func:`~privrl.api.local.laplace_report`: each input clipped to L1 norm ``clip / 2`` and
    on the grid (as :func:`~privrl.core.mechanisms.local.laplace_gradient_parts`)."""
    g = np.atleast_2d(np.asarray(gradients, dtype=float))
    step = laplace_report(g, epsilon=epsilon, clip=clip, rng=FROZEN_SEED).parameters["step"]
    grid = float(grid_sensitivity(clip, g.shape[1], step))
    return ReplaySpec(
        "laplace_report",
        lambda x: grid_centre(loc.clip_l1(x, clip / 2.0), step),
        grid,
        "l1",
        "local: one report's input replaced by any other",
        lambda x: _report_neighbours(x, clip),
        rows=True,
    )


def sign_report_spec(
    gradients: object, *, epsilon: float, clip: float, d_hat: int | None = None
) -> ReplaySpec:
    """:func:`~privrl.api.local.sign_report`: each input's projection clipped to ``[-C, C]``
    (:func:`~privrl.core.mechanisms.local.clipped_projection`), its matrix frozen; each sign's
    budget is calibrated to inputs :math:`2C` apart."""
    g = np.atleast_2d(np.asarray(gradients, dtype=float))
    d_hat = sign_report(g, epsilon=epsilon, clip=clip, d_hat=d_hat, rng=FROZEN_SEED).parameters[
        "d_hat"
    ]
    matrix = loc.random_projection(g.shape[0], d_hat, g.shape[1], FROZEN_SEED)
    return ReplaySpec(
        "sign_report",
        lambda x: loc.clipped_projection(matrix, x, clip),
        2.0 * clip,
        "linf",
        "local: one report's input replaced by any other",
        lambda x: _report_neighbours(x, clip),
        rows=True,
    )


def _policy_neighbours(policy: np.ndarray, radius: float) -> Iterator[np.ndarray]:
    """Every row moved ``radius`` in L2 on the simplex: mass between two actions (where there
    is enough), or towards a vertex (at most all the way)."""
    rows = np.atleast_2d(policy)
    m = rows.shape[1]
    for i in range(m):
        for j in range(m):
            shift = np.zeros(m)
            if i != j:
                shift[i], shift[j] = radius / math.sqrt(2), -radius / math.sqrt(2)
                moved = rows + shift
                if np.all(moved >= 0):
                    yield moved.reshape(policy.shape)
        towards = np.eye(m)[i] - rows
        t = np.minimum(1.0, radius / np.linalg.norm(towards, axis=1, keepdims=True))
        yield (rows + t * towards).reshape(policy.shape)


def dirichlet_teacher_answer_spec(
    policy: object, *, eta: float, lipschitz: float, b: float
) -> ReplaySpec:
    """:func:`~privrl.api.control.dirichlet_teacher_answer`: each row of the teacher's policy in
    the restricted simplex (:func:`~privrl.core.mechanisms.dirichlet.into_restricted_simplex`,
    1-Lipschitz), for observations ``b`` apart and an ``lipschitz``-Lipschitz teacher: rows at
    most ``lipschitz * b`` apart in L2, the distance Theorem 1 is calibrated to."""
    pi = dm.check_policy(policy)
    radius = lipschitz * b
    return ReplaySpec(
        "dirichlet_teacher_answer",
        lambda p: dm.into_restricted_simplex(p, eta).reshape(-1, pi.shape[-1]),
        radius,
        "l2",
        f"each row's observation b = {b:g} apart (a {lipschitz:g}-Lipschitz teacher)",
        lambda p: _policy_neighbours(np.asarray(p, dtype=float), radius),
        rows=True,
    )


__all__ = [
    "FROZEN_SEED",
    "dirichlet_teacher_answer_spec",
    "dp_lsl_spec",
    "dp_lsw_spec",
    "gaussian_mechanism_spec",
    "gpope_spec",
    "laplace_mechanism_spec",
    "laplace_report_spec",
    "sign_report_spec",
    "trajectory_neighbours",
]
