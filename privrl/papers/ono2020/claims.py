"""The paper's claims (:data:`CLAIMS`) and errata (:data:`ERRATA`) of ono2020.

Each learning claim (Tables 1-3 and Figure 2) is decided twice: on this run's trials, and, when a
paper-profile run is recorded, on its trials (key ending ``_paper``, stamped with that run's
profile and commit). A success ratio is judged by its exact (Clopper-Pearson) 95% interval
(:func:`~privrl.chapter.verdicts.decide_success_ratio`), a median first success time (eq. 26)
by a bootstrap interval, a difference of success ratios by Newcombe's interval, a difference of
average scores (eq. 25) by a bootstrap interval of the difference of medians.
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
from privrl.papers.ono2020.profile import AMBIGUITIES, INF, PAPER_CAP, PAPER_TABLES, eps_label
from privrl.papers.ono2020.tables import arm

#: Suffix of the keys of claims decided on the recorded paper-profile run.
RECORDED = "_paper"


@dataclass(frozen=True)
class Trials:
    """What a claim is decided on: the trials of Tables 1-3, the curves of Figure 2, the budget
    ``cap`` they ran at, the evidence's source in words, and (for a recorded run) its profile
    and commit."""

    trials: pd.DataFrame
    curves: pd.DataFrame
    cap: int
    evidence: str
    profile: str = ""
    commit: str = ""


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


Rule = Callable[[Trials, str, str], Claim]


def success_ratio(mech: str, eps: float) -> Rule:
    """"The paper's algorithm reaches the target in most trials" (Table 2): success ratio above
    1/2 at the paper's budget of 90,000 submissions."""
    def rule(data: Trials, key: str, statement: str) -> Claim:
        trials = arm(data.trials, "paper", mech, eps)
        return decide_success_ratio(key, statement, int(trials["success"].sum()), len(trials),
                                    0.5, budget=data.cap, full_budget=PAPER_CAP,
                                    unit="submissions", evidence=data.evidence)
    return rule


def median_fst(mech: str, eps: float) -> Rule:
    """"Median first success time (eq. 26) below 10,000 submissions" (Table 1), FST censored at
    the budget; untestable at a budget below 10,000."""
    def rule(data: Trials, key: str, statement: str) -> Claim:
        trials = arm(data.trials, "paper", mech, eps)
        fst = np.minimum(trials["first_success"].to_numpy(dtype=float), data.cap + 1)
        if data.cap < 10_000:
            return untestable(key, statement, f"the profile's budget ({data.cap:,}) is below "
                              "10,000", len(fst), data.evidence)
        return decide_threshold(key, statement, fst, 10_000, direction="less",
                                label="FST (censored at the budget)", statistic="median",
                                evidence=data.evidence)
    return rule


def succeeds_more_often(eps: float, better: str, worse: str) -> Rule:
    """"``better`` succeeds more often than ``worse`` at ``eps``" (Tables 2-3)."""
    def rule(data: Trials, key: str, statement: str) -> Claim:
        a = arm(data.trials, "paper", better, eps)
        b = arm(data.trials, "paper", worse, eps)
        return decide_proportions(key, statement, int(a.success.sum()), len(a),
                                  int(b.success.sum()), len(b), direction="greater",
                                  label_a=better, label_b=worse, evidence=data.evidence)
    return rule


def buffering(mech: str, direction: str) -> Rule:
    """"Buffering (|B| = 100) helps/hurts ``mech`` at epsilon = 1" (Figure 2): per trial, the
    average score (eq. 25) over the second half of training, |B| = 100 against |B| = 1."""
    def rule(data: Trials, key: str, statement: str) -> Claim:
        curves = data.curves
        half = curves[curves.submission > curves.submission.max() / 2]
        late = half.groupby(["mechanism", "buffer_size", "trial"]).avg_score.mean()
        with_b = late.get((mech, 100), pd.Series(dtype=float)).to_numpy()
        without = late.get((mech, 1), pd.Series(dtype=float)).to_numpy()
        return decide_difference(key, statement, with_b, without, direction=direction,
                                 label_a="|B|=100", label_b="|B|=1", statistic="median",
                                 evidence=data.evidence)
    return rule


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


