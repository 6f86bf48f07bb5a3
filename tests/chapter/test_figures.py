"""Exhibits (privrl.chapter.figures): a figure or table drawn from one record's files, and which
labelled place of a notebook draws which exhibit."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privrl.chapter.figures import Exhibit, by_label, notebook_exhibits


def _recorded(tmp_path: Path) -> Path:
    """A book's measurements: a run record and one results CSV."""
    results = tmp_path / "book" / "measurements" / "results"
    results.mkdir(parents=True)
    pd.DataFrame({"x": [1, 2], "y": [3.0, 4.0]}).to_csv(
        results / "toy-paper-results.csv", index=False
    )
    (results.parent / "toy-paper.json").write_text(
        json.dumps({"git_commit": "abc", "files": ["toy-paper-results.csv"]})
    )
    return results


def test_an_exhibit_draws_its_records_files_and_nothing_when_none_is_recorded(tmp_path):
    results = _recorded(tmp_path)
    exhibit = Exhibit(
        "fig-toy",
        "toy-paper",
        {"rows": "toy-paper-results.csv"},
        "_paper",
        lambda data: data["rows"].assign(commit=data["record"]["git_commit"]),
    )
    drawn = exhibit.draw(exhibit.read(results))
    assert drawn["y"].tolist() == [3.0, 4.0] and set(drawn["commit"]) == {"abc"}
    assert exhibit.read(tmp_path) is None  # no such file there


def test_two_exhibits_may_not_share_a_label():
    one = Exhibit("fig-a", "toy-paper", {}, "_paper", lambda data: pd.DataFrame())
    assert list(by_label(one)) == ["fig-a"]
    with pytest.raises(ValueError, match="fig-a"):
        by_label(one, one)


def _cell(kind: str, source: str, name: str | None = None) -> dict:
    meta = {"mystnb": {"figure": {"name": name, "caption": "c"}}} if name else {}
    return {"cell_type": kind, "id": source[:8], "metadata": meta, "source": [source]}


def test_notebook_exhibits_reads_which_labelled_cell_draws_which_exhibit(tmp_path):
    cells = [
        _cell("code", 'plots.EXHIBITS["fig-a"].show()\nplt.show()', name="fig-a"),
        _cell("code", "plots.plot_quick(tables)\nplt.show()", name="fig-quick"),
        _cell("markdown", "Text.\n\n(tab-b)="),
        _cell("code", "t = plots.EXHIBITS['tab-b'].show()\ndisplay(t)"),
        _cell("markdown", "(section-c)=\n## A section with a target above it"),
        _cell("code", "display(x)"),
        _cell("code", 'plots.EXHIBITS["fig-a"].show();', name="fig-d"),
    ]
    path = tmp_path / "toy.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    assert notebook_exhibits(path) == {
        "fig-a": "fig-a",
        "fig-quick": "",
        "tab-b": "tab-b",
        "fig-d": "fig-a",
    }
