r"""The smooth-sensitivity Gaussian release of Balle, Gomrokchi and Precup (2016), Lemma 1.

:func:`smooth_gaussian_release` adds :math:`N(0, \sigma_X^2 I_d)` to a non-private estimate
:math:`\mu_X`. The release is :math:`(\varepsilon, \delta)`-DP when :math:`\sigma_X` satisfies the
two conditions of Lemma 1 (Nissim, Raskhodnikova and Smith 2007) with the constants
:math:`(\alpha, \beta)` of :func:`privrl.core.accounting.smooth_sensitivity.smooth_gaussian_constants`;
the algorithms (:func:`privrl.core.algorithms.monte_carlo.dp_lsw`, ``dp_lsl``) compute that
:math:`\sigma_X` from the accounting module's smooth bounds and call this release.
"""

from __future__ import annotations

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_positive


def smooth_gaussian_release(value: object, sigma: float, rng: SeedLike) -> np.ndarray:
    r"""Release ``value + N(0, sigma^2 I)`` (``sigma`` from a smooth bound, computed by the caller)."""
    v = check_array(value, "value")
    sigma = check_positive(sigma, "sigma")
    return v + as_generator(rng).normal(0.0, sigma, size=v.shape)


__all__ = ["smooth_gaussian_release"]
