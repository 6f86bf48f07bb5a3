"""Tests of Theorem 5's calibration (Wang and Hegde 2019) and of the baselines' calibrations."""

from __future__ import annotations

import math

import pytest

from privrl.accounting import functional_noise as fn
from privrl.accounting.composition import kairouz_composition
from privrl.accounting.gaussian import gaussian_delta


def test_theorem5_sigma_hand_computed():
    # eps 0.5, delta 1e-5, T 1000, B 100, alpha 0.1, k 4, L 2:
    # v = 4 * 0.1 * 5 / 100 = 0.02, C = (0.02^2 + 0.02) * 2^2 = 0.0816,
    # ln(e + 0.5 / 1e-5) = ln(50002.718...) = 10.81983..., sigma = sqrt(2 * 10 * 10.8198 * 0.0816) / 0.5
    # = sqrt(17.6578) / 0.5 = 8.4043
    assert fn.theorem5_C(0.1, 4, 2.0, 100) == pytest.approx(0.0816)
    assert fn.theorem5_beta(0.1, 4, 100) == pytest.approx(50.0)
    assert fn.theorem5_sigma(0.5, 1e-5, 1000, 100, 0.1, 4, 2.0) == pytest.approx(8.4043, rel=1e-4)


def test_approximation_term_and_condition():
    # 2k = 20, 8.68 * sqrt(4) * 0.5 = 8.68, gap 11.32: J exp(-gap^2 / 2)
    assert fn.approximation_delta(3, 10, 4.0, 0.5) == pytest.approx(3 * math.exp(-(11.32**2) / 2))
    with pytest.raises(ValueError, match="2k > 8.68"):
        fn.approximation_delta(1, 4, 4.0, 0.5)  # 2k = 8 <= 8.68
    with pytest.raises(ValueError):
        fn.approximation_delta(0, 10, 4.0, 0.5)


@pytest.mark.parametrize("eps", [0.9, 0.45])
def test_calibration_meets_the_target_and_k_is_minimal(eps):
    delta, T, B, alpha, L, J = 1e-4, 5000, 128, 0.01, 1.0, 39
    cal = fn.calibrate_algorithm1(eps, delta, T, B, alpha, L, J)
    k = cal["k"]
    assert cal["sigma"] == pytest.approx(fn.theorem5_sigma(eps, delta / 2, T, B, alpha, k, L))
    assert 2 * k > 8.68 * math.sqrt(cal["beta"]) * cal["sigma"]
    assert cal["delta_gauss"] + cal["delta_approx"] <= delta
    # k - 1 fails either the condition or the delta budget
    s1 = fn.theorem5_sigma(eps, delta / 2, T, B, alpha, k - 1, L)
    b1 = fn.theorem5_beta(alpha, k - 1, B)
    try:
        assert fn.approximation_delta(J, k - 1, b1, s1) > delta / 2
    except ValueError:
        pass
    # the paper's claim: tighter than generic composition
    assert fn.generic_sigma(eps, delta / 2, T, B, alpha, k, L) > cal["sigma"]


def test_per_step_budget_composes_back():
    eps0, delta0 = fn._per_step(0.9, 1e-4, 39)
    eps_tot, delta_tot = kairouz_composition(eps0, delta0, 39, 0.5e-4)
    assert eps_tot == pytest.approx(0.9, rel=1e-6)
    assert delta_tot == pytest.approx(1e-4, rel=1e-6)


def test_input_perturbation_is_exactly_calibrated():
    sigma = fn.input_perturbation_sigma(0.9, 1e-4, 400)
    assert gaussian_delta(sigma, 0.9, sensitivity=20.0) == pytest.approx(1e-4, rel=1e-3)
    # a weakened mechanism (half the noise) violates the target
    assert gaussian_delta(sigma / 2, 0.9, sensitivity=20.0) > 1e-3


def test_dpsgd_noise_multiplier_hits_target():
    z = fn.dpsgd_noise_multiplier(1.0, 1e-5, 0.01, 1000)
    assert fn.dpsgd_epsilon(z, 0.01, 1000, 1e-5) == pytest.approx(1.0, rel=1e-3)
    assert fn.dpsgd_epsilon(0.8 * z, 0.01, 1000, 1e-5) > 1.0


def test_growing_memory_is_at_least_as_noisy_as_full_memory():
    z_grow = fn.dpsgd_growing_memory_noise_multiplier(0.9, 1e-4, 128, 3000, warmup=500)
    z_full = fn.dpsgd_noise_multiplier(0.9, 1e-4, 128 / 3000, 2501)
    assert z_grow >= z_full


@pytest.mark.parametrize(
    "args",
    [(0.0, 1e-4), (-1.0, 1e-4), (0.9, 0.0), (0.9, 1.0), (float("nan"), 1e-4)],
)
def test_invalid_privacy_parameters_raise(args):
    eps, delta = args
    with pytest.raises(ValueError):
        fn.theorem5_sigma(eps, delta, 1000, 100, 0.1, 4, 1.0)
    with pytest.raises(ValueError):
        fn.calibrate_algorithm1(eps, delta, 1000, 100, 0.1, 1.0, 1)


def test_invalid_problem_parameters_raise():
    with pytest.raises(ValueError):
        fn.theorem5_sigma(0.5, 1e-5, 1000, 0, 0.1, 4, 1.0)
    with pytest.raises(ValueError):
        fn.theorem5_sigma(0.5, 1e-5, 1000, 100, -0.1, 4, 1.0)
    with pytest.raises(ValueError):
        fn.theorem5_sigma(0.5, 1e-5, 1000, 100, 0.1, 4, 0.0)
    with pytest.raises(ValueError):
        fn.calibrate_algorithm1(0.5, 1e-5, 1000, 100, 0.1, 1.0, 1, delta_share=1.0)
