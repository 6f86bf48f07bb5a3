"""Dirichlet mechanism (Gohari et al. 2021): sampling, Theorem 1, Lemma 1, Lipschitz certificate."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats
from scipy.special import gammaln

from privrl.core.accounting import dirichlet as acc
from privrl.core.mechanisms.dirichlet import (
    check_policy,
    dirichlet_log_density,
    dirichlet_mechanism,
    into_restricted_simplex,
    restrict_to_simplex,
)
from privrl.core.validation import ClippedDataWarning

PI = np.array([0.1, 0.2, 0.3, 0.4])


def moments_ok(sampler, k: float = 10.0, n: int = 200_000) -> bool:
    """Mean pi and variance pi(1 - pi)/(k + 1) per coordinate. Tolerances: 5 standard errors for the
    mean (false-positive rate < 1e-5 per coordinate); 4% relative for the variance, whose relative
    standard error is about sqrt(2/n) * (1 + excess kurtosis/2)^(1/2) < 0.5% here, so the
    true mechanism fails with negligible probability while a mechanism with 2x the concentration
    (half the variance) fails surely."""
    x = sampler(np.broadcast_to(PI, (n, 4)), k, np.random.default_rng(1))
    var = PI * (1 - PI) / (k + 1)
    mean_ok = np.all(np.abs(x.mean(0) - PI) < 5 * np.sqrt(var / n))
    var_ok = np.all(np.abs(x.var(0) / var - 1) < 0.04)
    return bool(mean_ok and var_ok)


def test_sampling_mean_and_concentration():
    assert moments_ok(dirichlet_mechanism)


def test_weakened_mechanism_is_caught():
    def weak(pi, k, rng):  # less noise: twice the concentration
        return dirichlet_mechanism(pi, 2 * k, rng)

    assert not moments_ok(weak)


def test_tiny_k_stays_on_simplex_and_tends_to_categorical():
    x = dirichlet_mechanism(np.broadcast_to(PI, (50_000, 4)), 1e-6, 0)
    assert np.all(np.isfinite(x)) and np.allclose(x.sum(1), 1)
    # as k -> 0 the output is one-hot with the argmax distributed as pi
    freq = np.bincount(x.argmax(1), minlength=4) / len(x)
    assert np.all(np.abs(freq - PI) < 5 * np.sqrt(PI * (1 - PI) / len(x)))


def test_log_density_matches_scipy():
    z = np.random.default_rng(0).dirichlet(np.ones(4), 5)
    ours = dirichlet_log_density(z, PI, 7.0)
    ref = [stats.dirichlet.logpdf(zi, 7.0 * PI) for zi in z]
    np.testing.assert_allclose(ours, ref, rtol=1e-10)


def _sup_log_ratio_m2(k, eta, tau, rho, n=301):
    """Independent brute-force sup over a grid of pi, pi' in Delta_{2,eta} with ||pi - pi'||_2 <= rho
    and z in Delta_{2,tau} (1-d parametrisations p, p', x), using scipy's Beta log density."""
    p = np.linspace(eta, 1 - eta, n)
    x = np.linspace(tau, 1 - tau, n)
    best = -np.inf
    for pp in p:
        q = p[np.sqrt(2) * np.abs(p - pp) <= rho + 1e-12]
        lr = stats.beta.logpdf(x[None, :], k * pp, k * (1 - pp)) - stats.beta.logpdf(
            x[None, :], k * q[:, None], k * (1 - q[:, None])
        )
        best = max(best, lr.max())
    return best


@pytest.mark.parametrize("k,rho", [(5.0, 0.1), (2.0, 0.3), (20.0, 0.05)])
def test_epsilon_bounds_sup_of_log_ratio(k, rho):
    eta, tau = 0.1, 1e-3
    sup = _sup_log_ratio_m2(k, eta, tau, rho)
    eps = acc.theorem1_epsilon(acc.Theorem1Mechanism(k, 2, eta, tau), rho, 1.0)
    assert sup <= eps + 1e-9
    # the comparison is not vacuous: the bound is within a small factor of the true sup
    assert sup >= 0.3 * eps


def test_gamma_terms_are_eq25():
    k, m, eta = 5.0, 6, 0.1
    want = (m - 1) * gammaln(k * eta) + gammaln(k * (1 - (m - 1) * eta)) - m * gammaln(k / m)
    assert acc.gamma_terms(k, m, eta) == pytest.approx(want)
    # eq. (22)/(24): sum log Gamma(k pi) over the restricted simplex lies between uniform and vertex
    pis = restrict_to_simplex(np.random.default_rng(0).dirichlet(np.ones(m), 5000), eta)
    s = gammaln(k * pis).sum(1)
    assert s.min() >= m * gammaln(k / m) - 1e-9
    assert s.max() <= gammaln(k * acc.vertex_policy(m, eta)).sum() + 1e-9


@pytest.mark.parametrize(
    "m,k,eta,tau",
    [(2, 5.0, 0.1, 0.01), (2, 0.7, 0.3, 0.1), (3, 5.0, 0.1, 0.01), (3, 2.0, 0.2, 0.05)],
)
def test_delta_monte_carlo_vs_integration(m, k, eta, tau):
    mech = acc.Theorem1Mechanism(k, m, eta, tau)
    exact = acc.theorem1_delta_integral(mech)
    mc = acc.theorem1_delta_mc(mech, 3, n_samples=100_000, confidence=0.999)
    # one-sided 99.9% upper bound, and the estimate within 4.5 binomial standard errors
    assert exact <= mc.upper
    assert abs(mc.estimate - exact) < 4.5 * math.sqrt(exact * (1 - exact) / mc.n_samples)


def test_monte_carlo_estimates_carry_the_exact_clopper_pearson_upper_bound():
    # the upper bound u solves P(Binomial(n, u) <= k) = 1 - confidence (an independent root find)
    for k, n, conf in ((0, 1000, 0.95), (37, 1000, 0.999), (5, 20, 0.95)):
        est = acc.DeltaEstimate.from_count(k, n, conf)
        root = optimize.brentq(
            lambda u, k=k, n=n, conf=conf: stats.binom.cdf(k, n, u) - (1 - conf),
            k / n,
            1.0,
            xtol=1e-14,
        )
        assert (est.estimate, est.n_outside, est.n_samples, est.confidence) == (k / n, k, n, conf)
        assert est.upper == pytest.approx(root, rel=1e-9)
    assert acc.DeltaEstimate.from_count(50, 50, 0.95).upper == 1.0
    tail = acc.lemma1_tail_mc(np.full(3, 1 / 3), 5.0, 0.3, 4, 2000)
    assert tail == acc.DeltaEstimate.from_count(tail.n_outside, 2000, 0.95)


def test_delta_is_a_vertex_worst_case():
    # eq. (11): the vertex minimises P(Dir_k(p) in Delta_{m,tau}) over Delta_{m,eta}
    k, m, eta, tau = 3.0, 2, 0.1, 0.05
    worst = acc.theorem1_delta_integral(acc.Theorem1Mechanism(k, m, eta, tau))
    for p in np.linspace(eta, 1 - eta, 21):
        inside = stats.beta.cdf(1 - tau, k * p, k * (1 - p)) - stats.beta.cdf(
            tau, k * p, k * (1 - p)
        )
        assert 1 - inside <= worst + 1e-12


def test_lemma1_printed_radius_fails_union_radius_holds():
    pi = np.full(6, 1 / 6)
    r = acc.lemma1_printed_radius(5.0, 0.05)
    tail = acc.lemma1_tail_mc(pi, 5.0, r, 0, 100_000)
    lower = stats.beta.ppf(1e-4, tail.n_outside, tail.n_samples - tail.n_outside + 1)
    assert lower > 0.05  # the printed Lemma 1 fails, with confidence 1 - 1e-4
    for k in (1.0, 5.0, 50.0):
        t = acc.lemma1_tail_mc(acc.vertex_policy(6, 0.1), k, acc.lemma1_union_radius(k, 6, 0.05), 1)
        assert t.upper <= 0.05


def test_lipschitz_certificate_bounds_jacobians():
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(5, 16),
        torch.nn.Tanh(),
        torch.nn.Linear(16, 16),
        torch.nn.Tanh(),
        torch.nn.Linear(16, 3),
    )
    weights = [m.weight.detach().numpy() for m in net if isinstance(m, torch.nn.Linear)]
    bound = acc.mlp_lipschitz_bound(weights)
    f = lambda x: torch.softmax(net(x), -1)  # noqa: E731
    norms = [
        torch.linalg.matrix_norm(torch.autograd.functional.jacobian(f, torch.randn(5) * 3), 2)
        for _ in range(200)
    ]
    assert max(norms) <= bound
    # softmax's constant 1/2 is attained at equal logits of two actions
    jac = torch.autograd.functional.jacobian(lambda z: torch.softmax(z, -1), torch.zeros(2))
    assert float(torch.linalg.matrix_norm(jac, 2)) == pytest.approx(acc.SOFTMAX_LIPSCHITZ)


def test_reproduces_paper_pair_for_stated_parameters():
    tau = acc.tau_for_delta_bound(0.05, 5.0, 6, 0.1)
    mech = acc.Theorem1Mechanism(5.0, 6, 0.1, tau)
    lb = acc.lipschitz_b_for_epsilon(4.46, mech)
    assert acc.theorem1_epsilon(mech, lb, 1.0) == pytest.approx(4.46)
    assert acc.theorem1_delta_bound(mech) <= 0.05
    with pytest.raises(ValueError, match="Gamma terms"):
        acc.lipschitz_b_for_epsilon(4.46, acc.Theorem1Mechanism(5.0, 6, 0.05, tau))


@pytest.mark.parametrize(
    "k,eta,tau",
    [(5.0, 0.1, 4.61e-4), (5.0, 0.1, 0.01), (0.7, 0.3, 0.1), (20.0, 0.2, 0.3), (0.05, 0.1, 1e-5)],
)
def test_delta_bound_is_exact_at_m2(k, eta, tau):
    # two events X_1 < tau, X_2 < tau are disjoint for tau < 1/2: the sum of Beta CDFs is exact;
    # against direct numerical integration of the Beta density over the two tails
    a, b = k * eta, k * (1 - eta)
    c = math.exp(gammaln(a + b) - gammaln(a) - gammaln(b))
    # the density's x^(a-1) and (1-x)^(b-1) singularities as quadrature weights
    low = integrate.quad(lambda x: c * (1 - x) ** (b - 1), 0, tau, weight="alg", wvar=(a - 1, 0))[0]
    high = integrate.quad(lambda x: c * x ** (a - 1), 1 - tau, 1, weight="alg", wvar=(0, b - 1))[0]
    tails = low + high
    mech = acc.Theorem1Mechanism(k, 2, eta, tau)
    bound = acc.theorem1_delta_bound(mech)
    assert bound >= tails - 1e-9 and bound == pytest.approx(tails, rel=1e-7, abs=1e-12)
    assert bound == pytest.approx(acc.theorem1_delta_integral(mech), rel=1e-9)
    assert acc.theorem1_delta_lower(mech) <= bound


def test_delta_bounds_at_m6_enclose_monte_carlo():
    k, m, eta, tau = 5.0, 6, 0.1, 1.84e-5
    mech = acc.Theorem1Mechanism(k, m, eta, tau)
    upper, lower = acc.theorem1_delta_bound(mech), acc.theorem1_delta_lower(mech)
    mc = acc.theorem1_delta_mc(mech, 11, n_samples=400_000)
    se = math.sqrt(upper * (1 - upper) / mc.n_samples)
    assert 0.0485 < lower <= upper <= 0.05
    assert upper - lower < 2e-3  # the union bound's slack: pairs of small coordinates
    assert lower - 4 * se <= mc.estimate <= upper + 4 * se
    # m = 3 against two-dimensional quadrature: the bounds enclose the exact value
    m3 = acc.Theorem1Mechanism(5.0, 3, 0.1, 0.01)
    exact = acc.theorem1_delta_integral(m3)
    assert acc.theorem1_delta_lower(m3) <= exact + 1e-9
    assert acc.theorem1_delta_bound(m3) >= exact


def test_delta_bound_is_eq_6_rounded_up():
    """The union bound of eq. (6) at the vertex, against mpmath at 80 digits: never below it and
    within 1e-11 relative (exact for m = 2), including k eta well below 1 and tau near 1/m."""
    for k, m, eta, tau in [
        (5.0, 2, 0.1, 4.61e-4),
        (5.0, 6, 0.1, 1.84e-5),
        (0.5, 3, 0.05, 0.3),
        (40.0, 4, 0.2, 0.25),
    ]:
        bound = acc.theorem1_delta_bound(acc.Theorem1Mechanism(k, m, eta, tau))
        with mpmath.workdps(80):
            v = [mpmath.mpf(eta)] * (m - 1) + [1 - (m - 1) * mpmath.mpf(eta)]
            exact = min(
                1, sum(mpmath.betainc(k * x, k * (1 - x), 0, tau, regularized=True) for x in v)
            )
            assert mpmath.mpf(bound) >= exact
            assert mpmath.mpf(bound) <= exact * (1 + 1e-11)


def test_the_restricted_simplex_is_kept_exactly_or_entered_by_projection():
    """Theorem 1 assumes every entry at least eta: an entry 1e-9 below is refused by the
    mechanism (a tolerance of 1e-6 let it through before), and ``into_restricted_simplex``
    projects it (warning) or refuses it (strict); a policy inside is returned unchanged."""
    eta = 0.05
    below = np.array([[eta - 1e-9, 1 - eta + 1e-9], [0.5, 0.5]])
    with pytest.raises(ValueError, match="below eta"):
        dirichlet_mechanism(below, 5.0, 0, eta=eta)
    with pytest.warns(ClippedDataWarning, match=r"policy: entries lie below eta = 0.05"):
        inside = into_restricted_simplex(below, eta)
    assert np.all(inside >= eta) and np.allclose(inside.sum(axis=1), 1.0)
    assert np.array_equal(inside[1], below[1])
    with pytest.raises(ValueError, match=r"policy: entries lie below eta"):
        into_restricted_simplex(below, eta, strict=True)
    assert into_restricted_simplex(below[1:], eta) is not None
    np.testing.assert_array_equal(into_restricted_simplex(below[1:], eta), below[1:])
    cube = np.random.default_rng(0).dirichlet(np.full(3, 0.3), size=(4, 5))
    with pytest.warns(ClippedDataWarning):
        projected = into_restricted_simplex(cube, 0.1)
    assert projected.shape == cube.shape and np.all(projected >= 0.1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: acc.Theorem1Mechanism(5.0, 2, 1e-300, 0.01), "eta = 1e-300 is so small"),
        (lambda: acc.Theorem1Mechanism(5e-324, 2, 0.05, 0.01), "k, eta: the Dirichlet parameter"),
        (lambda: dirichlet_mechanism(PI, 5e-324, 0, eta=0.05), "k, eta: the Dirichlet parameter"),
    ],
)
def test_a_mechanism_on_doubles_that_would_not_be_theorem_1s_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_tau_by_bisection_meets_the_target_from_below():
    for m, delta in [(2, 0.05), (6, 0.05), (6, 1e-3), (3, 0.2)]:
        tau = acc.tau_for_delta_bound(delta, 5.0, m, 0.1)
        assert _delta_bound(m, tau) <= delta
        assert _delta_bound(m, tau * (1 + 1e-8)) > delta * (1 - 1e-6)
    # the quick and paper profiles' tau (rounded down) meet delta = 0.05; a Monte Carlo quantile
    # (the former 4.8e-4 and 1.88e-5) did not
    assert _delta_bound(2, 4.61e-4) <= 0.05 < _delta_bound(2, 4.8e-4)
    assert _delta_bound(6, 1.84e-5) <= 0.05 < _delta_bound(6, 1.88e-5)


def _delta_bound(m: int, tau: float) -> float:
    """The rigorous bound on eq. (6) at k = 5, eta = 0.1."""
    return acc.theorem1_delta_bound(acc.Theorem1Mechanism(5.0, m, 0.1, tau))


def test_teacher_budget_composition():
    out = acc.teacher_budget([0.5, 0.5, 0.0], [0.01, 0.01, 0.0], delta_slack=1e-5)
    assert out["n_queries"] == 2
    assert out["basic_epsilon"] == pytest.approx(1.0) and out["basic_delta"] == pytest.approx(0.02)
    want = math.sqrt(2 * 2 * math.log(1e5)) * 0.5 + 2 * 0.5 * math.expm1(0.5)
    assert out["advanced_epsilon"] == pytest.approx(want)


@pytest.mark.parametrize(
    "call",
    [
        lambda: dirichlet_mechanism(PI, 0.0, 0),
        lambda: dirichlet_mechanism(PI, -1.0, 0),
        lambda: dirichlet_mechanism([0.5, 0.6], 1.0, 0),
        lambda: dirichlet_mechanism([1.2, -0.2], 1.0, 0),
        lambda: dirichlet_mechanism(PI, 1.0, 0, eta=0.15),  # 0.1 < eta
        lambda: check_policy(PI, eta=0.25),  # eta = 1/m
        lambda: check_policy(PI, eta=0.0),
        lambda: acc.theorem1_epsilon(acc.Theorem1Mechanism(5.0, 4, 0.3, 0.01), 1.0, 1.0),
        lambda: acc.theorem1_epsilon(
            acc.Theorem1Mechanism(5.0, 4, 0.1, 0.3), 1.0, 1.0
        ),  # tau > 1/m
        lambda: acc.theorem1_epsilon(acc.Theorem1Mechanism(0.0, 4, 0.1, 0.01), 1.0, 1.0),
        lambda: acc.theorem1_delta_integral(acc.Theorem1Mechanism(5.0, 4, 0.1, 0.01)),
        lambda: acc.theorem1_delta_bound((5.0, 4, 0.1, 0.01)),  # a bare tuple is no mechanism
        lambda: acc.Theorem1Mechanism(5.0, 1, 0.1, 0.01),  # m = 1
        lambda: acc.lemma1_printed_radius(5.0, 1.5),
        lambda: acc.teacher_budget([0.1], [0.1, 0.2]),
    ],
)
def test_bad_inputs_raise(call):
    with pytest.raises(ValueError):
        call()


def test_teacher_budget_with_a_query_without_guarantee_is_vacuous():
    out = acc.teacher_budget([0.5, 2.0], [0.01, 1.0], delta_slack=1e-5)
    assert out["basic_delta"] == 1.0 and out["basic_epsilon"] == pytest.approx(2.5)
    assert out["advanced_epsilon"] == math.inf and out["advanced_delta"] == 1.0


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: acc.teacher_budget([math.nan, 1.0], [0.01, 0.01]), "epsilons"),
        (lambda: acc.teacher_budget([0.5, 1.0], [0.01, math.inf]), "deltas"),
        (lambda: acc.mlp_lipschitz_bound([np.full((3, 2), math.nan)]), r"weights\[0\]"),
        (lambda: acc.mlp_lipschitz_bound([np.eye(2), np.ones(3)]), r"weights\[1\]"),
        (lambda: dirichlet_mechanism(np.broadcast_to(PI, (5, 4)), np.ones(3), 0), "k of shape"),
        (lambda: dirichlet_mechanism(PI, np.ones(3), 0), "k of shape"),
        (lambda: dirichlet_mechanism(PI, math.nan, 0), "k"),
        (lambda: dirichlet_mechanism([0.5, math.nan], 1.0, 0), "policy"),
    ],
)
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_per_row_concentration_broadcasts():
    x = dirichlet_mechanism(np.broadcast_to(PI, (3, 4)), np.array([1.0, 2.0, 3.0]), 0)
    assert x.shape == (3, 4) and np.allclose(x.sum(1), 1)


def test_accounting_does_not_import_mechanisms():
    import subprocess
    import sys

    code = (
        "import sys, privrl.core.accounting.dirichlet; "
        "print(any(m.startswith('privrl.core.mechanisms') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _policies(m: int, eta: float, n: int, seed: int) -> np.ndarray:
    """Uniform, vertex and ``n`` random policies of Delta_{m,eta} (independent of the radius's own draws)."""
    rng = np.random.default_rng(seed)
    return np.vstack(
        [
            np.full(m, 1 / m),
            acc.vertex_policy(m, eta),
            (1 - m * eta) * rng.dirichlet(np.full(m, 0.5), n) + eta,
        ]
    )


@pytest.mark.parametrize("k", [2.0, 5.0, 18.0])
@pytest.mark.parametrize("kind", ["subgaussian", "mc"])
def test_valid_lemma1_radii_cover_95_percent(k, kind):
    """Coverage >= 95% at every tested policy (m = 6, eta = 0.1): the one-sided 95% Clopper-Pearson
    upper bound of the tail P(||Dir_k(pi) - pi|| >= r) stays <= beta = 0.05, 60,000 fresh draws per
    policy. The Monte Carlo radius targets the 95.5% quantile, so its true tail is about 0.045
    and the bound (about +0.0015) has slack; a radius 10% smaller has a tail far above 0.05."""
    r = acc.lemma1_radius(kind, k, 6, 0.05, 0.1)
    for j, pi in enumerate(_policies(6, 0.1, 6, seed=100 + int(k))):
        tail = acc.lemma1_tail_mc(pi, k, r, 10 * j + 1, 60_000)
        assert tail.upper <= 0.05, (kind, k, pi, tail)
    worst = max(
        acc.lemma1_tail_mc(pi, k, 0.9 * acc.lemma1_mc_radius(k, 6, 0.05, 0.1), 7, 60_000).estimate
        for pi in _policies(6, 0.1, 0, seed=0)
    )
    assert worst > 0.06  # the check has power: a slightly smaller radius fails it


def test_valid_radii_are_tighter_than_the_union_radius():
    for k in (2.0, 5.0, 18.0):
        union = acc.lemma1_union_radius(k, 6, 0.05)
        sub = acc.lemma1_subgaussian_radius(k, 6, 0.05)
        mc = acc.lemma1_mc_radius(k, 6, 0.05, 0.1)
        assert mc < sub < 0.6 * union
    # the proven bound at k = 5, m = 6: sigma^2 = 1/24, d = 5, t = log 20
    t = math.log(20)
    assert acc.lemma1_subgaussian_radius(5.0, 6, 0.05) == pytest.approx(
        math.sqrt((5 + 2 * math.sqrt(5 * t) + 2 * t) / 24)
    )


def test_quantile_upper_index_has_its_confidence():
    # P(X_(j) >= q) = P(Binomial(n, level) <= j) >= confidence, and j - 1 would not do
    j = acc.quantile_upper_index(1000, 0.95, 0.99)
    assert stats.binom.cdf(j, 1000, 0.95) >= 0.99 > stats.binom.cdf(j - 1, 1000, 0.95)


def test_log_ratio_sup_is_below_epsilon_and_near_the_brute_force():
    """The numerical maximisation (the ledger's cross-check) finds at least 90% of the brute-force
    grid supremum (m = 2; both are lower estimates of the true supremum, the optimiser is not
    bound to the grid) and never more than eq. (12)."""
    k, eta, tau, rho = 5.0, 0.1, 1e-3, 0.3
    mech = acc.Theorem1Mechanism(k, 2, eta, tau)
    found = acc.theorem1_log_ratio_sup(mech, rho, 0)
    grid = _sup_log_ratio_m2(k, eta, tau, rho)
    assert 0.9 * grid <= found <= 1.05 * grid
    assert found <= acc.theorem1_epsilon(mech, rho, 1.0)


_bad_floats = st.sampled_from([math.nan, math.inf, -math.inf, -1.0, 0.0])


@settings(max_examples=40, deadline=None)
@given(bad=_bad_floats, which=st.sampled_from(["k", "eta", "tau", "lipschitz", "b"]))
def test_theorem1_rejects_bad_parameters(bad, which):
    args = {"k": 5.0, "m": 4, "eta": 0.1, "tau": 0.01, "lipschitz": 1.0, "b": 1.0, which: bad}

    def epsilon() -> float:
        mech = acc.Theorem1Mechanism(args["k"], args["m"], args["eta"], args["tau"])
        return acc.theorem1_epsilon(mech, args["lipschitz"], args["b"])

    if which in ("lipschitz", "b") and bad == 0.0:
        assert epsilon() >= 0  # L b = 0 is allowed (a constant teacher)
        return
    with pytest.raises(ValueError, match=which):
        epsilon()


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.one_of(st.floats(0, 10), _bad_floats), min_size=1, max_size=6))
def test_teacher_budget_rejects_non_finite_or_negative_epsilons(values):
    bad = any(not math.isfinite(v) or v < 0 for v in values)
    call = lambda: acc.teacher_budget(values, [0.01] * len(values))  # noqa: E731
    if bad:
        with pytest.raises(ValueError, match="epsilons"):
            call()
    else:
        assert call()["basic_epsilon"] == pytest.approx(sum(v for v in values if v > 0))


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 4), k_rows=st.integers(1, 4), m=st.integers(2, 5))
def test_mechanism_shapes_broadcast_or_raise_naming_k(rows, k_rows, m):
    pi = np.full((rows, m), 1.0 / m)
    k = np.full(k_rows, 2.0)
    if k_rows in (1, rows):
        assert dirichlet_mechanism(pi, k, 0).shape == (rows, m)
    else:
        with pytest.raises(ValueError, match="k of shape"):
            dirichlet_mechanism(pi, k, 0)
