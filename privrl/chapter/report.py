"""What a notebook records and writes next to itself.

A chapter builds one :class:`Report`: every numeric check goes through :meth:`Report.check`
(recorded, and raising :class:`~privrl.chapter.verdicts.CheckFailed` when it fails), every headline claim
through :meth:`Report.claim` (four-state verdicts, :mod:`privrl.chapter.verdicts`), every (epsilon, delta)
through :meth:`Report.ledger` (:mod:`privrl.chapter.ledger`) and every erratum through
:meth:`Report.erratum`. :meth:`Report.save` writes them with the run's tidy table.

papermill runs each notebook with its working directory set to the output folder, so results
written to the current directory land next to the executed notebook:
``<name>.results.csv`` (a tidy table: one row per observation) and ``<name>.summary.json``
(profile, parameters, checks, claims, ledger, errata and headline numbers).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.decided import (
    Decided,
    EvidenceSource,
    counts_text,
    decided_claims,
    deciding_runs,
)
from privrl.chapter.front import FrontMatter, front_matter
from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.paper_claims import coverage_markdown
from privrl.chapter.records import current_commit, recorded_run
from privrl.chapter.verdicts import (
    Check,
    CheckFailed,
    Claim,
    Erratum,
    make_check,
)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Path):
        return str(value)
    return value


def save_results(
    name: str,
    table: pd.DataFrame,
    summary: Mapping[str, Any],
    directory: str | Path = ".",
) -> tuple[Path, Path]:
    """Write ``<name>.results.csv`` (tidy) and ``<name>.summary.json`` into ``directory``."""
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ValueError("table must be a non-empty pandas DataFrame")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    csv_path = directory / f"{name}.results.csv"
    json_path = directory / f"{name}.summary.json"
    table.to_csv(csv_path, index=False)
    json_path.write_text(json.dumps(_jsonable(dict(summary)), indent=2, sort_keys=True) + "\n")
    return csv_path, json_path


#: The class of a chapter's summary box (the page rules measure its words).
SUMMARY_BOX = "summary-box"
#: The anchor of a chapter's "Departures from the paper" section (MyST heading anchor).
DEPARTURES_ANCHOR = "departures-from-the-paper"


def _front_matter(name: str) -> FrontMatter | None:
    """The chapter's front matter, or ``None`` for a chapter without one (a test's toy)."""
    try:
        return front_matter(name)
    except FileNotFoundError:
        return None


def _glue(key: str, value: Any) -> None:
    """``myst_nb.glue`` a plain value when running in a kernel (no-op elsewhere, e.g. in tests)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    if get_ipython() is None:
        return
    from myst_nb import glue

    glue(key, _jsonable(value) if isinstance(value, np.generic) else value, display=False)


