"""Ono and Takahashi (2020): PGC-A3C on CartPole with private gravity, Figures 2-3 and Tables 1-3,
as a :class:`~privrl.chapter.skeleton.Chapter`.

The run: the mechanism and environment checks (:mod:`.checks`), the three sweeps (:mod:`.runs`:
Tables 1-3 and Figure 3, Figure 2, the per-report statistics of training) with their tables
(:mod:`.tables`) and the recorded paper-profile run (:mod:`.recorded`), the privacy ledger
(:meth:`Ono2020Chapter.releases`: Lemmas 2-3 and the multi-round extension of section 3.2.1), the
claims and errata (:mod:`.claims`), then the checks that read the sweep and the recorded run.
``run = Ono2020Chapter().run`` is the notebook's entry point.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator

import pandas as pd

from privrl.api.local import sign_report_event
from privrl.api.mechanisms import grid_laplace_event
from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.skeleton import Chapter, Context
from privrl.core.accounting.local import GridLaplaceReportEvent, per_round_epsilon
from privrl.core.algorithms import a3c
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.mechanisms import local as loc
from privrl.papers.ono2020.checks import BEFORE_SWEEP, check_failure, check_recorded_run
from privrl.papers.ono2020.claims import (
    CLAIMS,
    ERRATA,
    REFERENCE_PREFIX,
    TUNED_PREFIX,
    TrialData,
    sensitivity,
)
from privrl.papers.ono2020.profile import PAPER, REFERENCE, OnoProfile
from privrl.papers.ono2020.recorded import (
    recorded_curves,
    recorded_paper_run,
    recorded_reference_run,
)
from privrl.papers.ono2020.reference import chosen_steps, sweep_reference
from privrl.papers.ono2020.runs import sweep_diagnostics, sweep_figure2, sweep_tables
from privrl.papers.ono2020.seeds import (
    reference_looks,
    reference_rule,
    reference_tunings,
    tuned_rule,
    tuned_tunings,
)
from privrl.papers.ono2020.sources import (
    ON_REFERENCE,
    PAPER_RUN,
    REFERENCE_RUN,
    SOURCES,
    TUNED_RUN,
)
from privrl.papers.ono2020.tables import (
    compare_with_paper,
    failure_summary,
    step_table,
    success_ratio_curves,
    success_tables,
)
from privrl.papers.ono2020.tuning import evaluated_at, recorded_tuned_run

#: Reports per agent of the multi-round extension in the ledger (section 3.2.1), at epsilon = 1.
LEDGER_ROUNDS = 3


def laplace_event(epsilon: float, reports: int = 1) -> GridLaplaceReportEvent:
    """The event of ``reports`` Laplace reports at target ``epsilon`` each, as PGC-A3C releases
    them (Algorithm 2 on the grid, ``d = a3c.D``, clip C): the api's calibration of a report
    (:func:`~privrl.api.mechanisms.grid_laplace_event`, that of :func:`privrl.api.laplace_report`)."""
    return grid_laplace_event(a3c.DEFAULT_CLIP["laplace"], epsilon, a3c.D, dl.DEFAULT_STEP, reports)


def _grid_noise(epsilon: float) -> str:
    """The noise in words: the grid scale and its slack over the continuous ``C / epsilon``."""
    clip = a3c.DEFAULT_CLIP["laplace"]
    inflation = dl.noise_inflation(clip, epsilon, a3c.D, dl.DEFAULT_STEP)
    return (
        f"discrete Laplace on the grid 2^-30, t*step = {laplace_event(epsilon).noise_scale:.6g}"
        f" per coordinate = {inflation:.6f} x the continuous C/epsilon = "
        f"{loc.laplace_scale(clip, epsilon):.4g} (the slack of the exact release)"
    )


def laplace_releases(epsilon: float) -> Iterator[LedgerEntry]:
    """One Laplace report at target ``epsilon`` (Algorithm 2 on the grid, Lemma 2): its exact
    epsilon (at most the target), cross-checked by the exact worst-case log probability ratio of
    the mechanism's own clip, rounding and scale."""
    clip = a3c.DEFAULT_CLIP["laplace"]
    yield LedgerEntry(
        paper=PAPER,
        release=f"one gradient report (Laplace, C = {clip:g}, target epsilon = {epsilon:g})",
        mechanism="Laplace (Alg. 2) on a 2^-30 grid, exact discrete Laplace noise",
        relation="replace-one",
        unit="report",
        noise=_grid_noise(epsilon),
        delta=0.0,
        compositions=1,
        accountant="Lemma 2 on the grid: L1 clip to C/2 (eq. 19), sensitivity C (eq. 20), plus "
        "half a step per coordinate of rounding; exact epsilon L/t",
        event=laplace_event(epsilon),
        cross_check=CrossCheck(
            "upper bound",
            "exact worst-case log probability ratio of the mechanism's clip, rounding and scale",
            loc.laplace_worst_log_ratio(epsilon, clip, a3c.D),
        ),
        audit="audits:pgc_laplace",
    )


