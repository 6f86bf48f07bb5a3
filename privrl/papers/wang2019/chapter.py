r"""Wang and Hegde (2019): the chapter, on the :class:`~privrl.chapter.skeleton.Chapter` skeleton.

``run(WangProfile.quick())`` regenerates the chapter: the sample-path checks (covariance, Lemma 8,
Lemma 6, Proposition 9's scaling), Proposition 10's simulation and its cause, the calibration
table (Theorem 5 for the noisy updates actually performed, every baseline under its stated
neighbouring relation; :mod:`~privrl.papers.wang2019.checks`), Figures 1 and 2 through
:func:`privrl.chapter.sweep.run_sweep` (:meth:`Wang2019Chapter.sweep`), one ledger entry per
(epsilon, delta) with its event (:meth:`Wang2019Chapter.releases`; output perturbation: no
guarantee), the claims decided on the paper's metric (the training return) with the released
function's greedy return beside them, and the errata (:mod:`~privrl.papers.wang2019.claims`).
Steps pass their values through :class:`~privrl.papers.wang2019.state.WangState`, whose tables
the run returns.

``python -m privrl.papers.wang2019.chapter`` records the paper-profile curves
(:func:`record_paper_curves`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.records import (
    RunRecord,
    code_dirty,
    current_commit,
    find_root,
    record_path,
)
from privrl.chapter.skeleton import Chapter, Context
from privrl.chapter.sweep import run_sweep
from privrl.core.accounting.events import NoGuarantee
from privrl.papers.wang2019.checks import CHECKS, SWEEP_CHECKS
from privrl.papers.wang2019.claims import (
    CLAIMS,
    ERRATA,
    PAIR,
    Curves,
    paper_record,
    seconds_per_trial,
)
from privrl.papers.wang2019.pair import read_pair
from privrl.papers.wang2019.profile import CURVES_CSV, PAPER, WangProfile
from privrl.papers.wang2019.runs import (
    curves_table,
    figure1_configs,
    figure2_configs,
    run_learning_curve,
    write_paper_curves,
)
from privrl.papers.wang2019.sources import PAIR_RUN, PAPER_RUN, SOURCES
from privrl.papers.wang2019.state import WangState

#: The Audits chapter's audit of each method's release (privrl.papers.audits); output
#: perturbation has none.
AUDITS = {
    "functional": "audits:gp_update",
    "input": "audits:input_perturbation",
    "dpsgd": "audits:dpsgd_run",
}


#: Why output perturbation's release has no guarantee under neighbouring reward functions.
OUTPUT_REASON = (
    "i.i.d. noise is drawn afresh for every queried Q value: only each queried value is private; "
    "the released Q function is not (queried at many states, or at one state many times, its "
    "noise averages out)"
)


#: What Algorithm 1's epsilon rests on (erratum ``update_premise``), and what the runs' updates
#: were measured to do against it, by calibration (the method of the calibration table's row).
UPDATE_PREMISE = (
    "; the epsilon rests on Lemma 6's premise that one update moves Q by at most "
    "v L (an SGD step of rate alpha, L fixed), which the runs' RMSprop steps do not "
    "meet: {measured} (erratum update_premise)"
)
MEASURED = {
    "functional": "not established for them, though the first update at this target, measured "
    "with the quick profile's other settings, stays within sqrt(C)",
    "functional (T/B)": "the first update at this target, measured with the quick profile's "
    "other settings, moves Q beyond sqrt(C)",
}


def no_guarantee(entry: LedgerEntry) -> LedgerEntry:
    """Output perturbation's entry as what it is: no finite guarantee for the released Q function
    under neighbouring reward functions (epsilon = inf, event ``NoGuarantee``); the calibrated
    (epsilon, delta) and its cross-check, which cover each queried value alone, are kept in
    ``private_under`` and in the cross-check's method."""
    per_value = (
        f"{entry.relation} {entry.unit}, for each queried Q value alone (epsilon = "
        f"{entry.epsilon:.3g}, delta = {entry.delta:g} per value over "
        f"{entry.compositions} updates); not for the released Q function"
    )
    check = CrossCheck(
        entry.cross_check.kind,
        "none for the released Q function; the per-value "
        f"calibration's {entry.cross_check.method} gives epsilon "
        f"{entry.cross_check.epsilon:.3g} for each queried value",
    )
    return replace(
        entry,
        event=NoGuarantee(OUTPUT_REASON),
        accountant=f"none applies (per queried value: {entry.accountant})",
        cross_check=check,
        private_under=per_value,
    )


