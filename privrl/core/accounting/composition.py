r"""Composition of :math:`k` mechanisms that are each :math:`(\varepsilon, \delta)`-DP.

Hand-written because ``dp-accounting`` accounts mechanisms (events), not black-box
:math:`(\varepsilon,\delta)` guarantees. The papers compare their bounds against these:

* basic: :math:`(k\varepsilon, k\delta)`;
* advanced (Dwork, Rothblum, Vadhan 2010): :math:`\big(\sqrt{2k\ln(1/\delta')}\,\varepsilon
  + k\varepsilon(e^\varepsilon - 1),\; k\delta + \delta'\big)`;
* Kairouz, Oh, Viswanath 2015, Theorem 3.5: :math:`\tilde\varepsilon = \min\{k\varepsilon,\;
  \tfrac{(e^\varepsilon-1)k\varepsilon}{e^\varepsilon+1} + \varepsilon\sqrt{2k\ln(e +
  \sqrt{k\varepsilon^2}/\tilde\delta)},\; \tfrac{(e^\varepsilon-1)k\varepsilon}{e^\varepsilon+1}
  + \varepsilon\sqrt{2k\ln(1/\tilde\delta)}\}` with total :math:`\delta` equal to
  :math:`1 - (1-\delta)^k(1-\tilde\delta)`;
* optimal homogeneous composition (Kairouz et al. 2015, Thm 3.3, in the form of Murtagh and
  Vadhan 2016): :math:`\delta_{\rm tot}(\varepsilon_g) = 1 - (1-\delta)^k\big(1 -
  \sum_{l=0}^{k}\binom{k}{l}\frac{\max(0, e^{(k-l)\varepsilon} - e^{\varepsilon_g + l\varepsilon})}
  {(1+e^\varepsilon)^k}\big)`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from privrl.core.validation import check_delta, check_epsilon, check_int, check_nonnegative


def _check(epsilon: float, delta: float, k: int) -> tuple[float, float, int]:
    return (
        check_epsilon(epsilon),
        check_delta(delta, allow_zero=True),
        check_int(k, "k", minimum=1),
    )


def sequential_epsilon(epsilons: Sequence[float]) -> float:
    """Total epsilon of pure-DP releases of unequal ``epsilons`` on the same data: their sum
    (basic composition; Ono and Takahashi's Theorem 1 for local reports)."""
    if len(epsilons) == 0:
        raise ValueError("epsilons must not be empty")
    return float(
        sum(check_epsilon(e, f"epsilons[{i}]", allow_inf=True) for i, e in enumerate(epsilons))
    )


def basic_composition(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """Basic composition: (k epsilon, k delta)."""
    epsilon, delta, k = _check(epsilon, delta, k)
    return k * epsilon, min(1.0, k * delta)


def advanced_composition(
    epsilon: float, delta: float, k: int, delta_slack: float
) -> tuple[float, float]:
    r"""Advanced composition theorem of Dwork, Rothblum and Vadhan (2010):
    :math:`\sqrt{2k\log(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon - 1)` at
    :math:`k\delta + \delta'`; infinity where :math:`e^\varepsilon` is beyond a double (an
    epsilon past about 709.78)."""
    epsilon, delta, k = _check(epsilon, delta, k)
    delta_slack = check_delta(delta_slack, "delta_slack")
    try:
        growth = math.expm1(epsilon)
    except OverflowError:
        growth = math.inf
    eps_total = math.sqrt(2 * k * math.log(1 / delta_slack)) * epsilon + k * epsilon * growth
    return eps_total, min(1.0, k * delta + delta_slack)


def kairouz_composition(
    epsilon: float, delta: float, k: int, delta_slack: float
) -> tuple[float, float]:
    """Kairouz, Oh and Viswanath (2015), Theorem 3.5 (closed-form bound on optimal composition)."""
    epsilon, delta, k = _check(epsilon, delta, k)
    delta_slack = check_delta(delta_slack, "delta_slack")
    drift = math.expm1(epsilon) * k * epsilon / (math.exp(epsilon) + 1)
    eps_total = min(
        k * epsilon,
        drift
        + epsilon * math.sqrt(2 * k * math.log(math.e + math.sqrt(k * epsilon**2) / delta_slack)),
        drift + epsilon * math.sqrt(2 * k * math.log(1 / delta_slack)),
    )
    return eps_total, 1 - (1 - delta) ** k * (1 - delta_slack)


def optimal_composition_delta(epsilon: float, delta: float, k: int, epsilon_total: float) -> float:
    """Exact total delta of k-fold homogeneous composition at ``epsilon_total`` (Kairouz et al. 2015)."""
    epsilon, delta, k = _check(epsilon, delta, k)
    epsilon_total = check_nonnegative(epsilon_total, "epsilon_total")
    ls = np.arange(k + 1)
    log_binom = gammaln(k + 1) - gammaln(ls + 1) - gammaln(k - ls + 1)
    # max(0, e^{(k-l)eps} - e^{eps_g + l eps}) = e^{(k-l)eps} (1 - e^{eps_g - (k - 2l) eps})_+
    gap = (k - 2 * ls) * epsilon - epsilon_total
    keep = gap > 0
    if not np.any(keep):
        inner = 0.0
    else:
        log_terms = log_binom[keep] + (k - ls[keep]) * epsilon + np.log(-np.expm1(-gap[keep]))
        inner = float(np.exp(logsumexp(log_terms) - k * np.log1p(math.exp(epsilon))))
    return float(1 - (1 - delta) ** k * (1 - inner))


def optimal_composition_epsilon(epsilon: float, delta: float, k: int, delta_total: float) -> float:
    """Smallest total epsilon whose exact optimal-composition delta is at most ``delta_total``
    (to 1e-12; the returned epsilon's delta is at most ``delta_total`` as evaluated)."""
    epsilon, delta, k = _check(epsilon, delta, k)
    delta_total = check_delta(delta_total, "delta_total")
    floor = 1 - (1 - delta) ** k
    if delta_total <= floor:
        raise ValueError(
            f"delta_total must exceed 1 - (1 - delta)^k = {floor:.3g} for a finite epsilon"
        )
    if optimal_composition_delta(epsilon, delta, k, 0.0) <= delta_total:
        return 0.0
    root = float(
        brentq(
            lambda e: optimal_composition_delta(epsilon, delta, k, e) - delta_total,
            0.0,
            k * epsilon,
            xtol=1e-12,
        )
    )
    # brentq may stop on either side of the root: step up to the safe side (delta <= target)
    while optimal_composition_delta(epsilon, delta, k, root) > delta_total:
        root += 1e-12 + 1e-12 * root
    return root
