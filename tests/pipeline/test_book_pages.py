"""The generated pages (privacy ledger, verdict table, errata, reproducibility), the debris scanner
and the provenance of recorded runs, on synthetic summaries and pages (fast)."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import dp_accounting
import pytest

from privrl.chapter.decided import EvidenceSource
from privrl.chapter.front import Departure, FrontMatter
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.records import (
    changed_since,
    code_of,
    experiment_sources,
    recorded_claims,
    recorded_run,
)
from privrl.chapter.report import Report
from privrl.chapter.tables import format_number
from privrl.chapter.verdicts import (
    Claim,
    Sample,
    Threshold,
    decide_difference,
    decide_threshold,
    untestable,
)
from privrl.core.accounting.events import DpAccountingEvent
from privrl.pipeline.ledger_page import ledger_page, shared_opening
from privrl.pipeline.page_rules import WHOLE_WORDS_CLASS
from privrl.pipeline.pages import (
    cell,
    claim_of,
    errata_entries,
    landing_papers,
    records,
    reproducibility_page,
)
from privrl.pipeline.site_check import BookDebris, check_html, scan_page

#: The demo chapter's one recorded run, whose claims are keyed ``<key>_paper``.
DEMO_SOURCES = (EvidenceSource("paper", "_paper", "the demo's recorded run"),)


def _summary(paper: str = "demo") -> dict:
    """A summary in the Report schema, built through the real Report API."""
    report = Report(paper, "quick", seed=3, sources=DEMO_SOURCES)
    report.check("closed_form", "closed form equals the solver", 1e-12, at_most=1e-9)
    less = Threshold(0.0, "less")
    stamp = {"profile": "quick", "commit": report.commit}
    report.claim(
        Claim.of(
            decide_difference(
                Sample([1.0] * 3 + [1.1] * 3), Sample([2.0] * 3 + [2.2] * 3), less, seed=0
            ),
            key="faster",
            statement="A | B converges faster than C",
            **stamp,
        )
    )
    report.claim(
        Claim.of(
            decide_difference(
                Sample([2.0] * 3 + [2.1] * 3), Sample([1.0] * 3 + [1.2] * 3), less, seed=0
            ),
            key="better",
            statement="A beats C",
            **stamp,
        )
    )
    report.claim(
        Claim.of(
            untestable("both arms score 0", n_trials=10),
            key="floor",
            statement="A solves the task",
            **stamp,
        )
    )
    event = DpAccountingEvent(
        dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(32.0), 100),
        "rdp",
        "replace-one",
    )
    report.ledger(
        LedgerEntry(
            paper=paper,
            release="Q table | every round",
            mechanism="Gaussian",
            relation="replace-one",
            unit="transition",
            noise="sigma = 3.2",
            delta=1e-5,
            compositions=100,
            accountant="RDP",
            event=event,
            cross_check=CrossCheck("upper bound", "dp-accounting PLD", 0.98),
            audit="audit_q",
        )
    )
    report.erratum("eq24", "wrong", "Eq. (24) mixes eps/k and eps/d", "bit flip tested eps-LDP")
    return json.loads(json.dumps(report.summary(extra_number=1.5)))


OLD = {"paper": "old", "checks": {"x": True}, "claims": {"y": False}, "profile": "quick"}


def test_records_accepts_only_the_report_schema():
    s = _summary()
    assert len(records(s, "claims")) == 3 and len(records(s, "ledger")) == 1
    assert (
        records(OLD, "claims") == []
        and records(OLD, "ledger") == []
        and records({}, "errata") == []
    )


def test_ledger_page_has_a_section_per_chapter_and_says_once_what_a_kind_shares():
    page = ledger_page([_summary("demo"), _summary("other"), OLD])
    assert "(privacy-ledger)=" in page and "# Privacy ledger" in page
    for name in ("demo", "other"):  # a heading each: the contents sidebar lists them
        assert f"(privacy-ledger-{name})=\n## {name}\n" in page
        assert f"1 release of the chapter {{doc}}`{name} <../notebooks/{name}>`." in page
    assert "## old" not in page
    assert "no ledger entry yet: {doc}`old <../notebooks/old>`" in page  # named, not a crash
    assert page.count(f":::{{table}}\n:class: privrl-wrap {WHOLE_WORDS_CLASS}\n") == 2
    # one entry: what it shares with itself is said above its table; the row: release, epsilon
    assert (
        "**Gaussian** (1 release). *noise*: sigma = 3.2; *neighbours*: replace-one transition; "
        "*accountant*: RDP; *compositions*: 100; *cross-check*: upper bound: dp-accounting PLD; "
        "*cross-check epsilon*: 0.98; *audit*: audit_q." in page
    )
    eps = format_number(float(_summary()["ledger"][0]["epsilon"]))
    rows = [line for line in page.splitlines() if line.startswith("| Q table")]
    assert rows == [f"| Q table \\| every round | {eps} (1e-5); from its event: {eps} |"] * 2


def test_a_kind_of_release_lists_in_columns_what_differs_between_its_entries():
    summary = _summary()
    first = summary["ledger"][0]
    summary["ledger"].append({**first, "release": "second", "noise": "sigma = 6.4", "paper": "x"})
    summary["ledger"].append({**first, "release": "other kind", "mechanism": "Laplace"})
    page = ledger_page([summary])
    assert "3 releases of the chapter" in page
    assert "**Gaussian** (2 releases). *neighbours*: replace-one transition;" in page
    assert "| release | epsilon (delta) | noise |" in page
    assert "| second (x) | " in page and page.count("| sigma = 6.4 |") == 1  # another paper
    assert "**Laplace** (1 release). *noise*: sigma = 3.2;" in page
    assert page.index("| second (x)") < page.index("**Laplace**")  # kinds in order


def test_an_opening_every_entry_of_a_kind_shares_in_a_field_is_said_once():
    summary = _summary()
    first = summary["ledger"][0]
    summary["ledger"] += [
        {**first, "release": "b", "accountant": "PLD at the same z (no theorem needed): 2.35"},
        {**first, "release": "c", "accountant": "PLD at the same z (no theorem needed): 7.16"},
    ]
    summary["ledger"][0] = {**first, "accountant": "PLD at the same z (no theorem needed): 1.5"}
    page = ledger_page([summary])
    assert "*accountant*: PLD at the same z (no theorem needed): (each release's in the table)" in (
        page
    )
    assert [line.split(" | ")[-1] for line in page.splitlines() if line.startswith("| b |")] == [
        "2.35 |"
    ]
    assert shared_opening(["x: 1", "x: 2"]) == ""  # too short to say apart
    assert shared_opening(["a long enough opening: 1", "a long enough opening: 2"]) == (
        "a long enough opening: "
    )


def test_ledger_numbers_never_show_nan_or_inf():
    summary = _summary()
    summary["ledger"][0].update(
        epsilon="inf", private_under="replace-one user", cross_check_epsilon=float("nan")
    )
    summary["ledger"][0]["cross_check"]["epsilon"] = float("inf")
    section = ledger_page([summary]).split("## demo")[1]
    assert "**no guarantee** (private under: replace-one user)" in section
    assert "*cross-check epsilon*: ∞;" in section
    assert not re.search(r"\b(nan|inf)\b", section.replace("private under", ""))


def _rows(text: str) -> list[str]:
    """The rows of the landing page's verdict tables (header and rule left out)."""
    return [
        line
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith(("| claim | verdict", "|---"))
    ]


