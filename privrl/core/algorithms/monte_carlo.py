r"""First-visit Monte Carlo policy evaluation with linear function approximation: LSW, LSL and
their differentially private versions DP-LSW, DP-LSL (Balle, Gomrokchi and Precup 2016).

:math:`m` trajectories, features :math:`\Phi \in \mathbb{R}^{N\times d}`, weights :math:`\rho`
(:math:`\Gamma = \mathrm{diag}(\rho)`), :math:`\bar F_{X,s}` the mean first-visit return of the
:math:`m_{X,s}` trajectories visiting :math:`s` (0 if none).

* LSW (eq. 3): :math:`\theta_X = (\Gamma^{1/2}\Phi)^+\Gamma^{1/2}\bar F_X`.
* LSL (eq. 7-8): :math:`\theta^\lambda_X = (\Phi^\top\Gamma_X\Phi + \frac{\lambda}{2m}I)^{-1}
  \Phi^\top\Gamma_X\bar F_X`, :math:`\Gamma_X = \mathrm{diag}(\rho_s m_{X,s}/m)`.
* DP-LSW (Algorithm 1): :math:`\theta_X + N(0,\sigma_X^2 I)`, :math:`\sigma_X = \alpha F_{max}
  \|(\Gamma^{1/2}\Phi)^+\|_2\sqrt{\Psi_\beta(X)}`.
* DP-LSL (Algorithm 2): :math:`\theta^\lambda_X + N(0,\sigma_X^2 I)`, :math:`\sigma_X =
  \frac{2\alpha F_{max}\|\Phi\|}{\lambda - \|\rho\|_\infty\|\Phi\|^2}\sqrt{\Psi^\lambda_\beta(X)}`.

Every return lies in the public :math:`[F_{low}, F_{low} + F_{max}]` with
:math:`-F_{max} \le F_{low} \le 0` (``return_low``, ``return_bound``; Lemma 1 (a) needs width
:math:`F_{max}` and 0 inside, the mean of an unvisited state), taken as one
:class:`SmoothGaussianBudget` with :math:`(\varepsilon, \delta)`. Features whose public bound on
a noise scale (:math:`\Psi_\beta(X) \le \sum_s\rho_s`) is not a positive double are refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privrl.core.accounting.smooth_sensitivity import (
    lsl_psi_bound,
    lsl_smooth_bound,
    lsw_smooth_bound,
    smooth_gaussian_constants,
)
from privrl.core.mechanisms.exact_gaussian import rounded_gaussian
from privrl.core.mechanisms.smooth_sensitivity import smooth_gaussian_release
from privrl.core.rng import SeedLike
from privrl.core.trajectories import Trajectories
from privrl.core.validation import (
    check_array,
    check_delta,
    check_epsilon,
    check_finite,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
    clip_to_bound,
)


@dataclass(frozen=True)
class FirstVisitReturns:
    """First-visit returns of a dataset: ``returns`` (m, N) (0 where unvisited), ``visited``
    (m, N) bool, ``counts`` :math:`m_{X,s}` (N,), ``means`` :math:`\\bar F_{X,s}` (N,)."""

    returns: np.ndarray
    visited: np.ndarray
    counts: np.ndarray
    means: np.ndarray

    @property
    def m(self) -> int:
        return int(self.returns.shape[0])

    @property
    def n_states(self) -> int:
        return int(self.returns.shape[1])


def first_visit_returns(traj: Trajectories, n_states: int, gamma: float) -> FirstVisitReturns:
    """Vectorised first-visit returns of integer-state trajectories.

    A state counts as visited at times ``t < length``; the final observation counts too when the
    trajectory ``terminated`` (an absorbing state, return 0), but not when it was truncated (its
    future rewards are unobserved).
    """
    if not isinstance(traj, Trajectories):
        raise ValueError("traj must be a privrl.core.trajectories.Trajectories")
    n = check_int(n_states, "n_states", minimum=1)
    gamma = check_probability(gamma, "gamma")
    obs = traj.state_indices(n)
    m, H = traj.n_trajectories, traj.horizon
    t = np.arange(H + 1)[None, :]
    L = traj.lengths[:, None]
    valid = (t < L) | ((t == L) & traj.terminated[:, None])
    # discounted returns by a backward sweep over time-major (contiguous) rows
    rewards = np.ascontiguousarray(np.where(traj.mask(), traj.rewards, 0.0).T)
    G = np.zeros((H + 1, m))
    for step in range(H - 1, -1, -1):
        np.multiply(G[step + 1], gamma, out=G[step])
        G[step] += rewards[step]
    G = G.T
    first = np.full((m, n), H + 1, dtype=np.int64)
    rows = np.broadcast_to(np.arange(m)[:, None], obs.shape)
    times = np.broadcast_to(t, obs.shape)
    np.minimum.at(first, (rows[valid], obs[valid]), times[valid])
    visited = first <= H
    returns = np.where(visited, np.take_along_axis(G, np.minimum(first, H), axis=1), 0.0)
    counts = visited.sum(axis=0)
    means = returns.sum(axis=0) / np.maximum(counts, 1)
    return FirstVisitReturns(returns=returns, visited=visited, counts=counts, means=means)


def _check_problem(
    fv: FirstVisitReturns, phi: object, rho: object
) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(fv, FirstVisitReturns):
        raise ValueError("fv must be a FirstVisitReturns (see first_visit_returns)")
    Phi = check_array(phi, "phi", ndim=2)
    if Phi.shape[0] != fv.n_states:
        raise ValueError(f"phi must have {fv.n_states} rows (one per state), got {Phi.shape[0]}")
    r = check_array(rho, "rho", shape=(fv.n_states,))
    if np.any(r < 0) or r.sum() <= 0:
        raise ValueError("rho must be non-negative and not all zero")
    return Phi, r


def lsw(fv: FirstVisitReturns, phi: object, rho: object) -> np.ndarray:
    r"""LSW solution :math:`(\Gamma^{1/2}\Phi)^+\Gamma^{1/2}\bar F_X` (minimum-norm if singular)."""
    Phi, r = _check_problem(fv, phi, rho)
    w = np.sqrt(r)
    return np.linalg.pinv(w[:, None] * Phi) @ (w * fv.means)


def lsl(fv: FirstVisitReturns, phi: object, rho: object, lam: float) -> np.ndarray:
    r"""LSL solution :math:`(\Phi^\top\Gamma_X\Phi + \frac{\lambda}{2m}I)^{-1}\Phi^\top\Gamma_X\bar F_X`."""
    Phi, r = _check_problem(fv, phi, rho)
    lam = check_positive(lam, "lam")
    gx = r * fv.counts / fv.m
    A = Phi.T @ (gx[:, None] * Phi) + lam / (2 * fv.m) * np.eye(Phi.shape[1])
    return np.linalg.solve(A, Phi.T @ (gx * fv.means))


def lsw_loss(fv: FirstVisitReturns, phi: object, rho: object, theta: object) -> float:
    r"""LSW empirical risk :math:`J_X(\theta) = \sum_s\rho_s(\bar F_{X,s} - \phi_s^\top\theta)^2`."""
    Phi, r = _check_problem(fv, phi, rho)
    th = check_array(theta, "theta", shape=(Phi.shape[1],))
    return float(r @ (fv.means - Phi @ th) ** 2)


def lsl_loss(fv: FirstVisitReturns, phi: object, rho: object, lam: float, theta: object) -> float:
    r"""LSL empirical risk :math:`\frac1m\sum_i\sum_{s\in x_i}\rho_s(F_{i,s}-\phi_s^\top\theta)^2
    + \frac{\lambda}{2m}\|\theta\|^2`."""
    Phi, r = _check_problem(fv, phi, rho)
    lam = check_nonnegative(lam, "lam")
    th = check_array(theta, "theta", shape=(Phi.shape[1],))
    resid = (fv.returns - (Phi @ th)[None, :]) ** 2 * fv.visited
    return float((resid @ r).sum() / fv.m + lam / (2 * fv.m) * th @ th)


def lsl_regularization(phi: object, rho: object, m: int, c: float, power: float = 0.4) -> float:
    r"""The authors' schedule :math:`\lambda = \|\Phi\|^2\|\rho\|_\infty + c\,m^{p}` [code], which
    keeps :math:`\lambda > \|\rho\|_\infty\|\Phi\|^2` as DP-LSL requires."""
    Phi = check_array(phi, "phi", ndim=2)
    r = check_array(rho, "rho", shape=(Phi.shape[0],))
    m = check_int(m, "m", minimum=1)
    c = check_positive(c, "c")
    power = check_nonnegative(power, "power")
    return float(np.linalg.norm(Phi, 2) ** 2 * r.max() + c * m**power)


@dataclass(frozen=True)
class SmoothGaussianBudget:
    r"""The release budget of the smooth-sensitivity Gaussian of DP-LSW and DP-LSL (Algorithms
    1-2): the target :math:`(\varepsilon, \delta)`, :math:`F_{max}` (``return_bound``), the
    public width of the interval :math:`[F_{low}, F_{low} + F_{max}]` holding every return, which
    scales the sensitivity, and its public lower end :math:`F_{low}` (``return_low``: 0 for
    non-negative rewards, :math:`-F_{max}` for non-positive ones; the interval must hold 0, the
    mean of an unvisited state, so :math:`-F_{max} \le F_{low} \le 0`). Validated once, here.

    :meth:`constants` gives Lemma 1's :math:`(\alpha, \beta)` for output dimension :math:`d`
    (:func:`~privrl.core.accounting.smooth_sensitivity.smooth_gaussian_constants`)."""

    epsilon: float
    delta: float
    return_bound: float
    return_low: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        self.constants(1)  # Lemma 1's own checks: finite epsilon > 0, delta in (0, 1)
        object.__setattr__(self, "return_bound", check_positive(self.return_bound, "return_bound"))
        object.__setattr__(self, "return_low", check_finite(self.return_low, "return_low"))
        if not -self.return_bound <= self.return_low <= 0.0:
            raise ValueError(
                f"return_low must lie in [-return_bound, 0] = [{-self.return_bound:g}, 0], got "
                f"{self.return_low:g}: an unvisited state's mean return is 0, so the interval "
                "[return_low, return_low + return_bound] must hold 0 for one trajectory to move "
                "a mean by at most return_bound (shift the rewards, or widen return_bound)"
            )

    @property
    def return_range(self) -> tuple[float, float]:
        """The interval :math:`[F_{low}, F_{low} + F_{max}]` every return must lie in, its upper
        end rounded down so that its width is at most :math:`F_{max}` on doubles."""
        low = self.return_low
        high = low + self.return_bound
        if Fraction(high) - Fraction(low) > Fraction(self.return_bound):
            high = math.nextafter(high, -math.inf)
        return low, high

    def constants(self, d: int) -> tuple[float, float]:
        """Lemma 1's ``(alpha, beta)`` for output dimension ``d``."""
        return smooth_gaussian_constants(self.epsilon, self.delta, d)

    def check_sums(self, m: int) -> None:
        """A ``ValueError`` naming ``return_bound`` when ``m`` returns of the interval could sum
        beyond a double (the mean returns would overflow for some datasets of ``m``
        trajectories: public, as ``m`` is under replace-one)."""
        largest = max(abs(self.return_low), abs(self.return_low + self.return_bound))
        if not math.isfinite(m * largest):
            raise ValueError(
                f"return_bound: {m} returns of up to {largest:.4g} could sum "
                "beyond a double; rescale the rewards"
            )


