r"""Smooth-sensitivity Gaussian noise (Nissim et al. 2007) as used by Balle et al. (2016).

**Lemma 1.** The release :math:`\mu_X + N(0, \sigma_X^2 I_d)` is :math:`(\varepsilon, \delta)`-DP
with :math:`\alpha = 5\sqrt{2\ln(2/\delta)}/\varepsilon`,
:math:`\beta = \varepsilon/(4(d + \ln(2/\delta)))` if for all neighbours (a)
:math:`\|\mu_X - \mu_{X'}\|_2 \le \sigma_X / \alpha` and (b)
:math:`\sigma_X^2 \le e^{\beta} \sigma_{X'}^2`. [constants: code; statement: inferred]

**Lemma 4.** A local sensitivity bounded by :math:`g(\mathbf{m}_X)` of the visit counts, each
moved at most one by a trajectory, gives :math:`S(X) = \max_{k \ge 0} e^{-k\beta}
\max_{\|\mathbf{m}' - \mathbf{m}_X\|_\infty \le k} g(\mathbf{m}') \le e^{\beta} S(X')`. The two
smooth bounds (squared) [code]:

* DP-LSW: :math:`\Psi_\beta(X) = \max_{k} e^{-k\beta}\sum_s \rho_s / \max(m_{X,s} - k, 1)^2`;
* DP-LSL: :math:`\Psi^\lambda_\beta(X) = \max_{k \le m} e^{-k\beta}\psi_k(X)^2`,
  :math:`\psi_k(X) = \frac{\|\Phi\|\,\|\rho\|_\infty}{\sqrt{2\lambda}}
  \sqrt{\sum_s \rho_s \min(m_{X,s} + k, m)} + \|\rho\|_2`;

computed for all k in :math:`O(N K)` (``*_bruteforce``: Lemmas 5 and 9's check). :class:`SmoothGaussianEvent` keeps Lemma 1's (alpha, beta): the epsilon at any
delta (:func:`smooth_gaussian_epsilon`).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from privrl.core.accounting.events import register_event
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import (
    check_array,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
)


@functools.lru_cache(maxsize=256)
def lemma1_epsilon_limit(delta: float) -> float:
    r"""The epsilon above which Lemma 1 cannot hold at ``delta``.

    Two neighbours the lemma admits with equal :math:`\sigma` (condition (b) with equality) and
    means :math:`\sigma/\alpha` apart (condition (a) with equality) are two Gaussians whose exact
    privacy profile (Balle and Wang 2018) at :math:`\mu = 1/\alpha = \varepsilon / (5c)`,
    :math:`c = \sqrt{2\ln(2/\delta)}`, is

    .. math:: \delta(\varepsilon) = \Phi\Big(\frac{\varepsilon}{10c} - 5c\Big)
              - e^{\varepsilon}\,\Phi\Big(-\frac{\varepsilon}{10c} - 5c\Big);

    it increases with :math:`\varepsilon` from below ``delta``, and the limit is where it reaches
    ``delta`` (about 1,010 at :math:`10^{-5}`, 641 at :math:`10^{-3}`, 269 at 0.1). Above it
    the pair is told apart beyond the stated guarantee, so a release is refused there."""
    from scipy import optimize, special

    delta = check_delta(delta)
    c = math.sqrt(2.0 * math.log(2.0 / delta))

    def excess(eps: float) -> float:
        x = eps / (10.0 * c)
        first = special.log_ndtr(x - 5.0 * c)
        second = eps + special.log_ndtr(-x - 5.0 * c)
        profile = math.exp(first) * -math.expm1(second - first) if second < first else -1.0
        return profile - delta

    hi = 100.0 * c * c
    while excess(hi) <= 0.0:
        hi *= 2.0
    return float(optimize.brentq(excess, 1.0, hi, xtol=1e-9, rtol=1e-12))


def smooth_gaussian_constants(epsilon: float, delta: float, d: int) -> tuple[float, float]:
    r"""``(alpha, beta)`` of Lemma 1 for output dimension ``d``; refuses an ``epsilon`` at or
    above :func:`lemma1_epsilon_limit`, where the lemma cannot hold."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    d = check_int(d, "d", minimum=1)
    if epsilon >= lemma1_epsilon_limit(delta):
        raise ValueError(
            f"epsilon must lie below {lemma1_epsilon_limit(delta):.6g} at delta = "
            f"{delta:g}, where Lemma 1 can hold (got {epsilon:g}): above it two "
            "neighbours the lemma admits are told apart beyond (epsilon, delta)"
        )
    log_term = math.log(2.0 / delta)
    return 5.0 * math.sqrt(2.0 * log_term) / epsilon, epsilon / (4.0 * (d + log_term))