def _key(row: str) -> str:
    """The key link written small beneath a row's claim."""
    return re.search(r'<small class="privrl-beneath">(.*?)</small>', row).group(1)


FRONT = FrontMatter(
    "demo",
    "A is faster than C and solves the task.",
    "A is not faster.",
    {"faster": "fig-demo-speed"},
    (Departure("trials", "?", "6", "speed"),),
)


def test_landing_gives_each_paper_its_sentences_counts_and_folded_verdicts():
    text = landing_papers([_summary(), OLD], {"demo": FRONT})
    block = text.split("::::{dropdown}")[0]
    assert block.startswith(
        "**{doc}`../notebooks/demo`.** **Verdicts: 3 claims: 1 reproduced, "
        "1 not reproduced, 1 untestable.**"
    )
    assert "**Bottom line:** A is not faster." in block
    # what the paper claims opens the folded verdicts (the landing stays within three screens)
    assert "What demo claims, and its 3 verdicts claim by claim" in text
    assert "*What it claims:* A is faster than C and solves the task." in text
    assert text.count("::::") == 2
    rows = _rows(text)
    assert [_key(r) for r in rows] == [
        "{ref}`faster <fig-demo-speed>`",  # the key, linked to the figure that decided it
        "{doc}`better <../notebooks/demo>`",
        "{doc}`floor <../notebooks/demo>`",
    ]
    assert [r.split(" | ")[1] for r in rows] == [
        "**reproduced**",
        "**not reproduced**",
        "**untestable**",
    ]
    # the claim first (a pipe in a statement stays in its cell), the key beneath it
    assert rows[0].startswith("| A \\| B converges faster than C<br><small")
    assert "95% interval [" in rows[0] and "n = 6" in rows[0]
    assert rows[2].endswith(
        "| both arms score 0 (n = 10) | this run (quick profile): 10 trials "
        "per arm, quick run (CI scale) |"
    )
    assert ":class: privrl-wrap privrl-fixed privrl-claims\n" in text
    assert "**{doc}`../notebooks/old`.**" in text  # a chapter without claims: its title only


