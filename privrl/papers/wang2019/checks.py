r"""Wang and Hegde (2019): the chapter's named checks, each ``check(ctx)``.

:data:`CHECKS` run before the sweep, in this order (they draw from one generator seeded with the
profile's seed, :func:`_rng`, in this order): the sample path's bridge moments and covariance
(Appendix A), Lemma 8's tail, Lemma 6's RKHS norm and bound, Proposition 9's scaling,
Proposition 10's simulation and its cause, and the calibration table (Theorem 5 and every
baseline). :data:`SWEEP_CHECKS` check the runs of Figures 1 and 2 and run at the end of
:meth:`~privrl.papers.wang2019.chapter.Wang2019Chapter.sweep` (the skeleton's checks run before
the sweep).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import torch

from privrl.chapter.skeleton import Context
from privrl.core.accounting import functional_noise as fn
from privrl.core.algorithms.functional_q import NoPrivacy, train_dqn
from privrl.core.mechanisms.gaussian_process import bridge_moments, ou_kernel, rkhs_norm_squared
from privrl.papers.wang2019 import profile as c
from privrl.papers.wang2019 import theory
from privrl.papers.wang2019.calibration import (
    privacy_table,
    recorded_dpsgd_epsilon,
    with_steps_taken,
)
from privrl.papers.wang2019.runs import final_returns
from privrl.papers.wang2019.state import WangState


def _key(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_")


def check_bridge_moments(ctx: Context[WangState]) -> None:
    """Appendix A: the closed-form Ornstein-Uhlenbeck bridge moments equal dense conditioning."""
    S, gS = np.array(c.BRIDGE_POINTS), np.array(c.BRIDGE_VALUES)
    beta, sigma, x = c.BRIDGE_BETA, c.BRIDGE_SIGMA, c.BRIDGE_QUERY
    K_SS, K_sS = ou_kernel(S, S, beta, sigma), ou_kernel(np.array([x]), S, beta, sigma)
    mean_dense = float((K_sS @ np.linalg.solve(K_SS, gS))[0])
    var_dense = float(sigma**2 - (K_sS @ np.linalg.solve(K_SS, K_sS.T))[0, 0])
    d1, d2 = c.BRIDGE_DISTANCES
    mean_cf, var_cf = bridge_moments(d1, d2, gS[0], gS[1], beta, sigma)
    ctx.report.check(
        "bridge_moments",
        "Closed-form bridge mean and variance equal dense conditioning",
        max(abs(float(mean_cf) - mean_dense), abs(float(var_cf) - var_dense)),
        at_most=1e-10,
    )


def check_covariance(ctx: Context[WangState]) -> None:
    """Sample paths queried in random orders and chunks have the kernel's covariance."""
    cov = theory.covariance_check(ctx.profile.cov_paths, c.COV_BETA, c.COV_SIGMA, ctx.rng)
    ctx.state.covariance = pd.DataFrame(
        {"empirical": cov["empirical"].ravel(), "kernel": cov["kernel"].ravel()}
    )
    ctx.glue("cov_maxz", cov["max_z"])
    ctx.report.check(
        "covariance_matches_kernel",
        "Largest standardised deviation of the path covariance from the kernel (36 entries)",
        cov["max_z"],
        below=c.COV_MAX_Z,
    )


def check_lemma8(ctx: Context[WangState]) -> None:
    """Lemma 8: Monte Carlo tails of the path maximum below exp(-u^2/2)."""
    p = ctx.profile
    l8 = theory.lemma8_check(c.LEMMA8_BETAS, p.lemma8_paths, p.lemma8_grid, ctx.rng)
    ctx.state.lemma8 = l8
    se = np.sqrt(l8.bound * (1 - l8.bound) / p.lemma8_paths) + 1.0 / p.lemma8_paths
    ctx.report.check(
        "lemma8_tail",
        "Lemma 8: Monte Carlo tail minus exp(-u^2/2) (3 standard errors allowed)",
        float((l8.mc_probability - l8.bound - 3 * se).max()),
        at_most=0.0,
    )
    ctx.glue("l8_maxratio", float((l8.mean_max / l8.level).max()))


