r"""GTD2 in saddle-point form and GPOPE (Xie, Thomas, Miklau 2019, Algorithm 1).

Saddle point (Liu et al. 2015; Xie et al. eq. 2.1). With importance ratio
:math:`\rho_t = \pi(a_t|s_t)/\mu(a_t|s_t)` (1 on-policy),

.. math::

    A = E[\rho_t \phi_t (\phi_t - \gamma \phi_{t+1})^\top],\quad b = E[\rho_t r_t \phi_t],\quad
    M = E[\phi_t \phi_t^\top],\qquad
    \min_\theta \max_w\ \langle b - A\theta, w\rangle - \tfrac12 w^\top M w ,

whose value at the inner maximum is :math:`\tfrac12\,\mathrm{MSPBE}(\theta) = \tfrac12\|b - A\theta\|^2_{M^{-1}}`.
Per-trajectory estimates (eq. 2.2, :class:`SaddlePointStats`); the primal-dual gradient (eq. 4.1):

.. math:: g = \big(-\hat A^\top w,\; -(\hat b - \hat A\theta - \hat M w)\big), \qquad (\theta, w) \leftarrow (\theta, w) - \alpha_t g .

GPOPE (:func:`gpope`) samples one trajectory uniformly out of ``n`` per iteration, clips ``g`` to
:math:`\ell_2` norm ``G`` and adds :math:`N(0, (2Gz)^2 I)` with ``z`` the noise multiplier of
:mod:`privrl.core.accounting.subsampled` (replace-one sensitivity ``2G``); a terminal transition
bootstraps from :math:`\phi_{t+1} = 0`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from privrl.core.algorithms.lstd import FeatureTransitions, check_transitions
from privrl.core.mechanisms.discrete_gaussian import GridGaussian
from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories, check_states
from privrl.core.validation import (
    check_array,
    check_choice,
    check_int,
    check_positive,
)

#: The clip's norm is a double within a relative (2k + 8) 2^-53 of the exact norm of k
#: coordinates, so a clipped gradient may exceed ``clip_norm`` by that much: on the grid, its
#: replace-one sensitivity is accounted as 2 G (1 + 2^-30), which covers k up to 2^20.
CLIP_MARGIN = 1.0 + 2.0**-30
MAX_GRID_COORDINATES = 2**20

__all__ = [
    "CLIP_MARGIN",
    "MAX_GRID_COORDINATES",
    "SaddlePointStats",
    "GPOPEResult",
    "clip_rows",
    "clipped_gradients",
    "gpope",
    "gradient_operator",
    "grid_gradient_sensitivity",
    "gtd2_reference",
    "mspbe",
    "saddle_point_solution",
]


@dataclass(frozen=True)
class SaddlePointStats:
    """Per-trajectory estimates :math:`\\hat A_i, \\hat b_i, \\hat M_i` (eq. 2.2), shapes (n, d, d), (n, d), (n, d, d).

    Finite but huge data (rewards, importance ratios, feature observations) may overflow an
    estimate to inf or NaN, silently (no warning that would depend on the data): :func:`gpope`'s
    clip (:func:`clip_rows`) turns a gradient with such an entry into 0."""

    A: np.ndarray
    b: np.ndarray
    M: np.ndarray
    lengths: np.ndarray

    @property
    def n(self) -> int:
        return int(self.A.shape[0])

    @property
    def dim(self) -> int:
        return int(self.A.shape[1])

    @classmethod
    def from_features(cls, data: FeatureTransitions) -> SaddlePointStats:
        """Build the estimates from a validated dataset in feature space (eq. 2.2)."""
        if not isinstance(data, FeatureTransitions):
            raise ValueError("data must be a FeatureTransitions")
        mask = data.mask.astype(float)
        per_step = (mask / data.lengths[:, None])[..., None]  # 1 / L_i on real transitions
        cur = data.phi[:, :-1] * mask[..., None]
        nxt = data.next_features() * mask[..., None]
        with np.errstate(over="ignore", invalid="ignore"):  # huge data: see the class text
            weighted = cur * (data.weights[..., None] * per_step)
            A = np.matmul(weighted.transpose(0, 2, 1), cur - data.gamma * nxt)
            b = np.sum(weighted * data.rewards[..., None], axis=1)
            M = np.matmul((cur * per_step).transpose(0, 2, 1), cur)
        return cls(A=A, b=b, M=M, lengths=data.lengths.copy())

    @classmethod
    def from_tabular(
        cls,
        states: np.ndarray,
        Phi: np.ndarray,
        rewards: np.ndarray,
        lengths: np.ndarray,
        terminated: np.ndarray,
        gamma: float,
        rho: np.ndarray | None = None,
    ) -> SaddlePointStats:
        """Same estimates as :meth:`from_features` for integer ``states`` (n, H+1) and a feature
        matrix ``Phi`` (N, d), computed from weighted transition counts (no (n, H, d) arrays)."""
        states = np.asarray(states)
        Phi = check_array(Phi, "Phi", ndim=2)
        n_states, d = Phi.shape
        if states.ndim != 2 or states.shape[0] == 0 or states.shape[1] < 2:
            raise ValueError(
                f"states must be a non-empty (n, H+1) integer array, H >= 1, got "
                f"shape {states.shape}"
            )
        n, h1 = states.shape
        horizon = h1 - 1
        lengths, rewards, terminated, gamma, rho, mask = check_transitions(
            n, horizon, lengths, rewards, terminated, gamma, rho
        )
        states = check_states(states, lengths, n_states, "states")
        nxt = states[:, 1:].copy()
        nxt[np.arange(n)[terminated], lengths[terminated] - 1] = n_states  # zero feature row
        Phi0 = np.vstack([Phi, np.zeros((1, d))])
        row, col = np.nonzero(mask)
        s, s2 = states[row, col], nxt[row, col]
        wgt = rho[row, col] / lengths[row]
        C = np.zeros((n, n_states, n_states + 1))
        occ = np.zeros((n, n_states))
        rb = np.zeros((n, n_states))
        with np.errstate(over="ignore", invalid="ignore"):  # huge data: see the class text
            np.add.at(C, (row, s, s), wgt)
            np.add.at(C, (row, s, s2), -gamma * wgt)
            A = np.einsum("si,nst,tj->nij", Phi, C, Phi0, optimize=True)
            np.add.at(occ, (row, s), 1.0 / lengths[row])
            M = np.einsum("si,ns,sj->nij", Phi, occ, Phi, optimize=True)
            np.add.at(rb, (row, s), wgt * rewards[row, col])
            b = rb @ Phi
        return cls(A=A, b=b, M=M, lengths=lengths.copy())

    @classmethod
    def from_trajectories(
        cls,
        traj: Trajectories,
        gamma: float,
        features: object | None = None,
        rho: np.ndarray | None = None,
    ) -> SaddlePointStats:
        """The estimates (eq. 2.2) of a :class:`~privrl.core.trajectories.Trajectories` dataset:
        integer states with a feature matrix ``features`` (N, d) (:meth:`from_tabular`), or
        observations that are already feature vectors, (m, H + 1, d), with ``features=None``
        (:meth:`from_features`). ``rho`` (m, H): importance ratios (``None``: on-policy)."""
        if not isinstance(traj, Trajectories):
            raise ValueError(f"traj must be a Trajectories, got {type(traj).__name__}")
        if features is None:
            if traj.observations.ndim != 3:
                raise ValueError(
                    "features: give the (N, d) feature matrix of integer states, "
                    "or observations of shape (m, H + 1, d)"
                )
            return cls.from_features(
                FeatureTransitions(
                    traj.observations.astype(float),
                    traj.rewards,
                    traj.lengths,
                    traj.terminated,
                    gamma,
                    rho,
                )
            )
        phi = check_array(features, "features", ndim=2)
        return cls.from_tabular(
            traj.state_indices(phi.shape[0]),
            phi,
            traj.rewards,
            traj.lengths,
            traj.terminated,
            gamma,
            rho,
        )

    def mean(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Averages over trajectories: the saddle point GPOPE's iterates target on this dataset."""
        return self.A.mean(axis=0), self.b.mean(axis=0), self.M.mean(axis=0)


