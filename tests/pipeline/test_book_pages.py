"""The generated pages (privacy ledger, verdict table, errata, reproducibility), the debris scanner
and the provenance of recorded runs, on synthetic summaries and pages (fast)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import dp_accounting
import pytest

from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.records import changed_since, experiment_sources, recorded_claims, recorded_run
from privrl.chapter.report import Report
from privrl.chapter.verdicts import (
    Claim,
    Sample,
    Threshold,
    decide_difference,
    decide_threshold,
    untestable,
)
from privrl.core.accounting.events import DpAccountingEvent
from privrl.pipeline.pages import (
    errata_entries,
    ledger_page,
    records,
    reproducibility_page,
    verdict_table,
)
from privrl.pipeline.site_check import BookDebris, check_html, scan_page


def _summary(paper: str = "demo") -> dict:
    """A summary in the Report schema, built through the real Report API."""
    report = Report(paper, "quick", seed=3)
    report.check("closed_form", "closed form equals the solver", 1e-12, at_most=1e-9)
    less = Threshold(0.0, "less")
    stamp = {"profile": "quick", "commit": report.commit}
    report.claim(Claim.of(decide_difference(Sample([1.0] * 3 + [1.1] * 3),
                                            Sample([2.0] * 3 + [2.2] * 3), less, seed=0),
                          key="faster", statement="A | B converges faster than C", **stamp))
    report.claim(Claim.of(decide_difference(Sample([2.0] * 3 + [2.1] * 3),
                                            Sample([1.0] * 3 + [1.2] * 3), less, seed=0),
                          key="better", statement="A beats C", **stamp))
    report.claim(Claim.of(untestable("both arms score 0", n_trials=10), key="floor",
                          statement="A solves the task", **stamp))
    event = DpAccountingEvent(dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(32.0), 100), "rdp", "replace-one")
    report.ledger(LedgerEntry(
        paper=paper, release="Q table | every round", mechanism="Gaussian", relation="replace-one",
        unit="transition", noise="sigma = 3.2", epsilon=event.epsilon(1e-5), delta=1e-5,
        compositions=100, accountant="RDP", event=event,
        cross_check=CrossCheck("upper bound", "dp-accounting PLD", 0.98), audit="audit_q"))
    report.erratum("eq24", "wrong", "Eq. (24) mixes eps/k and eps/d", "bit flip tested eps-LDP")
    return json.loads(json.dumps(report.summary(extra_number=1.5)))


OLD = {"paper": "old", "checks": {"x": True}, "claims": {"y": False}, "profile": "quick"}


def test_records_accepts_only_the_report_schema():
    s = _summary()
    assert len(records(s, "claims")) == 3 and len(records(s, "ledger")) == 1
    assert records(OLD, "claims") == [] and records(OLD, "ledger") == [] and records({}, "errata") == []


def test_ledger_page_lists_every_entry_with_the_schema_columns():
    page = ledger_page([_summary("demo"), _summary("other"), OLD])
    header = next(line for line in page.splitlines() if line.startswith("| paper"))
    for column in ("release", "mechanism", "neighbouring relation", "noise", "epsilon", "delta",
                   "compositions", "accountant", "epsilon recomputed from its event",
                   "cross-check", "cross-check epsilon", "audit"):
        assert f" {column} |" in header
    rows = [line for line in page.splitlines() if line.startswith("| {doc}")]
    assert len(rows) == 2
    assert rows[0].startswith("| {doc}`demo <../notebooks/demo>` | Q table \\| every round |")
    eps = f"{float(json.loads(json.dumps(_summary()))['ledger'][0]['epsilon']):.4g}"
    assert f"| replace-one transition | sigma = 3.2 | {eps} | 1e-05 | 100 | RDP | {eps} |" in rows[0]
    assert "| upper bound: dp-accounting PLD | 0.98 | audit_q |" in rows[0]
    assert "(privacy-ledger)=" in page and "# Privacy ledger" in page
    assert "no ledger entry yet: {doc}`old <../notebooks/old>`" in page  # named, not a crash


def test_verdict_table_has_one_row_per_claim_with_evidence_and_profile():
    table = verdict_table([_summary(), OLD])
    rows = [line for line in table.splitlines() if line.startswith("| {doc}")]
    assert len(rows) == 3
    verdicts = [r.split(" | ")[4] for r in rows]
    assert [r.split(" | ")[1] for r in rows] == ["`faster`", "`better`", "`floor`"]
    assert verdicts == ["**reproduced**", "**not reproduced**", "**untestable**"]
    assert "A \\| B converges faster than C" in rows[0]  # a pipe in a statement stays in its cell
    assert "95% interval [" in rows[0] and "n = 6" in rows[0] and "| quick @ `" in rows[0]
    assert rows[0].endswith("| - |")  # decided on the quick run itself
    assert "both arms score 0 (n = 10)" in rows[2]
    assert "{doc}`demo <../notebooks/demo>`: 3 claims: 1 reproduced, 1 not reproduced, 1 untestable." in table
    assert "no claim yet: {doc}`old <../notebooks/old>`" in table


def test_verdict_table_decides_on_the_paper_record_and_shows_the_quick_rerun_beside_it():
    summary = _summary()
    for claim in list(summary["claims"]):
        summary["claims"].append({**claim, "key": claim["key"] + "_paper", "profile": "paper",
                                  "commit": "abc123",
                                  "verdict": "reproduced" if claim["key"] != "floor" else "inconclusive"})
    table = verdict_table([summary])
    rows = [line for line in table.splitlines() if line.startswith("| {doc}")]
    assert len(rows) == 3  # one row per claim, not one per run
    assert all("| paper @ `abc123` |" in r for r in rows)
    assert [r.rsplit(" | ", 1)[1] for r in rows] == ["agrees |", "disagrees |", "too small |"]
    assert "3 claims: 2 reproduced, 1 inconclusive." in table


def test_errata_entries_hold_recorded_errata_and_every_claim_not_reproduced():
    text = errata_entries([_summary(), OLD])
    errata, refuted = text.split("## Claims not reproduced")
    assert "| {doc}`demo <../notebooks/demo>` | wrong | Eq. (24) mixes eps/k and eps/d |" in errata
    rows = [line for line in refuted.splitlines() if line.startswith("| {doc}")]
    assert len(rows) == 1 and "A beats C" in rows[0]
    assert "no erratum yet: {doc}`old <../notebooks/old>`" in errata


def test_pages_without_any_new_style_summary():
    assert "No chapter records a ledger entry yet." in ledger_page([OLD])
    assert "No chapter records a claim yet." in verdict_table([])
    assert "No claim is decided *not reproduced*" in errata_entries([OLD])


def test_reproducibility_page_states_parameters_and_staleness_of_recorded_runs(tmp_path: Path):
    base = {"notebook": "demo", "profile": "paper", "wall_time_s": 90.0, "peak_memory_mb": 100.0,
            "git_commit": "abc", "cpus": 2, "machine": "x86_64", "python": "3.11",
            "finished_at": "2026-11-22T00:00", "git_dirty": False}
    measurements = tmp_path / "book" / "measurements"
    measurements.mkdir(parents=True)
    (measurements / "demo-paper.json").write_text(json.dumps(
        {**base, "parameters": {"profile": "paper", "n_runs": 3, "cache_dir": "/tmp/c"}}))
    run = recorded_run("demo", "paper", root=tmp_path)
    assert run is not None and run.stale is None and "no chapter package" in run.stale_reason
    page = reproducibility_page([], [run])
    row = next(line for line in page.splitlines() if line.startswith("| demo"))
    assert "`n_runs=3`" in row and "cache_dir" not in row
    assert "| 90 s | 100 MB | `abc` | 2 CPUs, x86_64, Python 3.11 | 2026-11-22 | **unknown**:" in row


# --- provenance -------------------------------------------------------------------------------

def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A git repository in the library's layout: a chapter package importing core modules, a
    pipeline module and a plots module (neither computes a number, so neither is followed)."""
    pkg = tmp_path / "privrl"
    for sub in ("core", "core/algorithms", "papers", "papers/demo", "pipeline", "chapter"):
        (pkg / sub).mkdir(parents=True, exist_ok=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "algorithms" / "td.py").write_text("from privrl.core.rng import as_generator\n")
    (pkg / "core" / "rng.py").write_text("import numpy\n")
    (pkg / "core" / "unused.py").write_text("")
    (pkg / "papers" / "demo" / "chapter.py").write_text(
        "import math\nfrom privrl.core.algorithms import td\nfrom . import helpers\n"
        "from privrl.pipeline.build import find_root\nfrom privrl.chapter.plotting import fig\n")
    (pkg / "papers" / "demo" / "plots.py").write_text("from privrl.core.unused import x\n")
    (pkg / "pipeline" / "build.py").write_text("from privrl.core.unused import verdict_page\n")
    (pkg / "chapter" / "plotting.py").write_text("from privrl.core.unused import y\n")
    (pkg / "papers" / "demo" / "helpers.py").write_text("from privrl.core.validation import check\n")
    (pkg / "core" / "validation.py").write_text("")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return tmp_path


