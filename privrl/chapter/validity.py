r"""Validity conditions: a measurement that cannot tell the paper's answer apart from noise is
decided untestable, never reproduced or not reproduced.

Each condition is a function of the measurement that returns ``None`` when the measurement is
valid and otherwise an untestable :class:`~privrl.chapter.verdicts.Outcome` whose reason names
the condition: ``"invalid measurement (<condition>): <what fails>"``. A decider of
:mod:`privrl.chapter.verdicts` takes the evaluated conditions as ``validity=[...]`` and refuses
before deciding, on the first that is not ``None``
(:func:`~privrl.chapter.verdicts.refusal`: the condition's reason and evidence kept, the
decider's statistic and trials stated).

1. :func:`threshold_beyond_random_play`: a threshold metric (time to reach a return) measures
   learning only if random play does not reach its threshold on the smoothing used.
2. :func:`bootstrap_valid`: a percentile bootstrap interval of a median or of a ratio needs at
   least :data:`MIN_BOOTSTRAP_PER_ARM` samples per arm (exact intervals refuse by themselves
   where the sample sizes cannot reach 95%).
3. :func:`tuned_apart`: a tuned arm is decided on trials its tuning never looked at, and the arms
   a claim compares are tuned by one rule.
4. :func:`optimiser_reaches_target`: an optimiser's output is used only where its own noiseless
   run reaches its target within a stated factor.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from scipy import stats

from privrl.chapter.verdicts import Outcome, untestable

#: Names of the conditions, as the reasons give them.
RANDOM_PLAY = "threshold beyond random play"
BOOTSTRAP = "interval valid at its sample size"
TUNED_APART = "tuned apart from the deciding trials, by one rule"
OPTIMISER = "optimiser reaches its target"
#: Random play "reaches" a threshold when it would meet it in a run with probability above this
#: (:func:`random_play_reach`).
RANDOM_PLAY_LEVEL = 0.001
#: Fewest samples per arm for a percentile bootstrap interval of a median or a ratio (below it
#: the percentile interval's coverage falls well short of its nominal level).
MIN_BOOTSTRAP_PER_ARM = 20
#: Statistics whose percentile bootstrap :func:`bootstrap_valid` restricts (a mean's is not).
FRAGILE_STATISTICS = ("median", "ratio")


def invalid(condition: str, what: str, evidence: str = "") -> Outcome:
    """The untestable outcome of a failed ``condition``: ``"invalid measurement (<condition>):
    <what>"``."""
    return untestable(f"invalid measurement ({condition}): {what}", evidence=evidence)


def random_play_reach(
    mean: float,
    sd: float,
    measured: int,
    episodes: int,
    windows: int = 1,
    level: float = RANDOM_PLAY_LEVEL,
) -> float:
    r"""The return random play's smoothed return exceeds, in any of ``windows`` windows of a run,
    with probability at most ``level`` (union bound: at most :math:`\alpha` = ``level`` /
    ``windows`` in each): the upper one-sided prediction bound of the mean of ``episodes`` fresh
    random-play episodes, :math:`\bar R + t_{1-\alpha,\,n-1}\, s \sqrt{1/k + 1/n}`, from
    ``measured`` (n) episodes of mean ``mean`` and standard deviation ``sd`` (normal
    approximation; k = ``episodes``). ``windows`` is 1 for a metric that counts only the run's
    last window (reached and held to the end), the number of windows for one that counts the
    first window to reach the threshold."""
    if measured < 2 or episodes < 1 or windows < 1:
        raise ValueError(
            f"random_play_reach: needs measured >= 2, episodes >= 1 and windows >= "
            f"1, got {measured}, {episodes} and {windows}"
        )
    t = float(stats.t.ppf(1 - level / windows, measured - 1))
    return mean + t * sd * math.sqrt(1 / episodes + 1 / measured)


def threshold_beyond_random_play(
    threshold: float,
    mean: float,
    sd: float,
    measured: int,
    episodes: int,
    windows: int = 1,
    level: float = RANDOM_PLAY_LEVEL,
) -> Outcome | None:
    """Condition 1, for a return threshold (higher is better): the time to reach ``threshold``
    measures learning only if uniformly random play, smoothed as the learners' returns are (a
    mean over at least ``episodes`` episodes: the fewest a full smoothing window holds), does
    not reach it in a run's ``windows`` windows: ``threshold`` must lie above
    :func:`random_play_reach` of random play's ``measured`` episodes (``mean``, ``sd``).
    Otherwise untestable."""
    reach = random_play_reach(mean, sd, measured, episodes, windows, level)
    if threshold > reach:
        return None
    over = "" if windows == 1 else f" in one of {windows:,} windows"
    return invalid(
        RANDOM_PLAY,
        f"random play reaches the threshold {threshold:,.4g}: a mean of "
        f"{episodes} random-play episodes exceeds {reach:,.4g}{over} with probability "
        f"{level:g} (random play's mean {mean:,.4g}, standard deviation {sd:,.4g}, "
        f"over {measured} episodes)",
    )