def smooth_gaussian_epsilon(alpha: float, beta: float, delta: float, d: int) -> float:
    r"""The smallest epsilon at which noise calibrated with ``(alpha, beta)`` meets Lemma 1 at
    ``delta`` in dimension ``d``: the inverse of :func:`smooth_gaussian_constants`.

    Conditions (a) and (b) of Lemma 1 met with ``alpha`` and ``beta`` imply them with any
    :math:`\alpha' \le \alpha` and :math:`\beta' \ge \beta`, so the release is
    :math:`(\varepsilon, \delta)`-DP as soon as :math:`5\sqrt{2\ln(2/\delta)}/\varepsilon \le
    \alpha` and :math:`\varepsilon/(4(d + \ln(2/\delta))) \ge \beta`, i.e.

    .. math:: \varepsilon(\delta) = \max\Big(\frac{5\sqrt{2\ln(2/\delta)}}{\alpha},\;
              4\beta\,(d + \ln(2/\delta))\Big).

    At the delta the constants were computed for, both terms equal the calibrated epsilon.
    """
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    delta = check_delta(delta)
    d = check_int(d, "d", minimum=1)
    log_term = math.log(2.0 / delta)
    return max(5.0 * math.sqrt(2.0 * log_term) / alpha, 4.0 * beta * (d + log_term))


def smooth_gaussian_tv_bound(alpha: float, beta: float, d: int) -> float:
    r"""Upper bound on the total variation distance between the releases of two neighbouring
    datasets that meet Lemma 1's conditions, both ways round: what the release is at delta = 0,
    :math:`(0, \mathrm{TV})`-DP.

    With :math:`r = \sigma_X^2/\sigma_Y^2 \in [e^{-\beta}, e^{\beta}]` (condition (b) for both
    orders) and :math:`\|\mu_X - \mu_Y\|_2 \le \sigma_Y/\alpha` (condition (a) for (Y, X)),

    .. math:: \mathrm{KL}(N(\mu_X, \sigma_X^2 I_d) \,\|\, N(\mu_Y, \sigma_Y^2 I_d))
              = \tfrac d2 (r - 1 - \ln r) + \frac{\|\mu_X - \mu_Y\|^2}{2\sigma_Y^2}
              \le \tfrac d2 (e^{\beta} - 1 - \beta) + \frac{1}{2\alpha^2},

    (:math:`r - 1 - \ln r` is largest at :math:`r = e^\beta` on the interval), and Pinsker's
    inequality gives :math:`\mathrm{TV} \le \sqrt{\mathrm{KL}/2}`.
    """
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    d = check_int(d, "d", minimum=1)
    kl = d / 2 * (math.expm1(beta) - beta) + 1 / (2 * alpha**2)
    return min(1.0, math.sqrt(kl / 2))


@register_event
@dataclass(frozen=True)
class SmoothGaussianEvent:
    r"""One release :math:`\mu_X + N(0, \sigma_X^2 I_d)` with :math:`\sigma_X` calibrated to a
    smooth sensitivity bound by Lemma 1 with constants ``alpha`` (the noise multiplier: sigma_X is
    alpha times the smooth bound) and ``beta`` (the smoothness of the bound), in dimension ``d``.

    Its epsilon is **by construction**: :meth:`epsilon` inverts the constants
    (:func:`smooth_gaussian_epsilon`), so it gives back the epsilon the noise was calibrated for;
    it is not an independent accounting of the mechanism. That the release meets Lemma 1's
    conditions (a) and (b) is what the chapter's checks test on neighbouring pairs. Build it with
    :meth:`calibrated`.
    """

    alpha: float
    beta: float
    d: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", check_positive(self.alpha, "alpha"))
        object.__setattr__(self, "beta", check_positive(self.beta, "beta"))
        object.__setattr__(self, "d", check_int(self.d, "d", minimum=1))

    @classmethod
    def calibrated(cls, epsilon: float, delta: float, d: int) -> SmoothGaussianEvent:
        """The event of a release calibrated for ``(epsilon, delta)`` in dimension ``d``."""
        alpha, beta = smooth_gaussian_constants(epsilon, delta, d)
        return cls(alpha, beta, d)

    def epsilon(self, delta: float) -> float:
        return smooth_gaussian_epsilon(self.alpha, self.beta, delta, self.d)

    def to_dp_event(self) -> NoReturn:
        """None: noise calibrated to a data-dependent smooth bound (Lemma 1) has no dp-accounting event; raises ``NotImplementedError``."""
        raise NotImplementedError(
            "SmoothGaussianEvent: noise calibrated to a data-dependent smooth bound (Lemma 1) has no dp-accounting event"
        )


