"""The chapter's checks: named functions ``check(ctx)`` recording numeric checks through
``ctx.report.check`` (each raises if it fails) and their tables in the run's state
(:class:`~privrl.papers.ono2020.state.OnoState`).

The first five (:data:`BEFORE_SWEEP`) are the skeleton's checks, run before the sweep in this
order; they draw from the run's generator (``ctx.rng``, seeded by the profile), in the order they
run. :func:`check_recorded_run` and :func:`check_failure` read the recorded paper run and this
run's report statistics: they are the chapter's sweep checks, run after the sweep and before the
ledger.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privrl.chapter.skeleton import Context
from privrl.core.algorithms.a3c import DEFAULT_CLIP
from privrl.papers.ono2020.measures import (
    cartpole_matches_gymnasium,
    empirical_ldp_table,
    jl_moment_error,
    prs_ratio_table,
    prs_shrinkage_table,
)
from privrl.papers.ono2020.profile import PAPER_CAP
from privrl.papers.ono2020.state import OnoState
from privrl.papers.ono2020.tables import recorded_highlights


def check_prs_exact_ldp(ctx: Context[OnoState]) -> None:
    """Lemma 3 with the corrected eq. (24): PRS's exact worst-case log ratio is at most epsilon,
    and a weakened PRS spending epsilon per sign exceeds it as soon as ``d_hat > 1``."""
    prs = prs_ratio_table()
    ctx.state.prs_ratio = prs
    ctx.report.check(
        "prs_exact_ldp",
        "largest exact PRS worst-case log ratio minus epsilon",
        float((prs.exact - prs.epsilon).max()),
        at_most=1e-9,
    )
    multi = prs[prs.d_hat > 1]
    ctx.report.check(
        "prs_weakened_caught",
        "smallest excess of the weakened PRS over epsilon (d_hat > 1)",
        float((multi.weakened - multi.epsilon).min()),
        above=0.0,
    )


def check_empirical_ldp(ctx: Context[OnoState]) -> None:
    """Both samplers' empirical output frequencies stay within epsilon (plus sampling error)."""
    emp = empirical_ldp_table(ctx.rng)
    ctx.state.empirical_ldp = emp
    ctx.report.check(
        "empirical_ldp",
        "largest empirical |log ratio| minus (epsilon + 4 se)",
        float((emp.max_log_ratio - emp.bound).max()),
        at_most=0.0,
    )


def check_jl_moment(ctx: Context[OnoState]) -> None:
    """Eq. (5): ``E[M^T M] = d_hat I`` (glued as ``jl_err`` for the prose)."""
    jl = jl_moment_error(ctx.rng)
    ctx.report.check("jl_moment", "max |mean(M^T M)/d_hat - I| over 20,000 draws", jl, below=0.1)
    ctx.glue("jl_err", jl)


def check_prs_shrinkage(ctx: Context[OnoState]) -> None:
    """The shrinkage lemma: an unclipped report has mean ``d_hat tanh(eps/(2 d_hat)) g``."""
    shrink = prs_shrinkage_table(ctx.rng, ctx.profile.shrinkage_samples)
    ctx.state.shrinkage = shrink
    ctx.report.check(
        "prs_shrinkage",
        "largest |measured - d_hat tanh(eps/(2 d_hat))| in standard errors",
        float((np.abs(shrink.measured - shrink.theory) / shrink.se).max()),
        below=4.0,
    )


def check_cartpole_equals_gymnasium(ctx: Context[OnoState]) -> None:
    """The batched CartPole steps like gymnasium's ``CartPoleEnv``, bit for bit."""
    ctx.report.check(
        "cartpole_equals_gymnasium",
        "batched CartPole equals gymnasium bit for bit",
        cartpole_matches_gymnasium(ctx.rng),
    )


#: The checks run before the sweep, in this order (the generator's draws follow it).
BEFORE_SWEEP: tuple[Callable[[Context[OnoState]], None], ...] = (
    check_prs_exact_ldp,
    check_empirical_ldp,
    check_jl_moment,
    check_prs_shrinkage,
    check_cartpole_equals_gymnasium,
)


def check_recorded_run(ctx: Context[OnoState]) -> None:
    """The prose's statements on the recorded paper run's Tables 1-3 (``paper_tables``), glued
    as ``rec_*``; checked only when the run is at the paper's full budget."""
    recorded, tables = ctx.state.recorded, ctx.state.paper_tables
    if recorded is None or tables is None:
        return
    budget = recorded.budget
    ctx.glue("rec_budget", budget)
    numbers = recorded_highlights(tables)
    for key, value in numbers.items():
        ctx.glue(f"rec_{key}", value)
    if budget != PAPER_CAP:
        return
    ctx.report.check(
        "rec_noise_not_the_cause",
        "Laplace at eps = 1 minus the noiseless baseline, successes (recorded)",
        numbers["laplace1_successes"] - numbers["baseline_successes"],
        at_least=0,
    )
    ctx.report.check(
        "rec_adam_learns",
        "success ratio of Adam with sampled actions, eps = inf (recorded deviation)",
        numbers["adam_inf_successes"] / numbers["adam_inf_n"],
        at_least=0.5,
    )
    ctx.report.check(
        "rec_adam_eps1_fails",
        "success ratio of Adam with sampled actions, eps = 1 (recorded deviation)",
        numbers["adam_1_successes"] / numbers["adam_1_n"],
        below=0.5,
    )


def check_failure(ctx: Context[OnoState]) -> None:
    """Why the paper's algorithm does not learn, on this run's report statistics
    (``failure``): the clip C/2 of eq. (19) binds on every report, the critic
    dominates the gradient, at epsilon = 1 the noise of eq. (21) dominates the update, and the
    greedy policy collapses to one action. Glues the numbers the prose quotes."""
    failure = ctx.state.failure.set_index(["variant", "epsilon"])
    paper_inf, paper_1 = failure.loc[("paper", float("inf"))], failure.loc[("paper", 1.0)]
    check = ctx.report.check
    check(
        "clip_binds",
        "fraction of the paper's non-private reports clipped by C/2",
        paper_inf["clipped_fraction"],
        at_least=0.95,
    )
    check(
        "norm_far_above_clip",
        "median raw L1 norm over C/2 (paper, eps = inf)",
        paper_inf["median_raw_norm"] / (DEFAULT_CLIP["laplace"] / 2),
        above=100.0,
    )
    check(
        "critic_dominates",
        "late actor share of |gradient|_1 (paper, eps = inf)",
        paper_inf["late_actor_share"],
        below=0.5,
    )
    check(
        "noise_dominates",
        "L1 size of an update at eps = 1 over the noiseless one",
        paper_1["update_norm"] / paper_inf["update_norm"],
        above=10.0,
    )
    check(
        "collapse",
        "fraction of trials collapsed to >= 90% one action (paper, eps = 1 and inf)",
        (paper_1["collapsed_trials"] + paper_inf["collapsed_trials"]) / 2,
        at_least=0.5,
    )
    for name, row in (("inf", paper_inf), ("eps1", paper_1)):
        for key in (
            "median_raw_norm",
            "late_actor_share",
            "collapsed_trials",
            "late_score",
            "update_norm",
        ):
            ctx.glue(f"{name}_{key}", float(row[key]))
    ctx.glue("inf_clipped_fraction", float(paper_inf["clipped_fraction"]))
