"""The paper's claims (:data:`CLAIMS`) and errata (:data:`ERRATA`) of ono2020.

Each learning claim (Tables 1-2 and Figure 2) is decided twice: on this run's trials, and, when a
paper-profile run is recorded, on its trials (key ending ``_paper``, stamped with that run's
profile and commit). Every claim goes through the four-state rule
(:func:`~privrl.chapter.verdicts.decide_interval`): a success ratio by its exact
(Clopper-Pearson) 95% interval (:func:`~privrl.chapter.verdicts.decide_success_ratio`) against
half the paper's printed ratio (Table 2, e.g. half of 16/20), a median first success time
(eq. 26) by a bootstrap interval against twice the printed median (Table 1), a difference of
success ratios by Newcombe's interval against half the printed difference (Table 2), a
difference of average scores (eq. 25) by a bootstrap interval against "no effect" (Figure 2
gives no magnitude). A private claim (finite epsilon) is untestable when the non-private
baseline on the same trials is decided not reproduced (:func:`private`): the stated set-up then
does not learn at all, which is its own finding (erratum ``learning_not_reproduced``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.verdicts import (
    Claim,
    decide_difference,
    decide_proportions,
    decide_success_ratio,
    decide_threshold,
    untestable,
)
from privrl.papers.ono2020.profile import (
    AMBIGUITIES,
    INF,
    PAPER_CAP,
    PAPER_TABLES,
    PRACTISED,
    eps_label,
)
from privrl.papers.ono2020.tables import arm

#: Suffix of the keys of claims decided on the recorded paper-profile run.
RECORDED = "_paper"
#: Suffix of the keys of claims decided on the reference set-up (:mod:`.practised`); its recorded
#: paper-scale run's claims end in ``_practised_paper``.
ON_REFERENCE = "_practised"
#: What a claim on the reference set-up says first.
REFERENCE_PREFIX = ("On the reference set-up (the paper's plus sampled actions and RMSProp, step "
                    "from a sweep; not the literal hyper-parameters): ")


@dataclass(frozen=True)
class Trials:
    """What a claim is decided on: the trials of Tables 1-3, the curves of Figure 2, the budget
    ``cap`` they ran at, the evidence's source in words, (for a recorded run) its profile and
    commit, and the set-up whose arms are read (``paper``, or the reference set-up
    :data:`~privrl.papers.ono2020.trials.PRACTISED`)."""

    trials: pd.DataFrame
    curves: pd.DataFrame
    cap: int
    evidence: str
    profile: str = ""
    commit: str = ""
    variant: str = "paper"


def live_trials(ctx: Context) -> Trials:
    """This run's trials and curves."""
    return Trials(ctx.tables["trials"], ctx.tables["curves"], ctx.profile.n_submissions,
                  f"live {ctx.profile.profile} run")


def recorded_trials(ctx: Context) -> Trials | None:
    """The recorded paper-profile run's trials and curves, or ``None`` when none is recorded."""
    if "paper_trials" not in ctx.tables:
        return None
    return Trials(ctx.tables["paper_trials"], ctx.tables["paper_curves"], ctx.values["rec_budget"],
                  ctx.values["rec_source"], "paper", ctx.values["rec_commit"])


def live_practised(ctx: Context) -> Trials | None:
    """This run's trials and curves of the reference set-up (:mod:`.practised`), or ``None``
    when the run has none."""
    if "practised_trials" not in ctx.tables:
        return None
    return Trials(ctx.tables["practised_trials"], ctx.tables["practised_curves"],
                  ctx.profile.practised_submissions,
                  f"live {ctx.profile.profile} run, reference set-up", variant=PRACTISED)


def recorded_practised(ctx: Context) -> Trials | None:
    """The recorded reference set-up's trials and curves, or ``None`` when none is recorded."""
    if "rec_practised_trials" not in ctx.tables:
        return None
    return Trials(ctx.tables["rec_practised_trials"], ctx.tables["rec_practised_curves"],
                  ctx.values["rec_practised_budget"], ctx.values["rec_practised_source"],
                  "paper", ctx.values["rec_practised_commit"], variant=PRACTISED)


Rule = Callable[[Trials, str, str], Claim]

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


