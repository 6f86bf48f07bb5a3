r"""Replay audits: the value a release adds its noise to, replayed on a dataset and on its
neighbours, against the sensitivity its noise is calibrated to.

A release adds noise calibrated to a sensitivity :math:`\Delta \ge \|f(D) - f(D')\|` of its
statistic :math:`f` over neighbours :math:`D, D'`. :func:`replay_audit` replays the statistic of
a :class:`ReplaySpec` on :math:`D` and on neighbours :math:`D'` (the spec's targeted ones, or
any given) with every random draw frozen, and raises :class:`ReplayAuditError`

1. when :math:`\|f(D) - f(D')\| > \Delta\,(1 + 10^{-9})` (row by row for a statistic whose rows
   are separate invocations of the noise; a data-dependent :math:`\Delta` read at :math:`D`) or
   the shape changes;
2. when the lines executed in privrl's code (and the statistic's file) differ between
   :math:`f(D)` and :math:`f(D')`: before the noise a release may loop over the data's public
   length but not branch on its values, except where it clipped its data
   (:class:`~privrl.core.validation.ClippedDataWarning`) or the spec states why
   (``data_dependent_flow``).

Caches of functions of public parameters are filled by one untraced run on :math:`D` first. The
audit is as strong as its neighbours.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal

import numpy as np

from privrl.core.validation import ClippedDataWarning, check_choice

Norm = Literal["l1", "l2", "linf"]
NORMS: dict[str, float] = {"l1": 1.0, "l2": 2.0, "linf": math.inf}

#: Relative slack of the value check: floating-point rounding of a statistic at its bound.
RTOL = 1e-9

#: privrl's own code, the code whose control flow is recorded.
PRIVRL_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class ReplayAuditError(AssertionError):
    """A replay audit failed: a neighbour moved the statistic beyond the sensitivity, or the
    control flow before the noise differed between a dataset and its neighbour."""


@dataclass(frozen=True)
class ReplaySpec:
    """What the replay audit needs of a release.

    ``statistic(data)``: the value the noise is added to (every random draw it uses frozen);
    ``sensitivity``: the bound the noise is calibrated to, a number or a function of the
    dataset (a local sensitivity bound, read at the dataset); ``norm``: ``"l1"``, ``"l2"`` or
    ``"linf"``; ``relation``: the neighbouring relation, in words; ``neighbours(data)``: the
    targeted neighbours of a dataset; ``rows``: each row of the statistic is a separate
    invocation of the noise, bounded by the sensitivity on its own; ``data_dependent_flow``: why
    the control flow before the noise depends on the data by design ("" when it must not: then
    it is checked)."""

    name: str
    statistic: Callable[[Any], Any]
    sensitivity: float | Callable[[Any], float]
    norm: Norm
    relation: str
    neighbours: Callable[[Any], Iterable[Any]]
    rows: bool = False
    data_dependent_flow: str = ""

    def __post_init__(self) -> None:
        check_choice(self.norm, "norm", tuple(NORMS))

    def bound(self, data: Any) -> float:
        """The sensitivity at ``data``."""
        s = self.sensitivity(data) if callable(self.sensitivity) else self.sensitivity
        return float(s)


@dataclass(frozen=True)
class ReplayReport:
    """A passed audit: ``pairs`` neighbours replayed, the largest move as a fraction of the
    sensitivity (``worst``, at most 1), and on how many pairs the control flow was compared
    (``flow_checked``: the others clipped their data, or the spec's flow is data-dependent)."""

    name: str
    pairs: int
    worst: float
    flow_checked: int


def distances(a: np.ndarray, b: np.ndarray, norm: Norm, rows: bool = False) -> np.ndarray:
    """``||a - b||`` in ``norm``: one distance, or one per row with ``rows``."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    flat = diff.reshape(diff.shape[0], -1) if rows and diff.ndim > 0 else diff.reshape(1, -1)
    with np.errstate(over="ignore"):
        return np.linalg.norm(flat, NORMS[norm], axis=1)


def traced(
    statistic: Callable[[Any], Any], data: Any, roots: tuple[str, ...]
) -> tuple[np.ndarray, tuple[tuple[str, int], ...], bool]:
    """``statistic(data)`` as an array, the lines it executed in files under ``roots`` (in
    order, calls included), and whether it warned that it clipped its data."""
    lines: list[tuple[str, int]] = []

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            lines.append((frame.f_code.co_filename, frame.f_lineno))
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if frame.f_code.co_filename.startswith(roots):
            lines.append((frame.f_code.co_filename, frame.f_lineno))
            return local
        return None

    previous = sys.gettrace()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sys.settrace(calls)
        try:
            value = statistic(data)
        finally:
            sys.settrace(previous)
    clipped = any(issubclass(w.category, ClippedDataWarning) for w in caught)
    return np.asarray(value, dtype=float), tuple(lines), clipped


def _where(lines: tuple[tuple[str, int], ...], other: tuple[tuple[str, int], ...]) -> str:
    """Where two traces part: the first line that differs, on each side."""
    i = next(
        (k for k, (x, y) in enumerate(zip(lines, other, strict=False)) if x != y),
        min(len(lines), len(other)),
    )

    def at(trace: tuple[tuple[str, int], ...]) -> str:
        if i >= len(trace):
            return "(the computation ended)"
        file, line = trace[i]
        return f"{os.path.relpath(file, os.path.dirname(PRIVRL_ROOT.rstrip(os.sep)))}:{line}"

    return f"line {i} of the trace: {at(lines)} on the dataset, {at(other)} on the neighbour"


def replay_audit(
    spec: ReplaySpec, data: Any, neighbours: Iterable[Any] | None = None
) -> ReplayReport:
    """Replay ``spec.statistic`` on ``data`` and on each neighbour (``spec.neighbours(data)``
    unless given) and check the value and the control flow (module text); a
    :class:`ReplayAuditError` names the first neighbour that fails and why."""
    if not isinstance(spec, ReplaySpec):
        raise ValueError(f"spec must be a ReplaySpec, got {type(spec).__name__}")
    own = getattr(getattr(spec.statistic, "__code__", None), "co_filename", None)
    roots = (PRIVRL_ROOT,) if own is None else (PRIVRL_ROOT, own)
    check_flow = not spec.data_dependent_flow
    spec.statistic(data)  # fills the caches of functions of public parameters
    base, base_lines, base_clipped = traced(spec.statistic, data, roots)
    bound = spec.bound(data)
    if not bound >= 0.0:
        raise ValueError(f"{spec.name}: its sensitivity at the dataset is {bound!r}")
    pairs = flow_checked = 0
    worst = 0.0
    for k, other in enumerate(spec.neighbours(data) if neighbours is None else neighbours):
        value, lines, clipped = traced(spec.statistic, other, roots)
        pairs += 1
        if value.shape != base.shape:
            raise ReplayAuditError(
                f"{spec.name}: neighbour {k} changed the statistic's shape "
                f"from {base.shape} to {value.shape}"
            )
        move = float(np.max(distances(base, value, spec.norm, spec.rows), initial=0.0))
        if not move <= bound * (1.0 + RTOL):
            raise ReplayAuditError(
                f"{spec.name}: neighbour {k} ({spec.relation}) moved the statistic by {move!r} "
                f"in {spec.norm}{' (one row)' if spec.rows else ''}, beyond the sensitivity "
                f"{bound!r} its noise is calibrated to"
            )
        worst = max(worst, move / bound if bound > 0 else 0.0)
        if check_flow and not (clipped or base_clipped):
            flow_checked += 1
            if lines != base_lines:
                raise ReplayAuditError(
                    f"{spec.name}: the control flow before the noise depends on the data: "
                    f"neighbour {k} ({spec.relation}) executes other lines, "
                    f"{_where(base_lines, lines)}"
                )
    return ReplayReport(spec.name, pairs, worst, flow_checked)


__all__ = [
    "NORMS",
    "RTOL",
    "ReplayAuditError",
    "ReplayReport",
    "ReplaySpec",
    "distances",
    "replay_audit",
    "traced",
]