def test_the_stylesheet_gives_the_landing_claims_columns_the_claims_tables_shares():
    from privrl.chapter.decided_on import CLAIMS_WIDTHS
    from privrl.chapter.records import SOURCE_ROOT

    css = (SOURCE_ROOT / "book/_static/privrl.css").read_text()
    shares = re.findall(r"table\.privrl-claims th:nth-child\((\d)\) \{ width: (\d+)%; \}", css)
    assert [int(w) for _, w in sorted(shares)] == [round(100 * w) for w in CLAIMS_WIDTHS.values()]


def test_landing_decides_on_the_record_and_checks_the_quick_rerun_only_where_it_can():
    summary = _summary()
    for claim in list(summary["claims"]):
        summary["claims"].append(
            {
                **claim,
                "key": claim["key"] + "_paper",
                "profile": "paper",
                "commit": "abc123",
                "scale": "10 of 30 seeds",
                "verdict": ("reproduced" if claim["key"] != "floor" else "inconclusive"),
            }
        )
    text = landing_papers([summary], {})
    rows = _rows(text)
    assert len(rows) == 3  # one row per claim, not one per run
    assert "**Verdicts: 3 claims: 2 reproduced, 1 inconclusive.**" in text
    assert [r.split(" | ")[1] for r in rows] == [
        "**reproduced** (quick rerun agrees)",
        "**reproduced** (quick rerun: not reproduced)",
        "**inconclusive**",
    ]  # the quick run's floor is untestable: it checks nothing
    assert "3 claims: 2 reproduced, 1 inconclusive" in text
    # a record's own figure is linked where the front matter names it for the suffixed key
    front = FrontMatter(
        "demo",
        "A is faster.",
        "A is.",
        {"faster": "fig-demo-speed", "better_paper": "fig-demo-record"},
        (),
    )
    rows = _rows(landing_papers([summary], {"demo": front}))
    assert [_key(r) for r in rows] == [
        "{ref}`faster <fig-demo-speed>`",
        "{ref}`better <fig-demo-record>`",
        "{doc}`floor <../notebooks/demo>`",
    ]
    # decided on: the record's commit (no record file of "demo"), trials per arm and scale
    assert rows[0].endswith("| recorded run of commit abc123: 6 trials per arm, 10 of 30 seeds |")


