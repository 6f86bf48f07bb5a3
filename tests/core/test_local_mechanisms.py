"""Privacy and correctness of the local randomisers of Ono and Takahashi 2020."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from privrl.core.accounting.local import per_round_epsilon, sequential_epsilon
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.mechanisms import local as loc

EPSILONS = [0.1, 1.0, 2.0, 5.0, 10.0]


def _max_log_ratio_signs(prob_fn, u_bars: list[np.ndarray]) -> float:
    """Exact max over outputs in {-C,+C}^k and input pairs of log P(out|u)/P(out|u')."""
    worst = 0.0
    for a, b in itertools.permutations(u_bars, 2):
        pa, pb = prob_fn(a), prob_fn(b)
        # independent coordinates: the worst output picks the worse sign per coordinate
        per = np.maximum(np.log(pa) - np.log(pb), np.log1p(-pa) - np.log1p(-pb))
        worst = max(worst, float(per.sum()))
    return worst


@pytest.mark.parametrize("eps", EPSILONS)
def test_bit_flip_exact_ratio_is_e_eps_at_extremes(eps):
    p = loc.bit_flip_probability(np.array([-1.0, 1.0, 0.3]), eps)
    assert np.log(p[1] / p[0]) == pytest.approx(eps, rel=1e-12)
    assert np.log((1 - p[0]) / (1 - p[1])) == pytest.approx(eps, rel=1e-12)
    assert np.all((p > 0) & (p < 1))


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("d_hat", [1, 2, 4])
def test_prs_signs_exact_ldp_over_adversarial_inputs(eps, d_hat):
    clip = 1.0
    extremes = [np.array(v, dtype=float) for v in itertools.product([-5.0, 5.0, 0.0], repeat=d_hat)]
    u_bars = [np.clip(u, -clip, clip) for u in extremes]
    worst = _max_log_ratio_signs(lambda u: loc.sign_probability(u, eps, d_hat, clip), u_bars)
    assert worst <= eps + 1e-9
    assert worst == pytest.approx(eps, rel=1e-9)  # attained by opposite extremes


def test_weakened_prs_is_caught():
    """Budget eps per coordinate instead of eps/d_hat (the misprint's risk) exceeds eps."""
    eps, d_hat, clip = 1.0, 4, 1.0
    u_bars = [np.full(d_hat, -clip), np.full(d_hat, clip)]
    weak = _max_log_ratio_signs(lambda u: loc.bit_flip_probability(u / clip, eps), u_bars)
    assert weak > eps + 1.0


def test_prs_sampler_matches_sign_probability():
    """Empirical frequencies of u_tilde = +C given a fixed M equal the exact eq. (24) probabilities.

    200,000 draws: the binomial standard error is <= 0.0012, we allow 5 s.e. (false alarm ~6e-7
    per coordinate). A missing clip (|u| > C so the probability saturates at 0 or 1) or a doubled
    epsilon shifts the frequencies by > 0.05 and would fail.
    """
    rng = np.random.default_rng(0)
    d, d_hat, eps, clip, n = 6, 2, 2.0, 1.0, 200_000
    m = loc.random_projection(1, d_hat, d, rng)[0]
    g = np.array([0.4, -0.3, 0.2, 0.9, -2.0, 0.1])
    u_bar = np.clip(m @ g, -clip, clip)
    p = loc.sign_probability(u_bar, eps, d_hat, clip)
    out = loc.projected_random_sign(
        np.tile(g, (n, 1)), eps, clip, rng, matrix=np.broadcast_to(m, (n, d_hat, d))
    )
    # recover u_tilde from M^T u_tilde by least squares (M has full row rank)
    u_tilde = np.linalg.lstsq(m.T, out.T, rcond=None)[0].T
    assert np.allclose(np.abs(u_tilde), clip, atol=1e-8)
    freq = (u_tilde > 0).mean(axis=0)
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) < 5 * se)


def test_missing_clip_is_caught_by_probability_range():
    with pytest.raises(ValueError):
        loc.sign_probability(np.array([3.0]), 1.0, 1, 1.0)


