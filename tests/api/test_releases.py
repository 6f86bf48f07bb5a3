"""Every release of privrl.api: its epsilon is the one its event recomputes and the one the
accounting gives independently, and the noise it adds is the noise it reports (halving the noise
at the call site, or reporting a smaller epsilon than the noise gives, fails a test here).

Statistical tests use fixed seeds; each compares an empirical standard deviation over N >= 4000
draws with the reported one at a 5% tolerance: the sample standard deviation's own relative
error is about 1/sqrt(2N) <= 1.1%, so a factor 2 (halved noise) is detected with power ~1 and a
correct release fails with probability far below 1e-5.
"""

from __future__ import annotations

import math
from fractions import Fraction

import dp_accounting
import numpy as np
import pytest
from api_data import chain_data
from dp_accounting.rdp import RdpAccountant
from scipy.special import gammaln

import privrl
from privrl.core.accounting import dirichlet as dacc
from privrl.core.accounting import functional_noise as fn
from privrl.core.accounting.composition import advanced_composition
from privrl.core.accounting.discrete_gaussian import gaussian_rdp_epsilon
from privrl.core.accounting.subsampled import grid_gpope_epsilon
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.envs.line import HORIZON
from privrl.core.mechanisms.exact_gaussian import rounded_gaussian


def _std_close(samples: np.ndarray, expected: float) -> None:
    assert samples.size >= 4000
    assert np.std(samples) == pytest.approx(expected, rel=0.05)


def test_gaussian_mechanism_noise_and_epsilon():
    r = privrl.gaussian_mechanism(np.zeros(20_000), sensitivity=2.0, epsilon=0.8, delta=1e-5, rng=0)
    sigma, step, z = (r.parameters[k] for k in ("sigma", "step", "noise_multiplier"))
    # the guarantee: the Gaussian's Rényi curve at noise multiplier sigma / G, G the sensitivity
    # in grid units after rounding (Delta / step + sqrt(d)), by dp-accounting's RDP accountant
    G = 2.0 / step + math.sqrt(20_000)
    assert z <= sigma / (step * G) and z == pytest.approx(sigma / (step * G), rel=1e-7)
    direct = RdpAccountant().compose(dp_accounting.GaussianDpEvent(z)).get_epsilon(1e-5)
    assert r.epsilon == r.event.epsilon(r.delta) == pytest.approx(direct, rel=1e-2)
    assert r.epsilon <= 0.8 < gaussian_rdp_epsilon(z * (1 - 1e-4), 1e-5)  # the smallest noise
    _std_close(r.value, sigma)
    assert np.all(r.value / step == np.rint(r.value / step))  # on the grid, exactly
    given = privrl.gaussian_mechanism(0.0, sensitivity=2.0, sigma=sigma / 2, delta=1e-5, rng=0)
    assert given.epsilon > 1.6  # half the noise: more than twice the epsilon


def test_laplace_mechanism_noise_and_exact_epsilon():
    r = privrl.laplace_mechanism(np.zeros(20_000), sensitivity=0.5, epsilon=1.0, rng=0)
    step = r.parameters["step"]
    t = Fraction(r.event.scale_numerator, r.event.scale_denominator)
    exact = Fraction(math.floor(Fraction(0.5) / Fraction(step)) + 20_000) / t
    assert Fraction(r.epsilon) >= exact and r.epsilon == pytest.approx(float(exact), rel=1e-15)
    assert r.epsilon <= 1.0 and r.epsilon == r.event.epsilon(0.0)
    assert r.parameters["noise_scale"] >= (0.5 + 20_000 * step) / 1.0
    _std_close(r.value, math.sqrt(2) * r.parameters["noise_scale"])  # Laplace: sd = sqrt(2) b
    assert np.all(r.value / step == np.rint(r.value / step))  # on the grid, exactly