def test_shared_statement_openings_are_said_once_per_group_and_reasons_in_every_cell():
    summary = _summary()
    base = summary["claims"][2]  # untestable: "both arms score 0"
    summary["claims"] = [
        {**base, "key": f"k{i}", "statement": f"On the set-up X (why): claim {i}"} for i in range(4)
    ] + [{**base, "key": "other", "reason": "own reason"}]
    text = landing_papers([summary], {})
    assert "*On the set-up X (why).*" in text and text.count("On the set-up X (why)") == 1
    assert "| claim 0<br><small" in text and "(a)" not in text  # no footnote letters
    # each claim counted once, on the set-up the chapter names, and each group of rows headed
    # by its set-up (the paper's own with its counts)
    assert "**Verdicts: on the set-up X, 4 claims: 4 untestable.**" in text
    assert text.index("*On the paper's set-up: 1 claim: 1 untestable.*") < text.index(
        "| own reason"
    )
    assert text.count("| both arms score 0 (n = 10) |") == 4
    assert "| own reason (n = 10) |" in text


def test_errata_quote_the_decided_claims_not_the_quick_runs():
    summary = _summary()
    summary["errata"].append(
        {
            "key": "better_not_reproduced",
            "kind": "not reproduced",
            "statement": "A does not beat C (quick profile)",
            "evidence": "n = 6",
        }
    )
    summary["errata"].append(
        {
            "key": "rate",
            "kind": "not reproduced",
            "statement": "The rate is not visible",
            "evidence": "slope",
        }
    )
    for claim in list(summary["claims"]):
        summary["claims"].append(
            {
                **claim,
                "key": claim["key"] + "_paper",
                "profile": "paper",
                "commit": "abc123",
                "n_trials": 20,
            }
        )
    text = errata_entries([summary, OLD])
    errata, refuted = text.split("## Claims not reproduced")
    assert "| {doc}`demo <../notebooks/demo>` | wrong | Eq. (24) mixes eps/k and eps/d |" in errata
    assert "The rate is not visible" in errata  # names no claim: kept
    assert "quick profile" not in errata  # restates claim `better`: the decided claim says it
    assert "no erratum yet: {doc}`old <../notebooks/old>`" in errata
    rows = [line for line in refuted.splitlines() if line.startswith("| {doc}")]
    assert len(rows) == 1 and "A beats C" in rows[0] and "n = 20" in rows[0]
    assert rows[0].endswith("| paper scale, `abc123` |")


def test_pages_without_any_new_style_summary():
    assert "No chapter records a ledger entry yet." in ledger_page([OLD])
    assert "No chapter records a claim yet." in landing_papers([], {})
    assert "No claim is decided *not reproduced*" in errata_entries([OLD])


def test_reproducibility_page_states_parameters_and_staleness_of_recorded_runs(tmp_path: Path):
    base = {
        "notebook": "demo",
        "profile": "paper",
        "wall_time_s": 90.0,
        "peak_memory_mb": 100.0,
        "git_commit": "abc",
        "cpus": 2,
        "machine": "x86_64",
        "python": "3.11",
        "finished_at": "2026-11-22T00:00",
        "git_dirty": False,
    }
    measurements = tmp_path / "book" / "measurements"
    measurements.mkdir(parents=True)
    (measurements / "demo-paper.json").write_text(
        json.dumps(
            {
                **base,
                "parameters": {
                    "profile": "paper",
                    "n_runs": 3,
                    "cache_dir": "/tmp/c",
                    "epsilons": [1.0, float("inf")],
                    "env": "airraid",
                },
            }
        )
    )
    run = recorded_run("demo", "paper", root=tmp_path)
    assert run is not None and run.stale is None and "no chapter package" in run.stale_reason
    page = reproducibility_page([], [run])
    row = next(line for line in page.splitlines() if line.startswith("| demo"))
    assert "| n_runs = 3, epsilons = [1, ∞], env = airraid |" in row and "cache_dir" not in row
    assert (
        "| 90 s | 100 MB | `abc` | 2 CPUs, x86_64, Python 3.11 | 2026-11-22 | **unknown**:" in row
    )