@pytest.mark.parametrize("eps", [0.5, 1.0, 5.0])
def test_laplace_density_ratio_bounded(eps):
    """Density ratio of outputs for two clipped adversarial inputs is <= e^eps (scipy's pdf)."""
    clip, d = 0.01, 112
    rng = np.random.default_rng(1)
    g1 = np.zeros(d)
    g1[0] = 100.0  # clipped to (C/2) e_0
    g2 = np.zeros(d)
    g2[0] = -100.0  # clipped to -(C/2) e_0: L1 distance exactly C
    b1, b2 = loc.clip_l1(np.stack([g1, g2]), clip / 2)
    assert np.abs(b1 - b2).sum() == pytest.approx(clip)
    ys = loc.laplace_gradient_mechanism(np.tile(g1, (2000, 1)), eps, clip, rng)
    scale = clip / eps
    logr = stats.laplace.logpdf(ys, b1, scale).sum(1) - stats.laplace.logpdf(ys, b2, scale).sum(1)
    assert np.max(np.abs(logr)) <= eps + 1e-9
    assert np.max(np.abs(logr)) == pytest.approx(eps, rel=1e-6)  # outputs beyond both centres


def test_weakened_laplace_is_caught():
    """Noise calibrated to C/2 instead of C (or no clip) breaks the density-ratio bound."""
    eps, clip = 1.0, 0.01
    b1, b2 = np.array([clip / 2]), np.array([-clip / 2])
    y = np.array([1.0])
    weak = stats.laplace.logpdf(y, b1, clip / (2 * eps)) - stats.laplace.logpdf(
        y, b2, clip / (2 * eps)
    )
    assert weak[0] > eps + 0.5


def test_laplace_noise_scale_matches_c_over_eps():
    """Variance of the noise is 2 (C/eps)^2: 20,000 x 112 samples give a relative s.e. ~0.4%."""
    rng = np.random.default_rng(2)
    out = loc.laplace_gradient_mechanism(np.zeros((20_000, 112)), 2.0, 0.01, rng)
    assert out.var() == pytest.approx(2 * (0.01 / 2.0) ** 2, rel=0.02)


def test_clip_bounds():
    rng = np.random.default_rng(3)
    g = rng.normal(size=(500, 112)) * rng.exponential(size=(500, 1)) * 10
    c = loc.clip_l1(g, 0.005)
    assert np.all(np.abs(c).sum(1) <= 0.005 + 1e-12)
    small = g / np.abs(g).sum(1, keepdims=True) * 0.001
    assert np.allclose(loc.clip_l1(small, 0.005), small)
    out = loc.laplace_gradient_mechanism(g, math.inf, 0.01, rng)
    assert np.allclose(out, c)


def test_projection_moments():
    rng = np.random.default_rng(4)
    m = loc.random_projection(4000, 3, 20, rng)
    assert set(np.unique(m)) <= {-math.sqrt(3), 0.0, math.sqrt(3)}
    mtm = np.einsum("nkd,nke->de", m, m) / (4000 * 3)
    # each entry of the average has s.d. <= sqrt(2/12000) ~ 0.013 (off-diagonal) / 0.02 (diag)
    assert np.abs(mtm - np.eye(20)).max() < 0.1


def test_prs_shrinkage_factor():
    """Without active clipping E[M^T u_tilde] = d_hat tanh(eps/(2 d_hat)) g."""
    rng = np.random.default_rng(5)
    d, eps, d_hat, n = 8, 5.0, 2, 400_000
    g = rng.normal(size=d)
    g *= 0.9 / (math.sqrt(3) * np.abs(g).sum())  # |M g| <= sqrt3 ||g||_1 < C = 1
    out = loc.projected_random_sign(np.tile(g, (n, 1)), eps, 1.0, rng, d_hat=d_hat)
    factor = d_hat * math.tanh(eps / (2 * d_hat))
    se = out.std(0) / math.sqrt(n)
    assert np.all(np.abs(out.mean(0) - factor * g) < 5 * se)


def test_default_projection_dim():
    assert [loc.default_projection_dim(e, 112) for e in (1, 2, 5, 10)] == [1, 1, 2, 4]
    assert loc.default_projection_dim(1000, 112) == 112
    assert loc.default_projection_dim(math.inf, 112) == 112


def test_multi_round_budget():
    assert per_round_epsilon(1.0, 4) == 0.25
    assert sequential_epsilon([per_round_epsilon(3.0, 3)] * 3) == pytest.approx(3.0)
    assert per_round_epsilon(math.inf, 2) == math.inf


