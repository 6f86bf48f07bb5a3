"""Figure helpers shared by the chapters, and the book's house style for figures.

Importing this module applies the house style (:data:`HOUSE_STYLE`, :func:`apply_house_style`):
fonts that stay at least :data:`MIN_DISPLAY_PT` points when the book shows a figure
:data:`DISPLAY_WIDTH_PX` pixels wide, readable tick spacing (the automatic locator thins ticks to
the font size; light grid), constrained layout, and, inside a Jupyter kernel, SVG output whose
text is enlarged where a wide figure would be scaled below that floor (:func:`enforce_min_font`).
Helpers: :func:`axis_label` / :func:`label_axes` (axes in words with units), :func:`new_figure`,
:func:`band_plot` / :func:`plot_bands` (a centre line over seeds with an uncertainty band), and for
figures a referee can read: :func:`legend_outside` (a legend of at most 8 entries beside
the data, never on it; like :func:`legend_below`, it holds every entry that names a method to the
method's colour, :func:`privrl.chapter.colours.check_legend`) and
:func:`in_words` (a code name, e.g. a panel's domain, in words), and :func:`mark_paper` (a
number the paper states, drawn beside ours in one style on every figure).
"""

from __future__ import annotations

from typing import Any, Literal

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text

from privrl.chapter.colours import check_legend
from privrl.core.validation import check_choice

Err = Literal["se", "std", "quantile"]

#: Width, in CSS pixels, at which the book shows a chapter figure (the text column).
DISPLAY_WIDTH_PX = 700
#: Smallest size, in points at display size, of any text in a figure.
MIN_DISPLAY_PT = 8.0
#: CSS pixels per inch: an SVG ``w`` inches wide is shown ``96 w`` pixels wide, or scaled down.
CSS_PX_PER_INCH = 96

#: Matplotlib settings of the house style. At the default size (6.4 in, shown 614 px wide) every
#: font is at least 9 pt; tick labels are 9 pt, so the automatic locator keeps them apart.
HOUSE_STYLE: dict[str, Any] = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 100,
    "savefig.dpi": 200,  # a PNG, where one is saved, at twice the screen resolution
    "figure.constrained_layout.use": True,
    "font.size": 10.0,
    "axes.titlesize": 11.0,
    "axes.labelsize": 10.0,
    "xtick.labelsize": 9.0,
    "ytick.labelsize": 9.0,
    "legend.fontsize": 9.0,
    "legend.title_fontsize": 9.0,
    "figure.titlesize": 12.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "axes.formatter.use_mathtext": True,
    "svg.fonttype": "path",  # glyphs as paths: the SVG needs no font on the reader's machine
    "svg.hashsalt": "privrl",  # deterministic element ids: the same figure gives the same file
}


def display_scale(fig: Figure, display_width_px: float = DISPLAY_WIDTH_PX) -> float:
    """Factor by which the book scales ``fig``: ``min(1, display_width_px / (96 * width))``."""
    width_px = fig.get_figwidth() * CSS_PX_PER_INCH
    return min(1.0, display_width_px / width_px)


def enforce_min_font(
    fig: Figure, min_pt: float = MIN_DISPLAY_PT, display_width_px: float = DISPLAY_WIDTH_PX
) -> Figure:
    """Enlarge every text of ``fig`` (titles, labels, tick labels, legends, annotations) that the
    book would show below ``min_pt`` points, i.e. whose size times :func:`display_scale` is
    below ``min_pt``. Returns ``fig``; the layout engine makes room at the next draw."""
    if min_pt <= 0:
        raise ValueError(f"min_pt must be positive, got {min_pt}")
    floor = min_pt / display_scale(fig, display_width_px)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = axis.get_ticklabels(which="both")
            if labels and min(float(t.get_fontsize()) for t in labels) < floor:
                ax.tick_params(axis="x" if axis is ax.xaxis else "y", which="both", labelsize=floor)
    for text in fig.findobj(Text):
        if text.get_text() and float(text.get_fontsize()) < floor:
            text.set_fontsize(floor)
    return fig


def _svg_with_min_font(fig: Figure) -> str | None:
    from IPython.core.pylabtools import print_figure

    return print_figure(enforce_min_font(fig), fmt="svg")


def apply_house_style() -> bool:
    """Set :data:`HOUSE_STYLE`; inside a Jupyter kernel also make figures inline SVG with the
    font floor of :func:`enforce_min_font`. Returns whether the kernel's formatter was set."""
    mpl.rcParams.update(HOUSE_STYLE)  # type: ignore[arg-type]
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    from matplotlib_inline.backend_inline import InlineBackend, set_matplotlib_formats

    set_matplotlib_formats("svg")
    InlineBackend.instance().figure_formats = {"svg"}
    shell.display_formatter.formatters["image/svg+xml"].for_type(Figure, _svg_with_min_font)
    return True


