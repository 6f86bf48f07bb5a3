r"""The Dirichlet mechanism on an :math:`L`-Lipschitz teacher (Gohari et al. 2021): its privacy.

Theorem 1: for :math:`f: \mathbb{R}^d \to \Delta_{m,\eta}` :math:`L`-Lipschitz, observations
:math:`b`-adjacent (:math:`\|X - X'\|_2 \le b`) and :math:`\tau > 0`, :math:`\mathrm{Dir}_k \circ f`
(a :class:`Theorem1Mechanism` :math:`(k, m, \eta, \tau)`; ledger event
:class:`DirichletMechanismEvent`) is :math:`(\varepsilon, \delta)`-DP with

* eq. (6): :math:`\delta = \mathbb{P}(\min_i X_i < \tau)`, :math:`X \sim \mathrm{Dir}(kv)` at the
  vertex :math:`v = (\eta, \dots, \eta, 1 - (m-1)\eta)`, bounded above rigorously by the union
  bound :math:`\sum_i I_\tau(kv_i, k(1-v_i))` (exact for m = 2, :math:`\tau < 1/2`;
  :func:`theorem1_delta_bound`, :func:`tau_for_delta_bound`), below by
  :func:`theorem1_delta_lower`, by Monte Carlo in :func:`theorem1_delta_mc`;
* eq. (12): :math:`\varepsilon = \sqrt{m} L b k \log(1/\tau) + (m-1)\log\Gamma(k\eta)
  + \log\Gamma(k(1-(m-1)\eta)) - m \log\Gamma(k/m)` (eqs. 19, 22-25).

Lemma 1 (eq. 14) as printed, radius :math:`\sqrt{\log(1/\beta)/(2(k+1))}`, is one coordinate's
one-sided tail, not the 2-norm's. Radii that hold: the union bound over coordinates
:math:`\sqrt{m \log(2m/\beta) / (2(k+1))}` (:func:`lemma1_union_radius`); sub-Gaussian with
:math:`\sigma^2 = 1/(4(k+1))` on the sum-zero subspace and Hsu, Kakade and Zhang (2012)
(:func:`lemma1_subgaussian_radius`); Monte Carlo (:func:`lemma1_mc_radius`, not a proof).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

import numpy as np
from scipy import integrate, stats
from scipy.special import gammaln

from privrl.core.accounting.beta_tail import beta_cdf_bounds
from privrl.core.accounting.composition import advanced_composition
from privrl.core.accounting.events import register_event
from privrl.core.rng import SeedLike, as_generator, sample_dirichlet
from privrl.core.validation import (
    check_array,
    check_delta,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)

SOFTMAX_LIPSCHITZ = 0.5
r"""2-norm Lipschitz constant of softmax: its Jacobian :math:`\mathrm{diag}(p) - pp^\top` is
symmetric PSD with Gershgorin rows :math:`2p_i(1-p_i) \le 1/2`; tight at :math:`p = (1/2, 1/2, 0,
\dots)`. (The often quoted constant 1 is valid but loose.)"""


def check_eta(eta: float, m: int) -> float:
    """Return ``eta`` after checking ``0 < eta < 1/m`` (otherwise the restricted simplex is a point
    or empty) and that the vertex ``1 - (m-1) eta`` (eq. 9) is below 1 on doubles."""
    eta = check_positive(eta, "eta")
    if not eta < 1.0 / m:
        raise ValueError(f"eta must lie in (0, 1/m) = (0, {1.0 / m:.6g}) for m = {m}, got {eta}")
    if 1.0 - (m - 1) * eta == 1.0:
        raise ValueError(
            f"eta = {eta!r} is so small that 1 - (m - 1) eta is 1 on doubles; give a larger eta"
        )
    return eta


@dataclass(frozen=True)
class Theorem1Mechanism:
    r"""The mechanism of Theorem 1 apart from its teacher: :math:`\mathrm{Dir}_k` (concentration
    ``k``) on policies of the :math:`\eta`-restricted simplex :math:`\Delta_{m,\eta}` (eq. 1)
    over ``m`` actions, with the threshold :math:`\tau` of eq. (6) (outputs in
    :math:`\Delta_{m,\tau}`). Checked once here: :math:`k > 0`, :math:`m \ge 2`,
    :math:`0 < \eta < 1/m` (:func:`check_eta`), :math:`k\eta > 0` on doubles,
    :math:`0 < \tau \le 1/m`.

    The functions of Theorem 1 below (eq. 6's delta, eq. 12's epsilon, the log-ratio search) take
    it; :attr:`DirichletMechanismEvent.mechanism` is the one of a ledger entry."""

    k: float
    m: int
    eta: float
    tau: float

    def __post_init__(self) -> None:
        m = check_int(self.m, "m", minimum=2)
        tau = check_positive(self.tau, "tau")
        if tau > 1.0 / m:
            raise ValueError(f"tau must lie in (0, 1/m] = (0, {1.0 / m:.6g}], got {tau}")
        object.__setattr__(self, "k", check_positive(self.k, "k"))
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "eta", check_eta(self.eta, m))
        object.__setattr__(self, "tau", tau)
        if self.k * self.eta == 0.0:
            raise ValueError(
                f"k, eta: the Dirichlet parameter k eta = {self.k!r} x {self.eta!r} "
                "underflows to 0; give a larger k or eta"
            )


def _unpack(mechanism: object) -> tuple[float, int, float, float]:
    """``(k, m, eta, tau)`` of a :class:`Theorem1Mechanism` (raises on anything else)."""
    if not isinstance(mechanism, Theorem1Mechanism):
        raise ValueError(f"mechanism must be a Theorem1Mechanism, got {type(mechanism).__name__}")
    return mechanism.k, mechanism.m, mechanism.eta, mechanism.tau


def vertex_policy(m: int, eta: float) -> np.ndarray:
    """The vertex ``(eta, ..., eta, 1 - (m-1) eta)`` of the eta-restricted simplex (eq. 9)."""
    m = check_int(m, "m", minimum=2)
    eta = check_eta(eta, m)
    v = np.full(m, eta)
    v[-1] = 1.0 - (m - 1) * eta
    return v


def gamma_terms(k: float, m: int, eta: float) -> float:
    r"""The data-independent part of eq. (12) (the bound (25)):
    :math:`(m-1)\log\Gamma(k\eta) + \log\Gamma(k(1-(m-1)\eta)) - m\log\Gamma(k/m)`."""
    k = check_positive(k, "k")
    m = check_int(m, "m", minimum=2)
    eta = check_eta(eta, m)
    return float((m - 1) * gammaln(k * eta) + gammaln(k * (1 - (m - 1) * eta)) - m * gammaln(k / m))


def theorem1_epsilon(mechanism: Theorem1Mechanism, lipschitz: float, b: float) -> float:
    r"""Epsilon of Theorem 1, eq. (12). ``lipschitz`` = L, ``b`` = adjacency radius."""
    k, m, eta, tau = _unpack(mechanism)
    lb = check_nonnegative(lipschitz, "lipschitz") * check_nonnegative(b, "b")
    return math.sqrt(m) * lb * k * math.log(1.0 / tau) + gamma_terms(k, m, eta)


@register_event
@dataclass(frozen=True)
class DirichletMechanismEvent:
    r"""One release of the Dirichlet mechanism :math:`\mathrm{Dir}_k \circ f` (Theorem 1): a policy
    :math:`f(X) \in \Delta_{m,\eta}` of an ``lipschitz``-Lipschitz teacher, perturbed at
    concentration ``k``, protecting observations ``b`` apart, with threshold ``tau``.

    :meth:`epsilon` is eq. (12) (:func:`theorem1_epsilon`). The :math:`\delta` the guarantee holds
    at is eq. (6) at ``tau``, a property of the event rather than a choice: :attr:`delta_bound`
    is its rigorous upper bound (:func:`theorem1_delta_bound`; exact for m = 2). At a ``delta``
    below that bound Theorem 1 gives no guarantee, so :meth:`epsilon` returns infinity there.
    Where only the product :math:`Lb` is stated, give it as ``lipschitz`` with ``b = 1``.
    """

    k: float
    m: int
    eta: float
    tau: float
    lipschitz: float
    b: float

    @property
    def mechanism(self) -> Theorem1Mechanism:
        """The Dirichlet mechanism of the release, without its teacher."""
        return Theorem1Mechanism(self.k, self.m, self.eta, self.tau)

    @property
    def delta_bound(self) -> float:
        """Rigorous upper bound on eq. (6) at ``tau`` (:func:`theorem1_delta_bound`)."""
        return theorem1_delta_bound(self.mechanism)

    def epsilon(self, delta: float) -> float:
        """Eq. (12) when ``delta`` is at least :attr:`delta_bound`, infinity otherwise."""
        delta = check_delta(delta, allow_zero=True)
        if delta < self.delta_bound:
            return math.inf
        return theorem1_epsilon(self.mechanism, self.lipschitz, self.b)

    def to_dp_event(self) -> NoReturn:
        """None: the Dirichlet mechanism has no dp-accounting event; raises ``NotImplementedError``."""
        raise NotImplementedError(
            "DirichletMechanismEvent: the Dirichlet mechanism has no dp-accounting event"
        )


def theorem1_log_ratio_sup(
    mechanism: Theorem1Mechanism, rho: float, rng: SeedLike, n_starts: int = 3, max_iter: int = 1500
) -> float:
    r"""Largest log-density ratio :math:`\log p_k(z\mid\pi) - \log p_k(z\mid\pi')` found by
    numerical maximisation over :math:`z \in \Delta_{m,\tau}` and :math:`\pi, \pi' \in
    \Delta_{m,\eta}` with :math:`\|\pi - \pi'\|_2 \le \rho` (Nelder-Mead from ``n_starts``
    random starts plus the vertex against its neighbour, through smooth parametrisations).

    An independent computation of the privacy loss outside Theorem 1's :math:`\delta` event, from
    the exact density (eq. 18), not from eq. (12): it is a *lower* estimate of the supremum, so it
    must not exceed eq. (12)'s :math:`\varepsilon` at :math:`\rho = Lb`."""
    from scipy.optimize import minimize
    from scipy.special import softmax

    k, m, eta, tau = _unpack(mechanism)
    rho = check_nonnegative(rho, "rho")
    gen = as_generator(rng)

    def log_density(z: np.ndarray, pi: np.ndarray) -> float:
        a = k * pi
        return float(gammaln(k) + np.sum((a - 1.0) * np.log(z)) - np.sum(gammaln(a)))

    def unpack(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pi = (1.0 - m * eta) * softmax(theta[:m]) + eta
        step = theta[m : 2 * m] - theta[m : 2 * m].mean()
        norm = float(np.linalg.norm(step))
        step = step / norm * rho / (1.0 + math.exp(-theta[2 * m])) if norm > 0 else step
        z = (1.0 - m * tau) * softmax(theta[2 * m + 1 :]) + tau
        return pi, pi + step, z

    def negative(theta: np.ndarray) -> float:
        pi, pi2, z = unpack(theta)
        if np.any(pi2 < eta):
            return 1e6
        return -(log_density(z, pi) - log_density(z, pi2))

    starts = [gen.normal(0.0, 2.0, 3 * m + 1) for _ in range(n_starts)]
    vertex = np.zeros(3 * m + 1)
    vertex[m - 1], vertex[m : 2 * m], vertex[2 * m + m] = 8.0, -1.0, 8.0
    vertex[2 * m - 1], vertex[2 * m] = 1.0, 5.0
    starts.append(vertex)
    best = min(
        minimize(negative, x0, method="Nelder-Mead", options={"maxiter": max_iter}).fun
        for x0 in starts
    )
    return float(-best)


def lipschitz_b_for_epsilon(epsilon: float, mechanism: Theorem1Mechanism) -> float:
    """Solve eq. (12) for the product ``L * b`` that gives ``epsilon`` (raises if none >= 0)."""
    k, m, eta, tau = _unpack(mechanism)
    epsilon = check_positive(epsilon, "epsilon")
    rest = epsilon - gamma_terms(k, m, eta)
    if rest < 0:
        raise ValueError(
            f"no L*b >= 0 gives epsilon = {epsilon}: the Gamma terms alone are {epsilon - rest:.4g}"
        )
    return rest / (math.sqrt(m) * k * math.log(1.0 / tau))


@dataclass(frozen=True)
class DeltaEstimate:
    """Monte Carlo estimate of eq. (6) with an exact one-sided Clopper-Pearson upper bound."""

    estimate: float
    upper: float
    confidence: float
    n_samples: int
    n_outside: int

    @classmethod
    def from_count(cls, n_outside: int, n_samples: int, confidence: float) -> DeltaEstimate:
        """The fraction ``n_outside / n_samples`` and its exact one-sided binomial
        (Clopper-Pearson) upper confidence bound at ``confidence`` (1 when every sample is out)."""
        upper = (
            1.0
            if n_outside == n_samples
            else float(stats.beta.ppf(confidence, n_outside + 1, n_samples - n_outside))
        )
        return cls(n_outside / n_samples, upper, confidence, n_samples, n_outside)


def theorem1_delta_mc(
    mechanism: Theorem1Mechanism, rng: SeedLike, n_samples: int = 100_000, confidence: float = 0.95
) -> DeltaEstimate:
    r"""Delta of eq. (6) by Monte Carlo: the fraction of :math:`\mathrm{Dir}_k(v)` samples with some
    coordinate below :math:`\tau`, and the exact binomial (Clopper-Pearson) upper confidence bound
    :math:`\bar\delta` with :math:`\mathbb{P}(\delta \le \bar\delta) \ge` ``confidence``."""
    k, m, eta, tau = _unpack(mechanism)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    confidence = check_probability(confidence, "confidence", open_interval=True)
    x = sample_dirichlet(np.broadcast_to(k * vertex_policy(m, eta), (n_samples, m)), rng)
    return DeltaEstimate.from_count(
        int(np.count_nonzero(x.min(axis=1) < tau)), n_samples, confidence
    )


def theorem1_delta_integral(mechanism: Theorem1Mechanism) -> float:
    r"""Delta of eq. (6) by numerical integration of the Dirichlet density over
    :math:`\Delta_{m,\tau}` (exact Beta CDF for m = 2, 2-d quadrature for m = 3)."""
    k, m, eta, tau = _unpack(mechanism)
    alpha = k * vertex_policy(m, eta)
    if m == 2:
        inside = stats.beta.cdf(1 - tau, alpha[0], alpha[1]) - stats.beta.cdf(
            tau, alpha[0], alpha[1]
        )
        return float(1.0 - inside)
    if m == 3:
        log_norm = gammaln(alpha.sum()) - gammaln(alpha).sum()

        def density(x2: float, x1: float) -> float:
            x3 = 1.0 - x1 - x2
            return math.exp(
                log_norm
                + (alpha[0] - 1) * math.log(x1)
                + (alpha[1] - 1) * math.log(x2)
                + (alpha[2] - 1) * math.log(x3)
            )

        inside, _ = integrate.dblquad(
            density, tau, 1 - 2 * tau, lambda x1: tau, lambda x1: 1 - tau - x1, epsabs=1e-11
        )
        return float(1.0 - inside)
    raise ValueError(f"numerical integration is implemented for m in (2, 3), got m = {m}")


def _coordinate_params(k: float, m: int, eta: float) -> list[tuple[float, float, int]]:
    """(a, b, multiplicity) of the Beta marginals of Dir(k v) at the vertex v: m - 1 coordinates
    Beta(k eta, k (1 - eta)) and one Beta(k (1 - (m-1) eta), k (m-1) eta)."""
    big = 1.0 - (m - 1) * eta
    return [(k * eta, k * (1.0 - eta), m - 1), (k * big, k * (1.0 - big), 1)]


def theorem1_delta_bound(mechanism: Theorem1Mechanism) -> float:
    r"""Rigorous upper bound on delta of eq. (6): :math:`\sum_i I_\tau(kv_i, k(1 - v_i))` at the
    vertex (union bound over coordinates, module docstring), exact for m = 2; each term from
    :func:`~privrl.core.accounting.beta_tail.beta_cdf_bounds`' upper bound, the sum rounded up;
    at most 1."""
    k, m, eta, tau = _unpack(mechanism)
    total = math.fsum(
        n * beta_cdf_bounds(a, b, tau)[1] for a, b, n in _coordinate_params(k, m, eta)
    )
    return min(1.0, math.nextafter(total, math.inf))


def theorem1_delta_lower(mechanism: Theorem1Mechanism) -> float:
    r"""Rigorous lower bound on delta of eq. (6): the larger of the largest single term
    :math:`\mathbb{P}(X_i < \tau)` and the second Bonferroni inequality :math:`\sum_i P_i -
    \sum_{i<j} P_{ij}`. The pairwise :math:`P_{ij} = \int_0^\tau f_{X_i}(x)\,
    I_{\tau/(1-x)}(a_j, a_0 - a_i - a_j)\,dx` (given :math:`X_i = x`, :math:`X_j/(1 - x)` is
    Beta) is computed by quadrature with its error estimate added; single terms are
    :func:`~privrl.core.accounting.beta_tail.beta_cdf_bounds`' lower bounds."""
    k, m, eta, tau = _unpack(mechanism)
    alpha = k * vertex_policy(m, eta)
    a0 = float(alpha.sum())

    singles = [beta_cdf_bounds(float(a), a0 - float(a), tau)[0] for a in alpha]
    pairs = 0.0  # for m = 2 the two events are disjoint (tau <= 1/2): no pairwise term
    for i in range(m if m > 2 else 0):
        for j in range(i + 1, m):
            ai, aj = float(alpha[i]), float(alpha[j])
            log_c = gammaln(a0) - gammaln(ai) - gammaln(a0 - ai) + ai * math.log(tau) - math.log(ai)

            def joint(u: float, ai: float = ai, aj: float = aj, log_c: float = log_c) -> float:
                # x = tau u^(1/ai) takes the x^(ai - 1) singularity of the Beta density out
                x = tau * u ** (1.0 / ai)
                return math.exp(log_c + (a0 - ai - 1.0) * math.log1p(-x)) * float(
                    stats.beta.cdf(tau / (1.0 - x), aj, a0 - ai - aj)
                )

            value, err = integrate.quad(joint, 0.0, 1.0, epsabs=1e-14, epsrel=1e-9, limit=200)
            pairs += value + 10.0 * err
    return max(max(singles), math.fsum(singles) - pairs, 0.0)


def tau_for_delta_bound(
    delta: float, k: float, m: int, eta: float, rel_tol: float = 1e-10
) -> float:
    r"""The largest :math:`\tau` (to relative ``rel_tol``) whose rigorous bound on eq. (6)
    (:func:`theorem1_delta_bound`) is at most ``delta``, by bisection on :math:`\log\tau` (the
    bound increases with :math:`\tau`); the returned :math:`\tau` itself satisfies the bound
    (``1/m`` when even that does)."""
    delta = check_delta(delta)
    k = check_positive(k, "k")
    m = check_int(m, "m", minimum=2)
    eta = check_eta(eta, m)

    def bound(tau: float) -> float:
        return theorem1_delta_bound(Theorem1Mechanism(k, m, eta, tau))

    hi = 1.0 / m
    if bound(hi) <= delta:
        return hi
    lo = hi
    while bound(lo) > delta:
        lo /= 16.0
        if lo < 1e-300:
            raise ValueError(f"no tau > 0 gives a delta bound <= {delta} at k = {k}, m = {m}")
    while hi / lo - 1.0 > rel_tol:
        mid = math.sqrt(lo * hi)
        if bound(mid) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


def lemma1_printed_radius(k: float, beta: float) -> float:
    r"""The radius of Lemma 1 as printed (eq. 14): :math:`\sqrt{\log(1/\beta)/(2(k+1))}`."""
    k = check_positive(k, "k")
    beta = check_probability(beta, "beta", open_interval=True)
    return math.sqrt(math.log(1.0 / beta) / (2.0 * (k + 1.0)))


def lemma1_union_radius(k: float, m: int, beta: float) -> float:
    r"""A 2-norm radius that holds: union bound over m coordinates of the two-sided sub-Gaussian
    tail :math:`2\exp(-2(k+1)t^2)` at :math:`t = r/\sqrt{m}`: :math:`r = \sqrt{m\log(2m/\beta) /
    (2(k+1))}`."""
    k = check_positive(k, "k")
    m = check_int(m, "m", minimum=2)
    beta = check_probability(beta, "beta", open_interval=True)
    return math.sqrt(m * math.log(2.0 * m / beta) / (2.0 * (k + 1.0)))


def lemma1_subgaussian_radius(k: float, m: int, beta: float) -> float:
    r"""Proven 2-norm radius (module docstring): :math:`\sigma\sqrt{d + 2\sqrt{d\log(1/\beta)} +
    2\log(1/\beta)}`, :math:`\sigma^2 = 1/(4(k+1))`, :math:`d = m - 1`."""
    k = check_positive(k, "k")
    m = check_int(m, "m", minimum=2)
    beta = check_probability(beta, "beta", open_interval=True)
    d, t = m - 1, math.log(1.0 / beta)
    return math.sqrt((d + 2.0 * math.sqrt(d * t) + 2.0 * t) / (4.0 * (k + 1.0)))


def quantile_upper_index(n: int, level: float, confidence: float) -> int:
    r"""Smallest 0-based index ``j`` with :math:`\mathbb{P}(X_{(j)} \ge q_{\rm level}) \ge`
    ``confidence`` for the order statistics of ``n`` i.i.d. draws (distribution-free: the number of
    draws below the quantile is Binomial(n, level))."""
    n = check_int(n, "n", minimum=1)
    j = int(stats.binom.ppf(confidence, n, level))
    if j >= n:
        raise ValueError(
            f"n = {n} draws are too few for a {confidence} bound on the {level} quantile"
        )
    return j


@functools.lru_cache(maxsize=4096)
def lemma1_mc_radius(
    k: float,
    m: int,
    beta: float,
    eta: float,
    n_samples: int = 10_000,
    n_policies: int = 8,
    confidence: float = 0.99,
    seed: int = 0,
) -> float:
    r"""Monte Carlo 2-norm radius: the largest, over the uniform policy, the vertex of
    :math:`\Delta_{m,\eta}` and ``n_policies`` policies drawn uniformly from it, of the
    ``confidence`` upper bound on the :math:`(1-\beta)` quantile of :math:`\|\mathrm{Dir}_k(\pi) -
    \pi\|_2` (:func:`quantile_upper_index`). Deterministic in its arguments (fixed ``seed``)."""
    k = check_positive(k, "k")
    m = check_int(m, "m", minimum=2)
    beta = check_probability(beta, "beta", open_interval=True)
    eta = check_eta(eta, m)
    rng = np.random.default_rng(seed)
    policies = np.vstack(
        [
            np.full(m, 1.0 / m),
            vertex_policy(m, eta),
            (1.0 - m * eta) * rng.dirichlet(np.ones(m), n_policies) + eta,
        ]
    )
    j = quantile_upper_index(n_samples, 1.0 - beta, confidence)
    x = sample_dirichlet(k * np.broadcast_to(policies, (n_samples, *policies.shape)), rng)
    dist = np.sort(np.linalg.norm(x - policies, axis=-1), axis=0)
    return float(dist[j].max())


def lemma1_radius(kind: str, k: float, m: int, beta: float, eta: float) -> float:
    """The radius of Lemma 1 a student uses: ``"printed"`` (eq. 14), ``"union"``,
    ``"subgaussian"`` (proven) or ``"mc"`` (Monte Carlo)."""
    if kind == "printed":
        return lemma1_printed_radius(k, beta)
    if kind == "union":
        return lemma1_union_radius(k, m, beta)
    if kind == "subgaussian":
        return lemma1_subgaussian_radius(k, m, beta)
    if kind == "mc":
        return lemma1_mc_radius(float(k), int(m), float(beta), float(eta))
    raise ValueError(f"radius must be one of {list(RADII)}, got {kind!r}")


RADII: tuple[str, ...] = ("printed", "union", "subgaussian", "mc")


def lemma1_tail_mc(
    policy: np.ndarray, k: float, radius: float, rng: SeedLike, n_samples: int = 100_000
) -> DeltaEstimate:
    """Monte Carlo of ``P(||Dir_k(pi) - pi||_2 >= radius)`` with a 95% Clopper-Pearson upper bound."""
    radius = check_positive(radius, "radius")
    k = check_positive(k, "k")
    pi = check_array(policy, "policy", ndim=1)
    x = sample_dirichlet(np.broadcast_to(k * pi, (n_samples, pi.shape[-1])), rng)
    n_out = int(np.count_nonzero(np.linalg.norm(x - pi, axis=1) >= radius))
    return DeltaEstimate.from_count(n_out, n_samples, 0.95)


def mlp_lipschitz_bound(
    weights: Sequence[np.ndarray],
    activation_constant: float = 1.0,
    output_constant: float = SOFTMAX_LIPSCHITZ,
    input_scale: float = 1.0,
) -> float:
    r"""Certified 2-norm Lipschitz upper bound of ``softmax(W_n act(... act(W_1 (s x))))``:
    :math:`c_{\rm out}\, c_{\rm act}^{n-1}\, s \prod_j \|W_j\|_2` (spectral norms; biases do not
    matter). ``activation_constant`` is 1 for tanh and ReLU; ``output_constant`` is softmax's 1/2
    (:data:`SOFTMAX_LIPSCHITZ`); ``input_scale`` is e.g. 1/255 when the adjacency is on raw RAM."""
    if len(weights) == 0:
        raise ValueError("weights must hold at least one matrix")
    mats = [check_array(w, f"weights[{j}]", ndim=2) for j, w in enumerate(weights)]
    norms = [float(np.linalg.norm(w, 2)) for w in mats]
    act = check_nonnegative(activation_constant, "activation_constant")
    out = check_nonnegative(output_constant, "output_constant")
    scale = check_nonnegative(input_scale, "input_scale")
    return out * act ** (len(weights) - 1) * scale * float(np.prod(norms))


def teacher_budget(
    epsilons: Sequence[float], deltas: Sequence[float], delta_slack: float = 1e-5
) -> dict[str, float]:
    r"""Total privacy of a run's queries. ``basic``: :math:`(\sum_t\varepsilon_t, \sum_t\delta_t)`
    (the paper's remark, heterogeneous form); ``advanced``: Dwork-Rothblum-Vadhan with the largest
    per-query :math:`\varepsilon` over the number of queries (a valid upper bound). Queries answered
    independently of the data (:math:`\varepsilon_t = 0`) are dropped. A query with
    :math:`\delta_t = 1` (tiny :math:`k`) makes the advanced bound vacuous: :math:`(\infty, 1)`."""
    eps = check_array(epsilons, "epsilons", ndim=1)
    dlt = check_array(deltas, "deltas", ndim=1)
    if eps.shape != dlt.shape:
        raise ValueError(
            f"epsilons and deltas must have equal length, got {len(eps)} and {len(dlt)}"
        )
    if np.any(eps < 0):
        raise ValueError("epsilons must be >= 0")
    if np.any((dlt < 0) | (dlt > 1)):
        raise ValueError("deltas must lie in [0, 1]")
    used = eps > 0
    n = int(used.sum())
    out = {"n_queries": float(n), "basic_epsilon": 0.0, "basic_delta": 0.0}
    out["advanced_epsilon"], out["advanced_delta"] = 0.0, 0.0
    if n:
        out["basic_epsilon"] = float(eps[used].sum())
        out["basic_delta"] = float(min(1.0, dlt[used].sum()))
        e_max, d_max = float(eps[used].max()), float(dlt[used].max())
        if d_max >= 1.0:  # some query has no guarantee at all (delta -> 1 as k -> 0)
            out["advanced_epsilon"], out["advanced_delta"] = math.inf, 1.0
        else:
            out["advanced_epsilon"], out["advanced_delta"] = advanced_composition(
                e_max, d_max, n, delta_slack
            )
    return out


@register_event
@dataclass(frozen=True)
class TeacherQueriesEvent:
    r"""A teacher's answers to queries on its data, query :math:`t` a Dirichlet release at
    concentration ``k[t]`` (Theorem 1, the same ``m``, ``eta``, ``tau``, ``lipschitz`` and ``b``),
    composed over the queries by ``composition`` (``"basic"`` or ``"advanced"``, with
    ``delta_slack``) as :func:`teacher_budget` does: the advanced bound takes the **largest**
    per-query epsilon, so unequal queries are never understated by their mean.

    :meth:`epsilon` is the composed epsilon when ``delta`` covers the composed delta (the
    per-query :math:`\delta_t` of eq. (6), :func:`theorem1_delta_bound`), infinity otherwise."""

    k: tuple[float, ...]
    m: int
    eta: float
    tau: float
    lipschitz: float
    b: float
    composition: str = "advanced"
    delta_slack: float = 1e-5

    def __post_init__(self) -> None:
        ks = tuple(float(check_positive(v, f"k[{i}]")) for i, v in enumerate(self.k))
        if not ks:
            raise ValueError("k: give the concentration of at least one query")
        if self.composition not in ("basic", "advanced"):
            raise ValueError(f"composition must be 'basic' or 'advanced', got {self.composition!r}")
        object.__setattr__(self, "k", ks)

    def budget(self) -> dict[str, float]:
        """:func:`teacher_budget` of the queries' per-query (epsilon, delta)."""
        events = [
            DirichletMechanismEvent(k, self.m, self.eta, self.tau, self.lipschitz, self.b)
            for k in self.k
        ]
        eps = [theorem1_epsilon(e.mechanism, e.lipschitz, e.b) for e in events]
        return teacher_budget(eps, [e.delta_bound for e in events], self.delta_slack)

    @property
    def delta_bound(self) -> float:
        """The composed delta the guarantee holds at."""
        return self.budget()[f"{self.composition}_delta"]

    def epsilon(self, delta: float) -> float:
        budget = self.budget()
        if check_probability(delta, "delta") < budget[f"{self.composition}_delta"]:
            return math.inf
        return budget[f"{self.composition}_epsilon"]

    def to_dp_event(self) -> NoReturn:
        """None: composed Dirichlet teacher answers have no dp-accounting event; raises ``NotImplementedError``."""
        raise NotImplementedError(
            "TeacherQueriesEvent: composed Dirichlet teacher answers have no dp-accounting event"
        )