@pytest.mark.parametrize(
    "call",
    [
        lambda: loc.laplace_gradient_mechanism(np.ones((2, 3)), 0.0, 0.01, 0),
        lambda: loc.laplace_gradient_mechanism(np.ones((2, 3)), -1.0, 0.01, 0),
        lambda: loc.laplace_gradient_mechanism(np.ones((2, 3)), 1.0, 0.0, 0),
        lambda: loc.projected_random_sign(np.ones((2, 3)), 1.0, 1.0, 0, d_hat=0),
        lambda: loc.projected_random_sign(np.ones((2, 3)), 1.0, -1.0, 0),
        lambda: loc.projected_random_sign(np.ones((2, 3)), 0.0, 1.0, 0),
        lambda: loc.bit_flip(np.array([0.5]), 0.0, 0),
        lambda: loc.bit_flip(np.array([1.5]), 1.0, 0),
        lambda: loc.random_projection(1, 0, 3, 0),
        lambda: loc.laplace_gradient_mechanism(np.array([np.nan]), 1.0, 0.01, 0),
        lambda: per_round_epsilon(1.0, 0),
        lambda: per_round_epsilon(0.0, 1),
    ],
)
def test_bad_inputs_raise(call):
    with pytest.raises(ValueError):
        call()


def test_default_laplace_release_is_on_the_grid_and_the_float_one_is_not():
    """Default: every output a multiple of 2^-30, the sum of two exact parts (the private release
    on doubles). floating_point=True: the textbook float Laplace, off the grid."""
    g = np.random.default_rng(5).normal(size=(200, 112))
    gbar, noise = loc.laplace_gradient_parts(g, 1.0, 0.01, 6)
    for part in (gbar, noise, gbar + noise):
        np.testing.assert_array_equal(part / dl.DEFAULT_STEP, np.rint(part / dl.DEFAULT_STEP))
    np.testing.assert_allclose(gbar, loc.clip_l1(g, 0.005), rtol=0, atol=dl.DEFAULT_STEP / 2)
    np.testing.assert_array_equal(loc.laplace_gradient_mechanism(g, 1.0, 0.01, 6), gbar + noise)
    fgbar, fnoise = loc.laplace_gradient_parts(g, 1.0, 0.01, 6, floating_point=True)
    np.testing.assert_array_equal(fgbar, loc.clip_l1(g, 0.005))
    np.testing.assert_array_equal(fnoise, np.random.default_rng(6).laplace(0.0, 0.01, (200, 112)))
    off = fnoise / dl.DEFAULT_STEP
    assert np.mean(off != np.rint(off)) > 0.99


def test_grid_release_draws_the_scale_of_sensitivity_c(monkeypatch):
    """The sampler gets the discrete Laplace scale for L1 sensitivity C (not C/2) at epsilon over
    the gradient's d coordinates; a halved scale would show here."""
    seen = []
    real = dl.sample_discrete_laplace
    monkeypatch.setattr(
        dl,
        "sample_discrete_laplace",
        lambda scale, size, rng: seen.append(scale) or real(scale, size, rng),
    )
    loc.laplace_gradient_mechanism(np.ones((4, 112)), 0.5, 0.01, 0)
    assert seen == [dl.grid_scale(0.01, 0.5, 112, dl.DEFAULT_STEP)]
    assert loc.laplace_grid_scale(0.01, 0.5, 112) == seen[0]


def test_grid_noise_mean_absolute_deviation_is_the_inflated_c_over_eps():
    """E|noise| of the discrete Laplace of scale t (grid units) is 2 q / (1 - q^2) steps,
    q = e^(-1/t), about t steps = C/eps times the inflation: 100,000 x 112 draws give a relative
    s.e. of 0.03%; half or twice the scale is off by 50% or 100%."""
    eps, clip = 2.0, 0.01
    noise = loc.laplace_gradient_parts(np.zeros((100_000, 112)), eps, clip, 7)[1]
    t = float(loc.laplace_grid_scale(clip, eps, 112))
    q = math.exp(-1.0 / t)
    expected = 2 * q / (1 - q * q) * dl.DEFAULT_STEP
    assert np.abs(noise).mean() == pytest.approx(expected, rel=2e-3)
    assert expected == pytest.approx(clip / eps * dl.noise_inflation(clip, eps, 112), rel=1e-6)


