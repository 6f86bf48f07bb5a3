"""The paper's claims (:data:`CLAIMS`, in the paper's order) and errata (:data:`ERRATA`).

Each claim is decided on every evidence of :meth:`~privrl.papers.ono2020.chapter.Ono2020Chapter.
evidence` (this run, the recorded paper-profile run ``_paper``, the reference set-up live and
recorded, its arms at tuned steps ``_reference_tuned``: only the claims whose arms it holds),
by the four-state rule (:func:`~privrl.chapter.verdicts.decide_interval`) on the evidence's
:class:`TrialData` alone:

* a success ratio (eq. 27), exact 95% interval against half the printed ratio (Table 2);
* a median first success time (eq. 26, censored at the budget), bootstrap interval against
  twice the printed median (Table 1);
* a difference of success ratios, Newcombe's interval against half the printed difference;
* a difference of average scores (eq. 25), bootstrap interval against no effect (Figure 2).

A private claim (finite epsilon) is untestable where the non-private baseline on the same
trials is not reproduced (:func:`private`); a claim on success where random play reaches the
target within the budget (:func:`random_play_condition`); a claim on tuned arms where an arm is
decided on seeds its tuning looked at, or its arms were tuned by different rules
(:meth:`TrialData.validity`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from privrl.chapter.evidence import Evidence
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.validity import Tuning, threshold_beyond_random_play, tuned_apart
from privrl.chapter.verdicts import (
    Claim,
    Count,
    Outcome,
    Sample,
    Threshold,
    Validity,
    decide_difference,
    decide_proportions,
    decide_success_ratio,
    decide_threshold,
    untestable,
)
from privrl.core.algorithms.a3c import PGCA3CConfig
from privrl.papers.ono2020.measures import RANDOM_PLAY_EPISODES, random_play_scores
from privrl.papers.ono2020.profile import AMBIGUITIES, INF, PAPER_CAP, PAPER_TABLES
from privrl.papers.ono2020.sources import ON_REFERENCE, PAPER_RUN, REFERENCE_RUN
from privrl.papers.ono2020.state import OnoState
from privrl.papers.ono2020.tables import arm
from privrl.papers.ono2020.trials import censored

#: What a claim on the reference set-up says first.
REFERENCE_PREFIX = (
    "On the reference set-up (the paper's plus sampled actions and RMSProp, step "
    "from a sweep; not the literal hyper-parameters): "
)
#: What a claim decided on the recorded arms at the steps with the most tuning successes
#: (:mod:`.tuning`, :data:`~.sources.TUNED_RUN`) says first.
TUNED_PREFIX = (
    "On the reference set-up, each private arm at the step with the most successes "
    "within the paper's budget over tuning trials (not the literal "
    "hyper-parameters): "
)


@dataclass(frozen=True)
class TrialData:
    """What a claim is decided on: the trials of Tables 1-3, the curves of Figure 2, the budget
    ``cap`` they ran at, the set-up whose arms are read (``paper``, or the reference set-up
    :data:`~privrl.papers.ono2020.trials.REFERENCE`) and, where its arms' steps were tuned, how
    each arm of the trials was tuned (``tuning``, by (mechanism, epsilon):
    :mod:`privrl.papers.ono2020.seeds`; ``None``: the paper's stated hyper-parameters)."""

    trials: pd.DataFrame
    curves: pd.DataFrame
    cap: int
    variant: str = "paper"
    tuning: Mapping[tuple[str, float], Tuning] | None = None

    def arm(self, mech: str, eps: float) -> pd.DataFrame:
        """The trials of (mechanism, epsilon) of this set-up."""
        return arm(self.trials, self.variant, mech, eps)

    def has(self, *arms: tuple[str, float]) -> bool:
        """Whether this set-up has trials of every ``(mechanism, epsilon)`` of ``arms`` (a
        recording of chosen arms, :mod:`.tuning`, holds only some: a claim on an arm it lacks
        is not decided on it)."""
        return all(len(self.arm(mech, eps)) for mech, eps in arms)

    def validity(self, *arms: tuple[str, float]) -> Validity:
        """The validity conditions of a claim on the successes of ``arms`` (mechanism,
        epsilon) within this budget: random play does not succeed
        (:func:`random_play_condition`) and, on tuned arms, they were tuned apart from the trials
        that decide them, by one rule (:func:`~privrl.chapter.validity.tuned_apart`)."""
        tuned = [] if self.tuning is None else [tuned_apart([self.tuning[a] for a in arms])]
        return [random_play_condition(self.cap), *tuned]


def random_play_condition(budget: int) -> Outcome | None:
    """Validity condition 1 (:func:`~privrl.chapter.validity.threshold_beyond_random_play`) for
    success, eq. (26): uniformly random actions (:func:`.measures.random_play_scores`) must not
    reach the target score as a mean of a window of submissions in any of the ``budget``
    windows of a trial (a trial succeeds at its first such window)."""
    mean, sd, _ = random_play_scores()
    return threshold_beyond_random_play(
        PGCA3CConfig.target, mean, sd, RANDOM_PLAY_EPISODES, PGCA3CConfig.window, windows=budget
    )


#: A decider returns ``None`` on evidence that lacks its arms (:meth:`TrialData.has`).
Decide = Callable[[Context[OnoState], Evidence[TrialData]], Outcome | None]

#: Paper's trials per configuration (section 4.2): the denominators of Table 2.
PAPER_TRIALS = 20
#: A success ratio claim's threshold is this fraction of the paper's printed ratio (Table 2), and
#: a difference of ratios this fraction of the printed difference: a count like the paper's at 20
#: trials is then decided reproduced (its exact interval lies above half of it).
RATIO_FRACTION = 0.5
#: A median first success time claim's threshold is this multiple of the paper's printed median
#: (Table 1): a median like the paper's is decided reproduced when its interval excludes it.
FST_MULTIPLE = 2.0


def _count(ratio: float) -> str:
    """``"16/20"``: a Table 2 ratio as the paper's count of successful trials."""
    return f"{round(ratio * PAPER_TRIALS)}/{PAPER_TRIALS}"


def success_ratio(mech: str, eps: float) -> Decide:
    """Table 2: the success ratio at the paper's budget of 90,000 submissions is above
    :data:`RATIO_FRACTION` of the printed ratio (e.g. half of 16/20 = 0.40)."""
    printed = PAPER_TABLES["success_ratio"][(mech, eps)]
    threshold = RATIO_FRACTION * printed

    def decide(ctx: Context[OnoState], ev: Evidence[TrialData]) -> Outcome | None:
        if not ev.data.has((mech, eps)):
            return None
        trials = ev.data.arm(mech, eps)
        why = (
            f"threshold {threshold:.3g}: half the paper's {_count(printed)} = {printed:.2f} "
            "(Table 2)"
        )
        return decide_success_ratio(
            Count(int(trials["success"].sum()), len(trials)),
            threshold,
            budget=ev.data.cap,
            full_budget=PAPER_CAP,
            unit="submissions",
            evidence=why,
            validity=ev.data.validity((mech, eps)),
        )

    return decide


def median_fst(mech: str, eps: float) -> Decide:
    """Table 1: the median first success time (eq. 26, censored at the budget) is below
    :data:`FST_MULTIPLE` times the printed median; untestable at a budget below that threshold
    (the censored trials would not lie above it)."""
    printed = PAPER_TABLES["median_fst"][(mech, eps)]
    threshold = FST_MULTIPLE * printed

    def decide(ctx: Context[OnoState], ev: Evidence[TrialData]) -> Outcome | None:
        if not ev.data.has((mech, eps)):
            return None
        cap = ev.data.cap
        fst = censored(ev.data.arm(mech, eps)["first_success"], cap)
        why = f"threshold {threshold:,.0f}: twice the paper's median {printed:,.1f} (Table 1)"
        if cap < threshold:
            return untestable(
                f"the profile's budget ({cap:,}) is below the threshold ({threshold:,.0f})",
                len(fst),
                why,
            )
        return decide_threshold(
            Sample(fst, "FST (censored at the budget)"),
            Threshold(threshold, "less"),
            statistic="median",
            evidence=why,
            validity=ev.data.validity((mech, eps)),
        )

    return decide


def succeeds_more_often(eps: float, better: str, worse: str) -> Decide:
    """Tables 2-3: ``better`` succeeds more often than ``worse`` at ``eps``, by more than
    :data:`RATIO_FRACTION` of the printed difference of success ratios."""
    ratios = PAPER_TABLES["success_ratio"]
    printed = ratios[(better, eps)] - ratios[(worse, eps)]
    threshold = RATIO_FRACTION * printed

    def decide(ctx: Context[OnoState], ev: Evidence[TrialData]) -> Outcome | None:
        if not ev.data.has((better, eps), (worse, eps)):
            return None
        a, b = ev.data.arm(better, eps), ev.data.arm(worse, eps)
        why = (
            f"threshold {threshold:.3g}: half the paper's difference {printed:.2f} "
            f"(Table 2: {_count(ratios[(better, eps)])} against "
            f"{_count(ratios[(worse, eps)])})"
        )
        return decide_proportions(
            Count(int(a.success.sum()), len(a), better),
            Count(int(b.success.sum()), len(b), worse),
            Threshold(threshold, "greater"),
            evidence=why,
            validity=ev.data.validity((better, eps), (worse, eps)),
        )

    return decide


def buffering(mech: str, direction: Literal["less", "greater"]) -> Decide:
    """Figure 2: buffering (|B| = 100) helps/hurts ``mech`` at epsilon = 1: per trial, the
    average score (eq. 25) over the second half of training, |B| = 100 against |B| = 1. The paper
    gives no magnitude (a figure only): threshold "no effect" (a difference of 0)."""

    def decide(ctx: Context[OnoState], ev: Evidence[TrialData]) -> Outcome | None:
        curves = ev.data.curves
        if curves.empty:
            return None
        half = curves[curves.submission > curves.submission.max() / 2]
        late = half.groupby(["mechanism", "buffer_size", "trial"]).avg_score.mean()
        with_b = late.get((mech, 100), pd.Series(dtype=float)).to_numpy()
        without = late.get((mech, 1), pd.Series(dtype=float)).to_numpy()
        return decide_difference(
            Sample(with_b, "|B|=100"),
            Sample(without, "|B|=1"),
            Threshold(0.0, direction),
            statistic="median",
            evidence="threshold 0 (no effect): Figure 2 gives no magnitude",
        )

    return decide


def private(decide: Decide) -> Decide:
    """A private claim (finite epsilon): decided by ``decide`` unless the non-private baseline
    on the same trials is decided not reproduced (the stated set-up does not learn at all); then
    untestable, since noise cannot be shown to cost or keep what the set-up never had."""
    baseline = success_ratio("laplace", INF)

    def guarded(ctx: Context[OnoState], ev: Evidence[TrialData]) -> Outcome | None:
        base = baseline(ctx, ev)
        if base is None or base.verdict != "not reproduced":  # None: no baseline to guard by
            return decide(ctx, ev)
        trials = ev.data.arm("laplace", INF)
        printed = PAPER_TABLES["success_ratio"][("laplace", INF)]
        return untestable(
            "the non-private baseline does not learn "
            f"({int(trials.success.sum())}/{len(trials)} against the paper's "
            f"{_count(printed)}, claim baseline_learns): the stated "
            "hyper-parameters do not learn, so no private claim is testable on "
            "them",
            base.n_trials,
        )

    return guarded


_TABLE2 = "Table 2 and section 4.3"
_TABLE1 = "Table 1 and section 4.2"
_SECTION43 = (
    "Table 2 and section 4.3 ('The algorithm using PRS gives more successes for "
    "epsilon = 1, 2, and the algorithm using the Laplace mechanism shows better for "
    "epsilon = 5, 10')"
)
_FIGURE2 = (
    "Figure 2 and section 4.1 ('the buffering helps the PRS mechanism to train the policy "
    "well, but it disturbs the training with the Laplace mechanism')"
)
_REACHES = "reaches the target within 90,000 submissions in"
_BUFFERING = (
    "at epsilon = 1 (Figure 2: average score over the second half of training; no "
    "magnitude given, threshold no effect)"
)

#: The paper's learning claims, each decided on every evidence of the chapter.
# In the paper's order: section 4.1 (Figure 2: buffering helps PRS, hurts Laplace), section 4.2
# (Table 1: median first success times, row by row), section 4.3 (Table 2 and its text: the
# non-private baseline, the success ratios row by row, then PRS against Laplace).
CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "buffer_helps_prs",
        f"Buffering (|B| = 100) helps PRS {_BUFFERING}",
        _FIGURE2,
        private(buffering("prs", "greater")),
    ),
    ClaimSpec(
        "buffer_hurts_laplace",
        f"Buffering (|B| = 100) hurts Laplace {_BUFFERING}",
        _FIGURE2,
        private(buffering("laplace", "less")),
    ),
    ClaimSpec(
        "median_fst_laplace_eps1",
        "Laplace at ε = 1: median first success time of about "
        "18,377 submissions (Table 1: 18,377.0)",
        _TABLE1,
        private(median_fst("laplace", 1.0)),
    ),
    ClaimSpec(
        "median_fst_laplace_eps2",
        "Laplace at ε = 2: median first success time of about "
        "20,238 submissions (Table 1: 20,238.5)",
        _TABLE1,
        private(median_fst("laplace", 2.0)),
    ),
    ClaimSpec(
        "median_fst_laplace_eps5",
        "Laplace at ε = 5: median first success time of about 5,714 submissions (Table 1: 5,714.5)",
        _TABLE1,
        private(median_fst("laplace", 5.0)),
    ),
    ClaimSpec(
        "median_fst_laplace_eps10",
        "Laplace at ε = 10: median first success time of "
        "about 4,055 submissions (Table 1: 4,055.0)",
        _TABLE1,
        private(median_fst("laplace", 10.0)),
    ),
    ClaimSpec(
        "median_fst_laplace_epsinf",
        "Laplace at ε = ∞ (no noise): median first success "
        "time of about 1,769 submissions (Table 1: 1,769.0)",
        _TABLE1,
        median_fst("laplace", INF),
    ),
    ClaimSpec(
        "median_fst_prs_eps1",
        "PRS at ε = 1: median first success time of about 25,226 submissions (Table 1: 25,226.5)",
        _TABLE1,
        private(median_fst("prs", 1.0)),
    ),
    ClaimSpec(
        "median_fst_prs_eps2",
        "PRS at ε = 2: median first success time of about 7,549 submissions (Table 1: 7,549.0)",
        _TABLE1,
        private(median_fst("prs", 2.0)),
    ),
    ClaimSpec(
        "median_fst_prs_eps5",
        "PRS at ε = 5: median first success time of about 2,656 submissions (Table 1: 2,656.5)",
        _TABLE1,
        private(median_fst("prs", 5.0)),
    ),
    ClaimSpec(
        "median_fst_prs_eps10",
        "PRS at ε = 10: median first success time of about 11,218 submissions (Table 1: 11,217.5)",
        _TABLE1,
        private(median_fst("prs", 10.0)),
    ),
    ClaimSpec(
        "baseline_learns",
        "Non-private PGC-A3C (Laplace clipping, epsilon = inf) "
        f"{_REACHES} 20/20 trials (Table 2: 1.00)",
        "Table 2 and section 4.3 ('The non-private A3C (epsilon = inf) succeeds in all trials')",
        success_ratio("laplace", INF),
    ),
    ClaimSpec(
        "laplace_eps1_learns",
        f"PGC-A3C with Laplace at ε = 1 {_REACHES} 16/20 trials (Table 2: 0.80)",
        _TABLE2,
        private(success_ratio("laplace", 1.0)),
    ),
    ClaimSpec(
        "laplace_eps2_learns",
        f"PGC-A3C with Laplace at ε = 2 {_REACHES} 18/20 trials (Table 2: 0.90)",
        _TABLE2,
        private(success_ratio("laplace", 2.0)),
    ),
    ClaimSpec(
        "laplace_eps5_learns",
        f"PGC-A3C with Laplace at ε = 5 {_REACHES} 20/20 trials (Table 2: 1.00)",
        _TABLE2,
        private(success_ratio("laplace", 5.0)),
    ),
    ClaimSpec(
        "laplace_eps10_learns",
        f"PGC-A3C with Laplace at ε = 10 {_REACHES} 20/20 trials (Table 2: 1.00)",
        _TABLE2,
        private(success_ratio("laplace", 10.0)),
    ),
    ClaimSpec(
        "prs_eps1_learns",
        f"PGC-A3C with PRS at ε = 1 {_REACHES} 17/20 trials (Table 2: 0.85)",
        _TABLE2,
        private(success_ratio("prs", 1.0)),
    ),
    ClaimSpec(
        "prs_eps2_learns",
        f"PGC-A3C with PRS at ε = 2 {_REACHES} 19/20 trials (Table 2: 0.95)",
        _TABLE2,
        private(success_ratio("prs", 2.0)),
    ),
    ClaimSpec(
        "prs_eps5_learns",
        f"PGC-A3C with PRS at ε = 5 {_REACHES} 18/20 trials (Table 2: 0.90)",
        _TABLE2,
        private(success_ratio("prs", 5.0)),
    ),
    ClaimSpec(
        "prs_eps10_learns",
        f"PGC-A3C with PRS at ε = 10 {_REACHES} 18/20 trials (Table 2: 0.90)",
        _TABLE2,
        private(success_ratio("prs", 10.0)),
    ),
    ClaimSpec(
        "prs_beats_laplace_eps1",
        "PRS succeeds more often than Laplace at epsilon = 1 (Table 2: 17/20 against 16/20)",
        _SECTION43,
        private(succeeds_more_often(1.0, "prs", "laplace")),
    ),
    ClaimSpec(
        "prs_beats_laplace_eps2",
        "PRS succeeds more often than Laplace at epsilon = 2 (Table 2: 19/20 against 18/20)",
        _SECTION43,
        private(succeeds_more_often(2.0, "prs", "laplace")),
    ),
    ClaimSpec(
        "laplace_beats_prs_eps5",
        "Laplace succeeds more often than PRS at epsilon = 5 (Table 2: 20/20 against 18/20)",
        _SECTION43,
        private(succeeds_more_often(5.0, "laplace", "prs")),
    ),
    ClaimSpec(
        "laplace_beats_prs_eps10",
        "Laplace succeeds more often than PRS at epsilon = 10 (Table 2: 20/20 against 18/20)",
        _SECTION43,
        private(succeeds_more_often(10.0, "laplace", "prs")),
    ),
)