def mspbe(theta: np.ndarray, A: np.ndarray, b: np.ndarray, M: np.ndarray) -> np.ndarray:
    r""":math:`\|b - A\theta\|^2_{M^{+}}` for ``theta`` of shape (d,) or (K, d) (pseudo-inverse of M)."""
    theta = np.asarray(theta, dtype=float)
    resid = b - theta @ A.T
    return np.einsum("...i,ij,...j->...", resid, np.linalg.pinv(M, hermitian=True), resid)


def saddle_point_solution(A: np.ndarray, b: np.ndarray, M: np.ndarray) -> np.ndarray:
    r"""Minimiser of the MSPBE: :math:`(A^\top M^+ A)^+ A^\top M^+ b` (= :math:`A^{-1}b` if A is invertible)."""
    minv = np.linalg.pinv(M, hermitian=True)
    return np.linalg.pinv(A.T @ minv @ A) @ (A.T @ minv @ b)


@dataclass(frozen=True)
class GPOPEResult:
    """What :func:`gpope` returns: the final iterates of every trial, their history every
    ``record_every`` iterations, the fraction of gradients the clip shortened and, with
    ``record_steps=True``, every noisy step released. Its privacy is not in here:
    :func:`privrl.api.gpope` returns it with its (epsilon, delta) and event."""

    theta: np.ndarray  # (K, d) final primal iterate of each trial
    w: np.ndarray  # (K, d) final dual iterate
    history_iterations: np.ndarray  # (R,) iterations at which theta was recorded
    history: np.ndarray  # (R, K, d)
    clipped_fraction: float  # fraction of gradients whose norm exceeded G
    steps: np.ndarray | None = None  # (K, T, 2d) every noisy step (record_steps=True), else None