def test_grid_release_epsilon_one_coordinate_exact():
    """The exact probability ratio of the grid release on neighbouring clipped inputs
    +-(C/2) e_1: the integer centres differ by 2 rint(C/2 / step), the discrete Laplace ratio is
    e^(distance / t) at most, never above epsilon."""
    eps, clip = 1.0, 0.01
    t = loc.laplace_grid_scale(clip, eps, 112)
    pair = np.zeros((2, 112))
    pair[0, 0], pair[1, 0] = 1.0, -1.0
    centres = loc.laplace_gradient_parts(pair, math.inf, clip, 0)[0]
    distance = int(
        np.abs(np.rint(centres[0] / dl.DEFAULT_STEP) - np.rint(centres[1] / dl.DEFAULT_STEP)).sum()
    )
    assert distance / t <= eps
    assert float(distance / t) == pytest.approx(eps, rel=2e-5)


def test_generator_random_draws_multiples_of_two_to_the_minus_53():
    """The fact the realised probabilities rest on: ``random() = k 2^-53``, k an integer."""
    draws = np.random.default_rng(7).random(200_000) * loc.RANDOM_RESOLUTION
    assert np.array_equal(draws, np.floor(draws)) and draws.max() < loc.RANDOM_RESOLUTION


@pytest.mark.parametrize("eps", [1e-9, 0.1, 1.0, 5.0, 20.0, 34.0, 36.0, 36.7, 36.8, 40.0, 100.0])
def test_flip_floor_is_the_least_grid_probability_within_the_budget(eps):
    """q = K 2^-53 with (1 - q)/q <= e^eps and K - 1 failing it (K >= 1), checked with exact
    integers against an 80-digit exp, independently of the function's own 50-digit check."""
    import mpmath

    n, q = loc.RANDOM_RESOLUTION, loc.flip_floor(eps)
    k = q * n
    assert k == int(k) and k >= 1
    with mpmath.workdps(80):
        bound = mpmath.exp(mpmath.mpf(eps))
        assert n - k <= k * bound
        assert k == 1 or n - (k - 1) > (k - 1) * bound


@pytest.mark.parametrize("eps", [0.5, 5.0, 30.0, 34.0, 35.0, 36.0, 37.4, 40.0, 100.0, 700.0])
def test_bit_flip_as_drawn_is_epsilon_ldp(eps):
    """The probabilities as drawn (ceil(p 2^53) 2^-53) at x = -1 and +1 keep both outputs'
    ratios within e^eps, exactly; without the clamp p(+1) rounds to 1 beyond eps = 37.4 (ratio
    infinite) and at eps = 35 the ratio is e^35.13."""
    import mpmath

    n = loc.RANDOM_RESOLUTION
    lo, hi = (
        int(v)
        for v in loc.realised_probability(loc.bit_flip_probability(np.array([-1.0, 1.0]), eps)) * n
    )
    assert 1 <= lo <= hi <= n - 1
    with mpmath.workdps(80):
        bound = mpmath.exp(mpmath.mpf(eps))
        assert hi <= lo * bound and n - lo <= (n - hi) * bound


def test_sign_report_epsilon_holds_for_any_budget():
    """epsilon = 100 per sign: the signs as drawn are at most log(2^53 - 1) = 36.7-LDP each, and
    the release says so (it used to state 100 for signs whose flip probability was 0)."""
    import privrl

    r = privrl.sign_report([[0.3]], epsilon=100.0, clip=1.0, rng=0)
    assert r.parameters["d_hat"] == 1
    assert r.epsilon == pytest.approx(math.log(loc.RANDOM_RESOLUTION - 1), rel=1e-12)
    assert r.parameters["flip_probability"] == 2.0**-53
    small = privrl.sign_report([[0.3, 0.1]], epsilon=1.0, clip=1.0, rng=0)
    assert small.epsilon <= 1.0 and small.epsilon == pytest.approx(1.0, rel=1e-12)


def test_prs_never_fails_on_gradients_near_the_double_range():
    """M g can be inf - inf = NaN for finite g near 1.8e308: such an entry counts as 0 (a function
    of the row alone), so the report exists for every seed (a release that raises only for some
    draws would tell whether such a gradient is present)."""
    g = np.array([[1.6e308, -1.6e308]])
    for seed in range(200):
        out = loc.projected_random_sign(g, 1.0, 1.0, seed, d_hat=2)
        assert np.all(np.isfinite(out))
