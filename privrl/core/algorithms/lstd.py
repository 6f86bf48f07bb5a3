r"""LSTD, WIS-LSTD and the MSPBE from a model or from a large held-out sample.

* LSTD(0) (Bradtke and Barto 1996): solve :math:`\hat A\theta = \hat b` with
  :math:`\hat A = \sum_t \phi_t(\phi_t - \gamma\phi_{t+1})^\top`, :math:`\hat b = \sum_t r_t\phi_t`
  over all transitions (terminal transitions bootstrap from 0).
* WIS-LSTD (Mahmood, van Hasselt, Sutton 2014) with :math:`\lambda = 0`: the weighted-importance-
  sampling least-squares problem :math:`\min_\theta \sum_t \rho_t (r_t + \gamma\phi_{t+1}^\top\theta
  - \phi_t^\top\theta)^2`-style fixed point, i.e. :math:`\sum_t \rho_t\phi_t(\phi_t - \gamma\phi_{t+1})^\top
  \theta = \sum_t \rho_t r_t\phi_t`. For :math:`\lambda = 0` the WIS normalisation
  :math:`1/\sum_t\rho_t` cancels from the linear system (derived in the chapter), so WIS-LSTD(0) is
  the importance-weighted LSTD system (the one whose solution is also the GTD2 fixed point with
  transition weighting), unlike ordinary-IS LSTD, which weights only the target
  :math:`\sum_t\phi_t(\phi_t - \rho_t\gamma\phi_{t+1})^\top`.
* :func:`model_saddle_point`: exact :math:`A, b, M` of a finite MDP for a state weighting ``d``.
* :func:`sample_saddle_point`: :math:`A, b, M` estimated by per-transition averages over a (large,
  held-out) sample, used for the MSPBE where no model is available.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privrl.core.validation import check_array, check_nonnegative, check_positive

__all__ = [
    "FeatureTransitions",
    "check_transitions",
    "lstd",
    "wis_lstd",
    "model_saddle_point",
    "sample_saddle_point",
    "transition_sums",
]


def check_transitions(
    n: int,
    horizon: int,
    lengths: object,
    rewards: object,
    terminated: object,
    gamma: float,
    rho: object | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
    """Validate the per-transition arrays of ``n`` padded trajectories of horizon H.

    Returns ``(lengths, rewards, terminated, gamma, rho, mask)`` with ``rho`` defaulting to ones
    (on-policy) and ``mask[i, t]`` true for real transitions ``t < lengths[i]``.
    """
    lengths = check_array(lengths, "lengths", shape=(n,), dtype=int)
    if np.any(lengths < 1) or np.any(lengths > horizon):
        raise ValueError(
            "lengths: every trajectory needs at least one transition (two states) and at most H"
        )
    rewards = check_array(rewards, "rewards", shape=(n, horizon))
    terminated = np.asarray(terminated, dtype=bool)
    if terminated.shape != (n,):
        raise ValueError(f"terminated must have shape ({n},), got {terminated.shape}")
    gamma = check_nonnegative(gamma, "gamma")
    if gamma > 1:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    rho = np.ones((n, horizon)) if rho is None else check_array(rho, "rho", shape=(n, horizon))
    mask = np.arange(horizon)[None, :] < lengths[:, None]
    return lengths, rewards, terminated, gamma, rho, mask


@dataclass(frozen=True)
class FeatureTransitions:
    r"""``n`` padded trajectories in feature space, validated once.

    ``phi`` (n, H+1, d) features of the observations, ``rewards`` (n, H), ``lengths`` (n,)
    transitions per trajectory (1 <= L <= H), ``terminated`` (n,) whether the last transition
    ends the episode (it then bootstraps from a zero feature), ``rho`` (n, H) importance ratios
    :math:`\pi/\mu` (``None``: on-policy, all ones) and the discount ``gamma``.
    """

    phi: np.ndarray
    rewards: np.ndarray
    lengths: np.ndarray
    terminated: np.ndarray
    gamma: float
    rho: np.ndarray | None = None

    def __post_init__(self) -> None:
        phi = check_array(self.phi, "phi", ndim=3)
        if phi.shape[0] == 0:
            raise ValueError("phi: the dataset is empty (no trajectories)")
        n, h1, _ = phi.shape
        lengths, rewards, terminated, gamma, rho, _ = check_transitions(
            n, h1 - 1, self.lengths, self.rewards, self.terminated, self.gamma, self.rho
        )
        for name, value in (
            ("phi", phi),
            ("rewards", rewards),
            ("lengths", lengths),
            ("terminated", terminated),
            ("gamma", gamma),
        ):
            object.__setattr__(self, name, value)
        if self.rho is not None:
            object.__setattr__(self, "rho", rho)

    @property
    def n(self) -> int:
        return int(self.phi.shape[0])

    @property
    def horizon(self) -> int:
        return int(self.phi.shape[1] - 1)

    @property
    def mask(self) -> np.ndarray:
        """(n, H) true for real transitions ``t < lengths[i]``."""
        return np.arange(self.horizon)[None, :] < self.lengths[:, None]

    @property
    def weights(self) -> np.ndarray:
        """(n, H) importance ratios (ones on-policy)."""
        return np.ones(self.rewards.shape) if self.rho is None else self.rho

    def next_features(self) -> np.ndarray:
        r""":math:`\phi_{t+1}` (n, H, d) with the terminal transition's next feature set to 0."""
        nxt = self.phi[:, 1:].copy()
        ended = np.arange(self.n)[self.terminated]
        nxt[ended, self.lengths[self.terminated] - 1] = 0.0
        return nxt

    def subset(self, index: slice | np.ndarray) -> FeatureTransitions:
        """The trajectories ``index`` (a slice or integer array)."""
        return FeatureTransitions(
            self.phi[index],
            self.rewards[index],
            self.lengths[index],
            self.terminated[index],
            self.gamma,
            None if self.rho is None else self.rho[index],
        )


