r"""Rigorous bounds on the regularised incomplete beta :math:`I_x(a, b) = \mathbb{P}(\mathrm{Beta}(a,
b) < x)`, the quantity behind the Dirichlet mechanism's delta (Gohari et al. 2021, eq. 6).

A positive series (DLMF 8.17.8 with the ratio of its terms):

.. math::

    I_x(a, b) = \frac{x^a (1-x)^b}{a B(a, b)} \sum_{n \ge 0} t_n, \qquad t_0 = 1, \qquad
    \frac{t_{n+1}}{t_n} = r_n = \frac{(a + b + n)\,x}{a + 1 + n}.

:math:`r_n` is monotone in :math:`n` with limit :math:`x < 1`, so once :math:`r_N < 1` the rest
after :math:`N` terms is at most :math:`t_N / (1 - \max(r_N, x))`: the partial sum is a lower
bound and the partial sum plus that tail an upper bound. The same series of
:math:`I_{1-x}(b, a) = 1 - I_x(a, b)` gives the bounds swapped; :func:`beta_cdf_bounds` sums
whichever needs fewer terms (counted beforehand in floating point, :func:`terms_needed`: the
direct series is slow for :math:`x` near 1, the other for :math:`x` near 0). Everything runs in
mpmath at :data:`DPS` digits (more if the complement cancels), the prefactor by log-gamma; the
bounds are widened by :data:`MARGIN` relative and rounded outwards to doubles. It ends within
:data:`MAX_TERMS` terms or raises a ``ValueError``.
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

from privrl.core.validation import check_positive, check_probability

#: Working precision (decimal digits) of the series and its prefactor.
DPS = 50
#: The series stops once its tail bound is below this fraction of the partial sum (at
#: :data:`DPS` digits; ten times :data:`DPS` fewer digits than the working precision at more).
TAIL_TOLERANCE = 1e-40
#: Relative widening of both bounds, far above the arithmetic's error at the working precision.
MARGIN = 1e-30
#: The most terms either series may take; beyond, a ``ValueError`` before any summing.
MAX_TERMS = 200_000
#: Bounds further apart than this, relative, are recomputed at twice the digits.
WIDTH = 1e-14

_CHUNK = 4096


def terms_needed(a: float, b: float, x: float) -> int:
    r"""About how many terms the series of :math:`I_x(a, b)` sums before its tail is below
    :data:`TAIL_TOLERANCE` of the sum (past the largest term, the log-terms have fallen by
    :math:`\log(1/\text{tolerance})` and the ratio is below 1), in floating point;
    ``MAX_TERMS + 1`` if more than :data:`MAX_TERMS`."""
    drop = -math.log(TAIL_TOLERANCE) + 5.0
    log_term, peak = 0.0, 0.0
    for start in range(0, MAX_TERMS, _CHUNK):
        n = np.arange(start, start + _CHUNK, dtype=float)
        log_ratio = np.log((a + b + n) * x) - np.log(a + 1.0 + n)
        logs = log_term + np.concatenate(([0.0], np.cumsum(log_ratio)[:-1]))
        peaks = np.maximum.accumulate(np.maximum(logs, peak))
        done = np.flatnonzero((logs < peaks - drop) & (log_ratio < 0.0))
        if done.size:
            return start + int(done[0]) + 1
        log_term, peak = logs[-1] + log_ratio[-1], float(peaks[-1])
    return MAX_TERMS + 1


def _series(
    a: mpmath.mpf, b: mpmath.mpf, x: mpmath.mpf, tolerance: mpmath.mpf
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Lower and upper bound on :math:`I_x(a, b)`, :math:`0 < x < 1`, from at most
    :data:`MAX_TERMS` terms (a ``ValueError`` beyond), the tail below ``tolerance`` of the sum."""
    log_prefactor = (
        a * mpmath.log(x)
        + b * mpmath.log1p(-x)
        - mpmath.log(a)
        - mpmath.loggamma(a)
        - mpmath.loggamma(b)
        + mpmath.loggamma(a + b)
    )
    total, term = mpmath.mpf(0), mpmath.mpf(1)
    for n in range(MAX_TERMS):
        total += term
        term *= (a + b + n) * x / (a + 1 + n)
        bound = max((a + b + n + 1) * x / (a + 2 + n), x)
        if bound < 1 and term <= tolerance * (1 - bound) * total:
            prefactor = mpmath.exp(log_prefactor)
            return prefactor * total, prefactor * (total + term / (1 - bound))
    raise ValueError(
        f"x = {float(x)!r}: the incomplete beta series of a = {float(a)!r}, "
        f"b = {float(b)!r} did not reach its tolerance in {MAX_TERMS} terms"
    )


def _down(value: mpmath.mpf) -> float:
    out = float(value)
    return math.nextafter(out, -math.inf) if mpmath.mpf(out) > value else out


def _up(value: mpmath.mpf) -> float:
    out = float(value)
    return math.nextafter(out, math.inf) if mpmath.mpf(out) < value else out


def _bounds(a: float, b: float, x: float, complement: bool, dps: int) -> tuple[float, float]:
    with mpmath.workdps(dps):
        ma, mb, mx = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(x)
        # a complement near 1 cancels: its tail must shrink with the digits, as its rounding does
        tolerance = mpmath.mpf(TAIL_TOLERANCE) * mpmath.mpf(10) ** (DPS - dps)
        if complement:
            low_c, high_c = _series(mb, ma, 1 - mx, tolerance)  # 1 - x is exact at these digits
            low, high = 1 - high_c, 1 - low_c
        else:
            low, high = _series(ma, mb, mx, tolerance)
        low, high = max(low * (1 - MARGIN), mpmath.mpf(0)), min(high * (1 + MARGIN), 1)
        return _down(low), _up(high)


@functools.lru_cache(maxsize=65536)
def beta_cdf_bounds(a: float, b: float, x: float) -> tuple[float, float]:
    r"""Doubles ``(lower, upper)`` with ``lower`` :math:`\le I_x(a, b) \le` ``upper``, both in
    [0, 1], a few units in the last place apart (wider only below about 1e-300). ``a``, ``b``
    positive and finite, ``x`` in [0, 1]; a ``ValueError`` names the argument otherwise, or says
    that both series would need more than :data:`MAX_TERMS` terms."""
    a, b = check_positive(a, "a"), check_positive(b, "b")
    x = check_probability(x, "x")
    if x == 0.0 or x == 1.0:
        return x, x
    direct, other = terms_needed(a, b, x), terms_needed(b, a, 1.0 - x)
    if min(direct, other) > MAX_TERMS:
        raise ValueError(
            f"x = {x!r}: I_x(a, b) at a = {a!r}, b = {b!r} needs more than "
            f"{MAX_TERMS} terms of either series"
        )
    complement = other < direct
    low, high = _bounds(a, b, x, complement, DPS)
    for dps in (2 * DPS, 4 * DPS):
        if high - low <= WIDTH * high or not complement:
            break
        try:
            low, high = _bounds(a, b, x, complement, dps)
        except ValueError:  # the longer series exceeds MAX_TERMS: keep the wider, valid bounds
            break
    return low, high


__all__ = ["beta_cdf_bounds", "terms_needed"]
