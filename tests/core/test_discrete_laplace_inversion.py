"""The inversion sampler of the discrete Laplace: the same law as the CKS sampler, one draw per
sample; its double-precision decisions against an mpmath reference on the same draws."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from cks_reference import ref_bits53

from privrl.core.mechanisms.discrete_laplace import (
    _refine,
    grid_scale,
    sample_discrete_laplace_inversion,
)


def _ref_floor(scale: Fraction, w: int, bits: int) -> int | None:
    """``floor(-t ln W)`` if the same over ``W in [w, w + 1) 2^-bits`` (mpmath, 200 bits beyond
    the cell's precision, no margin needed at the scales tested), else ``None``."""
    if w == 0:
        return None
    with mpmath.workprec(bits + 200):
        t = mpmath.mpf(scale.numerator) / scale.denominator
        ends = [int(mpmath.floor(-t * mpmath.log(mpmath.ldexp(v, -bits)))) for v in (w, w + 1)]
    return ends[0] if ends[0] == ends[1] else None


def _ref_decide(
    scale: Fraction, draw: int, gen: np.random.Generator, undecided: bool = False
) -> int | None:
    """The signed sample of a 53-bit draw (``None`` for -0), refining ``W`` by further draws (at
    least one if the compiled pass left it ``undecided``)."""
    w, bits = draw >> 1, 52
    if undecided:
        w, bits = (w << 53) | ref_bits53(gen), bits + 53
    while (y := _ref_floor(scale, w, bits)) is None:
        w, bits = (w << 53) | ref_bits53(gen), bits + 53
    return None if draw & 1 and y == 0 else (-y if draw & 1 else y)


def _ref_sample(
    scale: Fraction, n: int, gen: np.random.Generator, undecided: bool = False
) -> list[int]:
    """The inversion sampler's use of the stream: a pass draws one 53-bit draw per sample still
    to fill, then refines the cells in index order; the -0 are drawn again in the next pass."""
    out: list[int | None] = [None] * n
    todo = list(range(n))
    while todo:
        draws = [ref_bits53(gen) for _ in todo]
        for i, d in zip(todo, draws, strict=True):
            out[i] = _ref_decide(scale, d, gen, undecided)
        todo = [i for i in todo if out[i] is None]
    return out


@pytest.mark.parametrize(
    "scale",
    [Fraction(5, 2), grid_scale(0.01, 1.0, 112), Fraction(1, 3), Fraction(12_345_678_901, 2**20)],
    ids=["5/2", "grid-eps1", "1/3", "dyadic"],
)
def test_inversion_sampler_equals_the_mpmath_reference_on_the_same_draws(scale):
    """2,000 samples: the double ``log`` decides every cell as the 200-bit reference does,
    sample after sample (one draw each; the -0 drawn again in a second pass)."""
    got = sample_discrete_laplace_inversion(scale, 2000, np.random.default_rng(7))
    np.testing.assert_array_equal(got, _ref_sample(scale, 2000, np.random.default_rng(7)))


@pytest.mark.parametrize("scale", [Fraction(5, 2), Fraction(2**53 + 1, 8)], ids=["5/2", "2^50"])
def test_undecided_cells_are_refined_after_the_pass_in_index_order(monkeypatch, scale):
    """With a margin of 2^10 no cell is decided in double precision: all 300 samples are refined
    by :func:`_refine`, after the pass's first draws and in index order, and equal the
    reference's on the same draws (at t = 5/2 with -0 refined, rejected and drawn again)."""
    import privrl.core.mechanisms.discrete_laplace as dl

    monkeypatch.setattr(dl, "_MARGIN", 2.0**10)
    got = sample_discrete_laplace_inversion(scale, 300, np.random.default_rng(3))
    np.testing.assert_array_equal(got, _ref_sample(scale, 300, np.random.default_rng(3), True))


def test_refine_decides_a_cell_that_straddles_a_boundary():
    """The 52-bit cell holding ``W = e^{-3/t}`` (t = 5/2) straddles the boundary of Y = 3; the
    refined sample is the reference's on the same further draws, for both signs."""
    scale = Fraction(5, 2)
    j = int(mpmath.floor(mpmath.exp(mpmath.mpf(-6) / 5) * 2**52))
    assert _ref_floor(scale, j, 52) is None
    for seed in range(20):
        for sign in (0, 1):
            got = _refine(scale, j << 1 | sign, np.random.default_rng(seed))
            assert got == _ref_decide(scale, j << 1 | sign, np.random.default_rng(seed), True)
            assert abs(got) in (2, 3)


def test_the_double_log_is_far_more_accurate_than_the_samplers_margin():
    """The margin ``(z + 1) 2^-44`` assumes numpy's ``log`` of ``j 2^-52`` within 2^-50 of its
    value, relatively (a correctly rounded log is within 2^-53): 20,000 random ``j``, the
    extremes and the values next to 1, against mpmath at 120 bits."""
    pick = np.random.default_rng(0)
    j = np.concatenate(
        [
            pick.integers(1, 2**52, 10_000),
            2**52 - pick.integers(1, 2**20, 5_000),
            pick.integers(1, 2**20, 5_000),
            [1, 2, 2**52 - 1],
        ]
    )
    x = j.astype(float) * 2.0**-52
    got = np.log(x)
    with mpmath.workprec(120):
        for v, g in zip(x.tolist(), got.tolist(), strict=True):
            exact = mpmath.log(mpmath.mpf(v))
            assert abs(g - exact) <= abs(exact) * mpmath.ldexp(1, -50)


def test_inversion_rejects_a_scale_that_is_no_positive_fraction():
    with pytest.raises(ValueError, match="scale must be a positive Fraction"):
        sample_discrete_laplace_inversion(2.5, 10, 0)