def _with(evidence: str, threshold: str) -> str:
    return f"{evidence}; {threshold}" if evidence else threshold


def success_ratio(mech: str, eps: float) -> Rule:
    """Table 2: the success ratio at the paper's budget of 90,000 submissions is above
    :data:`RATIO_FRACTION` of the printed ratio (e.g. half of 16/20 = 0.40)."""
    printed = PAPER_TABLES["success_ratio"][(mech, eps)]
    threshold = RATIO_FRACTION * printed

    def rule(data: Trials, key: str, statement: str) -> Claim:
        trials = arm(data.trials, data.variant, mech, eps)
        why = (f"threshold {threshold:.3g}: half the paper's {_count(printed)} = {printed:.2f} "
               "(Table 2)")
        return decide_success_ratio(key, statement, int(trials["success"].sum()), len(trials),
                                    threshold, budget=data.cap, full_budget=PAPER_CAP,
                                    unit="submissions", evidence=_with(data.evidence, why))
    return rule


def median_fst(mech: str, eps: float) -> Rule:
    """Table 1: the median first success time (eq. 26, censored at the budget) is below
    :data:`FST_MULTIPLE` times the printed median; untestable at a budget below that threshold
    (the censored trials would not lie above it)."""
    printed = PAPER_TABLES["median_fst"][(mech, eps)]
    threshold = FST_MULTIPLE * printed

    def rule(data: Trials, key: str, statement: str) -> Claim:
        trials = arm(data.trials, data.variant, mech, eps)
        fst = np.minimum(trials["first_success"].to_numpy(dtype=float), data.cap + 1)
        why = f"threshold {threshold:,.0f}: twice the paper's median {printed:,.1f} (Table 1)"
        if data.cap < threshold:
            return untestable(key, statement, f"the profile's budget ({data.cap:,}) is below "
                              f"the threshold ({threshold:,.0f})", len(fst),
                              _with(data.evidence, why))
        return decide_threshold(key, statement, fst, threshold, direction="less",
                                label="FST (censored at the budget)", statistic="median",
                                evidence=_with(data.evidence, why))
    return rule


def succeeds_more_often(eps: float, better: str, worse: str) -> Rule:
    """Tables 2-3: ``better`` succeeds more often than ``worse`` at ``eps``, by more than
    :data:`RATIO_FRACTION` of the printed difference of success ratios."""
    printed = (PAPER_TABLES["success_ratio"][(better, eps)]
               - PAPER_TABLES["success_ratio"][(worse, eps)])
    threshold = RATIO_FRACTION * printed

    def rule(data: Trials, key: str, statement: str) -> Claim:
        a = arm(data.trials, data.variant, better, eps)
        b = arm(data.trials, data.variant, worse, eps)
        why = (f"threshold {threshold:.3g}: half the paper's difference {printed:.2f} "
               f"(Table 2: {_count(PAPER_TABLES['success_ratio'][(better, eps)])} against "
               f"{_count(PAPER_TABLES['success_ratio'][(worse, eps)])})")
        return decide_proportions(key, statement, int(a.success.sum()), len(a),
                                  int(b.success.sum()), len(b), direction="greater",
                                  label_a=better, label_b=worse, threshold=threshold,
                                  evidence=_with(data.evidence, why))
    return rule


def buffering(mech: str, direction: str) -> Rule:
    """Figure 2: buffering (|B| = 100) helps/hurts ``mech`` at epsilon = 1: per trial, the
    average score (eq. 25) over the second half of training, |B| = 100 against |B| = 1. The paper
    gives no magnitude (a figure only): threshold "no effect" (a difference of 0)."""
    def rule(data: Trials, key: str, statement: str) -> Claim:
        curves = data.curves
        half = curves[curves.submission > curves.submission.max() / 2]
        late = half.groupby(["mechanism", "buffer_size", "trial"]).avg_score.mean()
        with_b = late.get((mech, 100), pd.Series(dtype=float)).to_numpy()
        without = late.get((mech, 1), pd.Series(dtype=float)).to_numpy()
        return decide_difference(key, statement, with_b, without, direction=direction,
                                 label_a="|B|=100", label_b="|B|=1", statistic="median",
                                 evidence=_with(data.evidence, "threshold 0 (no effect): "
                                                "Figure 2 gives no magnitude"))
    return rule