# --- provenance -------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


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
        "from privrl.pipeline.build import find_root\nfrom privrl.chapter.plotting import fig\n"
    )
    (pkg / "papers" / "demo" / "plots.py").write_text("from privrl.core.unused import x\n")
    (pkg / "pipeline" / "build.py").write_text("from privrl.core.unused import verdict_page\n")
    (pkg / "chapter" / "plotting.py").write_text("from privrl.core.unused import y\n")
    (pkg / "papers" / "demo" / "helpers.py").write_text(
        "from privrl.core.validation import check\n"
    )
    (pkg / "core" / "validation.py").write_text("")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return tmp_path


def test_experiment_sources_follow_imports_transitively(repo: Path):
    files = sorted(p.as_posix() for p in experiment_sources("demo", repo))
    # the top package's __init__ is inert (records.INERT_PACKAGES): not in the closure
    assert files == [
        "privrl/chapter/__init__.py",
        "privrl/core/__init__.py",
        "privrl/core/algorithms/__init__.py",
        "privrl/core/algorithms/td.py",
        "privrl/core/rng.py",
        "privrl/core/validation.py",
        "privrl/papers/__init__.py",
        "privrl/papers/demo/__init__.py",
        "privrl/papers/demo/chapter.py",
        "privrl/papers/demo/helpers.py",
    ]
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


def test_formatting_comments_and_docstrings_leave_a_record_current(repo: Path):
    """Staleness compares code (records.code_of): reformatting, a comment or a docstring of the
    module, a class or a function changes no number; a changed constant does."""
    files = experiment_sources("demo", repo)
    helpers = repo / "privrl" / "papers" / "demo" / "helpers.py"
    source = (
        '"""Helpers."""\nfrom privrl.core.validation import check\n\n\nclass K:\n'
        '    """A class."""\n\n    def f(self, x):\n        """Twice x."""\n'
        "        return 2 * x\n"
    )
    helpers.write_text(source)
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "helpers")
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    helpers.write_text(
        source.replace("return 2 * x", "return (2*x)  # doubled").replace("\n\n\nclass", "\nclass")
    )
    assert changed_since(commit, files, repo)[0] is False
    helpers.write_text(
        source.replace('"""Helpers."""', '"""Other helpers,\n\non two lines."""')
        .replace('"""A class."""', "'Another.'")
        .replace('        """Twice x."""\n', "")
    )
    assert changed_since(commit, files, repo)[0] is False
    helpers.write_text(source.replace("2 * x", "3 * x"))
    assert changed_since(commit, files, repo)[:2] == (True, ("privrl/papers/demo/helpers.py",))
    assert code_of("x = (") == "x = ("  # a file that does not parse is compared as text


def test_recorded_run_reads_record_and_summary(repo: Path):
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    record = {
        "notebook": "demo",
        "profile": "paper",
        "git_commit": commit,
        "git_dirty": False,
        "wall_time_s": 4000.0,
        "finished_at": "2026-11-22T10:00:00+00:00",
        "cpus": 2,
        "machine": "x86_64",
        "python": "3.11.7",
    }
    results = repo / "book" / "measurements" / "results"
    results.mkdir(parents=True)
    (results / "demo-paper.json").write_text(json.dumps({"record": record, "summary": {"a": 1}}))
    run = recorded_run("demo", "paper", root=repo, source_root=repo)
    assert run is not None and run.summary == {"a": 1} and run.status == "current"
    assert (run.commit, run.date, run.wall_time_text) == (commit, "2026-11-22", "66.7 min")
    assert run.provenance.startswith(
        f"commit `{commit}`, 2026-11-22, wall time 66.7 min on 2 CPUs, "
        "x86_64, Python 3.11.7; current: "
    )
    assert recorded_run("demo", "quick", root=repo, source_root=repo) is None
    (results / "demo-paper.json").write_text(
        json.dumps({"record": {**record, "git_dirty": True}, "summary": None})
    )
    assert recorded_run("demo", "paper", root=repo, source_root=repo).stale is None
    assert recorded_claims("demo", suffix="_paper", root=repo, source_root=repo) == []


