"""The book pipeline on a tiny stand-alone book (fast), and the CLI's parameter parsing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from privrl.book import NotebookFailed, build_book, chapter_notebooks, run_notebook
from privrl.cli import main, parse_parameters, record_run
from privrl.reporting import recorded_summary

ROOT = Path(__file__).resolve().parents[1]


def _notebook(body: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell('profile = "quick"\nseed = 0\nscale = 1.0')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Demo chapter\n\nThe answer is {glue:text}`demo_answer:.2f`."),
        params,
        nbformat.v4.new_code_cell(body),
    ]
    return nb


GOOD = """
import pandas as pd
from myst_nb import glue
from privrl.reporting import save_results, show_profile
show_profile("demo", profile, {"seed": seed, "scale": scale})
answer = 42 * scale
glue("demo_answer", answer, display=False)
save_results("demo", pd.DataFrame({"x": [1, 2], "y": [answer, answer]}), {"answer": answer})
import matplotlib.pyplot as plt
plt.plot([1, 2], [answer, answer])
plt.show()
"""


@pytest.fixture()
def tiny_book(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "book").mkdir(parents=True)
    (root / "notebooks").mkdir()
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(ROOT / "book" / "references", root / "book" / "references")
    (root / "book" / "intro.md").write_text("# Tiny\n\nA test book.\n")
    (root / "book" / "reproducibility.md").write_text("# placeholder\n")
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: notebooks/demo\n"
        "  - file: book/reproducibility\n"
    )
    nbformat.write(_notebook(GOOD), root / "notebooks" / "demo.ipynb")
    return root


def test_chapter_list_of_the_real_book():
    assert chapter_notebooks(ROOT) == ["balle2016", "xie2019", "wang2019", "ono2020", "gohari2021"]


@pytest.mark.slow
def test_tiny_book_builds(tiny_book: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")  # as a test runner or CI may set: figures must still render
    html = build_book(tiny_book, output=tmp_path / "out", parameters={"scale": 2.0})
    page = (html / "notebooks" / "demo.html").read_text()
    assert "84.00" in page  # the glued number, computed with the injected parameter
    assert "<img" in page  # the figure
    assert "injected-parameters" not in page  # the injected cell is removed from the page
    executed = tmp_path / "out" / "_build" / "src" / "notebooks"
    assert json.loads((executed / "demo.summary.json").read_text())["answer"] == 84.0
    assert (executed / "demo.results.csv").read_text().startswith("x,y")
    cells = nbformat.read(executed / "demo.ipynb", as_version=4).cells
    injected = [c for c in cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "remove-cell" in injected[0].metadata.tags
    record = json.loads((executed / "demo.run.json").read_text())
    assert record["profile"] == "quick" and record["wall_time_s"] > 0 and record["peak_memory_mb"] > 10
    repro = (html / "book" / "reproducibility.html").read_text()
    assert "demo" in repro and "numpy" in repro


def test_failing_notebook_names_notebook_and_cell(tiny_book: Path, tmp_path: Path):
    nbformat.write(_notebook("x = 1\nraise ValueError('boom')"), tiny_book / "notebooks" / "demo.ipynb")
    with pytest.raises(NotebookFailed, match=r"'demo' failed in cell 3.*ValueError: boom"):
        run_notebook("demo", tmp_path / "o", root=tiny_book)


def test_unknown_notebook_and_profile(tiny_book: Path, tmp_path: Path):
    with pytest.raises(ValueError, match="unknown notebook"):
        run_notebook("nope", tmp_path, root=tiny_book)
    with pytest.raises(ValueError, match="profile"):
        run_notebook("demo", tmp_path, profile="huge", root=tiny_book)


def test_parse_parameters():
    assert parse_parameters(["epsilon=0.5", "n_runs=3", "name=abc", "grid=[1, 2]"]) == {
        "epsilon": 0.5, "n_runs": 3, "name": "abc", "grid": [1, 2]}
    with pytest.raises(ValueError, match="name=value"):
        parse_parameters(["epsilon"])


def test_cli_reports_errors_cleanly(capsys, monkeypatch, tiny_book: Path):
    monkeypatch.chdir(tiny_book)
    assert main(["run", "nope"]) == 1
    assert "unknown notebook" in capsys.readouterr().err
    assert main(["list"]) == 0
    assert capsys.readouterr().out.strip() == "demo"


def test_record_run_stores_record_and_summary_for_the_chapter(tiny_book: Path, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    record = {"notebook": "demo", "profile": "paper", "wall_time_s": 3.0}
    assert recorded_summary("demo", "paper", start=tiny_book) is None
    (out / "demo.summary.json").write_text(json.dumps({"answer": 84.0}))
    written = record_run(tiny_book, "demo", "paper", str(out), record)
    assert [p.relative_to(tiny_book).as_posix() for p in written] == [
        "book/measurements/demo-paper.json", "book/measurements/results/demo-paper.json"]
    # the run record stays where the reproducibility page globs (*.json, not the results/ folder)
    assert json.loads(written[0].read_text()) == record
    got = recorded_summary("demo", "paper", start=tiny_book / "notebooks")
    assert got == {"record": record, "summary": {"answer": 84.0}}


def test_reproducibility_page_states_the_parameters_of_recorded_runs():
    from privrl.book import reproducibility_page

    base = {"notebook": "demo", "profile": "paper", "wall_time_s": 90.0, "peak_memory_mb": 100.0,
            "git_commit": "abc", "cpus": 2, "machine": "x86_64", "finished_at": "2026-11-22T00:00"}  # fmt: skip
    shortened = {**base, "parameters": {"profile": "paper", "n_runs": 3, "cache_dir": "/tmp/c"}}
    page = reproducibility_page([], [shortened, {**base, "parameters": {"profile": "paper"}}])
    rows = [line for line in page.splitlines() if line.startswith("| demo")]
    assert "`n_runs=3`" in rows[0] and "cache_dir" not in rows[0]
    assert "profile defaults" in rows[1]
