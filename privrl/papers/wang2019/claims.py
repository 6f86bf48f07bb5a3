"""Wang and Hegde (2019): the paper's claims (:data:`CLAIMS`) and the chapter's errata
(:data:`ERRATA`).

The claims of Section 4 (p. 8) on Figures 1 and 2 are decided on the released function's greedy
return over the last :data:`~privrl.papers.wang2019.profile.FINAL_EPISODES` episodes, one value
per seed, with bootstrap 95% intervals: once on this run's curves and once (keys ending in
``_paper``) on the recorded paper-profile curves, when a paper-scale run is recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.records import RecordedRun, recorded_run
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.verdicts import Claim, decide_difference, decide_threshold, untestable
from privrl.papers.wang2019.profile import (
    CLAIM_EPSILON,
    PAPER,
    SMALL_SIGMA,
    SMALL_SIGMA_FRACTION,
)
from privrl.papers.wang2019.runs import final_returns, read_paper_curves

#: What the claims are decided on (the training return the paper plots is drawn beside it).
COLUMN = "eval_return"
WORD = "released function's greedy return"
SECTION4 = "Section 4 (Experiments), p. 8"

Decide = Callable[[pd.DataFrame, ClaimSpec], Claim]


def _by(frame: pd.DataFrame, **equal: Any) -> np.ndarray:
    """The last column of ``frame``'s rows matching ``equal``, in seed order."""
    mask = np.ones(len(frame), dtype=bool)
    for key, value in equal.items():
        mask &= frame[key].to_numpy() == value
    return frame.loc[mask].sort_values("seed").iloc[:, -1].to_numpy(dtype=float)


def _figure1(curves: pd.DataFrame) -> tuple[pd.DataFrame, list[float]]:
    """Final returns of Figure 1's runs under the curves' main protocol, and the amplitudes."""
    fig1 = curves[curves.sigma.notna() & (curves.protocol == curves.protocol.mode().iloc[0])]
    f1 = final_returns(fig1, ["sigma", "resample"], COLUMN)
    return f1, sorted(f1.sigma.unique())


def noise_slows(curves: pd.DataFrame, spec: ClaimSpec) -> Claim:
    """The largest amplitude ends below no noise (paths redrawn every round)."""
    f1, sigmas = _figure1(curves)
    s_max = max(sigmas)
    return decide_difference(
        spec.key, spec.statement,
        _by(f1, sigma=s_max, resample="every"), _by(f1, sigma=0.0, resample="every"),
        direction="less", label_a=f"sigma={s_max:g}", label_b="sigma=0",
    )


def small_sigma_converges(curves: pd.DataFrame, spec: ClaimSpec) -> Claim:
    """The largest amplitude below :data:`SMALL_SIGMA` ends above a fraction of no noise."""
    f1, sigmas = _figure1(curves)
    small = [s for s in sigmas if 0 < s < SMALL_SIGMA]
    if not small:
        return untestable(spec.key, spec.statement, f"the profile has no sigma in (0, {SMALL_SIGMA:g})")
    ref = SMALL_SIGMA_FRACTION * float(np.mean(_by(f1, sigma=0.0, resample="every")))
    return decide_threshold(
        spec.key, spec.statement, _by(f1, sigma=max(small), resample="every"), ref,
        direction="greater", label=f"sigma={max(small):g}",
    )


def resample_helps(curves: pd.DataFrame, spec: ClaimSpec) -> Claim:
    """At the largest amplitude, paths redrawn every round end above paths never redrawn."""
    f1, sigmas = _figure1(curves)
    s_max = max(sigmas)
    return decide_difference(
        spec.key, spec.statement,
        _by(f1, sigma=s_max, resample="every"), _by(f1, sigma=s_max, resample="never"),
        direction="greater", label_a="every", label_b="never",
    )


