"""The claims and errata of the Xie, Thomas and Miklau (2019) chapter, as skeleton specs.

:data:`CLAIMS` are re-decided (:mod:`privrl.chapter.verdicts`) on this run's trials, then listed
again as the recorded paper-profile run decided them (keys ``<key>_paper``). Three statements name
the profile's own n, epsilon or T (functions of the profile).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.skeleton import (
    ClaimSpec,
    Context,
    ErratumSpec,
    not_reproduced_when,
    recorded_twins,
)
from privrl.chapter.verdicts import Claim, decide_difference, decide_threshold, untestable
from privrl.papers.xie2019.profile import PAPER, XieProfile


def _at(table: pd.DataFrame, **where: Any) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    return table[mask]


def _paired(table: pd.DataFrame, a: dict, b: dict, column: str = "mspbe") -> tuple[np.ndarray, np.ndarray]:
    """Values of two methods on the same datasets (aligned by seed)."""
    x = _at(table, **a).set_index("seed")[column]
    y = _at(table, **b).set_index("seed")[column]
    common = x.index.intersection(y.index)
    return x.loc[common].to_numpy(), y.loc[common].to_numpy()


# --- deciders -----------------------------------------------------------------------------------

def decide_chain_order_of_magnitude(ctx: Context, spec: ClaimSpec) -> Claim:
    """log10(MSPBE of output perturbation / MSPBE of GPOPE) above 1 for the weakest (n, method)
    pair of the chain (the pair with the smallest mean)."""
    cmp = ctx.tables["chain_compare"]
    worst = None
    for n in sorted(cmp.n.unique()):
        for other in ("DP-LSW", "DP-LSL"):
            g, o = _paired(cmp, dict(method="GPOPE", n=n), dict(method=other, n=n))
            logratio = np.log10(o) - np.log10(g)
            if worst is None or logratio.mean() < worst[0].mean():
                worst = (logratio, n, other)
    logratio, n, other = worst
    return decide_threshold(
        spec.key, spec.statement, logratio, 1.0, direction="greater",
        label=f"log10(MSPBE {other} / MSPBE GPOPE) at n = {n} (the weakest pair)",
        seed=ctx.profile.seed)


def decide_mc_beats_output_perturbation(ctx: Context, spec: ClaimSpec) -> Claim:
    """Untestable: the paper does not say how DP-LSW was applied to continuous states."""
    return untestable(
        spec.key, spec.statement,
        "not run: DP-LSW and DP-LSL release per-state first-visit estimates of a finite state "
        "space; the paper does not say how it applied DP-LSW to Mountain Car's continuous states",
        0)


def decide_works_off_policy(ctx: Context, spec: ClaimSpec) -> Claim:
    """GPOPE / zero estimate MSPBE below 0.1, off-policy Mountain Car, largest n and epsilon."""
    profile = ctx.profile
    g, zero = _paired(ctx.tables["mountain_car_off"],
                      dict(method="GPOPE", n=max(profile.mc_n), epsilon=max(profile.mc_epsilons)),
                      dict(method="zero", n=max(profile.mc_n)))
    return decide_threshold(spec.key, spec.statement, g / zero, 0.1, direction="less",
                            label="MSPBE GPOPE / MSPBE zero", seed=profile.seed)


def decide_privacy_cost_shrinks(ctx: Context, spec: ClaimSpec) -> Claim:
    """GPOPE's excess MSPBE over noiseless GTD2 (same data), on-policy Mountain Car at the largest
    epsilon: smaller at the largest n than at the smallest (untestable with one n)."""
    profile = ctx.profile
    sizes = sorted(profile.mc_n)
    if len(sizes) < 2:
        return untestable(spec.key, spec.statement, f"the {profile.profile} profile has one "
                          f"Mountain Car n ({sizes[0]})", profile.n_trials)
    excess = {}
    for n in (sizes[0], sizes[-1]):
        g, q = _paired(ctx.tables["mountain_car_on"],
                       dict(method="GPOPE", n=n, epsilon=max(profile.mc_epsilons)),
                       dict(method="GTD2", n=n))
        excess[n] = g - q
    return decide_difference(spec.key, spec.statement, excess[sizes[-1]], excess[sizes[0]],
                             direction="less", label_a=f"n = {sizes[-1]}",
                             label_b=f"n = {sizes[0]}", seed=profile.seed)


def decide_diminishing_beats_constant(ctx: Context, spec: ClaimSpec) -> Claim:
    """Final MSPBE of the diminishing step below the constant step's (same datasets), chain, at
    the largest total T."""
    sched = ctx.tables["schedules"]
    T = max(ctx.profile.schedule_iterations)
    final = sched[(sched.iterations == T) & (sched.iteration == T)]
    d, c = _paired(final, dict(schedule="diminishing"), dict(schedule="constant"))
    return decide_difference(spec.key, spec.statement, d, c, direction="less",
                             label_a="diminishing", label_b="constant", seed=ctx.profile.seed)


# --- the claims --------------------------------------------------------------------------------

def _eps(profile: XieProfile) -> str:
    return f"{max(profile.mc_epsilons):g}"


def _cost_statement(profile: XieProfile) -> str:
    if len(profile.mc_n) < 2:
        return "The privacy cost (GPOPE's excess MSPBE over noiseless GTD2) shrinks as n grows"
    return ("The privacy cost (GPOPE's excess MSPBE over noiseless GTD2, Mountain Car "
            f"on-policy, epsilon = {_eps(profile)}) shrinks as n grows")


#: The paper's claims decided on the run's own trials; three statements name the profile's n,
#: epsilon or T (the quick profile tests the claim at a smaller scale than the paper profile).
LIVE_CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec("chain_order_of_magnitude",
              "Chain: GPOPE's MSPBE is an order of magnitude below DP-LSW's and DP-LSL's at "
              "every n (same (epsilon, delta))",
              "Section 7 and Figure 1 (a): 'outperforms output perturbation V1 and output "
              "perturbation V2 in terms of accuracy by an order of magnitude'",
              decide_chain_order_of_magnitude),
    ClaimSpec("mc_beats_output_perturbation",
              "Mountain Car on-policy: GPOPE improves on output perturbation (DP-LSW) by "
              "orders of magnitude",
              "Section 7 and Figure 2 (a): 'improves upon existing methods by orders of "
              "magnitude'",
              decide_mc_beats_output_perturbation),
    ClaimSpec("works_off_policy",
              lambda p: (f"Mountain Car off-policy: GPOPE works (at n = {max(p.mc_n)}, epsilon = "
                         f"{_eps(p)} it removes at least 90% of the zero estimate's MSPBE)"),
              "Section 7 and Figure 3 (b): off-policy Mountain Car, performance 'remarkably "
              "similar' to on-policy",
              decide_works_off_policy),
    ClaimSpec("privacy_cost_shrinks_with_n", _cost_statement,
              "Section 6 (Theorems 2 and 3) and Section 8: 'the privacy cost can be "
              "diminished by increasing the size of training batches'",
              decide_privacy_cost_shrinks),
    ClaimSpec("diminishing_beats_constant",
              lambda p: (f"Theorems 2-3: at the largest T (= {max(p.schedule_iterations)}) a "
                         "diminishing step ends below a constant one (chain)"),
              "Section 6, after Theorem 3: 'in the long-term (when running many "
              "iterations), using a diminishing step size will produce a better solution'",
              decide_diminishing_beats_constant),
)

#: Keys of the claims decided on the run's own trials.
LIVE_KEYS: tuple[str, ...] = tuple(s.key for s in LIVE_CLAIMS)

#: The live claims, then the same claims as the recorded paper-profile run decided them (keys
#: ``<key>_paper``, statements of the paper profile).
CLAIMS: tuple[ClaimSpec, ...] = LIVE_CLAIMS + recorded_twins(LIVE_CLAIMS, PAPER,
                                                             XieProfile.paper())


# --- errata -------------------------------------------------------------------------------------

def _not_reproduced(key: str) -> ErratumSpec:
    """The erratum of live claim ``key`` when this run decided it *not reproduced*."""
    return ErratumSpec(
        f"claim_{key}", "not reproduced",
        lambda ctx: ctx.claims[key].statement,
        lambda ctx: f"{ctx.claims[key].evidence_text()} ({ctx.report.profile} profile)",
        when=not_reproduced_when(key))


ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "theorem1_constants", "ambiguous",
        "Theorem 1 gives the noise scale only up to unspecified constants; the experiment "
        "settings (step sizes, iterations, clip bound, discount, data sizes, epsilons) are missing.",
        "GPOPE is accounted with dp-accounting (sampling without replacement, replace-one); "
        "Theorem 1's form would need constants from {c_min:.3g} to {c_max:.3g} across the "
        "chapter's runs."),
    ErratumSpec(
        "step_robustness", "unsupported",
        "Section 7: GPOPE's accuracy is 'stable for a very wide range of step sizes' (Figure 1 b).",
        "On the chain at n = {sensitivity_n}, steps from {steps_within2_lo:g} to "
        "{steps_within2_hi:g} (a factor {steps_within2_factor:g}) stay within a factor 2 of the "
        "best MSPBE; larger steps blow up with the noise."),
    ErratumSpec(
        "mc_output_perturbation", "ambiguous",
        "Section 7 compares GPOPE with output perturbation V1 (DP-LSW) on Mountain Car, and says "
        "V2 (DP-LSL) fails to guarantee privacy with continuous states.",
        "Both DP-LSW and DP-LSL are defined on a finite state space (first-visit returns per "
        "state, smooth sensitivity from per-state visit counts); how DP-LSW was applied to "
        "continuous states is not said, so the comparison is not rebuilt here."),
    ErratumSpec(
        "chain_zero_reference", "ambiguous",
        "Figure 1 a: GPOPE beats output perturbation by an order of magnitude on the chain.",
        "At (epsilon, delta) = (0.1, 0.1) both output-perturbation methods are far worse than "
        "predicting V = 0; the figure does not show that reference (the chapter does)."),
    *(_not_reproduced(key) for key in LIVE_KEYS),
)

__all__ = ["CLAIMS", "ERRATA", "LIVE_CLAIMS", "LIVE_KEYS"]
