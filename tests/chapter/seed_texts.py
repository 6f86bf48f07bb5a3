"""Where the five papers' seed texts are (``../shared/seeds/`` beside the repository, as CI
places it) and which of them each paper's citations may name; shared by the tests of
``book/paper_numbers`` and ``book/paper_claims``."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
#: The seed texts of each paper (wang2019: the abstract's text and the fuller one of its PDF).
SEED_FILES = {
    "balle2016": {"004_487bd153e9f1f780.txt"},
    "xie2019": {"001_c1f7640084b1acda.txt"},
    "wang2019": {"000_472acef880a8d09a.txt", "000_472acef880a8d09a.fulltext.txt"},
    "ono2020": {"002_fc5d72f368a5ccd6.txt"},
    "gohari2021": {"003_a55dfa193dcfe9bc.txt"},
}
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"no seed texts at {SEEDS}")
