"""The checks of the Xie, Thomas and Miklau (2019) chapter: named functions ``check(ctx)``.

Each records its numeric checks through ``ctx.report.check`` (which raises when one fails), its
tables in the chapter's state (``ctx.state``, :class:`~privrl.papers.xie2019.state.XieState`) and
the numbers the prose and the errata read through ``ctx.glue``.
:data:`CHECKS` run in order before the sweep; :func:`check_convergence_gates` needs the sweep's
tables and is run by :meth:`privrl.papers.xie2019.chapter.Xie2019Chapter.sweep` once they exist,
before any privacy verdict.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from privrl.chapter.skeleton import Context, state_tables
from privrl.core.accounting.subsampled import gpope_pld_supported
from privrl.core.algorithms.lstd import transition_sums, wis_lstd
from privrl.papers.xie2019 import chain, domains, figure2
from privrl.papers.xie2019.points import (
    FigureData,
    paper_points,
    read_paper_points,
    read_paper_schedules,
)
from privrl.papers.xie2019.privacy import full_batch_table, noise_sd_check, privacy_table
from privrl.papers.xie2019.profile import chain_config
from privrl.papers.xie2019.state import XieState


def check_mechanism(ctx: Context[XieState]) -> None:
    """The checks of the privacy analysis (Section 5): noise scale, supported accountants, full
    batch. Adds the ``full_batch`` table."""
    report, profile = ctx.report, ctx.profile
    sd = noise_sd_check(profile, profile.seed)
    target = 2 * profile.clip_norm * 0.8
    ctx.glue("noise_sd", sd)
    ctx.glue("noise_target", target)
    # 2000 trials x 80 coordinates: the sd estimate has relative sd 1/sqrt(2 * 160000) = 0.18%
    report.check(
        "noise_sd",
        "GPOPE's noise sd is 2 G z (replace-one sensitivity 2G), relative error",
        abs(sd / target - 1),
        at_most=0.03,
    )
    report.check(
        "pld_unsupported",
        "dp-accounting's PLD accountant does not support sampling "
        "without replacement under replace-one (so RDP is used)",
        not gpope_pld_supported(),
    )
    fb = full_batch_table()
    ctx.state.full_batch = fb
    ctx.glue("fullbatch_ratio_max", float(fb.ratio.max()))
    report.check(
        "fullbatch_exact_below_rdp",
        "full batch: exact epsilon <= RDP epsilon (min ratio)",
        float(fb.ratio.min()),
        at_least=1.0,
    )
    report.check(
        "fullbatch_rdp_close",
        "full batch: RDP epsilon within 1.2 x exact (max ratio)",
        float(fb.ratio.max()),
        below=1.2,
    )


def check_wis_lstd(ctx: Context[XieState]) -> None:
    """WIS-LSTD(0) (Mahmood et al. 2014) solves the unnormalised importance-weighted system (the
    chapter's lemma)."""
    data = domains.collect("mountain_car_off", 200, ctx.profile.seed)
    theta = wis_lstd(data)
    A, b, _, _ = transition_sums(data)
    resid = float(np.abs(A @ theta - b).max() / np.abs(b).max())
    ctx.report.check(
        "wis_lstd_system",
        "WIS-LSTD(0) solves sum rho phi (phi - gamma phi')^T theta "
        "= sum rho r phi (relative residual)",
        resid,
        at_most=1e-6,
    )


def check_gradient_variance(ctx: Context[XieState]) -> None:
    """Section 4's argument for one update per trajectory: the gradient's variance decreases with
    the transitions it uses. Adds the ``gradient_variance`` table."""
    variance = chain.gradient_variance(
        chain_config(ctx.profile), np.random.default_rng(ctx.profile.seed)
    )
    ctx.state.gradient_variance = variance
    ctx.report.check(
        "variance_decreases",
        "chain: the gradient's variance decreases with the transitions used",
        bool(np.all(np.diff(variance.variance) < 0)),
    )


def check_privacy(ctx: Context[XieState]) -> None:
    """Every GPOPE release of the run calibrated and accounted (the ``privacy`` table, read by
    :meth:`~privrl.papers.xie2019.chapter.Xie2019Chapter.releases`), and the checks on them: targets
    met, dp-accounting agrees, the Poisson shortcut understates. Theorem 1's constants are glued."""
    report = ctx.report
    table = privacy_table(ctx.profile)
    ctx.state.privacy = table
    report.check(
        "targets_met",
        "every GPOPE release meets its target epsilon (max eps / target)",
        float((table.epsilon / table.target_epsilon).max()),
        at_most=1.0 + 1e-9,
    )
    gap = float((table.epsilon / table.epsilon_dp_accounting - 1).abs().max())
    report.check(
        "accounting_tight",
        "every GPOPE epsilon within 1% of dp-accounting's RDP "
        "accountant with its default orders (max relative gap)",
        gap,
        at_most=0.01,
    )
    small = table[table.delta < 1e-3]
    report.check(
        "shortcut_understates",
        "the Poisson / add-remove shortcut claims less than the "
        "replace-one accounting of the same noise (at delta = 1e-5)",
        bool((small.epsilon_poisson_shortcut < small.epsilon).all()),
    )
    ctx.glue("c_min", float(table.theorem1_constant.min()))
    ctx.glue("c_max", float(table.theorem1_constant.max()))
    ctx.glue("shortcut_factor", float((small.epsilon / small.epsilon_poisson_shortcut).min()))


def check_convergence_gates(ctx: Context[XieState]) -> None:
    """The convergence gate in every domain, at every n: noiseless GTD2 (same clip, step,
    schedule, iterations and data as GPOPE) reaches the reference's MSPBE up to
    :data:`~privrl.papers.xie2019.domains.GATE_FRACTION` of the zero estimate's. Needs the
    sweep's tables; adds the ``gates`` table."""
    state = ctx.state
    cmp = state.chain_compare.assign(domain="chain")
    rows = [domains.gate_excess(cmp[cmp.method.isin(["LSTD", "zero", "GTD2"])])]
    rows += [
        domains.gate_excess(t) for t in (state.mountain_car_on, state.mountain_car_off, state.hiv)
    ]
    gates = pd.concat(rows, ignore_index=True)
    for r in gates.itertuples():
        ctx.report.check(
            f"gate_{r.domain}_n{r.n}",
            f"{r.domain}, n = {r.n}: noiseless GTD2's excess MSPBE over the "
            "reference, as a fraction of the zero estimate's",
            float(r.gate),
            at_most=domains.GATE_FRACTION,
        )
    ctx.glue("gate_max", float(gates.gate.max()))
    ctx.glue("gate_ratio_max", float(gates.ratio.max()))
    state.gates = gates


def check_figure2(ctx: Context[XieState]) -> None:
    """Figure 2 read from the points (:mod:`~privrl.papers.xie2019.figure2`), for this run
    (tables ``points``, ``gates_best``, ``off_on``, ``mc_lsw_summary``) and, beside a run of
    another profile, the recorded paper-scale run (``gates_best_paper``, ``off_on_paper``; its
    data in ``state.recorded``): the gate against the best estimator (the caveat every
    privacy-cost verdict carries), off- against on-policy, DP-LSW on Mountain Car. Checks that
    DP-LSW ran on GPOPE's datasets (its LSTD equals the domain's, seed by seed)."""
    state, profile = ctx.state, ctx.profile
    state.points = paper_points(state_tables(state))
    state.gates_best, state.off_on, state.gate_caveat = _read_figure2(
        ctx, state.points, "", f"this {profile.profile} run"
    )
    recorded = read_paper_points()
    if recorded is not None and profile.profile != "paper":
        state.gates_best_paper, state.off_on_paper, caveat = _read_figure2(
            ctx, recorded, "_paper", "recorded paper-scale run"
        )
        state.recorded = FigureData(recorded, read_paper_schedules(), caveat)
    lsw, on = state.mc_lsw, state.mountain_car_on
    a = lsw[lsw.method == "LSTD"].set_index(["n", "seed"]).mspbe.sort_index()
    b = on[on.method == "LSTD"].set_index(["n", "seed"]).mspbe.sort_index()
    ctx.report.check(
        "lsw_same_datasets",
        "DP-LSW on Mountain Car ran on GPOPE's datasets: its "
        "LSTD's MSPBE equals the domain's, seed by seed (max relative gap)",
        float((a / b.loc[a.index] - 1).abs().max()),
        at_most=1e-9,
    )
    summary = figure2.lsw_table(lsw, state.points)
    state.mc_lsw_summary = summary
    ctx.glue("lsw_grids", ", ".join(f"{k}x{k}" for k in sorted(set(lsw.grid) - {0})))
    ctx.glue("profile_name", profile.profile)
    for name, col in (("lsw_over_lstd", "lsw_over_lstd"), ("lsw_log10", "log10_dplsw_over_gpope")):
        ctx.glue(f"{name}_min", float(summary[col].min()))
        ctx.glue(f"{name}_max", float(summary[col].max()))


def _read_figure2(
    ctx: Context[XieState], points: pd.DataFrame, suffix: str, where: str
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """One run's points read as Figure 2: its gate table against the best estimator, its off-
    against on-policy table and the gates' caveat (naming the run as ``where``); glues GTD2's
    ratio and gap at the largest n of each Mountain Car domain, keyed with ``suffix``."""
    gates = figure2.gate_table(points)
    for domain, tag in (("mountain_car_on", "on"), ("mountain_car_off", "off")):
        g = gates[gates.domain == domain]
        last = g.loc[g.n.idxmax()]
        ctx.glue(f"gtd2_ratio_{tag}{suffix}", float(last.ratio))
        ctx.glue(f"gtd2_gap_{tag}{suffix}", float(last.gap_fraction))
    off_on = figure2.off_on_table(points, ctx.profile.seed)
    return gates, off_on, figure2.gate_caveat(gates, where)


#: The checks run before the sweep, in this order.
CHECKS: tuple[Callable[[Context[XieState]], None], ...] = (
    check_mechanism,
    check_wis_lstd,
    check_gradient_variance,
    check_privacy,
)

__all__ = [
    "CHECKS",
    "check_convergence_gates",
    "check_figure2",
    "check_gradient_variance",
    "check_mechanism",
    "check_privacy",
    "check_wis_lstd",
]
