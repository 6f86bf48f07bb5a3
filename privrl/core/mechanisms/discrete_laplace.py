r"""A Laplace mechanism that is private on IEEE doubles: discrete Laplace noise on a grid.

Floating-point Laplace noise is not private on a real computer (Mironov 2012). Here:

1. the input is rounded to the grid :math:`\text{step}\,\mathbb{Z}` (``step`` a power of two);
2. integer noise :math:`K`, :math:`P(K = k) \propto e^{-|k|/t}` (discrete Laplace of scale
   :math:`t`), is added to each coordinate, sampled exactly with integer arithmetic (Canonne,
   Kamath and Steinke 2020, Algorithms 1 and 2; or :func:`sample_discrete_laplace_inversion`:
   a fair sign and :math:`\lfloor -t \ln W \rfloor`, decided exactly on revealed bits of
   :math:`W`);
3. the output is :math:`\text{step}\,(\mathrm{round}(x/\text{step}) + K)`, exact while
   :math:`|\mathrm{round}(x/\text{step}) + K| < 2^{53}` (checked).

**Privacy.** Inputs with :math:`\|x - x'\|_1 \le \Delta` round to grid points at most
:math:`L = \lfloor \Delta/\text{step} \rfloor + d` apart, so the release is
:math:`\varepsilon`-DP with :math:`\varepsilon = L/t` (:func:`grid_epsilon`, exact rational
arithmetic in :mod:`privrl.core.accounting.laplace`). :func:`grid_scale` rounds
:math:`t = L/\varepsilon_{\rm target}` up to a dyadic rational, so the exact epsilon never exceeds
the target (noise scale :math:`t\,\text{step}`, about :math:`1 + d\,\text{step}/\Delta` times
the continuous :math:`\Delta/\varepsilon`: :func:`noise_inflation`).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numba
import numpy as np

from privrl.core.accounting.laplace import check_step, grid_laplace_epsilon, grid_sensitivity
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_epsilon, check_positive, clip_to_bound

#: Default grid step: 2^-30 (about 9.3e-10).
DEFAULT_STEP = 2.0**-30
#: Numerators of scales are kept below 2^55, so that ``numerator * K`` fits in int64 for K < 256,
#: and denominators at most 2^40, so that ``remainder * V`` fits for geometric counts V <= 2^20.
_MAX_NUMERATOR = 2**55
_MAX_DENOMINATOR_BITS = 40
_MAX_ROUNDS = 256
_MAX_GEOMETRIC = 2**20


@functools.lru_cache(maxsize=256)
def grid_scale(sensitivity: float, epsilon: float, d: int, step: float = DEFAULT_STEP) -> Fraction:
    """The discrete Laplace scale :math:`t \\ge L/\\varepsilon` (a dyadic rational with a
    numerator below 2^55) for an epsilon-DP release of a ``d``-vector of L1 sensitivity
    ``sensitivity`` on the grid ``step``."""
    epsilon = check_epsilon(epsilon)
    exact = Fraction(grid_sensitivity(sensitivity, d, step)) / Fraction(epsilon)
    k = 0
    while math.ceil(exact * 2 ** (k + 1)) < _MAX_NUMERATOR and k < _MAX_DENOMINATOR_BITS:
        k += 1
    return Fraction(math.ceil(exact * 2**k), 2**k)


def grid_epsilon(sensitivity: float, d: int, scale: Fraction, step: float = DEFAULT_STEP) -> float:
    """Exact epsilon :math:`L / t` of the grid release with discrete Laplace scale ``scale``:
    :func:`privrl.core.accounting.laplace.grid_laplace_epsilon`, on the default grid unless
    ``step`` is given."""
    return grid_laplace_epsilon(sensitivity, d, scale, step)


def noise_inflation(
    sensitivity: float, epsilon: float, d: int, step: float = DEFAULT_STEP
) -> float:
    """Ratio of the grid release's noise scale ``t * step`` to the continuous Laplace scale
    ``sensitivity / epsilon`` (the price of exactness; 1 + about ``d step / sensitivity``)."""
    t = grid_scale(sensitivity, epsilon, d, step)
    return float(t * Fraction(step) * Fraction(epsilon) / Fraction(sensitivity))


# --- the compiled exact sampler -----------------------------------------------------------------
# Randomness comes from ``Generator.random()``, which is ``k / 2^53`` for ``k`` uniform on
# ``{0, ..., 2^53 - 1}`` (53 uniform bits of the bit generator, exactly); every decision compares
# integers exactly (128-bit products from two 64-bit halves), so no rounding enters.

_TWO53 = 9007199254740992.0  # 2^53, exactly
_M32 = np.uint64(0xFFFFFFFF)
_M53 = np.uint64((1 << 53) - 1)


@numba.njit(cache=True)
def _bits53(gen: np.random.Generator) -> np.uint64:
    """53 uniform random bits: ``random() * 2^53`` is an integer, exactly."""
    return np.uint64(gen.random() * _TWO53)


@numba.njit(cache=True)
def _mul128(x: np.uint64, y: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The exact product ``x y`` of two unsigned 64-bit integers as (high, low) 64-bit words."""
    x_lo, x_hi = x & _M32, x >> np.uint64(32)
    y_lo, y_hi = y & _M32, y >> np.uint64(32)
    ll, lh, hl = x_lo * y_lo, x_lo * y_hi, x_hi * y_lo
    mid = (ll >> np.uint64(32)) + (lh & _M32) + (hl & _M32)
    low = (ll & _M32) | (mid << np.uint64(32))
    high = x_hi * y_hi + (lh >> np.uint64(32)) + (hl >> np.uint64(32)) + (mid >> np.uint64(32))
    return high, low


