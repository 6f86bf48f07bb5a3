"""One skeleton for every chapter: :meth:`Chapter.run` is written once, a paper fills it in.

A run takes these steps, in this order:

1. validate the typed profile (:class:`~privrl.chapter.profile.Profile`);
2. make the :class:`~privrl.chapter.report.Report`; :meth:`Chapter.prepare`;
3. run the **checks** (``check(ctx)`` functions, in order, recording through
   ``ctx.report.check``, which raises on failure);
4. run the **sweep** (:meth:`Chapter.sweep`, :func:`~privrl.chapter.sweep.run_sweep`), its checks;
5. record the **releases** in the privacy ledger (:meth:`Chapter.releases`, each
   :class:`~privrl.chapter.ledger.LedgerEntry` with its event);
6. decide each :class:`~privrl.chapter.evidence.ClaimSpec` on each
   :class:`~privrl.chapter.evidence.Evidence` of :meth:`Chapter.evidence`;
7. record the **errata** (:class:`ErratumSpec`: a condition and its evidence);
8. :meth:`Chapter.finish`; return an :class:`~privrl.chapter.profile.ExperimentResult`.

A paper states its profile, state type, checks, claims and errata as keywords of the class
statement and supplies :meth:`~Chapter.sweep`, :meth:`~Chapter.releases`, :meth:`~Chapter.finish`
(where needed :meth:`~Chapter.prepare`, :meth:`~Chapter.evidence`); steps pass values through the
typed state ``ctx.state`` (a ``state_type``), whose data-frame fields are the tables returned.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import pandas as pd

from privrl.chapter.decided import EvidenceSource, decided_claims, not_reproduced_key
from privrl.chapter.evidence import LIVE, ClaimSpec, Evidence
from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.profile import ExperimentResult, Profile
from privrl.chapter.report import Report
from privrl.chapter.verdicts import Claim, Erratum

Text = str | Callable[["Context[Any]"], str]
S = TypeVar("S")


@dataclass
class NoState:
    """The state of a chapter whose steps pass nothing to each other."""


def state_tables(state: Any) -> dict[str, pd.DataFrame]:
    """The tables a run returns: the data-frame fields of its state, by field name."""
    return {
        f.name: value
        for f in fields(state)
        if isinstance(value := getattr(state, f.name), pd.DataFrame)
    }


@dataclass
class Context(Generic[S]):
    """What one run of a chapter carries from step to step.

    ``state`` is the chapter's typed state (what one step hands the next; its data-frame fields
    are the tables the run returns), ``values`` the numbers glued for the prose and read by the
    errata's templates (``{name}`` in an :class:`ErratumSpec`), ``rng`` the checks' random
    generator (seeded with the profile's seed), ``evidence`` the sources the claims are decided
    on, by name, ``claims`` the decided claims by key.
    """

    profile: Any
    report: Report
    executor: Any = None
    cache_dir: str | Path | None = None
    progress: bool = False
    values: dict[str, Any] = field(default_factory=dict)
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)
    state: S = field(default_factory=NoState)  # type: ignore[assignment]

    @property
    def sweep_options(self) -> dict[str, Any]:
        """The run's ``executor``, ``cache_dir`` and ``progress``, as keywords of
        :func:`privrl.chapter.sweep.run_sweep` and the chapters' run functions that call it."""
        return {"executor": self.executor, "cache_dir": self.cache_dir, "progress": self.progress}

    def glue(self, key: str, value: Any) -> None:
        """Keep ``value`` for the errata's templates and glue it for the prose."""
        self.values[key] = value
        self.report.glue(key, value)


@dataclass(frozen=True)
class ErratumSpec:
    """An erratum: ``kind`` (:data:`~privrl.chapter.verdicts.ERRATUM_KINDS`), ``statement`` and
    ``evidence`` as templates over the run's ``values`` (or functions of the context), recorded
    when ``when(ctx)`` holds (always, by default)."""

    key: str
    kind: str
    statement: Text
    evidence: Text
    when: Callable[[Context], bool] | None = None

    def applies(self, ctx: Context) -> bool:
        return self.when is None or bool(self.when(ctx))

    def make(self, ctx: Context) -> Erratum:
        def fill(text: Text) -> str:
            return text(ctx) if callable(text) else text.format(**ctx.values)

        return Erratum(self.key, self.kind, fill(self.statement), fill(self.evidence))


def deciding_claim(ctx: Context, key: str) -> Claim | None:
    """The claim the book reports for ``key`` (:func:`~privrl.chapter.decided.decided_claims`
    over the chapter's sources: the record's where there is one, else this run's), ``None``
    when no run decided it."""
    decided = decided_claims(ctx.claims.values(), ctx.report.sources)
    return next((d.claim for d in decided if d.key == key), None)


def not_reproduced(spec: ClaimSpec, statement: Text | None = None) -> ErratumSpec:
    """The one erratum of a claim not reproduced: keyed :func:`~privrl.chapter.decided.
    not_reproduced_key`, recorded when the verdict the book reports for ``spec``
    (:func:`deciding_claim`) is *not reproduced*; it states ``statement`` (default: the claim's
    statement) and cites the deciding claim's key, scale, profile, commit and numbers."""

    def deciding(ctx: Context) -> Claim:
        claim = deciding_claim(ctx, spec.key)
        if claim is None:
            raise ValueError(f"erratum of {spec.key!r}: no run decided the claim")
        return claim

    def evidence(ctx: Context) -> str:
        claim = deciding(ctx)
        return (
            f"claim {claim.key} ({claim.scale}, {claim.profile} profile, commit "
            f"{claim.commit}): {claim.evidence_text()}"
        )

    def when(ctx: Context) -> bool:
        claim = deciding_claim(ctx, spec.key)
        return claim is not None and claim.verdict == "not reproduced"

    return ErratumSpec(
        not_reproduced_key(spec.key),
        "not reproduced",
        statement if statement is not None else (lambda ctx: deciding(ctx).statement),
        evidence,
        when,
    )


#: The declarative attributes of a :class:`Chapter`, which a subclass may state as keywords of its
#: class statement.
DECLARED: tuple[str, ...] = (
    "name",
    "profile_type",
    "checks",
    "sweep_checks",
    "claims",
    "errata",
    "sources",
    "state_type",
)


class Chapter:
    """The skeleton of a chapter (see the module docstring); subclass it once per paper, stating
    its :data:`DECLARED` attributes as keywords of the class statement (or in its body)."""

    #: The notebook's name (``"xie2019"``): the report's and the summary's name.
    name: ClassVar[str]
    #: The chapter's typed profile class.
    profile_type: ClassVar[type[Profile]]
    #: Named check functions, run in this order before the sweep (step 3) and after it (step 4).
    checks: ClassVar[tuple[Callable[[Context], None], ...]] = ()
    sweep_checks: ClassVar[tuple[Callable[[Context], None], ...]] = ()
    #: The paper's claims (step 6) and errata (step 7).
    claims: ClassVar[tuple[ClaimSpec, ...]] = ()
    errata: ClassVar[tuple[ErratumSpec, ...]] = ()
    #: The recorded runs whose verdicts replace this run's, in order of precedence (the one
    #: place a chapter names them; :func:`~privrl.chapter.decided.decided_claims` reads them).
    sources: ClassVar[tuple[EvidenceSource, ...]] = ()
    #: The dataclass of the chapter's state, made with no arguments at the start of each run.
    state_type: ClassVar[type[Any]] = NoState

    def __init_subclass__(cls, **declared: Any) -> None:
        """Set the :data:`DECLARED` attributes given as keywords of the class statement; an
        unknown keyword, or a chapter left without ``name`` or ``profile_type``, is an error."""
        unknown = sorted(set(declared) - set(DECLARED))
        if unknown:
            raise TypeError(
                f"{cls.__name__}: unknown chapter attribute(s) {unknown}; known: {list(DECLARED)}"
            )
        super().__init_subclass__()
        for key, value in declared.items():
            setattr(cls, key, value)
        missing = [key for key in ("name", "profile_type") if not hasattr(cls, key)]
        if missing:
            raise TypeError(f"{cls.__name__}: a chapter needs {missing}")

    def prepare(self, ctx: Context) -> None:
        """Step 2: what the checks and the sweep start from; it records nothing."""

    def sweep(self, ctx: Context) -> None:
        """Step 4: the multi-seed experiments, into ``ctx.state``."""

    def releases(self, ctx: Context) -> Iterable[LedgerEntry]:
        """Step 5: the ledger entries of every release the chapter makes."""
        return ()

    def evidence(self, ctx: Context) -> Iterable[Evidence | None]:
        """Step 6: the evidence the claims are decided on, in order (``None``: a source this run
        does not have, e.g. no recorded run); by default this run's, with no data beyond
        ``ctx``."""
        return (Evidence(LIVE, ctx.profile),)

    def finish(self, ctx: Context) -> None:
        """Step 8: the numbers the prose reads (``ctx.glue``) and what the notebook shows."""

    def run(
        self,
        profile: Profile,
        *,
        executor: Any = None,
        cache_dir: str | Path | None = None,
        progress: bool = False,
    ) -> ExperimentResult:
        """Run the chapter at ``profile`` (steps 1-8 of the module docstring)."""
        if not isinstance(profile, self.profile_type):
            kind = self.profile_type.__name__
            raise ValueError(
                f"profile must be a {kind} ({kind}.quick() or {kind}.paper()), "
                f"got {type(profile).__name__}"
            )
        started = time.perf_counter()
        report = Report(
            self.name,
            profile.profile,
            seed=profile.seed,
            config=profile.as_dict(),
            sources=self.sources,
        )
        ctx: Context[Any] = Context(
            profile,
            report,
            executor,
            cache_dir,
            progress,
            rng=np.random.default_rng(profile.seed),
            state=self.state_type(),
        )
        self.prepare(ctx)
        for check in self.checks:
            check(ctx)
        self.sweep(ctx)
        for check in self.sweep_checks:
            check(ctx)
        for entry in self.releases(ctx):
            report.ledger(entry)
        ctx.evidence = {ev.name: ev for ev in self.evidence(ctx) if ev is not None}
        for ev in ctx.evidence.values():
            for spec in self.claims:
                claim = ev.decide(ctx, spec) if spec.on is None or ev.name in spec.on else None
                if claim is not None:
                    ctx.claims[claim.key] = report.claim(claim)
        for erratum in self.errata:
            if erratum.applies(ctx):
                item = erratum.make(ctx)
                report.erratum(item.key, item.kind, item.statement, item.evidence)
        self.finish(ctx)
        return ExperimentResult(
            tables=state_tables(ctx.state),
            report=report,
            state=ctx.state,
            wall_time_s=time.perf_counter() - started,
        )


__all__ = [
    "DECLARED",
    "Chapter",
    "ClaimSpec",
    "Context",
    "ErratumSpec",
    "Evidence",
    "NoState",
    "deciding_claim",
    "not_reproduced",
    "state_tables",
]
