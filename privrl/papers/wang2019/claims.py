"""Wang and Hegde (2019): the paper's claims (:data:`CLAIMS`) and the chapter's errata
(:data:`ERRATA`).

The claims of Section 4 (p. 8) on Figures 1 and 2 are decided **on the paper's metric**: the
return of the training episodes (Figure 1's caption: "The y-axis denotes the return. The x-axis is
the number of samples the agent has trained on"; Figure 2 has the "same configurations"), column
:data:`PAPER_METRIC` of the curves, under the authors' path protocol, averaged over the last
:data:`~privrl.papers.wang2019.profile.FINAL_EPISODES` episodes, one value per seed (the paper
averages :data:`PAPER_TRIALS` seeds), with bootstrap 95% intervals, through
:func:`~privrl.chapter.verdicts.decide_difference` (the four-state rule). Figure 2's DP-SGD claim
is decided on DP-SGD calibrated for the paper's relation (neighbouring reward functions).

Rows keyed ``<key>_beyond`` go beyond the paper and never replace its verdicts: the same claims on
the released function's greedy return (:data:`RELEASED_METRIC`, what the guarantee covers), and
DP-SGD protecting one transition (a different neighbouring relation). Each claim is decided once
on this run's curves and once (keys ending in ``_paper``) on the recorded paper-profile curves,
where an inconclusive claim is priced with the recorded run's CPU time per trial
(:func:`seconds_per_trial`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.records import recorded_run
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.verdicts import Outcome, Sample, Threshold, decide_difference, untestable
from privrl.papers.wang2019.profile import (
    CLAIM_EPSILON,
    FINAL_EPISODES,
    PAPER,
    SMALL_SIGMA,
    SMALL_SIGMA_FRACTION,
)
from privrl.papers.wang2019.runs import final_returns, read_paper_curves
from privrl.papers.wang2019.state import PaperRecord

#: The paper's metric (Figures 1 and 2): the return of each training episode.
PAPER_METRIC = "train_return"
#: Beyond the paper: the released function's greedy return on fixed evaluation episodes.
RELEASED_METRIC = "eval_return"
METRIC_WORDS = {
    PAPER_METRIC: "return of the training episodes, as Figure 1 plots it",
    RELEASED_METRIC: "the released function's greedy return",
}
#: Independent trials behind the paper's curves (Figure 1: "averaged over 10 random seeds").
PAPER_TRIALS = 10
#: The protocol Figure 1's claims are decided under (the authors' code).
PROTOCOL = "authors"
SECTION4 = "Section 4 (Experiments), p. 8"
BEYOND = "Beyond the paper: "
NO_MAGNITUDE = "the paper states no magnitude, so the threshold is no effect (0)"


@dataclass(frozen=True)
class Curves:
    """What a claim is decided on: learning curves (this run's or the recorded run's) and the
    CPU seconds of one more trial of both arms (``None``: not priced; a quick run's trials are
    not the paper's)."""

    curves: pd.DataFrame
    seconds_per_trial: float | None = None


Decide = Callable[[Context, Evidence[Curves]], Outcome]


def _by(frame: pd.DataFrame, **equal: Any) -> np.ndarray:
    """The last column of ``frame``'s rows matching ``equal``, in seed order."""
    mask = np.ones(len(frame), dtype=bool)
    for key, value in equal.items():
        mask &= frame[key].to_numpy() == value
    return frame.loc[mask].sort_values("seed").iloc[:, -1].to_numpy(dtype=float)


def _evidence(column: str, n_seeds: int, threshold: str, seconds: float | None) -> str:
    """Where the decided numbers, the threshold and the price of a trial come from."""
    text = (
        f"{METRIC_WORDS[column]}, mean of the last {FINAL_EPISODES} episodes per seed, "
        f"{n_seeds} seeds (the paper: {PAPER_TRIALS}); threshold: {threshold}"
    )
    if seconds is not None:
        text += (
            f"; a trial of both arms costs about {seconds:.0f} CPU seconds (the recorded "
            "run's wall time x CPUs per training run)"
        )
    return text


def _figure1(curves: pd.DataFrame, column: str) -> tuple[pd.DataFrame, list[float]]:
    """Final ``column`` of Figure 1's runs under the authors' protocol, and the amplitudes."""
    fig1 = curves[curves.sigma.notna() & (curves.protocol == PROTOCOL)]
    f1 = final_returns(fig1, ["sigma", "resample"], column)
    return f1, sorted(f1.sigma.unique())


def noise_slows(column: str) -> Decide:
    """The largest amplitude ends below no noise (paths redrawn every round)."""

    def decide(ctx: Context, ev: Evidence[Curves]) -> Outcome:
        curves, seconds = ev.data.curves, ev.data.seconds_per_trial
        f1, sigmas = _figure1(curves, column)
        s_max = max(sigmas)
        a, b = _by(f1, sigma=s_max, resample="every"), _by(f1, sigma=0.0, resample="every")
        return decide_difference(
            Sample(a, f"sigma={s_max:g}"),
            Sample(b, "sigma=0"),
            Threshold(0.0, "less"),
            evidence=_evidence(column, min(a.size, b.size), NO_MAGNITUDE, seconds),
            seconds_per_trial=seconds,
        )

    return decide


def small_sigma_converges(column: str) -> Decide:
    """The largest amplitude below :data:`SMALL_SIGMA` ends above :data:`SMALL_SIGMA_FRACTION`
    of no noise: ``mean(small) - fraction * mean(none)`` above 0 (both arms' uncertainty)."""

    def decide(ctx: Context, ev: Evidence[Curves]) -> Outcome:
        curves, seconds = ev.data.curves, ev.data.seconds_per_trial
        f1, sigmas = _figure1(curves, column)
        small = [s for s in sigmas if 0 < s < SMALL_SIGMA]
        if not small:
            return untestable(f"the profile has no sigma in (0, {SMALL_SIGMA:g})")
        a = _by(f1, sigma=max(small), resample="every")
        b = SMALL_SIGMA_FRACTION * _by(f1, sigma=0.0, resample="every")
        threshold = (
            f"sigma < {SMALL_SIGMA:g} is the paper's; 'limited sub-optimality' has no "
            f"number in the paper, read as at least {SMALL_SIGMA_FRACTION:.0%} of the "
            "non-private return (a sub-optimality of at most a tenth)"
        )
        return decide_difference(
            Sample(a, f"sigma={max(small):g}"),
            Sample(b, f"{SMALL_SIGMA_FRACTION:g} x sigma=0"),
            Threshold(0.0, "greater"),
            evidence=_evidence(column, min(a.size, b.size), threshold, seconds),
            seconds_per_trial=seconds,
        )

    return decide


def resample_helps(column: str) -> Decide:
    """At the largest amplitude, paths redrawn every round end above paths never redrawn."""

    def decide(ctx: Context, ev: Evidence[Curves]) -> Outcome:
        curves, seconds = ev.data.curves, ev.data.seconds_per_trial
        f1, sigmas = _figure1(curves, column)
        s_max = max(sigmas)
        a, b = _by(f1, sigma=s_max, resample="every"), _by(f1, sigma=s_max, resample="never")
        return decide_difference(
            Sample(a, "every"),
            Sample(b, "never"),
            Threshold(0.0, "greater"),
            evidence=_evidence(column, min(a.size, b.size), NO_MAGNITUDE, seconds),
            seconds_per_trial=seconds,
        )

    return decide


def beats(other: str, column: str) -> Decide:
    """At :data:`CLAIM_EPSILON`, Algorithm 1 (calibrated for the updates performed) ends above
    the baseline variant ``other``."""

    def decide(ctx: Context, ev: Evidence[Curves]) -> Outcome:
        curves, seconds = ev.data.curves, ev.data.seconds_per_trial
        fig2 = curves[curves.epsilon.notna() & np.isfinite(curves.epsilon)]
        f2 = final_returns(fig2, ["epsilon", "variant"], column)
        if not (f2.epsilon == CLAIM_EPSILON).any():
            return untestable(f"the profile has no Figure 2 run at epsilon = {CLAIM_EPSILON:g}")
        a = _by(f2, epsilon=CLAIM_EPSILON, variant="functional")
        b = _by(f2, epsilon=CLAIM_EPSILON, variant=other)
        return decide_difference(
            Sample(a, "functional"),
            Sample(b, other),
            Threshold(0.0, "greater"),
            evidence=_evidence(column, min(a.size, b.size), NO_MAGNITUDE, seconds),
            seconds_per_trial=seconds,
        )

    return decide


def paper_record() -> PaperRecord | None:
    """The recorded paper-profile curves and their run record, or ``None`` when either is
    missing."""
    curves, run = read_paper_curves(), recorded_run(PAPER)
    return None if curves is None or run is None else PaperRecord(curves, run)


#: Columns that tell one training run of the curves from another (with ``seed``).
RUN_KEYS = ("method", "variant", "protocol", "sigma", "resample", "epsilon", "seed")


def seconds_per_trial(curves: pd.DataFrame, record: dict[str, Any], arms: int = 2) -> float:
    """CPU seconds of one more trial of each of ``arms`` arms, from a recorded run's timing: its
    wall time times its CPUs, shared equally by the training runs in its curves (an average over
    methods, and an upper bound on the CPU it used: the wall time also covers the checks)."""
    wall, cpus = float(record["wall_time_s"]), int(record.get("cpus", 1))
    if not (wall > 0 and cpus >= 1):
        raise ValueError(f"run record: wall_time_s must be > 0 and cpus >= 1, got {wall}, {cpus}")
    n_runs = len(curves[list(RUN_KEYS)].drop_duplicates())
    if n_runs < 1:
        raise ValueError("the recorded curves hold no training run")
    return arms * wall * cpus / n_runs


def _figure1_quote(text: str) -> str:
    return (
        f"{SECTION4}, Figure 1 (the return of the training episodes, {PAPER_TRIALS} seeds): "
        f"'{text}'"
    )


_FIG2_SOURCE = (
    f"{SECTION4}, Figure 2(b) (same configurations as Figure 1: the training return): "
    "'our algorithm significantly outperforms them. Especially, on the higher privacy "
    "regime epsilon = 0.45, both the baseline methods do not improve over the training'"
)
_NOISE = (
    "With the increase of the noise level, the algorithm requires more samples to achieve "
    "the same return than the non-private version"
)
_SMALL = (
    "with the noise being reset every round (J = T/B), the algorithm is likely to converge "
    "with limited sub-optimality as desired, especially when sigma < 0.4"
)
_RESET = "we suggest using J = T/B in practice to achieve a better utility"
_DPSGD_RF = "DP-SGD calibrated for neighbouring reward functions, the paper's relation"
_DPSGD_TRANSITION = (
    "different neighbouring relation: DP-SGD protecting one transition "
    "(add/remove, subsampling amplification), not a reward function"
)


_TRAIN = METRIC_WORDS[PAPER_METRIC]
_RELEASED = METRIC_WORDS[RELEASED_METRIC]
_SMALL_STATEMENT = (
    f"Resetting every round, sigma < {SMALL_SIGMA:g} converges with limited sub-optimality: "
    f"at least {SMALL_SIGMA_FRACTION:.0%} of the non-private final return ("
)
_SMALL_READING = "; the fraction is this chapter's reading, the paper gives none)"

#: The evidence every claim is decided on: this run's curves and the recorded paper-profile
#: run's (:meth:`Wang2019Chapter.evidence <privrl.papers.wang2019.chapter.Wang2019Chapter.evidence>`).
EVERY_RUN = (LIVE, "paper")
#: The evidence of the recorded pair (:mod:`~privrl.papers.wang2019.pair`: Algorithm 1 and input
#: perturbation at epsilon = 0.45, 50 seeds per arm), and the evidence of the claims comparing its
#: two arms: every run's and the pair's.
PAIR = "pair"
WITH_PAIR = (*EVERY_RUN, PAIR)

#: The claims, decided on this run's curves and on the recorded paper-profile run's; the two
#: comparing Algorithm 1 with input perturbation also on the recorded pair's (keys ``*_pair``).
# In the paper's order (Section 4, p. 8: Figure 1's three sentences, then Figure 2(b)'s), on
# the paper's metric; then the same five on the released function's greedy return and DP-SGD
# under the transition-level relation, beyond the paper.
CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "fig1_noise_slows",
        f"More noise, lower return after training (Figure 1; {_TRAIN})",
        _figure1_quote(_NOISE),
        noise_slows(PAPER_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig1_small_sigma",
        _SMALL_STATEMENT + _TRAIN + _SMALL_READING,
        _figure1_quote(_SMALL),
        small_sigma_converges(PAPER_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig1_resample_helps",
        f"Resetting the noise every round beats never resetting ({_TRAIN})",
        _figure1_quote(_RESET),
        resample_helps(PAPER_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig2_beats_dpsgd",
        f"At epsilon = {CLAIM_EPSILON:g}, Algorithm 1 ends above DP-SGD ({_DPSGD_RF}; {_TRAIN})",
        _FIG2_SOURCE,
        beats("dpsgd (reward fn)", PAPER_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig2_beats_input",
        f"At epsilon = {CLAIM_EPSILON:g}, Algorithm 1 ends above input perturbation ({_TRAIN})",
        _FIG2_SOURCE,
        beats("input", PAPER_METRIC),
        on=WITH_PAIR,
    ),
    ClaimSpec(
        "fig1_noise_slows_beyond",
        f"{BEYOND}More noise, lower return after training (Figure 1; {_RELEASED})",
        _figure1_quote(_NOISE),
        noise_slows(RELEASED_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig1_small_sigma_beyond",
        BEYOND + _SMALL_STATEMENT + _RELEASED + _SMALL_READING,
        _figure1_quote(_SMALL),
        small_sigma_converges(RELEASED_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig1_resample_helps_beyond",
        f"{BEYOND}Resetting the noise every round beats never resetting ({_RELEASED})",
        _figure1_quote(_RESET),
        resample_helps(RELEASED_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig2_beats_dpsgd_beyond",
        f"{BEYOND}At epsilon = {CLAIM_EPSILON:g}, Algorithm 1 ends above DP-SGD ({_DPSGD_RF}; "
        f"{_RELEASED})",
        _FIG2_SOURCE,
        beats("dpsgd (reward fn)", RELEASED_METRIC),
        on=EVERY_RUN,
    ),
    ClaimSpec(
        "fig2_beats_input_beyond",
        f"{BEYOND}At epsilon = {CLAIM_EPSILON:g}, Algorithm 1 ends above input perturbation "
        f"({_RELEASED})",
        _FIG2_SOURCE,
        beats("input", RELEASED_METRIC),
        on=WITH_PAIR,
    ),
    ClaimSpec(
        "fig2_beats_dpsgd_transition_beyond",
        f"{BEYOND}at epsilon = {CLAIM_EPSILON:g}, Algorithm 1 ends above DP-SGD under a "
        f"{_DPSGD_TRANSITION} ({_TRAIN})",
        _FIG2_SOURCE,
        beats("dpsgd", PAPER_METRIC),
        on=EVERY_RUN,
    ),
)
#: The keys of the claims decided on the recorded pair too.
ON_PAIR = tuple(spec.key for spec in CLAIMS if spec.on is not None and PAIR in spec.on)

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
        "update_premise",
        "unsupported",
        "Theorem 5's proof bounds one update (line 21: one SGD step of learning rate alpha) by "
        "||Q - Q0||_inf <= alpha L (2 + g(s') - g(s)) / B, L being 'the Lipschitz constant which "
        "only depends on the network architecture', and calibrates sigma to the RKHS bound "
        "sqrt(C) that Lemma 6 gives for it; Figure 2 reports at that epsilon runs of the "
        "authors' code, which takes RMSprop steps.",
        "RMSprop's first step moves every weight with a nonzero gradient by about 10 alpha "
        "whatever the gradient's size. Between rewards r and r + 1 or r - 1 everywhere (the larger "
        "move), the first update "
        "of a 'functional (T/B)' run at the quick profile's settings and epsilon 0.9 (k = 46, "
        "sqrt(C) = 0.122) "
        "moves Q by 5.63 in the RKHS norm read on 201 states, 46.1 x sqrt(C); one SGD step at "
        "alpha = 0.01 from the same state moves it by 0.307 x sqrt(C), but SGD with the "
        "chapter's L = 1 is no remedy: in a run trained by SGD, update 470 moves it by 1.27 x "
        "sqrt(C) (a ReLU network's gradients grow with its weights; no L fixed by the "
        "architecture bounds them). At the 'functional' calibration (sigma 45.7) the Huber "
        "loss's derivative saturates and the first update moves Q by 0.0882 x sqrt(C): no excess "
        "measured, none excluded. At epsilon 0.45 (the quick profile's one target; the paper "
        "profile's are 0.9 and 0.45) the first updates move Q by 6.18 x sqrt(C) "
        "(T/B) and 0 x sqrt(C) (sigma 135). So every Algorithm 1 ledger entry's epsilon rests "
        "on a premise the recorded runs do not meet, and Figure 2's comparisons at a common epsilon hold "
        "Algorithm 1 to a nominal one (tests/papers/test_replay_chapters.py, "
        "tests/papers/test_wang2019_update_premise.py).",
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
        "Figure 2 compares methods under different neighbouring relations: the paper calls "
        "DP-SGD 'differentially private under our setting', but its usual calibration protects "
        "one transition (add/remove, with subsampling amplification), Algorithm 1 a whole reward "
        "function. (Output perturbation, which the paper itself says is not private in its "
        "setting, protects only each queried value: the ledger records no guarantee for it.)",
        "Calibrated for neighbouring reward functions at epsilon = {eps_lo:g}, DP-SGD's "
        "noise multiplier is {z_rf:.3g} instead of {z_transition:.3g} "
        "(calibration table); the claim 'ends above DP-SGD' is decided on that arm, the "
        "transition-level arm is a row beyond the paper (different neighbouring relation).",
    ),
    ErratumSpec(
        "figure1_training_return",
        "ambiguous",
        "Figures 1 and 2 plot the return of the training episodes (epsilon-greedy on Q + g, as the "
        "authors' code records it), not the return of the function the privacy guarantee is "
        "about (the released Q function).",
        "The chapter decides the paper's claims on the training return, as the paper plots it, "
        "and shows the released function's greedy return on fixed evaluation episodes beside "
        "them as rows 'Beyond the paper' (keys ending in _beyond), which never replace the "
        "paper's verdicts.",
    ),
)
