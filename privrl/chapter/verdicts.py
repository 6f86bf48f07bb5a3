"""Checks that fail, claims with four states, errata: what a chapter's verdicts are made of.

* A :class:`Check` is a numeric statement the chapter relies on; :meth:`Report.check
  <privrl.chapter.report.Report.check>` records it and raises :class:`CheckFailed` when it fails.
* A :class:`Claim` is a paper's headline claim re-decided on this run's data, with its statistic,
  95% interval, trials, profile, commit and source. Deciders (:func:`decide_difference`,
  :func:`decide_proportions`, :func:`decide_threshold`, :func:`decide_success_ratio`) compute an
  interval and call the one rule, :func:`decide_interval`, against a :class:`Threshold` (the
  paper's magnitude, or no effect):

  - ``reproduced``: the 95% interval lies on the claimed side of the threshold;
  - ``not reproduced``: it lies on the other side (the data exclude the claimed effect);
  - ``inconclusive``: it contains the threshold; the claim states the trials that would decide
    it at the observed effect (:func:`trials_to_decide`) and their cost;
  - ``untestable``: too few trials, both arms at a floor or ceiling, a profile too small, or a
    failed validity condition (``validity=[...]``, :mod:`privrl.chapter.validity`,
    :func:`refusal`).

* An :class:`Erratum` is a place where a paper is wrong, ambiguous or not reproduced, with its
  evidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, get_args

import numpy as np
from scipy import stats

from privrl.core.validation import check_array, check_choice, check_int

Verdict = Literal["reproduced", "not reproduced", "inconclusive", "untestable"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
ERRATUM_KINDS: tuple[str, ...] = ("wrong", "ambiguous", "not reproduced", "unsupported")
#: Smallest number of independent trials per arm for which an interval-based verdict is given.
MIN_TRIALS = 5
#: An inconclusive claim needing more than this many times its trials is undecidable in practice.
IMPRACTICAL_FACTOR = 100


class CheckFailed(AssertionError):
    """A numeric check of a chapter failed: the message states the check and what was observed."""


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class Check:
    """One numeric check: ``observed`` compared with ``bound`` by ``relation``."""

    key: str
    statement: str
    observed: float | bool
    relation: str
    bound: float | bool | None
    passed: bool

    def describe(self) -> str:
        bound = (
            ""
            if self.bound is None
            else f" {self.relation} {self.bound:.6g}"
            if isinstance(self.bound, float)
            else f" {self.relation} {self.bound}"
        )
        obs = f"{self.observed:.6g}" if isinstance(self.observed, float) else str(self.observed)
        return f"{self.statement}: observed {obs}{bound}"


def make_check(
    key: str,
    statement: str,
    observed: float | bool,
    *,
    at_most: float | None = None,
    at_least: float | None = None,
    below: float | None = None,
    above: float | None = None,
) -> Check:
    """Build a :class:`Check`; exactly one bound, or none for a boolean ``observed`` that must be true."""
    observed = _plain(observed)
    bounds = {"<=": at_most, ">=": at_least, "<": below, ">": above}
    given = {rel: b for rel, b in bounds.items() if b is not None}
    if len(given) > 1:
        raise ValueError(f"check {key!r}: give one bound, got {sorted(given)}")
    if not given:
        if not isinstance(observed, bool | np.bool_):
            raise ValueError(
                f"check {key!r}: a check without a bound needs a boolean observed value"
            )
        return Check(key, statement, bool(observed), "is", True, bool(observed))
    ((relation, bound),) = given.items()
    bound = float(_plain(bound))
    try:
        value = float(observed)
    except (TypeError, ValueError):
        raise ValueError(f"check {key!r}: observed must be a number, got {observed!r}") from None
    if math.isnan(value) or math.isnan(bound):
        return Check(key, statement, value, relation, bound, False)
    passed = {"<=": value <= bound, ">=": value >= bound, "<": value < bound, ">": value > bound}[
        relation
    ]
    return Check(key, statement, value, relation, bound, bool(passed))


@dataclass(frozen=True)
class Outcome:
    """What a decider finds on its data: the ``verdict`` of :data:`Verdict`, the ``statistic``
    (its name), its ``value`` and 95% ``interval`` (``None`` for an untestable claim without a
    statistic), ``n_trials`` per arm, the ``reason`` in words, the ``evidence`` the numbers
    come from, the ``threshold`` the interval is compared with and, for an inconclusive claim,
    how many trials per arm would decide it (``trials_to_decide``)."""

    verdict: Verdict
    statistic: str
    value: float | None
    interval: tuple[float, float] | None
    n_trials: int
    reason: str
    evidence: str = ""
    threshold: float | None = None
    trials_to_decide: int | None = None

    def __post_init__(self) -> None:
        check_choice(self.verdict, "verdict", VERDICTS)


@dataclass(frozen=True, kw_only=True)
class Claim(Outcome):
    """A paper's claim decided on one evidence source: an :class:`Outcome` with the claim's
    ``key``, ``statement`` (the paper's words), ``source`` (where the paper makes it and states
    its threshold: figure, table, section, page), the ``profile`` and ``commit`` of the run
    it was decided on and, in words, its ``scale`` ("quick run (CI scale)", "paper scale", or a
    record's own, e.g. "10 of the paper's 30 seeds, 450 of its 4,000 roll-outs"): made by
    :meth:`privrl.chapter.evidence.Evidence.decide`, or read back from a recorded run's
    summary."""

    key: str
    statement: str
    source: str = ""
    profile: str = ""
    commit: str = ""
    scale: str = ""

    @classmethod
    def of(cls, outcome: Outcome, **attached: Any) -> Claim:
        """The claim of ``outcome`` with the ``attached`` fields (``key``, ``statement``, and
        ``source``, ``profile``, ``commit``, or a fuller ``evidence``)."""
        return cls(**{**{f.name: getattr(outcome, f.name) for f in fields(Outcome)}, **attached})

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["interval"] = list(self.interval) if self.interval is not None else None
        return out

    def evidence_text(self) -> str:
        """One line for prose and tables: statistic, value, interval, trials."""
        if self.value is None:
            return f"{self.reason} (n = {self.n_trials})"
        lo, hi = self.interval if self.interval is not None else (math.nan, math.nan)
        return (
            f"{self.statistic} = {self.value:.3g}, 95% interval [{lo:.3g}, {hi:.3g}], "
            f"n = {self.n_trials}; {self.reason}"
        )


@dataclass(frozen=True)
class Erratum:
    """A place where a paper is wrong, ambiguous, unsupported or not reproduced."""

    key: str
    kind: str
    statement: str
    evidence: str

    def __post_init__(self) -> None:
        check_choice(self.kind, "kind", ERRATUM_KINDS)
        if not self.statement.strip() or not self.evidence.strip():
            raise ValueError(f"erratum {self.key!r}: statement and evidence must not be empty")


# --- deciders: each returns an Outcome; the claim's key, statement and provenance are attached
# by privrl.chapter.evidence.Evidence.decide ---------------------------------------------------

Direction = Literal["less", "greater"]


@dataclass(frozen=True)
class Threshold:
    """The claimed side: the statistic is ``direction`` than ``value`` (0: no effect; the
    paper's own magnitude where it states one)."""

    value: float = 0.0
    direction: Direction = "greater"

    def __post_init__(self) -> None:
        check_choice(self.direction, "direction", ("less", "greater"))


@dataclass(frozen=True)
class Sample:
    """One value per independent trial of an arm, and the arm's ``label`` in the statistic."""

    values: Sequence[float]
    label: str = "x"

    def array(self) -> np.ndarray:
        return check_array(self.values, self.label, ndim=1)


@dataclass(frozen=True)
class Count:
    """``successes`` out of ``trials`` of an arm, and the arm's ``label``."""

    successes: int
    trials: int
    label: str = "a"

    def __post_init__(self) -> None:
        check_int(self.successes, f"{self.label}: successes", 0)
        check_int(self.trials, f"{self.label}: trials", 0)
        if self.successes > self.trials:
            raise ValueError(
                f"{self.label}: successes must not exceed trials, got "
                f"{self.successes} > {self.trials}"
            )


def untestable(
    reason: str,
    n_trials: int = 0,
    evidence: str = "",
    *,
    statistic: str = "",
    value: float | None = None,
    interval: tuple[float, float] | None = None,
    threshold: float | None = None,
) -> Outcome:
    """A claim this run cannot decide, with the reason (too few trials, both arms at a floor,
    a profile too small) and, where one was computed, the statistic."""
    return Outcome(
        "untestable",
        statistic,
        value,
        interval,
        int(n_trials),
        reason,
        evidence,
        threshold=threshold,
    )


#: The evaluated validity conditions a decider receives (:mod:`privrl.chapter.validity`): each
#: ``None`` (the measurement passes it) or the untestable outcome of the condition it fails.
Validity = Sequence[Outcome | None]


def refusal(
    validity: Validity, n_trials: int, evidence: str = "", *, statistic: str = ""
) -> Outcome | None:
    """The first failed condition of ``validity`` as the decider's untestable outcome: the
    condition's reason, the decider's ``statistic`` and ``n_trials``, its ``evidence`` followed by
    the condition's; ``None`` when every condition holds. A failed condition must be untestable."""
    for failed in validity:
        if failed is None:
            continue
        if failed.verdict != "untestable":
            raise ValueError(
                f"a failed validity condition is untestable, got {failed.verdict!r}: "
                f"{failed.reason}"
            )
        both = "; ".join(e for e in (evidence, failed.evidence) if e)
        return untestable(failed.reason, n_trials, both, statistic=statistic)
    return None


def trials_to_decide(
    value: float, interval: tuple[float, float], threshold: float, n_trials: int
) -> int | None:
    """Trials per arm that would decide a claim at the observed effect: the 95% interval's
    half-width shrinks as ``1 / sqrt(n)``, so it stops containing ``threshold`` once
    ``n >= n_trials (w / d)^2``, where ``w`` is the half-width on the threshold's side and
    ``d = |value - threshold|``. ``None`` when the observed effect is zero, or so small that more
    than :data:`IMPRACTICAL_FACTOR` times the trials would be needed (no practical number of
    trials decides it)."""
    lo, hi = interval
    distance = abs(value - threshold)
    half = (value - lo) if threshold <= value else (hi - value)
    if distance == 0 or not math.isfinite(half):
        return None
    needed = max(n_trials + 1, math.ceil(n_trials * (half / distance) ** 2))
    return None if needed > IMPRACTICAL_FACTOR * n_trials else needed


def decide_interval(
    statistic: str,
    value: float,
    interval: tuple[float, float],
    n_trials: int,
    threshold: Threshold,
    *,
    detail: str = "",
    evidence: str = "",
    seconds_per_trial: float | None = None,
    validity: Validity = (),
) -> Outcome:
    """The one rule (module docstring): "``statistic`` is ``threshold.direction`` than
    ``threshold.value``", decided on its 95% ``interval``. ``detail`` is added to the reason
    (e.g. "4/20 against 5/20"); ``seconds_per_trial`` (CPU seconds of one more trial of every
    arm) prices an inconclusive claim's missing trials; untestable on a failed ``validity``
    condition (:func:`refusal`)."""
    refused = refusal(validity, n_trials, evidence, statistic=statistic)
    if refused is not None:
        return refused
    lo, hi = (float(v) for v in interval)
    t = float(threshold.value)
    claimed = hi < t if threshold.direction == "less" else lo > t
    opposite = lo > t if threshold.direction == "less" else hi < t
    verdict: Verdict
    needed = None
    if claimed:
        verdict, reason = "reproduced", f"the 95% interval lies on the claimed side of {t:g}"
    elif opposite:
        verdict, reason = (
            "not reproduced",
            f"the 95% interval lies on the other side of {t:g}: it excludes the claimed effect",
        )
    else:
        verdict = "inconclusive"
        needed = trials_to_decide(value, (lo, hi), t, n_trials)
        towards = (value < t) if threshold.direction == "less" else (value > t)
        shown = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
        lean = (
            "sits at the threshold"
            if value == t
            else f"leans {'towards the claim' if towards else 'against the claim'}"
        )
        reason = f"the 95% interval contains {t:g}; the estimate {shown} {lean}"
        if needed is None:
            reason += (
                "; the observed effect is too small for any practical number of trials "
                f"(over {IMPRACTICAL_FACTOR} times these) to decide it"
            )
        else:
            reason += f"; about {needed} trials per arm would decide it at the observed effect"
            if seconds_per_trial is not None:
                hours = (needed - n_trials) * seconds_per_trial / 3600
                reason += f" ({hours:.2g} more CPU hours)"
    if detail:
        reason = f"{reason} ({detail})"
    return Outcome(
        verdict,
        statistic,
        float(value),
        (lo, hi),
        int(n_trials),
        reason,
        evidence,
        threshold=t,
        trials_to_decide=needed,
    )


def bootstrap_interval(
    statistic, samples: Sequence[np.ndarray], n_boot: int = 4000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(*samples)``, each sample resampled independently."""
    rng = np.random.default_rng(seed)
    draws = np.empty(n_boot)
    for b in range(n_boot):
        draws[b] = statistic(*(s[rng.integers(0, len(s), len(s))] for s in samples))
    alpha = (1 - level) / 2
    return float(np.quantile(draws, alpha)), float(np.quantile(draws, 1 - alpha))


def _mann_whitney_null(n: int, m: int) -> np.ndarray:
    """Counts of the Mann-Whitney statistic U = 0 .. n m over the C(n + m, n) equally likely
    rankings of two samples of sizes ``n`` and ``m`` (no ties): the recursion
    c(n, m, u) = c(n - 1, m, u - m) + c(n, m - 1, u)."""
    table = [[np.zeros(1, dtype=object) + 1 for _ in range(m + 1)] for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            counts = np.zeros(i * j + 1, dtype=object)
            counts[j : j + len(table[i - 1][j])] += table[i - 1][j]
            counts[: len(table[i][j - 1])] += table[i][j - 1]
            table[i][j] = counts
    return table[n][m]


def rank_depth(n: int, m: int, level: float = 0.95) -> int | None:
    """The largest k with P(U <= k - 1) <= (1 - level) / 2 under the null of
    :func:`_mann_whitney_null`: the k-th smallest and k-th largest of the n m pairwise
    differences bound a location shift with confidence at least ``level`` (Moses 1953; Lehmann
    1975, section 2.6). ``None`` when no k reaches ``level`` (e.g. 3 against 3)."""
    counts = _mann_whitney_null(n, m)
    total = int(sum(counts))
    tail, k = 0, 0
    for c in counts:
        if (tail + int(c)) / total > (1 - level) / 2:
            break
        tail, k = tail + int(c), k + 1
    return k if k >= 1 else None


def shift_interval(
    a_low: np.ndarray,
    a_high: np.ndarray,
    b_low: np.ndarray,
    b_high: np.ndarray,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Distribution-free interval of the location shift of ``a`` over ``b`` (the Moses interval of
    the Hodges-Lehmann estimator), at confidence at least ``level`` under the shift model, from
    the k-th smallest of the pairwise differences ``a_low_i - b_high_j`` and the k-th largest of
    ``a_high_i - b_low_j`` (:func:`rank_depth`). A value known only to lie in [low, high] (a
    time censored at the budget: high = inf) enters with its bounds, so the interval contains
    the one the unknown values would give. ``None`` when the sizes cannot reach ``level``."""
    k = rank_depth(len(a_low), len(b_low), level)
    if k is None:
        return None
    with np.errstate(invalid="ignore"):
        low = np.sort(np.subtract.outer(a_low, b_high).ravel())
        high = np.sort(np.subtract.outer(a_high, b_low).ravel())
    low = np.nan_to_num(low, nan=-np.inf, posinf=np.inf, neginf=-np.inf)
    high = np.nan_to_num(high, nan=np.inf, posinf=np.inf, neginf=-np.inf)
    return float(low[k - 1]), float(high[-k])


def hodges_lehmann(a: np.ndarray, b: np.ndarray) -> float:
    """The Hodges-Lehmann estimate of the shift of ``a`` over ``b``: the median of the pairwise
    differences."""
    return float(np.median(np.subtract.outer(a, b)))


def median_interval(x: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """Distribution-free interval of the median of ``x`` from its order statistics: the k-th
    smallest and k-th largest with k the largest whose binomial tail P(Bin(n, 1/2) <= k - 1) is at
    most (1 - level) / 2; ``None`` when no k reaches ``level`` (n below 6 at 95%)."""
    n = len(x)
    k = int(stats.binom.ppf((1 - level) / 2, n, 0.5))  # P(Bin <= k) >= alpha/2 at this k
    while k >= 1 and stats.binom.cdf(k - 1, n, 0.5) > (1 - level) / 2:
        k -= 1
    if k < 1:
        return None
    ordered = np.sort(x)
    return float(ordered[k - 1]), float(ordered[n - k])


def decide_difference(
    a: Sample,
    b: Sample,
    threshold: Threshold = Threshold(),
    *,
    statistic: Literal["mean", "median"] = "mean",
    floor: float | None = None,
    ceiling: float | None = None,
    min_trials: int = MIN_TRIALS,
    seed: int = 0,
    evidence: str = "",
    seconds_per_trial: float | None = None,
    validity: Validity = (),
) -> Outcome:
    """Claim "``a`` exceeds ``b`` by ``threshold.direction`` than ``threshold.value``" (threshold
    0: ``a`` differs from ``b`` in that direction): ``statistic="mean"``, the difference of means
    with a percentile bootstrap 95% interval; ``"median"``, the Hodges-Lehmann shift with its
    exact rank interval (:func:`shift_interval`; no bootstrap of medians over few trials), and
    untestable where the sizes cannot reach 95%.

    Untestable on a failed ``validity`` condition (:func:`refusal`), when either arm has fewer
    than ``min_trials`` trials, or when every trial of both arms sits at ``floor`` (or at
    ``ceiling``): nothing separates the arms then.
    """
    check_choice(statistic, "statistic", ("mean", "median"))
    xa, xb = a.array(), b.array()
    n = int(min(len(xa), len(xb)))
    name = f"{statistic}({a.label}) - {statistic}({b.label})"
    refused = refusal(validity, n, evidence, statistic=name)
    if refused is not None:
        return refused
    for bound, word in ((floor, "floor"), (ceiling, "ceiling")):
        if bound is not None and n > 0 and np.all(xa == bound) and np.all(xb == bound):
            return untestable(
                f"both arms at the {word} ({bound:g}) in every trial", n, evidence, statistic=name
            )
    if n < min_trials:
        return untestable(
            f"too few trials (fewer than {min_trials} per arm)", n, evidence, statistic=name
        )
    if statistic == "median":
        name = f"shift of {a.label} over {b.label} (Hodges-Lehmann)"
        shift = shift_interval(xa, xa, xb, xb)
        if shift is None:
            return untestable(
                f"too few trials for a 95% rank interval ({len(xa)} against {len(xb)})",
                n,
                evidence,
                statistic=name,
            )
        return decide_interval(
            name,
            hodges_lehmann(xa, xb),
            shift,
            n,
            threshold,
            evidence=evidence,
            seconds_per_trial=seconds_per_trial,
        )
    value = float(np.mean(xa) - np.mean(xb))
    interval = bootstrap_interval(lambda u, v: np.mean(u) - np.mean(v), [xa, xb], seed=seed)
    return decide_interval(
        name, value, interval, n, threshold, evidence=evidence, seconds_per_trial=seconds_per_trial
    )


def decide_threshold(
    sample: Sample,
    threshold: Threshold,
    *,
    statistic: Literal["mean", "median"] = "mean",
    min_trials: int = MIN_TRIALS,
    seed: int = 0,
    evidence: str = "",
    seconds_per_trial: float | None = None,
    validity: Validity = (),
) -> Outcome:
    """Claim "``stat(sample)`` is ``threshold.direction`` than ``threshold.value``": the mean with
    a percentile bootstrap 95% interval, or the median with its exact order-statistic interval
    (:func:`median_interval`); untestable on a failed ``validity`` condition (:func:`refusal`),
    with fewer than ``min_trials`` trials, or where the order statistics cannot reach 95%."""
    x = sample.array()
    name = f"{statistic}({sample.label})"
    refused = refusal(validity, len(x), evidence, statistic=name)
    if refused is not None:
        return refused
    if len(x) < min_trials:
        return untestable(
            f"too few trials (fewer than {min_trials})", len(x), evidence, statistic=name
        )
    if statistic == "median":
        exact = median_interval(x)
        if exact is None:
            return untestable(
                f"too few trials for a 95% order-statistic interval ({len(x)})",
                len(x),
                evidence,
                statistic=name,
            )
        value, interval = float(np.median(x)), exact
    else:
        value, interval = float(np.mean(x)), bootstrap_interval(np.mean, [x], seed=seed)
    return decide_interval(
        name,
        value,
        interval,
        len(x),
        threshold,
        evidence=evidence,
        seconds_per_trial=seconds_per_trial,
    )


def clopper_pearson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a binomial proportion."""
    k = check_int(successes, "successes", 0)
    n = check_int(trials, "trials", 1)
    if k > n:
        raise ValueError(f"successes must be <= trials, got {k} > {n}")
    alpha = 1 - level
    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def newcombe_interval(
    k_a: int, n_a: int, k_b: int, n_b: int, level: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval (method 10) of the difference of proportions p_a - p_b."""
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    pa, pb = k_a / n_a, k_b / n_b
    la, ua = _wilson(k_a, n_a, z)
    lb, ub = _wilson(k_b, n_b, z)
    d = pa - pb
    return (
        d - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2),
        d + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2),
    )


def decide_proportions(
    a: Count,
    b: Count,
    threshold: Threshold = Threshold(),
    *,
    min_trials: int = MIN_TRIALS,
    evidence: str = "",
    seconds_per_trial: float | None = None,
    validity: Validity = (),
) -> Outcome:
    """Claim "rate(``a``) - rate(``b``) is ``threshold.direction`` than ``threshold.value``"
    (Newcombe 95% interval of the difference; threshold 0 for no effect).

    Untestable on a failed ``validity`` condition (:func:`refusal`), when both arms are at 0 of
    N or both at N of N, or either arm has fewer than ``min_trials`` trials.
    """
    (ka, na), (kb, nb) = (a.successes, a.trials), (b.successes, b.trials)
    name = f"rate({a.label}) - rate({b.label})"
    n = min(na, nb)
    refused = refusal(validity, n, evidence, statistic=name)
    if refused is not None:
        return refused
    if n < min_trials:
        return untestable(
            f"too few trials (fewer than {min_trials} per arm)", n, evidence, statistic=name
        )
    if ka == kb == 0 or (ka == na and kb == nb):
        at = "0 of N" if ka == 0 else "N of N"
        return untestable(
            f"both arms at {at} ({ka}/{na} against {kb}/{nb})", n, evidence, statistic=name
        )
    return decide_interval(
        name,
        ka / na - kb / nb,
        newcombe_interval(ka, na, kb, nb),
        n,
        threshold,
        detail=f"{ka}/{na} against {kb}/{nb}",
        evidence=evidence,
        seconds_per_trial=seconds_per_trial,
    )


def decide_success_ratio(
    count: Count,
    threshold: float,
    *,
    budget: int,
    full_budget: int,
    unit: str = "steps",
    min_trials: int = MIN_TRIALS,
    evidence: str = "",
    validity: Validity = (),
) -> Outcome:
    """Claim "the success ratio exceeds ``threshold``", with its exact (Clopper-Pearson) 95% interval.

    Success is defined at the paper's budget ``full_budget`` (of ``unit``); the run measured it at
    ``budget``. Decided by :func:`decide_interval` (above ``threshold``: reproduced; below:
    not reproduced; containing it: inconclusive); untestable with fewer than ``min_trials``
    trials. At a smaller budget the measured ratio bounds the full-budget one from below, so it
    can reproduce the claim but not refute it: an interval that does not lie above ``threshold``
    is then untestable. Untestable first on a failed ``validity`` condition (:func:`refusal`).
    """
    k, n = count.successes, count.trials
    refused = refusal(validity, n, evidence, statistic="success ratio")
    if refused is not None:
        return refused
    if n < min_trials:
        return untestable(f"too few trials (fewer than {min_trials})", n, evidence)
    lo, hi = clopper_pearson(k, n)
    if budget < full_budget and lo <= threshold:
        return untestable(
            f"budget {budget:,} < {full_budget:,}: a success ratio at this budget "
            f"only bounds the paper's from below ({k}/{n})",
            n,
            evidence,
            statistic="success ratio",
            value=k / n,
            interval=(lo, hi),
            threshold=threshold,
        )
    detail = f"{k}/{n}" + (
        f", already at a budget of {budget:,} {unit}" if budget < full_budget else ""
    )
    return decide_interval(
        "success ratio",
        k / n,
        (lo, hi),
        n,
        Threshold(threshold, "greater"),
        detail=detail,
        evidence=evidence,
    )
