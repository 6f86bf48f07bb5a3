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


def _import_the_package() -> None:
    """Import every ``privrl`` module before any test: hypothesis also draws numeric constants
    from the project's modules already in ``sys.modules``, so without this the examples a property
    test draws would depend on which tests ran before it (in its process, under xdist too)."""
    import importlib
    import pkgutil

    import privrl

    for info in pkgutil.walk_packages(privrl.__path__, "privrl."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)


_import_the_package()

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


@pytest.fixture(scope="session")
def chapter_output(tmp_path_factory):
    """``chapter_output(name)``: the folder holding chapter ``name``'s quick run (its
    ``<name>.summary.json``, ``<name>.results.csv``): the book built for this session when there is
    one (``PRIVRL_BUILT_BOOK``, as ``bash dev.sh test`` sets), else that one chapter run once here.
    A test of a whole chapter run reads it instead of running the chapter again."""
    from privrl.pipeline.build import run_notebook

    reuse = os.environ.get("PRIVRL_BUILT_BOOK")
    runs: dict[str, Path] = {}

    def folder(name: str) -> Path:
        if reuse:
            return Path(reuse) / "src" / "notebooks"
        if name not in runs:
            runs[name] = tmp_path_factory.mktemp(name)
            run_notebook(name, runs[name], root=ROOT)
        return runs[name]

    return folder


@pytest.fixture(scope="session")
def book_summary(chapter_output):
    """``book_summary(name)``: the summary of chapter ``name``'s quick run (:func:`chapter_output`)."""
    import json

    return lambda name: json.loads((chapter_output(name) / f"{name}.summary.json").read_text())


# --- test time per module, for ``bash dev.sh test``'s timings (benchmarks/suite_times.py) --------

_MODULE_SECONDS: dict[str, float] = {}
_OUTCOMES: dict[str, int] = {}


def pytest_runtest_logreport(report) -> None:
    """Sum each module's setup, call and teardown time (under xdist the controller sees every
    worker's reports) and count the outcomes."""
    module = report.nodeid.split("::", 1)[0]
    _MODULE_SECONDS[module] = _MODULE_SECONDS.get(module, 0.0) + report.duration
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _OUTCOMES[report.outcome] = _OUTCOMES.get(report.outcome, 0) + 1


def pytest_sessionfinish(session, exitstatus) -> None:
    """With ``PRIVRL_TIMINGS`` set, write the per-module times and outcome counts there (the
    controlling process only)."""
    path = os.environ.get("PRIVRL_TIMINGS")
    if not path or hasattr(session.config, "workerinput"):
        return
    import json

    target = Path(path)
    run = json.loads(target.read_text()) if target.exists() else {}
    run["test_modules_s"] = {k: round(v, 2) for k, v in sorted(_MODULE_SECONDS.items())}
    run["tests"] = dict(sorted(_OUTCOMES.items()))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(run, indent=2) + "\n")