def private(rule: Rule) -> Rule:
    """A private claim (finite epsilon): decided by ``rule`` unless the non-private baseline on
    the same trials is decided not reproduced (the stated set-up does not learn at all); then
    untestable, since noise cannot be shown to cost or keep what the set-up never had."""
    baseline = success_ratio("laplace", INF)

    def guarded(data: Trials, key: str, statement: str) -> Claim:
        base = baseline(data, key, statement)
        if base.verdict != "not reproduced":
            return rule(data, key, statement)
        trials = arm(data.trials, data.variant, "laplace", INF)
        printed = PAPER_TABLES["success_ratio"][("laplace", INF)]
        return untestable(key, statement, "the non-private baseline does not learn "
                          f"({int(trials.success.sum())}/{len(trials)} against the paper's "
                          f"{_count(printed)}, claim baseline_learns): the stated "
                          "hyper-parameters do not learn, so no private claim is testable on "
                          "them", base.n_trials, data.evidence)
    return guarded


def decided_on(source: Callable[[Context], Trials | None], rule: Rule
               ) -> Callable[[Context, ClaimSpec], Claim | None]:
    """``ClaimSpec.decide``: ``rule`` on the trials ``source`` gives (``None`` when it has none),
    stamped with their profile and commit."""
    def decide(ctx: Context, spec: ClaimSpec) -> Claim | None:
        data = source(ctx)
        if data is None:
            return None
        claim = rule(data, spec.key, spec.statement)
        return replace(claim, profile=data.profile, commit=data.commit)
    return decide


def _name(mech: str) -> str:
    return mech.upper() if mech == "prs" else "Laplace"


def _eps_key(eps: float) -> str:
    return "inf" if math.isinf(eps) else f"{eps:g}"


def _learning_claims() -> list[tuple[str, str, str, Rule]]:
    """``(key, statement, source, rule)`` of every learning claim, in the order they are listed:
    Table 2 (success ratios), Table 1 (median first success times), the comparisons of section
    4.3 and Figure 2. Private claims (finite epsilon) go through :func:`private`."""
    out: list[tuple[str, str, str, Rule]] = []
    ratios = sorted(PAPER_TABLES["success_ratio"].items(), key=lambda kv: math.isfinite(kv[0][1]))
    for (mech, eps), printed in ratios:  # the baseline first
        key = "baseline_learns" if math.isinf(eps) else f"{mech}_eps{_eps_key(eps)}_learns"
        what = ("Non-private PGC-A3C (Laplace clipping, epsilon = inf)" if math.isinf(eps)
                else f"PGC-A3C with {_name(mech)} at {eps_label(eps)}")
        source = ("Table 2 and section 4.3 ('The non-private A3C (epsilon = inf) succeeds in all "
                  "trials')" if math.isinf(eps) else "Table 2 and section 4.3")
        rule = success_ratio(mech, eps)
        out.append((key, f"{what} reaches the target within 90,000 submissions in "
                    f"{_count(printed)} trials (Table 2: {printed:.2f})", source,
                    rule if math.isinf(eps) else private(rule)))
    for (mech, eps), printed in PAPER_TABLES["median_fst"].items():
        rule = median_fst(mech, eps)
        out.append((f"median_fst_{mech}_eps{_eps_key(eps)}", f"{_name(mech)} at "
                    f"{eps_label(eps)}: median first success time of about {printed:,.0f} "
                    f"submissions (Table 1: {printed:,.1f})", "Table 1 and section 4.2",
                    rule if math.isinf(eps) else private(rule)))
    quote = ("Table 2 and section 4.3 ('The algorithm using PRS gives more successes for "
             "epsilon = 1, 2, and the algorithm using the Laplace mechanism shows better for "
             "epsilon = 5, 10')")
    printed_ratios = PAPER_TABLES["success_ratio"]
    for eps, better, worse in ((1.0, "prs", "laplace"), (2.0, "prs", "laplace"),
                               (5.0, "laplace", "prs"), (10.0, "laplace", "prs")):
        out.append((f"{better}_beats_{worse}_eps{_eps_key(eps)}",
                    f"{_name(better)} succeeds more often than {_name(worse)} at epsilon = "
                    f"{eps:g} (Table 2: {_count(printed_ratios[(better, eps)])} against "
                    f"{_count(printed_ratios[(worse, eps)])})", quote,
                    private(succeeds_more_often(eps, better, worse))))
    for key, mech, direction, text in (("buffer_helps_prs", "prs", "greater", "helps PRS"),
                                       ("buffer_hurts_laplace", "laplace", "less",
                                        "hurts Laplace")):
        out.append((key, f"Buffering (|B| = 100) {text} at epsilon = 1 (Figure 2: average score "
                    "over the second half of training; no magnitude given, threshold no "
                    "effect)", "Figure 2 and section 4.1 ('the buffering helps the PRS mechanism "
                    "to train the policy well, but it disturbs the training with the Laplace "
                    "mechanism')", private(buffering(mech, direction))))
    return out


