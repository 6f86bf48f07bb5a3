"""The import graph runs one way, and the accountants load without torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    """import-linter's layers contract of pyproject.toml (accounting never imports mechanisms, ...)."""
    exe = Path(sys.executable).parent / "lint-imports"
    out = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_importing_the_accountants_does_not_load_torch():
    code = (
        "import sys, privrl.core.accounting, privrl.core.accounting.dirichlet, privrl.core.accounting.subsampled, "
        "privrl.core.accounting.functional_noise, privrl.core.accounting.local; "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _contracts() -> list[dict]:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def _modules_of(package: str) -> set[str]:
    """The modules and subpackages directly under ``privrl/<package>/`` (dotted names)."""
    folder = ROOT / "privrl" / package
    modules = {f"privrl.{package}.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__"}
    return modules | {f"privrl.{package}.{p.parent.name}" for p in folder.glob("*/__init__.py")}


def test_every_module_of_a_layered_package_is_in_its_contract():
    """The chapter layer, the pipeline, the public API and the core list every module (or
    subpackage) in their layers contract: a module left out is checked by no contract."""
    listed = {
        name.strip()
        for c in _contracts()
        if c["type"] == "layers"
        for layer in c["layers"]
        for name in layer.split("|")
    }
    for package in ("chapter", "pipeline", "api", "core"):
        modules = _modules_of(package)
        assert modules <= listed, sorted(modules - listed)


def test_the_top_level_contract_is_exhaustive_and_every_paper_is_independent():
    """The top-level layers contract is exhaustive over ``privrl`` (import-linter itself fails on
    a subpackage it does not list), and the independence contract names the chapters by package
    (``privrl.papers.*``, or every paper package by name): a new paper, or a new module inside
    one (its ``state.py``, ``sources.py``), is covered without editing the contract."""
    (top,) = [c for c in _contracts() if c.get("containers") == ["privrl"]]
    assert top["type"] == "layers" and top.get("exhaustive") is True, top
    subpackages = {p.parent.name for p in (ROOT / "privrl").glob("*/__init__.py")}
    assert set(top["layers"]) == subpackages, sorted(subpackages ^ set(top["layers"]))
    (independence,) = [c for c in _contracts() if c["type"] == "independence"]
    papers = _modules_of("papers")
    assert (
        independence["modules"] == ["privrl.papers.*"] or set(independence["modules"]) == papers
    ), sorted(papers ^ set(independence["modules"]))