def _check_counts(counts: object, name: str = "counts") -> np.ndarray:
    c = check_array(counts, name, ndim=1)
    if np.any(c < 0) or np.any(c != np.round(c)):
        raise ValueError(f"{name} must be non-negative integers")
    return c.astype(np.int64)


def _check_rho(rho: object, n: int) -> np.ndarray:
    r = check_array(rho, "rho", shape=(n,))
    if np.any(r < 0):
        raise ValueError("rho must be non-negative")
    return r


def _check_signature(counts: object, m: int, rho: object) -> tuple[np.ndarray, int, np.ndarray]:
    """Counts of a dataset of ``m`` trajectories (each <= m) and matching weights ``rho``."""
    c = _check_counts(counts)
    m = check_int(m, "m", minimum=1)
    if np.any(c > m):
        raise ValueError("counts cannot exceed the number of trajectories m")
    return c, m, _check_rho(rho, len(c))


def lsw_phi(counts: np.ndarray, rho: np.ndarray, k: np.ndarray | int) -> np.ndarray:
    r""":math:`\varphi_k = \sum_s \rho_s / \max(m_s - k, 1)^2` for every k in ``k`` (vectorised)."""
    k = np.atleast_1d(np.asarray(k))
    denom = np.maximum(counts[None, :] - k[:, None], 1).astype(float)
    return (rho[None, :] / denom**2).sum(axis=1)


def lsw_smooth_bound(counts: object, rho: object, beta: float) -> float:
    r""":math:`\Psi_\beta(X) = \max_{k=0..\max_s m_s} e^{-k\beta}\varphi_k(X)` (DP-LSW).

    Beyond :math:`k = \max_s m_s`, :math:`\varphi_k = \sum_s\rho_s` is constant while
    :math:`e^{-k\beta}` decreases, so the range is exhaustive. Between consecutive breakpoints
    :math:`k = m_s - 1` every term :math:`e^{-k\beta}\rho_s/\max(m_s-k,1)^2` is log-convex in
    :math:`k` (:math:`\partial_k^2[-k\beta - 2\ln(m_s-k)] = 2/(m_s-k)^2 > 0`, or log-linear once
    clamped), so their sum is convex there and its maximum sits at a breakpoint: only the
    :math:`\le N + 2` candidates :math:`\{0, \max_s m_s\}\cup\{m_s - 1\}` are evaluated,
    O(N^2) work whatever the counts (tests compare with the full range).
    """
    c = _check_counts(counts)
    r = _check_rho(rho, len(c))
    beta = check_positive(beta, "beta")
    k = np.unique(np.concatenate([[0, int(c.max())], np.maximum(c - 1, 0)]))
    return float(np.max(np.exp(-beta * k) * lsw_phi(c, r, k)))


def lsl_psi(
    counts: np.ndarray, m: int, rho: np.ndarray, phi_norm: float, lam: float, k: np.ndarray | int
) -> np.ndarray:
    r""":math:`\psi_k` of DP-LSL for every k in ``k`` (vectorised)."""
    k = np.atleast_1d(np.asarray(k))
    shifted = np.minimum(counts[None, :] + k[:, None], m)
    scale = phi_norm * rho.max() / math.sqrt(2.0 * lam)
    return scale * np.sqrt((rho[None, :] * shifted).sum(axis=1)) + np.linalg.norm(rho)


def lsl_psi_bound(m: int, rho: np.ndarray, phi_norm: float, lam: float) -> float:
    r"""The largest :math:`\psi_k(X)` over every dataset of ``m`` trajectories and every k:
    :math:`\psi_k` grows with the shifted counts :math:`\min(m_{X,s} + k, m) \le m`, so it is
    :math:`\psi_m` of the empty signature. A public bound: :math:`\Psi^\lambda_\beta(X) \le`
    its square."""
    return float(lsl_psi(np.zeros(len(rho), dtype=np.int64), m, rho, phi_norm, lam, m)[0])


def lsl_smooth_bound(
    counts: object, m: int, rho: object, phi_norm: float, lam: float, beta: float
) -> float:
    r""":math:`\Psi^\lambda_\beta(X) = \max_{k=0..m} e^{-k\beta}\psi_k(X)^2` (DP-LSL)."""
    c, m, r = _check_signature(counts, m, rho)
    phi_norm = check_positive(phi_norm, "phi_norm")
    lam = check_positive(lam, "lam")
    beta = check_positive(beta, "beta")
    k = np.arange(m + 1)
    return float(np.max(np.exp(-beta * k) * lsl_psi(c, m, r, phi_norm, lam, k) ** 2))