def _check_budget(budget: object) -> SmoothGaussianBudget:
    if not isinstance(budget, SmoothGaussianBudget):
        raise ValueError(f"budget must be a SmoothGaussianBudget, got {type(budget).__name__}")
    return budget


#: The smallest largest weight the noise scales accept: below it the weights' squares
#: (``||rho||_2`` in DP-LSL's bound) lose precision as subnormals and the scale comes out small.
MIN_WEIGHT = 1e-150


def _check_weights(rho: np.ndarray) -> None:
    if float(rho.max()) < MIN_WEIGHT:
        raise ValueError(
            f"weights (rho): the largest is {float(rho.max()):.4g}, below {MIN_WEIGHT:g}, "
            "where the noise scale loses precision; rescale them (DP-LSW depends on "
            "their ratios only; for DP-LSL rescale lam with them)"
        )


def _spectral_norm(matrix: np.ndarray, pseudo_inverse: bool = False) -> float:
    r""":math:`\|\cdot\|_2` of ``matrix`` (of its pseudo-inverse with ``pseudo_inverse``), NaN
    where numpy's SVD does not converge (entries near the smallest doubles) or overflows."""
    try:
        with np.errstate(all="ignore"):
            return float(np.linalg.norm(np.linalg.pinv(matrix) if pseudo_inverse else matrix, 2))
    except np.linalg.LinAlgError:
        return math.nan


