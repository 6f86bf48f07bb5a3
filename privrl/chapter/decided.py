"""The verdict the book reports for each claim of a chapter: the one place that chooses it.

A chapter decides a claim on each evidence it gathers (:mod:`privrl.chapter.evidence`): on this
run (key ``k``) and, beside it, on a recorded run (key ``k`` plus the suffix of an
:class:`EvidenceSource` the chapter declares). :func:`decided_claims` keeps one per key: the
record's where there is one (the record is the run at the paper's scale), else this run's, with
this run's claim beside a record's as its quick rerun. The landing page, the summary box, the
errata page and the chapters' claims tables read it, and count it with :func:`verdict_counts`,
so they agree. This module holds no chapter's sources: each chapter declares its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from privrl.chapter.verdicts import VERDICTS, Claim, Verdict

#: The scale a verdict states when decided on a quick (CI-sized) run, and on a paper-profile run
#: (live, or a record whose run JSON states no ``"scale"`` of its own).
QUICK_SCALE = "quick run (CI scale)"
PAPER_SCALE = "paper scale"
#: Part of the key of a row beyond the paper (our metric, set-up or relation beside the paper's).
BEYOND = "_beyond"


@dataclass(frozen=True)
class EvidenceSource:
    """A recorded run whose verdicts replace this run's, as its chapter declares it: ``name``
    (the name of the chapter's evidence drawn from it), ``suffix`` (the key suffix of the claims
    decided on it), ``description`` in words, and ``decides``: the suffix of the claims it
    decides (``""``: a claim keyed ``k + suffix`` decides ``k``; ``"_reference"``: it decides
    ``k_reference``, a claim of this run on another set-up). A chapter lists its sources in
    order of precedence: where two records decide one key, the first listed decides."""

    name: str
    suffix: str
    description: str
    decides: str = ""

    def __post_init__(self) -> None:
        if not self.suffix.startswith("_") or self.suffix == "_":
            raise ValueError(
                f"source {self.name!r}: suffix must start with '_', got {self.suffix!r}"
            )

    def as_dict(self) -> dict[str, str]:
        """The source as a chapter's summary keeps it (:func:`sources_from`)."""
        return asdict(self)


def sources_from(records: Iterable[Mapping[str, Any]]) -> tuple[EvidenceSource, ...]:
    """The sources a chapter's summary keeps (:meth:`EvidenceSource.as_dict`), in order."""
    return tuple(EvidenceSource(**r) for r in records)


def _source(key: str, sources: Sequence[EvidenceSource]) -> tuple[int, EvidenceSource] | None:
    """The precedence and the source of the claim keyed ``key`` (the longest suffix it ends
    with), ``None`` for a claim of this run."""
    found = [(i, s) for i, s in enumerate(sources) if key.endswith(s.suffix)]
    return max(found, key=lambda f: len(f[1].suffix), default=None)


def _rank(key: str, sources: Sequence[EvidenceSource]) -> int:
    """The precedence of the source that decided ``key`` (its place in ``sources``)."""
    found = _source(key, sources)
    return len(sources) if found is None else found[0]


def base_key(key: str, sources: Sequence[EvidenceSource]) -> str:
    """The key a claim decides: its own for a claim of this run, else without its source's
    suffix and with the source's ``decides``."""
    found = _source(key, sources)
    return key if found is None else key.removesuffix(found[1].suffix) + found[1].decides


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


def not_reproduced_key(key: str) -> str:
    """The key of the erratum of claim ``key`` not reproduced (the errata page lists the claim
    from the decided claims instead)."""
    return f"{key}_not_reproduced"


def decided_claims(claims: Iterable[Claim], sources: Sequence[EvidenceSource]) -> list[Decided]:
    """One :class:`Decided` per claim key, in the order the keys first appear: a claim keyed
    with the suffix of one of the chapter's ``sources`` decides its key (:func:`base_key`), and
    this run's claim of that key is the rerun beside it; of two records, the source listed first
    decides. A key decided twice on the same run, or two sources with one suffix, is a
    ``ValueError``."""
    suffixes = [s.suffix for s in sources]
    if len(set(suffixes)) != len(suffixes):
        raise ValueError(f"sources: a suffix is declared twice in {suffixes}")
    runs: dict[str, dict[bool, Claim]] = {}
    for c in claims:
        base = base_key(c.key, sources)
        on_record = _source(c.key, sources) is not None
        held = runs.setdefault(base, {}).get(on_record)
        rank = _rank(c.key, sources)
        if held is not None and (not on_record or _rank(held.key, sources) == rank):
            raise ValueError(f"claims: {base!r} is decided twice on the same run")
        if held is None or rank < _rank(held.key, sources):
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
    "Decided",
    "EvidenceSource",
    "base_key",
    "counts_text",
    "decided_claims",
    "deciding_runs",
    "not_reproduced_key",
    "sources_from",
    "verdict_counts",
]
