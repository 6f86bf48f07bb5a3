"""The code base stays ruff-clean (the style rules in pyproject.toml), notebooks included, and
the notebooks stay thin: parameters, calls, figures, prose and checks (no definitions)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_CODE_LINES = 150


def test_ruff_check_passes():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "privrl", "tests", "benchmarks", "notebooks"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_are_thin(path):
    cells = json.loads(path.read_text())["cells"]
    code = [line for c in cells if c["cell_type"] == "code"
            for line in "".join(c["source"]).splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(code) < MAX_CODE_LINES, f"{path.name}: {len(code)} code lines"
    defs = [line for line in code if line.lstrip().startswith(("def ", "class ", "lambda "))]
    assert not defs, f"{path.name} defines {defs}: definitions belong in the library"
    printed = [line for line in code if any(w in line for w in ('"PASS', '"FAIL', "'PASS", "HOLDS"))]
    assert not printed, f"{path.name} prints a verdict instead of recording a check: {printed}"
    assert not any(c.get("outputs") for c in cells if c["cell_type"] == "code"), \
        f"{path.name} is committed with outputs"
