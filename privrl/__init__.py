"""privrl: differentially private reinforcement learning, reproduced.

The library is organised by concept: :mod:`privrl.core.mechanisms` (noise-adding primitives),
:mod:`privrl.core.accounting` (every (epsilon, delta) the book reports), :mod:`privrl.core.envs`
(environments), :mod:`privrl.core.algorithms` (estimators and learners), :mod:`privrl.experiments`
(one module per paper: profiles and run functions returning tidy data), :mod:`privrl.chapter.plotting`,
:mod:`privrl.chapter.sweep` (cached, resumable (config, seed) grids on any executor) and
:mod:`privrl.chapter.report` (what a notebook writes next to itself).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("privrl")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
