"""The claim sentences of a paper, read from ``book/paper_claims/<name>.yml``.

One data file per paper lists every sentence of its abstract, experiments and conclusion that
states a result, each cited as :mod:`privrl.chapter.paper_numbers` cites a number (``source``:
seed file name, 1-based line counted by newline, exact quote) except that a quote may run on
over consecutive lines (it is matched against those lines joined by a single space). Each
sentence is either decided by claim ``keys`` of the chapter or carries a ``reason`` from
:data:`REASONS` (``out of this book's reach`` needs a ``note`` with the compute it would need).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from privrl.chapter.paper_numbers import Source, paper_numbers_path

PAPER_CLAIMS = Path("book") / "paper_claims"
REASONS = (
    "not an empirical claim",
    "no set-up stated",
    "out of this book's reach",
    "decidable here, no claim key yet",
)
QUOTE_CHARS = (10, 400)


@dataclass(frozen=True)
class ClaimSentence:
    """One result sentence: decided by ``keys`` (non-empty) or not, for ``reason``."""

    paper: str
    source: Source
    keys: tuple[str, ...] = ()
    reason: str | None = None
    note: str | None = None

    @property
    def decided(self) -> bool:
        return bool(self.keys)


def quote_matches(quote: str, lines: list[str], line: int) -> bool:
    """Whether ``quote`` is in line ``line`` (1-based) of ``lines``, or in it joined by one space
    with the lines that follow (as many as the quote needs)."""
    text = ""
    for i in range(line - 1, len(lines)):
        text = f"{text} {lines[i]}" if text else lines[i]
        if quote in text:
            return True
        if len(text) > len(quote) + len(lines[line - 1]):
            return False
    return False


def paper_claims_path(name: str, start: str | os.PathLike[str] | None = None) -> Path:
    """``book/paper_claims/<name>.yml`` beside the book's ``book/paper_numbers``."""
    path = paper_numbers_path(name, start).parents[1] / "paper_claims" / f"{name}.yml"
    if not path.exists():
        raise ValueError(f"name: no {PAPER_CLAIMS / (name + '.yml')} (looked at {path})")
    return path


def paper_claims(name: str, start: str | os.PathLike[str] | None = None) -> list[ClaimSentence]:
    """Every claim sentence of paper ``name``, in file order, validated (:func:`load`)."""
    return load(paper_claims_path(name, start), name)


def load(path: str | os.PathLike[str], name: str | None = None) -> list[ClaimSentence]:
    """Read and validate one data file; ``ValueError`` names the file and the broken field."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not YAML ({err})") from err
    if not isinstance(data, dict) or not isinstance(data.get("sentences"), list):
        raise ValueError(f"{path}: the file must be a mapping with 'paper' and 'sentences'")
    paper = data.get("paper")
    if not isinstance(paper, str) or (name is not None and paper != name):
        raise ValueError(f"{path}: field 'paper' must be {name!r}, got {paper!r}")
    return [_entry(e, paper, f"{path}: sentences[{i}]") for i, e in enumerate(data["sentences"])]


def _entry(entry: Any, paper: str, where: str) -> ClaimSentence:
    if not isinstance(entry, dict) or "source" not in entry:
        raise ValueError(f"{where}.source: required field missing")
    unknown = sorted(set(entry) - {"source", "keys", "reason", "note"})
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown field")
    raw = entry["source"]
    if not isinstance(raw, dict) or set(raw) != {"file", "line", "quote"}:
        raise ValueError(f"{where}.source: must be a mapping of exactly file, line and quote")
    line, quote = raw["line"], raw["quote"]
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise ValueError(f"{where}.source.line: a line number from 1, got {line!r}")
    low, high = QUOTE_CHARS
    if not isinstance(quote, str) or not low <= len(quote) <= high:
        raise ValueError(f"{where}.source.quote: an exact quote of {low}-{high} characters")
    keys, reason, note = entry.get("keys", []), entry.get("reason"), entry.get("note")
    if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
        raise ValueError(f"{where}.keys: must be a list of claim keys")
    if bool(keys) == (reason is not None):
        raise ValueError(f"{where}.keys: give either claim keys or a reason, not both or neither")
    if reason is not None and reason not in REASONS:
        raise ValueError(f"{where}.reason: must be one of {REASONS}, got {reason!r}")
    if reason == REASONS[2] and not (isinstance(note, str) and note.strip()):
        raise ValueError(f"{where}.note: '{REASONS[2]}' needs a note with the compute it needs")
    return ClaimSentence(paper, Source(str(raw["file"]), line, quote), tuple(keys), reason, note)


def coverage_counts(
    name: str, start: str | os.PathLike[str] | None = None
) -> tuple[int, int] | None:
    """``(decided, total)`` claim sentences of paper ``name``; ``None`` without a data file."""
    try:
        sentences = paper_claims(name, start)
    except ValueError:
        return None
    return sum(s.decided for s in sentences), len(sentences)


def coverage_markdown(name: str, start: str | os.PathLike[str] | None = None) -> str:
    """A folded block (MyST dropdown) headed "N of M claim sentences decided" listing each
    undecided sentence's quote with its reason; empty when the paper has no data file."""
    counts = coverage_counts(name, start)
    if counts is None:
        return ""
    rows = [f":::{{dropdown}} {counts[0]} of {counts[1]} claim sentences of the paper decided", ""]
    for s in paper_claims(name, start):
        if not s.decided:
            why = f"{s.reason} ({s.note})" if s.note else s.reason
            rows.append(f"- \u201c{s.source.quote}\u201d (line {s.source.line}): {why}.")
    return "\n".join([*rows, ":::"]) + "\n"


__all__ = [
    "PAPER_CLAIMS",
    "REASONS",
    "ClaimSentence",
    "coverage_counts",
    "coverage_markdown",
    "load",
    "paper_claims",
    "paper_claims_path",
    "quote_matches",
]