def dp_lsw_sigma(counts: object, phi: object, rho: object, budget: SmoothGaussianBudget) -> float:
    r""":math:`\sigma_X = \alpha F_{max}\|(\Gamma^{1/2}\Phi)^+\|_2\sqrt{\Psi_\beta(X)}`
    (Algorithm 1). A ``ValueError`` names the features when its public bound (at
    :math:`\Psi_\beta(X) \le \sum_s\rho_s`) is not a positive double, before ``counts`` are
    read."""
    Phi = check_array(phi, "phi", ndim=2)
    r = check_array(rho, "rho", shape=(Phi.shape[0],))
    _check_weights(r)
    alpha, beta = _check_budget(budget).constants(Phi.shape[1])
    pinv_norm = _spectral_norm(np.sqrt(r)[:, None] * Phi, pseudo_inverse=True)
    reach = alpha * budget.return_bound * pinv_norm * math.sqrt(r.sum())  # Psi <= sum rho
    if not (pinv_norm > 0 and math.isfinite(reach)):
        raise ValueError(
            f"features (phi): DP-LSW's noise scale is proportional to "
            f"||(Gamma^1/2 features)^+||_2 = {pinv_norm:.4g} and could reach "
            f"{reach:.4g} with these features, weights and return_bound: not a "
            "positive double (features all zero, or too close to 0); rescale them"
        )
    psi = lsw_smooth_bound(counts, r, beta)
    return float(alpha * budget.return_bound * pinv_norm * np.sqrt(psi))


