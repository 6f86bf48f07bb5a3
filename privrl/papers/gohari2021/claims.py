"""Gohari et al. (2021): the paper's claims (:data:`CLAIMS`) and the chapter's errata (:data:`ERRATA`).

Every claim is decided on an :class:`~privrl.chapter.evidence.Evidence` whose data are
:class:`Runs`: this run's Figure 2 runs, and, keyed ``<key><suffix>``
(:mod:`~privrl.papers.gohari2021.sources`), each recorded AirRaid run (the design, the record at
the paper's horizon), stamped with that record's profile, commit and scale. The rules:

* a speed-up (:func:`faster`, :func:`decide_speedup`): the exact rank interval of the ratio of
  times to converge at X_0.5 against 1 ("no effect") or, for "roughly 4 times", half the stated
  magnitude, 2; decided again at X_0.75 on the same runs and stated beside it; untestable where
  random play reaches the threshold (:func:`random_play_condition`);
* an end-of-run comparison (:func:`ends`, :func:`less_variable`): the difference of median final
  returns (or of absolute deviations from the median) against 0, "no effect";
* the budget (:func:`decide_budget`): the exact count of data-dependent queries past the
  schedule's allowance against "none".

The statements name the paper's (64, 64) teacher-sized and (32, 32) student-sized agents (Section
5); the decisions compare the profile's ``teacher_hidden`` and ``student_hidden`` agents.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrl.chapter.evidence import Evidence
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.tables import format_number
from privrl.chapter.validity import threshold_beyond_random_play
from privrl.chapter.verdicts import (
    MIN_TRIALS,
    Claim,
    Count,
    Outcome,
    Sample,
    Threshold,
    Validity,
    decide_difference,
    decide_interval,
    decide_proportions,
    refusal,
    untestable,
)
from privrl.papers.gohari2021.curves import final_returns, time_to_threshold
from privrl.papers.gohari2021.diagnostics import UNION
from privrl.papers.gohari2021.profile import AWARE, DESIGN_ROLLOUTS, UNAWARE, GohariProfile
from privrl.papers.gohari2021.recorded import (
    DESIGN,
    HORIZON,
    QUERY_COLUMNS,
    RECORD_WORDS,
    RecordedAnalysis,
)
from privrl.papers.gohari2021.runs import after_budget_label
from privrl.papers.gohari2021.sources import DESIGN_RUN, HORIZON_RUN
from privrl.papers.gohari2021.state import GohariState, given

#: The paper's "roughly 4 times faster" (Section 5, Figure 2c; Section 1) and the fraction of it a
#: speed-up must exceed for the claim to be reproduced ("roughly": half the stated magnitude).
PAPER_SPEEDUP, SPEEDUP_FRACTION = 4.0, 0.5
#: Where the speed-up threshold of "no effect" comes from.
NO_SIZE = "1: no effect, the paper states no size"
#: The thresholds q of X_q a speed-up is decided at: the headline X_0.5, whose verdict is the
#: claim's (and is counted), and X_0.75, decided on the same runs and shown beside it (in the
#: claim's reason, never counted). X_0.25 decides nothing where random play reaches it
#: (:func:`random_play_condition`).
HEADLINE_Q, SECOND_Q = 0.5, 0.75


@dataclasses.dataclass(frozen=True)
class Runs:
    """What a claim is decided on: Figure 2's runs (tidy, one row per roll-out), their speed-up
    table (``None``: not computed), the teacher's answered queries against its allowance
    (``None``: a record without them) and the returns of random play and the teacher the
    thresholds were placed between (:func:`~privrl.papers.gohari2021.runs.measure_references`;
    needed with a speed-up table); ``recorded``: the runs of a recorded AirRaid run, not this
    run's."""

    runs: pd.DataFrame
    speedup: pd.DataFrame | None
    queries: pd.DataFrame | None
    references: dict[str, float] | None = None
    recorded: bool = False

    def arm(self, label: str) -> np.ndarray:
        """Final returns (:func:`~privrl.papers.gohari2021.curves.final_returns`) of ``label``'s runs."""
        fin = final_returns(self.runs)
        return fin.loc[fin["label"] == label, "avg_return"].dropna().to_numpy(float)

    def at(self, treated: str, q: float = HEADLINE_Q) -> dict[str, Any] | None:
        """The speed-up of ``treated`` at threshold X_q (``None``: not run at that threshold)."""
        if self.speedup is None or self.speedup.empty:
            return None
        rows = self.speedup[(self.speedup["q"] == q) & (self.speedup["treated"] == treated)]
        return None if rows.empty else rows.iloc[0].to_dict()


