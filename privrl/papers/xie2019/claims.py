"""The claims and errata of the Xie, Thomas and Miklau (2019) chapter, as skeleton specs.

:data:`CLAIMS` are re-decided (:mod:`privrl.chapter.verdicts`) on this run's trials, then listed
again as the recorded paper-profile run decided them (keys ``<key>_paper``). Three statements name
the profile's own n, epsilon or T (functions of the profile).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.records import recorded_run
from privrl.chapter.skeleton import (
    ClaimSpec,
    Context,
    ErratumSpec,
    not_reproduced_when,
    recorded_twins,
)
from privrl.chapter.verdicts import Claim, decide_difference, decide_threshold, untestable
from privrl.papers.xie2019 import figure2
from privrl.papers.xie2019.mc_lsw import LSW_READING
from privrl.papers.xie2019.points import paper_points, read_paper_points
from privrl.papers.xie2019.profile import PAPER, XieProfile

#: "Orders of magnitude" (Section 7): at least two, a log10 ratio of 2.
MC_ORDERS = 2.0


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


def _points(ctx: Context) -> pd.DataFrame:
    """The points of the paper's figures the claim is decided on: this run's, or (a twin on the
    recorded run) ``ctx.extra["figure2_points"]``."""
    found = ctx.extra.get("figure2_points")
    return paper_points(ctx.tables) if found is None else found


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
    """log10(MSPBE DP-LSW / MSPBE GPOPE) on the same datasets (paired by seed) above 2 ("orders
    of magnitude": at least two) for the weakest (n, epsilon, grid) of on-policy Mountain Car;
    DP-LSW on a uniform grid partition (our reading, :mod:`~privrl.papers.xie2019.mc_lsw`)."""
    lsw, on = ctx.tables["mc_lsw"], ctx.tables["mountain_car_on"]
    worst = None
    dp = lsw[lsw.method == "DP-LSW"]
    for (n, eps, grid), _ in dp.groupby(["n", "epsilon", "grid"]):
        o, g = _paired(pd.concat([dp, on]), dict(method="DP-LSW", n=n, epsilon=eps, grid=grid),
                       dict(method="GPOPE", n=n, epsilon=eps))
        logratio = np.log10(o) - np.log10(g)
        if worst is None or logratio.mean() < worst[0].mean():
            worst = (logratio, n, eps, grid)
    logratio, n, eps, grid = worst
    claim = decide_threshold(
        spec.key, spec.statement, logratio, MC_ORDERS, direction="greater",
        label=f"log10(MSPBE DP-LSW / MSPBE GPOPE) at n = {n}, epsilon = {eps:g}, grid "
              f"{grid}x{grid} (the weakest point)", seed=ctx.profile.seed)
    return figure2.add_evidence(claim, LSW_READING)


def decide_off_policy_like_on_policy(ctx: Context, spec: ClaimSpec) -> Claim:
    """Figure 2 b against 2 a at every (n, epsilon) of this run: within a factor of 2."""
    return figure2.decide_off_on(spec.key, spec.statement, _points(ctx),
                                 ctx.profile.seed)


def decide_works_off_policy_beyond(ctx: Context, spec: ClaimSpec) -> Claim:
    """GPOPE / zero estimate MSPBE below 0.1, off-policy Mountain Car, largest n and epsilon."""
    return _works_off_policy(spec, _points(ctx), ctx.profile)


def _works_off_policy(spec: ClaimSpec, points: pd.DataFrame, profile: XieProfile) -> Claim:
    sel = points[(points.domain == "mountain_car_off") & (points.method == "GPOPE")
                 & (points.n == max(profile.mc_n))
                 & np.isclose(points.epsilon, max(profile.mc_epsilons))]
    g = sel.mspbe.to_numpy()
    zero = figure2.zero_mspbe("mountain_car_off")
    return decide_threshold(spec.key, spec.statement, g / zero, 0.1, direction="less",
                            label="MSPBE GPOPE / MSPBE zero", seed=profile.seed)


def _cost_shrinks(spec: ClaimSpec, points: pd.DataFrame, profile: XieProfile,
                  baseline: str) -> Claim:
    """GPOPE's excess MSPBE over ``baseline`` (same data), on-policy Mountain Car at the largest
    epsilon: smaller at the largest n than at the smallest (untestable with one n)."""
    sizes = sorted(set(points[points.domain == "mountain_car_on"].n))
    if len(sizes) < 2:
        return untestable(spec.key, spec.statement, f"the {profile.profile} profile has one "
                          f"Mountain Car n ({sizes[0]})", profile.n_trials)
    eps = max(profile.mc_epsilons)
    excess = {n: figure2.privacy_cost(points, "mountain_car_on", baseline, n, eps)
              for n in (sizes[0], sizes[-1])}
    return decide_difference(spec.key, spec.statement, excess[sizes[-1]], excess[sizes[0]],
                             direction="less", label_a=f"n = {sizes[-1]}",
                             label_b=f"n = {sizes[0]}", seed=profile.seed)


def decide_privacy_cost_shrinks(ctx: Context, spec: ClaimSpec) -> Claim:
    """The privacy cost against noiseless GTD2 at the paper's settings, with the gate's caveat."""
    claim = _cost_shrinks(spec, _points(ctx), ctx.profile, "GTD2")
    return figure2.add_evidence(claim, ctx.values.get("gate_caveat", ""))


def decide_privacy_cost_vs_lstd(ctx: Context, spec: ClaimSpec) -> Claim:
    """Beyond the paper: the privacy cost against LSTD (the best non-private estimate)."""
    claim = _cost_shrinks(spec, _points(ctx), ctx.profile, "LSTD")
    return figure2.add_evidence(claim, ctx.values.get("gate_caveat", ""))


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


_OFF_STATEMENT = ("Mountain Car: GPOPE's MSPBE off-policy (Figure 2 b) is within a factor of 2 of "
                  "its MSPBE on-policy (Figure 2 a) at every (n, epsilon)")
_OFF_SOURCE = ("Section 7 on Figures 2 (a) and 2 (b): 'Despite being off-policy ... our algorithm's "
               "performances in Figures 2(a) and 2(b) are remarkably similar'; the paper gives no "
               "number, 'within a factor of 2' is ours (figure2.AGREEMENT_FACTOR)")


def _beyond_off(p: XieProfile) -> str:
    return (f"Beyond the paper: Mountain Car off-policy, at n = {max(p.mc_n)}, epsilon = "
            f"{_eps(p)}, GPOPE removes at least 90% of the zero estimate's MSPBE (a threshold of "
            "ours, not the paper's)")


def _beyond_cost(p: XieProfile) -> str:
    return ("Beyond the paper: the privacy cost against LSTD (GPOPE's excess MSPBE over LSTD, "
            f"Mountain Car on-policy, epsilon = {_eps(p)}) shrinks as n grows")


_COST_SOURCE = ("Section 6 (Theorems 2 and 3) and Section 8: 'the privacy cost can be diminished "
                "by increasing the size of training batches'")

#: The paper's claims decided on the run's own trials whose recorded paper-scale verdicts are
#: read from the record's summary (:func:`recorded_twins`); three statements name the profile's
#: n, epsilon or T.
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
              "magnitude' (threshold: two orders, log10 ratio 2)",
              decide_mc_beats_output_perturbation),
    ClaimSpec("privacy_cost_shrinks_with_n", _cost_statement, _COST_SOURCE,
              decide_privacy_cost_shrinks),
    ClaimSpec("diminishing_beats_constant",
              lambda p: (f"Theorems 2-3: at the largest T (= {max(p.schedule_iterations)}) a "
                         "diminishing step ends below a constant one (chain)"),
              "Section 6, after Theorem 3: 'in the long-term (when running many "
              "iterations), using a diminishing step size will produce a better solution'",
              decide_diminishing_beats_constant),
)

#: Claims decided on the points of Figure 2 (this run's, and the recorded paper-scale points'
#: as ``<key>_paper``, :func:`points_twins`).
POINT_CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec("off_policy_like_on_policy", _OFF_STATEMENT, _OFF_SOURCE,
              decide_off_policy_like_on_policy),
    ClaimSpec("works_off_policy_beyond", _beyond_off,
              "Ours: Section 7 and Figure 2 (b) say only 'remarkably similar' to on-policy",
              decide_works_off_policy_beyond),
    ClaimSpec("privacy_cost_vs_lstd_beyond", _beyond_cost, _COST_SOURCE,
              decide_privacy_cost_vs_lstd),
)

#: Keys of the claims decided on the run's own trials.
LIVE_KEYS: tuple[str, ...] = tuple(s.key for s in LIVE_CLAIMS + POINT_CLAIMS)


def _recorded_points() -> tuple[pd.DataFrame, str] | None:
    run = recorded_run(PAPER, "paper")
    found = read_paper_points()
    return None if run is None or found is None else (found, run.commit)


def points_twins(specs: tuple[ClaimSpec, ...]) -> tuple[ClaimSpec, ...]:
    """Each spec decided on the recorded paper-scale points (keys ``<key>_paper``, statements of
    the paper profile, stamped with the record's profile and commit); nothing in a paper run."""

    def twin(spec: ClaimSpec) -> ClaimSpec:
        def decide(ctx: Context, s: ClaimSpec) -> Claim | None:
            recorded = _recorded_points()
            if ctx.profile.profile == "paper" or recorded is None:
                return None
            pts, commit = recorded
            paper = XieProfile.paper()
            fake = Context(paper, ctx.report, extra={"figure2_points": pts},
                           values={**ctx.values,
                                   "gate_caveat": ctx.values.get("gate_caveat_paper", "")})
            claim = spec.decide(fake, replace(spec, key=s.key, statement=s.statement))
            return replace(claim, profile="paper", commit=commit)

        return ClaimSpec(f"{spec.key}_paper", spec.resolved(XieProfile.paper()).statement,
                         spec.source, decide)

    return tuple(twin(s) for s in specs)


def _with_evidence(spec: ClaimSpec, value: str) -> ClaimSpec:
    """``spec`` whose claim carries ``ctx.values[value]`` in its evidence."""

    def decide(ctx: Context, s: ClaimSpec) -> Claim | None:
        claim = spec.decide(ctx, s)
        return None if claim is None else figure2.add_evidence(claim, ctx.values.get(value, ""))

    return replace(spec, decide=decide)


_TWINS = recorded_twins(LIVE_CLAIMS, PAPER, XieProfile.paper())

#: The live claims, then the same claims as the recorded paper-profile run decided them (keys
#: ``<key>_paper``, statements of the paper profile): from its summary, or from its points.
CLAIMS: tuple[ClaimSpec, ...] = (
    LIVE_CLAIMS + POINT_CLAIMS
    + tuple(_with_evidence(t, "gate_caveat_paper") if t.key.startswith("privacy_cost")
            else _with_evidence(t, "mc_lsw_paper_note") if t.key.startswith("mc_beats")
            else t for t in _TWINS)
    + points_twins(POINT_CLAIMS))


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
        "({profile_name} profile)."),
    ErratumSpec(
        "chain_zero_reference", "ambiguous",
        "Figure 1 a: GPOPE beats output perturbation by an order of magnitude on the chain.",
        "At (epsilon, delta) = (0.1, 0.1) both output-perturbation methods are far worse than "
        "predicting V = 0; the figure does not show that reference (the chapter does)."),
    *(_not_reproduced(key) for key in LIVE_KEYS),
)

__all__ = ["CLAIMS", "ERRATA", "LIVE_CLAIMS", "LIVE_KEYS", "MC_ORDERS", "POINT_CLAIMS",
           "points_twins"]