def prs_releases(epsilon: float) -> Iterator[LedgerEntry]:
    """One PRS report at ``epsilon`` (Algorithm 3, corrected eq. 24, Lemma 3): ``d_hat`` signs,
    each flipped with probability at least ``1/(e^(epsilon/d_hat) + 1)`` (rounded up to the
    uniforms' grid, ``flip_floor``), cross-checked by the
    exact worst-case log-likelihood ratio over extreme inputs."""
    event = sign_report_event(epsilon, a3c.D)  # the api's calibration of privrl.sign_report
    d_hat = event.bits
    yield LedgerEntry(
        paper=PAPER,
        release=f"one gradient report (PRS, d_hat = {d_hat}, C = 1)",
        mechanism="projected random sign (Alg. 3, corrected eq. 24)",
        relation="replace-one",
        unit="report",
        noise=f"bit flip with epsilon/d_hat = {epsilon / d_hat:.4g} per sign",
        delta=0.0,
        compositions=d_hat,
        accountant="Lemma 3: d_hat signs, each epsilon/d_hat",
        event=event,
        cross_check=CrossCheck(
            "upper bound",
            "exact worst-case log-likelihood ratio by enumeration of extreme inputs",
            loc.prs_worst_log_ratio(epsilon, d_hat),
        ),
        audit="audits:pgc_prs",
    )


def multi_round_releases(
    epsilon: float = 1.0, rounds: int = LEDGER_ROUNDS
) -> Iterator[LedgerEntry]:
    """The multi-round extension (section 3.2.1): each of an agent's ``rounds`` Laplace reports
    targets ``epsilon / rounds``, all of them together their exact epsilons' sum, at most
    ``epsilon``, by sequential composition (Theorem 1)."""
    eps_round = per_round_epsilon(epsilon, rounds)
    clip = a3c.DEFAULT_CLIP["laplace"]
    worst_round = loc.laplace_worst_log_ratio(eps_round, clip, a3c.D)
    yield LedgerEntry(
        paper=PAPER,
        release=f"one of {rounds} reports of an agent (Laplace, multi-round, sec. 3.2.1)",
        mechanism="Laplace (Alg. 2) on a 2^-30 grid, exact discrete Laplace noise",
        relation="replace-one",
        unit="report",
        noise=_grid_noise(eps_round),
        delta=0.0,
        compositions=1,
        accountant=f"per-round target epsilon/T = {epsilon:g}/{rounds}; exact epsilon L/t",
        event=laplace_event(eps_round),
        cross_check=CrossCheck(
            "upper bound", "exact worst-case log probability ratio", worst_round
        ),
        audit="audits:pgc_laplace",
    )
    yield LedgerEntry(
        paper=PAPER,
        release=f"all {rounds} reports of an agent (Laplace, multi-round, sec. 3.2.1)",
        mechanism="Laplace (Alg. 2) on a 2^-30 grid, exact discrete Laplace noise",
        relation="replace-one",
        unit="user",
        noise=f"{_grid_noise(eps_round)}, in each of {rounds} reports",
        delta=0.0,
        compositions=rounds,
        accountant="sequential composition (Theorem 1) of the exact per-report epsilons",
        event=laplace_event(eps_round, reports=rounds),
        cross_check=CrossCheck(
            "upper bound", "sum of the exact per-round worst-case ratios", rounds * worst_round
        ),
        audit="audits:pgc_laplace_rounds",
    )


def reference_tables(
    runs: dict[str, pd.DataFrame], cap: int, prefix: str
) -> dict[str, pd.DataFrame]:
    """The reference set-up's tables (:mod:`.reference`) under ``prefix``: ``trials``, ``curves``
    and ``steps`` as run, Tables 1-3 (``tables``, ``comparison``), Figure 3's success ratios
    (``success_curves``) and the sweep by arm (``step_table``)."""
    tables = success_tables(runs["trials"], cap, reference=REFERENCE)
    out = {
        "trials": runs["trials"],
        "curves": runs["curves"],
        "steps": runs["steps"],
        "tables": tables,
        "comparison": compare_with_paper(tables, variant=REFERENCE),
        "success_curves": success_ratio_curves(runs["trials"], cap),
        "step_table": step_table(runs["steps"]),
    }
    return {prefix + k: v for k, v in out.items()}


