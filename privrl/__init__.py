"""privrl: differentially private reinforcement learning, reproduced.

The public API is :mod:`privrl.api`, whose names are re-exported here (``privrl.gpope``,
``privrl.Release``, ...; loaded on first use, so ``import privrl`` stays light). The library is
organised in layers, each importing only the ones below it: :mod:`privrl.core` (the maths:
mechanisms, accounting, environments, algorithms, the audit method), :mod:`privrl.api` (one call
per private release), :mod:`privrl.chapter` (what every chapter is made of: profile, report,
ledger, verdicts, sweep, plotting, records and the :class:`~privrl.chapter.skeleton.Chapter`
skeleton), :mod:`privrl.papers` (one sub-package per chapter) and :mod:`privrl.pipeline` (the
book).
"""

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("privrl")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"

#: The names of :mod:`privrl.api` (its ``__all__``), re-exported lazily.
API_NAMES = (
    "ClippedDataWarning",
    "NEIGHBOURS",
    "Release",
    "TabularMDP",
    "Trajectories",
    "clip_values",
    "compose",
    "dirichlet_teacher_answer",
    "dp_lsl",
    "dp_lsw",
    "functional_q_learning",
    "gaussian_mechanism",
    "gpope",
    "laplace_mechanism",
    "laplace_report",
    "sign_report",
    "ssp_lstd",
)

__all__ = ["__version__", *API_NAMES]


def __getattr__(name: str) -> Any:
    """``privrl.NAME`` for a name of :mod:`privrl.api`, imported on first use (by its module
    name as a string: the code closures of recorded runs follow import statements only, and no
    chapter's closure should contain the whole API)."""
    if name in API_NAMES:
        return getattr(importlib.import_module("privrl.api"), name)
    raise AttributeError(f"module 'privrl' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API_NAMES])