class Wang2019Chapter(
    Chapter,
    name=PAPER,
    profile_type=WangProfile,
    checks=CHECKS,
    sweep_checks=SWEEP_CHECKS,
    claims=CLAIMS,
    errata=ERRATA,
    sources=SOURCES,
    state_type=WangState,
):
    """Wang and Hegde (2019), privacy-preserving Q-learning with functional noise."""

    def prepare(self, ctx: Context[WangState]) -> None:
        """Read the recorded paper-profile run, if any (:func:`~privrl.papers.wang2019.claims.
        paper_record`): its curves are decided beside this run's and the notebook shows it."""
        ctx.state.paper_record = paper_record()

    def sweep(self, ctx: Context[WangState]) -> None:
        """Figures 1 and 2 (every method with its calibrated noise) and the curves table."""
        p = ctx.profile
        options = ctx.sweep_options
        t0 = time.perf_counter()
        fig1 = run_sweep(
            run_learning_curve,
            figure1_configs(p),
            p.n_trials,
            p.seed,
            desc="wang2019 figure 1",
            **options,
        )
        fig2 = run_sweep(
            run_learning_curve,
            figure2_configs(p, ctx.state.privacy),
            p.n_trials,
            p.seed,
            desc="wang2019 figure 2",
            **options,
        )
        ctx.glue("sweep_seconds", time.perf_counter() - t0)
        ctx.state.figure1, ctx.state.figure2 = fig1, fig2
        ctx.state.curves = curves_table(fig1, fig2)

    def releases(self, ctx: Context[WangState]) -> Iterator[LedgerEntry]:
        """One entry per row of the calibration table: the Q function trained by that method at
        that target epsilon, with the row's event and cross-check; output perturbation's entries
        say "no guarantee" (:func:`no_guarantee`); Algorithm 1's accountant says which premise its
        epsilon rests on and that the runs do not meet it (:data:`UPDATE_PREMISE`)."""
        for row in ctx.state.privacy.itertuples():
            noise, accountant = f"{row.parameter} = {row.value:.4g}", row.accountant
            if row.method.startswith("functional"):
                noise += (
                    f", gp_beta = {row.gp_beta:.3g}, k = {row.k}, calibrated for "
                    f"{row.calibrated_updates} updates; {row.compositions} performed"
                )
                accountant += UPDATE_PREMISE.format(measured=MEASURED[row.method])
            relation, unit = row.relation.split(" ", 1)
            entry = LedgerEntry(
                paper=PAPER,
                release=f"Q function trained by {row.method} (Figure 2, target epsilon "
                f"{row.epsilon_target:g})",
                mechanism=row.mechanism,
                relation=relation,
                unit=unit,
                noise=noise,
                delta=float(row.delta),
                compositions=int(row.compositions),
                accountant=accountant,
                event=row.event,
                cross_check=row.cross_check,
                audit=AUDITS.get(row.method.split()[0], ""),
            )
            yield no_guarantee(entry) if row.method == "output" else entry

    def evidence(self, ctx: Context[WangState]) -> Iterable[Evidence[Curves] | None]:
        """This run's curves; beside a run of another profile, the recorded paper-profile
        curves, missing trials priced with that run's timing (:func:`seconds_per_trial`); and
        the recorded pair (:mod:`~privrl.papers.wang2019.pair`, claims
        :data:`~privrl.papers.wang2019.claims.ON_PAIR`)."""
        yield Evidence(LIVE, ctx.profile, data=Curves(ctx.state.curves))
        record, paper = ctx.state.paper_record, WangProfile.paper()
        if record is not None and ctx.profile.profile != paper.profile:
            yield Evidence(
                paper.profile,
                paper,
                record.run.commit,
                Curves(record.curves, seconds_per_trial(record.curves, record.run.record)),
                suffix=PAPER_RUN.suffix,
                source_note=" (recorded paper-profile run)",
            )
        pair = read_pair()
        if pair is not None:
            curves, run = pair
            seeds = curves.seed.nunique()
            yield Evidence(
                PAIR,
                paper,
                run.commit,
                Curves(curves, seconds_per_trial(curves, run.record)),
                evidence_lead=f"recorded pair at {seeds} seeds per arm (the paper profile's "
                f"set-up), commit {run.commit}",
                suffix=PAIR_RUN.suffix,
                source_note=f" (recorded pair, {seeds} seeds per arm)",
            )


run = Wang2019Chapter().run


def record_paper_curves(
    executor: Executor | str | None = "serial", cache_dir: str | Path | None = None
) -> Path:
    """Run the paper profile (10 seeds, 100 episodes, six amplitudes, Figure 2 at both epsilons),
    write :data:`~privrl.papers.wang2019.profile.CURVES_CSV` into the book's results folder and
    the run record (:class:`~privrl.chapter.records.RunRecord`) to ``book/measurements/``."""
    root = find_root()
    commit = current_commit(root)
    dirty = code_dirty(root)
    started = time.perf_counter()
    result = run(WangProfile.paper(), executor=executor, cache_dir=cache_dir, progress=True)
    csv = write_paper_curves(result.table("curves"))
    record = RunRecord.now(
        notebook=PAPER,
        profile="paper",
        parameters={"executor": str(executor), "cache_dir": str(cache_dir), "profile": "paper"},
        wall_time_s=time.perf_counter() - started,
        git_commit=commit,
        git_dirty=dirty,
        files=[CURVES_CSV],
        command="python -m privrl.papers.wang2019.chapter",
        produced_by=["privrl.papers.wang2019.runs", "privrl.papers.wang2019.calibration"],
    )
    record.write(record_path(root, PAPER, "paper"))
    return csv


if __name__ == "__main__":
    print(record_paper_curves(cache_dir=".cache/wang2019-paper"))
