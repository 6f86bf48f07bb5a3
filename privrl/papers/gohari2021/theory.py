r"""Gohari et al. (2021): the computations behind the chapter's checks of Theorem 1 and Lemma 1
(no learning runs). Each returns its table or numbers; :mod:`privrl.papers.gohari2021.checks`
records the checks on them.

* :func:`delta_cross_check`: eq. (6) by Monte Carlo against numerical integration and the rigorous
  bounds (m = 2, 3);
* :func:`paper_pair`: a combination :math:`(\eta, \tau, Lb)` that gives the paper's
  :math:`(4.46, 0.05)` at :math:`k = 5`, m = 6 (:math:`\tau` by bisection on the rigorous bound
  of eq. 6, :func:`~privrl.core.accounting.dirichlet.tau_for_delta_bound`), the family it belongs
  to and the sensitivity of the pair to each parameter;
* :func:`k_grid`: eq. (12) and (6) over a grid of :math:`k` (as :math:`k \to 0`,
  :math:`\varepsilon` tends to a finite limit, :func:`epsilon_limit_small_k`, while
  :math:`\delta \to 1`);
* :func:`log_density_bound`: the bound (19)-(25) on random, adversarial and numerically optimised
  triples :math:`(\pi, \pi', z)`;
* :func:`lemma1_table` and :func:`radius_table`: the tail of each radius of Lemma 1 (printed,
  union, proven sub-Gaussian, Monte Carlo) and where each lets the teacher act
  (:math:`\lambda r(k) < \sqrt 2`, the diameter of the simplex).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import softmax

from privrl.api.control import dirichlet_answer_event
from privrl.core.accounting import dirichlet as acc
from privrl.core.mechanisms.dirichlet import dirichlet_log_density, restrict_to_simplex

AIRRAID_ACTIONS = 6
PAPER_K = 5.0
PAPER_EPSILON, PAPER_DELTA = 4.46, 0.05
SIMPLEX_DIAMETER = math.sqrt(2.0)


def delta_cross_check(rng: np.random.Generator, n_samples: int = 100_000) -> pd.DataFrame:
    """Eq. (6) by Monte Carlo (with its exact one-sided 95% bound) against numerical integration
    and the rigorous lower and upper bounds (exact Beta CDFs at m = 2); ``error / standard error``
    is the Monte Carlo error in binomial standard errors."""
    rows = []
    for m, k, eta, tau in [
        (2, 5.0, 0.1, 0.01),
        (2, 1.0, 0.2, 0.05),
        (3, 5.0, 0.1, 0.01),
        (3, 2.0, 0.2, 0.05),
    ]:
        mech = acc.Theorem1Mechanism(k, m, eta, tau)
        mc = acc.theorem1_delta_mc(mech, rng, n_samples=n_samples)
        exact = acc.theorem1_delta_integral(mech)
        se = math.sqrt(exact * (1 - exact) / n_samples)
        rows.append(
            {
                "m": m,
                "k": k,
                "eta": eta,
                "tau": tau,
                "delta (integration)": exact,
                "delta (lower bound)": acc.theorem1_delta_lower(mech),
                "delta (upper bound)": acc.theorem1_delta_bound(mech),
                "delta (Monte Carlo)": mc.estimate,
                "95% upper bound": mc.upper,
                "error / standard error": (mc.estimate - exact) / se,
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PaperPair:
    """The stated combination behind the paper's (4.46, 0.05) at k = 5, m = 6: ``delta`` is the
    rigorous (union) bound on eq. (6), ``delta_lower`` a rigorous lower bound, ``delta_mc`` and
    ``delta_mc_upper`` the Monte Carlo cross-check (estimate, 95% Clopper-Pearson bound)."""

    eta: float
    tau: float
    lb: float
    epsilon: float
    delta: float
    delta_lower: float
    delta_mc: float
    delta_mc_upper: float


def paper_pair(
    rng: np.random.Generator, eta: float = 0.1
) -> tuple[PaperPair, pd.DataFrame, pd.DataFrame]:
    r"""Solve the rigorous bound on eq. (6) for :math:`\tau` (:math:`\delta \le 0.05`, bisection)
    and eq. (12) for :math:`Lb`
    (:math:`\varepsilon = 4.46`) at ``eta``; the one-parameter family over :math:`\eta`; the
    sensitivity of the pair to each parameter changed alone."""
    m, k = AIRRAID_ACTIONS, PAPER_K
    family = []
    for e in [0.05, 0.08, 0.09, 0.1, 0.12, 0.15]:
        g = acc.gamma_terms(k, m, e)
        tau = acc.tau_for_delta_bound(PAPER_DELTA, k, m, e)
        lb = (
            (PAPER_EPSILON - g) / (math.sqrt(m) * k * math.log(1 / tau))
            if g < PAPER_EPSILON
            else math.nan
        )
        family.append(
            {
                "eta": e,
                "Gamma terms of eq. (12)": g,
                "tau (delta = 0.05)": tau,
                "L b (epsilon = 4.46)": lb,
            }
        )
    tau = acc.tau_for_delta_bound(PAPER_DELTA, k, m, eta)
    mech = acc.Theorem1Mechanism(k, m, eta, tau)
    lb = acc.lipschitz_b_for_epsilon(PAPER_EPSILON, mech)
    eps = acc.theorem1_epsilon(mech, lb, 1.0)
    d = acc.theorem1_delta_mc(mech, rng, n_samples=300_000)
    pair = PaperPair(
        eta,
        tau,
        lb,
        eps,
        acc.theorem1_delta_bound(mech),
        acc.theorem1_delta_lower(mech),
        d.estimate,
        d.upper,
    )
    changes = [
        ("as stated", {}),
        ("eta 0.09", {"eta": 0.09}),
        ("eta 0.11", {"eta": 0.11}),
        ("tau / 2", {"tau": tau / 2}),
        ("tau x 2", {"tau": tau * 2}),
        ("L b / 2", {"lb": lb / 2}),
        ("L b x 2", {"lb": lb * 2}),
        ("k = 4", {"k": 4.0}),
        ("k = 6", {"k": 6.0}),
    ]
    rows = []
    for name, kw in changes:
        a = {"k": k, "eta": eta, "tau": tau, "lb": lb, **kw}
        changed = acc.Theorem1Mechanism(a["k"], m, a["eta"], a["tau"])
        rows.append(
            {
                "change": name,
                "epsilon": acc.theorem1_epsilon(changed, a["lb"], 1.0),
                "delta (upper bound)": acc.theorem1_delta_bound(changed),
            }
        )
    return pair, pd.DataFrame(family), pd.DataFrame(rows)


def paper_pair_event(pair: PaperPair) -> acc.DirichletMechanismEvent:
    """The ledger event of the paper's pair: Theorem 1 at k = 5, m = 6 with the stated product
    :math:`Lb` (as ``lipschitz``, ``b = 1``)."""
    return dirichlet_answer_event(
        PAPER_K, m=AIRRAID_ACTIONS, eta=pair.eta, tau=pair.tau, lipschitz=pair.lb, b=1.0
    )


def epsilon_limit_small_k(m: int, eta: float) -> float:
    r"""Limit of eq. (12) as :math:`k \to 0` (the :math:`\log k` parts of the Gamma terms cancel):
    :math:`-(m-1)\log\eta - \log(1-(m-1)\eta) - m\log m`."""
    return -(m - 1) * math.log(eta) - math.log(1 - (m - 1) * eta) - m * math.log(m)


def k_grid(pair: PaperPair, rng: np.random.Generator) -> pd.DataFrame:
    """Eq. (12) and (6) over a grid of k at the pair's (eta, tau, L b), m = 6: delta as its
    rigorous union bound, its rigorous lower bound and by Monte Carlo."""
    ks = np.array([0.05, 0.1, 0.3, 1, 2, 5, 10, 20, 50])
    mechs = [acc.Theorem1Mechanism(k, AIRRAID_ACTIONS, pair.eta, pair.tau) for k in ks]
    return pd.DataFrame(
        {
            "k": ks,
            "epsilon": [acc.theorem1_epsilon(mech, pair.lb, 1.0) for mech in mechs],
            "delta": [acc.theorem1_delta_bound(mech) for mech in mechs],
            "delta (lower bound)": [acc.theorem1_delta_lower(mech) for mech in mechs],
            "delta (Monte Carlo)": [
                acc.theorem1_delta_mc(mech, rng, 50_000).estimate for mech in mechs
            ],
        }
    )


def theorem1_bound(rho: float, k: float, m: int, eta: float, tau: float) -> float:
    """Right-hand side of the log-density bound: eq. (19) plus the Gamma terms (25)."""
    return math.sqrt(m) * rho * k * math.log(1 / tau) + acc.gamma_terms(k, m, eta)


@dataclass(frozen=True)
class LogDensityBound:
    """Largest excess of the log-density ratio over the bound (19)+(25) on random pairs
    (``random_excess``), on the vertex pair with z at a corner (``adversarial_ratio`` against
    ``adversarial_bound``) and by numerical maximisation (``optimised_excess``); the median
    slack on the random pairs."""

    random_excess: float
    adversarial_ratio: float
    adversarial_bound: float
    optimised_excess: float
    random_median_slack: float


def log_density_bound(rng: np.random.Generator, eta: float, n: int = 20_000) -> LogDensityBound:
    r""":math:`\log p_k(z\mid\pi) - \log p_k(z\mid\pi')` against eq. (19) + (25) at m = 6, k = 5,
    :math:`\tau = 10^{-3}` on random pairs, on the vertex pair with z at a corner of
    :math:`\Delta_{m,\tau}`, and by Nelder-Mead over softmax parametrisations (8 starts)."""
    m, k, tau = AIRRAID_ACTIONS, PAPER_K, 1e-3
    pi = restrict_to_simplex(rng.dirichlet(np.ones(m), n), eta)
    pi2 = restrict_to_simplex(rng.dirichlet(np.ones(m), n), eta)
    z = restrict_to_simplex(rng.dirichlet(np.full(m, 0.3), n), tau)
    ratio = dirichlet_log_density(z, pi, k) - dirichlet_log_density(z, pi2, k)
    bounds = np.array([theorem1_bound(r, k, m, eta, tau) for r in np.linalg.norm(pi - pi2, axis=1)])
    v0 = acc.vertex_policy(m, eta)[::-1].copy()
    v1 = np.roll(v0, 1)
    corner = np.full(m, tau)
    corner[0] = 1 - (m - 1) * tau
    adv = float(dirichlet_log_density(corner, v0, k) - dirichlet_log_density(corner, v1, k))
    adv_bound = theorem1_bound(float(np.linalg.norm(v0 - v1)), k, m, eta, tau)

    def excess(theta: np.ndarray) -> float:
        p = restrict_to_simplex(softmax(theta[:m]), eta)
        q = restrict_to_simplex(softmax(theta[m : 2 * m]), eta)
        zz = restrict_to_simplex(softmax(theta[2 * m :]), tau)
        r = float(np.linalg.norm(p - q))
        return -(
            dirichlet_log_density(zz, p, k)
            - dirichlet_log_density(zz, q, k)
            - theorem1_bound(r, k, m, eta, tau)
        )

    best = min(
        minimize(
            excess, rng.normal(0, 3, 3 * m), method="Nelder-Mead", options={"maxiter": 4000}
        ).fun
        for _ in range(8)
    )
    return LogDensityBound(
        float(np.max(ratio - bounds)),
        adv,
        adv_bound,
        -float(best),
        float(np.median(bounds - ratio)),
    )


def lemma1_table(
    rng: np.random.Generator, eta: float, beta: float = 0.05, n_samples: int = 50_000
) -> pd.DataFrame:
    """Tail :math:`\\mathbb{P}(\\|\\mathrm{Dir}_k(\\pi) - \\pi\\|_2 \\ge r)` of every radius at m = 6,
    uniform and vertex policies (fresh Monte Carlo draws, 95% Clopper-Pearson upper bound)."""
    m = AIRRAID_ACTIONS
    rows = []
    for k in [2.0, 5.0, 18.0, 100.0]:
        for name, pol in [("uniform", np.full(m, 1 / m)), ("vertex", acc.vertex_policy(m, eta))]:
            for kind in acc.RADII:
                r = acc.lemma1_radius(kind, k, m, beta, eta)
                tail = acc.lemma1_tail_mc(pol, k, r, rng, n_samples)
                rows.append(
                    {
                        "k": k,
                        "policy": name,
                        "radius": kind,
                        "r": r,
                        "tail": tail.estimate,
                        "tail (95% upper)": tail.upper,
                    }
                )
    return pd.DataFrame(rows)


def radius_table(ks: np.ndarray, m: int, beta: float, eta: float, lam: float) -> pd.DataFrame:
    r"""Ball radius :math:`\alpha_\lambda = \lambda r(k)` (eq. 15) of every radius over ``ks`` and
    whether it lets the teacher act (:math:`\alpha_\lambda < \sqrt 2`, the simplex's diameter)."""
    rows = [
        {
            "k": float(k),
            "radius": kind,
            "alpha": lam * acc.lemma1_radius(kind, float(k), m, beta, eta),
        }
        for kind in acc.RADII
        for k in ks
    ]
    table = pd.DataFrame(rows)
    table["teacher can act"] = table["alpha"] < SIMPLEX_DIAMETER
    return table


def printed_radius_limit(lam: float, beta: float) -> float:
    r"""Limit of the printed ball radius :math:`\lambda r(k)` (eq. 14, 15) as :math:`k \to 0`:
    :math:`\lambda\sqrt{\log(1/\beta)/2}`."""
    return lam * math.sqrt(math.log(1 / beta) / 2)