def transition_sums(data: FeatureTransitions) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    r"""Sums over all transitions of :math:`\rho\phi(\phi-\gamma\phi')^\top`, :math:`\rho r\phi`,
    :math:`\phi\phi^\top`, and the number of transitions."""
    if not isinstance(data, FeatureTransitions):
        raise ValueError("data must be a FeatureTransitions")
    d = data.phi.shape[2]
    mask = data.mask
    cur = np.ascontiguousarray(data.phi[:, :-1]).reshape(-1, d)
    nxt = data.next_features().reshape(-1, d)
    wgt = (data.weights * mask).reshape(-1)
    # einsum rather than BLAS matmul: OpenBLAS threading is erratic on a loaded 2-core machine
    A = np.einsum("ti,tj->ij", cur * wgt[:, None], cur - data.gamma * nxt)
    b = np.einsum("ti,t->i", cur, wgt * data.rewards.reshape(-1))
    M = np.einsum("ti,tj->ij", cur * mask.reshape(-1)[:, None], cur)
    return A, b, M, int(mask.sum())


def _solve(A: np.ndarray, b: np.ndarray, ridge: float) -> np.ndarray:
    d = A.shape[0]
    if ridge > 0:
        return np.linalg.solve(A + ridge * np.eye(d), b)
    return np.linalg.lstsq(A, b, rcond=None)[0]


def lstd(data: FeatureTransitions, ridge: float = 0.0) -> np.ndarray:
    """On-policy LSTD(0) solution (least-squares solution if the system is singular; optional
    ridge). Importance ratios in ``data`` are ignored (LSTD is on-policy)."""
    if not isinstance(data, FeatureTransitions):
        raise ValueError("data must be a FeatureTransitions")
    A, b, _, count = transition_sums(
        FeatureTransitions(data.phi, data.rewards, data.lengths, data.terminated, data.gamma)
    )
    return _solve(A / count, b / count, check_nonnegative(ridge, "ridge"))


def wis_lstd(data: FeatureTransitions, ridge: float = 0.0) -> np.ndarray:
    """WIS-LSTD(0) (Mahmood et al. 2014, lambda = 0), normalised by the sum of the ratios."""
    if not isinstance(data, FeatureTransitions) or data.rho is None:
        raise ValueError("data must be a FeatureTransitions with importance ratios rho")
    A, b, _, _ = transition_sums(data)
    total = check_positive(float(data.rho[data.mask].sum()), "sum of importance ratios")
    return _solve(A / total, b / total, check_nonnegative(ridge, "ridge"))


def sample_saddle_point(data: FeatureTransitions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-transition averages of A, b, M over a (large, held-out) sample."""
    A, b, M, count = transition_sums(data)
    return A / count, b / count, M / count


def model_saddle_point(
    P: np.ndarray, R: np.ndarray, Phi: np.ndarray, weights: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Exact on-policy :math:`A = \Phi^\top D (I - \gamma P)\Phi`, :math:`b = \Phi^\top D R`,
    :math:`M = \Phi^\top D \Phi` with :math:`D = \mathrm{diag}(\text{weights})` (normalised)."""
    P = check_array(P, "P", ndim=2)
    R = check_array(R, "R", ndim=1)
    Phi = check_array(Phi, "Phi", ndim=2)
    weights = check_array(weights, "weights", ndim=1)
    if np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError("weights must be nonnegative with a positive sum")
    D = weights / weights.sum()
    gamma = check_nonnegative(gamma, "gamma")
    A = Phi.T @ (D[:, None] * (Phi - gamma * P @ Phi))
    b = Phi.T @ (D * R)
    M = Phi.T @ (D[:, None] * Phi)
    return A, b, M
