"""The grid Laplace mechanism: exact discrete Laplace samples and an exact epsilon on doubles."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from cks_reference import ref_bernoulli, ref_discrete_laplace
from scipy import stats

from privrl.core.mechanisms.discrete_laplace import (
    DEFAULT_STEP,
    discrete_laplace_mechanism,
    grid_centre,
    grid_epsilon,
    grid_scale,
    grid_sensitivity,
    noise_inflation,
    sample_discrete_laplace,
    sample_discrete_laplace_inversion,
)

#: The two exact samplers of the same law: Canonne, Kamath and Steinke's (CKS), and inversion
#: (PGC-A3C's reports); each distribution test below holds for both.
SAMPLERS = pytest.mark.parametrize(
    "sampler",
    [sample_discrete_laplace, sample_discrete_laplace_inversion],
    ids=["cks", "inversion"],
)


def _pmf(ks: np.ndarray, t: float) -> np.ndarray:
    q = math.exp(-1 / t)
    return (1 - q) / (1 + q) * q ** np.abs(ks)


@SAMPLERS
def test_samples_follow_the_discrete_laplace_pmf(sampler):
    """Chi-square goodness of fit at t = 5/2 over 200,000 samples (cells |k| <= 12 and the two
    tails). With 26 degrees of freedom the test rejects a sampler whose scale is off by 2% with
    probability above 0.99 (noncentral chi-square), and the exact sampler with probability 0.001."""
    t = Fraction(5, 2)
    x = sampler(t, 200_000, np.random.default_rng(1))
    ks = np.arange(-12, 13)
    observed = np.array([(x < -12).sum(), *((x == k).sum() for k in ks), (x > 12).sum()])
    inner = _pmf(ks, 2.5)
    tail = (1 - inner.sum()) / 2
    expected = len(x) * np.array([tail, *inner, tail])
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    assert x.dtype == np.int64 and abs(x.mean()) < 0.05


def test_epsilon_is_exact_and_never_above_the_target():
    for sens, eps, d in ((0.01, 1.0, 112), (1.0, 0.1, 3), (0.005, 10.0, 112)):
        t = grid_scale(sens, eps, d)
        L = grid_sensitivity(sens, d, DEFAULT_STEP)
        assert L == math.floor(Fraction(sens) / Fraction(DEFAULT_STEP)) + d
        exact = Fraction(L) / t
        assert exact <= Fraction(eps) and grid_epsilon(sens, d, t) >= float(exact)
        assert grid_epsilon(sens, d, t) == pytest.approx(eps, rel=1e-9)
        # halving the noise scale doubles the epsilon: a weakened call site is caught
        assert grid_epsilon(sens, d, t / 2) == pytest.approx(2 * eps, rel=1e-9)
    assert 1 < noise_inflation(0.01, 1.0, 112) < 1 + 2e-5


def test_rounded_neighbours_are_at_most_L_grid_units_apart():
    rng = np.random.default_rng(2)
    step, sens, d = 2.0**-10, 0.3, 5
    L = grid_sensitivity(sens, d, step)
    for _ in range(2000):
        x = rng.normal(size=d)
        delta = rng.normal(size=d)
        delta *= sens / np.abs(delta).sum() * rng.uniform(0.5, 1.0)
        gap = np.abs(np.rint(x / step) - np.rint((x + delta) / step)).sum()
        assert gap <= L


def test_outputs_are_exact_grid_points_whatever_the_input():
    x = np.random.default_rng(3).normal(size=(50, 112)) * 1e-3
    y = discrete_laplace_mechanism(x, 0.01, 1.0, np.random.default_rng(4))
    units = y / DEFAULT_STEP
    assert np.array_equal(units, np.rint(units))
    assert y.std() == pytest.approx(math.sqrt(2) * 0.01, rel=0.05)


def test_bad_input_is_rejected_with_a_clear_error():
    with pytest.raises(ValueError, match="power of two"):
        discrete_laplace_mechanism(np.zeros(3), 1.0, 1.0, 0, step=0.1)
    with pytest.raises(ValueError, match="Fraction"):
        sample_discrete_laplace(2.5, 10, 0)
    with pytest.raises(ValueError, match="epsilon"):
        grid_scale(1.0, -1.0, 3)


# --- the compiled sampler against an exact reference in Python integers ---------------------------


@pytest.mark.parametrize(
    "scale",
    [
        Fraction(5, 2),
        grid_scale(0.01, 1.0, 112),
        grid_scale(0.01, 10.0, 112),
        Fraction(12_345_678_901, 2**20),
        Fraction(2**54 + 12_345, 2**31),
        Fraction(1, 3),
    ],
    ids=["5/2", "grid-eps1", "grid-eps10", "dyadic", "numerator>2^53", "1/3"],
)
def test_compiled_sampler_equals_the_exact_rational_reference(scale):
    """Same seed, same draws: the compiled sampler (128-bit products of 64-bit words) returns
    exactly the samples of CKS 2020's Algorithm 2 computed with Python integers and Fractions
    (400 samples per scale; a scale with a numerator above 2^53 takes the 64-bit branch)."""
    got = sample_discrete_laplace(scale, 400, np.random.default_rng(7))
    gen = np.random.default_rng(7)
    expected = ref_discrete_laplace(scale, 400, gen)
    np.testing.assert_array_equal(got, expected)
    assert len(set(expected)) > 20 or scale < 1


@SAMPLERS
def test_samples_at_the_training_scale_follow_the_discrete_laplace(sampler):
    """At the scale of PGC-A3C's reports (C = 0.01, epsilon = 1, t = 10,737,530 grid units),
    200,000 samples: chi-square of |K| in the ten deciles of its exact law (P(|K| >= m) =
    2 q^m / (1 + q), q = e^{-1/t}) and a binomial test of the sign. The chi-square test (9
    degrees of freedom, level 0.001) rejects a sampler whose scale is off by 2% with probability
    0.9999 (noncentral chi-square, noncentrality 70.7)."""
    t = grid_scale(0.01, 1.0, 112)
    x = sampler(t, 200_000, np.random.default_rng(11))
    q = math.exp(-1 / float(t))
    edges = [math.ceil(-float(t) * math.log(1 - p)) for p in np.linspace(0.1, 0.9, 9)]
    tail = [2 * q**m / (1 + q) for m in edges]  # P(|K| >= m)
    expected = len(x) * -np.diff([1.0, *tail, 0.0])
    observed = np.diff(np.searchsorted(np.sort(np.abs(x)), [0, *edges, np.iinfo(np.int64).max]))
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    assert stats.binomtest(int((x > 0).sum()), int((x != 0).sum())).pvalue > 1e-3


def test_compiled_bernoulli_is_exact_up_to_63_bit_denominators():
    """Bernoulli(a/b) with b up to 2^63 - 1 (the largest the sampler forms, num k < 2^63):
    every decision equals the Fraction reference on the same draws: 300 random pairs, the
    extremes, and 100 pairs made so that the first 53 bits cannot decide (a/b inside the
    interval of the first draw ``k``: ``a = ceil((k b + 1) / 2^53)``), so a second chunk does."""
    from privrl.core.mechanisms.discrete_laplace import _bernoulli

    pick = np.random.default_rng(5)
    b_max = 2**63 - 1
    cases = [(int(pick.integers(0, b)), int(b)) for b in pick.integers(2**40, b_max, size=300)]
    cases += [(b_max // 2 + 1, b_max), (1, b_max), (b_max - 1, b_max), (0, 7), (7, 7)]
    cases = [(a, b, seed) for seed, (a, b) in enumerate(cases)]
    for seed in range(100):
        k = int(np.random.default_rng(seed).random() * 2**53)
        b = int(pick.integers(2**54, b_max))
        cases.append((-(-(k * b + 1) // 2**53), b, seed))
    second = 0
    for a, b, seed in cases:
        got = _bernoulli(a, b, np.random.default_rng(seed))
        ref_gen = np.random.default_rng(seed)
        assert got == ref_bernoulli(Fraction(a, b), ref_gen), (a, b, seed)
        k = int(np.random.default_rng(seed).random() * 2**53)
        second += 0 < a * 2**53 - k * b < b
    assert second == 100


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_a_value_beyond_the_grid_is_clamped_not_refused(mechanism):
    """A refusal that depends on the value would say something about the data: a value beyond
    2^52 steps is clamped (with a warning) and released like any other, an exact multiple of the
    step; the released centre is the clamp, so neighbours' distance cannot grow."""
    from privrl.core.mechanisms.discrete_gaussian import discrete_gaussian_mechanism
    from privrl.core.validation import ClippedDataWarning

    step = 2.0**-20
    x = np.array([1e300, -1e300, 3.0])
    with pytest.warns(
        ClippedDataWarning, match=r"x \(in grid steps\): values lie outside the bound"
    ):
        if mechanism == "laplace":
            out = discrete_laplace_mechanism(x, 1.0, 1.0, 0, step=step)
        else:
            out = discrete_gaussian_mechanism(x, 4, 4, step, 0)
    units = out / step
    assert np.all(units == np.rint(units)) and np.all(np.abs(units) < 2.0**53)
    assert abs(units[0] - 2.0**52) < 2.0**27 and abs(units[1] + 2.0**52) < 2.0**27  # noise 2^20
    with pytest.warns(ClippedDataWarning):
        centre = grid_centre(np.array([2.0**60, -(2.0**60), 1.25]), 0.5)
    assert centre.tolist() == [2.0**52, -(2.0**52), 2.0]


