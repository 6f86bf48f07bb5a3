"""Checks that fail, four-state claims, the ledger schema and typed profiles."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import dp_accounting
import numpy as np
import pandas as pd
import pytest

from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.profile import Profile
from privrl.chapter.report import Report
from privrl.chapter.verdicts import (
    CheckFailed,
    Claim,
    Count,
    Sample,
    Threshold,
    clopper_pearson,
    decide_difference,
    decide_interval,
    decide_proportions,
    decide_success_ratio,
    decide_threshold,
    newcombe_interval,
)
from privrl.core.accounting.events import DpAccountingEvent, event_from_dict


def test_failed_check_raises_and_passing_check_is_recorded():
    report = Report("demo", "quick")
    report.check("small", "error below tolerance", 1e-9, at_most=1e-8)
    with pytest.raises(CheckFailed, match="too_big"):
        report.check("too_big", "error below tolerance", 1e-7, at_most=1e-8)
    with pytest.raises(CheckFailed):
        report.check("flag", "condition holds", False)
    with pytest.raises(CheckFailed):
        report.check("nan", "a NaN never passes", float("nan"), at_least=0)
    assert [c.passed for c in report.checks] == [True, False, False, False]


def test_check_needs_one_bound_or_a_boolean():
    report = Report("demo", "quick")
    with pytest.raises(ValueError, match="one bound"):
        report.check("two", "x", 1.0, at_most=2, at_least=0)
    with pytest.raises(ValueError, match="boolean"):
        report.check("nobound", "x", 1.0)


def test_difference_claim_four_states():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 40), rng.normal(2, 1, 40)
    assert (
        decide_difference(Sample(a, "a"), Sample(b, "b"), Threshold(0.0, "less")).verdict
        == "reproduced"
    )
    assert (
        decide_difference(Sample(a, "a"), Sample(b, "b"), Threshold(0.0, "greater")).verdict
        == "not reproduced"
    )
    same = decide_difference(
        Sample(a, "a"), Sample(rng.normal(0, 1, 40), "b"), Threshold(0.0, "less")
    )
    assert same.verdict == "inconclusive" and same.interval[0] < 0 < same.interval[1]
    assert same.trials_to_decide is not None and same.trials_to_decide > 40
    few = decide_difference(Sample(a[:3], "a"), Sample(b[:3], "b"), Threshold(0.0, "less"))
    assert few.verdict == "untestable" and "too few" in few.reason
    floor = decide_difference(
        Sample(np.zeros(20), "a"), Sample(np.zeros(20), "b"), Threshold(0.0, "less"), floor=0.0
    )
    assert floor.verdict == "untestable" and "floor" in floor.reason


def test_proportion_claims_zero_against_zero_is_untestable():
    c = decide_proportions(Count(0, 20), Count(0, 20, "b"), Threshold(0.0, "greater"))
    assert c.verdict == "untestable"
    assert (
        decide_proportions(Count(18, 20), Count(2, 20, "b"), Threshold(0.0, "greater")).verdict
        == "reproduced"
    )
    assert (
        decide_proportions(Count(3, 20), Count(2, 20, "b"), Threshold(0.0, "greater")).verdict
        == "inconclusive"
    )
    assert (
        decide_proportions(Count(2, 20), Count(18, 20, "b"), Threshold(0.0, "greater")).verdict
        == "not reproduced"
    )


def test_exact_intervals_against_known_values():
    # Clopper-Pearson 95% for 0/10: upper = 1 - 0.025**(1/10)
    lo, hi = clopper_pearson(0, 10)
    assert lo == 0 and hi == pytest.approx(1 - 0.025**0.1, rel=1e-9)
    # Newcombe (1998) Table II example: 56/70 vs 48/80 -> (0.0524, 0.3339)
    lo, hi = newcombe_interval(56, 70, 48, 80)
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=5e-4)


def test_threshold_claim():
    x = np.full(10, 0.5) + np.linspace(-0.01, 0.01, 10)
    assert decide_threshold(Sample(x), Threshold(1.0, "less")).verdict == "reproduced"
    assert decide_threshold(Sample(x), Threshold(1.0, "greater")).verdict == "not reproduced"


_EVENT = DpAccountingEvent(dp_accounting.GaussianDpEvent(4.0), "rdp", "replace-one")
_EPSILON = _EVENT.epsilon(1e-5)


def _entry(**kw):
    base = dict(
        paper="demo",
        release="theta",
        mechanism="Gaussian",
        relation="replace-one",
        unit="trajectory",
        noise="sigma = 4",
        delta=1e-5,
        compositions=1,
        accountant="dp-accounting RDP",
        event=_EVENT,
        cross_check=CrossCheck("upper bound", "dp-accounting PLD", 0.999 * _EPSILON),
    )
    return LedgerEntry(**{**base, **kw})


def test_success_ratio_claim_four_states_and_a_short_budget():
    """At the full budget the exact interval decides; at a smaller one a ratio is a lower bound,
    so it can reproduce the claim but not refute it; below 5 trials nothing is decided."""

    def decide(k, n, budget=100):
        return decide_success_ratio(
            Count(k, n), 0.5, budget=budget, full_budget=100, unit="submissions"
        )

    full = decide(20, 20)
    assert full.verdict == "reproduced" and full.value == 1.0
    assert full.reason == "the 95% interval lies on the claimed side of 0.5 (20/20)"
    assert decide(20, 20, budget=10).reason == (
        "the 95% interval lies on the claimed side of 0.5 "
        "(20/20, already at a budget of 10 submissions)"
    )
    none = decide(0, 20)
    assert none.verdict == "not reproduced" and none.interval == pytest.approx(
        (0.0, 0.16843), abs=1e-4
    )
    assert "other side of 0.5" in none.reason
    assert "contains 0.5" in decide(10, 20).reason and decide(10, 20).verdict == "inconclusive"
    short = decide(0, 20, budget=10)
    assert (
        short.verdict == "untestable"
        and short.value == 0.0
        and "bounds the paper's" in short.reason
    )
    few = decide(4, 4)
    assert few.verdict == "untestable" and few.value is None and few.n_trials == 4
    with pytest.raises(ValueError):
        decide(5, 4)


def test_ledger_schema_rejects_bad_fields_and_unsafe_cross_check():
    with pytest.raises(ValueError, match="relation"):
        _entry(relation="neighbouring")
    with pytest.raises(TypeError, match="epsilon"):
        _entry(epsilon=_EPSILON)  # not given: computed from the event
    assert _entry().epsilon == _EPSILON
    with pytest.raises(ValueError, match="delta"):
        _entry(delta=1.5)
    report = Report("demo", "quick")
    report.ledger(_entry())
    with pytest.raises(CheckFailed, match="cross-check"):
        report.ledger(_entry(cross_check=CrossCheck("upper bound", "PLD", 1.05 * _EPSILON)))
    with pytest.raises(CheckFailed, match="empirical cross-check"):
        report.ledger(_entry(cross_check=CrossCheck("empirical", "Monte Carlo", 1.05 * _EPSILON)))
    with pytest.raises(ValueError, match="kind"):
        CrossCheck("lower bound", "Monte Carlo", 1.0)


def test_summary_round_trips_through_json(tmp_path):
    report = Report("demo", "quick", seed=3, config={"n": 2})
    report.check("ok", "fine", True)
    outcome = decide_proportions(Count(18, 20), Count(2, 20, "b"), Threshold(0.0, "greater"))
    report.claim(
        Claim(**asdict(outcome), key="c", statement="a more", profile="quick", commit=report.commit)
    )
    report.ledger(_entry())
    report.erratum("e", "wrong", "the lemma's tail", "Monte Carlo tail 0.103 > 0.05")
    _, path = report.save(pd.DataFrame({"x": [1]}), tmp_path, headline=1.5)
    data = json.loads(path.read_text())
    assert data["claims"][0]["verdict"] == "reproduced" and data["claims"][0]["profile"] == "quick"
    assert data["ledger"][0]["unit"] == "trajectory" and data["errata"][0]["kind"] == "wrong"
    assert data["ledger"][0]["recomputed_epsilon"] == pytest.approx(_EPSILON, rel=1e-12)
    assert event_from_dict(data["ledger"][0]["event"]) == _EVENT
    assert data["checks"][0]["passed"] is True and data["headline"] == 1.5


@dataclass(frozen=True)
class _Demo(Profile):
    epsilon: float = 0.5
    n_trials: int = 4
    sizes: tuple[int, ...] = (10, 20)
    PAPER_SCALE = {"n_trials": 100}

    def validate(self) -> None:
        if self.epsilon <= 0:
            raise ValueError(f"epsilon must be > 0, got {self.epsilon}")


def test_typed_profile_validates_and_rejects_unknown_parameters():
    assert _Demo.paper().n_trials == 100 and _Demo.quick().n_trials == 4
    p = _Demo.from_parameters("quick", epsilon=1, sizes=[1, 2, 3], n_trials=None)
    assert p.epsilon == 1.0 and isinstance(p.epsilon, float) and p.sizes == (1, 2, 3)
    with pytest.raises(ValueError, match="unknown parameter"):
        _Demo.from_parameters("quick", epsilom=1)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        _Demo.quick(epsilon=-1)
    with pytest.raises(ValueError, match="n_trials must be an integer"):
        _Demo.quick(n_trials="many")
    with pytest.raises(ValueError, match="profile"):
        _Demo.from_parameters("huge")


def test_an_interval_containing_the_threshold_is_inconclusive_never_not_reproduced():
    # Wang's resetting claim on the recorded run: difference 0.07, interval [-2.37, 2.52], 10 seeds
    claim = decide_interval(
        "mean diff", 0.07, (-2.37, 2.52), 10, Threshold(0.0, "greater"), seconds_per_trial=3600
    )
    assert claim.verdict == "inconclusive"
    # the interval's half-width 2.44 must shrink below 0.07: n >= 10 (2.44 / 0.07)^2 = 12,150
    # trials, over 100 times the 10 run: no practical number of trials decides it
    assert claim.trials_to_decide is None and "too small" in claim.reason
    decidable = decide_interval(
        "d", 1.0, (-0.5, 2.5), 10, Threshold(0.0, "greater"), seconds_per_trial=3600
    )
    assert decidable.trials_to_decide == math.ceil(10 * (1.5 / 1.0) ** 2)  # 23
    assert "about 23 trials" in decidable.reason and "13 more CPU hours" in decidable.reason
    # on the other side of the threshold: the data exclude the claimed effect
    assert (
        decide_interval("d", -1.0, (-1.5, -0.5), 10, Threshold(0.0, "greater")).verdict
        == "not reproduced"
    )
    assert (
        decide_interval("d", 1.0, (0.5, 1.5), 10, Threshold(0.0, "greater")).verdict == "reproduced"
    )
    # a paper's magnitude as threshold: "about 4x" read as at least 2x
    assert (
        decide_interval("ratio", 3.0, (2.5, 3.5), 10, Threshold(2.0, "greater")).verdict
        == "reproduced"
    )
    zero = decide_interval("d", 0.0, (-1.0, 1.0), 10, Threshold(0.0, "greater"))
    assert zero.verdict == "inconclusive" and zero.trials_to_decide is None
    # Ono's PRS against Laplace at eps = 1: 4/20 against 5/20
    prs = decide_proportions(Count(4, 20), Count(5, 20, "b"), Threshold(0.0, "greater"))
    assert prs.verdict == "inconclusive"


def test_an_inconclusive_verdict_says_which_way_its_estimate_leans():
    from privrl.chapter.verdicts import Threshold, decide_interval

    towards = decide_interval("s", 1.5, (0.5, 2.5), 10, Threshold(1.0, "greater"))
    against = decide_interval("s", 0.8, (0.5, 2.5), 10, Threshold(1.0, "greater"))
    below = decide_interval("s", 0.8, (0.5, 2.5), 10, Threshold(1.0, "less"))
    assert {towards.verdict, against.verdict, below.verdict} == {"inconclusive"}
    assert "the estimate 1.5 leans towards the claim" in towards.reason
    assert "the estimate 0.8 leans against the claim" in against.reason
    assert "leans towards the claim" in below.reason


def test_rank_intervals_match_the_tables_and_refuse_what_cannot_reach_95_percent():
    import numpy as np

    from privrl.chapter.verdicts import median_interval, rank_depth, shift_interval

    # Mann-Whitney two-sided 5% critical values (largest U with P(U <= u) <= 0.025): 2 at 5 v 5,
    # 23 at 10 v 10, 127 at 20 v 20; the interval uses the (u + 1)-th difference
    assert (rank_depth(5, 5), rank_depth(10, 10), rank_depth(20, 20)) == (3, 24, 128)
    assert (
        rank_depth(3, 3) is None
        and shift_interval(np.ones(3), np.ones(3), np.ones(3), np.ones(3)) is None
    )
    # the order-statistic interval of a median: the 6th and 15th of 20, none below 6 values
    assert median_interval(np.arange(20.0)) == (5.0, 14.0)
    assert median_interval(np.arange(5.0)) is None
    # a location shift of 10 between samples far apart: the interval holds it exactly
    a, b = np.arange(10.0) + 10.0, np.arange(10.0)
    lo, hi = shift_interval(a, a, b, b)
    assert lo <= 10.0 <= hi and lo > 0


def test_an_estimate_on_the_threshold_sits_there_and_large_ones_read_whole():
    from privrl.chapter.verdicts import Threshold, decide_interval

    at = decide_interval("s", 0.05, (-0.2, 0.3), 20, Threshold(0.05, "greater"))
    big = decide_interval("s", 90001.0, (14455.0, 90001.0), 20, Threshold(40477.0, "less"))
    assert "the estimate 0.05 sits at the threshold" in at.reason
    assert "the estimate 90,001 leans against the claim" in big.reason