@numba.njit(cache=True)
def _bernoulli(numerator: int, denominator: int, gen: np.random.Generator) -> bool:
    """Exact Bernoulli(a/b), ``0 <= a <= b < 2^63``: whether a uniform real ``V`` in [0, 1),
    revealed 53 bits ``k`` at a time, lies below ``a/b``. With ``D = a 2^53 - k b`` (exact),
    ``V = (k + V')/2^53 < a/b`` iff ``V' b < D``: true if ``D >= b``, false if ``D <= 0``, else
    the same question for ``V' < D/b`` (probability below ``b/2^53`` of asking again)."""
    a, b = np.uint64(numerator), np.uint64(denominator)
    while True:
        if a == 0:
            return False
        if a >= b:
            return True
        k_high, k_low = _mul128(_bits53(gen), b)
        a_high, a_low = a >> np.uint64(11), a << np.uint64(53)
        if a_high < k_high or (a_high == k_high and a_low <= k_low):
            return False  # D <= 0
        d_low = a_low - k_low  # D mod 2^64 (unsigned, wraps)
        if a_high - k_high - np.uint64(a_low < k_low) > 0 or d_low >= b:
            return True  # D >= b
        a = d_low


@numba.njit(cache=True)
def _uniform_below(n: int, gen: np.random.Generator) -> int:
    """Exact uniform integer on ``{0, ..., n - 1}``, ``1 <= n < 2^63`` (Lemire 2019: the high
    word of ``r n`` for ``r`` uniform on 53 bits, or 64 bits when ``n > 2^53``, rejecting the
    ``2^w mod n`` values of ``r`` that would make some outcomes more likely)."""
    m = np.uint64(n)
    if n <= 1 << 53:
        reject = ((_M53 + np.uint64(1)) - m) % m  # 2^53 mod n
        while True:
            high, low = _mul128(_bits53(gen), m)
            if (low & _M53) >= reject:
                return int((high << np.uint64(11)) | (low >> np.uint64(53)))
    reject = (np.uint64(0) - m) % m  # 2^64 mod n
    while True:
        r = (_bits53(gen) << np.uint64(11)) | (_bits53(gen) & np.uint64(0x7FF))
        high, low = _mul128(r, m)
        if low >= reject:
            return int(high)


@numba.njit(cache=True)
def _bernoulli_exp(numerator: int, denominator: int, gen: np.random.Generator) -> bool:
    """Exact Bernoulli(exp(-numerator/denominator)) for ``0 <= numerator <= denominator``
    (CKS 2020, Algorithm 1): draw Bernoulli(gamma/k) for k = 1, 2, ... until one fails; the
    outcome is 1 when the number of draws is odd."""
    for k in range(1, _MAX_ROUNDS + 1):
        if not _bernoulli(numerator, denominator * k, gen):
            return k % 2 == 1
    raise RuntimeError(
        "Bernoulli(exp(-gamma)) sampler exceeded 256 rounds (probability below "
        "1/256!): no sample is returned rather than an inexact one"
    )


