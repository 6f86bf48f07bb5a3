"""The claims and errata of the Xie, Thomas and Miklau (2019) chapter, as skeleton specs.

Each claim is decided on a :class:`~privrl.papers.xie2019.points.FigureData` (``ev.data``): this
run's points and runs of Theorems 2-3 (key ``<key>``) and, beside a run at another profile, the
recorded paper-profile run's (key ``<key>_paper``, the source
:data:`~privrl.papers.xie2019.sources.PAPER_RUN`). A decider reads its evidence's data only and
returns an :class:`~privrl.chapter.verdicts.Outcome`: a statistic over paired trials (the same
datasets, aligned by trial), its bootstrap interval and the verdict against the paper's threshold
(:mod:`privrl.chapter.verdicts`). Three statements name the profile's own n, epsilon or T.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.evidence import Evidence
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec, not_reproduced
from privrl.chapter.verdicts import (
    Outcome,
    Sample,
    Threshold,
    decide_difference,
    decide_threshold,
    untestable,
)
from privrl.papers.xie2019 import figure2
from privrl.papers.xie2019.mc_lsw import LSW_DOMAIN, LSW_READING
from privrl.papers.xie2019.points import FigureData, dp_lsw_points
from privrl.papers.xie2019.profile import XieProfile
from privrl.papers.xie2019.state import XieState

#: "Orders of magnitude" (Section 7): at least two, a log10 ratio of 2.
MC_ORDERS = 2.0


def _at(table: pd.DataFrame, **where: Any) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    return table[mask]


def _paired(
    table: pd.DataFrame, a: dict, b: dict, by: str = "trial"
) -> tuple[np.ndarray, np.ndarray]:
    """The MSPBE of two arms on the same datasets (aligned by ``by``)."""
    x = _at(table, **a).set_index(by)["mspbe"]
    y = _at(table, **b).set_index(by)["mspbe"]
    common = x.index.intersection(y.index)
    return x.loc[common].to_numpy(), y.loc[common].to_numpy()


# --- deciders -----------------------------------------------------------------------------------


def decide_chain_order_of_magnitude(ctx: Context[XieState], ev: Evidence[FigureData]) -> Outcome:
    """log10(MSPBE of output perturbation / MSPBE of GPOPE), paired by trial, above 1 for the
    weakest (n, method) pair of the chain (Figure 1 a; the pair with the smallest mean)."""
    points = ev.data.points
    chain = points[points.domain == "chain"]
    worst = None
    for n in sorted(chain.n.unique()):
        for other in ("DP-LSW", "DP-LSL"):
            g, o = _paired(chain, dict(method="GPOPE", n=n), dict(method=other, n=n))
            logratio = np.log10(o) - np.log10(g)
            if worst is None or logratio.mean() < worst[0].mean():
                worst = (logratio, n, other)
    logratio, n, other = worst
    return decide_threshold(
        Sample(logratio, f"log10(MSPBE {other} / MSPBE GPOPE) at n = {n} (the weakest pair)"),
        Threshold(1.0, "greater"),
        seed=ev.profile.seed,
    )


def decide_mc_beats_output_perturbation(
    ctx: Context[XieState], ev: Evidence[FigureData]
) -> Outcome:
    """log10(MSPBE DP-LSW / MSPBE GPOPE) on the same datasets (paired by trial) above 2 ("orders
    of magnitude": at least two) for the weakest (n, epsilon, grid) of on-policy Mountain Car
    (Figure 2 a); DP-LSW on a uniform grid partition (our reading,
    :mod:`~privrl.papers.xie2019.mc_lsw`)."""
    points = ev.data.points
    on = points[points.domain == LSW_DOMAIN]
    dp = dp_lsw_points(on)
    worst = None
    for (n, eps, grid), _ in dp.groupby(["n", "epsilon", "grid"]):
        o, g = _paired(
            pd.concat([dp, on]),
            dict(method="DP-LSW", n=n, epsilon=eps, grid=grid),
            dict(method="GPOPE", n=n, epsilon=eps),
        )
        logratio = np.log10(o) - np.log10(g)
        if worst is None or logratio.mean() < worst[0].mean():
            worst = (logratio, n, eps, grid)
    logratio, n, eps, grid = worst
    claim = decide_threshold(
        Sample(
            logratio,
            f"log10(MSPBE DP-LSW / MSPBE GPOPE) at n = {n}, epsilon = {eps:g}, "
            f"grid {grid}x{grid} (the weakest point)",
        ),
        Threshold(MC_ORDERS, "greater"),
        seed=ev.profile.seed,
    )
    return figure2.add_evidence(claim, LSW_READING)


def decide_off_policy_like_on_policy(ctx: Context[XieState], ev: Evidence[FigureData]) -> Outcome:
    """Figure 2 b against 2 a at every (n, epsilon) of the evidence: within a factor of 2."""
    return figure2.decide_off_on(ev.data.points, ev.profile.seed)


def decide_works_off_policy_beyond(ctx: Context[XieState], ev: Evidence[FigureData]) -> Outcome:
    """GPOPE / zero estimate MSPBE below 0.1, off-policy Mountain Car, largest n and epsilon."""
    points, profile = ev.data.points, ev.profile
    sel = points[
        (points.domain == "mountain_car_off")
        & (points.method == "GPOPE")
        & (points.n == max(profile.mc_n))
        & np.isclose(points.epsilon, max(profile.mc_epsilons))
    ]
    zero = figure2.zero_mspbe("mountain_car_off")
    return decide_threshold(
        Sample(sel.mspbe.to_numpy() / zero, "MSPBE GPOPE / MSPBE zero"),
        Threshold(0.1, "less"),
        seed=profile.seed,
    )


def _cost_shrinks(ev: Evidence[FigureData], baseline: str) -> Outcome:
    """GPOPE's excess MSPBE over ``baseline`` (same data), on-policy Mountain Car at the largest
    epsilon: smaller at the largest n than at the smallest (untestable with one n), with the
    convergence gates' caveat."""
    points, profile = ev.data.points, ev.profile
    sizes = sorted(set(points[points.domain == "mountain_car_on"].n))
    if len(sizes) < 2:
        claim = untestable(
            f"the {profile.profile} profile has one Mountain Car n ({sizes[0]})", profile.n_trials
        )
    else:
        eps = max(profile.mc_epsilons)
        excess = {
            n: figure2.privacy_cost(points, "mountain_car_on", baseline, n, eps)
            for n in (sizes[0], sizes[-1])
        }
        claim = decide_difference(
            Sample(excess[sizes[-1]], f"n = {sizes[-1]}"),
            Sample(excess[sizes[0]], f"n = {sizes[0]}"),
            Threshold(0.0, "less"),
            seed=profile.seed,
        )
    return figure2.add_evidence(claim, ev.data.gate_caveat)


def decide_privacy_cost_shrinks(ctx: Context[XieState], ev: Evidence[FigureData]) -> Outcome:
    """The privacy cost against noiseless GTD2 at the paper's settings, with the gate's caveat."""
    return _cost_shrinks(ev, "GTD2")


def decide_privacy_cost_vs_lstd(ctx: Context[XieState], ev: Evidence[FigureData]) -> Outcome:
    """Beyond the paper: the privacy cost against LSTD (the best non-private estimate)."""
    return _cost_shrinks(ev, "LSTD")


def decide_diminishing_beats_constant(
    ctx: Context[XieState], ev: Evidence[FigureData]
) -> Outcome | None:
    """Final MSPBE of the diminishing step (Theorem 3) minus the constant step's (Theorem 2) on
    the same datasets (paired by seed), chain, at the largest total T: below 0. ``None`` when
    the evidence keeps no runs of Theorems 2-3."""
    sched = ev.data.schedules
    if sched is None:
        return None
    T = max(ev.profile.schedule_iterations)
    final = sched[(sched.iterations == T) & (sched.iteration == T)]
    d, c = _paired(final, dict(schedule="diminishing"), dict(schedule="constant"), by="seed")
    return decide_difference(
        Sample(d, "diminishing"),
        Sample(c, "constant"),
        Threshold(0.0, "less"),
        seed=ev.profile.seed,
    )


# --- the claims --------------------------------------------------------------------------------


def _eps(profile: XieProfile) -> str:
    return f"{max(profile.mc_epsilons):g}"


def _cost_statement(profile: XieProfile) -> str:
    if len(profile.mc_n) < 2:
        return "The privacy cost (GPOPE's excess MSPBE over noiseless GTD2) shrinks as n grows"
    return (
        "The privacy cost (GPOPE's excess MSPBE over noiseless GTD2, Mountain Car "
        f"on-policy, epsilon = {_eps(profile)}) shrinks as n grows"
    )


def _beyond_off(p: XieProfile) -> str:
    return (
        f"Beyond the paper: Mountain Car off-policy, at n = {max(p.mc_n)}, epsilon = "
        f"{_eps(p)}, GPOPE removes at least 90% of the zero estimate's MSPBE (a threshold of "
        "ours, not the paper's)"
    )


def _beyond_cost(p: XieProfile) -> str:
    return (
        "Beyond the paper: the privacy cost against LSTD (GPOPE's excess MSPBE over LSTD, "
        f"Mountain Car on-policy, epsilon = {_eps(p)}) shrinks as n grows"
    )


_COST_SOURCE = (
    "Section 6 (Theorems 2 and 3) and Section 8: 'the privacy cost can be diminished "
    "by increasing the size of training batches'"
)
# The paper's order: Section 6 (Theorem 2, then Theorem 3), Section 7 (Figure 1 a, Figure 2 a,
# Figure 2 b); each row beyond the paper beside the claim it extends.
CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "privacy_cost_shrinks_with_n",
        _cost_statement,
        _COST_SOURCE,
        decide_privacy_cost_shrinks,
    ),
    ClaimSpec(
        "privacy_cost_vs_lstd_beyond",
        _beyond_cost,
        _COST_SOURCE,
        decide_privacy_cost_vs_lstd,
    ),
    ClaimSpec(
        "diminishing_beats_constant",
        lambda p: (
            f"Theorems 2-3: at the largest T (= {max(p.schedule_iterations)}) a "
            "diminishing step ends below a constant one (chain)"
        ),
        "Section 6, after Theorem 3: 'in the long-term (when running many "
        "iterations), using a diminishing step size will produce a better solution'",
        decide_diminishing_beats_constant,
    ),
    ClaimSpec(
        "chain_order_of_magnitude",
        "Chain: GPOPE's MSPBE is an order of magnitude below DP-LSW's and DP-LSL's at "
        "every n (same (epsilon, delta))",
        "Section 7 and Figure 1 (a): 'outperforms output perturbation V1 and output "
        "perturbation V2 in terms of accuracy by an order of magnitude'",
        decide_chain_order_of_magnitude,
    ),
    ClaimSpec(
        "mc_beats_output_perturbation",
        "Mountain Car on-policy: GPOPE improves on output perturbation (DP-LSW) by "
        "orders of magnitude",
        "Section 7 and Figure 2 (a): 'improves upon existing methods by orders of "
        "magnitude' (threshold: two orders, log10 ratio 2)",
        decide_mc_beats_output_perturbation,
    ),
    ClaimSpec(
        "off_policy_like_on_policy",
        "Mountain Car: GPOPE's MSPBE off-policy (Figure 2 b) is within a factor of 2 of "
        "its MSPBE on-policy (Figure 2 a) at every (n, epsilon)",
        "Section 7 on Figures 2 (a) and 2 (b): 'Despite being off-policy ... our "
        "algorithm's performances in Figures 2(a) and 2(b) are remarkably similar'; the "
        "paper gives no number, 'within a factor of 2' is ours (figure2.AGREEMENT_FACTOR)",
        decide_off_policy_like_on_policy,
    ),
    ClaimSpec(
        "works_off_policy_beyond",
        _beyond_off,
        "Ours: Section 7 and Figure 2 (b) say only 'remarkably similar' to on-policy",
        decide_works_off_policy_beyond,
    ),
)