def test_experiment_sources_follow_imports_transitively(repo: Path):
    files = sorted(p.as_posix() for p in experiment_sources("demo", repo))
    assert files == ["privrl/__init__.py", "privrl/chapter/__init__.py", "privrl/core/__init__.py",
                     "privrl/core/algorithms/__init__.py", "privrl/core/algorithms/td.py",
                     "privrl/core/rng.py", "privrl/core/validation.py",
                     "privrl/papers/__init__.py", "privrl/papers/demo/__init__.py",
                     "privrl/papers/demo/chapter.py", "privrl/papers/demo/helpers.py"]
    with pytest.raises(ValueError, match="name: no chapter package"):
        experiment_sources("nope", repo)


def test_a_record_is_stale_once_an_imported_module_changes(repo: Path):
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    files = experiment_sources("demo", repo)
    assert changed_since(commit, files, repo)[0] is False
    (repo / "privrl" / "core" / "unused.py").write_text("x = 1\n")  # only plots/pipeline use it
    (repo / "privrl" / "papers" / "demo" / "plots.py").write_text("# a figure changed\n")
    assert changed_since(commit, files, repo)[0] is False
    (repo / "privrl" / "core" / "rng.py").write_text("import numpy as np\n")  # through td.py
    stale, changed, reason = changed_since(commit, files, repo)
    assert stale is True and changed == ("privrl/core/rng.py",) and "privrl/core/rng.py" in reason
    assert changed_since("0" * 12, files, repo)[0] is None