@numba.njit(cache=True)
def _sample(num: int, den: int, out: np.ndarray, gen: np.random.Generator) -> None:
    """Fill ``out`` with exact discrete Laplace integers of scale ``t = num/den`` (CKS 2020,
    Algorithm 2), one sample after the other: ``U`` uniform on ``{0, ..., num - 1}``, kept with
    probability ``exp(-U/num)``; ``V`` the number of successes of Bernoulli(exp(-1)) before the
    first failure; ``Y = floor((U + num V) / den)``, geometric with ratio ``exp(-1/t)``; a fair
    sign, rejecting ``-0``. Integer arithmetic only (``num < 2^55``, ``den <= 2^40``)."""
    q, r = num // den, num % den
    for i in range(out.size):
        while True:
            u = _uniform_below(num, gen)
            if not _bernoulli_exp(u, num, gen):
                continue
            v = 0
            while _bernoulli_exp(1, 1, gen):
                v += 1
                if v > _MAX_GEOMETRIC:
                    raise RuntimeError("geometric count above 2^20 (probability e^-1048576)")
            y = v * q + (u + r * v) // den  # floor((U + num V) / den) without overflow
            negative = _bits53(gen) >> np.uint64(52) == 1  # a fair bit
            if not (negative and y == 0):
                out[i] = -y if negative else y
                break


def sample_discrete_laplace(
    scale: Fraction, size: int | tuple[int, ...], rng: SeedLike
) -> np.ndarray:
    """Exact samples of the discrete Laplace distribution :math:`P(k) \\propto e^{-|k|/t}`,
    ``t = scale`` (CKS 2020, Algorithm 2), as an int64 array of shape ``size``.

    Compiled (numba), drawing from ``rng``'s own bit generator sample by sample; integer
    arithmetic only, so the distribution is exactly the discrete Laplace's."""
    if (
        not isinstance(scale, Fraction)
        or scale <= 0
        or scale.numerator >= _MAX_NUMERATOR
        or scale.denominator > 2**_MAX_DENOMINATOR_BITS
    ):
        raise ValueError(
            "scale must be a positive Fraction with numerator < 2^55 and denominator "
            f"<= 2^40 (grid_scale makes one), got {scale!r}"
        )
    gen = as_generator(rng)
    shape = (size,) if isinstance(size, int) else tuple(size)
    out = np.empty(math.prod(shape), dtype=np.int64)
    _sample(scale.numerator, scale.denominator, out, gen)
    return out.reshape(shape)


# --- the inversion sampler: one draw per sample, all drawn at once ---------------------------------
# ``Y = floor(-t ln W)`` for ``W`` uniform on (0, 1] is geometric with ratio ``q = e^{-1/t}``
# (``P(Y >= y) = P(W <= q^y) = q^y``). ``W`` is revealed 52 bits at a time; ``Y`` is returned
# only once it is the same for every ``W`` of the revealed cell, so every output is the floor for
# the true ``W``, exactly. Deciding that in floating point takes a margin ``(z + 1) 2^-44`` around
# ``z = -t ln W``, far above the error of the double ``log`` (below 2^-50 relative, tested in
# ``tests/core/test_discrete_laplace_inversion.py``); an undecided cell (probability about
# ``t 2^-43`` per sample) is refined in Python with mpmath at a precision 64 bits beyond the cell's.

_MARGIN = 2.0**-44


@numba.njit(cache=True)
def _decide_inversion(
    t: float,
    relative_margin: float,
    u: np.ndarray,
    logs: np.ndarray,
    out: np.ndarray,
    undecided: np.ndarray,
    rejected: np.ndarray,
) -> tuple[int, int]:
    """Sample ``i`` from its draw ``u[i] = k / 2^53`` (52 bits ``j`` of ``W``, the last bit the
    sign) and ``logs[i] = ln(j 2^-52)``: ``out[i]`` if ``floor(z)`` is the same over the cell
    within the margin; else ``i`` goes into ``undecided``, or into ``rejected`` for a ``-0``.
    Returns the numbers of undecided and rejected samples."""
    n_undecided = n_rejected = 0
    for i in range(out.size):
        k = np.uint64(u[i] * _TWO53)
        j = k >> np.uint64(1)  # W in [j 2^-52, (j + 1) 2^-52)
        if j > 0:
            high = -t * logs[i]  # z at the cell's low end of W
            margin = (high + 1.0) * relative_margin
            y = math.floor(high - t / float(j) - margin)  # -t ln((j + 1)/j) >= -t / j
            if y == math.floor(high + margin):
                negative = (k & np.uint64(1)) == 1
                if negative and y == 0:
                    rejected[n_rejected] = i
                    n_rejected += 1
                else:
                    out[i] = -y if negative else y
                continue
        undecided[n_undecided] = i
        n_undecided += 1
    return n_undecided, n_rejected


