"""The papers' claim sentences (``book/paper_claims/*.yml``) are what the seed texts say, and each
is decided by claim keys the chapter defines or carries a reason from the closed set.

Quotes are checked against the seed lines they cite (lines counted from 1 by newline; a quote
may run on over consecutive lines joined by one space); keys against each chapter's ``CLAIMS``.
"""

from __future__ import annotations

import importlib

import pytest
import yaml
from seed_texts import ROOT, SEED_FILES, SEEDS, needs_seeds

from privrl.chapter.paper_claims import (
    REASONS,
    coverage_counts,
    coverage_markdown,
    load,
    paper_claims,
    quote_matches,
)

PAPERS = tuple(n for n in SEED_FILES if (ROOT / "book" / "paper_claims" / f"{n}.yml").exists())


def _claim_keys(name: str) -> set[str]:
    return {c.key for c in importlib.import_module(f"privrl.papers.{name}.claims").CLAIMS}


def test_every_paper_has_a_claims_file():
    assert PAPERS == tuple(SEED_FILES)


@needs_seeds
@pytest.mark.parametrize("name", PAPERS)
def test_every_quote_is_on_the_lines_it_cites(name):
    for s in paper_claims(name, ROOT):
        assert s.source.file in SEED_FILES[name], s.source
        lines = (SEEDS / s.source.file).read_text(encoding="utf-8").split("\n")
        assert quote_matches(s.source.quote, lines, s.source.line), s.source


@pytest.mark.parametrize("name", PAPERS)
def test_every_key_is_a_claim_of_the_chapter_and_every_other_entry_has_a_reason(name):
    keys = _claim_keys(name)
    sentences = paper_claims(name, ROOT)
    for s in sentences:
        assert set(s.keys) <= keys, (s.source.quote, sorted(set(s.keys) - keys))
        assert s.keys or s.reason in REASONS, s.source.quote
    quotes = [(s.source.line, s.source.quote) for s in sentences]
    assert len(set(quotes)) == len(quotes)


def test_quote_matches_runs_over_consecutive_lines_only():
    lines = ["alpha beta", "gamma delta", "epsilon"]
    assert quote_matches("beta gamma", lines, 1)
    assert quote_matches("delta epsilon", lines, 2)
    assert not quote_matches("beta gamma", lines, 2)
    assert not quote_matches("alpha epsilon", lines, 1)


def test_coverage_counts_the_decided_and_lists_the_rest(tmp_path):
    sentences = paper_claims("balle2016", ROOT)
    text = coverage_markdown("balle2016", ROOT)
    decided = sum(bool(s.keys) for s in sentences)
    assert text.startswith(f":::{{dropdown}} {decided} of {len(sentences)} claim sentences")
    assert text.count("\n- ") == len(sentences) - decided and text.endswith(":::\n")
    assert coverage_counts("balle2016", ROOT) == (decided, len(sentences))
    assert coverage_markdown("nobody", ROOT) == ""


SOURCE = {"file": "seed.txt", "line": 3, "quote": "converges faster than the other"}


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"source": SOURCE}, r"sentences\[0\]\.keys"),
        ({"source": SOURCE, "keys": ["a"], "reason": REASONS[0]}, r"sentences\[0\]\.keys"),
        ({"source": SOURCE, "reason": "too hard"}, r"sentences\[0\]\.reason"),
        ({"source": SOURCE, "reason": REASONS[2]}, r"sentences\[0\]\.note"),
        ({"source": {**SOURCE, "line": 0}, "keys": ["a"]}, r"sentences\[0\]\.source\.line"),
        ({"source": {**SOURCE, "quote": "short"}, "keys": ["a"]}, r"sentences\[0\]\.source\.quote"),
        ({"source": SOURCE, "keys": ["a"], "where": "x"}, r"sentences\[0\]\.where"),
    ],
)
def test_the_loader_names_the_broken_field(tmp_path, entry, field):
    path = tmp_path / "demo.yml"
    path.write_text(yaml.safe_dump({"paper": "demo", "sentences": [entry]}))
    with pytest.raises(ValueError, match=rf"demo\.yml: {field}"):
        load(path, "demo")
    path.write_text(
        yaml.safe_dump({"paper": "demo", "sentences": [{"source": SOURCE, "keys": ["a"]}]})
    )
    assert load(path, "demo")[0].keys == ("a",)
