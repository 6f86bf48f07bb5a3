"""The book's generated pages, written as MyST Markdown from the executed chapters' summaries.

Each chapter saves ``<name>.summary.json`` (:meth:`privrl.chapter.report.Report.summary`: keys
``paper, profile, seed, commit, config, checks, claims, ledger, errata``) beside its executed
notebook. From these, ``privrl book`` generates

* the **Privacy ledger** page (:func:`ledger_page`): every ledger entry of every chapter;
* the **verdict table** of the landing page (:func:`verdict_table`): paper x claim x verdict x
  evidence x profile;
* the generated part of the **errata** page (:func:`errata_entries`): every recorded erratum and
  every claim whose verdict is "not reproduced";
* the **reproducibility** page (:func:`reproducibility_page`): this build's runs and the recorded
  runs of other profiles with their provenance.

Nothing on these pages is typed by hand. A chapter whose summary does not (yet) record claims,
ledger entries or errata in the :class:`~privrl.chapter.report.Report` schema (lists of records) is
named as such instead of breaking the build.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from privrl.chapter.records import RecordedRun, format_duration
from privrl.chapter.verdicts import VERDICTS, Claim
from privrl.core.accounting.events import event_from_dict

Summary = dict[str, Any]


def records(summary: Summary, key: str) -> list[dict[str, Any]]:
    """The records under ``key`` (``"claims"``, ``"ledger"``, ...) of a summary in the Report
    schema: a list of dicts. Anything else (missing, or an older chapter's dict) gives ``[]``."""
    value = summary.get(key)
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return value
    return []


def cell(value: Any) -> str:
    """Text safe inside a Markdown pipe table cell (no pipes, no line breaks)."""
    text = "" if value is None else str(value)
    return " ".join(text.split()).replace("|", "\\|")


def number(value: Any) -> str:
    """A number for a table: 4 significant digits, ``n/a`` for a missing value."""
    if value is None or value == "":
        return "n/a"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return cell(value)
    return f"{x:.4g}" if math.isfinite(x) else str(x)


def chapter_link(paper: str) -> str:
    """A link from a page in ``book/`` to the chapter ``notebooks/<paper>``, labelled by name."""
    return f"{{doc}}`{paper} <../notebooks/{paper}>`"


def evidence_text(claim: dict[str, Any]) -> str:
    """The claim's evidence line, formatted by :meth:`privrl.chapter.verdicts.Claim.evidence_text`."""
    names = {f.name for f in fields(Claim)}
    kw = {k: v for k, v in claim.items() if k in names}
    if kw.get("interval") is not None:
        kw["interval"] = tuple(kw["interval"])
    return Claim(**kw).evidence_text()


def _table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(r) + " |" for r in rows)]


def _missing(summaries: Sequence[Summary], key: str, what: str) -> list[str]:
    names = [s.get("paper", "?") for s in summaries if not records(s, key)]
    if not names:
        return []
    return ["", f"Chapters whose summary records no {what} yet: "
            + ", ".join(chapter_link(n) for n in names) + "."]


LEDGER_COLUMNS = ("paper", "release", "mechanism", "neighbouring relation", "noise", "epsilon",
                  "delta", "compositions", "accountant", "epsilon recomputed from its event",
                  "cross-check", "cross-check epsilon", "audit")


def recompute_epsilon(entry: dict[str, Any]) -> float | None:
    """The epsilon of a ledger entry (as saved in a summary) recomputed from its stored event at
    its delta; ``None`` for an entry saved before ledger entries carried events."""
    if not isinstance(entry.get("event"), dict):
        return None
    return float(event_from_dict(entry["event"]).epsilon(float(entry["delta"])))


def epsilon_cell(entry: dict[str, Any]) -> str:
    """The entry's epsilon; for a release with no guarantee, says so and names the relation under
    which the release is private, if any."""
    value = entry.get("epsilon")
    if isinstance(value, str) and value == "inf" or value == math.inf:
        under = entry.get("private_under")
        return "**no guarantee**" + (f" (private under: {cell(under)})" if under else "")
    at_zero = entry.get("at_delta_zero")
    return number(value) + (f"; at delta = 0: {cell(at_zero)}" if at_zero else "")


def _cross_check_cells(entry: dict[str, Any]) -> tuple[str, str]:
    check = entry.get("cross_check")
    if isinstance(check, dict):
        value = number(check.get("epsilon"))
        if check.get("vacuous"):
            value += f" (vacuous: {cell(check['vacuous'])})"
        return cell(f"{check.get('kind')}: {check.get('method')}"), value
    return cell(check), number(entry.get("cross_check_epsilon"))


