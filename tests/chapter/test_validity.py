"""The validity conditions (:mod:`privrl.chapter.validity`): each refuses a constructed invalid
measurement, and a decider given it says untestable with the condition's reason instead of
deciding; a measurement that passes every condition is decided exactly as without them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.chapter import validity as v
from privrl.chapter.verdicts import (
    Count,
    Outcome,
    Sample,
    Threshold,
    decide_difference,
    decide_interval,
    decide_proportions,
    decide_success_ratio,
    decide_threshold,
)

RNG = np.random.default_rng(0)
A, B = RNG.normal(2.0, 1.0, 30), RNG.normal(0.0, 1.0, 30)
#: Every decider on data it decides reproduced, given ``validity``.
DECIDERS = {
    "decide_interval": lambda validity: decide_interval(
        "d", 1.0, (0.5, 1.5), 30, Threshold(0.0, "greater"), validity=validity
    ),
    "decide_difference": lambda validity: decide_difference(
        Sample(A, "a"), Sample(B, "b"), Threshold(0.0, "greater"), validity=validity
    ),
    "decide_difference (median)": lambda validity: decide_difference(
        Sample(A, "a"),
        Sample(B, "b"),
        Threshold(0.0, "greater"),
        statistic="median",
        validity=validity,
    ),
    "decide_threshold": lambda validity: decide_threshold(
        Sample(A, "a"), Threshold(1.0, "greater"), validity=validity
    ),
    "decide_threshold (median)": lambda validity: decide_threshold(
        Sample(A, "a"), Threshold(1.0, "greater"), statistic="median", validity=validity
    ),
    "decide_proportions": lambda validity: decide_proportions(
        Count(18, 20), Count(2, 20, "b"), Threshold(0.0, "greater"), validity=validity
    ),
    "decide_success_ratio": lambda validity: decide_success_ratio(
        Count(18, 20), 0.5, budget=100, full_budget=100, validity=validity
    ),
}


def _refused(outcome: Outcome, condition: str) -> None:
    assert outcome.verdict == "untestable"
    assert outcome.reason.startswith(f"invalid measurement ({condition}): ")
    assert outcome.value is None and outcome.interval is None


def test_a_threshold_random_play_reaches_is_untestable():
    """Condition 1: random play of mean 500, sd 230 (30 episodes), smoothed over 10 episodes,
    reaches about 790 with probability 0.001: a threshold of 700 is refused, 900 passes; the
    bound holds (a mean of 10 random episodes passes it in at most 0.1% of windows)."""
    reach = v.random_play_reach(500.0, 230.0, 30, 10)
    t = 3.396  # t_{0.999, 29}
    assert reach == pytest.approx(500 + t * 230 * math.sqrt(1 / 10 + 1 / 30), rel=1e-3)
    windows = RNG.normal(500.0, 230.0, (200_000, 10)).mean(axis=1)
    assert np.mean(windows >= reach) <= v.RANDOM_PLAY_LEVEL
    assert v.threshold_beyond_random_play(900.0, 500.0, 230.0, 30, 10) is None
    failed = v.threshold_beyond_random_play(700.0, 500.0, 230.0, 30, 10)
    _refused(failed, v.RANDOM_PLAY)
    assert "random play reaches the threshold 700" in failed.reason
    # a speed-up that a rank interval would call reproduced is refused on it
    claim = decide_interval(
        "time (baseline) / time (student)",
        3.0,
        (2.5, 4.0),
        5,
        Threshold(2.0, "greater"),
        evidence="threshold 2",
        validity=[failed],
    )
    _refused(claim, v.RANDOM_PLAY)
    assert claim.n_trials == 5 and claim.statistic.startswith("time (baseline)")
    assert claim.evidence == "threshold 2"
    # more episodes per window narrow random play's spread: the same threshold passes
    assert v.threshold_beyond_random_play(700.0, 500.0, 230.0, 1000, 1000) is None
    # a metric that counts the first of many windows to reach it (union bound over them)
    assert v.random_play_reach(500.0, 230.0, 30, 10, windows=1000) > reach
    assert v.threshold_beyond_random_play(900.0, 500.0, 230.0, 30, 10, windows=1) is None
    many = v.threshold_beyond_random_play(900.0, 500.0, 230.0, 30, 10, windows=1000)
    _refused(many, v.RANDOM_PLAY)
    assert "in one of 1,000 windows" in many.reason


@pytest.mark.parametrize(
    "statistic, n, refused",
    [("median", 19, True), ("ratio", 5, True), ("median", 20, False), ("mean", 5, False)],
)
def test_a_bootstrap_of_a_median_or_a_ratio_below_20_per_arm_is_untestable(statistic, n, refused):
    """Condition 2 on an interval a decider is handed: a percentile bootstrap of a median or a
    ratio needs 20 samples per arm (of a mean it is not restricted)."""
    failed = v.bootstrap_valid(statistic, n)
    if not refused:
        assert failed is None
        return
    _refused(failed, v.BOOTSTRAP)
    assert f"a percentile bootstrap of a {statistic} over {n} samples" in failed.reason
    claim = decide_interval(
        "log2(ratio)", 2.0, (1.5, 2.5), n, Threshold(1.0, "greater"), validity=[failed]
    )
    _refused(claim, v.BOOTSTRAP)


@pytest.mark.parametrize(
    "decide, reason",
    [
        (
            lambda: decide_difference(
                Sample([1.0, 2.0, 3.0]), Sample([4.0, 5.0, 6.0]), statistic="median", min_trials=3
            ),
            "too few trials for a 95% rank interval (3 against 3)",
        ),
        (
            lambda: decide_threshold(
                Sample([1.0, 2.0, 3.0, 4.0, 5.0]), Threshold(9.0, "less"), statistic="median"
            ),
            "too few trials for a 95% order-statistic interval (5)",
        ),
        (
            lambda: decide_difference(Sample([1.0] * 4), Sample([2.0] * 4)),
            "too few trials (fewer than 5 per arm)",
        ),
        (
            lambda: decide_threshold(Sample([1.0] * 4), Threshold(2.0, "less")),
            "too few trials (fewer than 5)",
        ),
        (
            lambda: decide_proportions(Count(3, 4), Count(1, 4, "b")),
            "too few trials (fewer than 5 per arm)",
        ),
        (
            lambda: decide_success_ratio(Count(3, 4), 0.5, budget=10, full_budget=10),
            "too few trials (fewer than 5)",
        ),
    ],
    ids=[
        "difference (median)",
        "threshold (median)",
        "difference",
        "threshold",
        "proportions",
        "success ratio",
    ],
)
def test_each_decider_refuses_an_interval_its_sample_size_cannot_support(decide, reason):
    """Condition 2 inside the deciders: the exact rank interval of 3 against 3 and the
    order-statistic interval of 5 cannot reach 95%; under 5 trials per arm no interval is
    given."""
    outcome = decide()
    assert (outcome.verdict, outcome.reason) == ("untestable", reason)


def test_a_tuned_arm_decided_on_its_tuning_seeds_or_by_another_rule_is_untestable():
    """Condition 3: an arm tuned on seed (7, 0) and decided on (7, 0) and (8, 0) is refused; so
    is a comparison of two arms tuned by different rules; disjoint seeds and one rule pass."""
    rule = "most tuning successes"
    fresh = v.Tuning("prs", rule, frozenset({(7, 0)}), frozenset({(9, 0)}))
    peeked = v.Tuning("laplace", rule, frozenset({(7, 0)}), frozenset({(7, 0), (8, 0)}))
    other_rule = v.Tuning("laplace", "highest mean AUC", frozenset({(7, 0)}), frozenset({(9, 0)}))
    assert v.tuned_apart([fresh]) is None
    overlap = v.tuned_apart([fresh, peeked])
    _refused(overlap, v.TUNED_APART)
    assert "laplace is decided on 1 of 2 seeds that were looked at before" in overlap.reason
    rules = v.tuned_apart([fresh, other_rule])
    _refused(rules, v.TUNED_APART)
    assert "prs by 'most tuning successes'; laplace by 'highest mean AUC'" in rules.reason
    for failed in (overlap, rules):
        claim = decide_proportions(
            Count(18, 20, "prs"),
            Count(2, 20, "laplace"),
            Threshold(0.0, "greater"),
            validity=[failed],
        )
        _refused(claim, v.TUNED_APART)
        assert claim.statistic == "rate(prs) - rate(laplace)" and claim.n_trials == 20


def test_an_optimisers_output_whose_noiseless_run_misses_its_target_is_untestable():
    """Condition 4: GPOPE without noise at 5 times LSTD's error, 2 allowed: refused; at 1.5
    times: passes."""
    failed = v.optimiser_reaches_target(5.0e-3, 1.0e-3, 2.0, optimiser="GPOPE", target="LSTD")
    _refused(failed, v.OPTIMISER)
    assert "GPOPE without noise ends at an error of 0.005, 5 times LSTD's 0.001" in failed.reason
    assert v.optimiser_reaches_target(1.5e-3, 1.0e-3, 2.0, optimiser="GPOPE", target="LSTD") is None
    with pytest.raises(ValueError, match="factor"):
        v.optimiser_reaches_target(1.0, 1.0, 0.5, optimiser="GPOPE", target="LSTD")
    claim = decide_difference(
        Sample(A, "GPOPE"), Sample(B, "zero"), Threshold(0.0, "greater"), validity=[None, failed]
    )
    _refused(claim, v.OPTIMISER)


@pytest.mark.parametrize("name", sorted(DECIDERS))
def test_every_decider_refuses_on_a_failed_condition_before_deciding(name):
    """Each decider, on data it decides reproduced, says untestable with the first failed
    condition's reason once it is given one."""
    failed = v.optimiser_reaches_target(5.0, 1.0, 2.0, optimiser="GPOPE", target="LSTD")
    assert DECIDERS[name](()).verdict == "reproduced"
    _refused(DECIDERS[name]([None, failed]), v.OPTIMISER)


@pytest.mark.parametrize("name", sorted(DECIDERS))
def test_a_valid_measurement_is_decided_unchanged(name):
    """Every condition passing (each ``None``, evaluated on a valid measurement): the outcome is
    the one without conditions, to the last field."""
    passing = [
        v.threshold_beyond_random_play(900.0, 500.0, 230.0, 30, 10),
        v.bootstrap_valid("median", 30),
        v.tuned_apart([v.Tuning("a", "r", frozenset({1}), frozenset({2}))]),
        v.optimiser_reaches_target(1.0, 1.0, 2.0, optimiser="GPOPE", target="LSTD"),
    ]
    assert passing == [None] * 4
    assert DECIDERS[name](passing) == DECIDERS[name](())


def test_a_condition_that_fails_must_say_untestable():
    with pytest.raises(ValueError, match="untestable"):
        decide_interval(
            "d",
            1.0,
            (0.5, 1.5),
            30,
            Threshold(0.0, "greater"),
            validity=[decide_interval("d", 1.0, (0.5, 1.5), 30, Threshold())],
        )
