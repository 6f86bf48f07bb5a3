"""Figure helpers: summarised bands and drawing them (live or from a recorded summary)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from privrl.chapter.plotting import band_plot, new_figure, plot_bands, summarise  # noqa: E402


def _runs() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"algo": a, "seed": s, "x": x, "y": x * (1 + (a == "b")) + rng.normal()}
            for a in "ab" for s in range(5) for x in range(4)]  # fmt: skip
    return pd.DataFrame(rows)


def test_quantile_band_matches_pandas_quantiles():
    df = _runs()
    stats = summarise(df, "x", "y", by=["algo"], err="quantile", center="median")
    g = df[(df.algo == "b") & (df.x == 2)].y
    row = stats[(stats.algo == "b") & (stats.x == 2)].iloc[0]
    assert row.center == pytest.approx(g.median())
    assert (row.lower, row.upper) == pytest.approx((g.quantile(0.15), g.quantile(0.85)))


def test_plot_bands_draws_one_line_per_hue_and_equals_band_plot():
    df = _runs()
    _, axes = new_figure(1, 2)
    band_plot(axes[0, 0], df, "x", "y", hue="algo", err="quantile", center="median")
    stats = summarise(df, "x", "y", by=["algo"], err="quantile", center="median")
    plot_bands(axes[0, 1], stats, "x", hue="algo")
    live, recorded = axes[0, 0].get_lines(), axes[0, 1].get_lines()
    assert len(live) == len(recorded) == 2
    for a, b in zip(live, recorded, strict=True):
        np.testing.assert_allclose(a.get_ydata(), b.get_ydata())


def test_plot_bands_names_a_missing_column():
    _, axes = new_figure()
    with pytest.raises(ValueError, match="'upper'"):
        plot_bands(axes[0, 0], pd.DataFrame({"x": [1], "center": [1], "lower": [0]}), "x")


def test_house_style_is_applied_on_import():
    import matplotlib as mpl

    from privrl.chapter.plotting import HOUSE_STYLE

    for key in ("font.size", "xtick.labelsize", "legend.fontsize", "svg.fonttype"):
        assert mpl.rcParams[key] == HOUSE_STYLE[key]


def test_fonts_at_display_size_are_at_least_8pt():
    from matplotlib.text import Text

    from privrl.chapter.plotting import display_scale, enforce_min_font

    fig, axes = new_figure(1, 4, width=4.2)  # 16.8 in: shown at 700 px, scaled by 0.43
    for ax in axes[0]:
        ax.plot([0, 1], [0, 1], label="a")
        ax.set_title("panel", fontsize=5)
        ax.legend()
    scale = display_scale(fig)
    assert scale == pytest.approx(700 / (16.8 * 96))
    enforce_min_font(fig)
    fig.canvas.draw()
    texts = [t for t in fig.findobj(Text) if t.get_text()]
    ticks = [t for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()]
    assert ticks and texts
    assert min(t.get_fontsize() for t in texts + ticks) * scale >= 8 - 1e-9


def test_a_figure_shown_at_natural_size_keeps_its_fonts():
    from privrl.chapter.plotting import display_scale, enforce_min_font

    fig, axes = new_figure(1, 1, width=6.4)
    axes[0, 0].set_title("t", fontsize=9)
    assert display_scale(fig) == 1.0
    enforce_min_font(fig)
    assert axes[0, 0].title.get_fontsize() == 9


def test_axis_labels_in_words_with_units():
    from privrl.chapter.plotting import axis_label, label_axes

    assert axis_label("Wall time", "s") == "Wall time (s)"
    assert axis_label("Return") == "Return"
    with pytest.raises(ValueError, match="quantity"):
        axis_label(" ")
    _, axes = new_figure()
    label_axes(axes[0, 0], "Batch size", "Mean squared error", x_unit="trajectories")
    assert axes[0, 0].get_xlabel() == "Batch size (trajectories)"
    assert axes[0, 0].get_ylabel() == "Mean squared error"


def test_band_plot_labels_axes_in_words():
    _, axes = new_figure()
    band_plot(axes[0, 0], _runs(), "x", "y", hue="algo", xlabel="Episodes", ylabel="Return")
    assert (axes[0, 0].get_xlabel(), axes[0, 0].get_ylabel()) == ("Episodes", "Return")