def test_recorded_run_reads_record_and_summary(repo: Path):
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    record = {"notebook": "demo", "profile": "paper", "git_commit": commit, "git_dirty": False,
              "wall_time_s": 4000.0, "finished_at": "2026-11-22T10:00:00+00:00", "cpus": 2,
              "machine": "x86_64", "python": "3.11.7"}
    results = repo / "book" / "measurements" / "results"
    results.mkdir(parents=True)
    (results / "demo-paper.json").write_text(json.dumps({"record": record, "summary": {"a": 1}}))
    run = recorded_run("demo", "paper", root=repo, source_root=repo)
    assert run is not None and run.summary == {"a": 1} and run.status == "current"
    assert (run.commit, run.date, run.wall_time_text) == (commit, "2026-11-22", "66.7 min")
    assert run.provenance.startswith(f"commit `{commit}`, 2026-11-22, wall time 66.7 min on 2 CPUs, "
                                     "x86_64, Python 3.11.7; current: ")
    assert recorded_run("demo", "quick", root=repo, source_root=repo) is None
    (results / "demo-paper.json").write_text(json.dumps(
        {"record": {**record, "git_dirty": True}, "summary": None}))
    assert recorded_run("demo", "paper", root=repo, source_root=repo).stale is None
    assert recorded_claims("demo", root=repo, source_root=repo) == []


def test_recorded_claims_are_keyed_and_stamped_with_the_recorded_run(repo: Path):
    claim = Claim.of(decide_threshold(Sample([1.0, 1.2, 0.9, 1.1]), Threshold(2.0, "less")),
                     key="demo_fast", statement="Demo is fast", profile="paper", commit="old")
    summary = {"claims": [claim.as_dict()]}
    record = {"git_commit": "abc123", "git_dirty": False}
    results = repo / "book" / "measurements" / "results"
    results.mkdir(parents=True)
    (results / "demo-paper.json").write_text(json.dumps({"record": record, "summary": summary}))
    (got,) = recorded_claims("demo", root=repo, source_root=repo)
    assert got == replace(claim, key="demo_fast_paper", profile="paper", commit="abc123")
    report = Report("demo", "quick", seed=0)
    report.claim(got)
    assert report.claims[0].profile == "paper" and report.claims[0].commit == "abc123"


def test_summary_box_links_results_and_states_provenance(monkeypatch):
    from privrl.chapter import records
    from privrl.chapter import report as report_module

    report = Report("balle2016", "quick", seed=0)
    box = report.summary_box()
    assert box.startswith(":::{admonition} Summary of this chapter") and box.rstrip().endswith(":::")
    assert "{download}`balle2016.results.csv <balle2016.results.csv>`" in box
    assert "{download}`balle2016.summary.json <balle2016.summary.json>`" in box
    assert "`privrl run balle2016 --profile paper`" in box
    run = records.RecordedRun("balle2016", "paper", {"git_commit": "abc", "wall_time_s": 30,
                                 "finished_at": "2026-11-22T00:00", "cpus": 2}, None, True,
                                 ("privrl/chapter/sweep.py",), "changed since abc: privrl/chapter/sweep.py")
    monkeypatch.setattr(report_module, "recorded_run", lambda name, profile: run)
    box = report.summary_box()
    assert "Recorded paper-scale run: commit `abc`, 2026-11-22, wall time 30 s" in box
    assert "**stale**" in box and "privrl/chapter/sweep.py" in box
    monkeypatch.setattr(report_module, "recorded_run", lambda name, profile: None)
    assert "Recorded paper-scale run" not in report.summary_box()


