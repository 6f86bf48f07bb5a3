"""The book pipeline on a tiny stand-alone book (fast), and the CLI's parameter parsing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from privrl.chapter.records import recorded_summary
from privrl.pipeline.build import (
    NotebookFailed,
    build_book,
    chapter_notebooks,
    run_environment,
    run_notebook,
    run_parameters,
)
from privrl.pipeline.cli import main, parse_parameters, record_run
from privrl.pipeline.site_check import BookDebris

ROOT = Path(__file__).resolve().parents[2]


def _notebook(body: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    params = nbformat.v4.new_code_cell('profile = "quick"\nseed = 0\nscale = 1.0\nhalve = False')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "# Demo chapter\n\nThe answer is {glue:text}`demo_answer:.2f`."
        ),
        params,
        nbformat.v4.new_code_cell(body),
    ]
    return nb


GOOD = """
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display
import privrl.chapter.plotting  # the house style: SVG figures
import dp_accounting
from privrl.chapter.ledger import CrossCheck
from privrl.chapter.report import Report
from privrl.chapter.verdicts import Claim, Sample, Threshold, decide_difference
from privrl.core.accounting.events import DpAccountingEvent
report = Report("demo", profile, seed=seed, config={"scale": scale})
display(Markdown(report.summary_box()))
answer = 42 * scale
report.glue("answer", answer)
report.check("answer_positive", "the answer is positive", answer, above=0)
faster = decide_difference(Sample([1.0, 1.1, 0.9, 1.0, 1.05]), Sample([2.0, 2.1, 1.9, 2.0, 2.05]),
                           Threshold(0.0, "less"), seed=0)
report.claim(Claim.of(faster, key="demo_faster", statement="Demo converges faster than its baseline",
                      profile=profile, commit=report.commit))
event = DpAccountingEvent(dp_accounting.GaussianDpEvent(5.0), "rdp", "replace-one")
report.ledger(release="Demo answer", mechanism="Gaussian", relation="replace-one", unit="record",
              noise="sigma = 5", delta=1e-5, compositions=1,
              accountant="dp-accounting RDP", event=event,
              cross_check=CrossCheck("upper bound", "dp-accounting PLD", None))
report.erratum("demo_eq1", "wrong", "Demo Eq. (1) drops a factor 2", "closed form vs solver")
report.save(pd.DataFrame({"x": [1, 2], "y": [answer, answer]}), answer=answer)
plt.plot([1, 2], [answer, answer])
plt.show()
"""

# A notebook whose check catches a halved noise scale: with ``halve = True`` the library's
# calibration is monkeypatched (as a bug at a call site would), the released noise is too small,
# and report.check raises.
NOISE_CHECK = """
import numpy as np
from privrl.core.accounting import gaussian as accounting
from privrl.core.mechanisms import gaussian as mechanism
from privrl.chapter.report import Report
report = Report("demo", profile, seed=seed)
sigma = accounting.analytic_gaussian_sigma(1.0, 1e-5, 1.0)
if halve:
    mechanism.analytic_gaussian_sigma = lambda e, d, s: 0.5 * accounting.analytic_gaussian_sigma(e, d, s)
released = mechanism.gaussian_mechanism(np.zeros(20_000), 1.0, 1.0, 1e-5, rng=seed)
report.check("noise_scale", "the released noise has the calibrated standard deviation",
             abs(released.std() / sigma - 1), at_most=0.05)
