"""Gohari et al. (2021): privacy-preserving kickstarting with privacy-aware students, as one
:class:`~privrl.chapter.skeleton.Chapter` on the typed state
:class:`~privrl.papers.gohari2021.state.GohariState`.

:func:`run` (profile :class:`~privrl.papers.gohari2021.profile.GohariProfile`) takes the skeleton's
steps: the checks of Theorem 1 (eq. 12, 6) and Lemma 1 (eq. 14) and the teachers' per-query
privacy (:mod:`~privrl.papers.gohari2021.checks`); Figure 2's runs
(:mod:`~privrl.papers.gohari2021.runs`), their speed-ups (:mod:`~privrl.papers.gohari2021.curves`),
the teacher's composed budget and the recorded AirRaid runs
(:mod:`~privrl.papers.gohari2021.recorded`); the teachers' releases in the ledger (Theorem 1 as
:class:`~privrl.core.accounting.dirichlet.DirichletMechanismEvent`); the claims and errata
(:mod:`~privrl.papers.gohari2021.claims`), decided on this run and on each recorded run.

Train the teachers (weights are committed; the command regenerates them) and record the AirRaid
design (resumable over sittings through the cache)::

    python -m privrl.papers.gohari2021.chapter train-teacher --env cartpole --epochs 40
    python -m privrl.papers.gohari2021.chapter train-teacher --env airraid --epochs 2500
    python -m privrl.papers.gohari2021.chapter record-curves --n-trials 10 --epochs 450 \
        --cache-dir book/measurements/cache/gohari2021-design10
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Iterator

import pandas as pd

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.records import command_line, results_dir
from privrl.chapter.skeleton import Chapter, Context
from privrl.papers.gohari2021 import theory
from privrl.papers.gohari2021.checks import CHECKS
from privrl.papers.gohari2021.claims import CLAIMS, ERRATA, Runs, on_record
from privrl.papers.gohari2021.curves import figure2_curves, final_returns, speedup_table, thresholds
from privrl.papers.gohari2021.diagnostics import (
    after_budget_finding,
    diagnostic_labels,
    diagnostics_summary,
    diagnostics_table,
    first_spent_rollout,
    penalised_after_budget,
)
from privrl.papers.gohari2021.plots import speedup_display
from privrl.papers.gohari2021.profile import AWARE, PAPER, GohariProfile
from privrl.papers.gohari2021.recorded import (
    HORIZON,
    RecordedAnalysis,
    add_recording_arguments,
    load_paper_curves,
    record_paper_curves,
    recorded_analysis,
)
from privrl.papers.gohari2021.runs import (
    budget_table,
    figure2_configs,
    measure_references,
    measure_rollout_cost,
    query_table,
    run_figure2,
    unique_configs,
)
from privrl.papers.gohari2021.sources import SOURCES
from privrl.papers.gohari2021.state import GohariState, RolloutCost, given
from privrl.papers.gohari2021.teacher import teacher_path, train_teacher

MECHANISM = "Dirichlet mechanism on the eta-restricted simplex (eq. 5)"
ACCOUNTANT = (
    "Theorem 1 (eq. 12; delta: a rigorous upper bound on eq. 6, the union bound over "
    "coordinates of Beta CDFs (exact for m = 2), incomplete beta by mpmath rounded up)"
)


def _maximisation(m: str, sup_ratio: float) -> CrossCheck:
    r"""The numerical maximisation of the exact log-density ratio (eq. 18) over
    :math:`\Delta_{m,\tau}` (``m`` as the text names it): the loss at the pairs it finds, a lower
    estimate of the loss outside the delta event, so an *empirical* cross-check."""
    return CrossCheck(
        "empirical",
        f"numerical maximisation of the exact log-density ratio over "
        f"Delta_{{{m},tau}} and policies L b apart (a lower estimate of the loss "
        "outside the delta event)",
        max(sup_ratio, 1e-12),
    )


#: What one Dirichlet release is without a delta (Theorem 1's delta is the probability mass
#: outside Delta_{m,tau}, where the log-density ratio is unbounded).
AT_DELTA_ZERO = (
    "no finite epsilon: the log-density ratio of two Dirichlet releases is unbounded "
    "as a coordinate tends to 0, which is why Theorem 1 spends delta on the mass "
    "outside Delta_{m,tau}"
)


#: Seeds per configuration of the recorded AirRaid design (the paper: 30).
DESIGN_SEEDS = 10


class Gohari2021Chapter(
    Chapter,
    name=PAPER,
    profile_type=GohariProfile,
    checks=CHECKS,
    claims=CLAIMS,
    errata=ERRATA,
    sources=SOURCES,
    state_type=GohariState,
):
    """Gohari et al. (2021) on the skeleton: checks, Figure 2, ledger, claims, errata."""

    def sweep(self, ctx: Context[GohariState]) -> None:
        """Figure 2's runs, the reference returns and thresholds X_q, times to threshold and
        speed-ups, the teacher's composed budget (checked against the schedule), the cost of a
        paper-scale run (``measure_cost``), the recorded AirRaid design and the record at the
        paper's horizon (each if recorded; ``state.recorded`` and ``state.horizon``)."""
        p, s = ctx.profile, ctx.state
        t0 = time.perf_counter()
        runs = s.runs = run_figure2(p, **ctx.sweep_options)
        s.sweep_seconds = time.perf_counter() - t0
        refs = s.references = measure_references(p, ctx.rng)
        s.thresholds = thresholds(refs["random"], refs["teacher"], p.quantiles)
        big, _ = p.baseline_labels()
        s.times, s.speedup = speedup_table(
            runs, s.thresholds, p.smoothing_window, big, ("kickstarting", AWARE)
        )
        budget = s.budget = budget_table(runs, p)
        ctx.report.check(
            "queries_within_schedule",
            "largest queries answered / allowed by the k_min cut",
            float((budget["queries"] / budget["queries allowed"]).max()),
            at_most=1.0,
        )
        s.composed_delta = float(budget["basic_delta"].max())
        s.queries = float(budget["queries"].max())
        s.final = (
            final_returns(runs)
            .groupby("label", sort=False)["avg_return"]
            .median()
            .to_frame("median final return")
        )
        s.curves = figure2_curves(runs, window=p.smoothing_window)
        self._diagnose(ctx, runs)
        if p.measure_cost:
            s.cost = measure_rollout_cost(GohariProfile.paper(seed=p.seed))
        recorded = load_paper_curves()
        if recorded is not None:
            s.recorded = recorded_analysis(*recorded)
            self._diagnose_recorded(ctx, s.recorded)
        horizon = load_paper_curves(name=HORIZON)
        if horizon is not None:
            s.horizon = recorded_analysis(*horizon)

    @staticmethod
    def _diagnose(ctx: Context[GohariState], runs: pd.DataFrame) -> None:
        """The per roll-out diagnostics of the students and plain PPO, their summary over
        the informed and the spent roll-outs of the c = 0.3 schedule, the paragraph that states
        them (:func:`after_budget_finding`) and (for the erratum ``random_answers_pull``) the
        penalised fraction after the budget of each radius."""
        p, s = ctx.profile, ctx.state
        s.diagnostic_labels = diagnostic_labels(p, runs)
        s.diagnostics = diagnostics_table(runs, s.diagnostic_labels)
        s.first_spent = first_spent_rollout(p)
        summary = s.diagnostics_summary = diagnostics_summary(s.diagnostics, s.first_spent)
        s.after_budget_finding = after_budget_finding(runs, summary, p)
        s.penalised_after = penalised_after_budget(summary)

    @staticmethod
    def _diagnose_recorded(ctx: Context[GohariState], rec: RecordedAnalysis) -> None:
        """The same diagnostics on the recorded AirRaid run, when it has them."""
        summary = rec.diagnostics_summary()
        if summary is None:
            return
        s = ctx.state
        s.recorded_diagnostics_summary = summary
        s.recorded_finding = after_budget_finding(rec.runs, summary, rec.profile)
        s.recorded_penalised_after = penalised_after_budget(summary)

    def releases(self, ctx: Context[GohariState]) -> Iterator[LedgerEntry]:
        """The profile's teacher's policy for one observation at k0, and the paper's reported pair
        at k = 5 (both Theorem 1, cross-checked by the numerical maximisation of eq. 18)."""
        p = ctx.profile
        teacher = given(ctx.state.teacher, "the teacher's privacy")
        pair = given(ctx.state.pair, "the paper's pair")
        yield LedgerEntry(
            paper=PAPER,
            release=f"{p.env} teacher's policy for one observation, Dir_k(f(s)) at k0 = {p.k0:g}",
            mechanism=MECHANISM,
            relation="replace-one",
            unit="observation",
            noise=f"k = {p.k0:g}, eta = {p.eta:g}, tau = {p.tau:.3g}, b = {p.b:.3g} (b-adjacent: "
            f"||X - X'||_2 <= b, Definition 1), certified L = {teacher.L:.3g}; Monte Carlo "
            f"cross-check of delta: {teacher.d_q_mc:.4f} (95% upper {teacher.d_q_mc_upper:.4f})",
            delta=teacher.d_q,
            compositions=1,
            accountant=ACCOUNTANT,
            event=teacher.event,
            cross_check=_maximisation("m", teacher.sup_ratio),
            audit="audits:dirichlet",
            at_delta_zero=AT_DELTA_ZERO,
        )
        yield LedgerEntry(
            paper=PAPER,
            release="AirRaid teacher's policy for one observation at k = 5 (the paper's reported pair)",
            mechanism=MECHANISM,
            relation="replace-one",
            unit="observation",
            noise=f"k = 5, eta = {pair.eta:g}, tau = {pair.tau:.3g}, L b = {pair.lb:.4f} (stated here; "
            f"the paper states none of them); delta between {pair.delta_lower:.4f} (rigorous lower "
            f"bound) and {pair.delta:.4f}; Monte Carlo cross-check {pair.delta_mc:.4f} (95% upper "
            f"{pair.delta_mc_upper:.4f})",
            delta=pair.delta,
            compositions=1,
            accountant=ACCOUNTANT,
            event=theory.paper_pair_event(pair),
            cross_check=_maximisation("6", given(ctx.state.pair_sup_ratio, "eq. (18) at the pair")),
            audit="audits:dirichlet",
            at_delta_zero=AT_DELTA_ZERO,
        )

    def evidence(self, ctx: Context[GohariState]) -> Iterable[Evidence[Runs] | None]:
        """This run's Figure 2 runs, then the recorded AirRaid design's and the record's at the
        paper's horizon (each when there is one)."""
        p, s = ctx.profile, ctx.state
        runs = given(s.runs, "Figure 2's runs")
        yield Evidence(LIVE, p, data=Runs(runs, s.speedup, query_table(runs, p), s.references))
        for rec in (s.recorded, s.horizon):
            if rec is not None:
                yield on_record(rec)

    def finish(self, ctx: Context[GohariState]) -> None:
        """The speed-up, threshold and reference returns and this run's seeds the prose reads; the
        cost of the paper profile (hours per run, per sweep and for the recorded design; in
        ``state.rollout_cost`` with its source, :meth:`_rollout_cost`)."""
        s = ctx.state
        speedup = given(s.speedup, "the speed-up table")
        head = speedup[speedup["q"] == 0.5].set_index("treated", drop=False)
        ctx.glue("speedup_ks", float(head.loc["kickstarting", "ratio"]))
        ctx.glue("threshold", s.thresholds[0.5])
        ctx.glue("r_random", s.references["random"])
        ctx.glue("r_teacher", s.references["teacher"])
        ctx.glue("run_seeds", float(ctx.profile.n_trials))
        cost = self._rollout_cost(ctx)
        if cost is not None:
            per_rollout, source = cost
            paper = GohariProfile.paper(seed=ctx.profile.seed)
            per_run = per_rollout * paper.epochs / 3600
            s.rollout_cost = RolloutCost(source, per_rollout, per_run)
            n_cfg = len(unique_configs(figure2_configs(paper))[0])
            ctx.glue("sec_rollout", per_rollout)
            ctx.glue("hours_run", per_run)
            ctx.glue("hours_total", per_run * n_cfg * paper.n_trials)
            ctx.glue("n_paper_configs", n_cfg)
            ctx.glue("n_paper_configs_listed", len(figure2_configs(paper)))
            design = GohariProfile.paper(n_trials=DESIGN_SEEDS, epochs=450, supplement=False)
            ctx.glue("n_design_configs", len(figure2_configs(design)))
            ctx.glue("design_seeds", DESIGN_SEEDS)
            ctx.glue(
                "hours_design",
                per_rollout * design.epochs * len(figure2_configs(design)) * design.n_trials / 3600,
            )
        if s.recorded is not None:
            self._glue_recorded(ctx, s.recorded)

    @staticmethod
    def _rollout_cost(ctx: Context[GohariState]) -> tuple[float, str] | None:
        """CPU seconds per roll-out at paper settings and where they come from: ``measured``
        (``measure_cost``: the most expensive run, timed by this run) or ``recorded`` (the
        recorded AirRaid design's CPU time summed over its runs, over its roll-outs); ``None``
        without either."""
        if ctx.state.cost is not None:
            return float(ctx.state.cost["seconds per roll-out"].max()), "measured"
        rec = ctx.state.recorded
        if rec is None or not rec.core_seconds:
            return None
        return rec.core_seconds / len(rec.runs), "recorded"

    @staticmethod
    def _glue_recorded(ctx: Context[GohariState], rec: RecordedAnalysis) -> None:
        """The recorded AirRaid run's speed-ups at X_0.5, references, threshold, size and cost."""
        head = rec.speedup[rec.speedup["q"] == 0.5]
        shown = speedup_display(head).set_index("student")
        head = head.set_index("treated")
        for name, label in (("ks", "kickstarting"), ("aware", AWARE)):
            for col in ("ratio", "censored_baseline", "censored_treated"):
                ctx.glue(f"rec_{name}_{col}", float(head.loc[label, col]))
            ctx.glue(f"rec_{name}_interval", shown.loc[label, "95% interval"])
        ctx.glue("rec_r_random", rec.references["random"])
        ctx.glue("rec_r_teacher", rec.references["teacher"])
        ctx.glue("rec_threshold", float(head["threshold"].iloc[0]))
        ctx.glue("rec_seeds", float(rec.profile.n_trials))
        ctx.glue("rec_configs", float(rec.runs["label"].nunique()))
        ctx.glue("rec_rollouts", float(rec.profile.epochs))
        ctx.glue("rec_core_hours", rec.core_seconds / 3600)
        ctx.glue("rec_wall_hours", rec.wall_seconds / 3600)


