r"""The standard mechanisms as releases, both on a grid and private on IEEE doubles.

* :func:`gaussian_mechanism`: :math:`f(X)` rounded to the grid :math:`\text{step}\,\mathbb{Z}`
  plus exact discrete Gaussian noise, :math:`(\varepsilon, \delta)`-DP for an
  :math:`\ell_2`-sensitivity :math:`\Delta_2` by the Rényi curve of the Gaussian
  (:mod:`privrl.core.mechanisms.discrete_gaussian`), with the smallest noise meeting a target
  epsilon, or the epsilon of a given noise scale.
* :func:`laplace_mechanism`: :math:`f(X)` rounded to the grid :math:`\text{step}\,\mathbb{Z}` plus
  exact discrete Laplace noise, exactly :math:`\varepsilon`-DP for an :math:`\ell_1`-sensitivity
  :math:`\Delta_1` (:mod:`privrl.core.mechanisms.discrete_laplace`); textbook floating-point
  Laplace noise is not private on real computers (Mironov 2012).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privrl.api.release import Release, release_rng
from privrl.core.accounting.discrete_gaussian import (
    discrete_gaussian_event,
    required_noise_multiplier,
)
from privrl.core.accounting.laplace import GridLaplaceReportEvent, check_step
from privrl.core.mechanisms import discrete_gaussian as dg
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.rng import SeedLike
from privrl.core.validation import check_array, check_delta, check_epsilon, check_positive

#: The largest target epsilon of the Gaussian mechanism (beyond it the release protects nothing).
MAX_GAUSSIAN_EPSILON = 700.0


def _one_of(epsilon: object, other: object, other_name: str) -> None:
    if (epsilon is None) == (other is None):
        raise ValueError(
            f"epsilon, {other_name}: give exactly one (a target epsilon to calibrate "
            f"the noise, or the {other_name} to compute epsilon from)"
        )


#: The relations a caller may state for the mechanisms' sensitivity: a key of
#: :data:`~privrl.api.release.NEIGHBOURS` whose dp-accounting relation is one of ``RELATIONS``.
MECHANISM_RELATIONS = ("add/remove", "replace-one", "replace-one trajectory")


def _check_relation(relation: str) -> str:
    """The dp-accounting relation (``"add/remove"`` or ``"replace-one"``) of ``relation``."""
    if relation not in MECHANISM_RELATIONS:
        raise ValueError(f"relation must be one of {list(MECHANISM_RELATIONS)}, got {relation!r}")
    kind = relation.split(" ")[0]
    return kind


def _nonempty(value: np.ndarray) -> np.ndarray:
    if value.size == 0:
        raise ValueError(f"value must hold at least one coordinate, got shape {value.shape}")
    return value


def gaussian_mechanism(
    value: object,
    *,
    sensitivity: float,
    delta: float,
    rng: SeedLike | None = None,
    epsilon: float | None = None,
    sigma: float | None = None,
    step: float | None = None,
    relation: str = "add/remove",
) -> Release:
    r"""Release ``value`` (any shape, ``d`` coordinates) with ``(epsilon, delta)``-DP for an
    :math:`\ell_2` ``sensitivity`` :math:`\Delta` of the whole ``value``, private on IEEE doubles:
    rounded to the grid ``step`` (a power of two) plus exact discrete Gaussian noise of variance
    parameter :math:`s` (Canonne, Kamath and Steinke 2020). Rounded neighbours lie at most
    :math:`G = \Delta/\text{step} + \sqrt d` grid units apart, so the event is
    ``GaussianDpEvent(sqrt(s) / G)`` (RDP accountant; ``discrete_gaussian_event``).

    Give ``epsilon`` (up to :data:`MAX_GAUSSIAN_EPSILON`; the smallest noise meeting it) or
    ``sigma`` (epsilon computed); ``delta`` in (0, 1). ``relation`` (``"add/remove"``, default,
    ``"replace-one"`` or ``"replace-one trajectory"``) is carried by the release and its event:
    :func:`~privrl.api.release.compose` refuses to mix relations. ``step`` defaults to the power of
    two that puts the noise at 2^19 to 2^20 grid units. ``parameters``: ``sigma``
    (:math:`\sqrt{s}\,\text{step}`, at least the one asked for), ``noise_multiplier``,
    ``sensitivity``, ``step``.

    >>> import privrl
    >>> r = privrl.gaussian_mechanism([1.0, 2.0], sensitivity=1.0, epsilon=1.0,
    ...                               delta=1e-5, rng=0)
    >>> r.epsilon <= 1.0, round(r.parameters["sigma"], 2), r.value.shape
    (True, 4.05, (2,))
    """
    value = _nonempty(check_array(value, "value"))
    sensitivity = check_positive(sensitivity, "sensitivity")
    delta = check_delta(delta)
    kind = _check_relation(relation)
    _one_of(epsilon, sigma, "sigma")
    d = max(value.size, 1)
    if sigma is None:
        epsilon = check_epsilon(epsilon)
        if epsilon > MAX_GAUSSIAN_EPSILON:
            raise ValueError(
                f"epsilon must be at most {MAX_GAUSSIAN_EPSILON:g} for the Gaussian "
                f"mechanism, got {epsilon}"
            )
        z = required_noise_multiplier(epsilon, delta)
        if not math.isfinite(z * sensitivity):
            raise ValueError(
                f"sensitivity: the noise scale {z:.4g} x {sensitivity:.4g} is beyond "
                "a double; rescale the value"
            )
        noise = dg.GridGaussian.for_multiplier(z, sensitivity, d, step)
    else:
        sigma = check_positive(sigma, "sigma")
        step = check_step(step) if step is not None else dg.default_step(sigma)
        if Fraction(sigma) / Fraction(step) > dg.MAX_GRID_SIGMA:
            raise ValueError(
                f"step: sigma {sigma:.6g} is more than 2^21 steps of {step:.6g}; "
                "choose a larger step"
            )
        noise = dg.GridGaussian.of_scale(Fraction(sigma) / Fraction(step), step)
    event = discrete_gaussian_event(noise.variance, sensitivity, d, noise.step, kind)
    if epsilon is not None and event.epsilon(delta) > epsilon:  # s >= (z G)^2 exactly
        raise RuntimeError(
            f"the Gaussian calibration missed its target: epsilon "
            f"{event.epsilon(delta)!r} > {epsilon!r}"
        )
    noisy = noise.add(value, release_rng(rng))
    return Release.from_event(
        noisy,
        event,
        delta,
        relation=relation,
        sigma=noise.sigma,
        noise_multiplier=event.dp_event.noise_multiplier,
        sensitivity=sensitivity,
        step=noise.step,
    )


def laplace_mechanism(
    value: object,
    *,
    sensitivity: float,
    epsilon: float,
    rng: SeedLike | None = None,
    step: float = dl.DEFAULT_STEP,
    relation: str = "add/remove",
) -> Release:
    r"""Release ``value`` (a number or a vector of ``d`` coordinates) with exactly
    ``epsilon``-DP for an :math:`\ell_1` ``sensitivity``: rounded to the grid ``step`` (a power of
    two) plus exact discrete Laplace noise of scale :math:`t \ge L/\varepsilon` grid units,
    :math:`L = \lfloor\Delta_1/\text{step}\rfloor + d`; the epsilon reported is the exact
    :math:`L/t \le` ``epsilon``.

    The event is :class:`~privrl.core.accounting.laplace.GridLaplaceReportEvent`; ``parameters``:
    ``noise_scale`` (:math:`t\,\text{step}` per coordinate, a hair above the continuous
    :math:`\Delta_1/\varepsilon`), ``sensitivity``, ``step``. Pure DP: ``delta`` is 0.
    ``relation``: as :func:`gaussian_mechanism`'s (the release's, its epsilon the same under
    either). Valid range: every ``epsilon`` > 0.

    >>> import privrl
    >>> r = privrl.laplace_mechanism(3.0, sensitivity=1.0, epsilon=0.5, rng=0)
    >>> r.epsilon <= 0.5, r.delta, round(r.parameters["noise_scale"], 6)
    (True, 0.0, 2.0)
    """
    arr = _nonempty(check_array(value, "value", ndim=(0, 1)))
    sensitivity = check_positive(sensitivity, "sensitivity")
    _check_relation(relation)
    epsilon = check_epsilon(epsilon)
    step = check_step(step)
    row = np.atleast_1d(arr)[None, :]
    event = grid_laplace_event(sensitivity, epsilon, row.shape[1], step)
    noisy = dl.discrete_laplace_mechanism(row, sensitivity, epsilon, release_rng(rng), step)[0]
    return Release.from_event(
        noisy.reshape(arr.shape),
        event,
        0.0,
        relation=relation,
        noise_scale=event.noise_scale,
        sensitivity=sensitivity,
        step=step,
    )


def grid_laplace_event(
    sensitivity: float, epsilon: float, d: int, step: float = dl.DEFAULT_STEP, reports: int = 1
) -> GridLaplaceReportEvent:
    r"""The calibration of :func:`laplace_mechanism` (and of each
    :func:`~privrl.api.local.laplace_report`): ``reports`` releases of ``d`` coordinates of
    :math:`\ell_1` ``sensitivity`` on the grid ``step``, each with discrete Laplace noise of the
    smallest scale :math:`t` (grid units, :func:`~privrl.core.mechanisms.discrete_laplace.grid_scale`)
    whose exact epsilon :math:`L/t` is at most ``epsilon``; a ``ValueError`` names ``step`` when
    :math:`t` leaves the exact range."""
    t = dl.check_scale(dl.grid_scale(sensitivity, epsilon, d, step), step)
    return GridLaplaceReportEvent(
        sensitivity=sensitivity,
        d=d,
        scale_numerator=t.numerator,
        scale_denominator=t.denominator,
        step=step,
        reports=reports,
    )


__all__ = ["gaussian_mechanism", "grid_laplace_event", "laplace_mechanism"]
