r"""Gohari et al. (2021): the chapter's checks, run in this order before the Figure 2 runs.

Each is a step ``step(ctx)`` of the chapter skeleton: it records its numeric checks on
``ctx.report`` (raising when one fails), its tables and what later steps read in the chapter's
state (:class:`~privrl.papers.gohari2021.state.GohariState`), the prose's numbers through
``ctx.glue``, and draws from ``ctx.rng`` (seeded by the profile's seed), in this order:

1. :func:`check_delta_integration`: eq. (6) by Monte Carlo against numerical integration;
2. :func:`check_paper_pair`: the stated (eta, tau, L b) give the paper's (4.46, 0.05), eq. (12)
   and (6);
3. :func:`check_k_grid`: as k -> 0, delta of eq. (6) tends to 1 and eq. (12) to its limit;
4. :func:`check_log_density_bound`: the log-density ratio stays below eq. (19) + (25);
5. :func:`check_lemma1`: the printed radius of Lemma 1 (eq. 14) fails, the valid ones hold;
6. :func:`measure_teacher_privacy`: the profile's teacher's per-query (epsilon, delta) at k0
   (Theorem 1) and the numerical maximisation of the exact log-density ratio (eq. 18);
7. :func:`measure_paper_pair_privacy`: the same maximisation at the paper's pair;
8. :func:`tabulate_radii`: the ball radius lambda r(k) (eq. 15) of each radius over k;
9. :func:`check_airraid_teacher`: the committed AirRaid teacher's Lipschitz constants and the
   adjacency radius b behind the paper's pair.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privrl.api.control import dirichlet_answer_event
from privrl.chapter.skeleton import Context
from privrl.core.accounting import dirichlet as acc
from privrl.papers.gohari2021 import theory
from privrl.papers.gohari2021.runs import informed_schedule
from privrl.papers.gohari2021.state import (
    AirRaidTeacher,
    BallLimits,
    GohariState,
    TeacherPrivacy,
    given,
)
from privrl.papers.gohari2021.teacher import (
    load_teacher,
    play,
    teacher_lipschitz,
    teacher_lipschitz_lower_bound,
)


def _excess_se(estimate: float, bound: float, n: int) -> float:
    """How far a Monte Carlo estimate lies above a rigorous bound, in binomial standard errors at
    the bound (the bound is exact at m = 2, so the estimate exceeds it half the time)."""
    return (estimate - bound) / float(np.sqrt(bound * (1 - bound) / n))


def check_delta_integration(ctx: Context[GohariState]) -> None:
    """Eq. (6): Monte Carlo and numerical integration agree within 4 binomial standard errors;
    the rigorous bounds enclose the integral, and at m = 2 the upper bound is exact."""
    table = ctx.state.delta_cross_check = theory.delta_cross_check(ctx.rng)
    ctx.report.check(
        "delta_mc_vs_integral",
        "eq. (6): largest |Monte Carlo - integration| in binomial standard errors",
        float(table["error / standard error"].abs().max()),
        at_most=4.0,
    )
    exact = table["delta (integration)"]
    ctx.report.check(
        "delta_bounds_enclose",
        "eq. (6): largest excess of a rigorous bound over the wrong side of the integral",
        float(
            max(
                (table["delta (lower bound)"] - exact).max(),
                (exact - table["delta (upper bound)"]).max(),
            )
        ),
        at_most=1e-9,
    )
    two = table[table["m"] == 2]
    ctx.report.check(
        "delta_exact_m2",
        "eq. (6), m = 2: |exact Beta CDFs - integration|",
        float((two["delta (upper bound)"] - two["delta (integration)"]).abs().max()),
        at_most=1e-9,
    )


def check_paper_pair(ctx: Context[GohariState]) -> None:
    """The stated (eta, tau, L b) give the paper's epsilon = 4.46 (eq. 12) and delta <= 0.05
    (the rigorous bound on eq. 6, within 1e-6 of it; Monte Carlo below the bound) at k = 5, m = 6."""
    s = ctx.state
    pair, s.eta_family, s.sensitivity = theory.paper_pair(ctx.rng)
    ctx.report.check(
        "paper_pair_epsilon",
        "eq. (12) at the stated (eta, tau, L b) gives 4.46",
        abs(pair.epsilon - theory.PAPER_EPSILON),
        at_most=1e-9,
    )
    ctx.report.check(
        "paper_pair_delta",
        "rigorous bound on eq. (6) at the stated tau",
        pair.delta,
        at_most=theory.PAPER_DELTA,
    )
    ctx.report.check(
        "paper_pair_delta_tight",
        "0.05 - the bound (bisection meets the target)",
        theory.PAPER_DELTA - pair.delta,
        at_most=1e-6,
    )
    ctx.report.check(
        "paper_pair_delta_mc",
        "(Monte Carlo estimate of eq. (6) - the bound) in binomial standard errors",
        _excess_se(pair.delta_mc, pair.delta, 300_000),
        at_most=4.0,
    )
    s.pair = pair
    for key in ("tau", "lb", "delta", "delta_lower", "delta_mc", "delta_mc_upper"):
        ctx.glue(f"pair_{key}", float(getattr(pair, key)))


def check_k_grid(ctx: Context[GohariState]) -> None:
    """Eq. (12) and (6) over k at the pair: delta tends to 1 as k -> 0 while epsilon tends to
    its finite limit (:func:`~privrl.papers.gohari2021.theory.epsilon_limit_small_k`)."""
    pair = given(ctx.state.pair, "the paper's pair")
    grid = ctx.state.k_grid = theory.k_grid(pair, ctx.rng)
    limit = theory.epsilon_limit_small_k(theory.AIRRAID_ACTIONS, pair.eta)
    ctx.report.check(
        "small_k_delta",
        "rigorous lower bound on delta of eq. (6) at k = 0.05 (tends to 1 as k -> 0)",
        float(grid["delta (lower bound)"].iloc[0]),
        above=0.8,
    )
    ctx.report.check(
        "small_k_epsilon_limit",
        "|eq. (12) at k = 0.05 - its k -> 0 limit|",
        abs(float(grid["epsilon"].iloc[0]) - limit),
        below=0.5,
    )
    ctx.glue("eps_limit", limit)
    ctx.glue("delta_small_k", float(grid["delta (lower bound)"].iloc[0]))


def check_log_density_bound(ctx: Context[GohariState]) -> None:
    """The log-density ratio (eq. 18) never exceeds eq. (19) + (25): random pairs, the vertex
    pair with z at a corner, and numerical maximisation."""
    bound = theory.log_density_bound(ctx.rng, given(ctx.state.pair, "the paper's pair").eta)
    ctx.report.check(
        "log_ratio_random",
        "random pairs: max(log ratio - bound (19)+(25))",
        bound.random_excess,
        at_most=1e-9,
    )
    ctx.report.check(
        "log_ratio_vertex",
        "vertex pair, z at a corner: log ratio - bound",
        bound.adversarial_ratio - bound.adversarial_bound,
        at_most=0.0,
    )
    ctx.report.check(
        "log_ratio_optimised",
        "numerically maximised (log ratio - bound)",
        bound.optimised_excess,
        at_most=1e-6,
    )
    for key in ("adversarial_ratio", "adversarial_bound", "random_median_slack"):
        ctx.glue(key, getattr(bound, key))


def check_lemma1(ctx: Context[GohariState]) -> None:
    """Lemma 1 (eq. 14): the printed radius's tail exceeds beta at k = 5, m = 6, uniform policy;
    the union, sub-Gaussian and Monte Carlo radii keep it below beta (95% upper bounds)."""
    beta, eta = ctx.profile.beta, given(ctx.state.pair, "the paper's pair").eta
    table = ctx.state.lemma1 = theory.lemma1_table(ctx.rng, eta, beta)
    printed = table[
        (table.k == 5.0) & (table.policy == "uniform") & (table.radius == "printed")
    ].iloc[0]
    ctx.report.check(
        "lemma1_printed_fails",
        "printed radius (eq. 14), k = 5, uniform pi: tail",
        float(printed["tail"]),
        above=beta,
    )
    valid = table[table.radius != "printed"]
    ctx.report.check(
        "lemma1_valid_radii_hold",
        "union, sub-Gaussian and Monte Carlo radii: largest 95% upper bound of the tail",
        float(valid["tail (95% upper)"].max()),
        at_most=beta,
    )
    ctx.glue("lemma_tail", float(printed["tail"]))
    for kind in acc.RADII:
        ctx.glue(
            f"radius_{kind}_k5",
            float(acc.lemma1_radius(kind, 5.0, theory.AIRRAID_ACTIONS, beta, eta)),
        )


def measure_teacher_privacy(ctx: Context[GohariState]) -> None:
    """Per-query privacy of the profile's teacher at k0 (Theorem 1: eq. 12, and the rigorous bound
    on eq. 6, at most the paper's 0.05; Monte Carlo as a cross-check) and the numerical maximisation of the exact log-density ratio (eq. 18) at L b, for the
    ledger (:meth:`~privrl.papers.gohari2021.chapter.Gohari2021Chapter.releases`)."""
    p, rng = ctx.profile, ctx.rng
    teacher, meta = load_teacher(p.env)
    lip = teacher_lipschitz(teacher, p.eta)
    m = int(meta["n_actions"])
    event = dirichlet_answer_event(p.k0, m=m, eta=p.eta, tau=p.tau, lipschitz=lip, b=p.b)
    dlt = acc.theorem1_delta_mc(event.mechanism, rng, 200_000)
    bound = event.delta_bound
    ctx.report.check(
        "teacher_delta_bound",
        "rigorous bound on eq. (6) at the profile's tau, k0",
        bound,
        at_most=theory.PAPER_DELTA,
    )
    ctx.report.check(
        "teacher_delta_mc",
        "(Monte Carlo estimate of eq. (6) - the bound) in binomial standard errors",
        _excess_se(dlt.estimate, bound, dlt.n_samples),
        at_most=4.0,
    )
    sup = acc.theorem1_log_ratio_sup(event.mechanism, lip * p.b, rng)
    out = ctx.state.teacher = TeacherPrivacy(
        lip, m, event.epsilon(bound), bound, dlt.estimate, dlt.upper, sup, event
    )
    for key in ("L", "eps_q", "d_q", "d_q_mc", "sup_ratio"):
        ctx.glue(key, float(getattr(out, key)))


def measure_paper_pair_privacy(ctx: Context[GohariState]) -> None:
    """The numerical maximisation of the exact log-density ratio (eq. 18) at the paper's pair
    (k = 5, m = 6, the stated eta, tau and L b), for the ledger."""
    pair = given(ctx.state.pair, "the paper's pair")
    ctx.state.pair_sup_ratio = acc.theorem1_log_ratio_sup(
        theory.paper_pair_event(pair).mechanism, pair.lb, ctx.rng
    )


def tabulate_radii(ctx: Context[GohariState]) -> None:
    """Ball radius lambda r(k) (eq. 15) of each radius of Lemma 1 over a grid of k and the
    c = 0.3 schedule's informed roll-outs (no draws; the table behind the erratum
    ``random_answers_pull``, whose limit as k -> 0 it also keeps, for this run's m and for
    AirRaid's, the recorded run's)."""
    p = ctx.profile
    ks = np.unique(np.r_[np.geomspace(1e-2, 1e2, 13), informed_schedule(p, 0.3)])
    m = given(ctx.state.teacher, "the teacher's privacy").m
    ctx.state.radii = theory.radius_table(ks, m, p.beta, p.eta, p.lam)
    m_airraid = int(load_teacher("airraid")[1]["n_actions"])

    def limits(actions: int) -> dict[str, float]:
        """lambda r(k) at the vanishing k the spent budget reaches, by radius."""
        return {
            kind: p.lam * acc.lemma1_radius(kind, 1e-6, actions, p.beta, p.eta)
            for kind in ("mc", "union")
        }

    ctx.state.ball_limits = BallLimits(
        theory.printed_radius_limit(p.lam, p.beta), m, m_airraid, limits(m), limits(m_airraid)
    )


def check_airraid_teacher(ctx: Context[GohariState], n_episodes: int = 5, cap: int = 1000) -> None:
    """The committed AirRaid teacher: returns against random play (``n_episodes`` episodes cut
    at ``cap`` steps), certified and observed Lipschitz constants, and the adjacency radius b
    that gives the paper's pair (less than one RAM step: erratum ``airraid_adjacency``)."""
    pair, rng = given(ctx.state.pair, "the paper's pair"), ctx.rng
    air, meta = load_teacher("airraid")
    ret_teacher, obs = play("airraid", air, n_episodes, rng, cap)
    ret_random, _ = play("airraid", None, n_episodes, rng, cap)
    lip = teacher_lipschitz(air, pair.eta)
    lip_low = teacher_lipschitz_lower_bound(air, pair.eta, obs[:: max(1, len(obs) // 500)])
    ctx.report.check("air_L_order", "observed Jacobian norm <= certified L", lip_low, at_most=lip)
    b_low = pair.lb / lip_low
    ctx.report.check(
        "air_b_below_one_step",
        "largest b (in RAM steps) with the paper's pair, any valid L",
        255 * b_low,
        below=1.0,
    )
    found = ctx.state.airraid = AirRaidTeacher(
        air_kept=float(meta["kept_window_return"]),
        air_play=float(ret_teacher.mean()),
        air_random=float(ret_random.mean()),
        air_L=lip,
        air_L_low=lip_low,
        air_b=pair.lb / lip,
        air_b_raw=255 * b_low,
        air_eps4=acc.theorem1_epsilon(theory.paper_pair_event(pair).mechanism, lip_low, 4 / 255),
        curve=pd.Series(meta["curve_avg_return"], index=meta["curve_env_steps"]).dropna(),
        kept_steps=int(meta["curve_env_steps"][int(meta["kept_epoch"])]),
    )
    for key, value in found.glued().items():
        ctx.glue(key, value)


#: The steps in the order they run (and draw).
CHECKS = (
    check_delta_integration,
    check_paper_pair,
    check_k_grid,
    check_log_density_bound,
    check_lemma1,
    measure_teacher_privacy,
    measure_paper_pair_privacy,
    tabulate_radii,
    check_airraid_teacher,
)
