r"""SSP-LSTD: LSTD(0)'s linear system released with Gaussian noise, then solved.

Over every transition (every-visit; a terminal one bootstraps from a zero feature)

.. math:: A = \sum_i \sum_{t < L_i} \phi(s_t)\big(\phi(s_t) - \gamma\phi(s_{t+1})\big)^\top,
   \qquad b = \sum_i \sum_{t < L_i} \phi(s_t)\,r_t;

the release is :math:`(\mathrm{vec}\,A, b)` plus Gaussian noise and
:math:`\hat\theta = (\tilde A + \lambda I)^{-1}\tilde b` (post-processing; :math:`\lambda > 0`
chosen on public data). With :math:`\|\phi\|_2 \le F`, :math:`|r| \le R`, at most :math:`L`
transitions and :math:`0 \le \gamma \le 1` enforced, a transition's terms have norms at most
:math:`F^2(1+\gamma)` and :math:`FR`, so under replace-one trajectory

.. math:: \Delta_2 = 2L\sqrt{F^4(1+\gamma)^2 + F^2R^2}\quad(\text{:func:`ssp_sensitivity`}),

within :math:`\sqrt 2` of attained (:func:`extremal_pair`). Each contribution is rounded to the
noise's grid and summed exactly in integers; exact discrete Gaussian noise there meets the Rényi
curve of a Gaussian of multiplier :math:`\sqrt{s}/G` (grid sensitivity of
:mod:`privrl.core.accounting.discrete_gaussian`, :math:`\Delta` with the margin
:data:`~privrl.core.algorithms.gtd.CLIP_MARGIN` for the contributions' rounding error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privrl.core.accounting.discrete_gaussian import discrete_gaussian_event
from privrl.core.accounting.events import DpAccountingEvent
from privrl.core.algorithms.gtd import CLIP_MARGIN
from privrl.core.algorithms.lstd import FeatureTransitions
from privrl.core.mechanisms.discrete_gaussian import GridGaussian
from privrl.core.rng import SeedLike
from privrl.core.trajectories import Trajectories
from privrl.core.validation import (
    check_array,
    check_int,
    check_nonnegative,
    check_positive,
    clip_to_bound,
    warn_or_refuse,
)

__all__ = [
    "MAX_LENGTH",
    "SSPBounds",
    "SSPEstimate",
    "bounded_transitions",
    "extremal_pair",
    "grid_statistics",
    "noisy_statistics",
    "on_grid",
    "solve",
    "ssp_lstd",
    "ssp_noise",
    "ssp_sensitivity",
    "stack",
    "sufficient_statistics",
    "trajectory_statistics",
    "unstack",
]

#: The largest ``max_length`` the floating-point margin covers.
MAX_LENGTH = 2**20
#: Grid units a sum of rounded contributions may reach (then noise keeps it below 2^53).
_GRID_LIMIT = 2.0**52
#: Entries of a chunk of per-trajectory contributions held at once.
_CHUNK = 2**22


def ssp_sensitivity(
    feature_bound: float, reward_bound: float, max_length: int, gamma: float
) -> float:
    r""":math:`\Delta_2 = 2L\sqrt{F^4(1+\gamma)^2 + F^2R^2}`: the :math:`\ell_2` sensitivity of
    :math:`(\mathrm{vec}\,A, b)` under replace-one trajectory (module text), computed as
    :math:`2LF\sqrt{F^2(1+\gamma)^2 + R^2}` (no overflow of :math:`F^4`)."""
    f = check_positive(feature_bound, "feature_bound")
    r = check_nonnegative(reward_bound, "reward_bound")
    big_l = check_int(max_length, "max_length", minimum=1)
    g = _check_gamma(gamma)
    return 2.0 * big_l * f * math.hypot(f * (1.0 + g), r)


def _check_gamma(gamma: object) -> float:
    g = check_nonnegative(gamma, "gamma")
    if g > 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {g}")
    return g


@dataclass(frozen=True)
class SSPBounds:
    """The public bounds SSP-LSTD's sensitivity assumes: feature norm ``feature_bound``,
    reward magnitude ``reward_bound``, at most ``max_length`` transitions per trajectory, and
    the discount ``gamma`` in [0, 1]; validated (``ValueError`` naming the argument)."""

    feature_bound: float
    reward_bound: float
    max_length: int
    gamma: float

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "feature_bound", check_positive(self.feature_bound, "feature_bound")
        )
        object.__setattr__(self, "reward_bound", check_positive(self.reward_bound, "reward_bound"))
        length = check_int(self.max_length, "max_length", minimum=1)
        if length > MAX_LENGTH:
            raise ValueError(
                f"max_length must be at most {MAX_LENGTH} (the floating-point margin "
                f"of the sensitivity covers that many transitions), got {length}"
            )
        object.__setattr__(self, "max_length", length)
        object.__setattr__(self, "gamma", _check_gamma(self.gamma))
        if not math.isfinite(self.sensitivity):
            raise ValueError(
                "feature_bound, reward_bound: the sensitivity 2 L F sqrt(F^2 "
                "(1 + gamma)^2 + R^2) is beyond a double; rescale them"
            )

    @property
    def exact_sensitivity(self) -> float:
        """:func:`ssp_sensitivity` of these bounds (real arithmetic)."""
        return ssp_sensitivity(self.feature_bound, self.reward_bound, self.max_length, self.gamma)

    @property
    def sensitivity(self) -> float:
        """The sensitivity accounted on doubles: :attr:`exact_sensitivity` times
        :data:`~privrl.core.algorithms.gtd.CLIP_MARGIN` (module text)."""
        return self.exact_sensitivity * CLIP_MARGIN


def _clip_norms(rows: np.ndarray, bound: float) -> tuple[np.ndarray, bool]:
    """``rows`` (..., d) scaled to l2 norm at most ``bound`` and whether any was scaled."""
    norms = np.sqrt(np.einsum("...i,...i->...", rows, rows))
    over = norms > bound
    if not np.any(over):
        return rows, False
    scale = np.where(over, bound / np.where(over, norms, 1.0), 1.0)
    return rows * scale[..., None], True


def bounded_transitions(
    traj: Trajectories, features: np.ndarray | None, bounds: SSPBounds, strict: bool = False
) -> FeatureTransitions:
    """``traj`` in feature space with SSP-LSTD's bounds enforced, as
    :class:`~privrl.core.algorithms.lstd.FeatureTransitions`.

    ``features``: the (N, d) feature matrix of integer states (rows of norm above
    ``feature_bound`` are scaled to it), or ``None`` with feature observations (m, H + 1, d)
    (each observation's features scaled to norm ``feature_bound``); trajectories longer than
    ``max_length`` are truncated to their first ``max_length`` transitions (and are then not
    terminated); rewards are clipped to ``[-reward_bound, reward_bound]``. Each enforcement
    warns (:class:`~privrl.core.validation.ClippedDataWarning`, naming the bound, never a
    statistic of the data) or, with ``strict=True``, raises a ``ValueError``."""
    if not isinstance(traj, Trajectories):
        raise ValueError(f"trajectories must be a privrl.Trajectories, got {type(traj).__name__}")
    f, big_l = bounds.feature_bound, bounds.max_length
    real = np.arange(traj.horizon + 1)[None, :] <= traj.lengths[:, None]
    if features is not None:
        phi = check_array(features, "features", ndim=2)
        if phi.shape[0] == 0 or phi.shape[1] == 0:
            raise ValueError(f"features must have at least one row and column, got {phi.shape}")
        obs = np.where(real, traj.state_indices(phi.shape[0]), 0)
        phi, clipped = _clip_norms(phi, f)
        if clipped:
            warn_or_refuse(
                f"features: rows of l2 norm above feature_bound = {f:g}, the bound "
                "the privacy analysis assumes",
                "scaled to it",
                strict,
            )
        obs_phi = phi[obs]
    else:
        if traj.observations.ndim != 3:
            raise ValueError(
                "features: give the (N, d) features of integer states, or "
                "observations of features of shape (m, H + 1, d)"
            )
        obs_phi = np.where(real[..., None], traj.observations.astype(float), 0.0)
        obs_phi, clipped = _clip_norms(obs_phi, f)
        if clipped:
            warn_or_refuse(
                f"observations: feature vectors of l2 norm above feature_bound = "
                f"{f:g}, the bound the privacy analysis assumes",
                "scaled to it",
                strict,
            )
    lengths, terminated = traj.lengths, traj.terminated
    if np.any(lengths > big_l):
        warn_or_refuse(
            f"trajectories: lengths above max_length = {big_l}, the bound the privacy "
            "analysis assumes",
            "truncated to it",
            strict,
        )
        terminated = terminated & (lengths <= big_l)
        lengths = np.minimum(lengths, big_l)
    horizon = min(traj.horizon, big_l)
    mask = np.arange(horizon)[None, :] < lengths[:, None]
    rewards = np.where(mask, traj.rewards[:, :horizon], 0.0)
    rewards = clip_to_bound(rewards, "rewards", -bounds.reward_bound, bounds.reward_bound, strict)
    return FeatureTransitions(obs_phi[:, : horizon + 1], rewards, lengths, terminated, bounds.gamma)


def trajectory_statistics(
    data: FeatureTransitions, index: slice | np.ndarray = slice(None)
) -> np.ndarray:
    r"""The contributions :math:`(\mathrm{vec}\,A_i, b_i)` (row-major ``vec``) of the
    trajectories ``index`` of ``data``, one row of :math:`d^2 + d` each."""
    part = data.subset(index)
    d = part.phi.shape[2]
    cur = part.phi[:, :-1] * part.mask[..., None]
    target = cur - part.gamma * part.next_features()
    # einsum rather than BLAS matmul: OpenBLAS threading is erratic on a loaded 2-core machine
    a_i = np.einsum("kti,ktj->kij", cur, target).reshape(part.n, d * d)
    b_i = np.einsum("kti,kt->ki", cur, part.rewards)
    return np.concatenate([a_i, b_i], axis=1)


def extremal_pair(bounds: SSPBounds, d: int) -> tuple[FeatureTransitions, FeatureTransitions]:
    r"""The pair of one-trajectory datasets of the module text whose contributions differ by
    :math:`\Delta_2/\sqrt 2` exactly (``d`` >= 2 features): a walk of :math:`L` transitions
    alternating between features :math:`\pm Fe_1`, rewards :math:`\pm R` in step, never
    terminated, against the same walk along :math:`e_2`."""
    d = check_int(d, "d", minimum=2)
    big_l, f, r = bounds.max_length, bounds.feature_bound, bounds.reward_bound
    sign = np.where(np.arange(big_l + 1) % 2 == 0, 1.0, -1.0)

    def walk(axis: int) -> FeatureTransitions:
        phi = np.zeros((1, big_l + 1, d))
        phi[0, :, axis] = f * sign
        return FeatureTransitions(
            phi, (r * sign[:-1])[None, :], np.array([big_l]), np.array([False]), bounds.gamma
        )

    return walk(0), walk(1)


def stack(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    r""":math:`(\mathrm{vec}\,A, b)`, ``vec`` row-major."""
    return np.concatenate([np.asarray(A).reshape(-1), np.asarray(b).reshape(-1)])


def unstack(vector: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of :func:`stack` for ``d`` features."""
    return vector[: d * d].reshape(d, d), vector[d * d :]


def _chunks(data: FeatureTransitions) -> list[slice]:
    d = data.phi.shape[2]
    size = max(1, _CHUNK // max(1, d * d + d + data.horizon * d))
    return [slice(lo, min(lo + size, data.n)) for lo in range(0, data.n, size)]


def sufficient_statistics(data: FeatureTransitions) -> tuple[np.ndarray, np.ndarray]:
    """:math:`(A, b)` summed in floating point (no noise, no grid): the non-private statistics."""
    d = data.phi.shape[2]
    total = sum(trajectory_statistics(data, c).sum(axis=0) for c in _chunks(data))
    return unstack(np.asarray(total), d)


def on_grid(rows: np.ndarray, step: float) -> np.ndarray:
    """Each trajectory's contribution (a row of :func:`trajectory_statistics`) rounded to the grid
    ``step``, in grid units (int64)."""
    return np.rint(np.asarray(rows) / step).astype(np.int64)


def grid_statistics(data: FeatureTransitions, step: float) -> np.ndarray:
    """The sum, exact in integers (int64), of every trajectory's contribution rounded to the grid
    ``step`` (a power of two), in grid units: replace-one moves it by the difference of two
    rounded contributions (module text)."""
    d = data.phi.shape[2]
    total = np.zeros(d * d + d, dtype=np.int64)
    for c in _chunks(data):
        total += on_grid(trajectory_statistics(data, c), step).sum(axis=0)
    return total


def _check_grid_room(bounds: SSPBounds, n: int, step: float) -> None:
    """Refuse (``ValueError`` naming ``trajectories``) ``n`` trajectories whose rounded sums
    could pass 2^52 grid units whatever the data (a public check: ``n`` and the bounds)."""
    per = bounds.sensitivity / 2.0 / step + 1.0  # a contribution's coordinates, in grid units
    if n * per > _GRID_LIMIT:
        raise ValueError(
            f"trajectories: {n} trajectories could sum beyond 2^52 grid units of "
            f"{step:.6g}; release fewer at once"
        )


def ssp_noise(
    z: float, bounds: SSPBounds, d: int, step: float | None = None, relation: str = "replace-one"
) -> tuple[GridGaussian, DpAccountingEvent]:
    r"""The grid Gaussian noise of SSP-LSTD for ``d`` features (:math:`d^2 + d` coordinates) at
    noise multiplier at least ``z`` for :attr:`SSPBounds.sensitivity`
    (:meth:`GridGaussian.for_multiplier`), and its event: dp-accounting's
    ``GaussianDpEvent(sqrt(s) / G)`` under replace-one, accounted by RDP
    (:func:`~privrl.core.accounting.discrete_gaussian.discrete_gaussian_event`)."""
    d = check_int(d, "features", minimum=1)
    coordinates = d * d + d
    noise = GridGaussian.for_multiplier(
        check_positive(z, "z"), bounds.sensitivity, coordinates, step, "features"
    )
    event = discrete_gaussian_event(
        noise.variance, bounds.sensitivity, coordinates, noise.step, relation
    )
    return noise, event


def noisy_statistics(
    grid: np.ndarray, n: int, bounds: SSPBounds, noise: GridGaussian, rng: SeedLike
) -> np.ndarray:
    """The release :math:`(\\mathrm{vec}\\,\\tilde A, \\tilde b)`: ``grid``, the exact grid sums
    (:func:`grid_statistics`) of ``n`` trajectories whose bounds are enforced, in the value's
    units with ``noise`` added on its grid (exact: the sums stay below 2^52 grid units, checked
    from ``n`` and ``bounds``)."""
    _check_grid_room(bounds, n, noise.step)
    return noise.add(np.asarray(grid).astype(float) * noise.step, rng)


def solve(A: np.ndarray, b: np.ndarray, lam: float) -> np.ndarray:
    r""":math:`(A + \lambda I)^{-1}b` (least squares if that matrix is singular)."""
    lam = check_positive(lam, "lam")
    matrix = A + lam * np.eye(A.shape[0])
    try:
        return np.linalg.solve(matrix, b)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(matrix, b, rcond=None)[0]


@dataclass(frozen=True)
class SSPEstimate:
    r"""One SSP-LSTD run: ``theta`` :math:`= (\tilde A + \lambda I)^{-1}\tilde b` from the noisy
    statistics ``A``, ``b`` (every one a multiple of the noise's grid step)."""

    theta: np.ndarray
    A: np.ndarray
    b: np.ndarray


def ssp_lstd(
    data: FeatureTransitions, bounds: SSPBounds, noise: GridGaussian, lam: float, rng: SeedLike
) -> SSPEstimate:
    """SSP-LSTD on ``data`` whose bounds are already enforced (:func:`bounded_transitions`):
    the rounded contributions summed exactly (:func:`grid_statistics`), exact discrete Gaussian
    ``noise`` added on its grid, the noisy system solved with ridge ``lam`` (post-processing).
    Private as :func:`ssp_noise`'s event states when ``noise`` is its noise for ``bounds``."""
    if not isinstance(data, FeatureTransitions):
        raise ValueError("data must be a FeatureTransitions")
    lam = check_positive(lam, "lam")
    d = data.phi.shape[2]
    noisy = noisy_statistics(grid_statistics(data, noise.step), data.n, bounds, noise, rng)
    A, b = unstack(noisy, d)
    return SSPEstimate(solve(A, b, lam), A, b)
