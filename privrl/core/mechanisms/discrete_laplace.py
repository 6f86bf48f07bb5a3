r"""A Laplace mechanism that is private on IEEE doubles: discrete Laplace noise on a grid.

Textbook floating-point Laplace noise, ``x + b * log(U)``, is not differentially private on a real
computer: the set of doubles it can output depends on ``x``, and an observer who sees the raw
output can tell neighbouring inputs apart (Mironov 2012, "On significance of the least significant
bits for differential privacy"). This module releases values on a grid instead:

1. the input is rounded to the grid :math:`\text{step}\,\mathbb{Z}` (``step`` a power of two, so
   ``x / step`` and the rounding are exact);
2. integer noise :math:`K` with :math:`P(K = k) \propto e^{-|k|/t}` (the discrete Laplace
   distribution of scale :math:`t`) is added to each coordinate;
3. the output is :math:`\text{step}\,(\mathrm{round}(x/\text{step}) + K)`, exactly representable
   as a double while :math:`|\mathrm{round}(x/\text{step}) + K| < 2^{53}` (checked).

The noise is sampled exactly, with integer arithmetic only (Canonne, Kamath and Steinke 2020,
"The discrete Gaussian for differential privacy", Algorithms 1 and 2), vectorised over the batch:
no floating-point number enters the sampler, so the distribution of the output given the input
is exactly the one the analysis assumes.

**Privacy, exactly.** Two inputs with :math:`\|x - x'\|_1 \le \Delta` round to grid points at most
:math:`L = \lfloor \Delta/\text{step} \rfloor + d` apart in L1 grid units (rounding moves each of
the ``d`` coordinates by at most half a step), and the discrete Laplace's probability ratio for a
shift of :math:`L` is at most :math:`e^{L/t}`. So the release is :math:`\varepsilon`-DP with
:math:`\varepsilon = L / t` (:func:`grid_epsilon`), computed in exact rational arithmetic. The scale
is :func:`grid_scale`: :math:`t = L/\varepsilon_{\rm target}` rounded *up* to a dyadic rational, so
the exact epsilon never exceeds the target; the price is a noise scale :math:`t\,\text{step}`
slightly above the continuous :math:`\Delta/\varepsilon` (:func:`noise_inflation`, about
:math:`1 + d\,\text{step}/\Delta`).

Paper-specific code written by hand (no maintained library offers a vectorised exact sampler).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_epsilon, check_int, check_positive

#: Default grid step: 2^-30 (about 9.3e-10).
DEFAULT_STEP = 2.0**-30
#: Numerators of scales are kept below 2^55, so that ``numerator * K`` fits in int64 for K < 256,
#: and denominators at most 2^40, so that ``remainder * V`` fits for geometric counts V <= 2^20.
_MAX_NUMERATOR = 2**55
_MAX_DENOMINATOR_BITS = 40
_MAX_ROUNDS = 256


def _check_step(step: float) -> float:
    step = check_positive(step, "step")
    mantissa, _ = math.frexp(step)
    if mantissa != 0.5:
        raise ValueError(f"step must be a power of two (exact rounding), got {step!r}")
    return step


def grid_sensitivity(sensitivity: float, d: int, step: float) -> int:
    """:math:`L = \\lfloor \\Delta/\\text{step} \\rfloor + d`: the L1 distance, in grid units, between
    the rounded images of two inputs at most ``sensitivity`` apart in L1 (``d`` coordinates)."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    d = check_int(d, "d", 1)
    return math.floor(Fraction(sensitivity) / Fraction(_check_step(step))) + d


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
    """Exact epsilon :math:`L / t` of the grid release with discrete Laplace scale ``scale``
    (rounded up to the next double, so the float never understates it)."""
    if not isinstance(scale, Fraction) or scale <= 0:
        raise ValueError(f"scale must be a positive Fraction (from grid_scale), got {scale!r}")
    value = Fraction(grid_sensitivity(sensitivity, d, step)) / scale
    as_float = float(value)
    return as_float if Fraction(as_float) >= value else math.nextafter(as_float, math.inf)