#: A claim's decider: its outcome on the evidence's :class:`Runs` (``None``: nothing to decide).
Decide = Callable[[Context[Any], Evidence[Runs]], Outcome | None]

#: The evidence source of each record (by the record's profile name).
RECORD_SOURCES = {DESIGN: DESIGN_RUN, HORIZON: HORIZON_RUN}


def on_record(rec: RecordedAnalysis) -> Evidence[Runs]:
    """A recorded AirRaid run as the evidence of claims keyed ``<key><suffix>`` (its source in
    :data:`RECORD_SOURCES`), stamped with the record's profile name and stating its scale."""
    if rec.name not in RECORD_SOURCES:
        raise ValueError(f"unknown record {rec.name!r}: one of {sorted(RECORD_SOURCES)}")
    source = RECORD_SOURCES[rec.name]
    return Evidence(
        source.name,
        rec.profile,
        rec.commit,
        evidence_lead=rec.source,
        suffix=source.suffix,
        source_note=f" (on the {RECORD_WORDS[rec.name]}: {rec.scale})",
        data=Runs(rec.runs, rec.speedup, rec.queries, rec.references, recorded=True),
        record=rec.name,
        scale=rec.scale,
    )


def fewest_episodes(profile: GohariProfile) -> int:
    """The fewest episodes a full smoothing window of ``profile`` averages over: each of its
    ``n_envs`` environments plays ``smoothing_window * steps_per_epoch / n_envs`` steps in a
    window and an episode lasts at most ``max_episode_steps``; 1 without a cap."""
    if profile.max_episode_steps is None:
        return 1
    per_env = profile.smoothing_window * profile.steps_per_epoch // profile.n_envs
    return max(1, per_env // profile.max_episode_steps * profile.n_envs)


def random_play_condition(
    threshold: float, references: dict[str, float], profile: GohariProfile
) -> Outcome | None:
    """Validity condition 1 (:func:`~privrl.chapter.validity.threshold_beyond_random_play`) for
    a time to ``threshold``: random play's measured ``references`` (mean ``random``, standard
    error ``random_se`` over ``episodes`` episodes), smoothed over :func:`fewest_episodes` of
    ``profile``, must not reach it in one window (time to converge credits a run only if its
    smoothed return holds the threshold to the end, so random play would have to reach it in
    its last window)."""
    n = int(references["episodes"])
    return threshold_beyond_random_play(
        threshold,
        references["random"],
        references["random_se"] * np.sqrt(n),
        n,
        fewest_episodes(profile),
    )


def decide_speedup(
    result: dict[str, Any],
    threshold: float = 1.0,
    note: str = NO_SIZE,
    min_trials: int = MIN_TRIALS,
    times: pd.DataFrame | None = None,
    validity: Validity = (),
) -> Outcome:
    """ "``treated`` converges at least ``threshold`` times sooner than ``baseline``", by
    :func:`~privrl.chapter.verdicts.decide_interval` on the exact rank interval of the ratio of
    times to converge (:func:`~privrl.papers.gohari2021.curves.speedup`, direction greater).

    Censored runs widen that interval without bound, so ``times`` (every run's time to converge,
    :func:`~privrl.papers.gohari2021.curves.time_to_threshold`) also decides a necessary
    condition: if ``treated`` converged ``threshold`` times sooner (times scaled by
    1/``threshold``), at least as large a share of its runs would converge within budget /
    ``threshold`` as of ``baseline``'s within the budget; a Newcombe 95% interval of the
    difference of the two shares entirely below 0 makes the claim not reproduced. Untestable
    on a failed ``validity`` condition (e.g. :func:`random_play_condition`), with fewer than
    ``min_trials`` seeds per arm, when the seeds cannot give a 95% rank interval, or when every
    run of both arms is censored. ``note`` says where the threshold comes from."""
    n = result["n"]
    name = (
        f"time ({result['baseline']}) / time ({result['treated']}) to converge "
        "(Hodges-Lehmann, log scale)"
    )
    evidence = (
        f"threshold {threshold:g} ({note}); censored runs (never converged): "
        f"{result['censored_baseline']} of {result['baseline']}, "
        f"{result['censored_treated']} of {result['treated']}"
    )
    refused = refusal(validity, n, evidence, statistic=name)
    if refused is not None:
        return refused
    if n < min_trials:
        return untestable(f"too few seeds (fewer than {min_trials} per arm)", n, evidence)
    if result["censored_baseline"] == result["censored_treated"] == n:
        return untestable("no run of either arm converged to the threshold", n, evidence)
    if times is not None:
        budget = float(times["steps"].max())
        base = times[times["label"] == result["baseline"]]
        treated = times[times["label"] == result["treated"]]
        k_b = int((~base["censored"]).sum())
        k_t = int(((~treated["censored"]) & (treated["steps"] <= budget / threshold)).sum())
        necessary = decide_proportions(
            Count(
                k_t,
                len(treated),
                f"{result['treated']} converged within {budget / threshold:,.0f} steps",
            ),
            Count(k_b, len(base), f"{result['baseline']} within {budget:,.0f}"),
            Threshold(0.0, "greater"),
            evidence=evidence,
        )
        if necessary.verdict == "not reproduced":
            return necessary
    if np.isnan(result["lower"]):
        return untestable("too few seeds for a 95% rank interval", n, evidence)
    return decide_interval(
        name,
        result["ratio"],
        (result["lower"], result["upper"]),
        n,
        Threshold(threshold, "greater"),
        evidence=evidence,
    )


def profile_of(ev: Evidence[Runs]) -> GohariProfile:
    """The profile the evidence's runs were made at (a :class:`GohariProfile`; an error
    otherwise)."""
    if not isinstance(ev.profile, GohariProfile):
        raise TypeError(f"gohari2021 evidence at a {type(ev.profile).__name__}")
    return ev.profile


def on_design(decide: Decide, headline: bool) -> Decide:
    """``decide``, except on a recorded run shorter than the design (:data:`DESIGN_ROLLOUTS`),
    where a ``headline`` claim that ``decide`` finds data for is untestable and any other is
    not decided."""

    def run(ctx: Context[Any], ev: Evidence[Runs]) -> Outcome | None:
        outcome, profile = decide(ctx, ev), profile_of(ev)
        if outcome is None or not (ev.data.recorded and profile.epochs < DESIGN_ROLLOUTS):
            return outcome
        if not headline:
            return None
        return untestable(
            f"shortened record: {profile.epochs} roll-outs, fewer than the "
            f"{DESIGN_ROLLOUTS} of the design",
            profile.n_trials,
        )

    return run


def faster(treated: str, threshold: float = 1.0, note: str = NO_SIZE) -> Decide:
    """``treated`` reaches X_0.5 faster than the teacher-sized PPO (:func:`decide_speedup`),
    where random play does not reach X_0.5 (:func:`random_play_condition`), and the same at
    X_0.75 where the run has it, on the same runs: the X_0.5 outcome is the claim's, with the
    X_0.75 one stated after its reason (:func:`beside`); nothing on a run without
    ``treated``."""

    def at(ev: Evidence[Runs], result: dict[str, Any]) -> Outcome:
        if ev.data.references is None:
            raise ValueError(
                "a speed-up needs the returns of random play its thresholds sit "
                "above (Runs.references)"
            )
        profile = profile_of(ev)
        times = time_to_threshold(ev.data.runs, result["threshold"], profile.smoothing_window)
        valid = random_play_condition(result["threshold"], ev.data.references, profile)
        return decide_speedup(result, threshold, note, times=times, validity=[valid])

    def decide(ctx: Context[Any], ev: Evidence[Runs]) -> Outcome | None:
        head = ev.data.at(treated)
        if head is None:
            return None
        outcome = at(ev, head)
        second = ev.data.at(treated, SECOND_Q)
        if second is None:
            return outcome
        return dataclasses.replace(
            outcome, reason=f"{outcome.reason}; {beside(SECOND_Q, at(ev, second))}"
        )

    return decide


def beside(q: float, outcome: Outcome) -> str:
    """A speed-up decided at a second threshold X_``q``, as the headline claim states it after
    its own reason: "at X_0.75 (shown, not counted): <verdict>, <statistic> = <value>, 95%
    interval [lo, hi]: <reason>" (an open end "unbounded")."""
    text = f"at X_{q:g} (shown, not counted): {outcome.verdict}"
    if outcome.value is not None and outcome.interval is not None:
        ends = ", ".join(
            "unbounded" if np.isinf(x) else format_number(float(x)) for x in outcome.interval
        )
        text += (
            f", {outcome.statistic} = {format_number(float(outcome.value))}, 95% interval [{ends}]"
        )
    return f"{text}: {outcome.reason}"


def ends(
    a: str,
    b: str | None,
    direction: Literal["less", "greater"],
    label_a: str,
    label_b: str | None = None,
    evidence: str = "",
) -> Decide:
    """``a``'s median final return is above (``direction="greater"``) or below ``b``'s; ``b``
    ``None`` is the student-sized plain PPO; nothing when the run lacks either arm (label)."""

    def decide(ctx: Context[Any], ev: Evidence[Runs]) -> Outcome | None:
        other = profile_of(ev).baseline_labels()[1] if b is None else b
        if not {a, other} <= set(ev.data.runs["label"]):
            return None
        return decide_difference(
            Sample(ev.data.arm(a), label_a),
            Sample(ev.data.arm(other), label_b or other),
            Threshold(0.0, direction),
            statistic="median",
            evidence=evidence,
        )

    return decide


def small_below_big(ctx: Context[Any], ev: Evidence[Runs]) -> Outcome | None:
    """Figure 2(a)'s premise: the student-sized plain PPO ends below the teacher-sized one."""
    big, small = profile_of(ev).baseline_labels()
    return ends(small, big, "less", small, big)(ctx, ev)


def less_variable(a: str, b: str | None, label_b: str) -> Decide:
    """``a``'s final returns vary less from run to run than ``b``'s (``None``: the
    teacher-sized plain PPO): the Hodges-Lehmann shift of the absolute deviations from each
    arm's median (the Brown-Forsythe reading of a spread) below 0, with its exact rank
    interval; nothing when the run lacks either arm."""

    def decide(ctx: Context[Any], ev: Evidence[Runs]) -> Outcome | None:
        other = profile_of(ev).baseline_labels()[0] if b is None else b
        if not {a, other} <= set(ev.data.runs["label"]):
            return None
        spread = [np.abs(x - np.median(x)) for x in (ev.data.arm(a), ev.data.arm(other))]
        return decide_difference(
            Sample(spread[0], f"|deviation| ({a})"),
            Sample(spread[1], f"|deviation| ({label_b})"),
            Threshold(0.0, "less"),
            statistic="median",
            evidence="threshold 0 (no effect): the paper states no size; "
            "absolute deviations of final returns from each arm's "
            "median",
        )

    return decide


def query_budget(queries: pd.DataFrame) -> pd.DataFrame:
    """Per private run (finite, positive allowance; ``queries``: cumulative per roll-out, as
    :func:`~privrl.papers.gohari2021.runs.query_table` gives them), one row: ``label``,
    ``seed``, the data-dependent queries it ``answered``, its ``allowance`` and the queries it
    answered ``beyond allowance``: in each roll-out beyond that roll-out's allowance, summed (a
    query answered late counts even if earlier ones were not asked). Empty without a private
    run."""
    queries = queries.sort_values(["label", "seed", "epoch"])
    keys = [queries["label"], queries["seed"]]
    counts = queries[["queries", "queries_allowed"]]
    per_rollout = counts.groupby(keys, sort=False).diff().fillna(counts)  # first roll-out: itself
    beyond = (per_rollout["queries"] - per_rollout["queries_allowed"]).clip(lower=0.0)
    runs = pd.DataFrame(
        {
            "answered": queries.groupby(keys, sort=False)["queries"].max(),
            "allowance": queries.groupby(keys, sort=False)["queries_allowed"].max(),
            "beyond allowance": beyond.groupby(keys, sort=False).sum(),
        }
    ).reset_index()
    private = np.isfinite(runs["allowance"]) & (runs["allowance"] > 0)
    return runs[private].reset_index(drop=True)


def decide_budget(queries: pd.DataFrame) -> Outcome:
    """The teacher answers no query from its data beyond the schedule's allowance, in any
    private run: the largest of :func:`query_budget`'s queries ``beyond allowance`` over runs,
    an exact count (the interval is the value itself), against the paper's "no query"
    (threshold 0.5 on an integer count: none), by
    :func:`~privrl.chapter.verdicts.decide_interval`."""
    runs = query_budget(queries)
    if runs.empty:
        return untestable("no private run (no teacher with a budget)")
    worst = float(runs["beyond allowance"].max())
    return decide_interval(
        "largest number of data-dependent queries a run answered beyond its roll-outs' "
        "allowances (exact count over every private run)",
        worst,
        (worst, worst),
        len(runs),
        Threshold(0.5, "less"),
        detail="threshold 0.5 on an integer count: no query after the budget",
        evidence=f"queries answered from the teacher's data per run: "
        f"{runs['answered'].min():.0f} to {runs['answered'].max():.0f}, allowance "
        f"{runs['allowance'].min():.0f} to {runs['allowance'].max():.0f}",
    )


def budget_respected(ctx: Context[Any], ev: Evidence[Runs]) -> Outcome:
    """:func:`decide_budget` on the evidence's queries (counted as the teacher answers them);
    untestable, saying so, on a record without them."""
    if ev.data.queries is None:
        return untestable(
            f"the recorded curves have no {' / '.join(QUERY_COLUMNS)} columns "
            "(recorded before the recorder wrote them): the queries the teacher "
            "answered are not in the record",
            profile_of(ev).n_trials,
        )
    return decide_budget(ev.data.queries)


#: The c = 0.3 aware student's arms after its budget: (a) random answers, (b) a silent teacher
#: (no targets, no penalty), and the reading under which spent answers cannot harm.
SILENT = after_budget_label("silent")
_SILENT_READING = (
    "threshold 0 (no effect): the paper states no size; arm (b) is the reading "
    "under which spent answers cannot harm"
)
BEYOND = "Beyond the paper: "
_ON_UNION = (
    "with the union radius of Lemma 1 (arm c, the correction of erratum "
    "random_answers_pull: its ball covers the simplex at vanishing k), "
)
_AWARE_VS_UNAWARE = (
    "Section 5, fourth experiment, Figure 2(c) and (d): 'the privacy-unaware "
    "students perform significantly worse'"
)
_RESULT_II = (
    "Abstract, empirical result (ii): 'the student converges to a performance level "
    "that was not possible without the demonstrations'"
)
_VARIANCE = (
    "Section 5, second experiment: 'the run-to-run variance of the kickstarting "
    "algorithm is significantly lower than the teacher and the student who does not "
    "benefit from kickstarting'"
)
_REMARK = (
    "Section 4, Remark: 'the objective of the student will completely disregard the "
    "teacher demonstrations by (16) ... the teachers can generate completely random "
    "policies under (0, 0)-differential privacy without harming the student's "
    "performance'"
)

#: The paper's claims, then, beyond the paper, three of the aware student's claims on arm (c),
#: the union radius (rows keyed ``<key>_union_beyond`` beside the paper's verdicts, never in their
#: place). Each is decided on this run and on each recorded AirRaid run (keys ``<key><suffix>``).
# Paper order (by where the paper makes each): Abstract (result ii); Section 4, Remark (random
# answers harmless; k = 0 once the budget is spent); Section 5, experiments one to four (Figure
# 2a, 2b, 2c, 2d); the beyond rows in the order of the claims they repeat.
CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "aware_beats_small_ppo",
        "The privacy-aware student (c = 0.3) ends above plain PPO (32, 32) (result ii)",
        _RESULT_II,
        on_design(ends(AWARE, None, "greater", "aware"), headline=False),
    ),
    ClaimSpec(
        "random_answers_harmless",
        "Once its budget is spent, the teacher's random answers do not harm the "
        "privacy-aware student (c = 0.3): it ends no lower than the same student whose "
        "teacher falls silent (difference of median final returns against 0)",
        _REMARK,
        on_design(
            ends(AWARE, SILENT, "greater", "random answers", "silent", _SILENT_READING),
            headline=False,
        ),
    ),
    ClaimSpec(
        "budget_respected",
        "The teacher stops answering from its data once its budget is spent (vanishing k, "
        "Section 4)",
        "Section 4, Remark: 'the teachers can decrease k according to their privacy budget "
        "and set k = 0 once they expend their budget'",
        budget_respected,
    ),
    ClaimSpec(
        "small_ppo_below_teacher_sized",
        "Plain PPO (32, 32) ends below plain PPO (64, 64), the teacher's size (Fig. 2a)",
        "Section 5, first experiment, Figure 2(a): 'the agent with a smaller hidden layer "
        "performs worse than the other agent'",
        on_design(small_below_big, headline=False),
    ),
    ClaimSpec(
        "speedup_kickstarting",
        "Kickstarting (no privacy) reaches X_0.5 faster than the teacher-sized PPO (64, 64) "
        "(Fig. 2b)",
        "Section 5, second experiment, Figure 2(b): 'a significant improvement in the "
        "students' sample efficiency'",
        on_design(faster("kickstarting"), headline=True),
    ),
    ClaimSpec(
        "kickstarting_less_variable_than_teacher_sized",
        "The final returns of kickstarting vary less from run to run than those of plain "
        "PPO (64, 64) (Fig. 2b)",
        _VARIANCE,
        on_design(less_variable("kickstarting", None, "PPO (64, 64)"), headline=False),
    ),
    ClaimSpec(
        "kickstarting_less_variable_than_small_ppo",
        "The final returns of kickstarting vary less from run to run than those of plain "
        "PPO (32, 32), the student without kickstarting (Fig. 2b)",
        _VARIANCE,
        on_design(less_variable("kickstarting", "PPO (32, 32)", "PPO (32, 32)"), headline=False),
    ),
    ClaimSpec(
        "speedup_aware",
        "The privacy-aware student (c = 0.3) reaches X_0.5 faster than the teacher-sized "
        "PPO (64, 64): 'roughly 4 times'; decided at half that magnitude, at least 2 times",
        "Section 5, third experiment, Figure 2(c): 'Both agents converge roughly 4 times "
        "faster than the teacher' (also Section 1: 'roughly 4-times faster')",
        on_design(
            faster(
                AWARE,
                PAPER_SPEEDUP * SPEEDUP_FRACTION,
                f"{PAPER_SPEEDUP * SPEEDUP_FRACTION:g}: half the paper's 'roughly 4 times'",
            ),
            headline=True,
        ),
    ),
    ClaimSpec(
        "lower_coefficient_worse",
        "The privacy-aware student with the lower vanishing coefficient (c = 0.1) ends below "
        "the one with c = 0.3 (Fig. 2c)",
        "Section 5, third experiment: 'kickstarting with a lower vanishing coefficient "
        "consumes a lower privacy budget and the resulting student has a lower performance'",
        on_design(
            ends("aware, c = 0.1", AWARE, "less", "aware, c = 0.1", "aware, c = 0.3"),
            headline=False,
        ),
    ),
    ClaimSpec(
        "aware_beats_unaware",
        "At equal budget (c = 0.3) the privacy-aware student ends above the privacy-unaware "
        "one (Fig. 2c, d)",
        _AWARE_VS_UNAWARE,
        on_design(ends(AWARE, UNAWARE, "greater", "aware", "unaware"), headline=True),
    ),
    ClaimSpec(
        "unaware_below_small_ppo",
        "The privacy-unaware student (c = 0.3) ends below plain PPO (32, 32) (Fig. 2d)",
        "Section 5, fourth experiment, Figure 2(d): 'the students perform worse than the "
        "baseline PPO agents that do not use kickstarting at all'",
        on_design(ends(UNAWARE, None, "less", "unaware"), headline=False),
    ),
    ClaimSpec(
        "aware_beats_small_ppo_union_beyond",
        BEYOND + _ON_UNION + "the privacy-aware student (c = 0.3) ends above plain PPO (32, 32)",
        _RESULT_II,
        on_design(ends(UNION, None, "greater", "aware (union radius)"), headline=False),
    ),
    ClaimSpec(
        "random_answers_harmless_union_beyond",
        BEYOND + _ON_UNION + "the teacher's random answers after its budget do not harm "
        "the privacy-aware student (c = 0.3): it ends no lower than the same student whose "
        "teacher falls silent",
        _REMARK,
        on_design(
            ends(UNION, SILENT, "greater", "random answers (union radius)", "silent"),
            headline=False,
        ),
    ),
    ClaimSpec(
        "aware_beats_unaware_union_beyond",
        BEYOND + _ON_UNION + "the privacy-aware student (c = 0.3) ends above the "
        "privacy-unaware one",
        _AWARE_VS_UNAWARE,
        on_design(
            ends(UNION, UNAWARE, "greater", "aware (union radius)", "unaware"), headline=False
        ),
    ),
)


