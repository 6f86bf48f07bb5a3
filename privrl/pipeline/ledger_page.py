"""The book's **Privacy ledger** page, written as MyST Markdown from the executed chapters'
summaries (:meth:`privrl.chapter.report.Report.ledger`): every ledger entry of every chapter.

The page has one section per chapter (its heading a ``##``, so the book's right-hand contents
sidebar lists the chapters, each with the label ``privacy-ledger-<chapter>``), and in a section one
table per *kind of release*: the entries sharing a mechanism, a neighbouring relation, a
cross-check and an audit (:func:`release_kinds`). What every entry of a kind shares is written
once, above its table; the table has a row per entry with its release, its epsilon and the fields
that differ between its entries (:data:`FIELDS`). Every entry and every number of the summaries is
on the page, each once; none is typed by hand. Each cell wraps between words only (a token, e.g.
``mountain_car_off``, is never broken: ``book/_static/privrl.css``, the class
:data:`~privrl.pipeline.page_rules.WHOLE_WORDS_CLASS`), and the tables, having few columns of
short values, fit the text column (both held by the page rule ``whole-words``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from privrl.core.accounting.events import event_from_dict
from privrl.pipeline.page_rules import WHOLE_WORDS_CLASS
from privrl.pipeline.pages import (
    Summary,
    cell,
    chapter_link,
    missing_note,
    number,
    records,
    wrapped_table,
)

Entry = dict[str, Any]


def recompute_epsilon(entry: Entry) -> float | None:
    """The epsilon of a ledger entry (as saved in a summary) recomputed from its stored event at
    its delta; ``None`` for an entry saved before ledger entries carried events."""
    if not isinstance(entry.get("event"), dict):
        return None
    return float(event_from_dict(entry["event"]).epsilon(float(entry["delta"])))


def epsilon_cell(entry: Entry) -> str:
    """The entry's epsilon and delta, and the epsilon recomputed from its event; for a release
    with no guarantee, says so and names the relation under which the release is private, if
    any."""
    value = entry.get("epsilon")
    if isinstance(value, str) and value == "inf" or value == float("inf"):
        under = entry.get("private_under")
        return "**no guarantee**" + (f" (private under: {cell(under)})" if under else "")
    at_zero = entry.get("at_delta_zero")
    return (
        f"{number(value)} ({number(entry.get('delta'))}); from its event: "
        f"{number(recompute_epsilon(entry))}"
        + (f"; at delta = 0: {cell(at_zero)}" if at_zero else "")
    )


def _cross_check(entry: Entry) -> str:
    check = entry.get("cross_check")
    if isinstance(check, dict):
        return cell(f"{check.get('kind')}: {check.get('method')}")
    return cell(check)


def _cross_check_value(entry: Entry) -> str:
    check = entry.get("cross_check")
    if not isinstance(check, dict):
        return number(entry.get("cross_check_epsilon"))
    value = number(check.get("epsilon"))
    return value + (f" (vacuous: {cell(check['vacuous'])})" if check.get("vacuous") else "")


#: The fields of an entry beyond its release and epsilon, by the header of their column: each is
#: a column of a kind's table where its entries differ, else written once above the table.
FIELDS: dict[str, Callable[[Entry], str]] = {
    "mechanism": lambda e: cell(e.get("mechanism")),
    "noise": lambda e: cell(e.get("noise")),
    "neighbours": lambda e: f"{cell(e.get('relation', '?'))} {cell(e.get('unit', '?'))}",
    "accountant": lambda e: cell(e.get("accountant")),
    "compositions": lambda e: number(e.get("compositions")),
    "cross-check": _cross_check,
    "cross-check epsilon": _cross_check_value,
    "audit": lambda e: cell(e.get("audit")) or "none yet",
}
#: The fields that make a kind of release: its entries share them.
KIND = ("mechanism", "neighbours", "cross-check", "audit")


def release_kinds(entries: Sequence[Entry]) -> list[list[Entry]]:
    """The entries grouped by kind (equal :data:`KIND` fields), kinds in order of their first
    entry, entries in their order."""
    kinds: dict[tuple[str, ...], list[Entry]] = {}
    for e in entries:
        kinds.setdefault(tuple(FIELDS[f](e) for f in KIND), []).append(e)
    return list(kinds.values())


def _release(chapter: str, entry: Entry) -> str:
    paper = entry.get("paper") or chapter
    return cell(entry.get("release")) + ("" if paper == chapter else f" ({cell(paper)})")


#: A field's opening shared by every entry of a kind, up to a ": ", is said once above its table
#: (the rest in its column) when at least this long.
SHARED_OPENING = 20


def shared_opening(values: Sequence[str]) -> str:
    """The opening of ``values`` (one field of a kind's entries) that every one of them shares,
    ending with ": " (e.g. "PLD (...); RDP on the same z (...): "), where it is at least
    :data:`SHARED_OPENING` characters long; "" otherwise."""
    common = values[0]
    for v in values[1:]:
        while not v.startswith(common):
            common = common[:-1]
    cut = common.rfind(": ") + 2
    return common[:cut] if cut >= SHARED_OPENING else ""


def kind_table(chapter: str, entries: Sequence[Entry]) -> list[str]:
    """One kind of release (:func:`release_kinds`): what its entries share, in a paragraph,
    then a MyST table of class :data:`~privrl.pipeline.page_rules.WHOLE_WORDS_CLASS` with a row
    per entry: release, epsilon (delta) and each field of :data:`FIELDS` in which they differ
    (an opening they share there, :func:`shared_opening`, said in the paragraph)."""
    values = {f: [get(e) for e in entries] for f, get in FIELDS.items()}
    shared = [f for f, v in values.items() if len(set(v)) == 1]
    varying = [f for f in FIELDS if f not in shared]
    openings = {f: shared_opening(values[f]) for f in varying}
    header = ["release", "epsilon (delta)", *varying]
    rows = [
        [
            _release(chapter, e),
            epsilon_cell(e),
            *(values[f][i].removeprefix(openings[f]) for f in varying),
        ]
        for i, e in enumerate(entries)
    ]
    n = len(entries)
    lead = f"**{values['mechanism'][0]}**" if "mechanism" in shared else "**Releases**"
    said = [f"*{f}*: {values[f][0]}" for f in shared if f != "mechanism"]
    said += [f"*{f}*: {o}(each release's in the table)" for f, o in openings.items() if o]
    return [
        f"{lead} ({n} release{'s' * (n != 1)}){'. ' + '; '.join(said) if said else ''}.",
        "",
        *wrapped_table(header, rows, WHOLE_WORDS_CLASS),
        "",
    ]


INTRO = [
    "(privacy-ledger)=",
    "# Privacy ledger",
    "",
    "Every $(\\varepsilon, \\delta)$ this book reports, one row per release, as recorded by the",
    "chapters in this build (`Report.ledger`), one section per chapter (the contents beside",
    "this page list them). In a section, the releases of one kind (one mechanism, neighbouring",
    "relation, cross-check and audit) share a table, and what they share is written once above",
    "it. *Mechanism* names the noise; *neighbours* the pair of datasets the guarantee protects",
    "(add/remove or replace-one, of a transition, trajectory, user, ...); *accountant* the",
    "accounting and *compositions* the number of mechanism invocations composed into the",
    "guarantee. The epsilon *from its event* is computed while this page is generated, from",
    "the privacy event the chapter stored with the entry (dp-accounting's `DpEvent`, or an",
    "event of `privrl.core.accounting`), and must equal the reported epsilon; *cross-check* is",
    "of one of two kinds: an *upper bound* (a second accountant or an exact ratio) or an",
    "*empirical* value for chosen neighbouring pairs (a lower bound for those pairs, never a",
    "bound for the mechanism), its value the *cross-check epsilon*; the build requires either",
    "to be no more than 1% above the reported epsilon; *audit* the empirical audit of the",
    "release, where there is one. Numbers have three significant digits. This page is",
    "generated from the chapters' summaries; nothing on it is typed by hand.",
    "",
]


def ledger_page(summaries: Sequence[Summary]) -> str:
    """Markdown of the Privacy ledger page: a section per chapter that records ledger entries
    (in book order), a table per kind of release in it (:func:`kind_table`), numbers written
    as the book writes them (:func:`privrl.pipeline.pages.number`)."""
    lines = list(INTRO)
    for s in summaries:
        entries = records(s, "ledger")
        if not entries:
            continue
        chapter = s.get("paper", "?")
        n = len(entries)
        lines += [
            f"(privacy-ledger-{chapter})=",
            f"## {chapter}",
            "",
            f"{n} release{'s' * (n != 1)} of the chapter {chapter_link(chapter)}.",
            "",
        ]
        for kind in release_kinds(entries):
            lines += kind_table(chapter, kind)
    if not any(records(s, "ledger") for s in summaries):
        lines.append("No chapter records a ledger entry yet.")
    lines += missing_note(summaries, "ledger", "ledger entry")
    return "\n".join(lines) + "\n"


__all__ = [
    "FIELDS",
    "KIND",
    "epsilon_cell",
    "kind_table",
    "ledger_page",
    "recompute_epsilon",
    "release_kinds",
    "shared_opening",
]