def bootstrap_valid(statistic: str, n_per_arm: int) -> Outcome | None:
    """Condition 2, for a percentile bootstrap interval: of a ``statistic`` in
    :data:`FRAGILE_STATISTICS` (a median, a ratio) it needs at least
    :data:`MIN_BOOTSTRAP_PER_ARM` samples in its smallest arm (``n_per_arm``), else untestable;
    a mean's is not restricted here."""
    if statistic in FRAGILE_STATISTICS and n_per_arm < MIN_BOOTSTRAP_PER_ARM:
        return invalid(
            BOOTSTRAP,
            f"a percentile bootstrap of a {statistic} over {n_per_arm} "
            f"samples per arm (it needs at least {MIN_BOOTSTRAP_PER_ARM})",
        )
    return None


@dataclass(frozen=True)
class Tuning:
    """How one arm of a claim was tuned: its ``arm`` label, the ``rule`` that chose its setting
    (in words; arms of one claim are compared by it), the seeds of every trial whose outcome
    was looked at before the arm was decided (``looked_at``: its tuning trials and any earlier
    evaluation of it) and the seeds of the trials that decide it (``deciding``). A seed is any
    hashable identity of a random stream, e.g. (root seed, spawn index) of
    :func:`privrl.chapter.sweep.seed_for`."""

    arm: str
    rule: str
    looked_at: frozenset[Hashable]
    deciding: frozenset[Hashable]


def tuned_apart(arms: Sequence[Tuning]) -> Outcome | None:
    """Condition 3, for the tuned arms a claim compares (one for a claim on one arm): every
    arm is decided on seeds disjoint from those looked at before (its tuning and any earlier
    evaluation), and all are tuned by one rule; otherwise untestable."""
    for tuning in arms:
        shared = tuning.looked_at & tuning.deciding
        if shared:
            return invalid(
                TUNED_APART,
                f"{tuning.arm} is decided on {len(shared)} of "
                f"{len(tuning.deciding)} seeds that were looked at before "
                f"(its tuning or an earlier evaluation): {sorted(map(str, shared))}",
            )
    rules = {tuning.rule for tuning in arms}
    if len(rules) > 1:
        return invalid(
            TUNED_APART,
            "the arms compared were tuned by different rules: "
            + "; ".join(f"{t.arm} by '{t.rule}'" for t in arms),
        )
    return None


def optimiser_reaches_target(
    noiseless_error: float, target_error: float, factor: float, *, optimiser: str, target: str
) -> Outcome | None:
    """Condition 4: an ``optimiser``'s output (an estimate at its tuned settings, e.g. GPOPE's
    iterations and step) is used only where its own noiseless run reaches its ``target`` (the
    error the optimisation aims at, e.g. the non-private LSTD's) within ``factor``: errors,
    lower is better, ``noiseless_error <= factor * target_error``. Otherwise untestable: the
    optimiser, not privacy, would explain the error."""
    if not factor >= 1:
        raise ValueError(f"optimiser_reaches_target: factor must be >= 1, got {factor}")
    if noiseless_error <= factor * target_error:
        return None
    times = noiseless_error / target_error if target_error > 0 else math.inf
    return invalid(
        OPTIMISER,
        f"{optimiser} without noise ends at an error of "
        f"{noiseless_error:.4g}, {times:.3g} times {target}'s {target_error:.4g} "
        f"(allowed: {factor:g} times)",
    )


__all__ = [
    "BOOTSTRAP",
    "FRAGILE_STATISTICS",
    "MIN_BOOTSTRAP_PER_ARM",
    "OPTIMISER",
    "RANDOM_PLAY",
    "RANDOM_PLAY_LEVEL",
    "TUNED_APART",
    "Tuning",
    "bootstrap_valid",
    "invalid",
    "optimiser_reaches_target",
    "random_play_reach",
    "threshold_beyond_random_play",
    "tuned_apart",
]
