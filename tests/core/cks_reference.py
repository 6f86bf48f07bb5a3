"""Exact references for the compiled samplers of ``privrl.core.mechanisms.discrete_laplace`` and
``discrete_gaussian``: Canonne, Kamath and Steinke 2020, Algorithms 1-3, in Python integers and
Fractions, drawing the same 53-bit chunks (``Generator.random() * 2^53``) in the same order."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def ref_bits53(gen: np.random.Generator) -> int:
    return int(gen.random() * 2**53)  # random() is k / 2^53: the 53 bits, exactly


def ref_bernoulli(x: Fraction, gen: np.random.Generator) -> bool:
    """Is a uniform real V in [0, 1), revealed 53 bits at a time, below x? (Fractions.)"""
    while 0 < x < 1:
        k = ref_bits53(gen)
        if Fraction(k + 1, 2**53) <= x:
            return True
        if Fraction(k, 2**53) >= x:
            return False
        x = x * 2**53 - k  # V's next 53 bits against what is left of x
    return x >= 1


def ref_uniform_below(n: int, gen: np.random.Generator) -> int:
    """Lemire's method on 53 random bits (64 when n > 2^53), in Python integers."""
    bits = 53 if n <= 2**53 else 64
    while True:
        r = ref_bits53(gen)
        if bits == 64:
            r = (r << 11) | (ref_bits53(gen) & 0x7FF)
        if (r * n) % 2**bits >= 2**bits % n:
            return (r * n) >> bits


def ref_bernoulli_exp(gamma: Fraction, gen: np.random.Generator) -> bool:
    k = 1
    while ref_bernoulli(gamma / k, gen):
        k += 1
    return k % 2 == 1


def ref_discrete_laplace(scale: Fraction, n: int, gen: np.random.Generator) -> list[int]:
    """CKS 2020 Algorithm 2, sample after sample, in exact rational arithmetic."""
    num, den = scale.numerator, scale.denominator
    out = []
    while len(out) < n:
        u = ref_uniform_below(num, gen)
        if not ref_bernoulli_exp(Fraction(u, num), gen):
            continue
        v = 0
        while ref_bernoulli_exp(Fraction(1), gen):
            v += 1
        y = (u + num * v) // den
        negative = ref_bits53(gen) >> 52 == 1
        if not (negative and y == 0):
            out.append(-y if negative else y)
    return out


def ref_bernoulli_exp_any(gamma: Fraction, gen: np.random.Generator) -> bool:
    """Bernoulli(exp(-gamma)) for any gamma >= 0 (Algorithm 1: floor(gamma) draws of
    Bernoulli(exp(-1)) that must all succeed, then Bernoulli(exp(-(gamma - floor(gamma)))))."""
    whole = gamma.numerator // gamma.denominator
    for _ in range(whole):
        if not ref_bernoulli_exp(Fraction(1), gen):
            return False
    return ref_bernoulli_exp(gamma - whole, gen)


def ref_discrete_gaussian(m: int, t: int, n: int, gen: np.random.Generator) -> list[int]:
    """CKS 2020 Algorithm 3 for variance parameter s = m t: a discrete Laplace candidate of scale
    t, kept with probability exp(-(|Y| - s/t)^2 / (2 s))."""
    out = []
    s = Fraction(m * t)
    while len(out) < n:
        y = ref_discrete_laplace(Fraction(t), 1, gen)[0]
        if ref_bernoulli_exp_any((abs(y) - s / t) ** 2 / (2 * s), gen):
            out.append(y)
    return out
