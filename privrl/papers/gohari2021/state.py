"""Gohari et al. (2021): what one run's steps hand each other (:class:`GohariState`).

The checks (:mod:`~privrl.papers.gohari2021.checks`) fill the theory's tables and the teachers'
privacy; the sweep (:meth:`~privrl.papers.gohari2021.chapter.Gohari2021Chapter.sweep`) fills
Figure 2's tables, its diagnostics and the recorded AirRaid runs; the ledger, the evidence, the
errata and :meth:`~privrl.papers.gohari2021.chapter.Gohari2021Chapter.finish` read them. The
data-frame fields are the tables the run returns, under their field names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TypeVar

import pandas as pd

from privrl.core.accounting.dirichlet import DirichletMechanismEvent
from privrl.papers.gohari2021.recorded import RecordedAnalysis
from privrl.papers.gohari2021.theory import PaperPair

T = TypeVar("T")


def given(value: T | None, what: str) -> T:
    """``value``, set by an earlier step; a ``ValueError`` naming ``what`` when it was not."""
    if value is None:
        raise ValueError(f"{what} is not set: the step that makes it has not run")
    return value


@dataclass(frozen=True)
class TeacherPrivacy:
    """The profile's teacher's per-query privacy at k0 (Theorem 1): certified Lipschitz constant
    ``L``, its ``m`` actions, epsilon of eq. (12) at ``d_q``, the rigorous bound on eq. (6), the
    Monte Carlo cross-check of eq. (6) (``d_q_mc``, 95% upper ``d_q_mc_upper``), the numerically
    maximised log-density ratio of eq. (18) at L b (``sup_ratio``) and the one-answer ``event``."""

    L: float
    m: int
    eps_q: float
    d_q: float
    d_q_mc: float
    d_q_mc_upper: float
    sup_ratio: float
    event: DirichletMechanismEvent


@dataclass(frozen=True)
class AirRaidTeacher:
    """The committed AirRaid teacher: the return of its kept checkpoint in training
    (``air_kept``), its mean return in play against random play's (``air_play``,
    ``air_random``), certified and observed Lipschitz constants (``air_L``, ``air_L_low``), the
    adjacency radius b of the paper's pair with each (``air_b``; ``air_b_raw`` in RAM steps),
    eq. (12) for observations four RAM steps apart (``air_eps4``), its training ``curve``
    (average return by environment step) and the step of the kept checkpoint (``kept_steps``)."""

    air_kept: float
    air_play: float
    air_random: float
    air_L: float
    air_L_low: float
    air_b: float
    air_b_raw: float
    air_eps4: float
    curve: pd.Series
    kept_steps: int

    def glued(self) -> dict[str, float]:
        """The numbers the prose reads, by name: the ``air_*`` fields."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name.startswith("air_")}


@dataclass(frozen=True)
class BallLimits:
    """The ball radius lambda r(k) of Lemma 1 (eq. 15) as k -> 0, where the spent budget takes
    it: the printed radius's ``printed`` = lambda sqrt(log(1/beta)/2) (any m), and each valid
    radius's (by kind: ``"mc"``, ``"union"``) at this run's ``m`` actions (``at_m``) and at
    AirRaid's ``m_airraid`` (``at_airraid``)."""

    printed: float
    m: int
    m_airraid: int
    at_m: dict[str, float]
    at_airraid: dict[str, float]


@dataclass(frozen=True)
class RolloutCost:
    """CPU seconds per roll-out at paper settings (``sec_rollout``), the core-hours of one
    paper-profile run (``hours_run``) and their ``source``: ``"measured"`` by this run or
    ``"recorded"`` (the recorded AirRaid design's)."""

    source: str
    sec_rollout: float
    hours_run: float


@dataclass
class GohariState:
    """One run of the chapter, step to step; ``None`` (or empty): not made by this run."""

    # tables of the checks
    delta_cross_check: pd.DataFrame | None = None  # eq. (6): Monte Carlo, integration, bounds
    eta_family: pd.DataFrame | None = None  # the (eta, tau, L b) giving (4.46, 0.05), over eta
    sensitivity: pd.DataFrame | None = None  # the paper's pair's sensitivity to its constants
    k_grid: pd.DataFrame | None = None  # eq. (12) and (6) over k at the paper's pair
    lemma1: pd.DataFrame | None = None  # Lemma 1's tails by radius, k and policy
    radii: pd.DataFrame | None = None  # ball radius lambda r(k) (eq. 15) by radius over k
    # tables of the sweep
    runs: pd.DataFrame | None = None  # Figure 2's runs, one row per roll-out
    times: pd.DataFrame | None = None  # every run's time to each threshold X_q
    speedup: pd.DataFrame | None = None  # speed-ups against the teacher-sized PPO, by X_q
    budget: pd.DataFrame | None = None  # the teacher's queries and composed budget per run
    final: pd.DataFrame | None = None  # median final return by configuration
    curves: pd.DataFrame | None = None  # Figure 2's smoothed curves with 95% bands
    diagnostics: pd.DataFrame | None = None  # per roll-out diagnostics of the compared arms
    diagnostics_summary: pd.DataFrame | None = None  # their summary, informed and spent roll-outs
    cost: pd.DataFrame | None = None  # roll-outs timed at paper settings (``measure_cost``)
    recorded_diagnostics_summary: pd.DataFrame | None = None  # the recorded design's summary
    # the privacy of the teachers (checks; the ledger reads them)
    pair: PaperPair | None = None  # the stated constants behind the paper's (4.46, 0.05)
    teacher: TeacherPrivacy | None = None  # the profile's teacher at k0
    pair_sup_ratio: float | None = None  # eq. (18) maximised at the paper's pair
    ball_limits: BallLimits | None = None  # lambda r(k) as k -> 0 (erratum random_answers_pull)
    airraid: AirRaidTeacher | None = None  # the committed AirRaid teacher
    # the sweep
    sweep_seconds: float | None = None  # wall time of Figure 2's runs
    references: dict[str, float] = field(default_factory=dict)  # random play's, the teacher's
    thresholds: dict[float, float] = field(default_factory=dict)  # X_q by q
    composed_delta: float | None = None  # largest delta composed over a run (erratum)
    queries: float | None = None  # most queries a run answered (erratum composed_budget)
    diagnostic_labels: list[str] = field(default_factory=list)  # the arms diagnosed
    first_spent: int | None = None  # first roll-out after the c = 0.3 budget
    after_budget_finding: str = ""  # the paragraph stating the diagnostics after the budget
    penalised_after: dict[str, float] = field(default_factory=dict)  # by arm: "aware", "union"
    recorded: RecordedAnalysis | None = None  # the recorded AirRaid design
    recorded_finding: str = ""  # the after-budget paragraph on the recorded design
    recorded_penalised_after: dict[str, float] = field(default_factory=dict)  # as above, on it
    horizon: RecordedAnalysis | None = None  # the record of the deciding arms at 4,000 roll-outs
    rollout_cost: RolloutCost | None = None  # the paper profile's cost (``finish``)


__all__ = [
    "AirRaidTeacher",
    "BallLimits",
    "GohariState",
    "RolloutCost",
    "TeacherPrivacy",
    "given",
]
