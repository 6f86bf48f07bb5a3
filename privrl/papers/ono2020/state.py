"""What one run of ono2020 hands from step to step (:class:`OnoState`, ``ctx.state``).

Its data-frame fields are the tables the run returns, by field name: the checks' tables, this
run's Tables 1-3 and Figure 2 on the paper's set-up and on the reference set-up (``reference_*``),
and, when recorded, the paper-profile run (``paper_*``), the reference set-up's paper-profile run
(``rec_reference_*``) and the arms at their tuned steps (``tuning*``, ``tuned_*``). A recorded
run's field is ``None`` when none is committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privrl.chapter.validity import Tuning

#: How each arm of a set-up's trials was tuned, by (mechanism, epsilon) (:mod:`.seeds`).
Tunings = dict[tuple[str, float], Tuning]


@dataclass(frozen=True)
class Recorded:
    """A recorded run the claims are decided on: its run record (the JSON beside its CSVs), the
    budget in submissions its trials ran at and the words naming it in every claim's evidence."""

    record: dict[str, Any]
    budget: int
    source: str

    @property
    def commit(self) -> str:
        """The commit the run was recorded at."""
        return str(self.record["git_commit"])


@dataclass
class OnoState:
    """The state of one ono2020 run: tables by the names the run returns, the recorded runs and
    how the tuned arms were tuned (see the module docstring)."""

    # the checks before the sweep (:mod:`.checks`)
    #: PRS's exact and weakened worst log ratios (Lemma 3).
    prs_ratio: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Both samplers' empirical |log ratio| per output.
    empirical_ldp: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: PRS's measured shrinkage against d_hat tanh(...).
    shrinkage: pd.DataFrame = field(default_factory=pd.DataFrame)
    # this run on the paper's set-up (:mod:`.runs`, :mod:`.tables`)
    #: One row per trial of Tables 1-3.
    trials: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Figure 2's average scores (eq. 25) per submission.
    curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Per-report statistics over training.
    diagnostics: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Tables 1-3 of the trials.
    tables: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Tables 1-3 beside the paper's printed values.
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Figure 3's success ratios per submission.
    success_curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The report statistics' summary (check_failure).
    failure: pd.DataFrame = field(default_factory=pd.DataFrame)
    # this run on the reference set-up (:mod:`.reference`)
    #: Its ablation and evaluation trials.
    reference_trials: pd.DataFrame | None = None
    #: Its Figure 2.
    reference_curves: pd.DataFrame | None = None
    #: Its step sweep's successes per arm and step.
    reference_steps: pd.DataFrame | None = None
    #: Its Tables 1-3.
    reference_tables: pd.DataFrame | None = None
    #: Its Tables 1-3 beside the paper's.
    reference_comparison: pd.DataFrame | None = None
    #: Its Figure 3.
    reference_success_curves: pd.DataFrame | None = None
    #: Its sweep by arm (rows) and step.
    reference_step_table: pd.DataFrame | None = None
    #: How its arms were tuned.
    reference_tuning: Tunings | None = None
    # the recorded paper-profile run (:func:`.recorded.recorded_paper_run`)
    #: Its trials of Tables 1-3.
    paper_trials: pd.DataFrame | None = None
    #: Its Figure 2.
    paper_curves: pd.DataFrame | None = None
    #: Its Tables 1-3.
    paper_tables: pd.DataFrame | None = None
    #: Its Tables 1-3 beside the paper's.
    paper_comparison: pd.DataFrame | None = None
    #: Its Figure 3.
    paper_success_curves: pd.DataFrame | None = None
    #: Its record, budget and words.
    recorded: Recorded | None = None
    # the recorded reference set-up run (:func:`.recorded.recorded_reference_run`)
    #: Its ablation and evaluation trials.
    rec_reference_trials: pd.DataFrame | None = None
    #: Its Figure 2.
    rec_reference_curves: pd.DataFrame | None = None
    #: Its step sweep.
    rec_reference_steps: pd.DataFrame | None = None
    #: Its Tables 1-3.
    rec_reference_tables: pd.DataFrame | None = None
    #: Its Tables 1-3 beside the paper's.
    rec_reference_comparison: pd.DataFrame | None = None
    #: Its Figure 3.
    rec_reference_success_curves: pd.DataFrame | None = None
    #: Its sweep by arm and step.
    rec_reference_step_table: pd.DataFrame | None = None
    #: Its record, budget and words.
    recorded_reference: Recorded | None = None
    #: How its arms were tuned.
    rec_reference_tuning: Tunings | None = None
    # the recorded arms at their tuned steps (:func:`.tuning.recorded_tuned_run`)
    #: The tuning trials.
    tuning: pd.DataFrame | None = None
    #: Per arm and step, the chosen steps marked.
    tuning_scores: pd.DataFrame | None = None
    #: The arms at the steps with most successes.
    tuned_trials: pd.DataFrame | None = None
    #: Their Tables 1-3.
    tuned_tables: pd.DataFrame | None = None
    #: Claims whose outcome the criterion changes.
    tuned_sensitivity: pd.DataFrame | None = None
    #: Its record, budget and words.
    recorded_tuned: Recorded | None = None
    #: How its arms were tuned.
    tuned_tuning: Tunings | None = None
    # the prose's numbers
    #: CartPole steps per second of this run's Tables 1-3.
    steps_per_s: float | None = None