def ledger_page(summaries: Sequence[Summary]) -> str:
    """Markdown of the Privacy ledger page: one row per ledger entry of every chapter."""
    rows = []
    for s in summaries:
        for e in records(s, "ledger"):
            chapter = s.get("paper", "?")
            paper = e.get("paper") or chapter
            rows.append([
                chapter_link(chapter) + ("" if paper == chapter else f" ({cell(paper)})"),
                cell(e.get("release")), cell(e.get("mechanism")),
                cell(f"{e.get('relation', '?')} {e.get('unit', '?')}"), cell(e.get("noise")),
                epsilon_cell(e), number(e.get("delta")), number(e.get("compositions")),
                cell(e.get("accountant")), number(recompute_epsilon(e)),
                *_cross_check_cells(e), cell(e.get("audit")) or "none yet",
            ])
    lines = [
        "(privacy-ledger)=",
        "# Privacy ledger",
        "",
        "Every $(\\varepsilon, \\delta)$ this book reports, one row per release, as recorded by the",
        "chapters in this build (`Report.ledger`). *Neighbouring relation* is the pair of datasets",
        "the guarantee protects (add/remove or replace-one, of a transition, trajectory, user, ...);",
        "*compositions* the number of mechanism invocations composed into the guarantee;",
        "*epsilon recomputed from its event* is computed while this page is generated, from the",
        "privacy event the chapter stored with the entry (dp-accounting's `DpEvent`, or an event of",
        "`privrl.core.accounting`), and must equal the reported epsilon; *cross-check* is of one of",
        "two kinds: an *upper bound* (a second accountant or an exact ratio) or an *empirical*",
        "value for chosen neighbouring pairs (a lower bound for those pairs, never a bound for the",
        "mechanism); the build requires either to be no more than 1% above the reported epsilon;",
        "*audit* the empirical audit of the release, where there is one. This page is generated",
        "from the chapters' summaries; nothing on it is typed by hand.",
        "",
    ]
    lines += _table(LEDGER_COLUMNS, rows) if rows else ["No chapter records a ledger entry yet."]
    lines += _missing(summaries, "ledger", "ledger entry")
    return "\n".join(lines) + "\n"


#: Suffixes of the keys of claims decided on a recorded run of another profile.
RECORDED_SUFFIXES: tuple[str, ...] = ("_paper", "_airraid")
#: Part of the key of a row beyond the paper (our metric, set-up or relation beside the paper's).
BEYOND = "_beyond"


def claim_rows(summary: Summary) -> list[dict[str, Any]]:
    """One row per claim of a chapter: the claim decided on the paper-scale record where one
    exists (else on this build's run), and whether this build's quick rerun agrees with it
    (``agrees``, ``disagrees``, ``too small`` when the quick run could not decide, ``-`` when
    the row is the quick run's own)."""
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for c in records(summary, "claims"):
        key = str(c.get("key", ""))
        base = next((key.removesuffix(s) for s in RECORDED_SUFFIXES if key.endswith(s)), key)
        run = "paper" if (c.get("profile") or summary.get("profile")) != "quick" else "quick"
        groups.setdefault(base, {})[run] = c
    rows = []
    for base, runs in groups.items():
        decisive = runs.get("paper", runs.get("quick"))
        quick = runs.get("quick")
        if decisive is quick or quick is None:
            agreement = "-"
        elif quick.get("verdict") == "untestable":
            agreement = "too small"
        else:
            agreement = "agrees" if quick.get("verdict") == decisive.get("verdict") else "disagrees"
        rows.append({"key": base, "claim": decisive, "quick": agreement,
                     "beyond": BEYOND in base})
    return rows


def verdict_table(summaries: Sequence[Summary]) -> str:
    """Markdown of the landing page's verdict table: one row per claim of each paper, decided on
    the paper-scale record where one exists, with the quick rerun's agreement beside it, and one
    summary line per paper."""
    rows, beyond, per_paper = [], [], []
    for s in summaries:
        paper = s.get("paper", "?")
        decided = claim_rows(s)
        for row in decided:
            c = row["claim"]
            run = (f"{c.get('profile') or s.get('profile')} @ `{c.get('commit') or s.get('commit')}`")
            (beyond if row["beyond"] else rows).append([
                chapter_link(paper), f"`{cell(row['key'])}`", cell(c.get("statement")),
                cell(c.get("source")),
                f"**{cell(c.get('verdict'))}**", cell(evidence_text(c)), cell(run), row["quick"]])
        papers = [r for r in decided if not r["beyond"]]
        if papers:
            counts = {v: sum(1 for r in papers if r["claim"].get("verdict") == v) for v in VERDICTS}
            extra = len(decided) - len(papers)
            per_paper.append(f"- {chapter_link(paper)}: {len(papers)} claims: "
                             + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
                             + (f" (and {extra} rows beyond the paper)" if extra else "") + ".")
    lines = [
        "Generated from the chapters executed for this build: one row per headline claim of a",
        "paper, decided on the paper-scale recorded run where there is one (else on this build's",
        "run) against the paper's own threshold: *reproduced* (95% interval on the claimed side),",
        "*not reproduced* (on the other side: the data exclude the paper's effect), *inconclusive*",
        "(the interval contains the threshold; the evidence says how many trials would decide it)",
        "or *untestable*. *Key* names the claim in its chapter's code (`claims.py`) and summary;",
        "*decided on* names the run (profile and commit) that decided the row; *quick rerun* says",
        "whether this build's quick run agrees.",
        "",
    ]
    header = ("paper", "key", "claim", "paper's source", "verdict", "evidence", "decided on",
              "quick rerun")
    if rows:
        lines += [*per_paper, ""]
        lines += _table(header, rows)
        if beyond:
            lines += ["", "**Beyond the paper.** Our own metrics, set-ups and neighbouring relations,",
                      "decided beside the paper's claims (they never replace a verdict above):", ""]
            lines += _table(header, beyond)
    else:
        lines.append("No chapter records a claim yet.")
    lines += _missing(summaries, "claims", "claim")
    return "\n".join(lines) + "\n"


