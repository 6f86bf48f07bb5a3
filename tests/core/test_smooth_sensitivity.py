"""Smooth-sensitivity Gaussian framework: constants, smooth bounds vs brute force, Lemma 1 checks,
Monte Carlo privacy loss."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.accounting.gaussian import gaussian_delta
from privrl.core.accounting.smooth_sensitivity import (
    SmoothGaussianEvent,
    gaussian_hockey_stick_mc,
    lemma1_conditions,
    lsl_psi,
    lsl_psi_bound,
    lsl_smooth_bound,
    lsl_smooth_bound_bruteforce,
    lsw_smooth_bound,
    lsw_smooth_bound_bruteforce,
    smooth_gaussian_constants,
    smooth_gaussian_epsilon,
)
from privrl.core.mechanisms.smooth_sensitivity import smooth_gaussian_release


def test_constants():
    alpha, beta = smooth_gaussian_constants(0.1, 0.1, 40)
    assert alpha == pytest.approx(5 * math.sqrt(2 * math.log(20)) / 0.1)
    assert beta == pytest.approx(0.1 / (4 * (40 + math.log(20))))


@pytest.mark.parametrize(
    "epsilon, delta, d", [(0.1, 0.1, 40), (0.1, 0.1, 20), (0.7, 0.01, 3), (2.5, 1e-6, 1)]
)
def test_smooth_gaussian_event_round_trips_and_gives_back_its_epsilon(epsilon, delta, d):
    event = SmoothGaussianEvent.calibrated(epsilon, delta, d)
    again = event_from_dict(event_to_dict(event))
    assert again == event
    assert again.epsilon(delta) == pytest.approx(epsilon, rel=1e-12)
    alpha, beta = smooth_gaussian_constants(epsilon, delta, d)
    assert smooth_gaussian_epsilon(alpha, beta, delta, d) == pytest.approx(epsilon, rel=1e-12)
    # a looser delta never needs a larger epsilon
    assert event.epsilon(min(2 * delta, 0.99)) <= event.epsilon(delta) * (1 + 1e-12)


def test_smooth_gaussian_event_changes_with_its_budget_and_noise():
    event = SmoothGaussianEvent.calibrated(0.1, 0.1, 40)
    # halving the noise (sigma_X = alpha x smooth bound) doubles the epsilon
    halved = SmoothGaussianEvent(event.alpha / 2, event.beta, event.d)
    assert halved.epsilon(0.1) == pytest.approx(0.2, rel=1e-12)
    # doubling the smoothness budget beta (the bound may vary twice as fast) doubles it too
    doubled = SmoothGaussianEvent(event.alpha, 2 * event.beta, event.d)
    assert doubled.epsilon(0.1) == pytest.approx(0.2, rel=1e-12)
    # so does calibrating for twice the epsilon
    assert SmoothGaussianEvent.calibrated(0.2, 0.1, 40).epsilon(0.1) == pytest.approx(0.2)
    with pytest.raises(ValueError):
        SmoothGaussianEvent(0.0, event.beta, event.d)


def _full_range_lsw(counts, rho, beta):
    # independent: explicit loop over every k up to max count + 5 (phi_k written out)
    best = 0.0
    for k in range(int(max(counts)) + 6):
        phi = sum(r / max(c - k, 1) ** 2 for c, r in zip(counts, rho, strict=True))
        best = max(best, math.exp(-k * beta) * phi)
    return best


def test_lsw_bound_matches_enumeration_and_full_range():
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(1, 4))
        counts = rng.integers(0, 6, size=n)
        rho = rng.dirichlet(np.ones(n))
        beta = float(rng.uniform(0.01, 2.0))
        closed = lsw_smooth_bound(counts, rho, beta)
        assert closed == pytest.approx(
            lsw_smooth_bound_bruteforce(counts, rho, beta, int(counts.max()) + 3), rel=1e-12
        )
    for _ in range(300):  # larger counts: the breakpoint shortcut vs every k
        n = int(rng.integers(1, 10))
        counts = rng.integers(0, int(rng.integers(1, 500)), size=n)
        rho = rng.dirichlet(np.ones(n))
        beta = float(10 ** rng.uniform(-4, 0.5))
        assert lsw_smooth_bound(counts, rho, beta) == pytest.approx(
            _full_range_lsw(counts, rho, beta), rel=1e-12
        )


def test_lsl_bound_matches_enumeration():
    rng = np.random.default_rng(1)
    for _ in range(100):
        n = int(rng.integers(1, 4))
        m = int(rng.integers(1, 6))
        counts = rng.integers(0, m + 1, size=n)
        rho = rng.dirichlet(np.ones(n))
        beta = float(rng.uniform(0.01, 1.0))
        lam, norm = float(rng.uniform(0.5, 5)), float(rng.uniform(0.5, 2))
        assert lsl_smooth_bound(counts, m, rho, norm, lam, beta) == pytest.approx(
            lsl_smooth_bound_bruteforce(counts, m, rho, norm, lam, beta), rel=1e-12
        )


def test_smooth_bounds_are_beta_smooth_between_neighbours():
    # condition (b) at the level of signatures: counts that differ by at most one everywhere
    rng = np.random.default_rng(2)
    for _ in range(500):
        n, m = 8, 60
        c = rng.integers(0, m + 1, size=n)
        c2 = np.clip(c + rng.integers(-1, 2, size=n), 0, m)
        rho = rng.dirichlet(np.ones(n))
        beta = float(10 ** rng.uniform(-3, 0))
        for a, b in ((c, c2), (c2, c)):
            assert lsw_smooth_bound(a, rho, beta) <= math.exp(beta) * lsw_smooth_bound(
                b, rho, beta
            ) * (1 + 1e-12)
            la = lsl_smooth_bound(a, m, rho, 1.3, 2.0, beta)
            assert la <= math.exp(beta) * lsl_smooth_bound(b, m, rho, 1.3, 2.0, beta) * (1 + 1e-12)


def test_lemma1_conditions():
    alpha, beta = 10.0, 0.1
    assert lemma1_conditions([0.0, 0.0], [0.3, 0.4], 5.0, 5.0, alpha, beta) == (True, True)
    assert lemma1_conditions([0.0, 0.0], [0.3, 0.4], 4.9, 4.9, alpha, beta) == (False, True)
    assert lemma1_conditions([0.0], [0.0], 2.0, 1.0, alpha, beta) == (True, False)


def test_hockey_stick_mc_matches_exact_gaussian():
    # equal variances: delta(eps) of the Gaussian mechanism is known exactly (Balle and Wang 2018).
    # 200k samples give a standard error ~1e-3; we allow 5 SE plus 1e-3.
    mu_y = np.array([0.6, 0.8])  # ||shift|| = 1
    est, se = gaussian_hockey_stick_mc(np.zeros(2), 1.0, mu_y, 1.0, 0.5, 200_000, 0)
    exact = gaussian_delta(1.0, 0.5, 1.0)
    assert abs(est - exact) <= 5 * se + 1e-3


def test_release_noise_and_determinism():
    a = smooth_gaussian_release(np.zeros(50_000), 2.0, 3)
    assert np.array_equal(a, smooth_gaussian_release(np.zeros(50_000), 2.0, 3))
    assert a.std() == pytest.approx(2.0, rel=0.02)  # sd of the sd estimate ~0.3%


@pytest.mark.parametrize(
    "call",
    [
        lambda: smooth_gaussian_constants(0, 0.1, 3),
        lambda: smooth_gaussian_constants(0.1, 1.0, 3),
        lambda: smooth_gaussian_constants(0.1, 0.1, 0),
        lambda: lsw_smooth_bound([1, -1], [0.5, 0.5], 0.1),
        lambda: lsw_smooth_bound([1.5, 1], [0.5, 0.5], 0.1),
        lambda: lsw_smooth_bound([1, 1], [0.5], 0.1),
        lambda: lsw_smooth_bound([1, 1], [0.5, 0.5], 0.0),
        lambda: lsl_smooth_bound([3, 1], 2, [0.5, 0.5], 1.0, 1.0, 0.1),
        lambda: lsl_smooth_bound([1, 1], 2, [0.5, 0.5], 1.0, -1.0, 0.1),
        lambda: lemma1_conditions([0.0], [0.0, 1.0], 1.0, 1.0, 1.0, 0.1),
        lambda: smooth_gaussian_release([0.0], 0.0, 0),
        lambda: gaussian_hockey_stick_mc([0.0], 1.0, [0.0], 1.0, 1.0, 1, 0),
    ],
)
def test_input_validation(call):
    with pytest.raises(ValueError):
        call()


def test_total_variation_bound_covers_the_worst_pairs_lemma1_allows():
    """The TV bound (Pinsker on Lemma 1's conditions) is above the exact TV of every pair at the
    edge of both conditions (1-D: numerical integration; d = 3: exact 1-D reduction is not
    available, Monte Carlo with 200,000 samples and 4 standard errors of margin)."""
    from scipy import integrate, stats

    from privrl.core.accounting.smooth_sensitivity import (
        smooth_gaussian_constants,
        smooth_gaussian_tv_bound,
    )

    for eps, delta in ((0.1, 0.1), (1.0, 1e-3), (5.0, 1e-5)):
        alpha, beta = smooth_gaussian_constants(eps, delta, 1)
        bound = smooth_gaussian_tv_bound(alpha, beta, 1)
        for ratio in (math.exp(beta), math.exp(-beta)):  # sigma_x^2 / sigma_y^2 at its edges
            sy = 1.0
            sx = math.sqrt(ratio) * sy
            shift = min(sx, sy) / alpha  # condition (a) both ways round

            def half_gap(x, sx=sx, shift=shift, sy=sy):
                return abs(stats.norm.pdf(x, 0, sx) - stats.norm.pdf(x, shift, sy)) / 2

            tv, _ = integrate.quad(half_gap, -50, 50, limit=500)
            assert tv <= bound
    alpha, beta = smooth_gaussian_constants(0.5, 0.05, 3)
    gen = np.random.default_rng(0)
    sx, sy = math.exp(beta / 2), 1.0
    mu = np.array([sy / alpha, 0.0, 0.0])
    x = gen.normal(0, sx, size=(200_000, 3))
    log_p = stats.norm.logpdf(x, 0, sx).sum(axis=1)
    log_q = stats.norm.logpdf(x, mu, sy).sum(axis=1)
    terms = np.clip(1 - np.exp(log_q - log_p), 0, None)
    assert terms.mean() + 4 * terms.std() / math.sqrt(len(terms)) <= smooth_gaussian_tv_bound(
        alpha, beta, 3
    )
    # a doubled beta (a rougher bound on the sensitivity) raises the bound
    assert smooth_gaussian_tv_bound(alpha, 2 * beta, 3) > smooth_gaussian_tv_bound(alpha, beta, 3)


def test_lsl_psi_bound_is_the_largest_psi_over_datasets_of_m_trajectories():
    """Every signature of m = 6 trajectories over 3 states (counts 0..6), every k: psi_k is at
    most the bound, and meets it (at k = m, or with every count at m)."""
    rho = np.array([0.5, 0.3, 0.2])
    bound = lsl_psi_bound(6, rho, 1.7, 2.0)
    grid = np.array(np.meshgrid(*[np.arange(7)] * 3)).reshape(3, -1).T
    largest = max(float(lsl_psi(c, 6, rho, 1.7, 2.0, np.arange(7)).max()) for c in grid)
    assert largest == bound
    assert float(lsl_psi(np.full(3, 6), 6, rho, 1.7, 2.0, 0)[0]) == bound
