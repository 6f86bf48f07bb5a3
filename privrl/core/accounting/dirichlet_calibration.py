r"""The Dirichlet mechanism calibrated to a target :math:`(\varepsilon, \delta)` (Gohari et al.
2021, Theorem 1): the concentration :math:`k` and threshold :math:`\tau` that meet it.

For a target :math:`\delta`, :math:`\tau(k)` is the largest threshold whose rigorous bound on
eq. (6) meets it (:func:`~privrl.core.accounting.dirichlet.tau_for_delta_bound`) and
:math:`\varepsilon(k)` is eq. (12) at :math:`\tau(k)`. :func:`calibrate_concentration` returns
the largest :math:`k` (least noise) whose :math:`\varepsilon(k)`, exactly as evaluated, is at
most the target: a scan up a log grid from :data:`K_MIN` to :data:`K_MAX` until a failing point
follows a meeting one, then a bisection between them; it meets the target whether or not
:math:`\varepsilon(k)` is monotone, and raises ``ValueError`` when no :math:`k` does.
:func:`per_query_target` splits a target over :math:`n` queries composed as
:class:`~privrl.core.accounting.dirichlet.TeacherQueriesEvent` does (basic, or advanced with a
slack :math:`\delta'`): :math:`\delta_0 = (\delta - \delta')/n` and the largest
:math:`\varepsilon_0` whose composition is at most :math:`\varepsilon`."""

from __future__ import annotations

import math

import numpy as np

from privrl.core.accounting.calibration import bisect_safe
from privrl.core.accounting.composition import advanced_composition
from privrl.core.accounting.dirichlet import (
    Theorem1Mechanism,
    check_eta,
    tau_for_delta_bound,
    theorem1_delta_bound,
    theorem1_epsilon,
)
from privrl.core.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
)

#: The concentrations scanned: eq. (6)'s incomplete beta functions stop converging above about
#: 3e4 (mpmath), and the epsilon at 1e4 is in the thousands for any useful set-up.
K_MIN, K_MAX = 1e-3, 1e4
#: Grid points per decade of the scan, and the relative tolerances of the bisections on k and tau.
_PER_DECADE, _K_RTOL, _TAU_RTOL = 2, 1e-3, 1e-6
#: The per-query shares are shaved by a relative 1e-9, so that summing them in floating point
#: cannot exceed the target.
_SHAVE = 1.0 - 1e-9
#: The smallest threshold tau_for_delta_bound tries: no tau meets delta when this one does not.
_TAU_FLOOR = 1e-300


def epsilon_at(
    k: float,
    delta: float,
    m: int,
    eta: float,
    lipschitz: float,
    b: float,
) -> tuple[float, float]:
    r"""``(epsilon, tau)``: eq. (12) at the largest :math:`\tau` whose eq. (6) bound meets
    ``delta`` at concentration ``k`` (``(inf, nan)`` when no :math:`\tau \ge 10^{-300}` does)."""
    if theorem1_delta_bound(Theorem1Mechanism(k, m, eta, _TAU_FLOOR)) > delta:
        return math.inf, math.nan  # tau_for_delta_bound would search down to its floor first
    try:
        tau = tau_for_delta_bound(delta, k, m, eta, rel_tol=_TAU_RTOL)
    except ValueError:  # its search stops at the power of 16 above the floor
        return math.inf, math.nan
    return theorem1_epsilon(Theorem1Mechanism(k, m, eta, tau), lipschitz, b), tau


def calibrate_concentration(
    epsilon: float, delta: float, m: int, eta: float, lipschitz: float, b: float
) -> tuple[float, float]:
    r"""``(k, tau)``: the largest concentration found in ``[K_MIN, K_MAX]`` whose Theorem 1
    guarantee is ``(epsilon', delta')`` with ``epsilon' <= epsilon`` and ``delta' <= delta``
    (eq. 12 and the rigorous bound on eq. 6, as evaluated), for ``m`` actions on
    :math:`\Delta_{m,\eta}`, an ``lipschitz``-Lipschitz teacher and observations ``b`` apart.

    Raises a ``ValueError`` naming ``epsilon`` (with the smallest epsilon the scan found) when
    no scanned concentration meets the target."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    m = check_int(m, "m", minimum=2)
    eta = check_eta(eta, m)
    lipschitz, b = check_nonnegative(lipschitz, "lipschitz"), check_nonnegative(b, "b")
    decades = math.log10(K_MAX / K_MIN)
    grid = np.geomspace(K_MIN, K_MAX, round(decades * _PER_DECADE) + 1)
    values: list[float] = []
    for k in grid:  # ascending, up to the first failure after a success
        values.append(epsilon_at(float(k), delta, m, eta, lipschitz, b)[0])
        if values[-1] > epsilon and any(e <= epsilon for e in values):
            break
    meets = [i for i, e in enumerate(values) if e <= epsilon]
    if not meets:
        low = int(np.argmin(values))
        floor = (
            f"the smallest is {values[low]:.4g}, at k = {grid[low]:.3g}"
            if math.isfinite(values[low])
            else "no concentration meets delta"
        )
        raise ValueError(
            f"epsilon: Theorem 1 gives no concentration in [{K_MIN:g}, {K_MAX:g}] "
            f"an epsilon of at most {epsilon:g} at delta = {delta:g} for m = {m}, "
            f"eta = {eta:g} and lipschitz * b = {lipschitz * b:g} ({floor})"
        )
    best = meets[-1]
    if best == len(grid) - 1:
        k = float(grid[best])
    else:
        k = bisect_safe(
            lambda x: epsilon_at(x, delta, m, eta, lipschitz, b)[0] <= epsilon,
            float(grid[best]),
            float(grid[best + 1]),
            safe_end="lo",
            rtol=_K_RTOL,
        )
    found, tau = epsilon_at(k, delta, m, eta, lipschitz, b)
    if not found <= epsilon:
        raise RuntimeError(
            f"the Dirichlet calibration missed its target: epsilon {found!r} > "
            f"{epsilon!r} at k = {k!r}"
        )
    return k, tau


def per_query_target(
    epsilon: float, delta: float, n: int, composition: str, delta_slack: float
) -> tuple[float, float]:
    r"""``(epsilon_0, delta_0)`` per query such that ``n`` queries composed by ``composition``
    (``"basic"``: sums; ``"advanced"``: Dwork, Rothblum and Vadhan with ``delta_slack``) are
    at most ``(epsilon, delta)``, with a relative 1e-9 to spare for the rounding of the sums.
    One query: the target itself."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    n = check_int(n, "n", minimum=1)
    check_choice(composition, "composition", ("basic", "advanced"))
    if n == 1:
        return epsilon, delta
    if composition == "basic":
        return epsilon / n * _SHAVE, delta / n * _SHAVE
    delta_slack = check_delta(delta_slack, "delta_slack")
    if not delta_slack < delta:
        raise ValueError(f"delta_slack must be below delta = {delta:g}, got {delta_slack:g}")
    delta0 = (delta - delta_slack) / n * _SHAVE
    epsilon0 = bisect_safe(
        lambda e: advanced_composition(e, delta0, n, delta_slack)[0] <= epsilon,
        epsilon * 1e-9,
        epsilon,
        safe_end="lo",
        rtol=1e-9,
    )
    return epsilon0, delta0


__all__ = ["K_MAX", "K_MIN", "calibrate_concentration", "epsilon_at", "per_query_target"]