class Ono2020Chapter(
    Chapter,
    name=PAPER,
    profile_type=OnoProfile,
    checks=BEFORE_SWEEP,
    sweep_checks=(check_recorded_run, check_failure),
    claims=CLAIMS,
    errata=ERRATA,
    sources=SOURCES,
):
    """PGC-A3C (Ono and Takahashi 2020) on the skeleton; see the module docstring."""

    def sweep(self, ctx: Context) -> None:
        """Tables 1-3 and Figure 3, Figure 2 and the report statistics of this run; then the
        recorded paper-profile run's tables, when one is recorded."""
        profile = ctx.profile
        kw = ctx.sweep_options
        trials = sweep_tables(profile, **kw)
        curves = sweep_figure2(profile, **kw)
        diagnostics = sweep_diagnostics(profile, **kw)
        cap = profile.n_submissions
        tables = success_tables(trials, cap)
        ctx.tables.update(
            trials=trials,
            curves=curves,
            diagnostics=diagnostics,
            tables=tables,
            comparison=compare_with_paper(tables),
            success_curves=success_ratio_curves(trials, cap),
            failure=failure_summary(diagnostics),
        )
        reference = sweep_reference(profile, **kw)
        ctx.tables.update(
            reference_tables(reference, profile.reference_submissions, prefix="reference_")
        )
        ctx.extra["reference_tuning"] = reference_tunings(
            reference["tuning"], reference["trials"], profile.seed, dataclasses.asdict(profile)
        )
        self.load_recorded(ctx)

    @staticmethod
    def load_recorded(ctx: Context) -> None:
        """The recorded paper-profile run (:func:`.recorded.recorded_paper_run`) as tables
        ``paper_*``, its record in ``ctx.extra["recorded"]`` and its budget, commit and
        description in ``ctx.values`` (``rec_*``); then the recorded reference set-up's tables
        (``rec_reference_*``) and how its arms were tuned (``ctx.extra["rec_reference_tuning"]``,
        :func:`.seeds.reference_tunings`) and the tuned record (:meth:`load_tuned`); nothing
        when none is recorded."""
        recorded = recorded_paper_run()
        if recorded is None:
            return
        record = recorded["record"]
        budget = int(record["parameters"]["n_submissions"])
        paper_tables = success_tables(recorded["trials"], budget)
        ctx.tables.update(
            paper_trials=recorded["trials"],
            paper_curves=recorded_curves(recorded["curves"]),
            paper_tables=paper_tables,
            paper_comparison=compare_with_paper(paper_tables),
            paper_success_curves=success_ratio_curves(recorded["trials"], budget),
        )
        ctx.extra["recorded"] = record
        ctx.values.update(
            rec_budget=budget,
            rec_commit=record["git_commit"],
            rec_source=f"recorded paper-profile run, commit {record['git_commit']}, "
            f"budget {budget:,}",
        )
        reference = recorded_reference_run()
        if reference is None:
            return
        record = reference["record"]
        budget = int(record["parameters"]["n_submissions"])
        runs = {
            "trials": reference["trials"],
            "steps": chosen_steps(
                reference["sweep"].rename(columns={"step_size": "eta"}),
                int(record["parameters"]["tuning_submissions"]),
            ),
            "curves": reference["curves"],
        }
        ctx.tables.update(reference_tables(runs, budget, prefix="rec_reference_"))
        ctx.extra["recorded_reference"] = record
        params = record["parameters"]
        ctx.extra["rec_reference_tuning"] = reference_tunings(
            reference["sweep"], reference["trials"], int(params["seed"]), params
        )
        ctx.values.update(
            rec_reference_budget=budget,
            rec_reference_commit=record["git_commit"],
            rec_reference_source=f"recorded reference set-up run, commit "
            f"{record['git_commit']}, budget {budget:,}",
        )
        Ono2020Chapter.load_tuned(
            ctx,
            reference_looks(reference["sweep"], reference["trials"], int(params["seed"]), params),
            reference_rule(int(params["tuning_trials"]), int(params["tuning_submissions"])),
        )

    @staticmethod
    def load_tuned(ctx: Context, reference: tuple, rule: str) -> None:
        """The recorded tuning and the arms evaluated at its steps
        (:func:`.tuning.recorded_tuned_run`) as tables ``tuning`` (per trial), ``tuning_scores``
        (per arm and step, the chosen steps marked), ``tuned_trials`` (the arms at the steps
        with the most tuning successes, which decide), ``tuned_tables`` (their Tables 1-3) and
        ``tuned_sensitivity`` (the claims
        whose outcome at the steps of highest mean AUC differs, :func:`.claims.sensitivity`),
        how its arms were tuned (``ctx.extra["tuned_tuning"]``, :func:`.seeds.tuned_tunings`:
        looked at on their tuning and on the ``reference`` set-up's seeds,
        :func:`.seeds.reference_looks`; the baseline by the reference set-up's ``rule``), its
        record in ``ctx.extra["recorded_tuned"]`` and ``rec_tuned_*`` values; nothing when none
        is recorded."""
        tuned = recorded_tuned_run()
        if tuned is None:
            return
        record, scores = tuned["record"], tuned["scores"]
        params = record["parameters"]
        budget = int(params["n_submissions"])
        trials = evaluated_at(tuned["trials"], scores)
        by_auc = evaluated_at(tuned["trials"], scores, "auc")
        how = {
            criterion: tuned_tunings(
                tuned["tuning"], frame, params, reference, rule, tuned_rule(params, criterion)
            )
            for criterion, frame in (("successes", trials), ("auc", by_auc))
        }
        ctx.tables.update(
            tuning=tuned["tuning"],
            tuning_scores=scores,
            tuned_trials=trials,
            tuned_tables=success_tables(trials, budget, reference=REFERENCE),
            tuned_sensitivity=sensitivity(
                ctx,
                TrialData(trials, pd.DataFrame(), budget, REFERENCE, how["successes"]),
                TrialData(by_auc, pd.DataFrame(), budget, REFERENCE, how["auc"]),
            ),
        )
        ctx.extra["recorded_tuned"] = record
        ctx.extra["tuned_tuning"] = how["successes"]
        per_arm = trials.groupby(["mechanism", "epsilon"]).size()
        ctx.values.update(
            rec_tuned_budget=budget,
            rec_tuned_commit=record["git_commit"],
            rec_tuned_source=f"recorded reference set-up at the steps with the most successes "
            f"on {params['tuning_trials']} tuning trials per step of "
            f"{params['tuning_submissions']:,} submissions, "
            f"{per_arm.min()}-{per_arm.max()} fresh evaluation trials per "
            f"arm, budget {budget:,}, commit {record['git_commit']}",
        )

    def evidence(self, ctx: Context) -> Iterable[Evidence | None]:
        """The trials and curves the claims are decided on: this run's, the recorded
        paper-profile run's, then the reference set-up's, live and recorded, and the recorded
        arms at the steps with the most tuning successes (no curves: only the claims on its arms' trials;
        each absent when the run has none)."""
        t, v, live, paper = ctx.tables, ctx.values, ctx.profile, OnoProfile.paper()
        yield Evidence(
            LIVE,
            live,
            data=TrialData(t["trials"], t["curves"], live.n_submissions),
            source=f"live {live.profile} run",
        )
        if "paper_trials" in t:
            yield Evidence(
                "paper",
                paper,
                v["rec_commit"],
                suffix=PAPER_RUN.suffix,
                source=v["rec_source"],
                data=TrialData(t["paper_trials"], t["paper_curves"], v["rec_budget"]),
            )
        if "reference_trials" in t:
            yield Evidence(
                "reference",
                live,
                suffix=ON_REFERENCE,
                prefix=REFERENCE_PREFIX,
                source=f"live {live.profile} run, reference set-up",
                data=TrialData(
                    t["reference_trials"],
                    t["reference_curves"],
                    live.reference_submissions,
                    REFERENCE,
                    ctx.extra["reference_tuning"],
                ),
            )
        if "rec_reference_trials" in t:
            yield Evidence(
                "reference_paper",
                paper,
                v["rec_reference_commit"],
                suffix=REFERENCE_RUN.suffix,
                prefix=REFERENCE_PREFIX,
                source=v["rec_reference_source"],
                data=TrialData(
                    t["rec_reference_trials"],
                    t["rec_reference_curves"],
                    v["rec_reference_budget"],
                    REFERENCE,
                    ctx.extra["rec_reference_tuning"],
                ),
            )
        if "tuned_trials" in t:
            yield Evidence(
                "reference_tuned",
                paper,
                v["rec_tuned_commit"],
                suffix=TUNED_RUN.suffix,
                prefix=TUNED_PREFIX,
                source=v["rec_tuned_source"],
                data=TrialData(
                    t["tuned_trials"],
                    pd.DataFrame(columns=["submission"]),
                    v["rec_tuned_budget"],
                    REFERENCE,
                    ctx.extra["tuned_tuning"],
                ),
            )

    def releases(self, ctx: Context) -> Iterator[LedgerEntry]:
        """Every report's local epsilon for both mechanisms at each finite epsilon of the
        profile, and the multi-round extension at 3 reports per agent."""
        for eps in (e for e in ctx.profile.epsilons if math.isfinite(e)):
            yield from laplace_releases(eps)
            yield from prs_releases(eps)
        yield from multi_round_releases()

    def finish(self, ctx: Context) -> None:
        """The numbers the prose reads."""
        trials = ctx.tables["trials"]
        steps_per_s = float(trials.env_steps.sum() / trials.seconds.sum())
        ctx.glue("steps_per_s", steps_per_s)
        ctx.glue("cap", ctx.profile.n_submissions)
        ctx.glue("n_trials", ctx.profile.n_trials)
        ctx.extra["steps_per_s"] = steps_per_s


run = Ono2020Chapter().run
