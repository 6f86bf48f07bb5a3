"""The numbers a paper states, read from ``book/paper_numbers/<name>.yml``.

One data file per paper lists what the paper itself says, each entry cited by the line of the
paper's seed text it comes from (``source``: seed file name, 1-based line number counted by
newline, and an exact quote of 10-200 characters from that line):

* ``stated_result``: a result number (a table cell, "roughly 4 times", "(4.46, 0.05)");
* ``stated_setting``: a setting of an experiment (horizons, n, epsilons, seeds, network sizes);
* ``claim_without_number``: a sentence claiming an effect shown only in a figure (value null,
  ``where`` names the figure).

``value`` is a number, a list of numbers, a range ``{low, high}``, or null with a ``note`` saying
why. ``written_as`` is the part of the quote that writes the number when it is not written in
its digits ("four million", "202020" for a mangled 20). The book's pages and figures read the
file through :func:`paper_numbers` and :func:`paper_number`; the file is found the way
:mod:`privrl.chapter.records` finds ``book/measurements``: in the book at or above the working
directory, else in the source tree.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from privrl.chapter.records import SOURCE_ROOT, find_root

#: The folder of the data files, relative to the repository root.
PAPER_NUMBERS = Path("book") / "paper_numbers"
KINDS = ("stated_result", "stated_setting", "claim_without_number")
Kind = Literal["stated_result", "stated_setting", "claim_without_number"]
#: Required fields of an entry (``unit``, ``note`` and ``written_as`` are optional).
REQUIRED = ("key", "what", "value", "setting", "where", "source", "kind")
OPTIONAL = ("unit", "note", "written_as")
QUOTE_CHARS = (10, 200)
_KEY = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Range:
    """A value the paper states as an interval, ``low <= high``."""

    low: float
    high: float


@dataclass(frozen=True)
class Source:
    """Where the paper states it: ``quote`` is an exact substring of line ``line`` (1-based) of
    the seed text ``file``."""

    file: str
    line: int
    quote: str


Value = float | tuple[float, ...] | Range | None


@dataclass(frozen=True)
class PaperNumber:
    """One number (or claim) a paper states, as its data file gives it."""

    paper: str
    key: str
    what: str
    value: Value
    setting: dict[str, Any]
    where: str
    source: Source
    kind: Kind
    unit: str | None = None
    note: str | None = None
    written_as: str | None = None


def paper_numbers_path(name: str, start: str | os.PathLike[str] | None = None) -> Path:
    """``book/paper_numbers/<name>.yml`` of the book at or above ``start`` (default: the working
    directory), else of the source tree; ``ValueError`` naming ``name`` when neither has it."""
    roots = []
    try:
        roots.append(find_root(start))
    except ValueError:
        pass
    for root in (*roots, SOURCE_ROOT):
        path = root / PAPER_NUMBERS / f"{name}.yml"
        if path.exists():
            return path
    raise ValueError(
        f"name: no {PAPER_NUMBERS / (name + '.yml')} at or above "
        f"{start or Path.cwd()} nor in {SOURCE_ROOT}"
    )


def paper_numbers(name: str, start: str | os.PathLike[str] | None = None) -> list[PaperNumber]:
    """Every entry of paper ``name``'s data file, in file order, validated (:func:`load`)."""
    return load(paper_numbers_path(name, start), name)


def paper_number(name: str, key: str, start: str | os.PathLike[str] | None = None) -> PaperNumber:
    """The entry ``key`` of paper ``name``; ``ValueError`` naming ``key`` when there is none."""
    for number in paper_numbers(name, start):
        if number.key == key:
            return number
    raise ValueError(f"key: paper {name!r} states no number {key!r}")


def load(path: str | os.PathLike[str], name: str | None = None) -> list[PaperNumber]:
    """Read and validate one data file. Raises ``ValueError`` naming the file and the field
    (``numbers[3].source.line``) of the first entry that breaks the format. A text is parsed
    once per process: a figure of a paper's table asks for its numbers cell by cell."""
    path = Path(path)
    return list(_parse(path.read_text(encoding="utf-8"), str(path), name))