def noise_inflation(sensitivity: float, epsilon: float, d: int, step: float = DEFAULT_STEP) -> float:
    """Ratio of the grid release's noise scale ``t * step`` to the continuous Laplace scale
    ``sensitivity / epsilon`` (the price of exactness; 1 + about ``d step / sensitivity``)."""
    t = grid_scale(sensitivity, epsilon, d, step)
    return float(t * Fraction(step) * Fraction(epsilon) / Fraction(sensitivity))


def _bernoulli_exp(numerator: np.ndarray, denominator: int, gen: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(-numerator/denominator)) for ``0 <= numerator <= denominator``
    (CKS 2020, Algorithm 1): draw Bernoulli(gamma/k) for k = 1, 2, ... until one fails; the
    outcome is 1 when the number of draws is odd."""
    n = numerator.shape[0]
    draws = np.ones(n, dtype=np.int64)
    active = np.arange(n)
    for k in range(1, _MAX_ROUNDS + 1):
        if active.size == 0:
            return draws % 2 == 1
        success = gen.integers(0, denominator * k, size=active.size) < numerator[active]
        draws[active[success]] += 1
        active = active[success]
    raise RuntimeError("Bernoulli(exp(-gamma)) sampler exceeded 256 rounds (probability below "
                       "1/256!): no sample is returned rather than an inexact one")


def sample_discrete_laplace(scale: Fraction, size: int | tuple[int, ...], rng: SeedLike) -> np.ndarray:
    """Exact samples of the discrete Laplace distribution :math:`P(k) \\propto e^{-|k|/t}`,
    ``t = scale`` (CKS 2020, Algorithm 2), as an int64 array of shape ``size``."""
    if (not isinstance(scale, Fraction) or scale <= 0 or scale.numerator >= _MAX_NUMERATOR
            or scale.denominator > 2**_MAX_DENOMINATOR_BITS):
        raise ValueError("scale must be a positive Fraction with numerator < 2^55 and denominator "
                         f"<= 2^40 (grid_scale makes one), got {scale!r}")
    gen = as_generator(rng)
    shape = (size,) if isinstance(size, int) else tuple(size)
    total = math.prod(shape)
    num, den = scale.numerator, scale.denominator
    out = np.empty(total, dtype=np.int64)
    todo = np.arange(total)
    while todo.size:
        m = todo.size
        u = gen.integers(0, num, size=m)
        keep = _bernoulli_exp(u, num, gen)
        v = np.zeros(m, dtype=np.int64)
        going = np.flatnonzero(keep)
        while going.size:
            more = _bernoulli_exp(np.ones(going.size, dtype=np.int64), 1, gen)
            v[going[more]] += 1
            going = going[more]
            if v.max(initial=0) > 2**20:
                raise RuntimeError("geometric count above 2^20 (probability e^-1048576)")
        # Y = floor((U + num V) / den), without overflow: num = q den + r
        q, r = divmod(num, den)
        y = v * q + (u + r * v) // den
        negative = gen.integers(0, 2, size=m).astype(bool)
        accept = keep & ~(negative & (y == 0))
        out[todo[accept]] = np.where(negative[accept], -y[accept], y[accept])
        todo = todo[~accept]
    return out.reshape(shape)


def discrete_laplace_mechanism(x: np.ndarray, sensitivity: float, epsilon: float, rng: SeedLike,
                               step: float = DEFAULT_STEP) -> np.ndarray:
    """Release each row of ``x`` (shape ``(n, d)`` or ``(d,)``) with exactly epsilon-DP (exact
    epsilon :func:`grid_epsilon` <= ``epsilon``) for rows at most ``sensitivity`` apart in L1:
    round to the grid ``step``, add exact discrete Laplace noise of scale :func:`grid_scale`.
    Every output is a multiple of ``step``, exactly."""
    arr = check_array(x, "x", ndim=(1, 2))
    step = _check_step(step)
    d = arr.shape[-1]
    scale = grid_scale(sensitivity, epsilon, d, step)
    grid = np.rint(arr / step)
    noisy = grid + sample_discrete_laplace(scale, arr.shape, rng)
    if np.abs(noisy).max(initial=0) >= 2**53:
        raise ValueError("x / step or its noise exceed 2^53: choose a larger step")
    return noisy * step


__all__ = [
    "DEFAULT_STEP", "discrete_laplace_mechanism", "grid_epsilon", "grid_scale",
    "grid_sensitivity", "noise_inflation", "sample_discrete_laplace",
]
