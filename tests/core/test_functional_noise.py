"""Tests of Theorem 5's calibration (Wang and Hegde 2019) and of the baselines' calibrations."""

from __future__ import annotations

import math

import pytest

from privrl.core.accounting import functional_noise as fn
from privrl.core.accounting.composition import kairouz_composition
from privrl.core.accounting.gaussian import gaussian_delta


def test_theorem5_sigma_hand_computed():
    # eps 0.5, delta 1e-5, T 1000, B 100, alpha 0.1, k 4, L 2:
    # v = 4 * 0.1 * 5 / 100 = 0.02, C = (0.02^2 + 0.02) * 2^2 = 0.0816,
    # ln(e + 0.5 / 1e-5) = ln(50002.718...) = 10.81983..., sigma = sqrt(2 * 10 * 10.8198 * 0.0816) / 0.5
    # = sqrt(17.6578) / 0.5 = 8.4043
    assert fn.theorem5_C(0.1, 4, 2.0, 100) == pytest.approx(0.0816)
    assert fn.theorem5_beta(0.1, 4, 100) == pytest.approx(50.0)
    # (n_updates = T/B = 10)
    assert fn.theorem5_sigma(0.5, 1e-5, 10, 100, 0.1, 4, 2.0) == pytest.approx(8.4043, rel=1e-4)
    # the inverse returns the target epsilon, on the safe side
    eps = fn.theorem5_epsilon(8.4043, 1e-5, 10, 100, 0.1, 4, 2.0)
    assert eps == pytest.approx(0.5, rel=1e-4)
    assert fn.theorem5_sigma(eps, 1e-5, 10, 100, 0.1, 4, 2.0) <= 8.4043


def test_approximation_term_and_condition():
    # 2k = 20, 8.68 * sqrt(4) * 0.5 = 8.68, gap 11.32: J exp(-gap^2 / 2)
    assert fn.approximation_delta(3, 10, 4.0, 0.5) == pytest.approx(3 * math.exp(-(11.32**2) / 2))
    with pytest.raises(ValueError, match="2k > 8.68"):
        fn.approximation_delta(1, 4, 4.0, 0.5)  # 2k = 8 <= 8.68
    with pytest.raises(ValueError):
        fn.approximation_delta(0, 10, 4.0, 0.5)


@pytest.mark.parametrize("eps", [0.9, 0.45])
def test_calibration_meets_the_target_and_k_is_minimal(eps):
    delta, U, B, alpha, L, n_paths = 1e-4, 39, 128, 0.01, 1.0, 78
    cal = fn.calibrate_algorithm1(eps, delta, U, B, alpha, L, n_paths)
    k = cal["k"]
    assert cal["sigma"] == pytest.approx(fn.theorem5_sigma(eps, delta / 2, U, B, alpha, k, L))
    assert 2 * k > 8.68 * math.sqrt(cal["beta"]) * cal["sigma"]
    assert cal["delta_gauss"] + cal["delta_approx"] <= delta
    # k - 1 fails either the condition or the delta budget
    s1 = fn.theorem5_sigma(eps, delta / 2, U, B, alpha, k - 1, L)
    b1 = fn.theorem5_beta(alpha, k - 1, B)
    try:
        assert fn.approximation_delta(n_paths, k - 1, b1, s1) > delta / 2
    except ValueError:
        pass
    # the paper's claim: tighter than generic composition
    assert fn.generic_sigma(eps, delta / 2, U, B, alpha, k, L) > cal["sigma"]
    # the Gaussian part is also below the exact composition of U Gaussian mechanisms
    assert fn.gaussian_composition_epsilon(cal["sigma"], delta / 2, U, B, alpha, k, L) <= eps


def test_union_bound_counts_every_path_and_total_delta_stays_within_target():
    """Paper profile, epsilon = 0.45: T = 5000 samples, U = T - B + 1 updates, paths redrawn at
    100 episode starts, 4 per draw (2 actions x 2 networks). The union bound must run over all
    400 paths; the calibration keeps delta_gauss + 400 exp(-gap^2/2) <= 1e-4."""
    eps, delta, B, alpha, L = 0.45, 1e-4, 128, 0.01, 1.0
    U, n_paths = 5000 - B + 1, 400
    cal = fn.calibrate_algorithm1(eps, delta, U, B, alpha, L, n_paths)
    approx = fn.approximation_delta(n_paths, cal["k"], cal["beta"], cal["sigma"])
    assert cal["delta_approx"] == pytest.approx(approx)
    assert approx == pytest.approx(
        n_paths
        * math.exp(-((2 * cal["k"] - 8.68 * math.sqrt(cal["beta"]) * cal["sigma"]) ** 2) / 2)
    )
    assert cal["delta_gauss"] + cal["delta_approx"] <= delta
    # counting J = 100 instead of 400 paths would understate the term fourfold
    assert fn.approximation_delta(100, cal["k"], cal["beta"], cal["sigma"]) == pytest.approx(
        approx / 4
    )


