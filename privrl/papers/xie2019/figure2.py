"""Figure 2 read from the points (:mod:`privrl.papers.xie2019.points`: this run's, or the recorded
paper-scale run's): off-policy against on-policy, the convergence gate against the best
estimator, the privacy cost against two baselines, DP-LSW against GPOPE.

* :func:`off_on_table` - at each (n, epsilon) of Figure 2, :math:`\\log_2` of GPOPE's mean MSPBE
  off-policy (Figure 2 b) over on-policy (Figure 2 a), each decided against "within a factor of
  2" (:data:`AGREEMENT_FACTOR`) by :func:`~privrl.chapter.verdicts.decide_interval`;
* :func:`gate_table` - noiseless GTD2 at the paper's settings as a fraction of the gap between
  the zero estimate and LSTD / WIS-LSTD, and its ratio to them;
* :func:`privacy_cost` - GPOPE's excess MSPBE over a baseline (GTD2 or the reference), per n;
* :func:`lsw_table` - LSW / DP-LSW on Mountain Car against LSTD and GPOPE (log10 ratios).

The zero estimate's MSPBE is a constant of the public held-out problem (:func:`zero_mspbe`), so
the recorded points need no zero rows.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np
import pandas as pd

from privrl.chapter.verdicts import Outcome, Threshold, bootstrap_interval, decide_interval
from privrl.core.algorithms.gtd import mspbe
from privrl.papers.xie2019 import chain, domains
from privrl.papers.xie2019.profile import XieProfile, chain_config

#: "Remarkably similar" (Section 7 on Figures 2 a and 2 b) read as: the off-policy mean MSPBE
#: within this factor of the on-policy one, either way. The paper gives no number; a factor of 2
#: is one step of the figures' log axis' minor grid, far below the decades that separate the
#: methods the figures compare, and any larger gap would be visible on the figures.
AGREEMENT_FACTOR = 2.0
#: Figure 2's domains: (a) on-policy, (b) off-policy.
FIGURE2 = ("mountain_car_on", "mountain_car_off")
REFERENCE = {"chain": "LSTD", "mountain_car_on": "LSTD", "mountain_car_off": "WIS-LSTD"}


@functools.lru_cache(maxsize=4)
def zero_mspbe(domain: str) -> float:
    """The MSPBE of the zero estimate: the chain's exact one (paper profile's chain), a Mountain
    Car domain's on its public held-out problem."""
    if domain == "chain":
        prob = chain.chain_problem(chain_config(XieProfile.paper()))
        A, b, M = prob["A"], prob["b"], prob["M"]
    elif domain in FIGURE2:
        A, b, M = domains.heldout_problem(domain)
    else:
        raise ValueError(f"zero_mspbe: domain must be chain or one of {FIGURE2}, got {domain!r}")
    return float(mspbe(np.zeros(A.shape[1]), A, b, M))


def _at(
    points: pd.DataFrame,
    domain: str,
    method: str,
    n: int | None = None,
    epsilon: float | None = None,
) -> pd.DataFrame:
    out = points[(points.domain == domain) & (points.method == method)]
    if n is not None:
        out = out[out.n == n]
    if epsilon is not None:
        out = out[np.isclose(out.epsilon, epsilon)]
    return out


def _paired(points: pd.DataFrame, a: tuple, b: tuple, n: int, epsilon: float | None) -> np.ndarray:
    """(trials, 2): MSPBE of (domain, method) ``a`` and ``b`` at (n, epsilon), by trial."""
    x = _at(points, *a, n, epsilon).set_index("trial").mspbe
    y = _at(points, *b, n, epsilon).set_index("trial").mspbe
    common = x.index.intersection(y.index)
    return np.column_stack([x.loc[common].to_numpy(), y.loc[common].to_numpy()])


def _log2_ratio(xy: np.ndarray) -> float:
    return float(np.log2(xy[:, 1].mean() / xy[:, 0].mean()))


def decide_agreement(xy: np.ndarray, seed: int, label: str) -> Outcome:
    """``log2(mean y / mean x)`` within ``log2`` :data:`AGREEMENT_FACTOR` of 0, paired bootstrap
    95% interval: decided against the bound on the side of the estimate."""
    value = _log2_ratio(xy)
    interval = bootstrap_interval(_log2_ratio, [xy], seed=seed)
    bound = math.log2(AGREEMENT_FACTOR)
    threshold, direction = (bound, "less") if value >= 0 else (-bound, "greater")
    return decide_interval(label, value, interval, len(xy), Threshold(threshold, direction))


def off_on_table(points: pd.DataFrame, seed: int) -> pd.DataFrame:
    """At each (n, epsilon) of GPOPE in both Figure 2 domains: ``log2_ratio`` of the mean MSPBE
    off- over on-policy (paired by trial: the same behaviour data), its interval and verdict."""
    rows = []
    gp = _at(points, FIGURE2[0], "GPOPE")
    for (n, eps), _ in gp.groupby(["n", "epsilon"]):
        xy = _paired(points, (FIGURE2[0], "GPOPE"), (FIGURE2[1], "GPOPE"), n, eps)
        if len(xy) == 0:
            continue
        c = decide_agreement(xy, seed, "log2(MSPBE off / MSPBE on)")
        rows.append(
            dict(
                n=int(n),
                epsilon=float(eps),
                log2_ratio=c.value,
                lo=c.interval[0],
                hi=c.interval[1],
                trials=c.n_trials,
                verdict=c.verdict,
            )
        )
    return pd.DataFrame(rows)