def test_gpope_noise_and_epsilon():
    """One iteration from theta = w = 0: the theta part of the gradient is -A^T w = 0, so the
    released theta is minus the grid noise of its d coordinates, exactly (d = 100, 40
    releases). The guarantee: Theorem 9 of WBK 2019 at the grid noise's multiplier sqrt(s)/G_Z,
    G_Z = 2 G (1 + 2^-30) / step + sqrt(2 d) (recomputed here)."""
    data = chain_data(40, 100, 6, seed=3)
    draws = []
    for seed in range(40):
        r = privrl.gpope(
            data,
            features=np.eye(100),
            gamma=0.9,
            epsilon=1.0,
            delta=1e-5,
            iterations=1,
            step_size=1.0,
            clip_norm=0.5,
            rng=seed,
        )
        draws.append(r.value)
    z, std, step = (r.parameters[k] for k in ("noise_multiplier", "noise_std", "step"))
    assert r.epsilon == r.event.epsilon(r.delta) == grid_gpope_epsilon(z, 40, 1, 1e-5)
    assert grid_gpope_epsilon(z, 40, 1, 1e-5) <= 1.0 < grid_gpope_epsilon(0.99 * z, 40, 1, 1e-5)
    G_Z = 2 * 0.5 * (1 + 2.0**-30) / step + math.sqrt(200)
    assert z <= std / (step * G_Z) and z == pytest.approx(std / (step * G_Z), rel=1e-7)
    assert std >= 2 * 0.5 * z
    values = np.concatenate(draws)
    assert np.all(values / step == np.rint(values / step))  # on the grid, exactly
    _std_close(values, std)
    given = privrl.gpope(
        data,
        features=np.eye(100),
        gamma=0.9,
        noise_multiplier=z / 2,
        delta=1e-5,
        iterations=1,
        step_size=1.0,
        clip_norm=0.5,
        rng=0,
    )
    assert given.epsilon > 1.5


@pytest.mark.parametrize("method", ["dp_lsw", "dp_lsl"])
def test_smooth_sensitivity_releases(method):
    """sigma_X recomputed by the core functions, the noise measured over d = 40 coordinates x
    100 releases."""
    data = chain_data(100, 40, 80, seed=4)
    phi, rho = np.eye(40), np.full(40, 1 / 40)
    fv = mc.first_visit_returns(data, 40, 0.9)
    budget = mc.SmoothGaussianBudget(1.0, 0.1, 1.0)
    lam = mc.lsl_regularization(phi, rho, fv.m, 1.0)
    extra = {"lam": lam} if method == "dp_lsl" else {}
    if method == "dp_lsw":
        centre, sigma = mc.lsw(fv, phi, rho), mc.dp_lsw_sigma(fv.counts, phi, rho, budget)
    else:
        centre = mc.lsl(fv, phi, rho, lam)
        sigma = mc.dp_lsl_sigma(fv.counts, fv.m, phi, rho, lam, budget)
    release = getattr(privrl, method)
    noise = []
    for seed in range(100):
        r = release(
            data,
            n_states=40,
            gamma=0.9,
            features=phi,
            weights=rho,
            epsilon=1.0,
            delta=0.1,
            return_bound=1.0,
            rng=seed,
            **extra,
        )
        noise.append(r.value - centre)
    assert "sigma" not in r.parameters  # a function of the visit counts: data
    alpha, beta = r.parameters["alpha"], r.parameters["beta"]
    assert alpha == 5 * math.sqrt(2 * math.log(2 / 0.1)) / 1.0
    assert beta == 1.0 / (4 * (40 + math.log(2 / 0.1)))
    assert r.epsilon == r.event.epsilon(r.delta) == pytest.approx(1.0, rel=1e-12)
    _std_close(np.concatenate(noise), sigma)
    # each coordinate is the double nearest to centre + sigma Z, Z drawn exactly from the seed
    assert np.array_equal(r.value, rounded_gaussian(centre, sigma, 99))


def test_laplace_report_noise_and_epsilon():
    r = privrl.laplace_report(np.zeros((2000, 4)), epsilon=2.0, clip=1.0, rng=0)
    assert r.epsilon <= 2.0 and r.epsilon == r.event.epsilon(0.0)
    assert r.parameters["noise_scale"] >= 1.0 / 2.0
    _std_close(r.value, math.sqrt(2) * r.parameters["noise_scale"])


