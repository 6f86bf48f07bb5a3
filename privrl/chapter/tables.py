"""Tables for reading: a data frame written as the book shows it (the index is not shown).

:func:`format_table` returns a :class:`Table`, every cell a string, shown as HTML
(:meth:`Table.to_html`):

* a number keeps :data:`SIGNIFICANT_DIGITS` significant digits, never cutting into its integer
  part, without trailing zeros; five integer digits or more get thousands separators; below
  ``1e-4`` it is written ``1.23e-7``;
* a value with an uncertainty (``errors``: its interval or standard-error column), and an
  interval cell ``(low, high)``, is rounded to two significant digits of the width (or error);
* inf in a column of privacy settings (``epsilon_columns``, default ``epsilon``, ``eps``) is
  ``no noise``, elsewhere the caller's words (``infinite``) or ``∞``;
* a missing value is the caller's text (``missing``) or its row is dropped (``drop_missing``);
  with neither, a ``ValueError``: never ``nan``;
* headers are words (``headers``, else underscores as spaces; a numeric name as a number);
* no cell is cut: a table wider than :data:`COLUMN_CHARS` characters scrolls
  (:data:`SCROLL_CLASS`), unless laid out for reading (``widths``, :data:`FIXED_CLASS`), when its
  cells wrap between words; a column shown ``beneath`` another is written small in its cell."""

from __future__ import annotations

import html
import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

#: Significant digits of a number without a stated uncertainty.
SIGNIFICANT_DIGITS = 3
#: Significant digits kept of an interval's width or a standard error.
ERROR_DIGITS = 2
#: Characters of the book's text column (784 px at about 8.7 px a character).
COLUMN_CHARS = 90
#: The class of the horizontal scroll box (styled in ``book/_static/privrl.css``).
SCROLL_CLASS = "privrl-scroll"
#: The class of every formatted table.
TABLE_CLASS = "privrl-table"
#: The class of a table laid out for reading: fixed column shares, cells wrapped between words.
FIXED_CLASS = "privrl-fixed"
#: The class of the small text written beneath a cell's own (a claim's key).
BENEATH_CLASS = "privrl-beneath"
NO_NOISE = "no noise"


@dataclass(frozen=True)
class Table:
    """A formatted table: ``frame`` holds the cells as strings, its columns the headers;
    ``beneath`` maps a header to the small texts written under its cells, row by row, and
    ``widths`` each header to its share of the text column (a table laid out for reading)."""

    frame: pd.DataFrame
    beneath: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    widths: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for header, notes in self.beneath.items():
            if header not in self.frame.columns or len(notes) != len(self.frame):
                raise ValueError(f"beneath: {header!r} must be a column with one text a row")
        if self.widths and (
            set(self.widths) != set(self.frame.columns)
            or not math.isclose(sum(self.widths.values()), 1.0)
        ):
            raise ValueError(
                f"widths: a share for each of {list(self.frame.columns)}, "
                f"adding up to 1, got {dict(self.widths)}"
            )

    @property
    def wide(self) -> bool:
        """Whether the widest cell of each column adds up to more than :data:`COLUMN_CHARS` (a
        table laid out for reading, with ``widths``, wraps its cells instead: never wide)."""
        if self.widths:
            return False
        widths = [max([len(str(c)), *map(len, self.frame[c])]) + 2 for c in self.frame.columns]
        return sum(widths) > COLUMN_CHARS

    def _td(self, header: str, i: int, value: str) -> str:
        notes = self.beneath.get(header)
        small = (
            f'<br><small class="{BENEATH_CLASS}">{html.escape(notes[i])}</small>'
            if notes and notes[i]
            else ""
        )
        return f"<td>{html.escape(value)}{small}</td>"

    def to_html(self) -> str:
        """The table as HTML, every cell escaped, in a scroll box when :attr:`wide`; with
        ``widths``, a fixed layout over the column's width (class :data:`FIXED_CLASS`)."""
        columns = list(self.frame.columns)
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
        rows = "".join(
            "<tr>" + "".join(self._td(c, i, v) for c, v in zip(columns, row, strict=True)) + "</tr>"
            for i, row in enumerate(self.frame.itertuples(index=False))
        )
        cols, classes = "", TABLE_CLASS
        if self.widths:
            classes += f" {FIXED_CLASS}"
            cols = (
                "<colgroup>"
                + "".join(f'<col style="width: {100 * self.widths[c]:.0f}%">' for c in columns)
                + "</colgroup>"
            )
        table = (
            f'<table class="{classes}">{cols}<thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>"
        )
        if self.wide:
            return f'<div class="{SCROLL_CLASS}" style="overflow-x: auto">{table}</div>'
        return table

    def to_markdown(self) -> str:
        """The table as a MyST pipe table, so that roles in its cells (a ``{ref}`` link) are
        rendered; a pipe in a cell is escaped. A text ``beneath`` a cell follows it on its
        last line, small (inline HTML)."""

        def row(cells: Iterable[Any]) -> str:
            return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

        def below(header: str, i: int, value: str) -> str:
            notes = self.beneath.get(header)
            return (
                f'{value}<br><small class="{BENEATH_CLASS}">{notes[i]}</small>'
                if notes and notes[i]
                else value
            )

        columns = list(self.frame.columns)
        body = (
            [below(c, i, v) for c, v in zip(columns, r, strict=True)]
            for i, r in enumerate(self.frame.itertuples(index=False))
        )
        return (
            "\n".join([row(columns), row("---" for _ in columns), *(row(r) for r in body)]) + "\n"
        )

    def _repr_html_(self) -> str:
        return self.to_html()


