r"""A Gaussian mechanism that is private on IEEE doubles: discrete Gaussian noise on a grid.

Floating-point Gaussian noise leaks through its low bits (Mironov 2012). As
:mod:`~privrl.core.mechanisms.discrete_laplace` does for Laplace:

1. the input is rounded to the grid :math:`\text{step}\,\mathbb{Z}` (``step`` a power of two;
   by default :math:`2^{19} \le \sigma/\text{step} < 2^{20}`, :func:`default_step`);
2. each coordinate gets :math:`K \sim \mathcal{N}_\mathbb{Z}(0, s)`,
   :math:`P(K = k) \propto e^{-k^2/(2s)}`, :math:`s = m\,t` (two integers, :func:`grid_variance`),
   sampled exactly (Canonne, Kamath and Steinke 2020, Algorithm 3: a discrete Laplace :math:`Y`
   of scale :math:`t` kept with probability :math:`\exp(-(|Y| - m)^2/(2mt))`, an exact Bernoulli
   of a rational exponent below :math:`2^{63}`);
3. the output is :math:`\text{step}\,(\mathrm{round}(x/\text{step}) + K)`, exact while
   :math:`|\mathrm{round}(x/\text{step}) + K| < 2^{53}` (checked).

**Privacy** is :mod:`privrl.core.accounting.discrete_gaussian`'s: rounded neighbours are at most
:math:`G = \Delta/\text{step} + \sqrt d` apart in :math:`\ell_2`, and the discrete Gaussian meets
the Rényi curve of a continuous Gaussian of noise multiplier :math:`\sqrt{s}/G`.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numba
import numpy as np

from privrl.core.accounting.discrete_gaussian import grid_l2_sensitivity, noise_multiplier
from privrl.core.accounting.laplace import check_step

# The compiled exact primitives: Bernoulli(exp(-a/b)) for a <= b, and the discrete Laplace.
from privrl.core.mechanisms.discrete_laplace import _bernoulli_exp, _sample, grid_centre
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_int, check_positive

#: Default scale of the noise in grid units: sigma / step in [2^19, 2^20).
DEFAULT_GRID_BITS = 19
#: The largest noise scale in grid units: then m, t <= 2^21 + 1 and 2 m t 256 < 2^63.
MAX_GRID_SIGMA = 2.0**21
#: Accepted candidates have ||Y| - m| <= 2^31 (so its square fits in 63 bits); a larger one has
#: probability below exp(-2^31 / (2^21 + 1)) < e^-1000, and the sampler raises rather than
#: return an inexact sample.
_MAX_GAP = 2**31


def default_step(sigma: float) -> float:
    """The power of two ``step`` with ``2^19 <= sigma / step < 2^20``, or the smallest double
    2^-1074 for a ``sigma`` below 2^-1054 (then fewer grid units)."""
    sigma = check_positive(sigma, "sigma")
    return max(
        math.ldexp(1.0, math.frexp(sigma)[1] - 1 - DEFAULT_GRID_BITS), math.ldexp(1.0, -1074)
    )


def grid_step(
    z: float, sensitivity: float, d: int, step: float | None = None, name: str = "value"
) -> float:
    """``step`` checked, or the default grid of noise multiplier ``z``: :func:`default_step` of
    ``z * sensitivity``, doubled while the noise would exceed 2^20 grid units. ``name`` is the
    argument that sets the ``d`` coordinates, for the error when no grid can serve them."""
    if step is not None:
        return check_step(step)
    if z * math.sqrt(d) > 2.0**20:
        raise ValueError(
            f"{name}: {d} coordinates at noise multiplier {z:.4g} need a grid "
            "finer than the sampler allows; release fewer coordinates at once"
        )
    step = default_step(z * sensitivity)
    while z * grid_l2_sensitivity(sensitivity, d, step) > 2.0**20:
        step *= 2.0
    return step


def grid_variance(sigma_units: float | Fraction) -> tuple[int, int]:
    r"""Integers ``(m, t)`` with :math:`s = mt \ge` ``sigma_units`` squared (exactly) and
    :math:`t = \lfloor \text{sigma\_units} \rfloor + 1`: the discrete Gaussian's variance parameter
    in grid units squared and the scale of its discrete Laplace proposal."""
    target = Fraction(sigma_units)
    if not 0 < target <= MAX_GRID_SIGMA:
        raise ValueError(
            f"the noise scale in grid units must be in (0, 2^21], got "
            f"{float(target):.6g}: choose a larger step"
        )
    t = math.floor(target) + 1
    m = math.ceil(target**2 / t)
    return m, t


@numba.njit(cache=True)
def _bernoulli_exp_any(numerator: int, denominator: int, gen: np.random.Generator) -> bool:
    """Exact Bernoulli(exp(-a/b)) for any ``a >= 0`` (CKS 2020, Algorithm 1): ``floor(a/b)``
    Bernoulli(exp(-1)) draws that must all succeed, then Bernoulli(exp(-(a mod b)/b))."""
    whole = numerator // denominator
    for _ in range(whole):
        if not _bernoulli_exp(1, 1, gen):
            return False
    return _bernoulli_exp(numerator - whole * denominator, denominator, gen)


@numba.njit(cache=True)
def _sample_gaussian(m: int, t: int, out: np.ndarray, gen: np.random.Generator) -> None:
    """Fill ``out`` with exact discrete Gaussian integers of variance parameter ``m t`` (CKS
    2020, Algorithm 3), one sample after the other: a discrete Laplace candidate ``Y`` of scale
    ``t``, kept with probability ``exp(-(|Y| - m)^2 / (2 m t))``."""
    candidate = np.empty(1, dtype=np.int64)
    denominator = 2 * m * t
    for i in range(out.size):
        while True:
            _sample(t, 1, candidate, gen)
            gap = abs(candidate[0]) - m
            if gap > _MAX_GAP or gap < -_MAX_GAP:
                raise RuntimeError(
                    "discrete Gaussian candidate beyond 2^31 grid units (probability below e^-1000)"
                )
            if _bernoulli_exp_any(gap * gap, denominator, gen):
                out[i] = candidate[0]
                break


def sample_discrete_gaussian(
    m: int, t: int, size: int | tuple[int, ...], rng: SeedLike
) -> np.ndarray:
    r"""Exact samples of the discrete Gaussian :math:`P(k) \propto e^{-k^2/(2mt)}` (CKS 2020,
    Algorithm 3) as an int64 array of shape ``size``; ``m, t`` from :func:`grid_variance`
    (``1 <= m, t <= 2^21 + 1``). Compiled, drawing from ``rng``'s own bit generator."""
    m = check_int(m, "m", minimum=1)
    t = check_int(t, "t", minimum=1)
    if max(m, t) > MAX_GRID_SIGMA + 1:
        raise ValueError(
            f"m and t must be at most 2^21 + 1 (grid_variance makes them), got m={m}, t={t}"
        )
    gen = as_generator(rng)
    shape = (size,) if isinstance(size, int) else tuple(size)
    out = np.empty(math.prod(shape), dtype=np.int64)
    _sample_gaussian(m, t, out, gen)
    return out.reshape(shape)