def test_sigma_for_updates_performed_is_sqrt_ratio_larger():
    """Same k: sigma scales with sqrt(updates); U = 4873 vs T/B = 39 gives ~11.2x."""
    s_tb = fn.theorem5_sigma(0.45, 5e-5, 39, 128, 0.01, 100, 1.0)
    s_u = fn.theorem5_sigma(0.45, 5e-5, 4873, 128, 0.01, 100, 1.0)
    assert s_u / s_tb == pytest.approx(math.sqrt(4873 / 39))


def test_per_step_budget_composes_back():
    eps0, delta0 = fn._per_step(0.9, 1e-4, 39)
    eps_tot, delta_tot = kairouz_composition(eps0, delta0, 39, 0.5e-4)
    assert eps_tot <= 0.9
    assert eps_tot == pytest.approx(0.9, rel=1e-5)
    assert delta_tot == pytest.approx(1e-4, rel=1e-6)


def test_input_perturbation_is_exactly_calibrated():
    sigma = fn.input_perturbation_sigma(0.9, 1e-4, 400)
    assert gaussian_delta(sigma, 0.9, sensitivity=20.0) == pytest.approx(1e-4, rel=1e-3)
    # a weakened mechanism (half the noise) violates the target
    assert gaussian_delta(sigma / 2, 0.9, sensitivity=20.0) > 1e-3


def test_dpsgd_noise_multiplier_is_on_the_safe_side():
    z = fn.dpsgd_noise_multiplier(1.0, 1e-5, 0.01, 1000)
    eps = fn.dpsgd_epsilon(z, 0.01, 1000, 1e-5)
    assert eps <= 1.0
    assert eps == pytest.approx(1.0, rel=1e-4)
    assert fn.dpsgd_epsilon(0.8 * z, 0.01, 1000, 1e-5) > 1.0


@pytest.mark.parametrize("eps", [0.9, 0.45])
def test_growing_memory_calibration_never_overshoots(eps):
    """The 0.45 target once calibrated to 0.45000617 (brentq's tolerance on the wrong side)."""
    z = fn.dpsgd_growing_memory_noise_multiplier(eps, 1e-4, 128, 1500, warmup=500)
    blocks = fn.growing_memory_blocks(128, 1500, 500)
    assert fn.dpsgd_steps_epsilon(z, blocks, 1e-4) <= eps
    assert fn.dpsgd_steps_epsilon(z * (1 - 1e-3), blocks, 1e-4) > eps * (1 - 1e-2)


def test_growing_memory_is_at_least_as_noisy_as_full_memory():
    z_grow = fn.dpsgd_growing_memory_noise_multiplier(0.9, 1e-4, 128, 3000, warmup=500)
    z_full = fn.dpsgd_noise_multiplier(0.9, 1e-4, 128 / 3000, 2501)
    assert z_grow >= z_full


def test_steps_from_the_first_batch_cost_more_than_the_warmup_claims():
    """The privacy bug of Figure 2: calibrated for steps from 500 transitions, run from 128."""
    z = fn.dpsgd_growing_memory_noise_multiplier(0.9, 1e-4, 128, 1500, warmup=500)
    early = fn.growing_memory_blocks(128, 1500, 128)
    assert fn.dpsgd_steps_epsilon(z, early, 1e-4) > 1.5


def test_reward_function_dpsgd_has_no_amplification():
    from privrl.core.accounting.gaussian import gaussian_epsilon

    z = fn.dpsgd_reward_function_noise_multiplier(0.45, 1e-4, 128, 1001)
    # composed: one Gaussian of sensitivity 2 c B sqrt(U) and noise z c
    assert gaussian_epsilon(z, 1e-4, 2 * 128 * math.sqrt(1001)) == pytest.approx(0.45, rel=1e-3)
    assert gaussian_epsilon(z / 2, 1e-4, 2 * 128 * math.sqrt(1001)) > 0.9


def test_output_perturbation_rdp_cross_check_is_below_the_kairouz_claim():
    sigma = fn.output_perturbation_sigma(0.45, 1e-4, 100, 128, 0.01, 50, 1.0)
    assert fn.output_perturbation_rdp_epsilon(sigma, 1e-4, 100, 128, 0.01, 50, 1.0) <= 0.45


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