def _neighbourhood(counts: np.ndarray, k: int, m: int | None) -> np.ndarray:
    ranges = [
        range(max(c - k, 0), (c + k if m is None else min(c + k, m)) + 1) for c in counts.tolist()
    ]
    return np.array(list(itertools.product(*ranges)), dtype=np.int64)


def lsw_smooth_bound_bruteforce(counts: object, rho: object, beta: float, k_max: int) -> float:
    r"""Lemma 4 by enumeration: :math:`\max_{k \le k_{max}} e^{-k\beta}\max_{\|m'-m\|_\infty\le k}
    \varphi_0(m')`. Exponential in N: for tests with N <= 4 and small counts only."""
    c = _check_counts(counts)
    r = _check_rho(rho, len(c))
    beta = check_positive(beta, "beta")
    k_max = check_int(k_max, "k_max", minimum=0)
    best = 0.0
    for k in range(k_max + 1):
        # phi_0 of every count vector of the k-neighbourhood, written out (not via lsw_phi)
        local = float((r / np.maximum(_neighbourhood(c, k, None), 1) ** 2).sum(axis=1).max())
        best = max(best, math.exp(-k * beta) * local)
    return best


def lsl_smooth_bound_bruteforce(
    counts: object, m: int, rho: object, phi_norm: float, lam: float, beta: float
) -> float:
    r"""Lemma 4 by enumeration for DP-LSL (counts capped at m). Tiny N and m only."""
    c, m, r = _check_signature(counts, m, rho)
    best = 0.0
    for k in range(m + 1):
        # psi_0 of every count vector of the k-neighbourhood, written out (not via lsl_psi)
        psi = phi_norm * r.max() / math.sqrt(2 * lam) * np.sqrt(
            (r * _neighbourhood(c, k, m)).sum(axis=1)
        ) + np.linalg.norm(r)
        local = float((psi**2).max())
        best = max(best, math.exp(-k * beta) * local)
    return best


def lemma1_conditions(
    mu_x: object,
    mu_y: object,
    sigma_x: float,
    sigma_y: float,
    alpha: float,
    beta: float,
) -> tuple[bool, bool]:
    r"""Check Lemma 1's conditions for the ordered pair (X, Y):
    (a) :math:`\|\mu_X - \mu_Y\| \le \sigma_X/\alpha`, (b) :math:`\sigma_X^2 \le e^\beta\sigma_Y^2`."""
    mx = check_array(mu_x, "mu_x", ndim=1)
    my = check_array(mu_y, "mu_y", shape=mx.shape)
    sigma_x = check_positive(sigma_x, "sigma_x")
    sigma_y = check_positive(sigma_y, "sigma_y")
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    a = bool(np.linalg.norm(mx - my) <= sigma_x / alpha)
    b = bool(sigma_x**2 <= math.exp(beta) * sigma_y**2 * (1 + 1e-12))
    return a, b


def gaussian_hockey_stick_mc(
    mu_x: object,
    sigma_x: float,
    mu_y: object,
    sigma_y: float,
    epsilon: float,
    n_samples: int,
    rng: SeedLike,
) -> tuple[float, float]:
    r"""Monte Carlo estimate of :math:`\delta(\varepsilon) = \mathbb{E}_{Z\sim P}[(1 -
    e^{\varepsilon - L(Z)})_+]` for :math:`P = N(\mu_X, \sigma_X^2 I)`, :math:`Q = N(\mu_Y,
    \sigma_Y^2 I)` and privacy loss :math:`L = \ln(p/q)`; returns ``(estimate, standard_error)``.

    :math:`P` and :math:`Q` are :math:`(\varepsilon, \delta)`-indistinguishable in the direction
    P vs Q iff :math:`\delta(\varepsilon) \le \delta`.
    """
    mx = check_array(mu_x, "mu_x", ndim=1)
    my = check_array(mu_y, "mu_y", shape=mx.shape)
    sigma_x = check_positive(sigma_x, "sigma_x")
    sigma_y = check_positive(sigma_y, "sigma_y")
    epsilon = check_epsilon(epsilon)
    n = check_int(n_samples, "n_samples", minimum=2)
    d = mx.size
    z = mx[None, :] + sigma_x * as_generator(rng).standard_normal((n, d))
    loss = (
        d * math.log(sigma_y / sigma_x)
        - ((z - mx) ** 2).sum(1) / (2 * sigma_x**2)
        + ((z - my) ** 2).sum(1) / (2 * sigma_y**2)
    )
    vals = np.clip(1.0 - np.exp(np.minimum(epsilon - loss, 50.0)), 0.0, None)
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(n))
