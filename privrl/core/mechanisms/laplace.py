r"""Laplace mechanism: release :math:`f(X) + \mathrm{Lap}(\Delta_1 f / \varepsilon)^d`
(Dwork and Roth 2014, Def. 3.3), :math:`\varepsilon`-DP for an :math:`\ell_1`-sensitivity
:math:`\Delta_1 f`."""

from __future__ import annotations

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_epsilon, check_nonnegative


def laplace_noise_scale(epsilon: float, sensitivity: float) -> float:
    """Laplace scale b = sensitivity / epsilon (l1 sensitivity)."""
    return check_nonnegative(sensitivity, "sensitivity") / check_epsilon(epsilon)


def laplace_mechanism(
    value: float | np.ndarray, sensitivity: float, epsilon: float, rng: SeedLike
) -> np.ndarray:
    """Release ``value`` plus i.i.d. Laplace noise of scale ``sensitivity / epsilon``."""
    value = check_array(value, "value")
    scale = laplace_noise_scale(epsilon, sensitivity)
    return value + as_generator(rng).laplace(0.0, scale, size=value.shape)