def axis_label(quantity: str, unit: str | None = None) -> str:
    """An axis label in words with its unit: ``axis_label("Wall time", "s")`` is
    ``"Wall time (s)"``; no unit for a dimensionless quantity."""
    if not quantity.strip():
        raise ValueError("quantity must name what the axis shows, in words")
    return f"{quantity} ({unit})" if unit else quantity


def label_axes(
    ax: plt.Axes,
    x: str,
    y: str,
    *,
    x_unit: str | None = None,
    y_unit: str | None = None,
    title: str | None = None,
) -> plt.Axes:
    """Label both axes in words with units (:func:`axis_label`), and optionally the title."""
    ax.set_xlabel(axis_label(x, x_unit))
    ax.set_ylabel(axis_label(y, y_unit))
    if title is not None:
        ax.set_title(title)
    return ax


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
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    **line_kw,
) -> plt.Axes:
    """Plot the centre of ``y`` against ``x`` (one line per ``hue`` value) with a shaded band.

    ``err``: standard error ("se"), standard deviation ("std") or the ``quantiles`` band.
    ``label_fmt`` formats the hue value, e.g. ``"sigma = {}"``. ``xlabel``/``ylabel`` label the
    axes in words with units (default: the column names).
    """
    stats = summarise(df, x, y, [hue] if hue else None, err, center, quantiles)
    plot_bands(ax, stats, x, hue, label_fmt, xlabel=xlabel, **line_kw)
    ax.set_ylabel(ylabel or y)
    return ax


def plot_bands(
    ax: plt.Axes,
    stats: pd.DataFrame,
    x: str,
    hue: str | None = None,
    label_fmt: str | None = None,
    *,
    xlabel: str | None = None,
    **line_kw,
) -> plt.Axes:
    """Draw already summarised curves (columns ``x``, ``center``, ``lower``, ``upper``, as
    :func:`summarise` returns or as stored in a recorded run): one line per ``hue`` value.
    ``xlabel`` labels the x axis in words (default: the column name)."""
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
    ax.set_xlabel(xlabel or x)
    return ax


#: Most entries a legend may have.
MAX_LEGEND_ENTRIES = 8


def legend_outside(fig_or_ax: Figure | Axes, max_entries: int = MAX_LEGEND_ENTRIES) -> Legend:
    """One legend beside the data, never on it: right of an ``Axes``'s data area, or right of
    every axes of a ``Figure`` (its axes' labelled artists, each label once; the figure's layout
    engine makes room). Raises ``ValueError`` when there are more than ``max_entries`` entries
    (at most :data:`MAX_LEGEND_ENTRIES`) or none: split the figure, or label fewer lines."""
    if not 1 <= max_entries <= MAX_LEGEND_ENTRIES:
        raise ValueError(f"max_entries must be in 1..{MAX_LEGEND_ENTRIES}, got {max_entries}")
    axes = fig_or_ax.axes if isinstance(fig_or_ax, Figure) else [fig_or_ax]
    entries: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if not entries or len(entries) > max_entries:
        raise ValueError(
            f"fig_or_ax: {len(entries)} legend entries, the legend takes 1 to "
            f"{max_entries}: {list(entries)}"
        )
    check_legend((h, label) for label, h in entries.items())
    for ax in axes:
        if (old := ax.get_legend()) is not None:
            old.remove()
    handles, labels = list(entries.values()), list(entries)
    if isinstance(fig_or_ax, Figure):
        return fig_or_ax.legend(handles, labels, loc="outside right upper")
    return fig_or_ax.legend(
        handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0
    )


def legend_of(
    fig: Figure, handles: list[Any], *, loc: str = "outside lower center", ncol: int = 1
) -> Legend:
    """One legend of hand-made ``handles`` (each labelled) for ``fig`` at ``loc`` (outside the
    data), held to the book's colours (:func:`privrl.chapter.colours.check_legend`). Raises
    ``ValueError`` for none or more than :data:`MAX_LEGEND_ENTRIES` handles."""
    if not 1 <= len(handles) <= MAX_LEGEND_ENTRIES:
        raise ValueError(f"handles: {len(handles)} legend entries, at most {MAX_LEGEND_ENTRIES}")
    check_legend((h, h.get_label()) for h in handles)
    placement: dict[str, Any] = {"loc": loc, "ncol": ncol}
    return fig.legend(handles=handles, **placement)


