"""The claims of Balle, Gomrokchi and Precup (2016), each decided over the independent trials of
Figure 1 (:data:`CLAIMS`, on the evidence's :class:`Figure1Trials`), and the chapter's errata
(:data:`ERRATA`).

Every claim compares per-trial values (:func:`privrl.papers.balle2016.runs.per_trial`) of one
algorithm at the smallest or the largest batch size of the profile with another's
(:class:`Arm`); "the same solution" is read as an RMSE within a factor
:data:`~privrl.papers.balle2016.profile.SAME_ACCURACY_FACTOR` of the non-private one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from privrl.chapter.evidence import Evidence
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec, not_reproduced
from privrl.chapter.verdicts import (
    Outcome,
    Sample,
    Threshold,
    decide_difference,
    decide_threshold,
    untestable,
)
from privrl.papers.balle2016.profile import PAPER_BATCHES, SAME_ACCURACY_FACTOR, BalleProfile
from privrl.papers.balle2016.runs import per_trial


@dataclass(frozen=True)
class Figure1Trials:
    """The data the claims are decided on: Figure 1's tidy table (one row per trial x batch x
    features x method x c; :func:`~privrl.papers.balle2016.runs.run_figure1`)."""

    table: pd.DataFrame


Decide = Callable[[Context, Evidence[Figure1Trials]], Outcome]


def _sizes(profile: BalleProfile) -> dict[str, int]:
    """The smallest and the largest batch size of ``profile`` (templates ``{small}``,
    ``{large}``)."""
    return {"small": min(profile.batch_sizes), "large": max(profile.batch_sizes)}


@dataclass(frozen=True)
class Arm:
    """Per-trial ``column`` of ``method`` on ``features`` at the smallest or largest batch size."""

    features: str
    method: str
    batch: Literal["small", "large"]
    column: str = "rmse"

    def values(self, ev: Evidence[Figure1Trials]) -> np.ndarray:
        m = _sizes(ev.profile)[self.batch]
        return per_trial(ev.data.table, self.features, self.method, m, self.column)


def smaller(a: Arm, b: Arm, label_a: str, label_b: str, evidence: str) -> Decide:
    """Decide "``a`` is smaller than ``b``": a paired difference of the per-trial values below 0
    (labels and evidence are templates over ``{small}`` and ``{large}``)."""

    def decide(ctx: Context, ev: Evidence[Figure1Trials]) -> Outcome:
        sizes = _sizes(ev.profile)
        return decide_difference(
            Sample(a.values(ev), label_a.format(**sizes)),
            Sample(b.values(ev), label_b.format(**sizes)),
            Threshold(0.0, "less"),
            seed=ev.profile.seed,
            evidence=evidence.format(**sizes),
        )

    return decide


def within_factor(private: Arm, nonprivate: Arm) -> Decide:
    """Decide "``private`` reaches ``nonprivate``": per-trial RMSE ratio below
    :data:`SAME_ACCURACY_FACTOR`."""

    def decide(ctx: Context, ev: Evidence[Figure1Trials]) -> Outcome:
        ratio = private.values(ev) / nonprivate.values(ev)
        return decide_threshold(
            Sample(ratio, f"RMSE {private.method} / RMSE {nonprivate.method}"),
            Threshold(SAME_ACCURACY_FACTOR, "less"),
            seed=ev.profile.seed,
            evidence=f"per-trial RMSE ratio at the largest batch m = {_sizes(ev.profile)['large']}; "
            f"'same solution' read as within a factor {SAME_ACCURACY_FACTOR:g} (our "
            "threshold)",
        )

    return decide


def _schedule_untestable(ctx: Context, ev: Evidence[Figure1Trials]) -> Outcome:
    return untestable(
        "the paper does not state the schedules it compared; this run sweeps the "
        "constant c at power 0.4 only (Figure 1, panel 2)",
        ev.profile.n_trials,
    )


_SAME_SOLUTION = (
    "Section 6, Figure 1 (third panel): 'the DP algorithms converge to the same "
    "solutions as the non-private corresponding versions for large enough batch sizes'"
)
_AGGRESSIVE = (
    "Section 6, Figure 1 (fourth panel): 'more aggressive function approximation helps both "
    "differentially private algorithms converge faster'"
)

#: The claims of Sections 5 and 6, decided on this run's trials and, beside a run of another
#: profile, read from the recorded paper-profile run (keys ``<key>_paper``:
#: :meth:`Balle2016Chapter.evidence <privrl.papers.balle2016.chapter.Balle2016Chapter.evidence>`).
# In the paper's order: Section 5 (opening), then Section 6 on Figure 1's panels as its text
# reads them (first panel, third panel, the schedule of the second panel, fourth panel).
CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "dp_noise_decreases",
        "The noise of the DP mechanism decreases as the batch size grows (DP-LSW, aggregated)",
        "Section 5 (opening): 'when the input dataset grows, the amount of noise added by our "
        "algorithms decreases'",
        smaller(
            Arm("aggregated", "DP-LSW", "large", "sigma"),
            Arm("aggregated", "DP-LSW", "small", "sigma"),
            "sigma_X at m = {large}",
            "sigma_X at m = {small}",
            "per-trial noise scale of the release; 'rapidly' is not tested here (see the rate "
            "of Theorem 11)",
        ),
    ),
    ClaimSpec(
        "nonprivate_converge",
        "Both non-private algorithms converge: LSL's error falls with the batch size (tabular; "
        "LSW is the faster one)",
        "Section 6, Figure 1 (first panel): 'both algorithms are very stable and converge to the "
        "same solution'",
        smaller(
            Arm("tabular", "LSL", "large"),
            Arm("tabular", "LSL", "small"),
            "RMSE LSL at m = {large}",
            "RMSE LSL at m = {small}",
            "per-trial RMSE at the largest and the smallest batch",
        ),
    ),
    ClaimSpec(
        "lsw_faster",
        "Non-private LSW converges faster than LSL (tabular)",
        "Section 6, Figure 1 (first panel): '... but LSW converges faster'",
        smaller(
            Arm("tabular", "LSW", "large"),
            Arm("tabular", "LSL", "large"),
            "RMSE LSW",
            "RMSE LSL",
            "per-trial RMSE at the largest batch m = {large}",
        ),
    ),
    ClaimSpec(
        "dp_lsw_reaches_lsw",
        "DP-LSW converges to the non-private solution for large enough batches (aggregated)",
        _SAME_SOLUTION,
        within_factor(Arm("aggregated", "DP-LSW", "large"), Arm("aggregated", "LSW", "large")),
    ),
    ClaimSpec(
        "dp_lsl_reaches_lsl",
        "DP-LSL converges to the non-private solution for large enough batches (aggregated)",
        _SAME_SOLUTION,
        within_factor(Arm("aggregated", "DP-LSL", "large"), Arm("aggregated", "LSL", "large")),
    ),
    ClaimSpec(
        "dp_lsl_better_small",
        "DP-LSL works better with small batches (aggregated)",
        "Section 6, Figure 1 (third panel): 'The LSL algorithms work better with small "
        "batches of data'",
        smaller(
            Arm("aggregated", "DP-LSL", "small"),
            Arm("aggregated", "DP-LSW", "small"),
            "RMSE DP-LSL",
            "RMSE DP-LSW",
            "per-trial RMSE at the smallest batch m = {small}",
        ),
    ),
    ClaimSpec(
        "dp_lsw_better_large",
        "DP-LSW is preferable with large batches (aggregated)",
        "Section 6, Figure 1 (third panel): 'whereas the LSW approach is preferable with "
        "large batches'",
        smaller(
            Arm("aggregated", "DP-LSW", "large"),
            Arm("aggregated", "DP-LSL", "large"),
            "RMSE DP-LSW",
            "RMSE DP-LSL",
            "per-trial RMSE at the largest batch m = {large}",
        ),
    ),
    ClaimSpec(
        "lsl_schedule",
        "A regularisation schedule proportional to m^0.4 gives DP-LSL the best overall accuracy",
        "Section 6, Figure 1 (second panel): 'the tradeoff between accuracy and privacy in the "
        "DPLSL algorithm should be done by setting a regularization schedule proportional to "
        "[m^0.4; the exponent is lost from the available text, 0.4 is the authors' code's] ... it "
        "achieves the best overall accuracy'",
        _schedule_untestable,
    ),
    ClaimSpec(
        "aggregation_helps_dp_lsw",
        "Aggregation lowers the excess empirical risk of DP-LSW",
        _AGGRESSIVE,
        smaller(
            Arm("aggregated", "DP-LSW", "large", "excess_risk"),
            Arm("tabular", "DP-LSW", "large", "excess_risk"),
            "excess risk aggregated",
            "excess risk tabular",
            "per-trial excess empirical risk at the largest batch m = {large}",
        ),
    ),
    ClaimSpec(
        "aggregation_helps_dp_lsl",
        "Aggregation lowers the excess empirical risk of DP-LSL",
        _AGGRESSIVE,
        smaller(
            Arm("aggregated", "DP-LSL", "large", "excess_risk"),
            Arm("tabular", "DP-LSL", "large", "excess_risk"),
            "excess risk aggregated",
            "excess risk tabular",
            "per-trial excess empirical risk at the largest batch m = {large}",
        ),
    ),
)


def _not_reproduced(spec: ClaimSpec) -> ErratumSpec:
    """The erratum of claim ``spec`` not reproduced (:func:`~privrl.chapter.skeleton.
    not_reproduced`), stating the profile's privacy parameters."""

    def statement(ctx: Context) -> str:
        p = ctx.profile
        return (
            f"'{spec.statement}' is not reproduced at epsilon = {p.epsilon:g}, delta = "
            f"{p.delta:g} in the paper's range of batch sizes"
        )

    return not_reproduced(spec, statement)


ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "reward_placement",
        "ambiguous",
        "Section 6 pays the reward 'when the agent reaches the final, absorbing state'; the "
        "authors' repository (maziarg/Private-Policy-Learning) holds versions paying it on that "
        "transition, on entering the last non-absorbing state, and on entering it and on every "
        "self-loop there, with F = R_max / (1 - gamma) = 100 in the noise",
        "simpleMC.py getReward and the recorded batches huge_batch.txt differ between commits; the "
        "chapter uses reward 1 on entering the last non-absorbing state (returns in [0, 1], F = 1) "
        "and lists paper, code and ours in a table",
    ),
    ErratumSpec(
        "equations_missing",
        "ambiguous",
        "The available text lost its equations and has no appendix: Lemma 1's statement, the LSW "
        "local-sensitivity bound and Lemmas 7 and 9 (DP-LSL) cannot be read",
        "alpha, beta, the smooth bounds and the lambda schedule recovered from the authors' code; "
        "Lemma 1's two conditions and the LSW bound re-derived; checks smooth_bounds, "
        "lemma1_conditions, local_sensitivity_arbitrary and privacy_loss of this chapter",
    ),
    *(_not_reproduced(spec) for spec in CLAIMS),
    ErratumSpec(
        "rate_m2_far_beyond_range",
        "not reproduced",
        "Theorem 11's O(1/m^2) excess risk of DP-LSW is not visible in the paper's range of batch "
        f"sizes (m <= {max(PAPER_BATCHES)}): the smooth bound is dominated by counts driven down "
        "to one, discounted only by e^(-beta m_s)",
        "noise variance of DP-LSW at the expected counts: local log-log slope -2 only from m = "
        "{rate_onset_aggregated:,} (aggregated) and m = {rate_onset_tabular:,} (tabular) "
        "trajectories; check rate_m2_asymptotic",
    ),
)
