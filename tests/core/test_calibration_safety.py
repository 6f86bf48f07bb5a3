"""Every calibration returns a noise scale (or epsilon) on the safe side of its target.

Targets: ``calibration.calibrate_decreasing``, ``subsampled.calibrate_noise_multiplier`` (GPOPE),
``gaussian.analytic_gaussian_sigma``, ``composition.optimal_composition_epsilon``.
"""

from __future__ import annotations

import numpy as np
import pytest

from privrl.core.accounting.calibration import calibrate_decreasing
from privrl.core.accounting.composition import (
    optimal_composition_delta,
    optimal_composition_epsilon,
)
from privrl.core.accounting.gaussian import analytic_gaussian_sigma, gaussian_delta
from privrl.core.accounting.subsampled import calibrate_noise_multiplier, gpope_epsilon


def test_calibrate_decreasing_keeps_the_safe_end():
    # epsilon(s) = 1 / s: the exact answer is 1 / target; the result is at or above it, within rtol
    for target in (0.45, 0.9, 3.0):
        s = calibrate_decreasing(lambda x: 1.0 / x, target, rtol=1e-6)
        assert 1.0 / s <= target
        assert s <= (1.0 / target) * (1 + 1e-6)


def test_calibrate_decreasing_rejects_an_unreachable_target():
    with pytest.raises(ValueError, match="unreachable"):
        calibrate_decreasing(lambda x: 5.0, 1.0)
    with pytest.raises(ValueError, match="target"):
        calibrate_decreasing(lambda x: 1 / x, 0.0)


@pytest.mark.parametrize("eps, n, T", [(0.45, 50, 100), (0.1, 300, 600), (1.0, 10, 20)])
def test_gpope_calibration_meets_its_target(eps, n, T):
    z = calibrate_noise_multiplier(eps, 0.1, n, T, rtol=1e-2)
    assert gpope_epsilon(z, n, T, 0.1) <= eps
    assert gpope_epsilon(z / 1.02, n, T, 0.1) > eps  # and is within the tolerance of the root


@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8])
def test_analytic_gaussian_sigma_meets_its_target(delta):
    """Before the safe-side step, 72 of these 120 calibrations had delta above the target by a
    relative 1e-15 .. 1e-11."""
    for eps in np.linspace(0.05, 5.0, 40):
        assert gaussian_delta(analytic_gaussian_sigma(eps, delta), eps) <= delta


@pytest.mark.parametrize("eps, k, delta_total", [(0.1, 5, 1e-5), (0.5, 50, 1e-3), (1.0, 5, 1e-3)])
def test_optimal_composition_epsilon_meets_its_delta(eps, k, delta_total):
    total = optimal_composition_epsilon(eps, 0.0, k, delta_total)
    assert optimal_composition_delta(eps, 0.0, k, total) <= delta_total
    assert optimal_composition_delta(eps, 0.0, k, max(total - 1e-6, 0)) > delta_total