def _learning_claims() -> list[tuple[str, str, str, Rule]]:
    """``(key, statement, source, rule)`` of every learning claim, in the order they are listed."""
    table2 = "Table 2 and section 4.3"
    out: list[tuple[str, str, str, Rule]] = [
        ("baseline_learns", "Non-private PGC-A3C (Laplace clipping, epsilon = inf) reaches the "
         "target in most trials (Table 2: 1.0)",
         f"{table2} ('The non-private A3C (epsilon = inf) succeeds in all trials')",
         success_ratio("laplace", INF)),
        ("laplace_eps1_learns", "PGC-A3C with Laplace at epsilon = 1 reaches the target in most "
         "trials (Table 2: 0.80)", table2, success_ratio("laplace", 1.0)),
        ("prs_eps1_learns", "PGC-A3C with PRS at epsilon = 1 reaches the target in most trials "
         "(Table 2: 0.85)", table2, success_ratio("prs", 1.0)),
    ]
    for (mech, eps), printed in PAPER_TABLES["median_fst"].items():
        if printed >= 10_000:
            continue
        key = f"median_fst_{mech}_eps{'inf' if math.isinf(eps) else f'{eps:g}'}"
        out.append((key, f"{_name(mech)} at {eps_label(eps)}: median first success time below 10,000 "
                    f"submissions (Table 1: {printed:,.0f})", "Table 1 and section 4.2",
                    median_fst(mech, eps)))
    for key, eps, better, worse in (("prs_beats_laplace_eps1", 1.0, "prs", "laplace"),
                                    ("laplace_beats_prs_eps10", 10.0, "laplace", "prs")):
        out.append((key, f"{_name(better)} succeeds more often than {_name(worse)} at epsilon "
                    f"= {eps:g} (Tables 2-3)", "Table 2 and section 4.3 ('The algorithm using "
                    "PRS gives more successes for epsilon = 1, 2, and the algorithm using the "
                    "Laplace mechanism shows better for epsilon = 5, 10')",
                    succeeds_more_often(eps, better, worse)))
    for key, mech, direction, text in (("buffer_helps_prs", "prs", "greater", "helps PRS"),
                                       ("buffer_hurts_laplace", "laplace", "less",
                                        "hurts Laplace")):
        out.append((key, f"Buffering (|B| = 100) {text} at epsilon = 1 (Figure 2: average score "
                    "over the second half of training)", "Figure 2 and section 4.1 ('the "
                    "buffering helps the PRS mechanism to train the policy well, but it disturbs "
                    "the training with the Laplace mechanism')", buffering(mech, direction)))
    return out


#: The learning claims on this run, then (where recorded) on the paper-profile run.
CLAIMS: tuple[ClaimSpec, ...] = tuple(
    [ClaimSpec(key, statement, source, decided_on(live_trials, rule))
     for key, statement, source, rule in _learning_claims()]
    + [ClaimSpec(key + RECORDED, statement, source, decided_on(recorded_trials, rule))
       for key, statement, source, rule in _learning_claims()])


def _failed_recorded(ctx: Context) -> list[Claim]:
    return [c for key, c in ctx.claims.items()
            if key.endswith(RECORDED) and c.verdict == "not reproduced"]


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
        lambda ctx: "The learning results (Tables 1-3, Figure 2) are not reproduced from the "
        "published description: " + "; ".join(c.statement for c in _failed_recorded(ctx)) + ".",
        lambda ctx: f"{ctx.values['rec_source']}: " + "; ".join(
            f"{c.key}: {c.evidence_text()}" for c in _failed_recorded(ctx)),
        when=lambda ctx: bool(_failed_recorded(ctx))),
)
