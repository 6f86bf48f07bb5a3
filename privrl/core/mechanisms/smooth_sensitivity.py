r"""The smooth-sensitivity Gaussian release of Balle, Gomrokchi and Precup (2016), Lemma 1.

:func:`smooth_gaussian_release` adds :math:`N(0, \sigma_X^2 I_d)` to a non-private estimate
:math:`\mu_X`. The release is :math:`(\varepsilon, \delta)`-DP when :math:`\sigma_X` satisfies the
two conditions of Lemma 1 (Nissim, Raskhodnikova and Smith 2007) with the constants
:math:`(\alpha, \beta)` of :func:`privrl.core.accounting.smooth_sensitivity.smooth_gaussian_constants`;
the algorithms (:func:`privrl.core.algorithms.monte_carlo.dp_lsw`, ``dp_lsl``) compute that
:math:`\sigma_X` from the accounting module's smooth bounds and call this release.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_positive


@runtime_checkable
class NormalSampler(Protocol):
    """Anything that draws Gaussian noise as :meth:`numpy.random.Generator.normal` does, e.g.
    :class:`privrl.core.audit.BatchedNormal`, which draws ``n`` independent noise vectors in one
    call so that one run of the release code makes ``n`` releases."""

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = None) -> np.ndarray: ...


def smooth_gaussian_release(
    value: object, sigma: float, rng: SeedLike | NormalSampler
) -> np.ndarray:
    r"""Release ``value + N(0, sigma^2 I)`` (``sigma`` from a smooth bound, computed by the caller).

    ``rng`` is a seed (:func:`privrl.core.rng.as_generator`) or a :class:`NormalSampler` (a numpy
    Generator is one), whose draw of shape ``value.shape`` is added as it comes (a batched
    sampler returns ``(n, *value.shape)``: ``n`` releases of the same value)."""
    v = check_array(value, "value")
    sigma = check_positive(sigma, "sigma")
    sampler = rng if isinstance(rng, NormalSampler) else as_generator(rng)
    return v + sampler.normal(0.0, sigma, size=v.shape)


__all__ = ["NormalSampler", "smooth_gaussian_release"]