#: Keys of the claims decided on the run's own trials.
LIVE_KEYS: tuple[str, ...] = tuple(s.key for s in CLAIMS)


# --- errata -------------------------------------------------------------------------------------


ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "theorem1_constants",
        "ambiguous",
        "Theorem 1 gives the noise scale only up to unspecified constants; the experiment "
        "settings (step sizes, iterations, clip bound, discount, data sizes, epsilons) are missing.",
        "GPOPE is accounted with dp-accounting (sampling without replacement, replace-one); "
        "Theorem 1's form would need constants from {c_min:.3g} to {c_max:.3g} across the "
        "chapter's runs.",
    ),
    ErratumSpec(
        "step_robustness",
        "unsupported",
        "Section 7: GPOPE's accuracy is 'stable for a very wide range of step sizes' (Figure 1 b).",
        "On the chain at n = {sensitivity_n}, steps from {steps_within2_lo:g} to "
        "{steps_within2_hi:g} (a factor {steps_within2_factor:g}) stay within a factor 2 of the "
        "best MSPBE; larger steps blow up with the noise.",
    ),
    ErratumSpec(
        "mc_output_perturbation",
        "ambiguous",
        "Section 7 compares GPOPE with output perturbation V1 (DP-LSW) on Mountain Car (Figure "
        "2 a), and leaves V2 (DP-LSL) out because it 'fails to guarantee differential privacy "
        "for MDPs with continuous states'; it does not say how DP-LSW, defined on a finite "
        "state space, was applied to continuous states.",
        "DP-LSW needs first-visit returns and visit counts per state, so a finite partition of "
        "the state space. The chapter runs it on uniform grids of {lsw_grids} cells (our "
        "reading: first visit to a cell = first visit to a state, rho uniform over cells, "
        "Balle's smooth bound on the cell counts); DP-LSL stays out, as in the paper. "
        "Non-private LSW's MSPBE is {lsw_over_lstd_min:.3g}x to {lsw_over_lstd_max:.3g}x "
        "LSTD's, DP-LSW's 10^{lsw_log10_min:.1f} to 10^{lsw_log10_max:.1f} times GPOPE's "
        "({profile_name} profile).",
    ),
    ErratumSpec(
        "chain_zero_reference",
        "ambiguous",
        "Figure 1 a: GPOPE beats output perturbation by an order of magnitude on the chain.",
        "At (epsilon, delta) = (0.1, 0.1) both output-perturbation methods are far worse than "
        "predicting V = 0; the figure does not show that reference (the chapter does).",
    ),
    *(not_reproduced(spec) for spec in CLAIMS),
)

__all__ = ["CLAIMS", "ERRATA", "LIVE_KEYS", "MC_ORDERS"]
