"""Balle, Gomrokchi and Precup (2016) as a :class:`~privrl.chapter.skeleton.Chapter`: the checks of
the privacy argument (:mod:`~privrl.papers.balle2016.checks`), Figure 1's sweep
(:mod:`~privrl.papers.balle2016.runs`), one ledger entry per released estimator, the claims of
Sections 5 and 6 and the errata (:mod:`~privrl.papers.balle2016.claims`), and the numbers the prose
reads. The notebook calls :func:`run`.

Steps pass their values through :class:`~privrl.papers.balle2016.state.BalleState`, whose tables
the run returns: ``figure1`` (tidy, one row per trial x batch x features x method x c),
``smooth_bounds``, ``neighbours``, ``arbitrary``, ``privacy_loss``, ``noise_rate`` (from the
checks) and ``rmse`` (means, from :meth:`Balle2016Chapter.finish`); ``numbers`` holds every glued
number.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from privrl.chapter.evidence import LIVE, Evidence, recorded_verdicts
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.skeleton import Chapter, Context
from privrl.core.accounting.smooth_sensitivity import smooth_gaussian_tv_bound
from privrl.papers.balle2016.checks import CHECKS
from privrl.papers.balle2016.claims import CLAIMS, ERRATA, Figure1Trials
from privrl.papers.balle2016.privacy import SCAN_FLOOR
from privrl.papers.balle2016.profile import METHODS, PAPER, PAPER_BATCHES, BalleProfile
from privrl.papers.balle2016.rate import log_slope
from privrl.papers.balle2016.runs import mean_rmse_table, run_figure1
from privrl.papers.balle2016.sources import PAPER_RUN, SOURCES
from privrl.papers.balle2016.state import BalleState

ACCOUNTANT = (
    "Lemma 1 of Balle et al. 2016 (smooth sensitivity, Nissim, Raskhodnikova and Smith "
    "2007), conditions checked on neighbouring pairs"
)


class Balle2016Chapter(
    Chapter,
    name=PAPER,
    profile_type=BalleProfile,
    checks=CHECKS,
    claims=CLAIMS,
    errata=ERRATA,
    sources=SOURCES,
    state_type=BalleState,
):
    """DP-LSW and DP-LSL on the chain of Section 6 (see the module docstring)."""

    def sweep(self, ctx: Context[BalleState]) -> None:
        """Figure 1: every algorithm on ``n_trials`` independent batches per batch size."""
        ctx.state.figure1 = run_figure1(ctx.profile, **ctx.sweep_options)

    def evidence(self, ctx: Context[BalleState]) -> Iterable[Evidence | None]:
        """This run's trials of Figure 1, then the verdicts of the recorded paper-profile run."""
        return (
            Evidence(LIVE, ctx.profile, data=Figure1Trials(ctx.state.figure1)),
            recorded_verdicts(PAPER, BalleProfile.paper(), ctx.profile, PAPER_RUN),
        )

    def releases(self, ctx: Context[BalleState]) -> Iterator[LedgerEntry]:
        """One entry per (algorithm, features): every DP-LSW / DP-LSL estimate released in Figure
        1, its noise calibrated by Lemma 1 (the api's
        :func:`~privrl.api.evaluation.smooth_gaussian_noise`, epsilon by
        construction), cross-checked empirically by the Monte Carlo privacy loss at the worst
        neighbouring pair found (check ``privacy_loss``)."""
        p, df = ctx.profile, ctx.state.figure1
        for loss in ctx.state.privacy_loss.to_dict("records"):
            method, feat = loss["method"], loss["features"]
            d = p.features()[feat].shape[1]
            event = p.noise(d).event
            sig = df[(df["method"] == method) & (df["features"] == feat)]["sigma"]
            yield LedgerEntry(
                paper=PAPER,
                release=f"{method} estimate ({feat} features, d = {d}): {len(sig)} releases in "
                "Figure 1, each on its own batch",
                mechanism="Gaussian output perturbation with smooth-sensitivity scale sigma_X",
                relation="replace-one",
                unit="trajectory",
                noise=(
                    f"alpha = {event.alpha:.4g}, beta = {event.beta:.4g}, F = "
                    f"{p.return_bound:g}; sigma_X from {sig.min():.3g} to {sig.max():.3g} over "
                    "the releases"
                ),
                delta=p.delta,
                compositions=1,
                accountant=ACCOUNTANT,
                event=event,
                at_delta_zero=(
                    f"(0, {smooth_gaussian_tv_bound(event.alpha, event.beta, d):.2g})-DP "
                    "by total variation: Pinsker's inequality on Lemma 1's conditions "
                    "(smooth_gaussian_tv_bound)"
                ),
                cross_check=CrossCheck(
                    "empirical",
                    f"Monte Carlo hockey-stick delta at the worst of {loss['pairs_searched']} "
                    f"neighbouring pairs found (m = {loss['m']}): delta({p.epsilon:g}) <= "
                    f"{loss['delta_upper']:.2g} (mean + 3 SE); cross-check epsilon = the smallest "
                    "epsilon' (scan floor 1e-4 epsilon) at which that pair stays (epsilon', "
                    "delta)-indistinguishable: an empirical value for that pair, not a bound for "
                    "the mechanism",
                    loss["epsilon_empirical"],
                    vacuous=(
                        "the scan stopped at its floor (1e-4 epsilon): the pair is "
                        "indistinguishable at every epsilon' scanned, which says nothing of "
                        "the mechanism's epsilon"
                        if loss["epsilon_empirical"] <= SCAN_FLOOR * p.epsilon * (1 + 1e-9)
                        else ""
                    ),
                ),
                audit="audits:" + ("dp_lsw" if method == "DP-LSW" else "dp_lsl"),
            )

    def finish(self, ctx: Context[BalleState]) -> None:
        """The numbers the prose reads (glued, and kept with those of check ``rate_m2_asymptotic``
        in ``numbers``) and the ``rmse`` table."""
        state, p = ctx.state, ctx.profile
        df, rate, nc = state.figure1, state.noise_rate, state.neighbours
        tabular = p.noise(p.n_states).event
        alpha, beta = tabular.alpha, tabular.beta
        numbers = {
            "epsilon": p.epsilon,
            "delta": p.delta,
            "return_bound": p.return_bound,
            "rmax_bound": 1 / (1 - p.gamma),
            "n_states": p.n_states,
            "n_trials": p.n_trials,
            "m_small": min(p.batch_sizes),
            "m_large": max(p.batch_sizes),
            "sb_cases": len(state.smooth_bounds),
            "nc_pairs": nc.groupby(["batch", "pair"]).ngroups,
            "nc_emptied": int(nc.drop_duplicates(["batch", "pair"])["emptied"].sum()),
            "arb_trials": len(state.arbitrary),
            "alpha": alpha,
            "beta": beta,
            "zero_rmse": float(np.sqrt(p.rho() @ p.mdp().true_values(p.gamma) ** 2)),
        }
        inside = rate[rate["m"] <= max(PAPER_BATCHES)]
        dp_lsw_risk = df[(df["method"] == "DP-LSW") & df["default_c"]]
        for feat in ("tabular", "aggregated"):
            g = inside[inside["features"] == feat]
            e = dp_lsw_risk[dp_lsw_risk["features"] == feat].groupby("m")["excess_risk"].mean()
            numbers |= {
                f"slope_in_{feat}": log_slope(g["m"].to_numpy(float), g["noise_var"].to_numpy()),
                f"slope_emp_{feat}": log_slope(e.index.to_numpy(float), e.to_numpy()),
                f"m_needed_{feat}": int(
                    rate[(rate["features"] == feat) & (rate["sigma"] <= 0.1)]["m"].min()
                ),
            }
        rmse = state.rmse = mean_rmse_table(df)
        for meth in METHODS:
            key = meth.replace("-", "").lower()
            numbers[f"rmse_{key}_large"] = float(rmse.loc[("aggregated", meth), max(p.batch_sizes)])
        reg = df[
            (df["features"] == "tabular")
            & (df["method"] == "DP-LSL")
            & df["c"].notna()
            & df["m"].isin(p.reg_batch_sizes)
        ]
        if not reg.empty:
            best = reg.groupby(["m", "c"])["rmse"].mean().groupby("m").min()
            numbers |= {"best_dplsl_reg": float(best.iloc[-1]), "reg_m_large": int(best.index[-1])}
        loss_w = state.privacy_loss.set_index(["method", "features"]).loc[("DP-LSW", "tabular")]
        numbers |= {
            "pl_delta": float(loss_w["delta_mc"]),
            "pl_ratio_a": float(loss_w["ratio_a"]),
            "pl_epsilon_empirical": float(loss_w["epsilon_empirical"]),
        }
        for key, value in numbers.items():
            ctx.glue(key, value)
        rate_numbers = {
            **{f"slope_tail_{f}": s for f, s in state.rate_slope_tail.items()},
            **{f"rate_onset_{f}": m for f, m in state.rate_onset.items()},
        }
        state.numbers = rate_numbers | numbers


run = Balle2016Chapter().run