def errata_entries(summaries: Sequence[Summary]) -> str:
    """Markdown of the generated part of the errata page: recorded errata, then every claim
    whose verdict is "not reproduced", each linked to the chapter holding its evidence."""
    errata = [[chapter_link(s.get("paper", "?")), cell(e.get("kind")), cell(e.get("statement")),
               cell(e.get("evidence"))] for s in summaries for e in records(s, "errata")]
    refuted = [[chapter_link(s.get("paper", "?")), cell(c.get("statement")),
                cell(evidence_text(c)), cell(c.get("profile") or s.get("profile"))]
               for s in summaries for c in (row["claim"] for row in claim_rows(s))
               if c.get("verdict") == "not reproduced"]
    lines = ["## Errata recorded by the chapters", ""]
    lines += (_table(("paper", "kind", "what", "evidence"), errata) if errata
              else ["No chapter records an erratum yet."])
    lines += _missing(summaries, "errata", "erratum")
    lines += ["", "## Claims not reproduced", "",
              "Every headline claim whose verdict in this build is *not reproduced*: the 95%",
              "interval of its statistic lies on the other side of the paper's threshold, so the",
              "data exclude the paper's claimed effect (decided on the paper-scale record where",
              "there is one). Claims the data cannot decide are *inconclusive*, not listed here.", ""]
    lines += (_table(("paper", "claim", "evidence", "profile"), refuted) if refuted
              else ["No claim is decided *not reproduced* in this build."])
    return "\n".join(lines) + "\n"


def reproducibility_page(records_: Sequence[Any], measured: Sequence[RecordedRun]) -> str:
    """Markdown of the reproducibility page: this build's runs (:class:`privrl.pipeline.build.RunRecord`)
    and the recorded runs of other profiles with their provenance."""
    lines = [
        "(reproducibility)=",
        "# Reproducibility",
        "",
        "This page is generated by the build (`privrl book`); nothing on it is typed by hand.",
        "Peak memory is the largest resident set of any process of the notebook's run (the",
        "kernel or one of its workers), read from `wait4`.",
        "",
        "## This build",
        "",
    ]
    rows = [[r.notebook, r.profile, format_duration(r.wall_time_s), f"{r.peak_memory_mb:.0f} MB",
             f"`{r.git_commit}`" + (" (modified)" if r.git_dirty else ""),
             f"{r.cpus} CPUs, {r.machine}, Python {r.python}"] for r in records_]
    lines += _table(("notebook", "profile", "wall time", "peak memory", "git commit", "machine"),
                    rows)
    if records_:
        lines += ["", "Versions of the key packages in this build:", ""]
        lines += _table(("package", "version"), [[k, v] for k, v in records_[0].versions.items()])
    lines += [
        "",
        "## Recorded runs of other profiles",
        "",
        "Produced by `privrl run NAME --profile paper --record`, which stores the run record in",
        "`book/measurements/`; the table below is read from those files. A record is *stale* when",
        "the chapter's experiment module, or a `privrl` module it imports, changed in git since the",
        "recorded commit: its numbers may no longer be what the code gives.",
        "",
    ]
    if measured:
        rows = [[m.name, m.profile, _parameters(m.record.get("parameters", {})),
                 m.wall_time_text, f"{float(m.record.get('peak_memory_mb', math.nan)):.0f} MB",
                 f"`{m.commit}`", m.machine, m.date,
                 f"**{m.status}**: {cell(m.stale_reason)}"] for m in measured]
        lines += _table(("notebook", "profile", "parameters", "wall time", "peak memory",
                         "git commit", "machine", "date", "code since"), rows)
    else:
        lines.append("No run of another profile has been recorded yet.")
    return "\n".join(lines) + "\n"


def _parameters(parameters: dict[str, Any]) -> str:
    """Parameters that change a run's results (not the profile, progress bars or cache folder)."""
    shown = {k: v for k, v in parameters.items() if k not in ("profile", "progress", "cache_dir")}
    return ", ".join(f"`{k}={v}`" for k, v in shown.items()) or "profile defaults"


__all__ = ["errata_entries", "ledger_page", "records", "reproducibility_page", "verdict_table"]