@functools.lru_cache(maxsize=64)
def _parse(text: str, where: str, name: str | None) -> tuple[PaperNumber, ...]:
    """:func:`load` of the file ``where`` whose text is ``text``."""
    path = Path(where)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not YAML ({err})") from err
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the file must be a mapping with 'paper' and 'numbers'")
    paper = data.get("paper")
    if not isinstance(paper, str) or (name is not None and paper != name):
        raise ValueError(f"{path}: field 'paper' must be {name!r}, got {paper!r}")
    entries = data.get("numbers")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: field 'numbers' must be a non-empty list")
    out: list[PaperNumber] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        number = _entry(entry, paper, f"{path}: numbers[{i}]")
        if number.key in seen:
            raise ValueError(f"{path}: numbers[{i}].key {number.key!r} is not unique")
        seen.add(number.key)
        out.append(number)
    return tuple(out)


def _entry(entry: Any, paper: str, where: str) -> PaperNumber:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: an entry must be a mapping")
    missing = [f for f in REQUIRED if f not in entry]
    if missing:
        raise ValueError(f"{where}.{missing[0]}: required field missing")
    unknown = sorted(set(entry) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown field")
    key = entry["key"]
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"{where}.key: must be snake_case, got {key!r}")
    for field in ("what", "where", *OPTIONAL):
        if field in entry and (not isinstance(entry[field], str) or not entry[field].strip()):
            raise ValueError(f"{where}.{field}: must be a non-empty string")
    if not isinstance(entry["setting"], dict):
        raise ValueError(f"{where}.setting: must be a mapping")
    kind = entry["kind"]
    if kind not in KINDS:
        raise ValueError(f"{where}.kind: must be one of {KINDS}, got {kind!r}")
    value = _value(entry["value"], f"{where}.value")
    if value is None and "note" not in entry:
        raise ValueError(f"{where}.note: a null value needs a note saying why")
    if kind == "claim_without_number":
        if value is not None:
            raise ValueError(f"{where}.value: a claim without number has value null")
        if "Fig" not in entry["where"]:
            raise ValueError(f"{where}.where: a claim without number names its figure")
    source = _source(entry["source"], f"{where}.source")
    written = entry.get("written_as")
    if written is not None and written not in source.quote:
        raise ValueError(f"{where}.written_as: {written!r} is not in the quote")
    return PaperNumber(
        paper=paper,
        key=key,
        what=entry["what"],
        value=value,
        setting=dict(entry["setting"]),
        where=entry["where"],
        source=source,
        kind=kind,
        unit=entry.get("unit"),
        note=entry.get("note"),
        written_as=written,
    )


def _number(x: Any, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float) or math.isnan(x):
        raise ValueError(f"{where}: must be a number, got {x!r}")
    return x


def _value(raw: Any, where: str) -> Value:
    """A number, a tuple of numbers (from a list), a :class:`Range` or ``None``."""
    if raw is None:
        return None
    if isinstance(raw, list):
        if not raw:
            raise ValueError(f"{where}: an empty list")
        return tuple(_number(x, f"{where}[{i}]") for i, x in enumerate(raw))
    if isinstance(raw, dict):
        if set(raw) != {"low", "high"}:
            raise ValueError(f"{where}: a range has exactly 'low' and 'high', got {sorted(raw)}")
        low, high = _number(raw["low"], f"{where}.low"), _number(raw["high"], f"{where}.high")
        if low > high:
            raise ValueError(f"{where}: low {low} > high {high}")
        return Range(low, high)
    return _number(raw, where)


def _source(raw: Any, where: str) -> Source:
    if not isinstance(raw, dict) or set(raw) != {"file", "line", "quote"}:
        raise ValueError(f"{where}: must be a mapping of exactly file, line and quote")
    file, line, quote = raw["file"], raw["line"], raw["quote"]
    if not isinstance(file, str) or not file or "/" in file:
        raise ValueError(f"{where}.file: a seed file name without folder, got {file!r}")
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise ValueError(f"{where}.line: a line number from 1, got {line!r}")
    low, high = QUOTE_CHARS
    if not isinstance(quote, str) or not low <= len(quote) <= high:
        raise ValueError(f"{where}.quote: an exact substring of {low}-{high} characters")
    return Source(file, line, quote)


__all__ = [
    "KINDS",
    "PAPER_NUMBERS",
    "PaperNumber",
    "Range",
    "Source",
    "load",
    "paper_number",
    "paper_numbers",
    "paper_numbers_path",
]
