"""The figures and tables a verdict sits beside, each drawn from the record that decided it.

An :class:`Exhibit` is one numbered figure (or one table) of a chapter drawn from one record: its
MyST ``label`` (what the landing page's key links: a figure cell's ``mystnb.figure.name``, or a
``(label)=`` target above a table), the ``record`` it is drawn from
(``book/measurements/<record>.json``), the ``files`` of that record it reads (frame name -> file
in ``book/measurements/results/``), the key ``suffix`` of the claims decided on that record, and
``draw``, the chapter's function of those frames. :meth:`Exhibit.show` reads the record and
draws it, so an exhibit shows its record's data and nothing else.

A chapter lists its exhibits in ``plots.EXHIBITS`` (:func:`by_label`), and its notebook draws
one with ``plots.EXHIBITS["<label>"].show()`` in the cell that carries the label;
:func:`notebook_exhibits` reads back which cell draws which label, for the test that holds
every landing-page key to an exhibit of the record that decided it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from privrl.chapter.records import read_recorded

#: A cell that draws an exhibit: ``EXHIBITS["<label>"].show()`` (either quote).
_SHOWS = re.compile(r"""EXHIBITS\[(["'])(?P<label>[A-Za-z0-9_.-]+)\1\]\.show\(\)""")
#: A MyST target in a markdown cell: ``(label)=`` on a line of its own.
_TARGET = re.compile(r"^\((?P<label>[A-Za-z0-9_.-]+)\)=\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Exhibit:
    """A figure or table drawn from one record (see the module docstring): ``draw`` takes the
    frames :meth:`read` returns (``files``' names, and the run record under ``"record"``)."""

    label: str
    record: str
    files: Mapping[str, str]
    suffix: str
    draw: Callable[[Mapping[str, Any]], Figure | pd.DataFrame]

    def read(self, directory: Path | None = None) -> dict[str, Any] | None:
        """The record's frames by name, with its run record under ``"record"``; ``None`` when
        the record is not committed (looked up as :func:`privrl.chapter.records.read_recorded`
        does, or in ``directory``)."""
        return read_recorded(dict(self.files), f"{self.record}.json", directory)

    def show(self) -> Figure | pd.DataFrame | None:
        """The exhibit drawn from its record (``None`` when the record is not committed)."""
        data = self.read()
        return None if data is None else self.draw(data)


def by_label(*exhibits: Exhibit) -> dict[str, Exhibit]:
    """A chapter's exhibits by label (``ValueError`` when two share one)."""
    out: dict[str, Exhibit] = {}
    for exhibit in exhibits:
        if exhibit.label in out:
            raise ValueError(f"exhibits: label {exhibit.label!r} is given twice")
        out[exhibit.label] = exhibit
    return out


def notebook_exhibits(notebook: str | Path) -> dict[str, str]:
    """Which exhibit each labelled place of a notebook draws: label -> the label passed to
    ``EXHIBITS[...].show()`` by the code cell that carries it (a figure cell's
    ``mystnb.figure.name``, or the first code cell after a markdown cell ending in a
    ``(label)=`` target), ``""`` when that cell draws no exhibit."""
    cells = json.loads(Path(notebook).read_text())["cells"]
    out: dict[str, str] = {}
    pending: list[str] = []
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            pending = [
                m["label"] for m in _TARGET.finditer(source) if not source[m.end() :].strip()
            ]
            continue
        shown = _SHOWS.search(source)
        name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
        for label in ([name] if name else []) + pending:
            out[label] = shown["label"] if shown else ""
        pending = []
    return out


__all__ = ["Exhibit", "by_label", "notebook_exhibits"]
