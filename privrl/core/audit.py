r"""Black-box privacy audits: an empirical lower bound on the epsilon of a release.

Method (Jagielski, Ullman, Oprea 2020 :cite:`jagielski2020`; Bichsel et al. 2021
:cite:`bichsel2021`; Steinke, Nasr, Jagielski 2023 :cite:`steinke2023`). If :math:`M` is
:math:`(\varepsilon, \delta)`-DP on the pair :math:`(X, X')`, every rejection region :math:`S`
with false positive rate :math:`\alpha = P(M(X)\in S)` and false negative rate
:math:`\beta = P(M(X') \notin S)` satisfies (Kairouz, Oh, Viswanath 2015)

.. math:: \alpha + e^\varepsilon \beta \ge 1 - \delta, \qquad \beta + e^\varepsilon \alpha \ge 1 - \delta,

so :math:`\varepsilon \ge \max\{\ln\tfrac{1 - \delta - \alpha}{\beta},
\ln\tfrac{1 - \delta - \beta}{\alpha}\}`. :func:`audit_release` runs the release ``n_samples``
times on each input, twice; scores every output (the log-likelihood ratio where known, else a
score fitted on the first half: ``"linear"`` or ``"quadratic"`` Fisher discriminant); chooses
threshold, side and inequality on the first half; and on the second bounds both rates by
two-sided 95% Clopper-Pearson intervals: the chosen inequality at their pessimistic ends holds
with probability at least 95%. ``interval = (epsilon_lower, epsilon_upper)`` spans the epsilons
consistent with the observed rates. An audit can only refute a claim (a lower bound above it);
a bound below proves nothing about other pairs, tests, or events rarer than ``1/n_samples``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.stats import beta as beta_dist

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
)

BatchRelease = Callable[[Any, int, np.random.Generator], np.ndarray]
"""``release(dataset, n, rng) -> outputs`` with one row per independent run (shape ``(n, ...)``)."""

Score = Callable[[np.ndarray], np.ndarray]
"""Map outputs ``(n, ...)`` to real scores ``(n,)`` (e.g. the log-likelihood ratio of X' to X)."""

#: The inequality each candidate of :func:`epsilon_candidates` tests, in its order
#: (S = {score > threshold}, the complement S^c).
REGIONS = (
    "P(X' in S) <= e^eps P(X in S) + delta",
    "P(X in S) <= e^eps P(X' in S) + delta",
    "P(X' in S^c) <= e^eps P(X in S^c) + delta",
    "P(X in S^c) <= e^eps P(X' in S^c) + delta",
)

#: Number of candidate thresholds (score quantiles, geometric towards both tails) tried on the
#: selection half.
N_THRESHOLDS = 512


@dataclass(frozen=True)
class AuditResult:
    """One audit: the claim, the audited lower bound and how it was obtained.

    ``epsilon_lower`` holds with probability >= ``confidence``; ``epsilon_estimate`` uses the
    empirical rates; ``epsilon_upper`` the optimistic interval ends. ``exact_epsilon`` is the
    worst-case log-likelihood ratio where it is known in closed form (``nan`` otherwise).
    """

    release: str
    claimed_epsilon: float
    delta: float
    epsilon_lower: float
    epsilon_estimate: float
    epsilon_upper: float
    n_samples: int
    statistic: str
    threshold: float
    region: str
    rate_x: float
    rate_x_prime: float
    confidence: float
    exact_epsilon: float = math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return (self.epsilon_lower, self.epsilon_upper)

    def row(self) -> dict[str, Any]:
        """A flat dict for a results table."""
        return asdict(self)


def clopper_pearson_bounds(
    k: np.ndarray | int, n: int, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper-Pearson interval of ``k`` successes in ``n`` trials (vectorised)."""
    k = np.asarray(k, dtype=float)
    a = (1.0 - confidence) / 2.0
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta_dist.ppf(a, k, n - k + 1), 0.0)
        hi = np.where(k < n, beta_dist.ppf(1 - a, k + 1, n - k), 1.0)
    return lo, hi


def epsilon_candidates(
    p_x: np.ndarray | float,
    p_xp: np.ndarray | float,
    q_x: np.ndarray | float,
    q_xp: np.ndarray | float,
    delta: float,
) -> np.ndarray:
    r"""The four epsilons forced by the DP inequalities on a region ``S`` and its complement,
    stacked on a new first axis (floored at 0).

    ``p_x, p_xp`` bound :math:`P(M(X)\in S), P(M(X')\in S)` from below and ``q_x, q_xp`` from
    above (pass the same arrays for a point estimate):
    :math:`\ln\frac{p_{X'} - \delta}{q_X}, \ln\frac{p_X - \delta}{q_{X'}},
    \ln\frac{1 - q_{X'} - \delta}{1 - p_X}, \ln\frac{1 - q_X - \delta}{1 - p_{X'}}`.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        cands = np.stack(
            [
                np.log(np.maximum(p_xp - delta, 0.0) / q_x),
                np.log(np.maximum(p_x - delta, 0.0) / q_xp),
                np.log(np.maximum(1.0 - q_xp - delta, 0.0) / (1.0 - p_x)),
                np.log(np.maximum(1.0 - q_x - delta, 0.0) / (1.0 - p_xp)),
            ]
        )
    return np.maximum(np.where(np.isnan(cands), -np.inf, cands), 0.0)


def epsilon_from_rates(
    p_x: np.ndarray, p_xp: np.ndarray, q_x: np.ndarray, q_xp: np.ndarray, delta: float
) -> np.ndarray:
    """Largest of the four :func:`epsilon_candidates`."""
    return epsilon_candidates(p_x, p_xp, q_x, q_xp, delta).max(axis=0)


def _region_counts(
    s_x: np.ndarray, s_xp: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of scores ``> t`` for every threshold (sorted search, vectorised)."""
    k_x = len(s_x) - np.searchsorted(np.sort(s_x), thresholds, side="right")
    k_xp = len(s_xp) - np.searchsorted(np.sort(s_xp), thresholds, side="right")
    return k_x, k_xp


def lower_bound_candidates(
    k_x: np.ndarray, k_xp: np.ndarray, n: int, delta: float, confidence: float = 0.95
) -> np.ndarray:
    """The four candidate lower bounds (:func:`epsilon_candidates` at the pessimistic
    Clopper-Pearson ends) from the counts of outputs in ``S`` under X and X' (``n`` runs each)."""
    lo_x, hi_x = clopper_pearson_bounds(k_x, n, confidence)
    lo_xp, hi_xp = clopper_pearson_bounds(k_xp, n, confidence)
    return epsilon_candidates(lo_x, lo_xp, hi_x, hi_xp, delta)


def lower_bound_from_counts(
    k_x: np.ndarray, k_xp: np.ndarray, n: int, delta: float, confidence: float = 0.95
) -> np.ndarray:
    """Largest candidate lower bound (valid when the region and the inequality were chosen on
    other samples only up to the union over the four candidates: coverage 1 - 2(1 - confidence))."""
    return lower_bound_candidates(k_x, k_xp, n, delta, confidence).max(axis=0)


def _flatten(outputs: np.ndarray, n: int) -> np.ndarray:
    arr = np.asarray(outputs, dtype=float)
    if arr.shape[:1] != (n,):
        raise ValueError(f"release must return one row per run: expected {n} rows, got {arr.shape}")
    return arr.reshape(n, -1)


def fisher_score(train_x: np.ndarray, train_xp: np.ndarray, quadratic: bool = False) -> Score:
    """Fisher's linear discriminant fitted on the selection half (features: outputs, and their
    squares when ``quadratic``), standardised and ridge-regularised."""

    def features(z: np.ndarray) -> np.ndarray:
        z = z.reshape(len(z), -1)
        return np.concatenate([z, z**2], axis=1) if quadratic else z

    fx, fxp = features(train_x), features(train_xp)
    both = np.concatenate([fx, fxp])
    centre, scale = both.mean(0), both.std(0) + 1e-12
    zx, zxp = (fx - centre) / scale, (fxp - centre) / scale
    cov = 0.5 * (np.cov(zx, rowvar=False) + np.cov(zxp, rowvar=False))
    cov = np.atleast_2d(cov) + 1e-6 * np.eye(zx.shape[1])
    w = np.linalg.solve(cov, zxp.mean(0) - zx.mean(0))
    return lambda z: ((features(z) - centre) / scale) @ w


def draw(
    release: BatchRelease, dataset: Any, n: int, rng: np.random.Generator, batch_size: int
) -> np.ndarray:
    """``n`` end-to-end runs of ``release`` on ``dataset`` in batches of ``batch_size``."""
    parts = []
    done = 0
    while done < n:
        m = min(batch_size, n - done)
        parts.append(_flatten(release(dataset, m, rng), m))
        done += m
    return np.concatenate(parts)


def repeat(release_one: Callable[[Any, np.random.Generator], Any]) -> BatchRelease:
    """Batch a one-run release ``release_one(dataset, rng)`` by calling it ``n`` times."""

    def batched(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.stack([np.ravel(np.asarray(release_one(dataset, rng), float)) for _ in range(n)])

    return batched


class BatchedNormal:
    """A numpy Generator's ``normal`` that draws ``n`` at once: every draw of shape ``s`` comes back
    with shape ``(n, *s)``. Passed as the noise source of a release that draws its noise with one
    ``normal`` call (:func:`privrl.core.mechanisms.smooth_sensitivity.smooth_gaussian_release`), one
    run of the release code returns ``n`` independent releases (everything else in it is
    deterministic and computed once)."""

    def __init__(self, gen: np.random.Generator, n: int) -> None:
        self.gen, self.n = gen, n

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = ()) -> np.ndarray:
        return self.gen.normal(loc, scale, size=(self.n, *np.atleast_1d(size).astype(int)))


def audit_release(
    release: BatchRelease,
    dataset: Any,
    neighbour: Any,
    *,
    claimed_epsilon: float,
    delta: float,
    n_samples: int,
    rng: SeedLike,
    score: Score | str = "linear",
    name: str = "",
    batch_size: int = 100_000,
    confidence: float = 0.95,
    exact_epsilon: float = math.nan,
    resolution: float | None = None,
) -> AuditResult:
    """Audit ``release`` on the neighbouring pair ``(dataset, neighbour)`` (see the module text).

    ``n_samples`` runs per input and per half (``4 n_samples`` runs in all). ``score`` is a
    callable (e.g. the known log-likelihood ratio), ``"linear"`` or ``"quadratic"`` (fitted on the
    selection half). ``claimed_epsilon`` may be ``inf`` (a release with no guarantee).
    By default the scores of the raw released values are used as they are: the audit tests the
    release as it runs on IEEE doubles, where the last bits of a floating-point Laplace release
    ``centre + noise`` reveal the centre (Mironov 2012 :cite:`mironov2012`: the PGC Laplace audit
    of textbook floating-point noise finds epsilon >= 5 for a claim of 1 from the rounding pattern
    alone). ``resolution`` rounds scores to its multiples instead, auditing the mechanism as
    analysed in real arithmetic (a diagnosis only: it hides that leak).
    """
    claimed_epsilon = check_epsilon(claimed_epsilon, "claimed_epsilon", allow_inf=True)
    delta = check_delta(delta, allow_zero=True)
    n = check_int(n_samples, "n_samples", minimum=10)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    confidence = check_probability(confidence, "confidence", open_interval=True)
    if resolution is not None:
        resolution = check_positive(resolution, "resolution")
    gen = as_generator(rng)
    train_x = draw(release, dataset, n, gen, batch_size)
    train_xp = draw(release, neighbour, n, gen, batch_size)
    if callable(score):
        score_fn: Score = score
        statistic = getattr(score, "__doc__", None) or "given score"
        statistic = statistic.strip().splitlines()[0]
    elif score in ("linear", "quadratic"):
        score_fn = fisher_score(train_x, train_xp, quadratic=score == "quadratic")
        statistic = f"{score} Fisher discriminant fitted on the selection half"
    else:
        raise ValueError(f"score must be a callable, 'linear' or 'quadratic', got {score!r}")

    def scores(outputs: np.ndarray) -> np.ndarray:
        raw = np.asarray(score_fn(outputs), float)
        return raw if resolution is None else np.round(raw / resolution) * resolution

    s_x, s_xp = scores(train_x), scores(train_xp)
    pooled = np.concatenate([s_x, s_xp])
    tail = np.geomspace(1.0 / len(pooled), 0.5, N_THRESHOLDS // 2)
    levels = np.concatenate([tail, 1.0 - tail])  # dense in both tails, where the bound is made
    thresholds = np.unique(np.quantile(pooled, levels))
    k_x, k_xp = _region_counts(s_x, s_xp, thresholds)
    # selection: the threshold whose lower bound is largest on the selection half
    cands = lower_bound_candidates(k_x, k_xp, n, delta, confidence)  # (4, n_thresholds)
    which, best = np.unravel_index(int(np.argmax(cands)), cands.shape)
    t = float(thresholds[best])
    test_x = scores(draw(release, dataset, n, gen, batch_size))
    test_xp = scores(draw(release, neighbour, n, gen, batch_size))
    kx, kxp = int((test_x > t).sum()), int((test_xp > t).sum())
    lo_x, hi_x = clopper_pearson_bounds(kx, n, confidence)
    lo_xp, hi_xp = clopper_pearson_bounds(kxp, n, confidence)
    px, pxp = kx / n, kxp / n
    # only the inequality chosen on the selection half: one pessimistic end of each rate
    lower = float(epsilon_candidates(lo_x, lo_xp, hi_x, hi_xp, delta)[which])
    estimate = float(epsilon_candidates(np.float64(px), np.float64(pxp), px, pxp, delta)[which])
    upper = float(epsilon_candidates(hi_x, hi_xp, lo_x, lo_xp, delta)[which])
    return AuditResult(
        release=name,
        claimed_epsilon=claimed_epsilon,
        delta=delta,
        epsilon_lower=lower,
        epsilon_estimate=estimate,
        epsilon_upper=upper,
        n_samples=n,
        statistic=statistic,
        threshold=t,
        region=REGIONS[int(which)],
        rate_x=px,
        rate_x_prime=pxp,
        confidence=confidence,
        exact_epsilon=float(exact_epsilon),
    )