def discrete_gaussian_mechanism(
    x: object, m: int, t: int, step: float, rng: SeedLike
) -> np.ndarray:
    """``x`` (any shape) rounded to the grid ``step`` (values beyond 2^52 steps clamped, with a
    warning: :func:`~privrl.core.mechanisms.discrete_laplace.grid_centre`) plus exact discrete
    Gaussian noise of variance parameter ``m t`` grid units squared on every coordinate; every
    output is a multiple of ``step``, exactly. The guarantee is
    :func:`privrl.core.accounting.discrete_gaussian.discrete_gaussian_event`'s."""
    arr = check_array(x, "x")
    step = check_step(step)
    grid = grid_centre(arr, step)  # at most 2^52 steps; the noise at most m + 2^31 < 2^52
    return (grid + sample_discrete_gaussian(m, t, arr.shape, rng)) * step


@dataclasses.dataclass(frozen=True)
class GridGaussian:
    """The grid Gaussian as a noise to add inside an algorithm (e.g. GPOPE's gradient steps):
    variance parameter ``m t`` grid units squared (:func:`grid_variance`) on the grid ``step``."""

    m: int
    t: int
    step: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", check_int(self.m, "m", minimum=1))
        object.__setattr__(self, "t", check_int(self.t, "t", minimum=1))
        object.__setattr__(self, "step", check_step(self.step))

    @classmethod
    def of_scale(cls, sigma_units: float | Fraction, step: float) -> GridGaussian:
        """The grid Gaussian of scale at least ``sigma_units`` grid units on the grid ``step``."""
        return cls(*grid_variance(sigma_units), step)

    @classmethod
    def for_multiplier(
        cls, z: float, sensitivity: float, d: int, step: float | None = None, name: str = "value"
    ) -> GridGaussian:
        r"""The grid Gaussian of noise multiplier at least ``z`` for ``d`` coordinates of
        :math:`\ell_2` ``sensitivity``: scale :math:`zG` grid units on the grid
        :func:`grid_step`, :math:`G` the sensitivity of the rounded values
        (:func:`~privrl.core.accounting.discrete_gaussian.grid_l2_sensitivity`). Its
        :meth:`noise_multiplier` is then at least ``z``, exactly."""
        step = grid_step(z, sensitivity, d, step, name)
        return cls.of_scale(Fraction(z) * Fraction(grid_l2_sensitivity(sensitivity, d, step)), step)

    def noise_multiplier(self, sensitivity: float, d: int) -> float:
        r"""The noise multiplier :math:`\sqrt{s}/G` (rounded down) this noise gives ``d``
        coordinates of :math:`\ell_2` ``sensitivity`` rounded to its grid: the Rényi curve it
        meets is a Gaussian's of that multiplier."""
        return noise_multiplier(self.variance, grid_l2_sensitivity(sensitivity, d, self.step))

    @property
    def variance(self) -> int:
        """The variance parameter :math:`s = mt`, in grid units squared."""
        return self.m * self.t

    @property
    def sigma(self) -> float:
        r"""The noise scale :math:`\sqrt{s}\,\text{step}` in the value's units."""
        return math.sqrt(self.variance) * self.step

    def add(self, x: object, rng: SeedLike) -> np.ndarray:
        """:func:`discrete_gaussian_mechanism` of ``x`` with this noise."""
        return discrete_gaussian_mechanism(x, self.m, self.t, self.step, rng)


__all__ = [
    "DEFAULT_GRID_BITS",
    "MAX_GRID_SIGMA",
    "GridGaussian",
    "default_step",
    "discrete_gaussian_mechanism",
    "grid_step",
    "grid_variance",
    "sample_discrete_gaussian",
]
