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
from collections.abc import Iterator
from typing import Any

import pandas as pd

from privrl.api.local import sign_report_event
from privrl.api.mechanisms import grid_laplace_event
from privrl.chapter.decided import EvidenceSource
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
from privrl.papers.ono2020.state import OnoState, Recorded
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


def summaries(
    trials: pd.DataFrame, cap: int, variant: str = "paper"
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Tables 1-3 of ``trials`` at budget ``cap`` on set-up ``variant`` (the paper's or
    :data:`~privrl.papers.ono2020.trials.REFERENCE`; :func:`.tables.success_tables`), beside the
    paper's printed values (:func:`.tables.compare_with_paper`), and Figure 3's success ratios
    (:func:`.tables.success_ratio_curves`)."""
    tables = success_tables(trials, cap, reference=variant)
    return tables, compare_with_paper(tables, variant=variant), success_ratio_curves(trials, cap)


def recorded_as(record: dict[str, Any], what: str) -> Recorded:
    """The recorded run of ``record`` at the budget its parameters state, named ``what``."""
    budget = int(record["parameters"]["n_submissions"])
    return Recorded(record, budget, f"{what}, commit {record['git_commit']}, budget {budget:,}")


def recorded_evidence(
    source: EvidenceSource, rec: Recorded, data: TrialData, prefix: str = ""
) -> Evidence[TrialData]:
    """The evidence of the recorded paper-profile run ``rec`` declared as ``source``: ``data``
    at the paper's profile, named by its commit and words, statements starting with
    ``prefix``."""
    return Evidence(
        source.name,
        OnoProfile.paper(),
        rec.commit,
        suffix=source.suffix,
        prefix=prefix,
        evidence_lead=rec.source,
        data=data,
    )


class Ono2020Chapter(
    Chapter,
    name=PAPER,
    profile_type=OnoProfile,
    checks=BEFORE_SWEEP,
    sweep_checks=(check_recorded_run, check_failure),
    claims=CLAIMS,
    errata=ERRATA,
    sources=SOURCES,
    state_type=OnoState,
):
    """PGC-A3C (Ono and Takahashi 2020) on the skeleton; see the module docstring."""

    def sweep(self, ctx: Context[OnoState]) -> None:
        """Tables 1-3 and Figure 3, Figure 2 and the report statistics of this run on the paper's
        set-up, then Tables 1-3, Figure 2 and the step sweep on the reference set-up, then the
        recorded runs (:meth:`load_recorded`)."""
        s, profile, kw = ctx.state, ctx.profile, ctx.sweep_options
        s.trials = sweep_tables(profile, **kw)
        s.curves = sweep_figure2(profile, **kw)
        s.diagnostics = sweep_diagnostics(profile, **kw)
        s.tables, s.comparison, s.success_curves = summaries(s.trials, profile.n_submissions)
        s.failure = failure_summary(s.diagnostics)
        reference = sweep_reference(profile, **kw)
        s.reference_trials = reference["trials"]
        s.reference_curves = reference["curves"]
        s.reference_steps = reference["steps"]
        s.reference_tables, s.reference_comparison, s.reference_success_curves = summaries(
            s.reference_trials, profile.reference_submissions, REFERENCE
        )
        s.reference_step_table = step_table(s.reference_steps)
        s.reference_tuning = reference_tunings(
            reference["tuning"], reference["trials"], profile.seed, dataclasses.asdict(profile)
        )
        self.load_recorded(ctx)

    @staticmethod
    def load_recorded(ctx: Context[OnoState]) -> None:
        """The recorded paper-profile run (:func:`.recorded.recorded_paper_run`: its tables
        ``paper_*`` and :attr:`OnoState.recorded`), then the recorded reference set-up
        (:func:`.recorded.recorded_reference_run`: its tables ``rec_reference_*``, its record
        and how its arms were tuned, :func:`.seeds.reference_tunings`) and the tuned record
        (:meth:`load_tuned`); each left ``None`` when not recorded."""
        s = ctx.state
        recorded = recorded_paper_run()
        if recorded is None:
            return
        s.paper_trials = recorded["trials"]
        s.paper_curves = recorded_curves(recorded["curves"])
        s.recorded = recorded_as(recorded["record"], "recorded paper-profile run")
        s.paper_tables, s.paper_comparison, s.paper_success_curves = summaries(
            s.paper_trials, s.recorded.budget
        )
        reference = recorded_reference_run()
        if reference is None:
            return
        params = reference["record"]["parameters"]
        s.rec_reference_trials = reference["trials"]
        s.rec_reference_curves = reference["curves"]
        s.rec_reference_steps = chosen_steps(
            reference["sweep"].rename(columns={"step_size": "eta"}),
            int(params["tuning_submissions"]),
        )
        s.recorded_reference = recorded_as(reference["record"], "recorded reference set-up run")
        (
            s.rec_reference_tables,
            s.rec_reference_comparison,
            s.rec_reference_success_curves,
        ) = summaries(s.rec_reference_trials, s.recorded_reference.budget, REFERENCE)
        s.rec_reference_step_table = step_table(s.rec_reference_steps)
        s.rec_reference_tuning = reference_tunings(
            reference["sweep"], reference["trials"], int(params["seed"]), params
        )
        Ono2020Chapter.load_tuned(
            ctx,
            reference_looks(reference["sweep"], reference["trials"], int(params["seed"]), params),
            reference_rule(int(params["tuning_trials"]), int(params["tuning_submissions"])),
        )

    @staticmethod
    def load_tuned(ctx: Context[OnoState], reference: tuple, rule: str) -> None:
        """The recorded tuning and the arms evaluated at its steps
        (:func:`.tuning.recorded_tuned_run`): tables ``tuning`` (per trial), ``tuning_scores``
        (per arm and step, the chosen steps marked), ``tuned_trials`` (the arms at the steps
        with the most tuning successes, which decide), ``tuned_tables`` (their Tables 1-3) and
        ``tuned_sensitivity`` (the claims whose outcome at the steps of highest mean AUC
        differs, :func:`.claims.sensitivity`); how its arms were tuned
        (:func:`.seeds.tuned_tunings`: looked at on their tuning and on the ``reference``
        set-up's seeds, :func:`.seeds.reference_looks`; the baseline by the reference set-up's
        ``rule``) and its record; each left ``None`` when not recorded."""
        tuned = recorded_tuned_run()
        if tuned is None:
            return
        s = ctx.state
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
        s.tuning = tuned["tuning"]
        s.tuning_scores = scores
        s.tuned_trials = trials
        s.tuned_tables = success_tables(trials, budget, reference=REFERENCE)
        s.tuned_sensitivity = sensitivity(
            ctx,
            TrialData(trials, pd.DataFrame(), budget, REFERENCE, how["successes"]),
            TrialData(by_auc, pd.DataFrame(), budget, REFERENCE, how["auc"]),
        )
        s.tuned_tuning = how["successes"]
        per_arm = trials.groupby(["mechanism", "epsilon"]).size()
        s.recorded_tuned = Recorded(
            record,
            budget,
            f"recorded reference set-up at the steps with the most successes "
            f"on {params['tuning_trials']} tuning trials per step of "
            f"{params['tuning_submissions']:,} submissions, "
            f"{per_arm.min()}-{per_arm.max()} fresh evaluation trials per "
            f"arm, budget {budget:,}, commit {record['git_commit']}",
        )

    def evidence(self, ctx: Context[OnoState]) -> Iterator[Evidence[TrialData]]:
        """The trials and curves the claims are decided on: this run's, the recorded
        paper-profile run's, then the reference set-up's, live and recorded, and the recorded
        arms at the steps with the most tuning successes (no curves: only the claims on its
        arms' trials); each absent when the run has none."""
        s, live = ctx.state, ctx.profile
        yield Evidence(
            LIVE,
            live,
            data=TrialData(s.trials, s.curves, live.n_submissions),
            evidence_lead=f"live {live.profile} run",
        )
        rec = s.recorded
        if rec is not None and s.paper_trials is not None and s.paper_curves is not None:
            data = TrialData(s.paper_trials, s.paper_curves, rec.budget)
            yield recorded_evidence(PAPER_RUN, rec, data)
        if s.reference_trials is not None and s.reference_curves is not None:
            yield Evidence(
                "reference",
                live,
                suffix=ON_REFERENCE,
                prefix=REFERENCE_PREFIX,
                evidence_lead=f"live {live.profile} run, reference set-up",
                data=TrialData(
                    s.reference_trials,
                    s.reference_curves,
                    live.reference_submissions,
                    REFERENCE,
                    s.reference_tuning,
                ),
            )
        rec, trials, curves = s.recorded_reference, s.rec_reference_trials, s.rec_reference_curves
        if rec is not None and trials is not None and curves is not None:
            data = TrialData(trials, curves, rec.budget, REFERENCE, s.rec_reference_tuning)
            yield recorded_evidence(REFERENCE_RUN, rec, data, REFERENCE_PREFIX)
        rec = s.recorded_tuned
        if rec is not None and s.tuned_trials is not None:
            no_curves = pd.DataFrame(columns=["submission"])
            data = TrialData(s.tuned_trials, no_curves, rec.budget, REFERENCE, s.tuned_tuning)
            yield recorded_evidence(TUNED_RUN, rec, data, TUNED_PREFIX)

    def releases(self, ctx: Context[OnoState]) -> Iterator[LedgerEntry]:
        """Every report's local epsilon for both mechanisms at each finite epsilon of the
        profile, and the multi-round extension at 3 reports per agent."""
        for eps in (e for e in ctx.profile.epsilons if math.isfinite(e)):
            yield from laplace_releases(eps)
            yield from prs_releases(eps)
        yield from multi_round_releases()

    def finish(self, ctx: Context[OnoState]) -> None:
        """The numbers the prose reads: this run's CartPole steps per second, its budget and
        trials."""
        trials = ctx.state.trials
        ctx.state.steps_per_s = float(trials.env_steps.sum() / trials.seconds.sum())
        ctx.glue("steps_per_s", ctx.state.steps_per_s)
        ctx.glue("cap", ctx.profile.n_submissions)
        ctx.glue("n_trials", ctx.profile.n_trials)


run = Ono2020Chapter().run