def _step_sizes(iterations: int, schedule: str, decay_offset: float) -> np.ndarray:
    """Multipliers of the base step size: 1 (constant) or t0 / (t0 + t) (diminishing)."""
    t = np.arange(iterations, dtype=float)
    if schedule == "constant":
        return np.ones(iterations)
    return decay_offset / (decay_offset + t)


def gpope(
    stats: SaddlePointStats,
    iterations: int,
    step_size: float | np.ndarray,
    clip_norm: float,
    noise_multiplier: float | np.ndarray,
    rng: SeedLike,
    n_trials: int = 1,
    schedule: str = "constant",
    decay_offset: float | None = None,
    record_every: int | None = None,
    progress: bool = False,
    record_steps: bool = False,
    grid: GridGaussian | None = None,
) -> GPOPEResult:
    r"""Run ``n_trials`` independent copies of GPOPE (Algorithm 1) on the same dataset, from
    :math:`\theta = w = 0`.

    Iteration t: draw one trajectory index per trial uniformly from ``{0..n-1}``, form ``g``
    (eq. 4.1; affine in :math:`x = (\theta, w)`, :math:`g = B_i x + h_i` with :math:`B_i =
    \begin{pmatrix}0 & -\hat A_i^\top\\ \hat A_i & \hat M_i\end{pmatrix}`, :math:`h_i = (0,
    -\hat b_i)`), clip it to norm ``clip_norm`` (:func:`clip_rows`: an overflowing gradient too;
    ``math.inf`` disables it), add :math:`N(0, (2Gz)^2 I)`, ``z = noise_multiplier`` (``0``: no
    noise), and step by :math:`\alpha_t` = ``step_size`` (``"constant"``, Theorem 2) or
    :math:`\alpha_0 t_0/(t_0 + t)` (``"diminishing"``, Theorem 3; ``t_0 = decay_offset``, default
    ``iterations / 10``). ``step_size`` and ``noise_multiplier`` may be arrays (n_trials,).

    ``grid``: the clipped gradient is rounded to the grid and gets exact discrete Gaussian integers
    (:class:`~privrl.core.mechanisms.discrete_gaussian.GridGaussian`), private on doubles; then
    ``noise_multiplier`` must be 0 and ``clip_norm`` finite. ``record_steps=True`` also returns
    every released noisy step (clipped gradient plus noise, before the step size) in ``steps``,
    ``(n_trials, T, 2d)``: the transcript a white-box audit observes; it draws nothing more."""
    if not isinstance(stats, SaddlePointStats):
        raise ValueError(f"stats must be a SaddlePointStats, got {type(stats).__name__}")
    iterations = check_int(iterations, "iterations", minimum=1)
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    step = _per_trial(step_size, "step_size", n_trials)
    if np.any(step <= 0):
        raise ValueError("step_size must be > 0")
    clip_norm = check_positive(clip_norm, "clip_norm", allow_inf=True)
    z = _per_trial(noise_multiplier, "noise_multiplier", n_trials)
    if np.any(z < 0):
        raise ValueError("noise_multiplier must be >= 0")
    if np.any(z > 0) and math.isinf(clip_norm):
        raise ValueError("noise_multiplier > 0 needs a finite clip_norm (the noise scale is 2 G z)")
    if grid is not None:
        if not isinstance(grid, GridGaussian):
            raise ValueError(f"grid must be a GridGaussian, got {type(grid).__name__}")
        if np.any(z > 0) or math.isinf(clip_norm):
            raise ValueError("grid: give it with noise_multiplier = 0 and a finite clip_norm")
    schedule = check_choice(schedule, "schedule", ("constant", "diminishing"))
    t0 = (
        max(iterations / 10.0, 1.0)
        if decay_offset is None
        else check_positive(decay_offset, "decay_offset")
    )
    record_every = (
        iterations if record_every is None else check_int(record_every, "record_every", minimum=1)
    )
    gen = as_generator(rng)
    d = stats.dim
    B, h = gradient_operator(stats)
    x = np.zeros((n_trials, 2 * d))
    alphas = _step_sizes(iterations, schedule, t0)[:, None] * step[None, :]  # (T, K)
    std = (2.0 * clip_norm * z)[:, None] if np.any(z > 0) else None
    hist_it, hist = [], []
    n_clipped = 0
    steps = np.empty((iterations, n_trials, 2 * d)) if record_steps else None
    with np.errstate(over="ignore", invalid="ignore"):  # huge data: clip_rows, no warning
        for t in tqdm(range(iterations), disable=not progress, desc="GPOPE"):
            idx = gen.integers(stats.n, size=n_trials)
            g, clipped = clipped_gradients(B, h, idx, x, clip_norm)
            n_clipped += clipped
            if std is not None:
                g += std * gen.standard_normal(g.shape)
            elif grid is not None:
                g = grid.add(g, gen)
            if steps is not None:
                steps[t] = g
            x -= alphas[t][:, None] * g
            if (t + 1) % record_every == 0 or t + 1 == iterations:
                hist_it.append(t + 1)
                hist.append(x[:, :d].copy())
    return GPOPEResult(
        theta=x[:, :d].copy(),
        w=x[:, d:].copy(),
        history_iterations=np.asarray(hist_it),
        history=np.stack(hist),
        clipped_fraction=n_clipped / (iterations * n_trials),
        steps=None if steps is None else steps.transpose(1, 0, 2),
    )