def legend_below(fig: Figure, ncol: int = 2) -> Legend:
    """One legend under the axes of ``fig`` (outside the data; the axes keep their width), each
    label once. Raises ``ValueError`` for none or more than :data:`MAX_LEGEND_ENTRIES` entries."""
    entries: dict[str, Any] = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if not 1 <= len(entries) <= MAX_LEGEND_ENTRIES:
        raise ValueError(f"fig: {len(entries)} legend entries, at most {MAX_LEGEND_ENTRIES}")
    check_legend((h, label) for label, h in entries.items())
    return fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncol=ncol)


#: Code names the chapters draw (domains, methods, releases, variants) in words.
IN_WORDS: dict[str, str] = {
    # xie2019's domains
    "mountain_car_on": "Mountain Car, on-policy",
    "mountain_car_off": "Mountain Car, off-policy",
    "mountain_car": "Mountain Car",
    "hiv": "HIV treatment",
    # wang2019's methods
    "functional": "functional noise (Algorithm 1)",
    "output": "output perturbation",
    "input": "input perturbation",
    "dpsgd": "DP-SGD",
    "none": "no privacy",
    # ono2020's mechanisms and variants
    "laplace": "Laplace",
    "prs": "PRS",
    "paper": "the paper's set-up",
    "no_clip": "no clipping",
    "clip100": "clip C = 100",
    "adam_sample": "Adam, sampled actions",
    "ablation_sampled": "sampled actions",
    "ablation_greedy_rmsprop": "greedy actions, RMSProp",
    "ablation_sampled_no_clip": "sampled actions, no clipping",
    "ablation_clipped_reference": "reference set-up, clipped",
    # the Audits chapter's releases
    "gaussian": "Gaussian mechanism",
    "dp_lsw": "DP-LSW",
    "dp_lsl": "DP-LSL",
    "gpope": "GPOPE",
    "gpope_sampled": "GPOPE, sampled trajectories",
    "gp_update": "GP update",
    "input_perturbation": "input perturbation",
    "dpsgd_step": "DP-SGD, one step",
    "dpsgd_run": "DP-SGD, whole run",
    "dpsgd_poisson": "DP-SGD, Poisson sampling",
    "pgc_laplace": "PGC, Laplace",
    "pgc_laplace_dense": "PGC, Laplace, dense gradient",
    "pgc_laplace_rounds": "PGC, Laplace, several rounds",
    "pgc_bit_flip": "PGC, bit flip",
    "pgc_prs": "PGC, PRS",
    "dirichlet": "Dirichlet mechanism",
    "ssp_lstd": "SSP-LSTD",
}


def in_words(code_name: str) -> str:
    """``code_name`` in words (:data:`IN_WORDS`): ``in_words("mountain_car_off")`` is
    ``"Mountain Car, off-policy"``. A name without an underscore and not in the table is
    returned as it is ("GPOPE"); one with an underscore is a ``ValueError`` naming it (a code
    name must not reach a page)."""
    if code_name in IN_WORDS:
        return IN_WORDS[code_name]
    if "_" in code_name:
        raise ValueError(f"code_name: no words for {code_name!r}; add it to IN_WORDS")
    return code_name


#: How a number the paper states is drawn on every figure: a hollow black marker (a point) or a
#: dashed black line (a level), labelled "paper" (or "paper: <what>") in the legend.
PAPER_STYLE: dict[str, Any] = {
    "color": "black",
    "markerfacecolor": "none",
    "marker": "D",
    "markersize": 7,
    "linestyle": "none",
    "zorder": 5,
}


def mark_paper(
    ax: Axes,
    x: Any = None,
    y: Any = None,
    *,
    label: str = "paper",
    orientation: Literal["point", "hline", "vline"] = "point",
) -> None:
    """Draw a number the paper states (read from ``book/paper_numbers``, see
    :mod:`privrl.chapter.paper_numbers`) on ``ax`` in :data:`PAPER_STYLE`: hollow black
    diamonds at ``(x, y)`` (scalars or sequences of one length), or a dashed black level at
    ``y`` (``"hline"``) or ``x`` (``"vline"``). ``label`` goes to the legend; the caption
    should say where the paper states it."""
    check_choice(orientation, "orientation", ("point", "hline", "vline"))
    if orientation == "hline":
        ax.axhline(float(y), color="black", linestyle="--", linewidth=1.2, label=label, zorder=5)
        return
    if orientation == "vline":
        ax.axvline(float(x), color="black", linestyle="--", linewidth=1.2, label=label, zorder=5)
        return
    xs, ys = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    if xs.shape != ys.shape:
        raise ValueError(f"x and y: shapes {xs.shape} and {ys.shape} differ")
    ax.plot(xs, ys, label=label, **PAPER_STYLE)


apply_house_style()