def test_sign_report_flips_at_its_epsilon():
    """d = 1, d_hat = 1: a nonzero report has the gradient's sign with probability
    e^eps / (e^eps + 1) (0.731 at eps = 1; 0.881 at eps = 2). 20000 reports, 2/3 nonzero: the
    frequency's sd is about 0.004, so the tolerance 0.02 (5 sd) separates the two."""
    r = privrl.sign_report(np.full((20_000, 1), 10.0), epsilon=1.0, clip=1.0, rng=0)
    nonzero = r.value[r.value != 0]
    assert np.mean(nonzero > 0) == pytest.approx(math.e / (math.e + 1), abs=0.02)
    assert r.parameters["flip_probability"] == pytest.approx(1 / (math.e + 1), rel=1e-12)
    assert r.epsilon == r.event.epsilon(0.0) == pytest.approx(1.0, rel=1e-12)


def test_dirichlet_teacher_answer_variance_and_epsilon():
    """Dir_k(pi): Var x_i = pi_i (1 - pi_i) / (k + 1); eq. (12) recomputed here."""
    pi, k, m, eta, tau, lip, b = np.array([0.6, 0.3, 0.1]), 40.0, 3, 0.05, 0.01, 0.5, 0.1
    one = privrl.dirichlet_teacher_answer(pi, k=k, eta=eta, tau=tau, lipschitz=lip, b=b, rng=0)
    gamma_terms = (m - 1) * gammaln(k * eta) + gammaln(k * (1 - (m - 1) * eta)) - m * gammaln(k / m)
    assert one.epsilon == pytest.approx(
        math.sqrt(m) * lip * b * k * math.log(1 / tau) + gamma_terms, rel=1e-12
    )
    assert one.epsilon == one.event.epsilon(one.delta)
    many = privrl.dirichlet_teacher_answer(
        np.tile(pi, (6000, 1)), k=k, eta=eta, tau=1e-4, lipschitz=lip, b=b, rng=1
    )
    x = many.value[:, 0]
    assert np.var(x) == pytest.approx(0.6 * 0.4 / (k + 1), rel=0.06)
    assert many.epsilon == many.event.epsilon(many.delta)


def test_dirichlet_teacher_answer_at_a_target():
    """A target (epsilon, delta): the release holds at the target's delta with an epsilon at
    most the target's (eq. 12 and eq. 6's bound recomputed for the k and tau it reports), the
    answers have the spread of that k, and several rows share a composed target."""
    pi = np.array([0.6, 0.3, 0.1])
    one = privrl.dirichlet_teacher_answer(
        pi, epsilon=40.0, delta=1e-5, eta=0.05, lipschitz=0.5, b=0.1, rng=0
    )
    k, tau = one.parameters["k"], one.parameters["tau"]
    mech = dacc.Theorem1Mechanism(k, 3, 0.05, tau)
    assert one.delta == 1e-5 and dacc.theorem1_delta_bound(mech) <= 1e-5
    assert one.epsilon == dacc.theorem1_epsilon(mech, 0.5, 0.1) <= 40.0
    assert one.epsilon > 39.0
    # 6,000 queries at 50 each: Theorem 1's epsilons are large, their basic sum larger
    rows = privrl.dirichlet_teacher_answer(
        np.tile(pi, (6000, 1)),
        epsilon=3e5,
        delta=1e-3,
        eta=0.05,
        lipschitz=0.5,
        b=0.1,
        rng=1,
        composition="basic",
    )
    assert 2.9e5 < rows.epsilon <= 3e5 and rows.delta == 1e-3
    k = rows.parameters["k"][0]
    assert np.all(rows.parameters["k"] == k) and rows.event.delta_bound <= 1e-3
    assert np.var(rows.value[:, 0]) == pytest.approx(0.6 * 0.4 / (k + 1), rel=0.06)
    # advanced composition pays only for small per-query epsilons: two actions near uniform
    advanced = privrl.dirichlet_teacher_answer(
        np.tile([0.5, 0.5], (50, 1)),
        epsilon=5.0,
        delta=1e-4,
        eta=0.45,
        lipschitz=0.01,
        b=0.1,
        rng=2,
    )
    budget = advanced.event.budget()
    assert 4.9 < advanced.epsilon == budget["advanced_epsilon"] <= 5.0
    assert budget["advanced_delta"] <= 1e-4 and advanced.event.delta_slack == 5e-5