def test_steps_and_scales_beyond_the_grid_are_refused_naming_step():
    """2^53 steps of 2^971 are no double; a scale above 2^45 steps could leave the exact range."""
    from privrl.core.accounting.laplace import check_step
    from privrl.core.mechanisms.discrete_laplace import check_scale

    assert check_step(2.0**970) == 2.0**970
    with pytest.raises(ValueError, match="step must be at most 2\\^970"):
        check_step(2.0**971)
    assert check_scale(Fraction(2**45), 1.0) == 2**45
    with pytest.raises(ValueError, match=r"step: the noise scale is 2\^45.0 steps"):
        check_scale(Fraction(2**45 + 1), 1.0)


def test_laplace_noise_beyond_the_grid_raises_whatever_the_value(monkeypatch):
    """The one refusal left depends on the noise alone (probability e^-(2^52 / t))."""
    import privrl.core.mechanisms.discrete_laplace as dl

    monkeypatch.setattr(
        dl,
        "sample_discrete_laplace",
        lambda scale, shape, rng: np.full(shape, 2**52, dtype=np.int64),
    )
    for x in (np.zeros(2), np.full(2, -1e6)):
        with pytest.raises(RuntimeError, match="noise beyond 2\\^52 grid steps"):
            dl.discrete_laplace_mechanism(x, 1.0, 1.0, 0)


