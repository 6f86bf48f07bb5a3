"""Shared test configuration: headless matplotlib, repository root, the book built once per session."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest
from hypothesis import settings

matplotlib.use("Agg")

# Property tests draw the same examples on every run (a fixed seed, as every other test): a
# fresh clone's CI must not find, or miss, a failure by chance. Widen a search locally with
# ``--hypothesis-seed=N``.
settings.register_profile("privrl", derandomize=True)
settings.load_profile("privrl")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The whole book (quick profile) executed and built once per test session, exactly as
    ``bash dev.sh book`` does; returns its ``_build`` folder (``src/`` with the executed chapters
    and their summaries, ``html/``). The slow book and browser tests share it.

    ``PRIVRL_BUILT_BOOK=/path/to/_build`` reuses a book built earlier by ``privrl book``.
    """
    from privrl.pipeline.build import build_book

    reuse = os.environ.get("PRIVRL_BUILT_BOOK")
    if reuse:
        build = Path(reuse)
        if not (build / "html" / "index.html").exists():
            pytest.fail(f"PRIVRL_BUILT_BOOK={reuse} holds no built book (_build/html/index.html)")
        return build
    out = tmp_path_factory.mktemp("book")
    build_book(ROOT, output=out)
    return out / "_build"
