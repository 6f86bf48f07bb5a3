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


def _api() -> Any:
    return importlib.import_module("privrl.api")


def __getattr__(name: str) -> Any:
    """``privrl.NAME`` for a name of :mod:`privrl.api`'s ``__all__`` (and ``privrl.__all__``:
    ``__version__`` and those names), imported on first use by its module name as a string: the
    code closures of recorded runs follow import statements only, and no chapter's closure should
    contain the whole API. A private or dunder name other than ``__all__`` never loads the API.
    Raises ``AttributeError`` for any other name."""
    if name == "__all__":
        return ["__version__", *_api().__all__]
    if not name.startswith("_") and name in _api().__all__:
        return getattr(_api(), name)
    raise AttributeError(f"module 'privrl' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_api().__all__])
