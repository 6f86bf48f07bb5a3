"""The verdict the book reports for each claim of a chapter: the one place that chooses it.

A chapter decides a claim on each evidence it gathers (:mod:`privrl.chapter.evidence`): on this
run (key ``k``) and, beside it, on a recorded run (key ``k`` plus a record's suffix,
:data:`RECORDED_SUFFIXES`). :func:`decided_claims` keeps one per key: the record's where there is
one (the record is the run at the paper's scale), else this run's, with this run's claim beside
a record's as its quick rerun. The landing page, the summary box, the errata page and the
chapters' claims tables read it, and count it with :func:`verdict_counts`, so they agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from privrl.chapter.verdicts import VERDICTS, Claim, Verdict

#: The scale a verdict states when decided on a quick (CI-sized) run, and on a paper-profile run
#: (live, or a record whose run JSON states no ``"scale"`` of its own).
QUICK_SCALE = "quick run (CI scale)"
PAPER_SCALE = "paper scale"
#: Key suffixes of the claims decided on a recorded run (a record's verdict replaces this run's),
#: in order of precedence where two records decide one key: a record made to decide it (more
#: seeds: wang2019's ``_pair``; steps tuned on 10+ trials: ono2020's ``_reference_tuned``,
#: whose base is the ``_reference`` claim) before the paper-profile record, and a record at the
#: paper's horizon (gohari2021's ``_horizon``) before a shorter design (``_airraid``).
RECORDED_SUFFIXES: tuple[str, ...] = ("_pair", "_tuned", "_paper", "_horizon", "_airraid")
#: Part of the key of a row beyond the paper (our metric, set-up or relation beside the paper's).
BEYOND = "_beyond"


def _rank(key: str) -> int:
    """The precedence of the record that decided ``key`` (:data:`RECORDED_SUFFIXES`)."""
    return next(
        (i for i, s in enumerate(RECORDED_SUFFIXES) if key.endswith(s)), len(RECORDED_SUFFIXES)
    )


def base_key(key: str) -> str:
    """A claim's key without a recorded run's suffix (:data:`RECORDED_SUFFIXES`)."""
    return next((key.removesuffix(s) for s in RECORDED_SUFFIXES if key.endswith(s)), key)


@dataclass(frozen=True)
class Decided:
    """The verdict the book reports for one claim: ``key`` (without a record's suffix), the
    deciding ``claim`` (the record's where there is one, else this run's) and ``rerun``, this
    run's own claim beside a record's (``None`` when this run decided it)."""

    key: str
    claim: Claim
    rerun: Claim | None = None

    @property
    def recorded(self) -> bool:
        """Whether a recorded run decided the claim (its key carries the record's suffix)."""
        return self.claim.key != self.key

    @property
    def beyond(self) -> bool:
        """Whether the row is beyond the paper (ours beside the paper's; never counted)."""
        return BEYOND in self.key

    @property
    def scale(self) -> str:
        """The deciding claim's scale (for a claim saved before claims carried one: read from
        its profile)."""
        if self.claim.scale:
            return self.claim.scale
        return QUICK_SCALE if self.claim.profile == "quick" else PAPER_SCALE

    @property
    def rerun_agrees(self) -> bool | None:
        """Whether this run's quick rerun gives the record's verdict; ``None`` where it cannot
        check the row (no rerun beside a record, or the rerun is untestable)."""
        if self.rerun is None or self.rerun.verdict == "untestable":
            return None
        return self.rerun.verdict == self.claim.verdict


def decided_claims(claims: Iterable[Claim]) -> list[Decided]:
    """One :class:`Decided` per claim key, in the order the keys first appear: a claim keyed
    with a recorded run's suffix decides its key, and this run's claim of that key is the rerun
    beside it; of two records, the one whose suffix comes first in :data:`RECORDED_SUFFIXES`
    decides. A key decided twice on the same run is a ``ValueError``."""
    runs: dict[str, dict[bool, Claim]] = {}
    for c in claims:
        base = base_key(c.key)
        on_record = base != c.key
        held = runs.setdefault(base, {}).get(on_record)
        if held is not None and (not on_record or _rank(held.key) == _rank(c.key)):
            raise ValueError(f"claims: {base!r} is decided twice on the same run")
        if held is None or _rank(c.key) < _rank(held.key):
            runs[base][on_record] = c
    return [
        Decided(k, r[True], r.get(False)) if True in r else Decided(k, r[False])
        for k, r in runs.items()
    ]


def verdict_counts(decided: Iterable[Decided]) -> dict[Verdict, int]:
    """How many of the paper's claims (rows beyond the paper left out) got each verdict."""
    rows = [d for d in decided if not d.beyond]
    return {v: sum(1 for d in rows if d.claim.verdict == v) for v in VERDICTS}


def counts_text(decided: list[Decided]) -> str:
    """The counts as every page gives them: "10 claims: 6 reproduced, 4 not reproduced (and 1
    row beyond the paper)" (:func:`privrl.chapter.evidence.verdict_counts`)."""
    counts = verdict_counts(decided)
    n = sum(counts.values())
    extra = len(decided) - n
    text = f"{n} claim{'s' * (n != 1)}: " + ", ".join(f"{k} {v}" for v, k in counts.items() if k)
    return text + (f" (and {extra} row{'s' * (extra != 1)} beyond the paper)" if extra else "")


def deciding_runs(decided: list[Decided], *, counted: bool = True) -> list[str]:
    """Each run that decided verdicts, with its scale, the trials per arm behind its verdicts,
    its commit and (``counted``) how many rows it decided: "the record of commit `abc` (paper
    scale, 20 trials per arm; 10 rows)", "this run of commit `def` (quick run (CI scale), 2 to
    5 trials per arm; 2 rows)"."""
    runs: dict[tuple[bool, str, str], list[int]] = {}
    for d in decided:
        runs.setdefault((d.recorded, d.claim.commit, d.scale), []).append(d.claim.n_trials)
    return [
        ("the record" if recorded else "this run")
        + f" of commit `{commit}` ({scale}, {_trials(trials)}"
        + (f"; {len(trials)} row{'s' * (len(trials) != 1)})" if counted else ")")
        for (recorded, commit, scale), trials in runs.items()
    ]


def _trials(trials: list[int]) -> str:
    """ "20 trials per arm", or the range "5 to 20 trials per arm" over a run's verdicts."""
    lo, hi = min(trials), max(trials)
    return (
        f"{lo:,} to {hi:,} trials per arm" if lo != hi else f"{lo:,} trial{'s' * (lo != 1)} per arm"
    )


__all__ = [
    "BEYOND",
    "PAPER_SCALE",
    "QUICK_SCALE",
    "RECORDED_SUFFIXES",
    "Decided",
    "base_key",
    "counts_text",
    "decided_claims",
    "deciding_runs",
    "verdict_counts",
]