"""


@pytest.fixture()
def tiny_book(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "book").mkdir(parents=True)
    (root / "notebooks").mkdir()
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(ROOT / "book" / "references", root / "book" / "references")
    shutil.copytree(ROOT / "book" / "_static", root / "book" / "_static")
    (root / "book" / "intro.md").write_text(
        "# Tiny\n\nA test book.\n\n```{include} generated/verdicts.md\n```\n"
    )
    (root / "book" / "errata.md").write_text("# Errata\n\n```{include} generated/errata.md\n```\n")
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: notebooks/demo\n"
        "  - file: book/ledger\n  - file: book/errata\n  - file: book/reproducibility\n"
    )
    nbformat.write(_notebook(GOOD), root / "notebooks" / "demo.ipynb")
    return root


def test_chapter_list_of_the_real_book():
    assert chapter_notebooks(ROOT) == [
        "balle2016",
        "xie2019",
        "wang2019",
        "ono2020",
        "gohari2021",
        "frontier",
        "audits",
    ]


def test_quick_runs_sweep_in_process_unless_an_executor_is_given():
    known = ["profile", "seed", "executor"]
    assert run_parameters("x", "quick", {}, known) == {"profile": "quick", "executor": "serial"}
    given = run_parameters("x", "quick", {"executor": "tcp://host:8786"}, known)
    assert given["executor"] == "tcp://host:8786"
    assert run_parameters("x", "paper", {}, known) == {"profile": "paper"}
    assert run_parameters("x", "quick", {}, ["profile"]) == {"profile": "quick"}
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['scael'\]"):
        run_parameters("x", "quick", {"scael": 2.0}, known)


def test_quick_runs_one_thread_and_keeps_freed_memory_unless_the_caller_says_otherwise():
    quick = run_environment("quick", {"MPLBACKEND": "Agg", "PATH": "/bin"})
    assert quick["OMP_NUM_THREADS"] == quick["OPENBLAS_NUM_THREADS"] == "1"
    assert "glibc.malloc.mmap_threshold" in quick["GLIBC_TUNABLES"]
    assert "MPLBACKEND" not in quick and quick["PATH"] == "/bin"
    assert run_environment("quick", {"OMP_NUM_THREADS": "2"})["OMP_NUM_THREADS"] == "2"
    assert run_environment("paper", {"PATH": "/bin"}) == {"PATH": "/bin"}


@pytest.mark.slow
def test_tiny_book_builds(tiny_book: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv(
        "MPLBACKEND", "Agg"
    )  # as a test runner or CI may set: figures must still render
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "tiny"]):
        subprocess.run(git + args, cwd=tiny_book, check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"],
        cwd=tiny_book,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    html = build_book(tiny_book, output=tmp_path / "out", parameters={"scale": 2.0})
    page = (html / "notebooks" / "demo.html").read_text()
    assert "84.00" in page  # the glued number, computed with the injected parameter
    assert re.search(r'<img[^>]+src="[^"]+\.svg"', page)  # the figure, as SVG (house style)
    # the box, Markdown output rendered as MyST (an admonition, not raw ":::{admonition}")
    assert re.search(r'<p class="admonition-title">Summary</p>', page)
    for suffix in ("results.csv", "summary.json"):  # download links to this run's results
        assert re.search(rf'href="[^"]*_downloads/[^"]+/demo\.{suffix}"', page.replace("\\", "/"))
    assert "injected-parameters" not in page  # the injected cell is removed from the page
    executed = tmp_path / "out" / "_build" / "src" / "notebooks"
    summary = json.loads((executed / "demo.summary.json").read_text())
    assert summary["answer"] == 84.0 and summary["checks"][0]["passed"] is True
    assert summary["commit"] == commit  # executed outside the repository, stamped with its commit
    assert (executed / "demo.results.csv").read_text().startswith("x,y")
    cells = nbformat.read(executed / "demo.ipynb", as_version=4).cells
    injected = [c for c in cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "remove-cell" in injected[0].metadata.tags
    record = json.loads((executed / "demo.run.json").read_text())
    assert (
        record["profile"] == "quick" and record["wall_time_s"] > 0 and record["peak_memory_mb"] > 10
    )
    repro = (html / "book" / "reproducibility.html").read_text()
    assert "demo" in repro and "numpy" in repro
    # the generated pages, read from the summary, link to the chapter
    link = 'href="../notebooks/demo.html"'
    intro = (html / "book" / "intro.html").read_text()
    row = re.search(
        r"<tr[^>]*>(?:(?!</tr>).)*Demo converges faster(?:(?!</tr>).)*</tr>", intro, re.S
    )
    assert row and link in row.group() and "<strong>reproduced</strong>" in row.group()
    ledger = (html / "book" / "ledger.html").read_text()
    section = ledger.split('id="privacy-ledger-demo"')[1]  # the chapter's section, linked to it
    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Demo answer(?:(?!</tr>).)*</tr>", section, re.S)
    assert row and link in section and "replace-one record" in section
    errata = (html / "book" / "errata.html").read_text()
    assert "Demo Eq. (1) drops a factor 2" in errata and link in errata


def test_failing_notebook_names_notebook_and_cell(tiny_book: Path, tmp_path: Path):
    nbformat.write(
        _notebook("x = 1\nraise ValueError('boom')"), tiny_book / "notebooks" / "demo.ipynb"
    )
    with pytest.raises(NotebookFailed, match=r"'demo' failed in cell 3.*ValueError: boom"):
        run_notebook("demo", tmp_path / "o", root=tiny_book)


@pytest.mark.slow
def test_a_failed_check_fails_the_chapter(tiny_book: Path, tmp_path: Path):
    nbformat.write(_notebook(NOISE_CHECK), tiny_book / "notebooks" / "demo.ipynb")
    run_notebook("demo", tmp_path / "ok", root=tiny_book)  # the correct library passes the check
    with pytest.raises(
        NotebookFailed, match=r"'demo' failed.*CheckFailed: demo: check 'noise_scale' failed"
    ):
        run_notebook("demo", tmp_path / "broken", parameters={"halve": True}, root=tiny_book)
    with pytest.raises(NotebookFailed, match="noise_scale"):
        build_book(tiny_book, output=tmp_path / "out", parameters={"halve": True})


@pytest.mark.slow
def test_raw_python_repr_fails_the_build(tiny_book: Path, tmp_path: Path):
    body = (
        GOOD + "\nfrom pathlib import Path\nPath('demo.results.csv'), Path('demo.summary.json')\n"
    )
    nbformat.write(_notebook(body), tiny_book / "notebooks" / "demo.ipynb")
    with pytest.raises(BookDebris, match=r"notebooks/demo\.html: raw 'PosixPath\('"):
        build_book(tiny_book, output=tmp_path / "out")


def test_unknown_notebook_and_profile(tiny_book: Path, tmp_path: Path):
    with pytest.raises(ValueError, match="unknown notebook"):
        run_notebook("nope", tmp_path, root=tiny_book)
    with pytest.raises(ValueError, match="profile"):
        run_notebook("demo", tmp_path, profile="huge", root=tiny_book)


def test_unknown_parameter_is_rejected_before_running(tiny_book: Path, tmp_path: Path):
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['scael'\] for notebook 'demo'"):
        run_notebook("demo", tmp_path / "o", parameters={"scael": 2.0}, root=tiny_book)
    assert not (tmp_path / "o").exists()  # nothing ran
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['scael'\]: no chapter"):
        build_book(tiny_book, output=tmp_path / "b", parameters={"scael": 2.0})
    assert not (tmp_path / "b").exists()


def test_parameter_names_read_by_the_caller_are_not_read_again(
    tiny_book: Path, tmp_path: Path, monkeypatch
):
    """``build_book`` reads each chapter's parameters once and passes them to ``run_notebook``."""
    import privrl.pipeline.build as book

    def no_second_read(source):
        raise AssertionError("parameters inspected twice")

    monkeypatch.setattr(book, "notebook_parameters", no_second_read)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['scael'\]"):
        run_notebook(
            "demo",
            tmp_path / "o",
            parameters={"scael": 2.0},
            root=tiny_book,
            known=["profile", "scale"],
        )