#: The chapter's entry point: ``run(profile, *, executor=None, cache_dir=None, progress=False)``.
run = Gohari2021Chapter().run


def main(argv: list[str] | None = None) -> None:
    """``train-teacher`` (train and save a (64, 64) PPO teacher) and ``record-curves`` (run
    Figure 2 at paper settings and record the curves, :func:`record_paper_curves`)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.gohari2021.chapter")
    sub = parser.add_subparsers(dest="command", required=True)
    tt = sub.add_parser("train-teacher", help="train and save the (64, 64) PPO teacher")
    tt.add_argument("--env", choices=["cartpole", "airraid"], default="cartpole")
    tt.add_argument("--epochs", type=int, default=40)
    tt.add_argument("--steps-per-epoch", type=int, default=1000)
    tt.add_argument("--seed", type=int, default=0)
    tt.add_argument(
        "--keep",
        choices=["best", "last"],
        default="best",
        help="save the best checkpoint (100-roll-out average return) or the last",
    )
    rc = sub.add_parser(
        "record-curves", help="run Figure 2 at paper settings and record the curves"
    )
    add_recording_arguments(rc, n_trials=6, epochs=450)
    rc.add_argument(
        "--radius-arms",
        nargs="*",
        default=["union"],
        help="the c = 0.3 aware student again with these radii of Lemma 1 (arm c)",
    )
    rc.add_argument(
        "--after-budget-arms",
        nargs="*",
        default=["silent"],
        help="the c = 0.3 aware student again with the teacher silent after its budget (arm b)",
    )
    rc.add_argument("--cache-dir", default=None)
    args = parser.parse_args(argv)
    if args.command == "record-curves":
        profile = GohariProfile.paper(
            n_trials=args.n_trials,
            epochs=args.epochs,
            seed=args.seed,
            supplement=False,
            radius_arms=tuple(args.radius_arms),
            after_budget_arms=tuple(args.after_budget_arms),
        )
        command = command_line("privrl.papers.gohari2021.chapter", argv)
        paths = record_paper_curves(
            profile,
            args.out or results_dir(),
            executor=args.executor,
            cache_dir=args.cache_dir,
            command=command,
        )
        print("wrote", *paths)
        return
    log = train_teacher(
        args.env, args.epochs, args.seed, steps_per_epoch=args.steps_per_epoch, keep=args.keep
    )
    print(log[["epoch", "env_steps", "avg_return", "wall_time"]].to_string(index=False))
    print(f"saved {teacher_path(args.env)}")


if __name__ == "__main__":
    main()
