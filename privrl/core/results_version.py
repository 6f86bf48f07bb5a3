r"""Declared results versions of run functions: what a long sweep's cache keys a run by.

A run function ``f(config, seed) -> DataFrame`` decorated with ``@results_version(tag,
probe=...)`` promises: while ``tag`` is unchanged, ``f`` returns the same frame for the same
``(config, seed)``. :func:`privrl.chapter.sweep.run_sweep` then keys a cached run by (function,
config, seed, tag) instead of the source hash of the function's code closure, so edits that
change no number keep the cache. ``tests/chapter/test_results_versions.py`` holds the promise:
it runs every declared function on its ``probe`` (a small configuration and a seed index) and
compares the frame, column by column but ``ignore`` (e.g. wall-clock times), with the one
committed for that tag; a changed number fails until the tag is bumped.

A run function that declares ``checkpoints=True`` also accepts ``checkpoint=PATH``, a file it
saves its progress to and resumes from with the same result."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Every declared function, by ``module.qualname`` (filled on import of its module).
REGISTRY: dict[str, VersionedRun] = {}


@dataclass(frozen=True)
class VersionedRun:
    """A run function's declared ``tag``, the ``probe`` (config, seed index) its test runs, and the
    result columns the test ignores."""

    name: str
    tag: str
    probe: Mapping[str, Any]
    seed_index: int = 0
    ignore: tuple[str, ...] = field(default=())
    checkpoints: bool = False


def results_version(
    tag: str,
    *,
    probe: Mapping[str, Any],
    seed_index: int = 0,
    ignore: tuple[str, ...] = (),
    checkpoints: bool = False,
) -> Callable[[F], F]:
    """Declare ``tag`` as the results version of the decorated run function (module docstring);
    ``probe``: a configuration small enough for a unit test, ``seed_index``: the seed it runs at,
    ``ignore``: returned columns that are not results (e.g. ``("wall_time",)``),
    ``checkpoints``: the function takes ``checkpoint=PATH`` and resumes from it (module
    docstring)."""
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"tag must be a non-empty string, got {tag!r}")
    if not isinstance(probe, Mapping):
        raise ValueError(f"probe must be a mapping (a run configuration), got {type(probe)}")

    def declare(func: F) -> F:
        name = f"{func.__module__}.{func.__qualname__}"
        func.results_version = tag  # type: ignore[attr-defined]
        func.checkpoints = bool(checkpoints)  # type: ignore[attr-defined]
        REGISTRY[name] = VersionedRun(
            name, tag, dict(probe), int(seed_index), tuple(ignore), bool(checkpoints)
        )
        return func

    return declare


def declared_version(func: Callable[..., Any]) -> str | None:
    """The tag ``func`` declares, or ``None`` (then the sweep hashes its code closure)."""
    tag = getattr(func, "results_version", None)
    return tag if isinstance(tag, str) else None


def declares_checkpoints(func: Callable[..., Any]) -> bool:
    """Whether ``func`` declares that it takes ``checkpoint=PATH`` (:func:`results_version`)."""
    return getattr(func, "checkpoints", False) is True
