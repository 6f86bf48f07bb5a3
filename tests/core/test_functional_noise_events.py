"""The ledger events of :mod:`privrl.core.accounting.functional_noise` and
:mod:`privrl.core.accounting.gaussian`: they round-trip through ``event_to_dict`` /
``event_from_dict``, give back the epsilon their calibration reports, and move with their budget
(compositions) and their noise."""

from __future__ import annotations

import math

import pytest

from privrl.core.accounting import functional_noise as fn
from privrl.core.accounting.calibration import bisect_safe, calibrate_decreasing
from privrl.core.accounting.events import DpAccountingEvent, event_from_dict, event_to_dict
from privrl.core.accounting.gaussian import GaussianEvent, gaussian_epsilon

# the quick profile's constants: T = 1000 samples, B = 128, alpha = 0.01, L = 1, 80 paths
T, B, ALPHA, L, N_PATHS, DELTA = 1000, 128, 0.01, 1.0, 80, 1e-4
U = T - B + 1


def _round_trip(event):
    again = event_from_dict(event_to_dict(event))
    assert again == event
    return again


def _theorem5(eps: float, n_updates: int = U, rtol: float = 1e-12) -> tuple[fn.Theorem5Event, dict]:
    cal = fn.calibrate_algorithm1(eps, DELTA, n_updates, B, ALPHA, L, N_PATHS)
    event = fn.Theorem5Event(cal["sigma"], n_updates, B, ALPHA, cal["k"], L, N_PATHS, rtol)
    return event, cal


@pytest.mark.parametrize("eps", [0.9, 0.45])
def test_theorem5_event_gives_back_the_calibrated_epsilon(eps):
    event, cal = _theorem5(eps)
    again = _round_trip(event)
    total = cal["delta_gauss"] + cal["delta_approx"]
    assert again.epsilon(total) == pytest.approx(eps, rel=1e-9)
    # at its default tolerance it is the chapter's T/B figure: theorem5_epsilon as reported
    coarse = fn.Theorem5Event(event.sigma, 7, B, ALPHA, event.k, L, N_PATHS)
    assert coarse.epsilon(total) == pytest.approx(
        fn.theorem5_epsilon(event.sigma, cal["delta_gauss"], 7, B, ALPHA, event.k, L), rel=1e-12
    )


def test_theorem5_event_moves_with_its_updates_and_noise():
    event, cal = _theorem5(0.9)
    total = cal["delta_gauss"] + cal["delta_approx"]
    base = event.epsilon(total)
    doubled = fn.Theorem5Event(event.sigma, 2 * U, B, ALPHA, event.k, L, N_PATHS, event.rtol)
    assert doubled.epsilon(total) > 1.3 * base
    halved = fn.Theorem5Event(event.sigma / 2, U, B, ALPHA, event.k, L, N_PATHS, event.rtol)
    assert halved.epsilon(total) > 1.9 * base
    with pytest.raises(ValueError, match="approximation term"):
        event.epsilon(cal["delta_approx"] / 2)


def test_output_perturbation_event_composes_the_calibrated_noise():
    k = 699
    std = fn.output_perturbation_sigma(0.9, DELTA, U, B, ALPHA, k, L)
    event = _round_trip(fn.OutputPerturbationEvent(std, fn.update_scale(ALPHA, k, B) * L, U))
    eps = event.epsilon(DELTA)
    assert 0.9 * (1 - 1e-5) <= eps <= 0.9  # the calibration's safe side, to its tolerance
    assert fn.OutputPerturbationEvent(std, event.sensitivity, 2 * U).epsilon(DELTA) > 1.3 * eps
    assert fn.OutputPerturbationEvent(std / 2, event.sensitivity, U).epsilon(DELTA) > 1.9 * eps


def test_gaussian_event_is_the_exact_gaussian_epsilon():
    sigma = fn.input_perturbation_sigma(0.9, DELTA, T)
    event = _round_trip(GaussianEvent(sigma, 1.0, T))
    eps = event.epsilon(DELTA)
    assert eps == gaussian_epsilon(sigma, DELTA, math.sqrt(T))
    assert eps == pytest.approx(0.9, rel=1e-8) and eps <= 0.9
    assert GaussianEvent(sigma, 1.0, 2 * T).epsilon(DELTA) > 1.3 * eps
    assert GaussianEvent(sigma / 2, 1.0, T).epsilon(DELTA) > 1.9 * eps


def test_dpsgd_steps_event_is_what_the_calibration_accounts():
    blocks = fn.growing_memory_blocks(B, T, 500)
    z = fn.dpsgd_growing_memory_noise_multiplier(0.9, DELTA, B, T, 500)
    event = _round_trip(DpAccountingEvent(fn.dpsgd_steps_event(z, blocks), "rdp", "add/remove"))
    eps = event.epsilon(DELTA)
    assert eps == fn.dpsgd_steps_epsilon(z, blocks, DELTA)
    assert 0.9 * (1 - 1e-3) <= eps <= 0.9
    doubled = [(q, 2 * n) for q, n in blocks]
    assert (
        DpAccountingEvent(fn.dpsgd_steps_event(z, doubled), "rdp", "add/remove").epsilon(DELTA)
        > 1.2 * eps
    )
    assert (
        DpAccountingEvent(fn.dpsgd_steps_event(z / 2, blocks), "rdp", "add/remove").epsilon(DELTA)
        > 1.5 * eps
    )


def test_bisect_safe_keeps_the_safe_end_either_way():
    root = math.sqrt(2)
    hi = bisect_safe(lambda x: x * x >= 2, 1.0, 2.0, safe_end="hi", midpoint="arithmetic")
    assert hi * hi >= 2 and hi - root <= 1e-6 * hi
    lo = bisect_safe(lambda x: x * x <= 2, 1.0, 2.0, safe_end="lo", rtol=1e-9)
    assert lo * lo <= 2 and root / lo <= 1 + 1e-9
    with pytest.raises(ValueError):
        bisect_safe(lambda x: True, 2.0, 1.0)


def test_calibrate_decreasing_options_keep_the_safe_side():
    for growth, midpoint in ((4.0, "geometric"), (2.0, "arithmetic")):
        s = calibrate_decreasing(
            lambda x: 1.0 / x, 0.3, rtol=1e-6, growth=growth, midpoint=midpoint
        )
        assert 1.0 / s <= 0.3 and s == pytest.approx(1 / 0.3, rel=1e-5)
    with pytest.raises(ValueError, match="growth"):
        calibrate_decreasing(lambda x: 1.0 / x, 0.3, growth=1.0)