def _is_missing(value: Any) -> bool:
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float) and math.isnan(value))
    )


def _decimals_for(width: float, digits: int) -> int:
    """Decimals keeping ``digits`` significant digits of ``width`` (may be negative)."""
    return digits - 1 - math.floor(math.log10(abs(width)))


def _fixed(x: float, decimals: int, *, keep_zeros: bool = False) -> str:
    """``x`` rounded to ``decimals`` (negative: to tens, hundreds, ...), thousands separated from
    five integer digits on, without a negative zero, and without trailing zeros unless
    ``keep_zeros`` (an uncertainty fixed the decimals: ``0.10`` says more than ``0.1``)."""
    x = round(x, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
    places = max(decimals, 0)
    text = f"{x:,.{places}f}" if abs(x) >= 10_000 else f"{x:.{places}f}"
    if "." in text and not keep_zeros:
        text = text.rstrip("0").rstrip(".")
    return "0" if text.lstrip("-").strip("0.") == "" and not keep_zeros else text


def format_number(
    x: float,
    *,
    digits: int = SIGNIFICANT_DIGITS,
    decimals: int | None = None,
    epsilon: bool = False,
) -> str:
    """One number as :func:`format_table` writes it: ``digits`` significant digits, or
    ``decimals`` when an uncertainty fixes them; inf is ``no noise`` when ``epsilon``, else ∞."""
    if math.isinf(x):
        return NO_NOISE if epsilon and x > 0 else ("∞" if x > 0 else "-∞")
    if isinstance(x, Integral) or (decimals is None and float(x).is_integer()):
        return _fixed(float(x), 0)
    if decimals is not None:
        return _fixed(float(x), decimals, keep_zeros=True)
    if x != 0 and abs(x) < 1e-4:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{int(exponent)}"
    return _fixed(float(x), max(0, _decimals_for(x, digits)) if x != 0 else 0)


def _interval(cell: Any) -> tuple[float, float] | None:
    if (
        isinstance(cell, (tuple, list))
        and len(cell) == 2
        and all(isinstance(v, Real) for v in cell)
    ):
        return float(cell[0]), float(cell[1])
    return None


def _error_decimals(error: Any) -> int | None:
    """Decimals set by an interval cell (its width) or a standard error; None if it sets none."""
    bounds = _interval(error)
    width = bounds[1] - bounds[0] if bounds else error
    if _is_missing(width) or not isinstance(width, Real) or not math.isfinite(width) or width <= 0:
        return None
    return _decimals_for(float(width), ERROR_DIGITS)


def _cell(value: Any, *, digits: int, decimals: int | None, epsilon: bool) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    bounds = _interval(value)
    if bounds is not None:
        d = _error_decimals(value)
        return "[" + ", ".join(format_number(b, digits=digits, decimals=d) for b in bounds) + "]"
    if isinstance(value, Real):
        return format_number(float(value), digits=digits, decimals=decimals, epsilon=epsilon)
    return str(value)


def _header(name: Any, headers: Mapping[Any, str]) -> str:
    if name in headers:
        return headers[name]
    if isinstance(name, Real) and not isinstance(name, bool):
        return format_number(float(name))
    return str(name).replace("_", " ")


def format_table(
    df: pd.DataFrame,
    *,
    precision: int | Mapping[str, int] | None = None,
    errors: Mapping[str, str] | None = None,
    headers: Mapping[Any, str] | None = None,
    missing: str | Mapping[str, str] | None = None,
    drop_missing: bool = False,
    epsilon_columns: Collection[str] | None = None,
    beneath: Mapping[str, str] | None = None,
    widths: Mapping[str, float] | None = None,
    infinite: Mapping[str, str] | None = None,
) -> Table:
    """``df`` formatted for reading (rules in the module docstring).

    ``precision``: significant digits, for every column or per column (default
    :data:`SIGNIFICANT_DIGITS`); ``errors``: value column -> the column of its interval or
    standard error, which sets the value's decimals row by row; ``headers``: code name -> words;
    ``missing``: the text shown for a missing value (one, or per column); ``drop_missing``: drop
    the rows with a missing value instead; ``epsilon_columns``: the columns where inf means no
    noise (default: the columns named ``epsilon`` or ``eps``); ``beneath``: column -> the column
    written small under its cells (left out as a column of its own); ``widths``: column -> its
    share of the text column (every shown column, adding up to 1), for a table laid out for
    reading; ``infinite``: column -> the words for an infinite value in it (outside the
    ``epsilon_columns``)."""
    if missing is not None and drop_missing:
        raise ValueError("missing: give a text for missing values or drop_missing=True, not both")
    if isinstance(precision, int) and precision < 1:
        raise ValueError(f"precision must be at least 1 significant digit, got {precision}")
    errors, headers = dict(errors or {}), dict(headers or {})
    for value, error in errors.items():
        for column in (value, error):
            if column not in df.columns:
                raise ValueError(f"errors: no column {column!r} (columns: {list(df.columns)})")
    if epsilon_columns is None:
        epsilon_columns = [c for c in df.columns if c in ("epsilon", "eps")]
    frame = df.reset_index(drop=True)
    holes = frame.map(_is_missing)
    if drop_missing:
        frame, holes = frame[~holes.any(axis=1)], holes[~holes.any(axis=1)]
    beneath, infinite = dict(beneath or {}), dict(infinite or {})
    for column in infinite:
        if column not in frame.columns:
            raise ValueError(f"infinite: no column {column!r} (columns: {list(frame.columns)})")
    for shown, under in beneath.items():
        if shown not in frame.columns or under not in frame.columns:
            raise ValueError(
                f"beneath: no column {shown!r} or {under!r} (columns: {list(frame.columns)})"
            )
    out = {}
    for column in frame.columns:
        digits = (
            precision.get(column, SIGNIFICANT_DIGITS)
            if isinstance(precision, Mapping)
            else precision or SIGNIFICANT_DIGITS
        )
        text = missing.get(column) if isinstance(missing, Mapping) else missing
        if holes[column].any() and text is None:
            raise ValueError(
                f"missing: column {column!r} has {int(holes[column].sum())} missing "
                "values; give the text that explains them, or drop_missing=True"
            )
        cells: list[str] = []
        for i, value in enumerate(frame[column]):
            if holes[column].iloc[i]:
                cells.append(str(text))  # not None: holes without a text raised above
                continue
            if (
                column in infinite
                and isinstance(value, Real)
                and not isinstance(value, bool)
                and math.isinf(value)
            ):
                cells.append(infinite[column])
                continue
            decimals = _error_decimals(frame[errors[column]].iloc[i]) if column in errors else None
            cells.append(
                _cell(value, digits=digits, decimals=decimals, epsilon=column in epsilon_columns)
            )
        out[_header(column, headers)] = cells
    notes = {
        _header(shown, headers): tuple(out.pop(_header(under, headers)))
        for shown, under in beneath.items()
    }
    shares = {_header(c, headers): w for c, w in (widths or {}).items()}
    return Table(pd.DataFrame(out, dtype=object), notes, shares)
