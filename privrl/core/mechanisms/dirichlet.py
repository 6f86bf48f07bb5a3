r"""The Dirichlet mechanism on the :math:`\eta`-restricted simplex (Gohari et al. 2021, eq. 5).

For :math:`\eta > 0` and a policy :math:`\pi \in \Delta_{m,\eta} = \{x : \sum_i x_i = 1,\,
x_i \ge \eta\}` (eq. 1), the mechanism :math:`\mathrm{Dir}_k(\pi)` outputs :math:`x \in \Delta_m`
with density

.. math:: p_k(x \mid \pi) = \Gamma(k) \prod_{i=1}^m \frac{x_i^{k\pi_i - 1}}{\Gamma(k\pi_i)},

i.e. a Dirichlet distribution with concentration :math:`\alpha = k\pi`. Its mean is :math:`\pi`
and its concentration grows with :math:`k` (:math:`\mathrm{Var}\,x_i = \pi_i(1-\pi_i)/(k+1)`).

Sampling is :func:`privrl.core.rng.sample_dirichlet` (log-space Gamma draws, safe for
:math:`k \to 0`); the guarantee (Theorem 1) is computed in :mod:`privrl.core.accounting.dirichlet`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from privrl.core.accounting.dirichlet import check_eta
from privrl.core.rng import SeedLike, sample_dirichlet
from privrl.core.validation import check_array, check_positive, warn_or_refuse

SIMPLEX_TOL = 1e-6


def check_policy(
    policy: object, eta: float | None = None, name: str = "policy", tol: float = SIMPLEX_TOL
) -> np.ndarray:
    """Check that the last axis of ``policy`` lies on the simplex (with entries ``>= eta``).

    Returns a float64 array of the same shape. Raises ``ValueError`` on negative entries, rows not
    summing to one (within ``tol``) or entries below ``eta`` (when ``eta`` is given; exactly,
    with no tolerance: Theorem 1 assumes every entry at least ``eta``).
    """
    pi = check_array(policy, name, ndim=None)
    if pi.ndim == 0 or pi.shape[-1] < 2:
        raise ValueError(f"{name} must have at least 2 actions on its last axis, got {pi.shape}")
    m = pi.shape[-1]
    if np.any(pi < -tol):
        raise ValueError(f"{name} has negative entries: it is not on the simplex")
    if np.any(np.abs(pi.sum(axis=-1) - 1.0) > tol):
        raise ValueError(f"{name} rows must sum to 1 (the unit simplex), got sums off by > {tol}")
    if eta is not None:
        eta = check_eta(eta, m)
        if np.any(pi < eta):
            raise ValueError(
                f"{name} has entries below eta = {eta}: it is not in the eta-restricted simplex"
            )
    return pi


def project_to_restricted_simplex(rows: np.ndarray, eta: float) -> np.ndarray:
    r"""The Euclidean projection of each row (last axis) onto :math:`\Delta_{m,\eta}`:
    :math:`\eta + \max(\pi - \eta - \theta, 0)` with :math:`\theta` the threshold that makes
    the row sum to 1 (the simplex projection of Duchi et al. 2008 at total :math:`1 - m\eta`);
    every entry is at least ``eta``, exactly. 1-Lipschitz, so a teacher composed with it keeps
    its Lipschitz constant."""
    shape = rows.shape
    m = shape[-1]
    v = rows.reshape(-1, m) - eta
    u = -np.sort(-v, axis=1)
    cumulative = np.cumsum(u, axis=1) - (1.0 - m * eta)
    count = np.sum(u - cumulative / np.arange(1, m + 1) > 0, axis=1)
    theta = cumulative[np.arange(len(v)), count - 1] / count
    return (eta + np.maximum(v - theta[:, None], 0.0)).reshape(shape)


def into_restricted_simplex(
    policy: object, eta: float, strict: bool = False, name: str = "policy"
) -> np.ndarray:
    r"""``policy`` (on the simplex, :func:`check_policy`) if every entry is at least ``eta``;
    else its rows projected onto :math:`\Delta_{m,\eta}` (:func:`project_to_restricted_simplex`)
    with a warning (``strict``: a ``ValueError``) naming ``name``."""
    pi = check_policy(policy, name=name)
    eta = check_eta(eta, pi.shape[-1])
    rows = pi.reshape(-1, pi.shape[-1])
    low = np.any(rows < eta, axis=1)
    if not np.any(low):
        return pi
    warn_or_refuse(
        f"{name}: entries lie below eta = {eta:g}, outside the eta-restricted "
        "simplex Theorem 1 assumes",
        "projected onto it",
        strict,
    )
    return project_to_restricted_simplex(pi, eta)


def restrict_to_simplex(policy: np.ndarray, eta: float) -> np.ndarray:
    r"""Map a policy into :math:`\Delta_{m,\eta}` by mixing with the uniform policy:
    :math:`(1 - m\eta)\pi + \eta`.

    This is how a teacher with a softmax output guarantees the hypothesis of Theorem 1
    (:math:`f: \mathbb{R}^d \to \Delta_{m,\eta}`); it scales the Lipschitz constant by
    :math:`1 - m\eta`.
    """
    pi = check_policy(policy)
    eta = check_eta(eta, pi.shape[-1])
    return (1.0 - pi.shape[-1] * eta) * pi + eta


def dirichlet_mechanism(
    policy: object, k: float | np.ndarray, rng: SeedLike, eta: float | None = None
) -> np.ndarray:
    r"""Sample :math:`\mathrm{Dir}_k(\pi)` for every row of ``policy`` (vectorised).

    ``policy``: array (..., m) on the simplex (entries ``>= eta`` if ``eta`` is given); ``k``: a
    positive scalar or an array broadcastable to ``policy.shape[:-1]``, with ``k eta`` a
    positive double (Theorem 1's smallest Dirichlet parameter).
    """
    pi = check_policy(policy, eta)
    k_arr = check_array(k, "k", ndim=None)
    if np.any(k_arr <= 0):
        raise ValueError(f"k must be > 0, got {k}")
    if eta is not None and float(k_arr.min()) * eta == 0.0:
        raise ValueError(
            f"k, eta: the Dirichlet parameter k eta = {float(k_arr.min())!r} x "
            f"{eta!r} underflows to 0; give a larger k or eta"
        )
    try:
        rows = np.broadcast_shapes(k_arr.shape, pi.shape[:-1])
    except ValueError:
        raise ValueError(
            f"k of shape {k_arr.shape} does not broadcast to the policy's rows {pi.shape[:-1]}"
        ) from None
    if rows != pi.shape[:-1]:
        raise ValueError(f"k of shape {k_arr.shape} has more rows than the policy {pi.shape[:-1]}")
    return sample_dirichlet(k_arr[..., None] * pi, rng)


def dirichlet_log_density(x: object, policy: object, k: float) -> np.ndarray:
    r"""Log density of :math:`\mathrm{Dir}_k(\pi)` at ``x`` (eq. 18):
    :math:`\log\Gamma(k) + \sum_i (k\pi_i - 1)\log x_i - \sum_i \log\Gamma(k\pi_i)`.

    Broadcasts over leading axes of ``x`` and ``policy``; ``x`` must lie in the open simplex.
    """
    k = check_positive(k, "k")
    pi = check_policy(policy)
    z = check_policy(x, name="x")
    if np.any(z <= 0):
        raise ValueError("x must lie in the open simplex (all entries > 0)")
    alpha = k * pi
    return gammaln(k) + np.sum((alpha - 1.0) * np.log(z), axis=-1) - np.sum(gammaln(alpha), axis=-1)
