r"""Gaussian mechanism: release :math:`f(X) + N(0, \sigma^2 I)` for an :math:`\ell_2`-sensitivity
:math:`\Delta_2 f`, with :math:`\sigma` from :mod:`privrl.core.accounting.gaussian`."""

from __future__ import annotations

from typing import Literal

import numpy as np

from privrl.core.accounting.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_choice

Calibration = Literal["analytic", "classic"]


def gaussian_noise_scale(
    epsilon: float, delta: float, sensitivity: float, calibration: Calibration = "analytic"
) -> float:
    """Noise standard deviation for (epsilon, delta)-DP at ``sensitivity`` (l2)."""
    check_choice(calibration, "calibration", ("analytic", "classic"))
    if calibration == "classic":
        return classic_gaussian_sigma(epsilon, delta, sensitivity)
    return analytic_gaussian_sigma(epsilon, delta, sensitivity)


def gaussian_mechanism(
    value: float | np.ndarray,
    sensitivity: float,
    epsilon: float,
    delta: float,
    rng: SeedLike,
    calibration: Calibration = "analytic",
) -> np.ndarray:
    """Release ``value`` plus i.i.d. Gaussian noise calibrated to (epsilon, delta)-DP.

    ``sensitivity`` is the l2 sensitivity of the whole vector ``value`` between neighbouring
    datasets. Returns a float array of the same shape as ``value``.
    """
    value = check_array(value, "value")
    sigma = gaussian_noise_scale(epsilon, delta, sensitivity, calibration)
    return value + as_generator(rng).normal(0.0, sigma, size=value.shape)
