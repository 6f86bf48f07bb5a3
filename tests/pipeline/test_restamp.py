"""Re-stamping a recorded run: only on quick runs that agree, with the evidence kept."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privrl.pipeline.restamp import compare, main, restamp


def _run(folder: Path, value: float = 1.0, seconds: float = 3.0, order=("a", "b")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    checks = {
        "a": {"key": "a", "observed": value, "passed": True},
        "b": {"key": "b", "observed": 2.0, "passed": True},
    }
    summary = {
        "checks": [checks[k] for k in order],
        "claims": [],
        "errata": [],
        "ledger": [{"release": "r", "epsilon": 0.5, "delta": 1e-5, "noise": "s = 1"}],
    }
    (folder / "demo.summary.json").write_text(json.dumps(summary))
    pd.DataFrame({"x": [1, 2], "seconds": [seconds, seconds]}).to_csv(
        folder / "demo.results.csv", index=False
    )
    return folder


def test_compare_finds_every_difference_and_nothing_else(tmp_path: Path):
    before = _run(tmp_path / "before")
    assert compare(before, _run(tmp_path / "same"), "demo") == []
    diffs = compare(
        before, _run(tmp_path / "other", value=1.5, seconds=4.0, order=("b", "a")), "demo"
    )
    assert "checks[a].observed: 1.0 -> 1.5" in diffs
    assert "checks: same keys in another order" in diffs
    assert "results.csv column 'seconds' differs" in diffs and len(diffs) == 3


def test_restamp_keeps_the_recorded_commit_and_the_evidence(tmp_path: Path, monkeypatch):
    root = tmp_path / "book_root"
    (root / "notebooks").mkdir(parents=True)
    (root / "_config.yml").write_text("")
    record = root / "book" / "measurements" / "demo-paper.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"git_commit": "old", "wall_time_s": 1.0}))
    before = _run(tmp_path / "before" / "demo")
    _run(tmp_path / "after" / "demo", seconds=9.0)
    monkeypatch.chdir(root)
    argv = [
        "demo",
        "--before",
        str(before.parent),
        "--after",
        str(tmp_path / "after"),
        "--commit",
        "new",
        "--old-tree",
        "old",
    ]
    assert main(argv) == 1 and json.loads(record.read_text())["git_commit"] == "old"
    assert main([*argv, "--accept", "column 'seconds'"]) == 0
    data = json.loads(record.read_text())
    assert data["git_commit"] == "new" and data["restamped"]["recorded_at"] == "old"
    assert (
        "accepted differences: results.csv column 'seconds' differs"
        in data["restamped"]["evidence"]
    )
    assert restamp(root, "nothing", "x", "y") == []
    # a record of another profile is named NAME:PROFILE, its producers likewise
    other = record.with_name("demo-reference.json")
    other.write_text(json.dumps({"git_commit": "old", "wall_time_s": 1.0}))
    assert (
        main(
            [
                "demo:reference",
                *argv[1:],
                "--accept",
                "column 'seconds'",
                "--produced-by",
                "demo:reference=privrl.x",
                "--note",
                "claims agree",
            ]
        )
        == 0
    )
    data = json.loads(other.read_text())
    assert (data["git_commit"], data["produced_by"]) == ("new", ["privrl.x"])
    assert data["restamped"]["evidence"].endswith("; claims agree")
    assert json.loads(record.read_text())["restamped"]["recorded_at"] == "old"
    # a full SHA is stamped as every record's 12-character commit
    assert restamp(root, "demo", "0123456789abcdef" * 2 + "01234567", "evidence")
    assert json.loads(record.read_text())["git_commit"] == "0123456789ab"


def test_tables_only_compares_the_results_table_alone(tmp_path: Path):
    before = _run(tmp_path / "before")
    other_checks = _run(tmp_path / "after", value=9.0)
    assert compare(before, other_checks, "demo") != []
    assert compare(before, other_checks, "demo", tables_only=True) == []
    assert compare(before, _run(tmp_path / "slower", seconds=5.0), "demo", tables_only=True) == [
        "results.csv column 'seconds' differs"
    ]


def test_compare_refuses_a_folder_without_the_run(tmp_path: Path):
    """A missing run (wrong folder, a chapter not run) is an error, never 'no difference'."""
    before = _run(tmp_path / "before")
    (tmp_path / "empty").mkdir()
    for tables_only in (False, True):
        with pytest.raises(FileNotFoundError, match="nothing to compare"):
            compare(before, tmp_path / "empty", "demo", tables_only=tables_only)
        with pytest.raises(FileNotFoundError, match="nothing to compare"):
            compare(tmp_path / "missing", before, "demo", tables_only=tables_only)
