"""The code base stays ruff-clean (the style rules in pyproject.toml), notebooks included, and
the notebooks stay thin: parameters, calls, figures, prose and checks (no definitions)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_CODE_LINES = 150
#: A chapter's code column shows about 80 characters; a longer line wraps (book/_static/privrl.css),
#: and one past this wraps into a block that no longer reads as code.
MAX_LINE = 100


def test_ruff_check_passes():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "privrl", "tests", "benchmarks", "notebooks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_sources_hold_no_control_characters():
    """A backslash escape in a docstring that is not raw writes a control character (``\\beta``
    becomes a backspace and ``eta``): the rendered maths loses its letters. No source, page or
    notebook holds one (tabs and carriage returns included)."""
    suffixes = {".py", ".md", ".yml", ".bib", ".ipynb", ".css"}
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for top in ("privrl", "tests", "benchmarks", "book", "notebooks")
        for p in sorted((ROOT / top).rglob("*"))
        if p.suffix in suffixes and "measurements" not in p.parts and "_build" not in p.parts
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if any(ord(c) < 32 for c in line)
    ]
    assert not found, f"control characters at {found}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_are_thin(path):
    cells = json.loads(path.read_text())["cells"]
    code = [
        line
        for c in cells
        if c["cell_type"] == "code"
        for line in "".join(c["source"]).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert len(code) < MAX_CODE_LINES, f"{path.name}: {len(code)} code lines"
    long = [line for line in code if len(line) > MAX_LINE]
    assert not long, f"{path.name} has lines over {MAX_LINE} characters: {long}"
    defs = [line for line in code if line.lstrip().startswith(("def ", "class ", "lambda "))]
    assert not defs, f"{path.name} defines {defs}: definitions belong in the library"
    printed = [
        line for line in code if any(w in line for w in ('"PASS', '"FAIL', "'PASS", "HOLDS"))
    ]
    assert not printed, f"{path.name} prints a verdict instead of recording a check: {printed}"
    echoed = [line for line in code if line.startswith("report.save(")]
    assert not echoed, (
        f"{path.name} echoes the saved paths (a PosixPath tuple on the page): {echoed}"
    )
    assert not any(c.get("outputs") for c in cells if c["cell_type"] == "code"), (
        f"{path.name} is committed with outputs"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_figure_cells_show_only_their_figure(path):
    """myst-nb wraps every output of a cell with figure metadata in a figure of that name: a
    table displayed in the same cell makes a second target of the same name, which fails the
    strict book build ("Duplicate explicit target name"). Tables go in a cell of their own."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code" or "figure" not in cell.get("metadata", {}).get(
            "mystnb", {}
        ):
            continue
        source = "".join(cell["source"])
        name = cell["metadata"]["mystnb"]["figure"].get("name")
        assert "display(" not in source and "print(" not in source, (
            f"{path.name}: figure cell {name} also displays or prints something"
        )
        last = source.rstrip().splitlines()[-1]
        assert last.startswith((" ", "\t")) or last.endswith(";") or last.strip() == "plt.show()", (
            f"{path.name}: figure cell {name} ends in an expression whose value would be shown too"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_has_a_unique_id(path):
    """nbformat 4.5 cells carry an ``id`` (a cell added by hand without one warns in every build,
    and will be an error in a later nbformat)."""
    ids = [c.get("id") for c in json.loads(path.read_text())["cells"]]
    assert None not in ids, (
        f"{path.name}: cells {[i for i, x in enumerate(ids) if x is None]} lack an id"
    )
    assert len(set(ids)) == len(ids), f"{path.name}: repeated cell ids"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_chapter_opens_with_prose_not_set_up(path):
    """The parameters cell and the set-up cell after it show no source on the page (their
    source is a click away), so a chapter's summary follows its introduction directly."""
    code = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    assert "parameters" in code[0]["metadata"].get("tags", []), path.name
    for cell in code[:2]:
        assert "hide-input" in cell["metadata"].get("tags", []), f"{path.name}: {cell['id']}"


def test_every_privacy_mutation_finds_its_code():
    """Each mutation of ``benchmarks/mutate_privacy.py`` names code that occurs exactly once in
    its file: one whose code has moved would be reported stale and test nothing."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import mutate_privacy
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    lost = {m.name: (ROOT / m.path).read_text().count(m.old) for m in mutate_privacy.MUTATIONS}
    assert not {k: v for k, v in lost.items() if v != 1}