# --- debris scanner ---------------------------------------------------------------------------

def test_scanner_finds_raw_myst_reprs_and_cdn_scripts():
    page = ("<html><head><script src='https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js'></script>"
            "<script>var x = '{glue:text}`a`';</script><style>p{cite}`x`</style></head><body>"
            "<p>```{prf:lemma} Lemma 8</p><p>as {cite}`wang2019` shows</p>"
            "<pre>(PosixPath(&#39;a.csv&#39;), &lt;module &#39;np&#39;&gt;)</pre></body></html>")
    found = scan_page(page, "notebooks/x.html")
    whats = sorted(f.what for f in found)
    assert whats == ["raw '<module'", "raw 'PosixPath('", "raw '```{'", "raw '{cite}`'",
                     "raw '{prf:'", "remote resource"]
    assert all(f.page == "notebooks/x.html" for f in found)
    cite = next(f for f in found if f.what == "raw '{cite}`'")
    assert "as {cite}`wang2019` shows" in cite.snippet


def test_scanner_passes_a_clean_page_and_local_scripts():
    page = ("<html><head><script src='../_static/mathjax/tex-chtml.js'></script></head><body>"
            "<p>Theorem 5.1 holds; see <a href='../x.html'>x</a>.</p>"
            "<pre>```bash\nprivrl book\n```</pre></body></html>")
    assert scan_page(page, "a.html") == []


def test_check_html_raises_naming_page_and_snippet(tmp_path: Path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "index.html").write_text("<p>fine</p>")
    (tmp_path / "_static" / "x.html").write_text("<p>{glue:text}`ignored, not a page`</p>")
    check_html(tmp_path)
    (tmp_path / "notebooks" / "w.html").write_text("<p>Lemma {glue:text}`w_sigma` holds</p>")
    with pytest.raises(BookDebris, match=r"notebooks/w\.html: raw '\{glue'.*Lemma \{glue:text\}`w_sigma"):
        check_html(tmp_path)
    with pytest.raises(ValueError, match="html_dir"):
        check_html(tmp_path / "missing")


def test_a_record_naming_its_producer_is_judged_on_the_producers_code(repo: Path):
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    record = {"notebook": "demo", "profile": "paper", "git_commit": commit, "git_dirty": False,
              "produced_by": ["privrl.core.algorithms.td"]}
    measurements = repo / "book" / "measurements"
    measurements.mkdir(parents=True)
    (measurements / "demo-paper.json").write_text(json.dumps(record))
    # the chapter's claim code changes: the recorded table (made by td) is still current
    (repo / "privrl" / "papers" / "demo" / "helpers.py").write_text("x = 2\n")
    assert recorded_run("demo", root=repo, source_root=repo).stale is False
    (repo / "privrl" / "core" / "rng.py").write_text("import numpy as np\n")  # td imports it
    run = recorded_run("demo", root=repo, source_root=repo)
    assert run.stale is True and run.changed == ("privrl/core/rng.py",)


def test_summary_box_lists_each_claim_once_decided_on_the_paper_record():
    report = Report("demo", "quick", seed=0)
    claim = Claim.of(decide_threshold(Sample([1.0, 1.2, 0.9, 1.1, 1.0]), Threshold(2.0, "less")),
                     key="fast", statement="Demo is fast", profile="quick", commit=report.commit)
    report.claim(claim)
    report.claim(replace(claim, key="fast_paper", verdict="inconclusive", source="Figure 3",
                         profile="paper", commit="abc123"))
    report.erratum("eq1", "wrong", "Eq. (1) drops a factor", "closed form")
    box = report.summary_box()
    assert "**Claims** (1: 1 inconclusive):" in box
    assert ("- *inconclusive*: Demo is fast (`fast`; paper run, commit `abc123`; paper: Figure 3)"
            in box)
    assert "**Errata**: 1 wrong" in box


def test_rows_beyond_the_paper_are_shown_apart_and_not_counted_as_claims():
    summary = _summary()
    claim = dict(summary["claims"][0])
    summary["claims"].append({**claim, "key": "faster_beyond",
                              "statement": "Beyond the paper: A converges faster on our metric"})
    table = verdict_table([summary])
    main, beyond = table.split("**Beyond the paper.**")
    assert "Beyond the paper: A converges" in beyond and "Beyond the paper: A" not in main
    assert "3 claims: 1 reproduced, 1 not reproduced, 1 untestable (and 1 rows beyond the paper)." in main