class Report:
    """One chapter's checks, claims, privacy ledger and errata, saved with its results.

    ``paper`` is the notebook name (``"xie2019"``), ``profile`` the profile the live numbers come
    from, ``sources`` the recorded runs whose verdicts replace this run's (the chapter's
    :class:`~privrl.chapter.decided.EvidenceSource` list, kept in the summary). Claims come stamped with the profile and the commit they were decided on, and are
    glued into the page as
    ``<paper>_claim_<key>`` (the verdict) and ``<paper>_claim_<key>_evidence`` (statistic,
    interval, trials), so prose and tables read the same object.
    """

    def __init__(
        self,
        paper: str,
        profile: str,
        seed: int | None = None,
        config: Mapping[str, Any] | None = None,
        sources: Sequence[EvidenceSource] = (),
    ) -> None:
        if not paper.isidentifier():
            raise ValueError(f"paper must be a notebook name such as 'xie2019', got {paper!r}")
        self.paper = paper
        self.profile = profile
        self.seed = seed
        self.config = dict(config or {})
        self.sources = tuple(sources)
        self.commit = current_commit()
        self.checks: list[Check] = []
        self.claims: list[Claim] = []
        self.entries: list[LedgerEntry] = []
        self.errata: list[Erratum] = []

    def glue(self, key: str, value: Any) -> None:
        """Glue ``value`` as ``<paper>_<key>`` for the prose (plain Python numbers)."""
        _glue(f"{self.paper}_{key}", value)

    def check(self, key: str, statement: str, observed: Any, **bound: float) -> Check:
        """Record a numeric check and raise :class:`CheckFailed` if it fails.

        ``bound`` is one of ``at_most``, ``at_least``, ``below``, ``above``; without one,
        ``observed`` must be a boolean that is true. Glues the observed value as
        ``<paper>_check_<key>``.
        """
        if any(c.key == key for c in self.checks):
            raise ValueError(f"check {key!r} is recorded twice")
        result = make_check(key, statement, observed, **bound)
        self.checks.append(result)
        self.glue(f"check_{key}", result.observed)
        if not result.passed:
            raise CheckFailed(f"{self.paper}: check {key!r} failed: {result.describe()}")
        return result

    def claim(self, claim: Claim) -> Claim:
        """Record a decided claim (stamped with its profile and commit where it was decided:
        :meth:`privrl.chapter.evidence.Evidence.decide`) and glue its verdict and evidence."""
        if any(c.key == claim.key for c in self.claims):
            raise ValueError(f"claim {claim.key!r} is recorded twice")
        if not (claim.profile and claim.commit):
            raise ValueError(f"claim {claim.key!r}: profile and commit must be stamped")
        self.claims.append(claim)
        self.glue(f"claim_{claim.key}", claim.verdict)
        self.glue(f"claim_{claim.key}_evidence", claim.evidence_text())
        return claim

    def ledger(
        self, entry: LedgerEntry | None = None, /, *, tolerance: float = 0.01, **fields: Any
    ) -> LedgerEntry:
        """Record a ledger entry (an entry, or its fields with ``paper`` filled in).

        Raises :class:`CheckFailed` when its cross-check finds an epsilon more than
        ``tolerance`` (relative) above the entry's (its event's): the book would understate the
        loss.
        """
        if entry is None:
            entry = LedgerEntry(paper=fields.pop("paper", self.paper), **fields)
        elif fields:
            raise ValueError("give a LedgerEntry or its fields, not both")
        problems = entry.problems(tolerance)
        if problems:
            raise CheckFailed(
                f"{self.paper}: ledger entry {entry.release!r} " + "; ".join(problems)
            )
        self.entries.append(entry)
        return entry

    def erratum(self, key: str, kind: str, statement: str, evidence: str) -> Erratum:
        """Record a place where the paper is wrong, ambiguous, unsupported or not reproduced."""
        if any(e.key == key for e in self.errata):
            raise ValueError(f"erratum {key!r} is recorded twice")
        item = Erratum(key, kind, statement, evidence)
        self.errata.append(item)
        return item

    def decided_claims(self) -> list[Decided]:
        """The verdicts the book reports for this chapter, one per claim key
        (:func:`privrl.chapter.decided.decided_claims` over :attr:`sources`: the record's
        where there is one)."""
        return decided_claims(self.claims, self.sources)

    def summary_box(self) -> str:
        """Markdown for the box a chapter opens with (class :data:`SUMMARY_BOX`, at most 200
        words): the bottom line (:mod:`privrl.chapter.front`), the counts of the decided
        claims as the landing page gives them, the number of departures from the paper (linked
        to the chapter's "Departures from the paper" section), the runs that decided the
        verdicts with their scale and commit, the commands that rerun them and links to this
        run's results. No per-claim list (the claims table has it) and no staleness (the
        reproducibility page has it). Below the box, outside it, the folded list of the paper's
        claim sentences this chapter does not decide (:func:`privrl.chapter.paper_claims.
        coverage_markdown`). Display it with ``IPython.display.Markdown``; the book
        renders Markdown output as MyST, so the ``{download}`` roles become links."""
        name = self.paper
        front = _front_matter(name)
        decided = self.decided_claims()
        lines = [":::{admonition} Summary", f":class: {SUMMARY_BOX}", ""]
        if front is not None:
            lines += [f"**Bottom line.** {front.bottom_line}", ""]
        if decided:
            lines += [f"**Verdicts.** {counts_text(decided)}.", ""]
        if front is not None:
            n = len(front.departures)
            lines += [
                "**Departures from the paper:** "
                + (f"[{n}](#{DEPARTURES_ANCHOR})." if n else "none listed."),
                "",
            ]
        runs = deciding_runs(decided)
        if runs:
            lines += ["**Decided on** " + "; ".join(runs) + ".", ""]
        profiles = dict.fromkeys(d.claim.profile for d in decided if d.recorded)
        recorded = next(
            (run for p in (*profiles, "paper") if (run := recorded_run(name, p)) is not None), None
        )
        command = (recorded.record.get("command") if recorded is not None else None) or (
            f"privrl run {name} --profile paper --record"
        )
        lines += [
            f"**Rerun:** `privrl run {name}` (this page, quick) and `{command}` (the "
            f"record). This run's results: {{download}}`{name}.results.csv "
            f"<{name}.results.csv>`, {{download}}`{name}.summary.json <{name}.summary.json>`.",
            ":::",
        ]
        return "\n".join(lines) + "\n" + coverage_markdown(name)

    def all_claims_frame(self) -> pd.DataFrame:
        """Every claim as decided on every evidence (this run's and each record's, keys with the
        record's suffix), for a page that sets them side by side: key, claim, verdict,
        evidence, profile, scale. The verdicts the book reports are :meth:`claims_frame`'s."""
        return pd.DataFrame(
            [
                {
                    "key": c.key,
                    "claim": c.statement,
                    "verdict": c.verdict,
                    "evidence": c.evidence_text(),
                    "profile": c.profile,
                    "scale": c.scale,
                }
                for c in self.claims
            ],
            columns=["key", "claim", "verdict", "evidence", "profile", "scale"],
        )

    def claims_frame(self) -> pd.DataFrame:
        """The decided claims (:meth:`decided_claims`) as a table for the page: key (without a
        record's suffix), claim, verdict, scale, evidence and the paper's source."""
        return pd.DataFrame(
            [
                {
                    "key": d.key,
                    "claim": d.claim.statement,
                    "verdict": d.claim.verdict,
                    "scale": d.scale,
                    "evidence": d.claim.evidence_text(),
                    "source": d.claim.source,
                }
                for d in self.decided_claims()
            ],
            columns=["key", "claim", "verdict", "scale", "evidence", "source"],
        )

    def ledger_frame(self) -> pd.DataFrame:
        """The ledger entries as a table for the page."""
        cols = [
            "release",
            "mechanism",
            "relation",
            "noise",
            "epsilon",
            "delta",
            "compositions",
            "accountant",
            "recomputed_epsilon",
            "cross_check",
            "cross_check_epsilon",
        ]
        rows = [
            {
                **e.as_dict(),
                "relation": e.relation_text,
                "cross_check": f"{e.cross_check.kind}: {e.cross_check.method}",
                "cross_check_epsilon": e.cross_check.epsilon,
            }
            for e in self.entries
        ]
        return pd.DataFrame(rows, columns=cols)

    def summary(self, **extra: Any) -> dict[str, Any]:
        """Everything recorded, as the JSON-ready summary a chapter saves."""
        reserved = {
            "paper",
            "profile",
            "seed",
            "commit",
            "config",
            "checks",
            "claims",
            "ledger",
            "errata",
            "sources",
        }
        clash = sorted(reserved & set(extra))
        if clash:
            raise ValueError(f"summary keys {clash} are reserved")
        return {
            "paper": self.paper,
            "profile": self.profile,
            "seed": self.seed,
            "commit": self.commit,
            "config": self.config,
            "checks": [asdict(c) for c in self.checks],
            "claims": [c.as_dict() for c in self.claims],
            "ledger": [e.as_dict() for e in self.entries],
            "errata": [asdict(e) for e in self.errata],
            "sources": [s.as_dict() for s in self.sources],
            **extra,
        }

    def save(
        self, table: pd.DataFrame, directory: str | Path = ".", **extra: Any
    ) -> tuple[Path, Path]:
        """Write ``<paper>.results.csv`` and ``<paper>.summary.json`` (see :func:`save_results`)."""
        return save_results(self.paper, table, self.summary(**extra), directory)


__all__ = ["CheckFailed", "Report", "save_results"]
