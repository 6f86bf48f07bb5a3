"""Figure helpers shared by the chapters: a centre line over seeds with an uncertainty band."""

from __future__ import annotations

from typing import Literal

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from privrl.validation import check_choice

Err = Literal["se", "std", "quantile"]


def new_figure(nrows: int = 1, ncols: int = 1, width: float = 4.2, height: float = 3.2, **kw):
    """A figure with ``nrows x ncols`` axes of a consistent size (returns ``fig, axes``)."""
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kw
    )
    return fig, axes


def summarise(
    df: pd.DataFrame,
    x: str,
    y: str,
    by: list[str] | None = None,
    err: Err = "se",
    center: Literal["mean", "median"] = "mean",
    quantiles: tuple[float, float] = (0.15, 0.85),
) -> pd.DataFrame:
    """Per (by..., x): centre, lower and upper band of ``y`` over the remaining rows (seeds)."""
    check_choice(err, "err", ("se", "std", "quantile"))
    check_choice(center, "center", ("mean", "median"))
    for col in [x, y, *(by or [])]:
        if col not in df.columns:
            raise ValueError(f"column {col!r} not in the data frame (columns: {list(df.columns)})")
    groups = df.groupby([*(by or []), x], sort=True)[y]
    out = groups.agg(["mean", "median", "std", "count"]).reset_index()
    c = out[center]
    if err == "quantile":
        out["lower"] = groups.quantile(quantiles[0]).to_numpy()
        out["upper"] = groups.quantile(quantiles[1]).to_numpy()
    else:
        half = out["std"].fillna(0.0)
        if err == "se":
            half = half / np.sqrt(out["count"])
        out["lower"], out["upper"] = c - half, c + half
    out["center"] = c
    return out


def band_plot(
    ax: plt.Axes,
    df: pd.DataFrame,
    x: str,
    y: str,
    hue: str | None = None,
    err: Err = "se",
    center: Literal["mean", "median"] = "mean",
    quantiles: tuple[float, float] = (0.15, 0.85),
    label_fmt: str | None = None,
    **line_kw,
) -> plt.Axes:
    """Plot the centre of ``y`` against ``x`` (one line per ``hue`` value) with a shaded band.

    ``err``: standard error ("se"), standard deviation ("std") or the ``quantiles`` band.
    ``label_fmt`` formats the hue value, e.g. ``"sigma = {}"``.
    """
    stats = summarise(df, x, y, [hue] if hue else None, err, center, quantiles)
    plot_bands(ax, stats, x, hue, label_fmt, **line_kw)
    ax.set_ylabel(y)
    return ax


def plot_bands(
    ax: plt.Axes,
    stats: pd.DataFrame,
    x: str,
    hue: str | None = None,
    label_fmt: str | None = None,
    **line_kw,
) -> plt.Axes:
    """Draw already summarised curves (columns ``x``, ``center``, ``lower``, ``upper``, as
    :func:`summarise` returns or as stored in a recorded run): one line per ``hue`` value."""
    for col in [x, "center", "lower", "upper", *([hue] if hue else [])]:
        if col not in stats.columns:
            raise ValueError(
                f"column {col!r} not in the summarised data (columns: {list(stats.columns)})"
            )
    groups = stats.groupby(hue, sort=False) if hue else [(None, stats)]
    for value, g in groups:
        label = (label_fmt or "{}").format(value) if hue else line_kw.pop("label", None)
        (line,) = ax.plot(g[x], g["center"], label=label, **line_kw)
        ax.fill_between(g[x], g["lower"], g["upper"], color=line.get_color(), alpha=0.2, lw=0)
    ax.set_xlabel(x)
    return ax
