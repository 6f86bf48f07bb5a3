r"""The Gaussian release :math:`\mu + \sigma Z` correctly rounded to a double, for any :math:`\mu`
and :math:`\sigma` (a data-dependent scale included), private on IEEE doubles.

Per coordinate it releases the double nearest (round to nearest, ties to even,
:math:`\pm\infty` beyond the range, zero unsigned) to the real :math:`\mu + \sigma Z`,
:math:`Z \sim N(0, 1)` drawn exactly: a function of the real release alone, so private by
post-processing.

The sampler is Karney (2016), Algorithm N: (1) :math:`k \ge 0` with probability
:math:`(1 - e^{-1/2}) e^{-k/2}` (Algorithm G); (2) accept with probability :math:`e^{-k(k-1)/2}`;
(3) a uniform :math:`x \in (0, 1)`; (4) accept with probability :math:`e^{-x(2k + x)/2}`
(Algorithm B); (5) return :math:`\pm(k + x)` with a fair sign. Bernoulli(:math:`e^{-t}`) is von
Neumann's: the run :math:`t > z_1 > z_2 > \dots` of uniforms has even length with probability
:math:`e^{-t}`. Uniform deviates are drawn lazily, 64 bits at a time, and compared exactly; the
rounding draws further bits of :math:`x` until every real still possible for
:math:`\mu \pm \sigma(k + x)` rounds to one double (integer arithmetic on the dyadic :math:`\mu`,
:math:`\sigma`). No floating-point operation enters the sample.
"""

from __future__ import annotations

import math

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_positive

#: Bits per lazily drawn digit of a uniform deviate.
DIGIT_BITS = 64
_DIGIT_MASK = (1 << DIGIT_BITS) - 1


class _Uniform:
    """A uniform deviate on (0, 1), drawn lazily: after ``n`` digits (base 2^64) it lies in
    ``[value, value + 1) / 2^(64 n)``."""

    __slots__ = ("_bits", "n", "value")

    def __init__(self, bits: np.random.BitGenerator) -> None:
        self._bits = bits
        self.n = 0
        self.value = 0

    def digit(self, i: int) -> int:
        """The ``i``-th digit, drawn if it is not yet."""
        while self.n <= i:
            self.extend()
        return (self.value >> (DIGIT_BITS * (self.n - 1 - i))) & _DIGIT_MASK

    def extend(self) -> None:
        self.value = (self.value << DIGIT_BITS) | int(self._bits.random_raw())
        self.n += 1

    def less(self, other: _Uniform) -> bool:
        """Whether this deviate is below ``other`` (equality has probability 0: it is never
        reached, since digits are drawn until they differ)."""
        i = 0
        while (a := self.digit(i)) == (b := other.digit(i)):
            i += 1
        return a < b


def _bernoulli_exp_half(bits: np.random.BitGenerator) -> bool:
    """Bernoulli(e^{-1/2}), von Neumann: the run 1/2 > z_1 > z_2 > ... has even length."""
    z = _Uniform(bits)
    if z.digit(0) >> (DIGIT_BITS - 1):  # z >= 1/2: the run is empty
        return True
    n = 1
    while (nxt := _Uniform(bits)).less(z):
        z, n = nxt, n + 1
    return n % 2 == 0


def _bernoulli_b(k: int, x: _Uniform, bits: np.random.BitGenerator) -> bool:
    r"""Karney's Algorithm B: Bernoulli(:math:`e^{-x q}`), :math:`q = (2k + x)/(2k + 2)`: the run
    :math:`x > z_1 > z_2 > \dots`, each step also passing an independent coin
    :math:`r < q`, has even length. The coin draws :math:`f` uniform on ``[0, 2k + 2)`` and
    :math:`v` uniform on (0, 1), :math:`r = (f + v)/(2k + 2)`: true for :math:`f < 2k`, false
    for :math:`f = 2k + 1`, and :math:`v < x` for :math:`f = 2k`."""
    y, n = x, 0
    while True:
        z = _Uniform(bits)
        if not z.less(y):
            break
        f = _uniform_int(2 * k + 2, bits)
        if f == 2 * k + 1 or (f == 2 * k and not _Uniform(bits).less(x)):
            break
        y, n = z, n + 1
    return n % 2 == 0


def _uniform_int(n: int, bits: np.random.BitGenerator) -> int:
    """Uniform on ``[0, n)`` by rejection on 64-bit words (exact, for n <= 2^64)."""
    limit = (1 << DIGIT_BITS) - (1 << DIGIT_BITS) % n
    while (w := int(bits.random_raw())) >= limit:
        pass
    return w % n


def _standard_normal(bits: np.random.BitGenerator) -> tuple[int, int, _Uniform]:
    """Karney's Algorithm N: ``(sign, k, x)`` with ``sign * (k + x)`` exactly N(0, 1)."""
    while True:
        k = 0
        while _bernoulli_exp_half(bits):
            k += 1
        if not all(_bernoulli_exp_half(bits) for _ in range(k * (k - 1))):
            continue
        x = _Uniform(bits)
        if all(_bernoulli_b(k, x, bits) for _ in range(k + 1)):
            sign = 1 if int(bits.random_raw()) >> (DIGIT_BITS - 1) else -1
            return sign, k, x


def _nearest_double(numerator: int, denominator: int) -> float:
    """The double nearest to ``numerator / denominator`` (ties to even; past the largest double,
    an infinity): Python's integer division is correctly rounded, and raises exactly when that
    is infinite."""
    try:
        return numerator / denominator
    except OverflowError:
        return math.inf if (numerator > 0) == (denominator > 0) else -math.inf


def _rounded(mu: float, sigma: float, bits: np.random.BitGenerator) -> float:
    """The double nearest to ``mu + sigma Z``, drawing bits of Z's fraction until it is decided.

    All arithmetic is on integers: ``mu`` and ``sigma`` are dyadic rationals, and with ``n``
    digits of ``x`` drawn, ``mu + sign sigma (k + x)`` lies between the two numerators below
    over the common power-of-two denominator."""
    sign, k, x = _standard_normal(bits)
    mu_n, mu_d = mu.as_integer_ratio()
    s_n, s_d = sigma.as_integer_ratio()
    if not x.n:
        x.extend()
    while True:
        unit = 1 << (DIGIT_BITS * x.n)  # x in [x.value, x.value + 1) / unit
        den = max(mu_d, s_d * unit)  # both are powers of two
        base = mu_n * (den // mu_d)
        step = sign * s_n * (den // (s_d * unit))
        low = _nearest_double(base + step * (k * unit + x.value), den)
        high = _nearest_double(base + step * (k * unit + x.value + 1), den)
        if low == high:
            return low + 0.0  # -0.0 becomes 0.0: the output depends on the real value only
        x.extend()


def rounded_gaussian(mean: object, sigma: float, rng: SeedLike) -> np.ndarray:
    r"""Each coordinate of ``mean`` plus independent :math:`N(0, \sigma^2)` noise, released as the
    double nearest to the real sum (module docstring): exactly the post-processing "round to
    double" of the real-valued Gaussian release.

    ``mean``: finite doubles, any shape; ``sigma`` > 0 (finite); ``rng`` a seed or a numpy
    Generator (its bit generator supplies every bit, so a seed reproduces the release)."""
    mu = check_array(mean, "mean")
    sigma = check_positive(sigma, "sigma")
    bits = as_generator(rng).bit_generator
    out = [_rounded(m, sigma, bits) for m in mu.ravel().tolist()]
    return np.array(out, dtype=float).reshape(mu.shape)


__all__ = ["DIGIT_BITS", "rounded_gaussian"]
