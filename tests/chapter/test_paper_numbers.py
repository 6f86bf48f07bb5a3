"""The papers' stated numbers (``book/paper_numbers/*.yml``) are what the seed texts say.

Every quote is checked against the line it cites in ``../shared/seeds/`` (lines counted from 1 by
newline, as ``sed -n Np`` counts them; the wang2019 text has form feeds that ``splitlines`` would
count), every number written in digits appears in its quote, and the loader rejects a broken
file naming the field. ono2020's Tables 1-3 are compared cell by cell with the values the chapter
decides its claims against.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
import yaml
from seed_texts import ROOT, SEED_FILES, SEEDS, needs_seeds

from privrl.chapter.paper_numbers import (
    KINDS,
    PAPER_NUMBERS,
    Range,
    load,
    paper_number,
    paper_numbers,
)

PAPERS = ("balle2016", "xie2019", "wang2019", "ono2020", "gohari2021")
#: The seed text each paper's numbers cite (wang2019: the fuller text of the NeurIPS PDF).
NUMBER_FILES = {**SEED_FILES, "wang2019": {"000_472acef880a8d09a.fulltext.txt"}}


def _raw(name: str) -> list[dict]:
    return yaml.safe_load((ROOT / PAPER_NUMBERS / f"{name}.yml").read_text())["numbers"]


def _seed_lines(file: str) -> list[str]:
    return (SEEDS / file).read_text(encoding="utf-8").split("\n")


def _digit_forms(x: float) -> set[str]:
    """Ways a number is written in digits: 18377.0 as '18377' or '18377.0', 0.80 as '0.8'."""
    forms = {f"{x:g}", str(x)}
    if float(x).is_integer():
        forms.add(str(int(x)))
    return forms


def _finite_numbers(value) -> list[float]:
    if value is None:
        return []
    if isinstance(value, Range):
        parts = [value.low, value.high]
    elif isinstance(value, tuple):
        parts = list(value)
    else:
        parts = [value]
    return [x for x in parts if math.isfinite(x)]


@pytest.mark.parametrize("name", PAPERS)
def test_every_entry_has_the_required_fields_and_a_unique_key(name):
    raw = _raw(name)
    for entry in raw:
        for field in ("key", "what", "value", "setting", "where", "source", "kind"):
            assert field in entry, (name, entry.get("key"), field)
        assert set(entry["source"]) == {"file", "line", "quote"}, (name, entry["key"])
        assert entry["kind"] in KINDS
        assert entry["value"] is not None or entry.get("note"), (name, entry["key"])
    duplicated = [k for k, n in Counter(e["key"] for e in raw).items() if n > 1]
    assert not duplicated, (name, duplicated)
    assert [n.key for n in paper_numbers(name, ROOT)] == [e["key"] for e in raw]


@needs_seeds
@pytest.mark.parametrize("name", PAPERS)
def test_every_quote_is_on_the_line_it_cites(name):
    for number in paper_numbers(name, ROOT):
        src = number.source
        assert src.file in NUMBER_FILES[name], (number.key, src.file)
        lines = _seed_lines(src.file)
        assert src.line <= len(lines), (number.key, src.line, len(lines))
        assert src.quote in lines[src.line - 1], (number.key, src.line, src.quote)


@pytest.mark.parametrize("name", PAPERS)
def test_a_number_written_in_digits_is_in_its_quote(name):
    for number in paper_numbers(name, ROOT):
        if number.written_as is not None:
            assert number.written_as in number.source.quote, number.key
            continue
        for x in _finite_numbers(number.value):
            assert any(f in number.source.quote for f in _digit_forms(x)), (
                number.key,
                x,
                number.source.quote,
            )


def test_a_claim_without_number_names_its_figure_and_has_no_value():
    for name in PAPERS:
        for number in paper_numbers(name, ROOT):
            if number.kind == "claim_without_number":
                assert number.value is None and "Fig" in number.where, (name, number.key)


def test_ono2020_tables_are_complete_and_match_the_chapter():
    """Every cell of Tables 1-3 (PRS has no epsilon = inf cell) equals the chapter's copy."""
    from privrl.papers.ono2020.profile import PAPER_TABLES

    tables = {1: "median_fst", 2: "success_ratio", 3: "relative_auc"}
    seen = {}
    for number in paper_numbers("ono2020", ROOT):
        if number.key.startswith("table"):
            metric = tables[int(number.key[5])]
            cell = (number.setting["mechanism"], float(number.setting["epsilon"]))
            seen[(metric, cell)] = number.value
    assert len(seen) == 3 * 10
    for metric, printed in PAPER_TABLES.items():
        for cell, value in printed.items():
            assert seen.pop((metric, cell)) == value, (metric, cell)
    assert set(seen) == {(m, ("prs", math.inf)) for m in tables.values()}
    assert all(v is None for v in seen.values())