def test_teacher_composition_uses_the_largest_query():
    """Advanced composition of unequal queries takes the largest per-query epsilon (a valid bound),
    never their mean: a budget built from the mean is below it, and this test fails."""
    ks = (80.0, 40.0, 20.0, 10.0)
    events = [dacc.DirichletMechanismEvent(k, 2, 0.05, 1e-3, 0.5, 0.1) for k in ks]
    eps = [dacc.theorem1_epsilon(e.mechanism, 0.5, 0.1) for e in events]
    dlt = [e.delta_bound for e in events]
    expected = advanced_composition(max(eps), max(dlt), len(ks), 1e-5)
    understated = advanced_composition(float(np.mean(eps)), max(dlt), len(ks), 1e-5)
    assert understated[0] < expected[0]
    budget = dacc.teacher_budget(eps, dlt, 1e-5)
    assert (budget["advanced_epsilon"], budget["advanced_delta"]) == expected
    assert budget["basic_epsilon"] == pytest.approx(sum(eps), rel=1e-12)
    r = privrl.dirichlet_teacher_answer(
        np.tile([0.6, 0.4], (4, 1)), k=list(ks), eta=0.05, tau=1e-3, lipschitz=0.5, b=0.1, rng=0
    )
    assert (r.epsilon, r.delta) == expected and expected[1] < 1
    with pytest.raises(ValueError, match="policy: its 4 answers compose to delta 1"):
        privrl.dirichlet_teacher_answer(
            np.tile([0.6, 0.4], (4, 1)), k=list(ks), eta=0.05, tau=0.01, lipschitz=0.5, b=0.1, rng=0
        )
    with pytest.raises(
        ValueError,
        match=r"k must be one concentration or one per row of "
        r"policy \(4\), got 3",
    ):
        privrl.dirichlet_teacher_answer(
            np.tile([0.6, 0.4], (4, 1)),
            k=list(ks[:3]),
            eta=0.05,
            tau=1e-3,
            lipschitz=0.5,
            b=0.1,
            rng=0,
        )


@pytest.mark.parametrize("report", ["laplace_report", "sign_report"])
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0,)])
def test_a_report_of_no_gradient_is_refused_naming_gradients(report, shape):
    with pytest.raises(ValueError, match="gradients must hold at least one gradient"):
        getattr(privrl, report)(np.empty(shape), epsilon=1.0, clip=1.0, rng=0)


def test_sign_report_d_hat_beyond_the_dimension_is_refused():
    """d_hat = 10^9 for d = 2 allocated 16 GB before failing; the projection compresses."""
    with pytest.raises(ValueError, match="d_hat must be at most the gradients' dimension d = 2"):
        privrl.sign_report(np.ones((1, 2)), epsilon=1.0, clip=1.0, rng=0, d_hat=10**9)


def test_sign_report_refuses_a_budget_per_sign_beyond_doubles():
    """exp(epsilon / d_hat) in eq. (24) overflows a double near 709: refused before any draw."""
    with pytest.raises(ValueError, match="epsilon must be at most 700 per sign, got 1000"):
        privrl.sign_report(np.ones((1, 2)), epsilon=1000.0, clip=1.0, rng=0, d_hat=1)


def test_functional_q_learning_runs_with_the_calibrated_noise(monkeypatch):
    """The call site passes Theorem 5's sigma for U = T - B + 1 updates and 4 paths per episode
    (calibrated here independently) to the training run, and the event certifies it."""
    from privrl.core.algorithms import functional_q as fq

    seen = {}

    class Run:
        updates, net, curve = 3 * HORIZON - 128 + 1, "net", None

    def fake_train(privacy, rng, **kwargs):
        seen["privacy"], seen["kwargs"] = privacy, kwargs
        return Run()

    monkeypatch.setattr(fq, "train_dqn", fake_train)
    r = privrl.functional_q_learning(epsilon=1.0, delta=1e-3, episodes=3, rng=0)
    cal = fn.calibrate_algorithm1(1.0, 1e-3, 3 * HORIZON - 128 + 1, 128, 1e-2, 1.0, 3 * 4)
    assert seen["privacy"].gp_sigma == cal["sigma"] and seen["privacy"].gp_beta == cal["beta"]
    assert seen["privacy"].target_path == "independent" and seen["privacy"].path_reset == "episode"
    event = fn.Theorem5Event(
        cal["sigma"], 3 * HORIZON - 128 + 1, 128, 1e-2, cal["k"], 1.0, 12, 1e-12
    )
    assert r.epsilon == r.event.epsilon(r.delta) == event.epsilon(1e-3) <= 1.0
