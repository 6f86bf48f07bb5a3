"""The book's "Use privrl in your own experiment" page: its two code cells (policy evaluation,
then a teacher's Dirichlet answer) are at most 25 lines each, import only privrl, and run (the
book build executes them too; here they run in CI without a build)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "use_privrl.md"


def _cells() -> list[str]:
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(cells) == 2
    return cells


def test_page_code_is_short_and_imports_only_privrl():
    for code in _cells():
        assert len(code.strip().splitlines()) <= 25
        assert max(len(line) for line in code.splitlines()) <= 80  # fits the column
    imports = re.findall(r"^\s*(?:import|from)\s+([\w.]+)", "".join(_cells()), flags=re.M)
    assert imports and all(m == "privrl" or m.startswith("privrl.") for m in imports)


def test_page_runs_and_reports_each_epsilon_from_its_event():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace: dict = {}
        for code in _cells():
            exec(compile(code, str(PAGE), "exec"), namespace)
    *lines, answer = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["DP-LSW", "GPOPE"]
    assert answer.startswith("answer [") and len(answer) <= 80
    assert 39.0 < float(re.search(r"epsilon = ([\d.]+) at delta = 1e-05", answer).group(1)) <= 40
    for line in lines:
        epsilon = float(re.search(r"epsilon = ([\d.]+)", line).group(1))
        assert 0.9 < epsilon <= 1.0
        assert float(re.search(r"largest error of the values ([\d.]+)", line).group(1)) < 0.5