@pytest.mark.parametrize(("alpha", "L"), [(1e300, 1.0), (0.01, 1e300), (1e308, 1e308)])
def test_an_update_bound_beyond_doubles_names_the_learning_rate_and_lipschitz(alpha, L):
    with pytest.raises(ValueError, match=r"alpha \(lr\) = .*, L \(lipschitz\) = .*overflows"):
        fn.calibrate_algorithm1(1.0, 1e-5, 23, 128, alpha, L, 12)
    with pytest.raises(ValueError, match="lipschitz"):
        fn.theorem5_C(alpha, 1, L, 128)


def test_fine_blocks_are_the_doubling_blocks_at_growth_2_and_the_per_step_rates_near_1():
    """growth = 2 gives growing_memory_blocks exactly; growth just above 1 gives one block per
    step at its own rate B / min(n_t, N); every block's steps add up to the run's steps."""
    # memory sizes 8-15, 16-31, 32-63 (rate capped by the replay size 40), 64-100
    doubling = [(4 / 8, 8), (4 / 16, 16), (4 / 32, 32), (4 / 40, 37)]
    assert fn.growing_memory_fine_blocks(4, 100, 8, 40, growth=2.0) == doubling
    assert fn.growing_memory_blocks(4, 100, 8, 40) == doubling
    per_step = fn.growing_memory_fine_blocks(4, 60, 8, 40, growth=1.0 + 1e-9)
    assert per_step == [(4 / min(n, 40), 1) for n in range(8, 61)]
    fine = fn.growing_memory_fine_blocks(128, 5000, 1000, growth=1.02)
    assert sum(c for _, c in fine) == 5000 - 1000 + 1
    with pytest.raises(ValueError, match="growth"):
        fn.growing_memory_fine_blocks(4, 60, 8, growth=1.0)


def test_per_step_pld_is_dp_accountings_and_tighter_than_the_ledgers_rdp_figure():
    """The PLD epsilon of the per-step rates (a small run: B = 4, memory 8 to 60) is what
    dp-accounting's PLD accountant gives for the same steps composed one by one; the fine blocks
    overstate it by little, the doubling blocks' RDP figure (the ledger's accountant) by more;
    halving the noise multiplier raises it."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    z, delta = 2.0, 1e-5
    per_step = fn.growing_memory_fine_blocks(4, 60, 8, 40, growth=1.0 + 1e-9)
    acc = PLDAccountant(
        dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=1e-3
    )
    for n in range(8, 61):
        acc.compose(
            dp_accounting.PoissonSampledDpEvent(4 / min(n, 40), dp_accounting.GaussianDpEvent(z))
        )
    direct = acc.get_epsilon(delta)
    tight = fn.dpsgd_steps_pld_epsilon(z, per_step, delta)
    assert tight == pytest.approx(direct, rel=1e-6)
    fine = fn.dpsgd_steps_pld_epsilon(z, fn.growing_memory_fine_blocks(4, 60, 8, 40), delta)
    assert tight <= fine <= 1.05 * tight
    assert fine < fn.dpsgd_steps_epsilon(z, fn.growing_memory_blocks(4, 60, 8, 40), delta)
    assert fn.dpsgd_steps_pld_epsilon(z / 2, per_step, delta) > 1.5 * tight


@pytest.mark.parametrize(
    ("eps", "alpha", "L"),
    [
        (1.0, 1e-2, 1.0),
        (0.05, 0.1, 3.0),
        (1e-300, 1e-2, 1.0),
        (1.0, 1e100, 1.0),
        (1.0, 1e150, 1.0),
        (2.0, 0.5, 40.0),
        (1.0, 1e-2, 1e120),
    ],
)
def test_the_calibration_finds_what_a_linear_scan_finds(monkeypatch, eps, alpha, L):
    """The early refusal (the gap is convex in k) agrees with scanning every k below MAX_K, in
    both outcomes: the same smallest k, or no k (then at once, naming lr and lipschitz)."""
    monkeypatch.setattr(fn, "MAX_K", 3000)
    d_gauss = 1e-3 * 0.5

    def fits(k: int) -> bool:
        try:
            sigma = fn.theorem5_sigma(eps, d_gauss, 23, 128, alpha, k, L)
        except ValueError:  # C overflows from here on
            return False
        beta = fn.theorem5_beta(alpha, k, 128)
        gap = 2 * k - fn.LEMMA8_CONSTANT * math.sqrt(beta) * sigma
        return gap > 0 and 12 * math.exp(-gap * gap / 2) <= 1e-3 - d_gauss

    expected = next((k for k in range(1, 3000) if fits(k)), None)
    if expected is None:
        with pytest.raises(ValueError, match=r"alpha \(lr\) = .*L \(lipschitz\) = "):
            fn.calibrate_algorithm1(eps, 1e-3, 23, 128, alpha, L, 12)
    else:
        assert fn.calibrate_algorithm1(eps, 1e-3, 23, 128, alpha, L, 12)["k"] == expected
