"""environment.yml is a valid conda environment listing what pyproject.toml needs; the CI entry
calls exactly the README's test command."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_lists_every_dependency():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["name"] == "privrl" and "dependencies" in env and env["channels"]
    listed: set[str] = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            listed |= {_name(d) for d in dep["pip"] if not d.startswith("-e")}
            assert "-e ." in dep["pip"], "the conda environment installs the package itself"
        else:
            listed.add(_name(dep))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = {_name(r) for r in project["dependencies"]}
    for extra in project["optional-dependencies"].values():
        needed |= {_name(r) for r in extra}
    if "dask" in needed:
        needed.add("distributed")  # dask[distributed]
    missing = needed - listed
    assert not missing, f"environment.yml misses {sorted(missing)}"
    assert any(d == "python=3.11" for d in env["dependencies"] if isinstance(d, str))


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    commands = re.findall(r"^(bash dev\.sh \w+)", readme, flags=re.M)
    assert "bash dev.sh test" in commands and "bash dev.sh book" in commands
    assert re.search(r"^bash dev\.sh test$", ci, flags=re.M)


def test_torch_is_pinned_to_the_cpu_build():
    """Torch is the ``deep`` extra, pinned; dev.sh installs that CPU build before the extras."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert extras["deep"] == ["torch==2.13.0"]
    assert '-m pip install --quiet "torch==2.13.0"' in (ROOT / "dev.sh").read_text()