def test_paper_number_finds_a_key_and_names_a_missing_one():
    number = paper_number("gohari2021", "initial_epsilon", ROOT)
    assert number.value == 4.46 and number.kind == "stated_result"
    with pytest.raises(ValueError, match="key: .*'no_such_key'"):
        paper_number("gohari2021", "no_such_key", ROOT)
    with pytest.raises(ValueError, match="name: no book/paper_numbers/nobody.yml"):
        paper_numbers("nobody", ROOT)


# --- the loader rejects broken files, naming the field and the file ---------------------------

GOOD = {
    "key": "n_runs",
    "what": "Runs.",
    "value": 20,
    "setting": {"domain": "chain"},
    "where": "Section 6",
    "kind": "stated_setting",
    "source": {"file": "seed.txt", "line": 3, "quote": "over 20 independent runs"},
}


def _write(tmp_path: Path, *entries: dict, paper: str = "demo") -> Path:
    path = tmp_path / "demo.yml"
    path.write_text(yaml.safe_dump({"paper": paper, "numbers": list(entries)}, allow_unicode=True))
    return path


def test_the_loader_reads_a_good_file(tmp_path):
    (number,) = load(_write(tmp_path, GOOD), "demo")
    assert (number.paper, number.key, number.value, number.source.line) == ("demo", "n_runs", 20, 3)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"what": None}, r"numbers\[0\]\.what"),
        ({"source": {**GOOD["source"], "line": 0}}, r"numbers\[0\]\.source\.line"),
        ({"source": {**GOOD["source"], "line": "12"}}, r"numbers\[0\]\.source\.line"),
        ({"source": {**GOOD["source"], "quote": "20 runs"}}, r"numbers\[0\]\.source\.quote"),
        ({"source": {**GOOD["source"], "file": "../seed.txt"}}, r"numbers\[0\]\.source\.file"),
        ({"kind": "result"}, r"numbers\[0\]\.kind"),
        ({"key": "NRuns"}, r"numbers\[0\]\.key"),
        ({"value": None}, r"numbers\[0\]\.note"),
        ({"value": {"low": 2, "high": 1}}, r"numbers\[0\]\.value"),
        ({"value": "twenty"}, r"numbers\[0\]\.value"),
        ({"written_as": "thirty"}, r"numbers\[0\]\.written_as"),
        ({"kind": "claim_without_number"}, r"numbers\[0\]\.value"),
        ({"kind": "claim_without_number", "value": None, "note": "n"}, r"numbers\[0\]\.where"),
        ({"pages": 3}, r"numbers\[0\]\.pages"),
    ],
)
def test_the_loader_names_the_broken_field_and_the_file(tmp_path, change, field):
    entry = {**GOOD, **change}
    entry = {k: v for k, v in entry.items() if not (k == "what" and v is None)}
    path = _write(tmp_path, entry)
    with pytest.raises(ValueError, match=rf"demo\.yml: {field}"):
        load(path, "demo")


def test_the_loader_rejects_a_repeated_key_another_paper_and_broken_yaml(tmp_path):
    with pytest.raises(ValueError, match=r"demo\.yml: numbers\[1\]\.key 'n_runs' is not unique"):
        load(_write(tmp_path, GOOD, GOOD), "demo")
    with pytest.raises(ValueError, match=r"demo\.yml: field 'paper' must be 'demo'"):
        load(_write(tmp_path, GOOD, paper="other"), "demo")
    path = tmp_path / "demo.yml"
    path.write_text("paper: demo\nnumbers:\n  - key: a: b\n")
    with pytest.raises(ValueError, match=r"demo\.yml: not YAML"):
        load(path, "demo")