def _reading(outcome: Outcome) -> str:
    """``"not reproduced: 0.1 [0.0123, 0.317], 20 trials"``: a verdict with its statistic."""
    if outcome.value is None or outcome.interval is None:
        return f"{outcome.verdict}, {outcome.n_trials} trials"
    lo, hi = outcome.interval
    return f"{outcome.verdict}: {outcome.value:.3g} [{lo:.3g}, {hi:.3g}], {outcome.n_trials} trials"


def sensitivity(ctx: Context[OnoState], chosen: TrialData, other: TrialData) -> pd.DataFrame:
    """The claims whose outcome on ``other`` (the arms at the steps of the other criterion, a
    sensitivity reading) differs from that on ``chosen`` (the arms at the steps the verdicts are
    decided at): one row per such claim, its ``key`` and each outcome in words (verdict,
    statistic, 95% interval, trials per arm); a claim whose arms either lacks is left out."""
    rows = []
    for spec in CLAIMS:
        a, b = (
            spec.decide(ctx, Evidence("reference_tuned", ctx.profile, data=data))
            for data in (chosen, other)
        )
        if a is None or b is None:
            continue
        if (a.verdict, a.value, a.interval, a.n_trials) != (
            b.verdict,
            b.value,
            b.interval,
            b.n_trials,
        ):
            rows.append({"key": spec.key, "chosen": _reading(a), "other": _reading(b)})
    return pd.DataFrame(rows, columns=["key", "chosen", "other"])


