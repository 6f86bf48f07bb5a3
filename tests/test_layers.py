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
    code = ("import sys, privrl.core.accounting, privrl.core.accounting.dirichlet, privrl.core.accounting.subsampled, "
            "privrl.core.accounting.functional_noise, privrl.core.accounting.local; "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