@pytest.mark.parametrize("release", ["mechanism", "gradient_parts"])
def test_noise_beyond_the_exact_range_raises_whatever_the_data(monkeypatch, release):
    """A draw of 2^52 steps (probability below e^-128) would make centre + noise inexact: both
    grid Laplace releases raise instead, for any input."""
    from privrl.core.mechanisms import discrete_laplace as dl
    from privrl.core.mechanisms import local

    monkeypatch.setattr(
        dl,
        "sample_discrete_laplace",
        lambda scale, shape, rng: np.full(shape, 2**52, dtype=np.int64),
    )
    with pytest.raises(RuntimeError, match="beyond 2\\^52 grid steps"):
        if release == "mechanism":
            dl.discrete_laplace_mechanism(np.zeros(3), 1.0, 1.0, 0)
        else:
            local.laplace_gradient_parts(np.zeros((2, 3)), 1.0, 1.0, 0)
    monkeypatch.setattr(
        dl,
        "sample_discrete_laplace",
        lambda scale, shape, rng: np.full(shape, 2**52 - 1, dtype=np.int64),
    )
    out = (
        dl.discrete_laplace_mechanism(np.zeros(3), 1.0, 1.0, 0)
        if release == "mechanism"
        else sum(local.laplace_gradient_parts(np.zeros((2, 3)), 1.0, 1.0, 0))
    )
    assert np.all(out == (2**52 - 1) * dl.DEFAULT_STEP)
