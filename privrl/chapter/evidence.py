"""Where a claim's data came from, and the one way a claim is decided on it.

A chapter's claims are a table of :class:`ClaimSpec` rows written in the order the paper makes
them: key, the paper's statement, where the paper makes it, and ``decide(ctx, evidence)``, which
computes an :class:`~privrl.chapter.verdicts.Outcome` (statistic, interval, trials, verdict) from
the evidence's ``data`` through :mod:`privrl.chapter.verdicts`, or ``None`` when the data hold
nothing to decide it on.

An :class:`Evidence` is one source of data: this run (``live``), or a recorded run (its typed
``profile``, ``commit``, the words naming it). A claim decided again on a recorded run is the same
spec decided on another evidence, keyed ``<key><suffix>``. A recorded run whose claims were
decided when it was recorded (``verdicts``: read from its summary) gives those verdicts back
instead of deciding anew. :meth:`Evidence.decide` attaches key, statement, source, profile,
commit and scale to the outcome: provenance is stamped there and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from privrl.chapter.decided import PAPER_SCALE, QUICK_SCALE, EvidenceSource
from privrl.chapter.profile import Profile
from privrl.chapter.records import recorded_claims, recorded_run
from privrl.chapter.verdicts import Claim, Outcome

#: The name of the evidence of the run itself.
LIVE = "live"
D = TypeVar("D")


@dataclass(frozen=True)
class Evidence(Generic[D]):
    """One source of a claim's data.

    ``name`` identifies it among the chapter's evidence (a :class:`ClaimSpec` may name the
    sources it is decided on); ``profile`` is the typed profile the data were produced at
    (statements are resolved for it, its name is stamped on the claim); ``commit`` the recorded
    run's commit (``""``: this run's); ``data`` what the deciders read; ``evidence_lead`` the
    words naming a recorded run, put first in every claim's evidence; ``suffix`` the claims' key
    suffix; ``prefix`` what every statement starts with (a set-up other than the paper's);
    ``source_note`` what is added to the paper's source (the claim's ``source``); ``verdicts``
    the claims a recorded run decided when it was recorded (by key), given back instead of
    deciding anew; ``notes`` what a
    recorded claim's evidence should add (by key); ``scale`` the words for the scale the data
    were produced at, stamped on every claim (``""``: :meth:`scale_of`); ``record`` the name of
    the recorded run's profile when it differs from the typed profile its parameters are read
    into (gohari2021's ``design``, read as a ``paper`` profile with fewer seeds): stamped on the
    claims instead, so that the stamp names what was run.
    """

    name: str
    profile: Profile
    commit: str = ""
    data: D = None  # type: ignore[assignment]
    evidence_lead: str = ""
    suffix: str = ""
    prefix: str = ""
    source_note: str = ""
    verdicts: Mapping[str, Claim] | None = None
    notes: Mapping[str, str] = field(default_factory=dict)
    scale: str = ""
    record: str = ""

    @property
    def recorded(self) -> bool:
        """Whether the data come from a recorded run (not this one)."""
        return bool(self.commit)

    def scale_of(self, name: str) -> str:
        """The scale stamped on the claims of chapter ``name``: :attr:`scale` if given; for a
        recorded run, the ``"scale"`` its run JSON states (e.g. "10 of the paper's 30 seeds,
        450 of its 4,000 roll-outs"), else :data:`PAPER_SCALE`; for this run,
        :data:`QUICK_SCALE` or :data:`PAPER_SCALE` by its profile."""
        if self.scale:
            return self.scale
        if self.recorded:
            run = recorded_run(name, self.profile.profile)
            stated = run.record.get("scale") if run is not None else None
            return str(stated) if stated else PAPER_SCALE
        return QUICK_SCALE if self.profile.profile == "quick" else PAPER_SCALE

    def decide(self, ctx: Any, spec: ClaimSpec) -> Claim | None:
        """The claim of ``spec`` decided on this evidence (``ctx``: the run's
        :class:`~privrl.chapter.skeleton.Context`), or ``None`` when there is nothing to decide
        it on."""
        if self.verdicts is not None:
            outcome: Outcome | None = self.verdicts.get(spec.key)
        else:
            outcome = spec.decide(ctx, self)
        if outcome is None:
            return None
        parts = (self.evidence_lead, outcome.evidence, self.notes.get(spec.key, ""))
        return Claim.of(
            outcome,
            evidence="; ".join(p for p in parts if p),
            key=spec.key + self.suffix,
            statement=self.prefix + spec.says(self.profile),
            source=spec.source + self.source_note,
            profile=self.record or self.profile.profile,
            commit=self.commit or ctx.report.commit,
            scale=self.scale_of(ctx.report.paper),
        )


def recorded_verdicts(
    name: str, profile: Profile, live: Profile, source: EvidenceSource
) -> Evidence | None:
    """The verdicts the recorded ``profile`` run of chapter ``name`` decided (from its summary),
    as the evidence ``source`` (named and keyed ``<key><suffix>`` by it), beside a run at another
    profile ``live``; ``None`` in a run at that profile or when none was recorded."""
    run = recorded_run(name, profile.profile)
    if live.profile == profile.profile or run is None:
        return None
    claims = {c.key: c for c in recorded_claims(name, profile.profile, suffix="")}
    return Evidence(source.name, profile, run.commit, suffix=source.suffix, verdicts=claims)


@dataclass(frozen=True)
class ClaimSpec:
    """A claim of the paper: ``key``; ``statement`` in the paper's words (or a function of the
    profile, for a statement that names the profile's sizes); ``source`` where the paper makes
    it (figure, table, section, page); ``decide(ctx, evidence)`` returning its
    :class:`~privrl.chapter.verdicts.Outcome` or ``None``; ``on`` the names of the evidence it
    is decided on (``None``: every evidence the chapter gathers)."""

    key: str
    statement: str | Callable[[Any], str]
    source: str
    decide: Callable[[Any, Evidence[Any]], Outcome | None]
    on: tuple[str, ...] | None = None

    def says(self, profile: Any) -> str:
        """The statement for ``profile``."""
        return self.statement(profile) if callable(self.statement) else self.statement


__all__ = ["LIVE", "ClaimSpec", "Evidence", "recorded_verdicts"]