def dp_lsl_sigma(
    counts: object, m: int, phi: object, rho: object, lam: float, budget: SmoothGaussianBudget
) -> float:
    r""":math:`\sigma_X = \frac{2\alpha F_{max}\|\Phi\|}{\lambda-\|\rho\|_\infty\|\Phi\|^2}
    \sqrt{\Psi^\lambda_\beta(X)}` (Algorithm 2); needs :math:`\lambda > \|\rho\|_\infty\|\Phi\|^2`
    (a ``ValueError`` names ``lam``, or the features when that floor is not a double)."""
    Phi = check_array(phi, "phi", ndim=2)
    r = check_array(rho, "rho", shape=(Phi.shape[0],))
    lam = check_positive(lam, "lam")
    phi_norm = _spectral_norm(Phi)
    try:
        floor = r.max() * phi_norm**2
    except OverflowError:
        floor = math.inf
    if not math.isfinite(floor):
        raise ValueError(
            f"features (phi): DP-LSL needs ||weights||_inf ||features||_2^2, which "
            f"is not a double for ||features||_2 = {phi_norm:.4g}; rescale them"
        )
    if lam <= floor:
        raise ValueError(f"lam must exceed ||rho||_inf ||Phi||^2 = {floor:.4g}, got {lam}")
    _check_weights(r)
    m = check_int(m, "m", minimum=1)
    alpha, beta = _check_budget(budget).constants(Phi.shape[1])
    factor = 2 * alpha * budget.return_bound * phi_norm / (lam - floor)
    psi_max = lsl_psi_bound(m, r, phi_norm, lam)
    if not math.isfinite(factor * psi_max):  # Psi <= psi_max^2, the same for every dataset
        raise ValueError(
            f"return_bound, lam, features (phi): DP-LSL's noise scale could reach "
            f"{factor * psi_max:.4g}, beyond a double; rescale the rewards or "
            "features, or raise lam"
        )
    return float(factor * np.sqrt(lsl_smooth_bound(counts, m, r, phi_norm, lam, beta)))


@dataclass(frozen=True)
class PrivateEstimate:
    """A DP release ``theta`` with its non-private centre and the noise scale used."""

    theta: np.ndarray
    theta_nonprivate: np.ndarray
    sigma: float