def _refine(scale: Fraction, draw: int, gen: np.random.Generator) -> int | None:
    """The signed sample of an undecided 53-bit ``draw`` (:func:`_decide_inversion`), or ``None``
    for ``-0`` (rejected): 53 more bits of ``W`` at a time from ``gen`` until ``floor(-t ln W)``
    is the same at both ends of the cell, evaluated by mpmath 64 bits beyond the cell's
    precision with a margin of ``2^-32`` of that precision."""
    w, bits = draw >> 1, 52
    while True:
        w, bits = (w << 53) | int(_bits53(gen)), bits + 53
        if w == 0:
            continue
        with mpmath.workprec(bits + 64):
            t = mpmath.mpf(scale.numerator) / scale.denominator
            high = -t * mpmath.log(mpmath.ldexp(w, -bits))
            low = -t * mpmath.log(mpmath.ldexp(w + 1, -bits))
            margin = (high + 1) * mpmath.ldexp(1, -bits - 32)
            y = int(mpmath.floor(high + margin))
            if y == int(mpmath.floor(low - margin)):
                return None if draw & 1 and y == 0 else (-y if draw & 1 else y)


def _fill_inversion(scale: Fraction, out: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Fill ``out`` by inversion: one 53-bit draw per sample (``Generator.random`` for all at
    once), ``ln W`` at the cells' low ends by numpy's ``log``, the decisions compiled
    (:func:`_decide_inversion`), the undecided cells refined by :func:`_refine` in index order.
    Returns the indices of the ``-0`` drawn, in order (rejected, to be drawn again)."""
    u = gen.random(out.size)
    logs = np.floor(u * 2.0**52)  # j
    logs *= 2.0**-52  # j 2^-52, exactly
    with np.errstate(divide="ignore"):  # j = 0: log 0 = -inf, undecided
        np.log(logs, out=logs)
    undecided, rejected = np.empty(out.size, np.int64), np.empty(out.size, np.int64)
    n_undecided, n_rejected = _decide_inversion(
        float(scale), _MARGIN, u, logs, out, undecided, rejected
    )
    again = rejected[:n_rejected].tolist()
    for i in undecided[:n_undecided].tolist():
        y = _refine(scale, int(u[i] * _TWO53), gen)
        if y is None:
            again.append(i)
        else:
            out[i] = y
    return np.array(sorted(again), dtype=np.int64)


def sample_discrete_laplace_inversion(
    scale: Fraction, size: int | tuple[int, ...], rng: SeedLike
) -> np.ndarray:
    """Exact samples of the discrete Laplace distribution of scale ``t = scale`` (the law of
    :func:`sample_discrete_laplace`, from another use of the random stream) as an int64 array of
    shape ``size``: a fair sign and ``Y = floor(-t ln W)`` (geometric with ratio ``e^{-1/t}``),
    rejecting ``-0``; one 53-bit draw per sample but for the rare cells the double ``log``
    cannot decide (module comment above :func:`_decide_inversion`). Fast for scales well below
    2^40 grid units; towards 2^45 most cells are undecided and refined in Python."""
    if not isinstance(scale, Fraction) or scale <= 0:
        raise ValueError(f"scale must be a positive Fraction, got {scale!r}")
    gen = as_generator(rng)
    shape = (size,) if isinstance(size, int) else tuple(size)
    out = np.empty(math.prod(shape), dtype=np.int64)
    again = _fill_inversion(scale, out, gen)
    while again.size:  # the -0 of undecided cells, rejected: drawn again
        part = np.empty(again.size, dtype=np.int64)
        rejected = _fill_inversion(scale, part, gen)
        out[again] = part
        again = again[rejected]
    return out.reshape(shape)


#: Rounded values are clamped to this many grid steps either side of 0 (:func:`grid_centre`).
CENTRE_LIMIT = 2**52
#: The largest noise scale in grid steps :func:`check_scale` accepts: noise beyond
#: :data:`CENTRE_LIMIT` steps then has probability below :math:`e^{-2^{52}/2^{45}} = e^{-128}`.
MAX_SCALE = 2**45


def check_scale(scale: Fraction, step: float) -> Fraction:
    """``scale`` (grid steps) if at most :data:`MAX_SCALE`; else a ``ValueError`` naming ``step``,
    before any draw (the parameters are public)."""
    if scale > MAX_SCALE:
        log2_t = math.log2(scale.numerator) - math.log2(scale.denominator)
        raise ValueError(
            f"step: the noise scale is 2^{log2_t:.1f} steps of {step:g} "
            "(sensitivity / epsilon in steps), so the noise could leave the exact "
            "range of 2^53 steps; choose a larger step (or a larger epsilon, a "
            "smaller sensitivity)"
        )
    return scale


def bounded_noise(
    scale: Fraction, shape: tuple[int, ...], rng: SeedLike, inversion: bool = False
) -> np.ndarray:
    """Exact discrete Laplace integers of ``scale`` steps (:func:`sample_discrete_laplace`, or
    :func:`sample_discrete_laplace_inversion` with ``inversion``: the same law), each
    below :data:`CENTRE_LIMIT` in absolute value, so that a centre from :func:`grid_centre` plus
    the noise is an exact double; a ``RuntimeError`` otherwise, which depends on the noise alone
    (probability below :math:`e^{-128}` per coordinate at :data:`MAX_SCALE`)."""
    sample = sample_discrete_laplace_inversion if inversion else sample_discrete_laplace
    noise = sample(scale, shape, rng)
    if np.abs(noise).max(initial=0) >= CENTRE_LIMIT:  # whatever the data: says nothing about it
        raise RuntimeError(
            f"discrete Laplace noise beyond 2^52 grid steps (probability below "
            f"e^-(2^52 / t) per coordinate at scale t = {float(scale):.4g} "
            "steps): choose a larger step"
        )
    return noise


def grid_centre(x: np.ndarray, step: float) -> np.ndarray:
    """``x`` rounded to the grid ``step``, in grid steps (integer-valued doubles), clamped to
    :data:`CENTRE_LIMIT` steps either side of 0 with a
    :class:`~privrl.core.validation.ClippedDataWarning`. Clamping is 1-Lipschitz in every
    coordinate, so no sensitivity grows; noise below :data:`CENTRE_LIMIT` steps then leaves every
    sum below 2^53, an exact double. (Refusing such an ``x`` would say something about the
    data.)"""
    with np.errstate(over="ignore"):
        grid = np.rint(x / step)
    return clip_to_bound(grid, "x (in grid steps)", -CENTRE_LIMIT, CENTRE_LIMIT)


def discrete_laplace_mechanism(
    x: np.ndarray, sensitivity: float, epsilon: float, rng: SeedLike, step: float = DEFAULT_STEP
) -> np.ndarray:
    """Release each row of ``x`` (shape ``(n, d)`` or ``(d,)``) with exactly epsilon-DP (exact
    epsilon :func:`grid_epsilon` <= ``epsilon``) for rows at most ``sensitivity`` apart in L1:
    round to the grid ``step`` (:func:`grid_centre`: values beyond 2^52 steps are clamped, with
    a warning), add exact discrete Laplace noise of scale :func:`grid_scale` (at most
    :data:`MAX_SCALE` steps: :func:`check_scale`). Every output is a multiple of ``step``,
    exactly (:func:`bounded_noise`)."""
    arr = check_array(x, "x", ndim=(1, 2))
    step = check_step(step)
    epsilon = check_epsilon(epsilon)  # before the cached grid_scale (arguments must hash)
    sensitivity = check_positive(sensitivity, "sensitivity")
    d = arr.shape[-1]
    scale = check_scale(grid_scale(sensitivity, epsilon, d, step), step)
    grid = grid_centre(arr, step)
    return (grid + bounded_noise(scale, arr.shape, rng)) * step


__all__ = [
    "CENTRE_LIMIT",
    "DEFAULT_STEP",
    "MAX_SCALE",
    "bounded_noise",
    "check_scale",
    "discrete_laplace_mechanism",
    "grid_centre",
    "grid_epsilon",
    "grid_scale",
    "grid_sensitivity",
    "noise_inflation",
    "sample_discrete_laplace",
    "sample_discrete_laplace_inversion",
]