def test_recorded_claims_are_keyed_and_stamped_with_the_recorded_run(repo: Path):
    claim = Claim.of(
        decide_threshold(Sample([1.0, 1.2, 0.9, 1.1]), Threshold(2.0, "less")),
        key="demo_fast",
        statement="Demo is fast",
        profile="paper",
        commit="old",
    )
    summary = {"claims": [claim.as_dict()]}
    record = {"git_commit": "abc123", "git_dirty": False}
    results = repo / "book" / "measurements" / "results"
    results.mkdir(parents=True)
    (results / "demo-paper.json").write_text(json.dumps({"record": record, "summary": summary}))
    (got,) = recorded_claims("demo", suffix="_paper", root=repo, source_root=repo)
    assert got == replace(claim, key="demo_fast_paper", profile="paper", commit="abc123")
    report = Report("demo", "quick", seed=0)
    report.claim(got)
    assert report.claims[0].profile == "paper" and report.claims[0].commit == "abc123"


def test_summary_box_opens_with_the_bottom_line_and_counts_as_the_landing_page(monkeypatch):
    from privrl.chapter import records
    from privrl.chapter import report as report_module

    summary = _summary()
    monkeypatch.setattr(report_module, "front_matter", lambda name: FRONT)
    report = Report("demo", "quick", seed=0)
    report.claims = [claim_of(c) for c in summary["claims"]]
    box = report.summary_box()
    assert box.startswith(":::{admonition} Summary\n:class: summary-box\n")
    assert box.rstrip().endswith(":::")
    assert "**Bottom line.** A is not faster." in box
    landing = landing_papers([summary], {"demo": FRONT})
    counts = "3 claims: 1 reproduced, 1 not reproduced, 1 untestable"
    assert f"**Verdicts.** {counts}." in box and f"**Verdicts: {counts}.**" in landing
    assert "**Departures from the paper:** [1](#departures-from-the-paper)." in box
    lo, hi = min(c.n_trials for c in report.claims), max(c.n_trials for c in report.claims)
    assert lo < hi  # the box gives the range of trials behind the run's verdicts
    assert (
        f"this run of commit `{report.commit}` (quick run (CI scale), {lo} to {hi} trials per arm;"
        " 3 rows)"
    ) in box
    assert "A solves the task" not in box  # no per-claim list: the claims table has it
    assert "{download}`demo.results.csv <demo.results.csv>`" in box
    assert "`privrl run demo --profile paper --record` (the record)" in box
    run = records.RecordedRun(
        "demo",
        "paper",
        {"git_commit": "abc", "command": "python -m x"},
        None,
        True,
        (),
        "changed since abc",
    )
    monkeypatch.setattr(report_module, "recorded_run", lambda name, profile: run)
    box = report.summary_box()
    assert "`python -m x` (the record)" in box and "unchanged" not in box and "stale" not in box


def test_summary_box_of_a_chapter_without_front_matter_or_claims(monkeypatch):
    box = Report("nofront", "quick", seed=0).summary_box()
    assert "Bottom line" not in box and "Verdicts" not in box and "Departures" not in box
    assert "`privrl run nofront`" in box


