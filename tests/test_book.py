"""CI proves the published book rebuilds: execute every chapter (quick profile) and build the HTML
with warnings as errors, exactly as `bash dev.sh book` does, into a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from privrl.book import build_book, chapter_notebooks

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = chapter_notebooks(ROOT)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("book")
    build_book(ROOT, output=out)
    return out / "_build"


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_executed_and_rendered(built: Path, name: str):
    executed = built / "src" / "notebooks"
    nb = nbformat.read(executed / f"{name}.ipynb", as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    first_output = next(o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                        if o.get("output_type") == "stream")
    assert "profile 'quick'" in first_output["text"], "the profile is printed at the top"
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one parameters cell"
    assert (executed / f"{name}.results.csv").stat().st_size > 0
    summary = json.loads((executed / f"{name}.summary.json").read_text())
    assert summary
    page = (built / "html" / "notebooks" / f"{name}.html").read_text()
    assert page.count("<img") >= 1, "the chapter shows its figures"


@pytest.mark.slow
def test_front_matter_and_reproducibility_page(built: Path):
    html = built / "html"
    for page in ("book/intro", "book/dp_toolkit", "book/rl_background", "book/errata",
                 "book/bibliography"):
        assert (html / f"{page}.html").exists()
    repro = (html / "book" / "reproducibility.html").read_text()
    for name in CHAPTERS:
        assert name in repro