def gradient_operator(stats: SaddlePointStats) -> tuple[np.ndarray, np.ndarray]:
    r"""``(B, h)`` of each trajectory, shapes (n, 2d, 2d) and (n, 2d): its primal-dual gradient
    (eq. 4.1) at :math:`x = (\theta, w)` is :math:`B_i x + h_i` (:func:`gpope`)."""
    d = stats.dim
    B = np.zeros((stats.n, 2 * d, 2 * d))
    B[:, :d, d:] = -stats.A.transpose(0, 2, 1)
    B[:, d:, :d] = stats.A
    B[:, d:, d:] = stats.M
    h = np.concatenate([np.zeros((stats.n, d)), -stats.b], axis=1)
    return B, h


def clipped_gradients(
    B: np.ndarray, h: np.ndarray, idx: np.ndarray, x: np.ndarray, clip_norm: float
) -> tuple[np.ndarray, int]:
    """The gradients of trajectories ``idx`` at iterates ``x`` (one row each; ``B, h`` from
    :func:`gradient_operator`) clipped to ``clip_norm`` (:func:`clip_rows`; ``inf``: not
    clipped), the value :func:`gpope` adds its noise to, and how many the clip shortened."""
    g = np.matmul(B[idx], x[:, :, None])[:, :, 0] + h[idx]
    return g, 0 if math.isinf(clip_norm) else clip_rows(g, clip_norm)