def test_claims_frame_lists_the_decided_claims_with_scale_and_source():
    report = Report("demo", "quick", seed=0, sources=DEMO_SOURCES)
    claim = Claim.of(
        decide_threshold(Sample([1.0, 1.2, 0.9, 1.1, 1.0]), Threshold(2.0, "less")),
        key="fast",
        statement="Demo is fast",
        source="Figure 3",
        profile="quick",
        commit=report.commit,
        scale="quick run (CI scale)",
    )
    report.claim(claim)
    report.claim(
        replace(
            claim,
            key="fast_paper",
            verdict="inconclusive",
            profile="paper",
            commit="abc123",
            scale="paper scale",
        )
    )
    frame = report.claims_frame()
    assert list(frame.columns) == ["key", "claim", "verdict", "scale", "evidence", "source"]
    assert frame.to_dict("records") == [
        {
            "key": "fast",
            "claim": "Demo is fast",
            "verdict": "inconclusive",
            "scale": "paper scale",
            "evidence": report.claims[1].evidence_text(),
            "source": "Figure 3",
        }
    ]


# --- debris scanner ---------------------------------------------------------------------------


def test_scanner_finds_raw_myst_reprs_and_cdn_scripts():
    page = (
        "<html><head><script src='https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js'></script>"
        "<script>var x = '{glue:text}`a`';</script><style>p{cite}`x`</style></head><body>"
        "<p>```{prf:lemma} Lemma 8</p><p>as {cite}`wang2019` shows</p>"
        "<pre>(PosixPath(&#39;a.csv&#39;), &lt;module &#39;np&#39;&gt;)</pre></body></html>"
    )
    found = scan_page(page, "notebooks/x.html")
    whats = sorted(f.what for f in found)
    assert whats == [
        "raw '<module'",
        "raw 'PosixPath('",
        "raw '```{'",
        "raw '{cite}`'",
        "raw '{prf:'",
        "remote resource",
    ]
    assert all(f.page == "notebooks/x.html" for f in found)
    cite = next(f for f in found if f.what == "raw '{cite}`'")
    assert "as {cite}`wang2019` shows" in cite.snippet


def test_scanner_passes_a_clean_page_and_local_scripts():
    page = (
        "<html><head><script src='../_static/mathjax/tex-chtml.js'></script></head><body>"
        "<p>Theorem 5.1 holds; see <a href='../x.html'>x</a>.</p>"
        "<pre>```bash\nprivrl book\n```</pre></body></html>"
    )
    assert scan_page(page, "a.html") == []


def test_check_html_raises_naming_page_and_snippet(tmp_path: Path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "index.html").write_text("<p>fine</p>")
    (tmp_path / "_static" / "x.html").write_text("<p>{glue:text}`ignored, not a page`</p>")
    check_html(tmp_path)
    (tmp_path / "notebooks" / "w.html").write_text("<p>Lemma {glue:text}`w_sigma` holds</p>")
    with pytest.raises(
        BookDebris, match=r"notebooks/w\.html: raw '\{glue'.*Lemma \{glue:text\}`w_sigma"
    ):
        check_html(tmp_path)
    with pytest.raises(ValueError, match="html_dir"):
        check_html(tmp_path / "missing")


def test_a_record_naming_its_producer_is_judged_on_the_producers_code(repo: Path):
    commit = _git(repo, "rev-parse", "--short=12", "HEAD")
    record = {
        "notebook": "demo",
        "profile": "paper",
        "git_commit": commit,
        "git_dirty": False,
        "produced_by": ["privrl.core.algorithms.td"],
    }
    measurements = repo / "book" / "measurements"
    measurements.mkdir(parents=True)
    (measurements / "demo-paper.json").write_text(json.dumps(record))
    # the chapter's claim code changes: the recorded table (made by td) is still current
    (repo / "privrl" / "papers" / "demo" / "helpers.py").write_text("x = 2\n")
    assert recorded_run("demo", root=repo, source_root=repo).stale is False
    (repo / "privrl" / "core" / "rng.py").write_text("import numpy as np\n")  # td imports it
    run = recorded_run("demo", root=repo, source_root=repo)
    assert run.stale is True and run.changed == ("privrl/core/rng.py",)


def test_cells_write_inf_for_the_reader_and_keep_pipes_inside():
    assert cell("Non-private (epsilon = inf, -inf) | info x.inf") == (
        "Non-private (epsilon = ∞, -∞) \\| info x.inf"
    )