def check_lemma6(ctx: Context[WangState]) -> None:
    """Lemma 6: a kernel section has RKHS norm 1, and differences of briefly trained Q networks
    stay within the bound."""
    grid = np.linspace(0, 1, c.SECTION_GRID)
    section = rkhs_norm_squared(
        np.exp(-c.SECTION_BETA * np.abs(grid - c.SECTION_POINT)), grid, c.SECTION_BETA
    )
    ctx.report.check(
        "rkhs_kernel_section",
        "||K(., 0.3)||_H^2 = 1 (Lemma 6's norm)",
        abs(section - 1),
        at_most=1e-3,
    )
    torch.set_num_threads(1)
    seed = ctx.profile.seed
    nets = [
        train_dqn(NoPrivacy(), np.random.default_rng(seed + i), episodes=c.LEMMA6_EPISODES).net
        for i in range(c.LEMMA6_NETS)
    ]
    rk = theory.rkhs_check(nets, beta=c.LEMMA6_BETA)
    ctx.state.lemma6 = rk
    rk_ratio = float((rk.norm_sq / rk.bound).max())
    ctx.glue("rk_ratio", rk_ratio)
    ctx.report.check(
        "lemma6_bound",
        "Lemma 6: largest ||f||_H^2 / bound over network differences",
        rk_ratio,
        at_most=1.0 + 1e-9,
    )


def check_scaling(ctx: Context[WangState]) -> None:
    """Proposition 9: time per N log N of the sample path, and its speed-up over dense sampling."""
    sc = theory.scaling_check(ctx.profile.scaling_sizes, ctx.rng)
    ctx.state.scaling = sc
    one = sc[sc.method == "sample path (one batch)"].set_index("n").seconds
    per = one / (one.index * np.log(one.index))
    ctx.glue("nlogn_growth", float(per.iloc[-1] / per.iloc[0]))
    dense = sc[sc.method == "dense Cholesky"].set_index("n").seconds
    common = dense.index.intersection(one.index)
    ctx.glue("speedup", float((dense[common] / one[common]).iloc[-1]))
    ctx.glue("speedup_n", int(common[-1]))


def check_proposition10(ctx: Context[WangState]) -> None:
    """Proposition 10: the bound holds for zero-mean noise entering linearly, and fails through
    the max over actions and for correlated (functional) noise."""
    p = ctx.profile
    p10 = theory.proposition10_check(
        p.prop10_sizes, p.prop10_reps, c.PROP10_SIGMA, c.PROP10_BETA, c.PROP10_GAMMA, ctx.rng
    )
    ctx.state.proposition10 = p10
    last = p10[p10.n == p10.n.max()].set_index(["noise", "actions"])
    lin = p10[(p10.noise == "i.i.d.") & (p10.actions == 1)]
    linear_ratio = float((lin.abs_signed_error / lin.bound).max())
    bias_ratio = float(last.signed_error["i.i.d.", 2] / last.bound["i.i.d.", 2])
    ou_ratio = float(last.abs_signed_error["OU paths", 2] / last.bound["OU paths", 2])
    ctx.glue("p10_n", int(p10.n.max()))
    ctx.glue("p10_linear_ratio", linear_ratio)
    ctx.glue("p10_bias_ratio", bias_ratio)
    ctx.glue("p10_ou_ratio", ou_ratio)
    ctx.glue("p10_ratio", float(last.mean_abs_error["OU paths", 2] / last.bound["OU paths", 2]))
    ctx.report.check(
        "prop10_linear_within_bound",
        "Zero-mean i.i.d. noise entering linearly (one action): largest ratio of the mean "
        "|signed error| to Proposition 10's bound (the errors average out over states)",
        linear_ratio,
        at_most=1.0,
    )
    ctx.report.check(
        "prop10_max_bias",
        "i.i.d. noise through the max over two actions: signed error / bound at the largest n "
        "(E max >= max E biases v' upwards by an amount that does not shrink with n)",
        bias_ratio,
        above=1.0,
    )
    ctx.report.check(
        "prop10_bias_significant",
        "The upward bias at the largest n: z-score of the signed error (i.i.d., two actions)",
        float(last.signed_error["i.i.d.", 2] / last.signed_error_se["i.i.d.", 2]),
        above=3.0,
    )
    ctx.report.check(
        "prop10_correlated_noise",
        "Functional (OU) noise: mean |signed error| / bound at the largest n (one smooth path on "
        "[0, 1] does not average out over states)",
        ou_ratio,
        above=1.0,
    )


