"""The light install: ``import privrl.api`` loads neither torch nor papermill nor Dask, and a
wheel built from the repository installs into a clean venv with the required dependencies only
(slow: it downloads or reuses them from pip's cache)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "papermill", "dask", "distributed", "ale_py", "matplotlib", "ipykernel")


def test_importing_the_api_loads_no_heavy_package():
    code = (
        "import sys, privrl, privrl.api; privrl.gpope; "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.stdout.strip() == "[]"


def test_the_package_ships_py_typed():
    assert (ROOT / "privrl" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in data["package-data"]["privrl"]


@pytest.mark.slow
def test_wheel_installs_with_required_dependencies_only(tmp_path):
    source, wheels = tmp_path / "source", tmp_path / "wheels"  # build outside the worktree
    shutil.copytree(
        ROOT / "privrl", source / "privrl", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(source),
        ],
        check=True,
    )
    (wheel,) = wheels.glob("privrl-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True)
    code = (
        "import sys, privrl.api, privrl, numpy as np; "
        "r = privrl.gaussian_mechanism([1.0], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0);"
        "assert r.epsilon == r.event.epsilon(r.delta); "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run(
        [str(python), "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path
    )
    assert out.stdout.strip() == "[]"
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.lower()
    for heavy in ("torch", "papermill", "dask", "ale-py", "matplotlib"):
        assert f"\n{heavy}==" not in f"\n{listed}", f"{heavy} was installed"
