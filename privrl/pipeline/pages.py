"""The book's generated pages, written as MyST Markdown from the executed chapters' summaries.

Each chapter saves ``<name>.summary.json`` (:meth:`privrl.chapter.report.Report.summary`: keys
``paper, profile, seed, commit, config, checks, claims, ledger, errata``) beside its executed
notebook. From these, ``privrl book`` generates the **Privacy ledger** page
(:mod:`privrl.pipeline.ledger_page`), the **papers** of the landing page
(:func:`landing_papers`: one short paragraph per chapter, its verdicts folded), the generated
part of the **errata** page (:func:`errata_entries`: every recorded erratum and every claim not
reproduced) and the **reproducibility** page (:func:`reproducibility_page`: this build's runs
and the recorded runs of other profiles with their provenance).

Every page reads a chapter's claims through :func:`summary_decided_claims` (one verdict per
claim: the record's where there is one), so the landing page, the errata page and the
chapters' summary boxes and claims tables agree. A summary without claims, ledger entries or
errata in the :class:`~privrl.chapter.report.Report` schema is named as such instead of
breaking the build."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from privrl.chapter.decided import (
    Decided,
    counts_text,
    decided_claims,
    not_reproduced_key,
    sources_from,
)
from privrl.chapter.decided_on import CLAIMS_WIDTHS, decided_on, evidence_sentence
from privrl.chapter.front import FrontMatter
from privrl.chapter.paper_claims import coverage_counts
from privrl.chapter.records import RecordedRun, format_duration
from privrl.chapter.tables import BENEATH_CLASS, FIXED_CLASS, format_number
from privrl.chapter.verdicts import Claim

Summary = dict[str, Any]


def records(summary: Summary, key: str) -> list[dict[str, Any]]:
    """The records under ``key`` (``"claims"``, ``"ledger"``, ...) of a summary in the Report
    schema: a list of dicts. Anything else (missing, or an older chapter's dict) gives ``[]``."""
    value = summary.get(key)
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return value
    return []


#: The word ``inf`` in a text (``epsilon = inf``), written for the reader as ∞.
INF_WORD = re.compile(r"(?<![A-Za-z0-9_.])(-?)inf(?![A-Za-z0-9_])")


def cell(value: Any) -> str:
    """Text safe inside a Markdown pipe table cell (no pipes, no line breaks), ``inf`` written
    ∞ (``epsilon = inf`` in a claim's words is epsilon = ∞)."""
    text = "" if value is None else str(value)
    return INF_WORD.sub(r"\1∞", " ".join(text.split()).replace("|", "\\|"))


def number(value: Any) -> str:
    """A number for a table, as :func:`privrl.chapter.tables.format_number` writes it (three
    significant digits, inf as ∞); ``n/a`` for a missing value."""
    if value is None or value == "":
        return "n/a"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return cell(value)
    return "n/a" if math.isnan(x) else format_number(x)


def chapter_link(paper: str) -> str:
    """A link from a page in ``book/`` to the chapter ``notebooks/<paper>``, labelled by name."""
    return f"{{doc}}`{paper} <../notebooks/{paper}>`"


def _table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def missing_note(summaries: Sequence[Summary], key: str, what: str) -> list[str]:
    """Lines naming the chapters whose summary records no ``what`` (under ``key``) yet."""
    names = [s.get("paper", "?") for s in summaries if not records(s, key)]
    if not names:
        return []
    return [
        "",
        f"Chapters whose summary records no {what} yet: "
        + ", ".join(chapter_link(n) for n in names)
        + ".",
    ]


def wrapped_table(header: Sequence[str], rows: list[list[str]], also: str = "") -> list[str]:
    """A Markdown table in a MyST ``{table}`` of class :data:`WRAP_CLASS` (and ``also``, a class
    of its own): its cells wrap (``book/_static/privrl.css``), so it fits the text column."""
    return [
        ":::{table}",
        f":class: {WRAP_CLASS} {also}".rstrip(),
        "",
        *_table(header, rows),
        ":::",
    ]


#: The class of the generated pages' tables, whose cells wrap to fit the column.
WRAP_CLASS = "privrl-wrap"


def claim_of(record: dict[str, Any]) -> Claim:
    """A claim saved in a summary, read back as a :class:`~privrl.chapter.verdicts.Claim`
    (fields a summary of another version holds beyond the class's are left out)."""
    names = {f.name for f in fields(Claim)}
    kw = {k: v for k, v in record.items() if k in names}
    if kw.get("interval") is not None:
        kw["interval"] = tuple(kw["interval"])
    return Claim(**kw)


def summary_decided_claims(summary: Summary) -> list[Decided]:
    """The chapter's decided claims (:func:`privrl.chapter.decided.decided_claims` over the
    evidence sources its summary keeps, the one choice every page reads)."""
    return decided_claims(
        (claim_of(c) for c in records(summary, "claims")), sources_from(records(summary, "sources"))
    )


def _key_link(name: str, row: Decided, front: FrontMatter | None) -> str:
    """The row's key, linked to the figure or table that decided it (the front matter's
    ``evidence`` label of the deciding claim's own key, e.g. with a record's suffix, else of the
    row's key), else to its chapter."""
    evidence = front.evidence if front is not None else {}
    label = evidence.get(row.claim.key) or evidence.get(row.key)
    key = row.key
    return f"{{ref}}`{key} <{label}>`" if label else f"{{doc}}`{key} <../notebooks/{name}>`"


#: A statement prefix shared by this many rows of a group is stated once, as the group's note.
SHARED = 3


def _shared_prefix(statements: Sequence[str]) -> str:
    """The opening up to the first ": " that at least :data:`SHARED` statements share, the
    most shared first ("" if none)."""
    heads = [s[: s.index(": ") + 2] for s in statements if ": " in s]
    counts = {h: heads.count(h) for h in heads}
    best = max(counts, key=lambda h: (counts[h], len(h)), default="")
    return best if counts.get(best, 0) >= SHARED else ""


def _verdict_cell(d: Decided) -> str:
    text = f"**{d.claim.verdict}**"
    if d.rerun_agrees is True:
        return text + " (quick rerun agrees)"
    if d.rerun_agrees is False and d.rerun is not None:
        return text + f" (quick rerun: {d.rerun.verdict})"
    return text


#: The landing page's verdict tables: their columns (the claim the widest, its key small beneath
#: it), and their class, whose columns take the shares of
#: :data:`privrl.chapter.decided_on.CLAIMS_WIDTHS` (``book/_static/privrl.css``: MyST's table
#: directive writes no column widths).
VERDICT_COLUMNS = tuple(CLAIMS_WIDTHS)
CLAIMS_CLASS = "privrl-claims"


def _claim_cell(name: str, d: Decided, front: FrontMatter | None, prefix: str) -> str:
    """The claim's words (less the group's shared ``prefix``) and, small beneath them, its key
    linked to the figure or table that decided it."""
    return (
        cell(d.claim.statement.removeprefix(prefix))
        + f'<br><small class="{BENEATH_CLASS}">{_key_link(name, d, front)}</small>'
    )


def _group(name: str, rows: list[Decided], front: FrontMatter | None, note: str) -> list[str]:
    """One table of a chapter's verdicts, laid out for reading: the claim (a prefix its
    statements share said once, above the table) with its key beneath, the verdict, the
    evidence sentence in the cell and where it was decided (the record, trials per arm and
    scale: :func:`privrl.chapter.decided_on.decided_on`)."""
    prefix = _shared_prefix([d.claim.statement for d in rows])
    if prefix and prefix.removesuffix(": ") not in note:
        note = (note + " " if note else "") + f"*{prefix.removesuffix(': ')}.*"
    table = [
        [
            _claim_cell(name, d, front, prefix),
            _verdict_cell(d),
            cell(evidence_sentence(d.claim)),
            cell(decided_on(name, d)),
        ]
        for d in rows
    ]
    lines = [note, ""] if note else []
    lines += [
        ":::{table}",
        f":class: {WRAP_CLASS} {FIXED_CLASS} {CLAIMS_CLASS}",
        "",
        *_table(VERDICT_COLUMNS, table),
        ":::",
    ]
    return [*lines, ""]


#: The note above the claims decided on the paper's own set-up, where others are decided on
#: another (a shared statement prefix: ono2020's reference set-up).
OWN_SET_UP = "On the paper's set-up"


def _set_ups(rows: list[Decided]) -> list[tuple[str, list[Decided]]]:
    """The paper's claims (rows beyond it left out) by the set-up they were decided on: one
    group without a note, or, where three or more statements share an opening (another
    set-up, e.g. ono2020's reference set-up), those decided on the paper's own set-up
    (:data:`OWN_SET_UP`) and those whose statement opens with the other's name (the shared
    opening up to its first comma or parenthesis), each with its set-up's name."""
    claims = [d for d in rows if not d.beyond]
    shared = _shared_prefix([d.claim.statement for d in claims])
    if not shared:
        return [("", claims)]
    name = shared.split(",")[0].split(" (")[0].removesuffix(": ")  # "On the reference set-up"
    other = [d for d in claims if d.claim.statement.startswith(name)]
    own = [d for d in claims if not d.claim.statement.startswith(name)]
    return [(OWN_SET_UP, own), (name, other)]


def verdicts_text(rows: list[Decided]) -> str:
    """The counts of a chapter's verdicts (:func:`~privrl.chapter.decided.counts_text`), each
    claim of the paper counted once: where its claims are decided on two set-ups
    (:func:`_set_ups`), on the one the chapter names (ono2020's reference set-up: "on the
    reference set-up, 24 claims: ..."), the paper's own set-up counted in the dropdown."""
    groups = _set_ups(rows)
    if len(groups) == 1:
        return counts_text(rows)
    name, group = groups[-1]
    return f"{name[0].lower()}{name[1:]}, " + counts_text(group + [d for d in rows if d.beyond])


def chapter_verdicts(name: str, rows: list[Decided], front: FrontMatter | None) -> list[str]:
    """A chapter's verdict tables, folded in one dropdown: the paper's claims by the set-up
    they were decided on (:func:`_set_ups`: ono2020's own and reference set-ups, each headed
    by its name), then the rows beyond it."""
    set_ups = _set_ups(rows)
    groups = [
        (f"*{note}: {counts_text(group)}.*" if note == OWN_SET_UP else "", group)
        for note, group in set_ups
    ]
    beyond = [d for d in rows if d.beyond]
    if beyond:
        groups.append(
            (
                "**Beyond the paper**: our own metrics, set-ups and neighbouring "
                "relations, decided beside the paper's claims (never counted).",
                beyond,
            )
        )
    decided_on = sum(1 for _, group in set_ups if group)
    verdicts = (
        "its verdict"
        if len(rows) == 1
        else f"its verdicts claim by claim on {decided_on} set-ups"
        if decided_on > 1
        else f"its {len(rows)} verdicts claim by claim"
    )
    lines = [f"::::{{dropdown}} What {name} claims, and {verdicts}", ""]
    if front is not None:
        lines += [f"*What it claims:* {front.claims}", ""]
    if (coverage := coverage_counts(name)) is not None:
        lines += [
            f"*Claim sentences of the paper decided:* {coverage[0]} of {coverage[1]} (the "
            "others, each with its reason, below the chapter's summary box).",
            "",
        ]
    for note, group in groups:
        if group:
            lines += _group(name, group, front, note)
    return [*lines, "::::"]


def landing_papers(summaries: Sequence[Summary], fronts: Mapping[str, FrontMatter]) -> str:
    """Markdown of the landing page's papers, one short block each, in book order: the title
    linked to its chapter, the counts of the decided claims and the bottom line (its front
    matter, ``fronts`` by chapter name), then folded what the paper claims, how many of its claim
    sentences the chapter decides (:func:`privrl.chapter.paper_claims.coverage_counts`) and every
    verdict (:func:`chapter_verdicts`; the chapter's summary box names the deciding runs), so that the
    page stays within three screens. A chapter without claims (the audits, a chapter beyond the
    papers) gets its sentences only."""
    lines: list[str] = []
    for s in summaries:
        name = s.get("paper", "?")
        front, rows = fronts.get(name), summary_decided_claims(s)
        text = [f"**{{doc}}`../notebooks/{name}`.**"]
        if front is not None and not rows:
            text.append(front.claims)
        if rows:  # what the paper claims and the deciding runs: in the dropdown and the box
            text.append(f"**Verdicts: {verdicts_text(rows)}.**")
        if front is not None:
            text.append(f"**Bottom line:** {front.bottom_line}")
        lines += [" ".join(text), ""]
        if rows:
            lines += [*chapter_verdicts(name, rows, front), ""]
    if not any(records(s, "claims") for s in summaries):
        lines.append("No chapter records a claim yet.")
    return "\n".join(lines) + "\n"


def restates_a_claim(erratum: dict[str, Any], keys: Sequence[str]) -> bool:
    """Whether an erratum is the erratum of a claim of its chapter not reproduced (keyed
    :func:`~privrl.chapter.decided.not_reproduced_key` of one of ``keys``): the errata page lists
    those claims from the decided claims instead."""
    return erratum.get("kind") == "not reproduced" and erratum.get("key") in {
        not_reproduced_key(k) for k in keys
    }


def errata_entries(summaries: Sequence[Summary]) -> str:
    """Markdown of the generated part of the errata page: the errata recorded by the chapters,
    then every decided claim (:func:`summary_decided_claims`: the record's verdict where there
    is one) whose verdict is "not reproduced", with its scale, linked to the chapter holding its evidence.
    An erratum restating a claim not reproduced gives way to the decided claim (a quick run's
    erratum would quote the quick run)."""
    errata, refuted = [], []
    for s in summaries:
        name, rows = s.get("paper", "?"), summary_decided_claims(s)
        keys = [d.key for d in rows]
        errata += [
            [
                chapter_link(name),
                cell(e.get("kind")),
                cell(e.get("statement")),
                cell(e.get("evidence")),
            ]
            for e in records(s, "errata")
            if not restates_a_claim(e, keys)
        ]
        refuted += [
            [
                chapter_link(name) + f": `{d.key}`",
                cell(d.claim.statement),
                cell(evidence_sentence(d.claim)),
                cell(d.scale) + f", `{d.claim.commit}`",
            ]
            for d in rows
            if d.claim.verdict == "not reproduced"
        ]
    lines = ["## Errata recorded by the chapters", ""]
    lines += (
        wrapped_table(("paper", "kind", "what", "evidence"), errata)
        if errata
        else ["No chapter records an erratum yet."]
    )
    lines += missing_note(summaries, "errata", "erratum")
    lines += [
        "",
        "## Claims not reproduced",
        "",
        "Every headline claim whose verdict is *not reproduced*: the 95% interval of its",
        "statistic lies on the other side of the paper's threshold, so the data exclude the",
        "paper's claimed effect. Each is decided as on the landing page: on the paper-scale",
        "record where there is one (its scale and commit beside it), else on this build's",
        "run. Claims the data cannot decide are *inconclusive*, not listed here.",
        "",
    ]
    lines += (
        wrapped_table(("claim", "statement", "evidence", "decided on"), refuted)
        if refuted
        else ["No claim is decided *not reproduced* in this build."]
    )
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
    rows = [
        [
            r.notebook,
            r.profile,
            format_duration(r.wall_time_s),
            f"{r.peak_memory_mb:.0f} MB",
            f"`{r.git_commit}`" + (" (modified)" if r.git_dirty else ""),
            f"{r.cpus} CPUs, {r.machine}, Python {r.python}",
        ]
        for r in records_
    ]
    lines += _table(
        ("notebook", "profile", "wall time", "peak memory", "git commit", "machine"), rows
    )
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
        rows = [
            [
                m.name,
                m.profile,
                _parameters(m.record.get("parameters", {})),
                m.wall_time_text,
                f"{float(m.record.get('peak_memory_mb', math.nan)):.0f} MB",
                f"`{m.commit}`",
                m.machine,
                m.date,
                f"**{m.status}**: {cell(m.stale_reason)}",
            ]
            for m in measured
        ]
        lines += _table(
            (
                "notebook",
                "profile",
                "parameters",
                "wall time",
                "peak memory",
                "git commit",
                "machine",
                "date",
                "code since",
            ),
            rows,
        )
    else:
        lines.append("No run of another profile has been recorded yet.")
    return "\n".join(lines) + "\n"


def _parameters(parameters: dict[str, Any]) -> str:
    """Parameters that change a run's results (not the profile, progress bars or cache folder)."""
    shown = {k: v for k, v in parameters.items() if k not in ("profile", "progress", "cache_dir")}
    return ", ".join(f"{k} = {_value(v)}" for k, v in shown.items()) or "profile defaults"


def _value(value: Any) -> str:
    """A parameter's value for the reader: numbers as :func:`number` writes them (inf as ∞),
    lists in brackets, text as it is."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return cell(value)
    return number(value)


__all__ = [
    "chapter_verdicts",
    "claim_of",
    "summary_decided_claims",
    "errata_entries",
    "landing_papers",
    "missing_note",
    "records",
    "reproducibility_page",
    "restates_a_claim",
    "wrapped_table",
]