def decide_off_on(points: pd.DataFrame, seed: int) -> Outcome:
    """The claim over every (n, epsilon) of :func:`off_on_table`: decided at the point that is
    worst for it (not reproduced before inconclusive before reproduced, then the largest
    ``|log2 ratio|``), with how many points lie within the factor."""
    table = off_on_table(points, seed)
    if table.empty:
        raise ValueError("points: no (n, epsilon) has GPOPE in both Figure 2 domains")
    rank = {"not reproduced": 0, "inconclusive": 1, "reproduced": 2}
    worst = (
        table.assign(r=table.verdict.map(rank), a=-table.log2_ratio.abs())
        .sort_values(["r", "a"])
        .iloc[0]
    )
    xy = _paired(points, (FIGURE2[0], "GPOPE"), (FIGURE2[1], "GPOPE"), worst.n, worst.epsilon)
    within = int((table.verdict == "reproduced").sum())
    claim = decide_agreement(
        xy,
        seed,
        f"log2(MSPBE off / MSPBE on) at n = {worst.n}, epsilon = "
        f"{worst.epsilon:g} (the worst point)",
    )
    return add_evidence(
        claim,
        f"{within} of {len(table)} (n, epsilon) points within a factor "
        f"{AGREEMENT_FACTOR:g} (95% interval inside)",
    )


def gate_table(points: pd.DataFrame) -> pd.DataFrame:
    """Per (domain, n) with noiseless GTD2 and its reference: mean MSPBE of the reference
    (LSTD / WIS-LSTD), GTD2 and the zero estimate, ``gap_fraction`` = (GTD2 - reference) /
    (zero - reference) and ``ratio`` = GTD2 / reference."""
    rows = []
    for domain, ref in REFERENCE.items():
        for n in sorted(_at(points, domain, "GTD2").n.unique()):
            r = _at(points, domain, ref, n).mspbe.mean()
            g = _at(points, domain, "GTD2", n).mspbe.mean()
            z = zero_mspbe(domain)
            rows.append(
                dict(
                    domain=domain,
                    n=int(n),
                    reference=r,
                    GTD2=g,
                    zero=z,
                    gap_fraction=(g - r) / (z - r),
                    ratio=g / r,
                )
            )
    return pd.DataFrame(rows)


def gate_caveat(gates: pd.DataFrame, where: str) -> str:
    """The caveat every privacy-cost verdict carries when noiseless GTD2 at the largest n of a
    Figure 2 domain is above twice its reference ("" otherwise)."""
    parts = []
    for domain in FIGURE2:
        g = gates[gates.domain == domain]
        if g.empty:
            continue
        last = g.loc[g.n.idxmax()]
        if last.ratio > 2:
            parts.append(f"{last.ratio:.0f}x {REFERENCE[domain]}'s MSPBE ({domain}, n = {last.n})")
    if not parts:
        return ""
    return (
        f"Caveat ({where}): noiseless GTD2 at the paper's settings has not converged to the "
        f"best estimator: {' and '.join(parts)}; a privacy cost measured against it "
        "understates the cost against the best non-private estimate"
    )


def privacy_cost(
    points: pd.DataFrame, domain: str, baseline: str, n: int, epsilon: float
) -> np.ndarray:
    """Per trial: GPOPE's MSPBE minus ``baseline``'s (GTD2, LSTD, WIS-LSTD) on the same data."""
    gp = _at(points, domain, "GPOPE", n, epsilon).set_index("trial").mspbe
    base = _at(points, domain, baseline, n).set_index("trial").mspbe
    common = gp.index.intersection(base.index)
    return (gp.loc[common] - base.loc[common]).to_numpy()


def lsw_table(lsw: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """Per (n, grid, epsilon): mean MSPBE of LSW and DP-LSW, LSTD's and GPOPE's (on-policy, same
    n and epsilon), ``lsw_over_lstd`` and ``log10_dplsw_over_gpope`` (of the means)."""
    rows = []
    on = FIGURE2[0]
    for (n, grid), part in lsw[lsw.method != "LSTD"].groupby(["n", "grid"]):
        base = lsw[(lsw.n == n) & (lsw.method == "LSTD")].mspbe.mean()
        nonpriv = part[part.method == "LSW"].mspbe.mean()
        for eps, dp in part[part.method == "DP-LSW"].groupby("epsilon"):
            g = _at(points, on, "GPOPE", n, eps).mspbe.mean()
            rows.append(
                dict(
                    n=int(n),
                    grid=f"{grid}x{grid}",
                    epsilon=float(eps),
                    LSTD=base,
                    LSW=nonpriv,
                    DP_LSW=dp.mspbe.mean(),
                    GPOPE=g,
                    lsw_over_lstd=nonpriv / base,
                    log10_dplsw_over_gpope=math.log10(dp.mspbe.mean() / g),
                )
            )
    return pd.DataFrame(rows)


def add_evidence(claim: Outcome, text: str) -> Outcome:
    """``claim`` with ``text`` appended to its evidence."""
    joined = "; ".join(t for t in (claim.evidence, text) if t)
    return replace(claim, evidence=joined)


__all__ = [
    "AGREEMENT_FACTOR",
    "FIGURE2",
    "REFERENCE",
    "add_evidence",
    "decide_agreement",
    "decide_off_on",
    "gate_caveat",
    "gate_table",
    "lsw_table",
    "off_on_table",
    "privacy_cost",
    "zero_mspbe",
]