def clip_rows(g: np.ndarray, clip_norm: float) -> int:
    r"""Clip every row of ``g`` (K, k) in place to :math:`\ell_2` norm at most ``clip_norm``
    (within :data:`CLIP_MARGIN`) and return how many rows it changed; total, so that the
    sensitivity argument (every clipped gradient has norm at most ``clip_norm``) holds whatever
    the data, without an exception or a warning that would depend on them.

    A row of finite norm above ``clip_norm`` is scaled by ``clip_norm / norm``. A finite row
    whose norm overflows a double is first scaled by a power of two (exactly) to a largest
    entry in [1/2, 1), then clipped: its direction is kept. A row with a non-finite entry (a
    gradient of huge data that overflowed) has no direction to keep and becomes 0."""
    norms = np.sqrt(np.einsum("ki,ki->k", g, g))  # einsum overflows to inf without a warning
    n_huge = 0
    if not np.isfinite(norms).all():
        huge = ~np.isfinite(norms)
        g[huge] = _clip_overflowing(g[huge], clip_norm)
        norms[huge] = clip_norm  # clipped: not over
        n_huge = int(huge.sum())
    over = norms > clip_norm
    g[over] *= (clip_norm / norms[over])[:, None]
    return int(over.sum()) + n_huge


def _clip_overflowing(rows: np.ndarray, clip_norm: float) -> np.ndarray:
    """Rows whose norm is not finite, clipped as :func:`clip_rows` says: 0 where an entry is not
    finite, else scaled by a power of two to a largest entry in [1/2, 1) and clipped."""
    out = np.zeros_like(rows)
    finite = np.all(np.isfinite(rows), axis=1)
    big = rows[finite]
    exponent = np.frexp(np.max(np.abs(big), axis=1))[1]  # largest entry in [2^(e-1), 2^e)
    small = np.ldexp(big, -exponent[:, None])
    out[finite] = small * (clip_norm / np.sqrt(np.einsum("ki,ki->k", small, small)))[:, None]
    return out


def grid_gradient_sensitivity(clip_norm: float, dim: int, name: str = "dim") -> float:
    r"""The :math:`\ell_2` sensitivity, under replace-one, of GPOPE's clipped gradient
    (:math:`2d` coordinates for ``dim`` features) as :func:`gpope` computes it on doubles:
    :math:`2G` times :data:`CLIP_MARGIN`. ``name`` is the argument that sets ``dim``, for the
    error beyond :data:`MAX_GRID_COORDINATES` coordinates, which the margin does not cover."""
    clip_norm = check_positive(clip_norm, "clip_norm")
    dim = check_int(dim, name, minimum=1)
    if 2 * dim > MAX_GRID_COORDINATES:
        raise ValueError(
            f"{name}: at most {MAX_GRID_COORDINATES // 2} features (the clip's margin "
            f"covers the rounding of norms of 2^20 coordinates), got {dim}"
        )
    return 2.0 * clip_norm * CLIP_MARGIN


def _per_trial(value: float | np.ndarray, name: str, n_trials: int) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if array.ndim > 1 or (array.ndim == 1 and array.shape != (n_trials,)):
        raise ValueError(f"{name} must be a number or have shape ({n_trials},), got {array.shape}")
    return check_array(np.broadcast_to(array, (n_trials,)), name)


def gtd2_reference(data: FeatureTransitions, indices: np.ndarray, step_size: float) -> np.ndarray:
    """Plain (non-private) GTD2 of Liu et al. 2015 written transition by transition, one trial.

    Trajectory ``indices[t]`` is used at iteration ``t``; the per-trajectory averages are formed
    directly from its transitions (no precomputed statistics). Returns the final ``theta``.
    """
    if not isinstance(data, FeatureTransitions):
        raise ValueError("data must be a FeatureTransitions")
    step_size = check_positive(step_size, "step_size")
    phi, gamma, rho = data.phi, data.gamma, data.weights
    d = phi.shape[2]
    theta, w = np.zeros(d), np.zeros(d)
    for i in np.asarray(indices, dtype=int):
        L = int(data.lengths[i])
        g_theta, g_w = np.zeros(d), np.zeros(d)
        for t in range(L):
            f = phi[i, t]
            fn = np.zeros(d) if (data.terminated[i] and t == L - 1) else phi[i, t + 1]
            delta_f = f - gamma * fn
            g_theta -= rho[i, t] * delta_f * (f @ w)
            g_w -= (
                rho[i, t] * data.rewards[i, t] * f - rho[i, t] * f * (delta_f @ theta) - f * (f @ w)
            )
        theta = theta - step_size * g_theta / L
        w = w - step_size * g_w / L
    return theta
