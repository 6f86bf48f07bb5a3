"""Noise calibration on the safe side: the returned scale never exceeds its privacy target.

Root finders (``brentq``) return a point within a tolerance of the root, on either side of it: a
noise scale a hair below the root spends a hair more than the target (the DP-SGD calibration of
``functional_noise`` returned epsilon 0.45000617 for a target of 0.45). :func:`calibrate_decreasing`
bisects with a bracket ``[lo, hi]`` that always has ``epsilon_of(hi) <= target`` and returns ``hi``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from privrl.core.validation import check_positive


def calibrate_decreasing(
    epsilon_of: Callable[[float], float],
    target: float,
    lo: float = 0.05,
    hi: float = 1.0,
    rtol: float = 1e-4,
    max_scale: float = 1e6,
    min_scale: float = 1e-6,
) -> float:
    """Smallest scale ``s`` (to relative tolerance ``rtol``) with ``epsilon_of(s) <= target``.

    ``epsilon_of`` must be non-increasing in the scale (more noise, less privacy loss). The bracket
    is widened geometrically (factor 4) until ``epsilon_of(hi) <= target < epsilon_of(lo)``, then
    bisected in ``log s``; the returned value is the bracket's safe end, so ``epsilon_of(result) <=
    target`` holds exactly as evaluated. Raises ``ValueError`` if no scale up to ``max_scale``
    meets the target; returns ``min_scale``'s safe neighbour if even tiny noise does.
    """
    target = check_positive(target, "target")
    lo, hi = check_positive(lo, "lo"), check_positive(hi, "hi")
    rtol = check_positive(rtol, "rtol")
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got {lo} >= {hi}")
    while epsilon_of(hi) > target:
        lo, hi = hi, hi * 4.0
        if hi > max_scale:
            raise ValueError(f"target epsilon {target} unreachable with a scale up to {max_scale}")
    while epsilon_of(lo) <= target:
        hi, lo = lo, lo / 4.0
        if lo < min_scale:
            return hi
    while hi / lo > 1.0 + rtol:
        mid = math.sqrt(lo * hi)
        if epsilon_of(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi
