"""Gohari et al. (2021): the paper's claims (:data:`CLAIMS`) and the chapter's errata (:data:`ERRATA`).

The claims are decided on this run's Figure 2 runs and again, keyed ``*_airraid``, on the recorded
AirRaid run (:mod:`privrl.papers.gohari2021.recorded`), whose claims carry that run's profile and
commit. Every claim goes through :func:`privrl.chapter.verdicts.decide_interval`: a speed-up on
the bootstrap interval of the ratio of median times to threshold against the paper's magnitude
(:func:`decide_speedup`: 1, "no effect", where the paper states no size; 2 for "roughly 4 times",
half the stated magnitude), an end-of-run comparison on the difference of median final returns
(:func:`privrl.chapter.verdicts.decide_difference`, "no effect": the paper states no size), the
budget on the exact count of data-dependent queries past the schedule's allowance, on this run
and on the recorded run when it has the queries columns (:func:`decide_budget`). The statements
name the paper's (64, 64)
teacher-sized and (32, 32) student-sized agents (Section 5); the decisions compare the profile's
``teacher_hidden`` and ``student_hidden`` agents, the same unless a profile changes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.verdicts import (
    MIN_TRIALS,
    Claim,
    decide_difference,
    decide_interval,
    untestable,
)
from privrl.papers.gohari2021.curves import final_returns
from privrl.papers.gohari2021.diagnostics import UNION
from privrl.papers.gohari2021.profile import AWARE, DESIGN_ROLLOUTS, UNAWARE, GohariProfile
from privrl.papers.gohari2021.recorded import QUERY_COLUMNS, RecordedAnalysis
from privrl.papers.gohari2021.runs import after_budget_label, query_table

Decide = Callable[[Context, ClaimSpec], Claim | None]


#: The paper's "roughly 4 times faster" (Section 5, Figure 2c; Section 1) and the fraction of it a
#: speed-up must exceed for the claim to be reproduced ("roughly": half the stated magnitude).
PAPER_SPEEDUP, SPEEDUP_FRACTION = 4.0, 0.5


def decide_speedup(key: str, statement: str, result: dict[str, Any], threshold: float = 1.0,
                   threshold_note: str = "1: no effect, the paper states no size",
                   min_trials: int = MIN_TRIALS) -> Claim:  # fmt: skip
    """"``treated`` reaches the threshold at least ``threshold`` times faster than ``baseline``",
    by :func:`~privrl.chapter.verdicts.decide_interval` on the bootstrap interval of the ratio of
    median times (direction greater). Untestable with fewer than ``min_trials`` seeds per arm or
    when every run of both arms is censored. ``threshold_note`` says where the threshold comes
    from (in the evidence)."""
    n, name = result["n"], f"median time ({result['baseline']}) / median time ({result['treated']})"
    evidence = (f"threshold {threshold:g} ({threshold_note}); censored runs: "
                f"{result['censored_baseline']} of {result['baseline']}, "
                f"{result['censored_treated']} of {result['treated']}")  # fmt: skip
    if n < min_trials:
        return untestable(key, statement, f"too few seeds (fewer than {min_trials} per arm)", n, evidence)
    if result["censored_baseline"] == result["censored_treated"] == n:
        return untestable(key, statement, "no run of either arm reached the threshold", n, evidence)
    return decide_interval(key, statement, name, result["ratio"], (result["lower"], result["upper"]),
                           n, threshold, direction="greater", evidence=evidence)  # fmt: skip


# --- the evidence a claim is decided on: this run's, or the recorded AirRaid run's ---------------


@dataclasses.dataclass(frozen=True)
class Evidence:
    """Runs (tidy, one row per roll-out), their speed-up table and profile; for the recorded run,
    the sentence naming it (prefixed to every claim's evidence) and its commit."""

    runs: pd.DataFrame
    speedup: pd.DataFrame
    profile: GohariProfile
    source: str = ""
    commit: str = ""

    def arm(self, label: str) -> np.ndarray:
        """Final returns (:func:`~privrl.papers.gohari2021.curves.final_returns`) of ``label``'s runs."""
        fin = final_returns(self.runs)
        return fin.loc[fin["label"] == label, "avg_return"].dropna().to_numpy(float)

    def head(self, treated: str) -> dict[str, Any]:
        """The speed-up of ``treated`` at the headline threshold X_0.5."""
        head = self.speedup[self.speedup["q"] == 0.5].set_index("treated", drop=False)
        return head.loc[treated].to_dict()

    def stamp(self, claim: Claim) -> Claim:
        """``claim`` with the recorded run's provenance (source in the evidence, profile, commit)."""
        if not self.source:
            return claim
        return dataclasses.replace(claim, evidence=f"{self.source}; {claim.evidence}".rstrip("; "),
                                   profile=self.profile.profile, commit=self.commit)  # fmt: skip


def live(ctx: Context) -> Evidence:
    """This run's Figure 2 runs."""
    return Evidence(ctx.tables["runs"], ctx.tables["speedup"], ctx.profile)


def recorded(ctx: Context) -> Evidence | None:
    """The recorded AirRaid run, if there is one."""
    rec: RecordedAnalysis | None = ctx.extra.get("recorded")
    if rec is None:
        return None
    return Evidence(rec.runs, rec.speedup, rec.profile, rec.source, rec.commit)


def _on(evidence: Callable[[Context], Evidence | None],
        decide: Callable[[Evidence, ClaimSpec], Claim | None],
        shortened: bool = False) -> Decide:  # fmt: skip
    """A claim's ``decide``: ``decide`` on ``evidence`` (nothing when there is none, or when
    ``decide`` returns nothing: the run lacks the arms it compares). On a
    recorded run shorter than the design (:data:`DESIGN_ROLLOUTS`), the claim is untestable if
    ``shortened`` (the headline claims) and not recorded otherwise."""

    def run(ctx: Context, spec: ClaimSpec) -> Claim | None:
        ev = evidence(ctx)
        if ev is None:
            return None
        if ev.source and ev.profile.epochs < DESIGN_ROLLOUTS:
            if not shortened:
                return None
            return ev.stamp(untestable(spec.key, spec.statement,
                                       f"shortened record: {ev.profile.epochs} roll-outs, fewer than "
                                       f"the {DESIGN_ROLLOUTS} of the design", ev.profile.n_trials))  # fmt: skip
        claim = decide(ev, spec)
        return None if claim is None else ev.stamp(claim)

    return run


def _faster(treated: str, threshold: float = 1.0, note: str = "1: no effect, the paper states no size"
            ) -> Callable[[Evidence, ClaimSpec], Claim]:  # fmt: skip
    return lambda ev, spec: decide_speedup(spec.key, spec.statement, ev.head(treated), threshold, note)


def _ends(a: str, b: str, direction: str, label_a: str, label_b: str | None = None,
          evidence: str = "") -> Callable[[Evidence, ClaimSpec], Claim]:  # fmt: skip
    """``a``'s median final return is above (``direction="greater"``) or below ``b``'s; ``b``
    ``None`` is the student-sized plain PPO."""

    def decide(ev: Evidence, spec: ClaimSpec) -> Claim:
        small = ev.profile.baseline_labels()[1]
        other = small if b is None else b
        return decide_difference(spec.key, spec.statement, ev.arm(a), ev.arm(other),
                                 direction=direction, label_a=label_a, label_b=label_b or other,
                                 statistic="median", evidence=evidence)  # fmt: skip

    return decide


def _when_ran(label: str, decide: Callable[[Evidence, ClaimSpec], Claim]
              ) -> Callable[[Evidence, ClaimSpec], Claim | None]:  # fmt: skip
    """``decide``, or nothing when the run has no ``label`` arm (an optional arm)."""
    return lambda ev, spec: decide(ev, spec) if label in set(ev.runs["label"]) else None


#: The c = 0.3 aware student, whose teacher answers random policies after its budget (arm a),
#: ends at least as high as the same student whose teacher falls silent (arm b: no targets, no
#: penalty): median final returns, threshold 0 (no effect; the paper states no size); nothing
#: when the run has no silent-teacher arm.
_SILENT = after_budget_label("silent")
_not_harmed = _when_ran(_SILENT, _ends(
    AWARE, _SILENT, "greater", "random answers", "silent",
    evidence="threshold 0 (no effect): the paper states no size; arm (b) is the reading under "
             "which spent answers cannot harm"))


def decide_budget(key: str, statement: str, queries: pd.DataFrame) -> Claim:
    """The teacher answers no query from its data beyond the schedule's allowance, in any
    private run (finite, positive allowance): per run, the queries answered in each roll-out
    beyond that roll-out's allowance, summed (``queries``: cumulative per roll-out, as
    :func:`~privrl.papers.gohari2021.runs.query_table` gives them; a query answered late counts
    even if earlier ones were not asked); the largest over runs, an exact count (the interval is
    the value itself), against the paper's "no query" (threshold 0.5 on an integer count: none),
    by :func:`~privrl.chapter.verdicts.decide_interval`."""
    queries = queries.sort_values(["label", "seed", "epoch"])
    keys = [queries["label"], queries["seed"]]
    allowance = queries.groupby(keys, sort=False)["queries_allowed"].max()
    private = allowance[np.isfinite(allowance) & (allowance > 0)].index
    if private.empty:
        return untestable(key, statement, "no private run (no teacher with a budget)")
    per_rollout = queries[["queries", "queries_allowed"]].groupby(keys, sort=False).diff()
    per_rollout = per_rollout.fillna(queries[["queries", "queries_allowed"]])  # a run's first roll-out
    beyond = (per_rollout["queries"] - per_rollout["queries_allowed"]).clip(lower=0.0)
    excess = beyond.groupby(keys, sort=False).sum().loc[private]
    answered = queries.groupby(keys, sort=False)["queries"].max().loc[private]
    worst = float(excess.max())
    return decide_interval(
        key, statement, "largest number of data-dependent queries a run answered beyond its "
        "roll-outs' allowances (exact count over every private run)", worst, (worst, worst),
        len(private), 0.5, direction="less",
        detail="threshold 0.5 on an integer count: no query after the budget",
        evidence=f"queries answered from the teacher's data per run: {answered.min():.0f} to "
                 f"{answered.max():.0f}, allowance {allowance.loc[private].min():.0f} to "
                 f"{allowance.loc[private].max():.0f}")  # fmt: skip


def budget_respected(ctx: Context, spec: ClaimSpec) -> Claim:
    """:func:`decide_budget` on this run's queries (counted as the teacher answers them)."""
    return decide_budget(spec.key, spec.statement, query_table(ctx.tables["runs"], ctx.profile))


def budget_respected_recorded(ctx: Context, spec: ClaimSpec) -> Claim | None:
    """:func:`decide_budget` on the recorded run's ``queries`` columns; untestable, saying so, on
    a record without them; nothing without a record."""
    rec: RecordedAnalysis | None = ctx.extra.get("recorded")
    if rec is None:
        return None
    ev = recorded(ctx)
    if rec.queries is None:
        return ev.stamp(untestable(
            spec.key, spec.statement, f"the recorded curves have no {' / '.join(QUERY_COLUMNS)} "
            "columns (recorded before the recorder wrote them): the queries the teacher answered "
            "are not in the record", rec.profile.n_trials))  # fmt: skip
    return ev.stamp(decide_budget(spec.key, spec.statement, rec.queries))


_LEARNING = (
    ("speedup_kickstarting",
     "Kickstarting (no privacy) reaches X_0.5 faster than the teacher-sized PPO (64, 64) (Fig. 2b)",
     "Section 5, second experiment, Figure 2(b): 'a significant improvement in the students' "
     "sample efficiency'", _faster("kickstarting"), True),
    ("speedup_aware",
     "The privacy-aware student (c = 0.3) reaches X_0.5 faster than the teacher-sized PPO (64, 64): "
     "'roughly 4 times'; decided at half that magnitude, at least 2 times",
     "Section 5, third experiment, Figure 2(c): 'Both agents converge roughly 4 times faster than "
     "the teacher' (also Section 1: 'roughly 4-times faster')",
     _faster(AWARE, PAPER_SPEEDUP * SPEEDUP_FRACTION,
             f"{PAPER_SPEEDUP * SPEEDUP_FRACTION:g}: half the paper's 'roughly 4 times'"), True),
    ("aware_beats_unaware",
     "At equal budget (c = 0.3) the privacy-aware student ends above the privacy-unaware one "
     "(Fig. 2c, d)",
     "Section 5, fourth experiment, Figure 2(c) and (d): 'the privacy-unaware students perform "
     "significantly worse'", _ends(AWARE, UNAWARE, "greater", "aware", "unaware"), True),
    ("aware_beats_small_ppo",
     "The privacy-aware student (c = 0.3) ends above plain PPO (32, 32) (result ii)",
     "Abstract, empirical result (ii): 'the student converges to a performance level that was not "
     "possible without the demonstrations'", _ends(AWARE, None, "greater", "aware"), False),
    ("unaware_below_small_ppo",
     "The privacy-unaware student (c = 0.3) ends below plain PPO (32, 32) (Fig. 2d)",
     "Section 5, fourth experiment, Figure 2(d): 'the students perform worse than the baseline PPO "
     "agents that do not use kickstarting at all'", _ends(UNAWARE, None, "less", "unaware"), False),
    ("random_answers_harmless",
     "Once its budget is spent, the teacher's random answers do not harm the privacy-aware student "
     "(c = 0.3): it ends no lower than the same student whose teacher falls silent (difference of "
     "median final returns against 0)",
     "Section 4, Remark: 'the objective of the student will completely disregard the teacher "
     "demonstrations by (16) ... the teachers can generate completely random policies under "
     "(0, 0)-differential privacy without harming the student's performance'", _not_harmed, False),
)

BEYOND = "Beyond the paper: "
_ON_UNION = ("with the union radius of Lemma 1 (arm c, the correction of erratum random_answers_pull: "
             "its ball covers the simplex at vanishing k), ")  # fmt: skip

#: Three of the aware student's claims (keys of :data:`_LEARNING`) again on arm (c), beyond the
#: paper: rows keyed ``<key>_union_beyond`` beside the paper's verdicts (decided on the Monte Carlo
#: radius, the chapter's default), never in their place; each only when the run has its arms.
_BEYOND_UNION = (
    ("aware_beats_unaware",
     BEYOND + _ON_UNION + "the privacy-aware student (c = 0.3) ends above the privacy-unaware one",
     _when_ran(UNION, _ends(UNION, UNAWARE, "greater", "aware (union radius)", "unaware"))),
    ("aware_beats_small_ppo",
     BEYOND + _ON_UNION + "the privacy-aware student (c = 0.3) ends above plain PPO (32, 32)",
     _when_ran(UNION, _ends(UNION, None, "greater", "aware (union radius)"))),
    ("random_answers_harmless",
     BEYOND + _ON_UNION + "the teacher's random answers after its budget do not harm the "
     "privacy-aware student (c = 0.3): it ends no lower than the same student whose teacher falls silent",
     _when_ran(_SILENT, _when_ran(UNION, _ends(UNION, _SILENT, "greater", "random answers (union radius)",
                                                "silent")))),
)  # fmt: skip

_BUDGET = ("budget_respected", "The teacher stops answering from its data once its budget is spent "
           "(vanishing k, Section 4)", "Section 4, Remark: 'the teachers can decrease k according to "
           "their privacy budget and set k = 0 once they expend their budget'")  # fmt: skip

_SOURCES = {key: source for key, _, source, _, _ in _LEARNING}

#: The paper's claims: Figure 2's on this run, the budget, then both on the recorded run; then,
#: beyond the paper, three of them on the union-radius arm, on this run and the recorded one.
CLAIMS: tuple[ClaimSpec, ...] = (
    *(ClaimSpec(key, statement, source, _on(live, decide)) for key, statement, source, decide, _ in _LEARNING),
    ClaimSpec(*_BUDGET, budget_respected),
    *(ClaimSpec(f"{key}_airraid", statement, f"{source} (on the recorded AirRaid run)",
                _on(recorded, decide, shortened))
      for key, statement, source, decide, shortened in _LEARNING),
    ClaimSpec(f"{_BUDGET[0]}_airraid", _BUDGET[1], f"{_BUDGET[2]} (on the recorded AirRaid run)",
              budget_respected_recorded),
    *(ClaimSpec(f"{key}_union_beyond{suffix}", statement, f"{_SOURCES[key]}{where}", _on(evidence, decide))
      for suffix, where, evidence in (("", "", live), ("_airraid", " (on the recorded AirRaid run)", recorded))
      for key, statement, decide in _BEYOND_UNION),
)  # fmt: skip


def _penalised_fractions(values: dict[str, float], prefix: str) -> str:
    """"x (Monte Carlo radius), y (union radius)" from ``values[PREFIX_aware]`` and
    ``values[PREFIX_union]`` (each named only when finite; empty without the first)."""
    aware, union = values.get(f"{prefix}_aware", np.nan), values.get(f"{prefix}_union", np.nan)
    if not np.isfinite(aware):
        return ""
    return f"{aware:.2f} (Monte Carlo radius)" + (f", {union:.2f} (union radius)" if np.isfinite(union) else "")


def _random_answers_evidence(ctx: Context) -> str:
    """The limits of the printed and Monte Carlo ball radii and, when the run (and the recorded
    AirRaid run) has roll-outs after the c = 0.3 budget, the fraction of random answers still
    penalised (mc against union radius)."""
    v = ctx.values
    text = (f"lambda r(k) -> lambda sqrt(log(1/beta)/2) = {v['printed_limit']:.2f} < 1.41 as k -> 0 "
            f"(printed); the Monte Carlo radius gives {v['mc_limit']:.2f}, the union radius "
            f"{v['union_limit']:.2f} at this run's m = {v['m']:.0f}")  # fmt: skip
    if v["m"] != v["m_airraid"]:
        text += (f" ({v['mc_limit_airraid']:.2f} and {v['union_limit_airraid']:.2f} at AirRaid's "
                 f"m = {v['m_airraid']:.0f})")  # fmt: skip
    live, rec = _penalised_fractions(v, "pen_after"), _penalised_fractions(v, "rec_pen_after")
    if live:
        text += f". After the c = 0.3 budget, the share of random answers the aware student is penalised towards: {live}"
    if rec:
        text += f". On the recorded AirRaid run ({ctx.extra['recorded'].source}): {rec}"
    return text + "."


def _after_budget_evidence(ctx: Context) -> str:
    """How we read it (the experiments' random answers, arm a), the arms that decide between the
    readings and, on the recorded AirRaid run when it has them, what the arms measured and the
    verdict of ``random_answers_harmless_airraid``."""
    v = ctx.values
    text = ("We run the reading of the experiments (Sections 4-5): after its budget the teacher answers "
            "policies drawn uniformly from the simplex ((0, 0)-DP; arm (a), the default, under which "
            "Figure 2(d)'s unaware students are run). Two arms decide between the explanations of the "
            "private students' failure: (b) the teacher stops answering (Section 1's reading: no "
            "targets, no penalty), what a student that disregards spent answers should match (claim "
            "random_answers_harmless compares (a) with it), and (c) the aware student with the union "
            f"radius, whose ball radius tends to {v['union_limit_airraid']:.2f} at vanishing k for "
            f"AirRaid's m = {v['m_airraid']:.0f} (the simplex's diameter is 1.41)")  # fmt: skip
    if v["m"] != v["m_airraid"]:
        text += f" and to {v['union_limit']:.2f} for this run's m = {v['m']:.0f}"
    text += (" (a ball radius below 1.41 leaves out answers near a vertex other than a nearly "
             "deterministic student's).")  # fmt: skip
    claim, finding = ctx.claims.get("random_answers_harmless_airraid"), ctx.extra.get("recorded_finding")
    if claim is not None and finding:
        text += (f" On the recorded AirRaid run ({ctx.extra['recorded'].source}): {finding} "
                 f"random_answers_harmless_airraid is {claim.verdict}")  # fmt: skip
        if claim.value is not None and claim.interval is not None:
            text += (f" ({claim.statistic} {claim.value:.0f}, 95% interval [{claim.interval[0]:.0f}, "
                     f"{claim.interval[1]:.0f}])")  # fmt: skip
        text += "."
    return text


#: The chapter's errata (the book's errata page lists them), filled with this run's numbers.
ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "unstated_parameters", "ambiguous",
        "The (L, b, eta, tau) behind the reported per-query (4.46, 0.05) at k = 5 are not stated.",
        "A consistent combination (eta = 0.1, tau from eq. (6) at delta = 0.05, L b from eq. (12)) "
        "is stated with the one-parameter family it belongs to and the sensitivity of the pair."),
    ErratumSpec(
        "no_k_floor", "ambiguous",
        "No floor on the vanishing k is stated ('set k = 0' is not a Dirichlet distribution); as "
        "k -> 0 the answers become one-hot samples of the teacher's own policy.",
        "An explicit k_min: below it the teacher answers policies drawn uniformly from the simplex."),
    ErratumSpec(
        "lemma1_radius", "wrong",
        "Lemma 1's 2-norm concentration radius (eq. 14) is exceeded with probability above beta.",
        "Monte Carlo tail at k = 5, m = 6, uniform policy, beta = 0.05: {lemma_tail:.3f}. Valid "
        "radii (union bound, proven sub-Gaussian, Monte Carlo) are stated and the student runs with "
        "them."),
    ErratumSpec(
        "small_k_privacy", "wrong",
        "Decreasing k is said to strengthen the Dirichlet mechanism's privacy, but Theorem 1's "
        "delta tends to 1 as k -> 0 (epsilon tends to a finite limit).",
        "delta = {delta_small_k:.3f} at k = 0.05 (m = 6, the stated eta and tau); grid of k shown."),
    ErratumSpec(
        "airraid_adjacency", "wrong",
        "The per-query (4.46, 0.05) is reported as the teacher's protection, but with the Lipschitz "
        "constant of a trained AirRaid teacher it holds only for observations less than one RAM "
        "step apart.",
        "b = {air_b:.1e} with the committed teacher's certified L = {air_L:.1f}; even with the "
        "observed slope L >= {air_L_low:.2f}, adjacent observations differ by at most "
        "{air_b_raw:.2f} RAM steps."),
    ErratumSpec(
        "composed_budget", "unsupported",
        "The teacher's privacy is reported per query only; composed over the states a student "
        "visits, the per-query guarantees give no guarantee (delta above 1).",
        "Largest composed delta over a run of this build (basic composition): {composed_delta:.3g} "
        "after {queries:.0f} queries."),
    ErratumSpec(
        "random_answers_pull", "wrong",
        "Section 4: once the budget is spent the teacher's random answers do not harm the "
        "privacy-aware student, whose objective 'will completely disregard the teacher "
        "demonstrations by (16)'. That needs the ball radius alpha = lambda r(k) to reach the "
        "simplex's diameter sqrt(2) at vanishing k; with the printed Lemma 1 it stays below it for "
        "every k, and so does the tight valid (Monte Carlo) radius, so random answers keep "
        "pulling the student towards uniform play.",
        _random_answers_evidence),
    ErratumSpec(
        "after_budget_reading", "ambiguous",
        "What the teacher sends once its budget is spent is stated two ways. Section 1 follows 'the "
        "convention to permit queries up to a budget and then to disallow queries once the budget is "
        "expended' (the teacher falls silent); Section 4 has the teacher 'set k = 0 once they expend "
        "their budget' (not a Dirichlet distribution) and 'generate completely random policies', and "
        "Section 5 (Figure 2d) has teachers that 'share completely random policies'.",
        _after_budget_evidence),
)