def check_calibration(ctx: Context[WangState]) -> None:
    """The calibration table: every row within the target delta, Theorem 5's condition, Theorem
    5 against generic composition, and the numbers the errata quote."""
    p = ctx.profile
    table = privacy_table(p)
    ctx.state.privacy = table
    for row in table.itertuples():
        ctx.report.check(
            _key(f"total_delta_{row.method}_{row.epsilon_target:g}"),
            f"{row.method} at epsilon {row.epsilon_target:g}: total delta vs target",
            float(row.delta),
            at_most=p.delta,
        )
    f_rows = table[table.method.str.startswith("functional")]
    ctx.report.check(
        "theorem5_condition",
        "Theorem 5's condition 2k > 8.68 sqrt(beta) sigma: smallest margin",
        float((2 * f_rows.k - fn.LEMMA8_CONSTANT * np.sqrt(f_rows.gp_beta) * f_rows.value).min()),
        above=0.0,
    )
    main = table[table.method == "functional"].set_index("epsilon_target")
    generic = [
        fn.generic_sigma(e, r.delta_gauss, p.n_updates, p.batch_size, p.lr, r.k, p.lipschitz)
        for e, r in main.iterrows()
    ]
    generic_ratio = float(min(np.array(generic) / main.value.to_numpy()))
    ctx.glue("generic_ratio", generic_ratio)
    ctx.report.check(
        "theorem5_beats_generic",
        "Theorem 5 needs less noise than per-update "
        "Proposition 4 + Kairouz composition: smallest ratio",
        generic_ratio,
        above=1.0,
    )
    eps_lo = min(p.epsilons)
    tb = table[(table.method == "functional (T/B)") & (table.epsilon_target == eps_lo)].iloc[0]
    at_lo = table[table.epsilon_target == eps_lo].set_index("method")
    ctx.glue("eps_lo", eps_lo)
    ctx.glue("warmup", p.dpsgd_warmup)
    ctx.glue("tb_epsilon", float(tb.epsilon))
    ctx.glue("sigma_lo", float(main.value[eps_lo]))
    ctx.glue("sigma_tb_lo", float(tb.value))
    ctx.glue("z_rf", float(at_lo.value["dpsgd (reward fn)"]))
    ctx.glue("z_transition", float(at_lo.value["dpsgd"]))


def check_algorithm1_runs(ctx: Context[WangState]) -> None:
    """Algorithm 1's runs redraw their paths as the protocol says and make the U updates the
    ledger counts."""
    p = ctx.profile
    fig1 = ctx.state.figure1
    f1 = fig1[fig1.protocol == p.protocol]
    every_resets = f1[f1["resample"] == "every"].groupby("seed").resets.first()
    expected = p.episodes if p.protocol == "authors" else p.n_updates
    ctx.report.check(
        "path_resets",
        "Paths redrawn once per episode start (authors' protocol) or per "
        "update (earlier reading) in every run",
        bool((every_resets == expected).all()),
    )
    ctx.report.check(
        "updates_performed",
        "Noisy updates per Algorithm 1 run equal the U the ledger counts",
        bool((f1.updates == p.n_updates).all()),
    )


def check_dpsgd_steps_taken(ctx: Context[WangState]) -> None:
    """The epsilon of the DP-SGD steps each run actually took (its record of sampling rates)
    stays within the target; the largest over seeds is the DP-SGD row's cross-check."""
    p, table, fig2 = ctx.profile, ctx.state.privacy, ctx.state.figure2
    for eps in p.epsilons:
        z = float(table[(table.method == "dpsgd") & (table.epsilon_target == eps)].value.iloc[0])
        runs = fig2[(fig2.variant == "dpsgd") & (fig2.epsilon == eps)]
        eps_rec = max(recorded_dpsgd_epsilon(g, z, p.delta) for _, g in runs.groupby("seed"))
        with_steps_taken(table, eps, eps_rec)
        ctx.report.check(
            _key(f"dpsgd_steps_taken_{eps:g}"),
            f"DP-SGD at epsilon {eps:g}: epsilon of the "
            "steps actually taken (run record) vs the claim",
            eps_rec,
            at_most=eps,
        )


def check_nonprivate_converges(ctx: Context[WangState]) -> None:
    """The non-private DQN's released function nearly reaches the move-to-the-centre policy."""
    oracle = theory.oracle_return(c.ORACLE_EPISODES, ctx.profile.seed)
    ctx.glue("oracle_return", oracle)
    fig2 = ctx.state.figure2
    none_final = final_returns(fig2[fig2.variant == "none"], ["variant"])["eval_return"]
    mean_final = float(none_final.mean())
    ctx.glue("none_final", mean_final)
    ctx.report.check(
        "nonprivate_converges",
        "The non-private DQN's released greedy return (last 10 "
        "episodes, mean over seeds) relative to the move-to-centre policy",
        mean_final / oracle,
        at_least=c.NONPRIVATE_FRACTION,
    )


CHECKS: tuple[Callable[[Context[WangState]], None], ...] = (
    check_bridge_moments,
    check_covariance,
    check_lemma8,
    check_lemma6,
    check_scaling,
    check_proposition10,
    check_calibration,
)
SWEEP_CHECKS: tuple[Callable[[Context[WangState]], None], ...] = (
    check_algorithm1_runs,
    check_dpsgd_steps_taken,
    check_nonprivate_converges,
)