def _penalised_fractions(fractions: dict[str, float]) -> str:
    """ "x (Monte Carlo radius), y (union radius)" from ``fractions["aware"]`` and
    ``fractions["union"]`` (each named only when finite; empty without the first)."""
    aware, union = fractions.get("aware", np.nan), fractions.get("union", np.nan)
    if not np.isfinite(aware):
        return ""
    return f"{aware:.2f} (Monte Carlo radius)" + (
        f", {union:.2f} (union radius)" if np.isfinite(union) else ""
    )


def _random_answers_evidence(ctx: Context[GohariState]) -> str:
    """The limits of the printed and Monte Carlo ball radii and, when the run (and the recorded
    AirRaid run) has roll-outs after the c = 0.3 budget, the fraction of random answers still
    penalised (mc against union radius)."""
    s = ctx.state
    v = given(s.ball_limits, "the ball radii's limits")
    text = (
        f"lambda r(k) -> lambda sqrt(log(1/beta)/2) = {v.printed:.2f} < 1.41 as k -> 0 "
        f"(printed); the Monte Carlo radius gives {v.at_m['mc']:.2f}, the union radius "
        f"{v.at_m['union']:.2f} at this run's m = {v.m:.0f}"
    )
    if v.m != v.m_airraid:
        text += (
            f" ({v.at_airraid['mc']:.2f} and {v.at_airraid['union']:.2f} at AirRaid's "
            f"m = {v.m_airraid:.0f})"
        )
    live, rec = (
        _penalised_fractions(s.penalised_after),
        _penalised_fractions(s.recorded_penalised_after),
    )
    if live:
        text += f". After the c = 0.3 budget, the share of random answers the aware student is penalised towards: {live}"
    if rec:
        text += f". On the {given(s.recorded, 'the recorded design').source}: {rec}"
    return text + "."


