"""Input validation shared by every public function.

Each checker raises :class:`ValueError` whose message names the offending parameter, so a
researcher passing a bad value gets a clear error instead of a silent wrong answer or a
traceback from deep inside numpy.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TypeVar, cast

import numpy as np

T = TypeVar("T")


def _as_float(value: object, name: str) -> float:
    if isinstance(value, str | bytes):  # float("1") would succeed: a typo must not pass as data
        raise ValueError(f"{name} must be a real number, got the string {value!r}")
    if isinstance(value, np.complexfloating):  # float() would drop its imaginary part
        raise ValueError(f"{name} must be a real number, got the complex {value!r}")
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if math.isnan(out):
        raise ValueError(f"{name} must not be NaN")
    return out


def check_epsilon(epsilon: object, name: str = "epsilon", allow_inf: bool = False) -> float:
    """Return ``epsilon`` as a float after checking ``epsilon > 0`` (and finite unless allowed)."""
    eps = _as_float(epsilon, name)
    if eps <= 0:
        raise ValueError(f"{name} must be > 0, got {eps}")
    if math.isinf(eps) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {eps}")
    return eps


def check_delta(delta: object, name: str = "delta", allow_zero: bool = False) -> float:
    """Return ``delta`` as a float after checking ``0 < delta < 1`` (``0 <= delta`` if allowed)."""
    d = _as_float(delta, name)
    low_ok = d >= 0 if allow_zero else d > 0
    if not (low_ok and d < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {d}")
    return d


def check_nonnegative(value: object, name: str) -> float:
    """Return ``value`` as a float after checking it is finite and ``>= 0`` (e.g. a sensitivity)."""
    v = _as_float(value, name)
    if v < 0 or math.isinf(v):
        raise ValueError(f"{name} must be finite and >= 0, got {v}")
    return v


def check_finite(value: object, name: str) -> float:
    """Return ``value`` as a float after checking it is finite."""
    v = _as_float(value, name)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def check_positive(value: object, name: str, allow_inf: bool = False) -> float:
    """Return ``value`` as a float after checking it is ``> 0`` (and finite unless allowed)."""
    v = _as_float(value, name)
    if v <= 0 or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be {'' if allow_inf else 'finite and '}> 0, got {v}")
    return v


def check_probability(value: object, name: str, open_interval: bool = False) -> float:
    """Return ``value`` after checking it lies in [0, 1] (or (0, 1) if ``open_interval``)."""
    v = _as_float(value, name)
    ok = 0 < v < 1 if open_interval else 0 <= v <= 1
    if not ok:
        raise ValueError(f"{name} must lie in {'(0, 1)' if open_interval else '[0, 1]'}, got {v}")
    return v


def check_int(value: object, name: str, minimum: int | None = None) -> int:
    """Return ``value`` as an int after checking it is integral and ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    out = int(value)
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    return out


def _given_kind(value: object) -> str:
    """numpy's dtype kind of ``value`` as given: ``"U"`` for a string, ``"?"`` when numpy cannot
    make an array of it (a ragged list)."""
    if isinstance(value, str | bytes):
        return "U"
    try:
        return np.asarray(value).dtype.kind
    except (TypeError, ValueError, OverflowError):
        return "?"


def check_array(
    value: object,
    name: str,
    ndim: int | Sequence[int] | None = None,
    shape: tuple[int | None, ...] | None = None,
    finite: bool = True,
    dtype: type = float,
) -> np.ndarray:
    """Convert ``value`` to an array and check its dimensionality, shape and finiteness.

    ``shape`` may contain ``None`` for free axes, e.g. ``(None, 3)``. Strings are refused, not
    parsed (``np.asarray("1", dtype=float)`` would succeed), and so are complex numbers for a
    real ``dtype`` (numpy would drop their imaginary part with a mere warning).
    """
    kind = _given_kind(value)
    if kind == "c" and np.dtype(dtype).kind != "c":
        raise ValueError(f"{name} must be real, got complex numbers")
    try:
        if kind in "SU?":
            raise ValueError
        arr: np.ndarray = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(
            f"{name} must be array-like of {dtype.__name__} (a number, a list or "
            "an array, not strings or ragged lists)"
        ) from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(f"{name} must have ndim in {allowed}, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            s is not None and s != a for s, a in zip(shape, arr.shape, strict=True)
        ):
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if finite and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values")
    return arr


def check_choice(value: object, name: str, choices: Sequence[T]) -> T:
    """Return ``value`` after checking it is one of ``choices`` (typed as they are)."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return cast(T, value)


class ClippedDataWarning(RuntimeWarning):
    """Data lay beyond a public bound a privacy analysis assumes and were clipped (or projected)
    to it: the release keeps its guarantee, but it is computed from the clipped data, not the data
    given. The message names the bound only, never a statistic of the data."""


def clip_to_bound(
    values: np.ndarray, name: str, low: float, high: float, strict: bool = False
) -> np.ndarray:
    """``values`` clipped to ``[low, high]``, the bound a privacy analysis assumes of them.

    When no value lies outside, ``values`` itself is returned (nothing is copied or changed).
    Otherwise a :class:`ClippedDataWarning` names ``name`` and the public bound, never how many
    values were clipped or by how much (a message must not leak the data); with ``strict=True`` a
    ``ValueError`` is raised instead.
    """
    outside = (values < low) | (values > high)
    if not np.any(outside):
        return values
    message = (
        f"{name}: values lie outside the bound [{low:g}, {high:g}] the privacy analysis assumes"
    )
    warn_or_refuse(message, "clipped to it", strict)
    return np.clip(values, low, high)


def warn_or_refuse(message: str, remedy: str, strict: bool, stacklevel: int = 3) -> None:
    """The boundary's one convention for data beyond a bound an analysis assumes: a
    ``ValueError`` of ``message`` when ``strict``, else a :class:`ClippedDataWarning` of
    ``message`` and the ``remedy`` applied (``stacklevel`` as seen from the caller)."""
    if strict:
        raise ValueError(message)
    warnings.warn(f"{message}; {remedy}", ClippedDataWarning, stacklevel=stacklevel + 1)