#: The learning claims on this run, then (where recorded) on the paper-profile run; then the same
#: claims on the reference set-up, live and recorded.
CLAIMS: tuple[ClaimSpec, ...] = tuple(
    [ClaimSpec(key + suffix, prefix + statement, source, decided_on(where, rule))
     for suffix, prefix, where in (
         ("", "", live_trials), (RECORDED, "", recorded_trials),
         (ON_REFERENCE, REFERENCE_PREFIX, live_practised),
         (ON_REFERENCE + RECORDED, REFERENCE_PREFIX, recorded_practised))
     for key, statement, source, rule in _learning_claims()])


def _failed_recorded(ctx: Context) -> list[Claim]:
    return [c for key, c in ctx.claims.items() if key.endswith(RECORDED)
            and not key.endswith(ON_REFERENCE + RECORDED) and c.verdict == "not reproduced"]


ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "eq24", "wrong",
        "Eq. (24) mixes epsilon/k (k undefined) with epsilon/d_hat in PRS's bit flip; with two "
        "budgets the probability can leave [0, 1] or its ratio exceed e^(epsilon/d_hat).",
        "Implemented as eq. (4) with epsilon/d_hat in both places; exact enumeration shows the "
        "worst-case log ratio equals epsilon, and a weakened version exceeds it (check "
        "prs_exact_ldp, prs_weakened_caught)."),
    ErratumSpec(
        "hyperparameters", "ambiguous",
        lambda ctx: "The paper leaves open: " + "; ".join(f"{k}: {v}" for k, v in AMBIGUITIES),
        "Section 4 and Algorithm 1; the chapter's report statistics show the clip binding on "
        "every report and the greedy policy collapsing to one action."),
    ErratumSpec(
        "learning_not_reproduced", "not reproduced",
        lambda ctx: "The stated hyper-parameters do not learn (section 4 and Algorithm 1 as "
        "published, recorded paper-scale run): " + "; ".join(
            c.statement for c in _failed_recorded(ctx)) + ". The private claims on this set-up "
        "are untestable (the non-private baseline does not learn), not refuted. "
        + _reference_sentence(ctx),
        lambda ctx: f"{ctx.values['rec_source']}: " + "; ".join(
            f"{c.key}: {c.evidence_text()}" for c in _failed_recorded(ctx)),
        when=lambda ctx: bool(_failed_recorded(ctx))),
)


def _reference_sentence(ctx: Context) -> str:
    """Where the private claims are decided instead: the recorded reference set-up's baseline
    and the ablation's arms (successes out of trials), when recorded."""
    if "rec_practised_tables" not in ctx.tables:
        return ("They are decided on the reference set-up (module practised; claims ending in "
                f"{ON_REFERENCE}), whose paper-scale run is not recorded yet.")
    tables = ctx.tables["rec_practised_tables"]
    base = tables[np.isinf(tables.epsilon) & (tables.mechanism == "laplace")].set_index("variant")
    arms = "; ".join(f"{v}: {int(r.successes)}/{int(r.n_trials)}" for v, r in base.iterrows())
    return ("They are decided on the reference set-up instead (claims ending in "
            f"{ON_REFERENCE + RECORDED}). Its non-private ablation at the paper's scale "
            f"(recorded): {arms}.")