def _failed_recorded(ctx: Context[OnoState]) -> list[Claim]:
    return [
        c
        for key, c in ctx.claims.items()
        if key.endswith(PAPER_RUN.suffix)
        and not key.endswith(REFERENCE_RUN.suffix)
        and c.verdict == "not reproduced"
    ]


ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "eq24",
        "wrong",
        "Eq. (24) mixes epsilon/k (k undefined) with epsilon/d_hat in PRS's bit flip; with two "
        "budgets the probability can leave [0, 1] or its ratio exceed e^(epsilon/d_hat).",
        "Implemented as eq. (4) with epsilon/d_hat in both places; exact enumeration shows the "
        "worst-case log ratio equals epsilon, and a weakened version exceeds it (check "
        "prs_exact_ldp, prs_weakened_caught).",
    ),
    ErratumSpec(
        "hyperparameters",
        "ambiguous",
        lambda ctx: "The paper leaves open: " + "; ".join(f"{k}: {v}" for k, v in AMBIGUITIES),
        "Section 4 and Algorithm 1; the chapter's report statistics show the clip binding on "
        "every report and the greedy policy collapsing to one action.",
    ),
    ErratumSpec(
        "learning_not_reproduced",
        "not reproduced",
        lambda ctx: (
            "The stated hyper-parameters do not learn (section 4 and Algorithm 1 as "
            "published, recorded paper-scale run): "
            + "; ".join(c.statement for c in _failed_recorded(ctx))
            + ". The private claims on this set-up "
            "are untestable (the non-private baseline does not learn), not refuted. "
            + _reference_sentence(ctx)
        ),
        lambda ctx: (
            f"{_recorded_source(ctx)}: "
            + "; ".join(f"{c.key}: {c.evidence_text()}" for c in _failed_recorded(ctx))
        ),
        when=lambda ctx: bool(_failed_recorded(ctx)),
    ),
)


def _recorded_source(ctx: Context[OnoState]) -> str:
    """The words naming the recorded paper-profile run."""
    if ctx.state.recorded is None:
        raise ValueError("ono2020: claims decided on a recorded run, but none is recorded")
    return ctx.state.recorded.source


def _reference_sentence(ctx: Context[OnoState]) -> str:
    """Where the private claims are decided instead: the recorded reference set-up's baseline
    and the ablation's arms (successes out of trials), when recorded."""
    tables = ctx.state.rec_reference_tables
    if tables is None:
        return (
            "They are decided on the reference set-up (module reference; claims ending in "
            f"{ON_REFERENCE}), whose paper-scale run is not recorded yet."
        )
    base = tables[np.isinf(tables.epsilon) & (tables.mechanism == "laplace")].set_index("variant")
    arms = "; ".join(f"{v}: {int(r.successes)}/{int(r.n_trials)}" for v, r in base.iterrows())
    return (
        "They are decided on the reference set-up instead (claims ending in "
        f"{REFERENCE_RUN.suffix}). Its non-private ablation at the paper's scale "
        f"(recorded): {arms}."
    )
