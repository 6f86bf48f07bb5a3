"""Noise calibration on the safe side: the returned value never exceeds its privacy target.

Root finders (``brentq``) return a point within a tolerance of the root, on either side of it: a
noise scale a hair below the root spends a hair more than the target (the DP-SGD calibration of
``functional_noise`` returned epsilon 0.45000617 for a target of 0.45). Both functions here bisect
a bracket whose *safe end* stays safe and return that end:

* :func:`bisect_safe`: the bisection itself, for any monotone predicate "this value is safe";
* :func:`calibrate_decreasing`: the smallest noise scale whose epsilon meets a target (the bracket
  is found by widening, then :func:`bisect_safe`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from privrl.core.validation import check_choice, check_positive

SafeEnd = Literal["hi", "lo"]
Midpoint = Literal["geometric", "arithmetic"]


def bisect_safe(
    is_safe: Callable[[float], bool],
    lo: float,
    hi: float,
    *,
    safe_end: SafeEnd = "hi",
    rtol: float = 1e-6,
    midpoint: Midpoint = "geometric",
) -> float:
    """Bisect ``[lo, hi]`` for the boundary of the safe set and return the bracket's safe end.

    The safe set is an interval ending at ``hi`` (``safe_end="hi"``: ``is_safe`` holds above the
    boundary) or starting at ``lo`` (``"lo"``); the caller guarantees that the safe end of the
    initial bracket is safe and the other end is not (or is the boundary's lower limit). Each
    step keeps that invariant, so ``is_safe(result)`` holds exactly as evaluated.

    ``midpoint="geometric"`` bisects in ``log x`` until ``hi / lo <= 1 + rtol``;
    ``"arithmetic"`` bisects in ``x`` until ``hi - lo <= rtol * hi``.
    """
    check_choice(safe_end, "safe_end", ("hi", "lo"))
    check_choice(midpoint, "midpoint", ("geometric", "arithmetic"))
    rtol = check_positive(rtol, "rtol")
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got {lo} >= {hi}")
    geometric = midpoint == "geometric"
    while (hi / lo > 1.0 + rtol) if geometric else (hi - lo > rtol * hi):
        mid = math.sqrt(lo * hi) if geometric else 0.5 * (lo + hi)
        if is_safe(mid) == (safe_end == "hi"):
            hi = mid
        else:
            lo = mid
    return hi if safe_end == "hi" else lo


def calibrate_decreasing(
    epsilon_of: Callable[[float], float],
    target: float,
    lo: float = 0.05,
    hi: float = 1.0,
    rtol: float = 1e-4,
    max_scale: float = 1e6,
    min_scale: float = 1e-6,
    growth: float = 4.0,
    midpoint: Midpoint = "geometric",
) -> float:
    """Smallest scale ``s`` (to relative tolerance ``rtol``) with ``epsilon_of(s) <= target``.

    ``epsilon_of`` must be non-increasing in the scale (more noise, less privacy loss). The bracket
    is widened geometrically (by ``growth``) until ``epsilon_of(hi) <= target < epsilon_of(lo)``,
    then bisected (:func:`bisect_safe`, in ``log s`` by default); the returned value is the
    bracket's safe end, so ``epsilon_of(result) <= target`` holds exactly as evaluated. Raises
    ``ValueError`` if no scale up to ``max_scale`` meets the target; returns ``min_scale``'s safe
    neighbour if even tiny noise does.
    """
    target = check_positive(target, "target")
    lo, hi = check_positive(lo, "lo"), check_positive(hi, "hi")
    growth = check_positive(growth, "growth")
    if not growth > 1:
        raise ValueError(f"growth must be > 1, got {growth}")
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got {lo} >= {hi}")
    widened = False
    while epsilon_of(hi) > target:
        lo, hi, widened = hi, hi * growth, True
        if hi > max_scale:
            raise ValueError(f"target epsilon {target} unreachable with a scale up to {max_scale}")
    # after widening upwards, lo is a scale already seen to miss the target
    while not widened and epsilon_of(lo) <= target:
        hi, lo = lo, lo / growth
        if lo < min_scale:
            return hi
    return bisect_safe(
        lambda s: epsilon_of(s) <= target, lo, hi, safe_end="hi", rtol=rtol, midpoint=midpoint
    )