def test_parse_parameters():
    assert parse_parameters(["epsilon=0.5", "n_runs=3", "name=abc", "grid=[1, 2]"]) == {
        "epsilon": 0.5,
        "n_runs": 3,
        "name": "abc",
        "grid": [1, 2],
    }
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
        "book/measurements/demo-paper.json",
        "book/measurements/results/demo-paper.json",
    ]
    # the run record stays where the reproducibility page globs (*.json, not the results/ folder)
    assert json.loads(written[0].read_text()) == record
    got = recorded_summary("demo", "paper", start=tiny_book / "notebooks")
    assert got == {"record": record, "summary": {"answer": 84.0}}
    # the tidy results table lands beside it, named in the record's files
    (out / "demo.results.csv").write_text("x,y\n1,2\n")
    written = record_run(tiny_book, "demo", "paper", str(out), record)
    assert [p.relative_to(tiny_book).as_posix() for p in written] == [
        "book/measurements/demo-paper.json",
        "book/measurements/results/demo-paper-results.csv",
        "book/measurements/results/demo-paper.json",
    ]
    assert written[1].read_text() == "x,y\n1,2\n"
    assert json.loads(written[0].read_text())["files"] == ["demo-paper-results.csv"]


def test_run_record_names_the_commit_that_ran(tiny_book: Path, tmp_path: Path):
    """A long paper run records the commit it started from, not one made while it ran."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tiny_book,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "start")
    nb = _notebook(
        GOOD + '\nimport subprocess\nsubprocess.run(["git", "-c", "user.name=t", "-c", '
        '"user.email=t@t", "commit", "-q", "--allow-empty", "-m", "during"], check=True)\n'
    )
    nbformat.write(nb, tiny_book / "notebooks" / "demo.ipynb")
    git("commit", "-qam", "the notebook that commits")
    before = git("rev-parse", "--short=12", "HEAD")
    (tiny_book / "book" / "measurements").mkdir()
    (tiny_book / "book" / "measurements" / "other-paper.json").write_text("{}")
    git("add", ".")
    git("commit", "-qm", "a record")
    (tiny_book / "book" / "measurements" / "other-paper.json").write_text('{"new": 1}')
    before = git("rev-parse", "--short=12", "HEAD")
    record = run_notebook("demo", tmp_path / "o", root=tiny_book)
    assert git("rev-parse", "--short=12", "HEAD") != before  # the run did commit
    # another run's record left uncommitted is not a change to the code that ran
    assert record.git_commit == before and record.git_dirty is False
    (tiny_book / "notebooks" / "demo.ipynb").write_text(
        (tiny_book / "notebooks" / "demo.ipynb").read_text().replace("Demo chapter", "Demo")
    )
    assert run_notebook("demo", tmp_path / "o2", root=tiny_book).git_dirty is True
