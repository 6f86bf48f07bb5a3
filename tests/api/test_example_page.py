"""The book's "Use privrl in your own experiment" page: its code is at most 25 lines, imports
only privrl, and runs (the book build executes it too; here it runs in CI without a build)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "use_privrl.md"


def _code() -> str:
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(cells) == 1
    return cells[0]


def test_page_code_is_short_and_imports_only_privrl():
    code = _code()
    assert len(code.strip().splitlines()) <= 25
    imports = re.findall(r"^\s*(?:import|from)\s+([\w.]+)", code, flags=re.M)
    assert imports and all(m == "privrl" or m.startswith("privrl.") for m in imports)


def test_page_runs_and_reports_each_epsilon_from_its_event():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_code(), str(PAGE), "exec"), {})
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["DP-LSW", "GPOPE"]
    for line in lines:
        epsilon = float(re.search(r"epsilon = ([\d.]+)", line).group(1))
        assert 0.9 < epsilon <= 1.0
        assert float(re.search(r"largest error of the values ([\d.]+)", line).group(1)) < 0.5
