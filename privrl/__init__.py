"""privrl: differentially private reinforcement learning, reproduced.

The library is organised in four layers, each importing only the ones below it:
:mod:`privrl.core` (the maths: mechanisms, accounting, environments, algorithms, the audit method),
:mod:`privrl.chapter` (what every chapter is made of: profile, report, ledger, verdicts, sweep,
plotting, records and the :class:`~privrl.chapter.skeleton.Chapter` skeleton),
:mod:`privrl.papers` (one sub-package per chapter) and :mod:`privrl.pipeline` (the book).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("privrl")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