def bounded_returns(
    fv: FirstVisitReturns, budget: SmoothGaussianBudget, strict: bool = False
) -> FirstVisitReturns:
    r"""``fv`` with every first-visit return clipped to the budget's
    :math:`[F_{low}, F_{low} + F_{max}]`, the interval the sensitivity analysis of DP-LSW and
    DP-LSL assumes (Section 3.1); ``fv`` itself when none lies outside. Clipping warns
    (:class:`~privrl.core.validation.ClippedDataWarning`), or raises a ``ValueError`` with
    ``strict=True``. Unvisited entries (stored as 0) are not returns and are left alone.
    Before any return is read, :meth:`SmoothGaussianBudget.check_sums` refuses a ``return_bound``
    whose sums over ``fv.m`` trajectories could leave the doubles (public under replace-one)."""
    if not isinstance(fv, FirstVisitReturns):
        raise ValueError("fv must be a FirstVisitReturns (see first_visit_returns)")
    _check_budget(budget).check_sums(fv.m)
    low, high = budget.return_range
    seen = fv.returns[fv.visited]
    kept = clip_to_bound(seen, "returns (return_bound, return_low)", low, high, strict)
    if kept is seen:
        return fv
    returns = np.zeros_like(fv.returns)
    returns[fv.visited] = kept
    means = returns.sum(axis=0) / np.maximum(fv.counts, 1)
    return FirstVisitReturns(returns=returns, visited=fv.visited, counts=fv.counts, means=means)


def _release(
    centre: np.ndarray, sigma: float, rng: SeedLike, noise_multiplier: float, exact: bool
) -> PrivateEstimate:
    """Release ``centre`` with the smooth-sensitivity Gaussian at ``sigma * noise_multiplier``:
    floating-point noise as in the paper (:func:`smooth_gaussian_release`), or with ``exact``
    each coordinate the double nearest to the real sum
    (:func:`~privrl.core.mechanisms.exact_gaussian.rounded_gaussian`, private on doubles)."""
    sigma *= check_positive(noise_multiplier, "noise_multiplier")
    release = rounded_gaussian if exact else smooth_gaussian_release
    return PrivateEstimate(release(centre, sigma, rng), centre, sigma)


def dp_lsw(
    fv: FirstVisitReturns,
    phi: object,
    rho: object,
    budget: SmoothGaussianBudget,
    rng: SeedLike,
    noise_multiplier: float = 1.0,
    strict: bool = False,
    exact: bool = False,
) -> PrivateEstimate:
    """DP-LSW (Algorithm 1) on the returns clipped to the budget's ``return_range``
    (:func:`bounded_returns`). ``noise_multiplier`` < 1 voids the guarantee (tests only);
    ``exact``: noise correctly rounded to doubles (the paper's: floating point)."""
    fv = bounded_returns(fv, budget, strict)
    Phi, r = _check_problem(fv, phi, rho)
    sigma = dp_lsw_sigma(fv.counts, Phi, r, budget)
    return _release(lsw(fv, Phi, r), sigma, rng, noise_multiplier, exact)


def dp_lsl(
    fv: FirstVisitReturns,
    phi: object,
    rho: object,
    lam: float,
    budget: SmoothGaussianBudget,
    rng: SeedLike,
    noise_multiplier: float = 1.0,
    strict: bool = False,
    exact: bool = False,
) -> PrivateEstimate:
    """DP-LSL (Algorithm 2) on the returns clipped to the budget's ``return_range``
    (:func:`bounded_returns`). ``noise_multiplier`` < 1 voids the guarantee (tests only);
    ``exact`` as :func:`dp_lsw`."""
    fv = bounded_returns(fv, budget, strict)
    Phi, r = _check_problem(fv, phi, rho)
    sigma = dp_lsl_sigma(fv.counts, fv.m, Phi, r, lam, budget)
    return _release(lsl(fv, Phi, r, lam), sigma, rng, noise_multiplier, exact)


def weighted_rmse(phi: object, theta: object, values: object, rho: object) -> float:
    r""":math:`\sqrt{\sum_s\rho_s(\phi_s^\top\theta - V_s)^2 / \sum_s\rho_s}`."""
    Phi = check_array(phi, "phi", ndim=2)
    th = check_array(theta, "theta", shape=(Phi.shape[1],))
    v = check_array(values, "values", shape=(Phi.shape[0],))
    r = check_array(rho, "rho", shape=(Phi.shape[0],))
    return float(np.sqrt(r @ (Phi @ th - v) ** 2 / r.sum()))
