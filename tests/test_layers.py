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


def test_every_module_of_a_layered_package_is_in_its_contract():
    """The chapter layer, the pipeline, the public API and the core list every module (or
    subpackage) in their layers contract: a module left out is checked by no contract."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    listed = {
        name.strip()
        for c in contracts["contracts"]
        if c["type"] == "layers"
        for layer in c["layers"]
        for name in layer.split("|")
    }
    for package in ("chapter", "pipeline", "api", "core"):
        folder = ROOT / "privrl" / package
        modules = {
            f"privrl.{package}.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__"
        }
        modules |= {f"privrl.{package}.{p.parent.name}" for p in folder.glob("*/__init__.py")}
        assert modules <= listed, sorted(modules - listed)
