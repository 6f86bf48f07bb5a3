r"""Calibration of the Gaussian mechanism :math:`M(X) = f(X) + N(0, \sigma^2 I)`.

Two calibrations for an :math:`\ell_2`-sensitivity :math:`\Delta`:

* classic (Dwork and Roth 2014, Thm A.1): :math:`\sigma = \sqrt{2\ln(1.25/\delta)}\,\Delta/\varepsilon`,
  valid only for :math:`\varepsilon < 1`;
* analytic (Balle and Wang 2018, Thm 8): the smallest :math:`\sigma` with
  :math:`\Phi\big(\tfrac{\Delta}{2\sigma} - \tfrac{\varepsilon\sigma}{\Delta}\big)
  - e^{\varepsilon}\Phi\big(-\tfrac{\Delta}{2\sigma} - \tfrac{\varepsilon\sigma}{\Delta}\big) \le \delta`,
  exact for every :math:`\varepsilon > 0`. Computed by ``dp-accounting``'s exact Gaussian routines
  (which work with unit sensitivity; the noise scales linearly in :math:`\Delta`).

:func:`gaussian_delta` evaluates the exact privacy profile above directly with scipy, as an
independent check of the library. :class:`GaussianEvent` is the guarantee of a (composed) Gaussian
release as a ledger event, with the exact epsilon of :func:`gaussian_epsilon`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import dp_accounting
from scipy.stats import norm

from privrl.core.accounting.events import register_event
from privrl.core.validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
)


def classic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    r"""Classic calibration :math:`\sigma = \sqrt{2\ln(1.25/\delta)}\,\Delta/\varepsilon` (needs eps < 1)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_nonnegative(sensitivity, "sensitivity")
    if epsilon >= 1:
        raise ValueError(
            f"epsilon must be < 1 for the classic Gaussian calibration (got {epsilon}); "
            "use calibration='analytic'"
        )
    return math.sqrt(2.0 * math.log(1.25 / delta)) * sensitivity / epsilon


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest noise standard deviation giving (epsilon, delta)-DP (Balle and Wang 2018).

    dp-accounting's bisection may stop a rounding error below the exact root; the result is
    raised by relative steps of 1e-9 until :func:`gaussian_delta` (the closed form, evaluated
    independently) is at most ``delta``, so the calibration is never on the unsafe side.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_nonnegative(sensitivity, "sensitivity")
    sigma = float(dp_accounting.get_sigma_gaussian(epsilon, delta))
    while gaussian_delta(sigma, epsilon) > delta:
        sigma *= 1.0 + 1e-9
    return sensitivity * sigma


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    r"""Exact :math:`\delta(\varepsilon)` of the Gaussian mechanism (Balle and Wang 2018, Thm 8)."""
    sigma = check_positive(sigma, "sigma")
    epsilon = check_nonnegative(epsilon, "epsilon")
    sensitivity = check_nonnegative(sensitivity, "sensitivity")
    if sensitivity == 0:
        return 0.0
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return float(max(0.0, norm.cdf(a - b) - math.exp(epsilon) * norm.cdf(-a - b)))


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest epsilon such that noise ``sigma`` gives (epsilon, delta)-DP (exact)."""
    sigma = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    sensitivity = check_nonnegative(sensitivity, "sensitivity")
    if sensitivity == 0:
        return 0.0
    return float(dp_accounting.get_epsilon_gaussian(sigma / sensitivity, delta))


@register_event
@dataclass(frozen=True)
class GaussianEvent:
    r"""``compositions`` Gaussian mechanisms, each of noise ``sigma`` and :math:`\ell_2`-sensitivity
    ``sensitivity``: together one Gaussian mechanism of sensitivity
    :math:`\Delta\sqrt{\text{compositions}}`, whose exact epsilon (Balle and Wang 2018) is
    :func:`gaussian_epsilon`."""

    sigma: float
    sensitivity: float
    compositions: int = 1

    def epsilon(self, delta: float) -> float:
        count = check_int(self.compositions, "compositions", minimum=1)
        return gaussian_epsilon(self.sigma, delta, self.sensitivity * math.sqrt(count))

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """``GaussianDpEvent(sigma / sensitivity)``, self-composed ``compositions`` times."""
        count = check_int(self.compositions, "compositions", minimum=1)
        event = dp_accounting.GaussianDpEvent(self.sigma / self.sensitivity)
        return event if count == 1 else dp_accounting.SelfComposedDpEvent(event, count)
