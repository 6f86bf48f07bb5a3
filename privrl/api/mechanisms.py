r"""The standard mechanisms as releases: Gaussian (analytic calibration) and Laplace (on a grid,
private on IEEE doubles).

* :func:`gaussian_mechanism`: :math:`f(X) + N(0, \sigma^2 I)` for an :math:`\ell_2`-sensitivity
  :math:`\Delta_2`, with :math:`\sigma` the smallest noise meeting :math:`(\varepsilon, \delta)`
  (Balle and Wang 2018, Thm 8), or :math:`\varepsilon` computed from a given :math:`\sigma`.
* :func:`laplace_mechanism`: :math:`f(X)` rounded to the grid :math:`\text{step}\,\mathbb{Z}` plus
  exact discrete Laplace noise, exactly :math:`\varepsilon`-DP for an :math:`\ell_1`-sensitivity
  :math:`\Delta_1` (:mod:`privrl.core.mechanisms.discrete_laplace`); textbook floating-point
  Laplace noise is not private on real computers (Mironov 2012).
"""

from __future__ import annotations

import numpy as np

from privrl.api.release import Release
from privrl.core.accounting.gaussian import GaussianEvent, analytic_gaussian_sigma
from privrl.core.accounting.laplace import GridLaplaceReportEvent
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_delta, check_epsilon, check_positive

#: The largest target epsilon the analytic Gaussian calibration evaluates (its privacy profile
#: has a factor exp(epsilon), which overflows a double near 709).
MAX_GAUSSIAN_EPSILON = 700.0


def _one_of(epsilon: object, other: object, other_name: str) -> None:
    if (epsilon is None) == (other is None):
        raise ValueError(f"epsilon, {other_name}: give exactly one (a target epsilon to calibrate "
                         f"the noise, or the {other_name} to compute epsilon from)")


def gaussian_mechanism(value: object, *, sensitivity: float, delta: float, rng: SeedLike,
                       epsilon: float | None = None, sigma: float | None = None) -> Release:
    r"""Release ``value + N(0, sigma^2 I)``, ``(epsilon, delta)``-DP for an :math:`\ell_2`
    ``sensitivity`` of the whole ``value`` between neighbouring datasets.

    Give ``epsilon`` (sigma is then the analytic calibration, Balle and Wang 2018, Thm 8) or
    ``sigma`` (epsilon is then the exact one of that noise). The event is
    :class:`~privrl.core.accounting.gaussian.GaussianEvent`; ``parameters``: ``sigma``,
    ``sensitivity``.

    >>> import privrl
    >>> r = privrl.gaussian_mechanism([1.0, 2.0], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    >>> round(r.epsilon, 6), round(r.parameters["sigma"], 3), r.value.shape
    (1.0, 3.731, (2,))
    """
    value = check_array(value, "value")
    sensitivity = check_positive(sensitivity, "sensitivity")
    delta = check_delta(delta)
    _one_of(epsilon, sigma, "sigma")
    if sigma is None:
        epsilon = check_epsilon(epsilon)
        if epsilon > MAX_GAUSSIAN_EPSILON:
            raise ValueError(f"epsilon must be at most {MAX_GAUSSIAN_EPSILON:g} for the analytic "
                             f"Gaussian calibration (exp(epsilon) overflows), got {epsilon}")
        sigma = analytic_gaussian_sigma(epsilon, delta, sensitivity)
    sigma = check_positive(sigma, "sigma")
    noisy = value + as_generator(rng).normal(0.0, sigma, size=value.shape)
    return Release.from_event(noisy, GaussianEvent(sigma, sensitivity), delta, sigma=sigma,
                              sensitivity=sensitivity)


def laplace_mechanism(value: object, *, sensitivity: float, epsilon: float, rng: SeedLike,
                      step: float = dl.DEFAULT_STEP) -> Release:
    r"""Release ``value`` (a number or a vector of ``d`` coordinates) with exactly
    ``epsilon``-DP for an :math:`\ell_1` ``sensitivity``: rounded to the grid ``step`` (a power of
    two) plus exact discrete Laplace noise of scale :math:`t \ge L/\varepsilon` grid units,
    :math:`L = \lfloor\Delta_1/\text{step}\rfloor + d`; the epsilon reported is the exact
    :math:`L/t \le` ``epsilon``.

    The event is :class:`~privrl.core.accounting.laplace.GridLaplaceReportEvent`; ``parameters``:
    ``noise_scale`` (:math:`t\,\text{step}` per coordinate, a hair above the continuous
    :math:`\Delta_1/\varepsilon`), ``sensitivity``, ``step``. Pure DP: ``delta`` is 0.

    >>> import privrl
    >>> r = privrl.laplace_mechanism(3.0, sensitivity=1.0, epsilon=0.5, rng=0)
    >>> r.epsilon <= 0.5, r.delta, round(r.parameters["noise_scale"], 6)
    (True, 0.0, 2.0)
    """
    arr = check_array(value, "value", ndim=(0, 1))
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    row = np.atleast_1d(arr)[None, :]
    d = row.shape[1]
    noisy = dl.discrete_laplace_mechanism(row, sensitivity, epsilon, rng, step)[0]
    t = dl.grid_scale(sensitivity, epsilon, d, step)
    event = GridLaplaceReportEvent(sensitivity=sensitivity, d=d, scale_numerator=t.numerator,
                                   scale_denominator=t.denominator, step=step)
    return Release.from_event(noisy.reshape(arr.shape), event, 0.0,
                              noise_scale=event.noise_scale, sensitivity=sensitivity, step=step)


__all__ = ["gaussian_mechanism", "laplace_mechanism"]