def _after_budget_evidence(ctx: Context[GohariState]) -> str:
    """How we read it (the experiments' random answers, arm a), the arms that decide between the
    readings and, on the recorded AirRaid run when it has them, what the arms measured and the
    verdict of ``random_answers_harmless_airraid``."""
    s = ctx.state
    v = given(s.ball_limits, "the ball radii's limits")
    text = (
        "We run the reading of the experiments (Sections 4-5): after its budget the teacher answers "
        "policies drawn uniformly from the simplex ((0, 0)-DP; arm (a), the default, under which "
        "Figure 2(d)'s unaware students are run). Two arms decide between the explanations of the "
        "private students' failure: (b) the teacher stops answering (Section 1's reading: no "
        "targets, no penalty), what a student that disregards spent answers should match (claim "
        "random_answers_harmless compares (a) with it), and (c) the aware student with the union "
        f"radius, whose ball radius tends to {v.at_airraid['union']:.2f} at vanishing k for "
        f"AirRaid's m = {v.m_airraid:.0f} (the simplex's diameter is 1.41)"
    )
    if v.m != v.m_airraid:
        text += f" and to {v.at_m['union']:.2f} for this run's m = {v.m:.0f}"
    text += (
        " (a ball radius below 1.41 leaves out answers near a vertex other than a nearly "
        "deterministic student's)."
    )
    claim = ctx.claims.get("random_answers_harmless_airraid")
    if claim is not None and s.recorded_finding:
        recorded = given(s.recorded, "the recorded design")
        text += f" On the {recorded.source}: {s.recorded_finding} {_verdict_of(claim)}."
    claim = ctx.claims.get("random_answers_harmless_horizon")
    if claim is not None:
        text += f" On the {given(s.horizon, 'the horizon record').source}: {_verdict_of(claim)}."
    return text