def beats(other: str) -> Decide:
    """At :data:`CLAIM_EPSILON`, Algorithm 1 (calibrated for the updates performed) ends above
    the baseline ``other``."""

    def decide(curves: pd.DataFrame, spec: ClaimSpec) -> Claim:
        fig2 = curves[curves.epsilon.notna() & np.isfinite(curves.epsilon)]
        f2 = final_returns(fig2, ["epsilon", "variant"], COLUMN)
        if not (f2.epsilon == CLAIM_EPSILON).any():
            return untestable(spec.key, spec.statement,
                              f"the profile has no Figure 2 run at epsilon = {CLAIM_EPSILON:g}")
        return decide_difference(
            spec.key, spec.statement,
            _by(f2, epsilon=CLAIM_EPSILON, variant="functional"),
            _by(f2, epsilon=CLAIM_EPSILON, variant=other),
            direction="greater", label_a="functional", label_b=other,
        )

    return decide


def paper_record(ctx: Context) -> tuple[pd.DataFrame, RecordedRun] | None:
    """The recorded paper-profile curves and their run record, or ``None`` when either is
    missing (read once per run, kept in ``ctx.extra`` as ``paper_curves`` and ``paper_run``)."""
    if "paper_curves" not in ctx.extra:
        ctx.extra["paper_curves"] = read_paper_curves()
        ctx.extra["paper_run"] = recorded_run(PAPER)
    curves, run = ctx.extra["paper_curves"], ctx.extra["paper_run"]
    return None if curves is None or run is None else (curves, run)


def on_this_run(decide: Decide) -> Callable[[Context, ClaimSpec], Claim]:
    """Decide on this run's curves."""
    return lambda ctx, spec: decide(ctx.tables["curves"], spec)


def on_recorded_run(decide: Decide) -> Callable[[Context, ClaimSpec], Claim | None]:
    """Decide on the recorded paper-profile curves, stamped with the recorded run's profile and
    commit; ``None`` when none are recorded, or when this run is itself at the paper profile
    (its own claims are the paper-scale ones)."""

    def decide_recorded(ctx: Context, spec: ClaimSpec) -> Claim | None:
        record = paper_record(ctx)
        if record is None or ctx.profile.profile == "paper":
            return None
        curves, run = record
        return replace(decide(curves, spec), profile="paper", commit=run.commit)

    return decide_recorded


_CLAIMS: tuple[tuple[str, str, str, Decide], ...] = (
    ("fig1_noise_slows", f"More noise, lower return after training (Figure 1; {WORD})",
     f"{SECTION4}, Figure 1: 'With the increase of the noise level, the algorithm requires more "
     "samples to achieve the same return than the non-private version'", noise_slows),
    ("fig1_small_sigma",
     f"Resampling every round, sigma < {SMALL_SIGMA:g} converges with limited sub-optimality: at "
     f"least {SMALL_SIGMA_FRACTION:.0%} of the non-private final return ({WORD})",
     f"{SECTION4}, Figure 1: 'with the noise being reset every round (J = T/B), the algorithm is "
     "likely to converge with limited sub-optimality as desired, especially when sigma < 0.4'",
     small_sigma_converges),
    ("fig1_resample_helps", f"Resetting the noise every round beats never resetting ({WORD})",
     f"{SECTION4}, Figure 1: 'we suggest using J = T/B in practice to achieve a better utility'",
     resample_helps),
    *(
        (f"fig2_beats_{other.replace(' (reward fn)', '_rf')}",
         f"At epsilon = {CLAIM_EPSILON:g}, Algorithm 1 (noise for the updates performed) ends "
         f"above {other} ({WORD})",
         f"{SECTION4}, Figure 2(b): 'our algorithm significantly outperforms them. Especially, on "
         "the higher privacy regime epsilon = 0.45, both the baseline methods do not improve "
         "over the training'" + (" (DP-SGD recalibrated for neighbouring reward functions)"
                                 if other == "dpsgd (reward fn)" else ""),
         beats(other))
        for other in ("dpsgd", "input", "dpsgd (reward fn)")
    ),
)

