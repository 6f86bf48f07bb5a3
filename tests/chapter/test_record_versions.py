"""A record of versioned run functions is judged stale by their results versions, not by every
edit to their code closure (a refactor that changes no number keeps the tags)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privrl.chapter import records
from privrl.chapter.records import (
    SOURCE_ROOT,
    RunRecord,
    declared_versions,
    recorded_run,
    versions_changed,
)

PAIR = "privrl.papers.wang2019.pair"
RUN = f"{PAIR}.run_pair_curve"


def test_declared_versions_are_those_of_the_run_functions_in_the_closure():
    assert declared_versions([PAIR]) == {RUN: "1"}
    frontier = declared_versions(["privrl.papers.frontier.runs"])  # through its imports
    assert set(frontier) == {
        f"privrl.papers.frontier.trials.{f}"
        for f in ("run_calibration", "run_frontier", "run_ssp_lstd", "run_tuning")
    }
    assert declared_versions(["privrl.papers.ono2020.runs"]) == {}


def test_a_changed_or_missing_tag_makes_the_record_stale():
    assert versions_changed({RUN: "1"}, [PAIR])[0] is False
    stale, changed, reason = versions_changed({RUN: "0"}, [PAIR])
    assert stale is True and changed == (RUN,) and "(0 -> 1)" in reason
    stale, changed, _ = versions_changed({RUN: "1", f"{PAIR}.gone": "1"}, [PAIR])
    assert stale is True and changed == (f"{PAIR}.gone",)
    assert versions_changed({RUN: "1"}, ["privrl.no_such_module"])[0] is True  # tag gone


def test_a_module_that_cannot_be_imported_leaves_staleness_unknown_and_a_broken_one_raises(
    monkeypatch,
):
    def missing(*args):
        raise ModuleNotFoundError("No module named 'numba'")

    monkeypatch.setattr(records, "declared_versions", missing)
    stale, changed, reason = versions_changed({RUN: "1"}, [PAIR])
    assert stale is None and changed == () and "numba" in reason

    def broken(*args):
        raise ZeroDivisionError("a bug at import")

    monkeypatch.setattr(records, "declared_versions", broken)
    with pytest.raises(ZeroDivisionError, match="a bug at import"):
        versions_changed({RUN: "1"}, [PAIR])


def test_a_record_keeps_its_versions_and_is_judged_by_them(tmp_path: Path):
    record = RunRecord.now(
        notebook="wang2019",
        profile="pair",
        parameters={},
        wall_time_s=1.0,
        git_commit="0" * 12,
        git_dirty=False,
        produced_by=[PAIR],
    ).as_dict()
    assert record["results_versions"] == {RUN: "1"}
    results = tmp_path / "book" / "measurements" / "results"
    results.mkdir(parents=True)
    (results / "wang2019-pair.json").write_text(json.dumps({"record": record, "summary": {}}))
    run = recorded_run("wang2019", "pair", root=tmp_path, source_root=SOURCE_ROOT)
    # a commit unknown to git would leave a closure diff undecided: the tags decide it
    assert run.stale is False and "results versions unchanged (run_pair_curve 1)" in run.provenance
    (results / "wang2019-pair.json").write_text(
        json.dumps({"record": {**record, "results_versions": {RUN: "0"}}, "summary": {}})
    )
    assert recorded_run("wang2019", "pair", root=tmp_path, source_root=SOURCE_ROOT).stale is True


def test_a_records_command_line_can_be_pasted_back():
    from privrl.chapter.records import command_line

    assert command_line("privrl.papers.x", ["record", "--note", "two words"]) == (
        "python -m privrl.papers.x record --note 'two words'"
    )


def test_the_top_package_is_inert_and_outside_every_closure():
    """privrl/__init__.py holds the version and the lazy re-export of privrl.api (by name): it
    imports no privrl module, so it computes no number and an edit of the API list (privrl.compose
    made seven records stale) leaves the records current. Should it ever import one, this
    fails and it must go back into the closures."""
    import ast

    tree = ast.parse((SOURCE_ROOT / "privrl" / "__init__.py").read_text())
    imported = [
        n
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for n in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
    ]
    assert not [n for n in imported if n == "privrl" or n.startswith("privrl.")], imported
    assert not records.computes_numbers("privrl")
    assert records.computes_numbers("privrl.core") and records.computes_numbers("privrl.api")
    sources = records.experiment_sources("balle2016")
    assert Path("privrl/__init__.py") not in sources
    assert Path("privrl/core/__init__.py") in sources


def test_every_record_in_the_book_is_current():
    """A stale record is labelled so on its pages, truthfully, but a referee then reads numbers
    the code may no longer compute: a change to a record's code closure re-stamps the record
    (``python -m privrl.pipeline.restamp``, on quick runs before and after) or re-records it in
    the same change. (The API list in privrl/__init__.py once left seven records stale unseen.)"""
    stale = {}
    for path in sorted((SOURCE_ROOT / "book" / "measurements").glob("*.json")):
        name, _, profile = path.stem.partition("-")
        run = recorded_run(name, profile)
        if run.status != "current":
            stale[path.stem] = run.stale_reason
    assert not stale, stale