def _composed_evidence(ctx: Context[GohariState]) -> str:
    """The largest delta composed over one of this run's runs and the queries it answered."""
    s = ctx.state
    return (
        "Largest composed delta over a run of this build (basic composition): "
        f"{given(s.composed_delta, 'the composed delta'):.3g} after "
        f"{given(s.queries, 'the queries answered'):.0f} queries."
    )


def _verdict_of(claim: Claim) -> str:
    """ "<key> is <verdict> (<statistic> <value>, 95% interval [lo, hi])", the numbers rounded to
    a return's unit."""
    text = f"{claim.key} is {claim.verdict}"
    if claim.value is not None and claim.interval is not None:
        text += (
            f" ({claim.statistic} {claim.value:.0f}, 95% interval [{claim.interval[0]:.0f}, "
            f"{claim.interval[1]:.0f}])"
        )
    return text


#: The chapter's errata (the book's errata page lists them), filled with this run's numbers.
ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "unstated_parameters",
        "ambiguous",
        "The (L, b, eta, tau) behind the reported per-query (4.46, 0.05) at k = 5 are not stated.",
        "A consistent combination (eta = 0.1, tau from eq. (6) at delta = 0.05, L b from eq. (12)) "
        "is stated with the one-parameter family it belongs to and the sensitivity of the pair.",
    ),
    ErratumSpec(
        "no_k_floor",
        "ambiguous",
        "No floor on the vanishing k is stated ('set k = 0' is not a Dirichlet distribution); as "
        "k -> 0 the answers become one-hot samples of the teacher's own policy.",
        "An explicit k_min: below it the teacher answers policies drawn uniformly from the simplex.",
    ),
    ErratumSpec(
        "lemma1_radius",
        "wrong",
        "Lemma 1's 2-norm concentration radius (eq. 14) is exceeded with probability above beta.",
        "Monte Carlo tail at k = 5, m = 6, uniform policy, beta = 0.05: {lemma_tail:.3f}. Valid "
        "radii (union bound, proven sub-Gaussian, Monte Carlo) are stated and the student runs with "
        "them.",
    ),
    ErratumSpec(
        "small_k_privacy",
        "wrong",
        "Decreasing k is said to strengthen the Dirichlet mechanism's privacy, but Theorem 1's "
        "delta tends to 1 as k -> 0 (epsilon tends to a finite limit).",
        "delta = {delta_small_k:.3f} at k = 0.05 (m = 6, the stated eta and tau); grid of k shown.",
    ),
    ErratumSpec(
        "airraid_adjacency",
        "wrong",
        "The per-query (4.46, 0.05) is reported as the teacher's protection, but with the Lipschitz "
        "constant of a trained AirRaid teacher it holds only for observations less than one RAM "
        "step apart.",
        "b = {air_b:.1e} with the committed teacher's certified L = {air_L:.1f}; even with the "
        "observed slope L >= {air_L_low:.2f}, adjacent observations differ by at most "
        "{air_b_raw:.2f} RAM steps.",
    ),
    ErratumSpec(
        "composed_budget",
        "unsupported",
        "The teacher's privacy is reported per query only; composed over the states a student "
        "visits, the per-query guarantees give no guarantee (delta above 1).",
        _composed_evidence,
    ),
    ErratumSpec(
        "random_answers_pull",
        "wrong",
        "Section 4: once the budget is spent the teacher's random answers do not harm the "
        "privacy-aware student, whose objective 'will completely disregard the teacher "
        "demonstrations by (16)'. That needs the ball radius alpha = lambda r(k) to reach the "
        "simplex's diameter sqrt(2) at vanishing k; with the printed Lemma 1 it stays below it for "
        "every k, and so does the tight valid (Monte Carlo) radius, so random answers keep "
        "pulling the student towards uniform play.",
        _random_answers_evidence,
    ),
    ErratumSpec(
        "after_budget_reading",
        "ambiguous",
        "What the teacher sends once its budget is spent is stated two ways. Section 1 follows 'the "
        "convention to permit queries up to a budget and then to disallow queries once the budget is "
        "expended' (the teacher falls silent); Section 4 has the teacher 'set k = 0 once they expend "
        "their budget' (not a Dirichlet distribution) and 'generate completely random policies', and "
        "Section 5 (Figure 2d) has teachers that 'share completely random policies'.",
        _after_budget_evidence,
    ),
)