CLAIMS: tuple[ClaimSpec, ...] = (
    *(ClaimSpec(key, statement, source, on_this_run(decide))
      for key, statement, source, decide in _CLAIMS),
    *(ClaimSpec(f"{key}_paper", statement, f"{source} (recorded paper-profile run)",
                on_recorded_run(decide))
      for key, statement, source, decide in _CLAIMS),
)

ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "appendix_e_missing",
        "ambiguous",
        "Appendix E (baselines and the sigma table) is not available; the constants k, L, alpha, "
        "T, J behind Figure 2 are not stated.",
        "Theorem 5 is computed for the experiment's constants; each baseline is calibrated from "
        "its own paper at the same (epsilon, delta), relation stated per method.",
    ),
    ErratumSpec(
        "authors_code_right_end",
        "wrong",
        "The authors' code conditions points beyond the right end of the stored sample path on "
        "the leftmost stored value, which gives the wrong covariance.",
        "OUSamplePath uses exact Ornstein-Uhlenbeck conditioning on the nearest stored point, "
        "tested against dense GP conditioning (check covariance_matches_kernel).",
    ),
    ErratumSpec(
        "proposition10",
        "wrong",
        "Proposition 10's bound 2 sqrt(2) sigma / (sqrt(n pi)(1 - gamma)) on (1/n) E||v' - v*||_1 "
        "decays like 1/sqrt(n) only if the value errors average out over states. That holds for "
        "zero-mean i.i.d. noise entering linearly, but not for Algorithm 1: the noise goes "
        "through the max over actions (E max >= max E biases v' upwards, by an amount that does "
        "not shrink with n), and the functional noise is one smooth path on [0, 1] whose values "
        "at nearby states are strongly correlated.",
        "Simulated random MDPs at n = {p10_n:.0f}: one action, i.i.d. noise stays within "
        "the bound (largest ratio {p10_linear_ratio:.2f}); two actions, i.i.d. noise: "
        "signed error {p10_bias_ratio:.2f} x the bound; two actions, OU paths: "
        "{p10_ou_ratio:.2f} x (checks prop10_*).",
    ),
    ErratumSpec(
        "theorem5_update_count",
        "wrong",
        "Theorem 5 counts T/B noisy updates; the authors' DQN makes one update per sample once a "
        "batch is stored, each on a batch whose rewards all differ under neighbouring reward "
        "functions.",
        "Calibrated for the T/B count, the run's updates are certified only at epsilon = "
        "{tb_epsilon:.3g} for a target of {eps_lo:g}; the chapter calibrates for "
        "the updates performed (ledger).",
    ),
    ErratumSpec(
        "union_bound_paths",
        "ambiguous",
        "Theorem 5's approximation term counts J resamplings, but every resampling draws one path "
        "per action (and the authors' code gives the target network its own paths).",
        "The calibration's union bound runs over every path drawn (4 per episode under the "
        "authors' protocol); total delta <= target is checked.",
    ),
    ErratumSpec(
        "figure2_not_like_for_like",
        "wrong",
        "Figure 2 compares methods under different neighbouring relations: DP-SGD's usual "
        "calibration protects one transition (add/remove, with subsampling amplification), "
        "output perturbation protects one queried value per update, Algorithm 1 a whole reward "
        "function.",
        "Calibrated for neighbouring reward functions at epsilon = {eps_lo:g}, DP-SGD's "
        "noise multiplier is {z_rf:.3g} instead of {z_transition:.3g} "
        "(calibration table).",
    ),
    ErratumSpec(
        "figure1_training_return",
        "ambiguous",
        "Figure 1 plots the return of the training episodes (epsilon-greedy on Q + g, as the "
        "authors' code records it), not the return of the released function.",
        "The chapter decides claims on the released function's greedy return on fixed evaluation "
        "episodes and shows the training return beside it.",
    ),
)
