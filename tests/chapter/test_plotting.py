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
    rows = [
        {"algo": a, "seed": s, "x": x, "y": x * (1 + (a == "b")) + rng.normal()}
        for a in "ab"
        for s in range(5)
        for x in range(4)
    ]
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


# --- figures a referee can read (issue 35): colours, legends, words ------------------------------

# Machado, Oliveira and Fernandes (2009), severity 1: linear-RGB matrices simulating protanopia,
# deuteranopia and tritanopia.
CVD = {
    "protanopia": [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    "deuteranopia": [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ],
    "tritanopia": [
        [1.255528, -0.076749, -0.178779],
        [-0.078411, 0.930809, 0.147602],
        [0.004733, 0.691367, 0.303900],
    ],
}


def _lab(hex_colour: str, sim) -> np.ndarray:
    """CIELAB (D65) of ``hex_colour`` as seen through the simulation matrix ``sim``."""
    from matplotlib.colors import to_rgb

    c = np.array(to_rgb(hex_colour))
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    lin = np.clip(np.asarray(sim) @ lin, 0, 1)
    xyz = (
        np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
        @ lin
        / np.array([0.95047, 1.0, 1.08883])
    )
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _min_delta_e(palette) -> float:
    import itertools

    return min(
        float(np.linalg.norm(_lab(a, sim) - _lab(b, sim)))
        for sim in [np.eye(3), *CVD.values()]
        for a, b in itertools.combinations(palette, 2)
    )


def test_the_palette_stays_apart_under_colour_blindness():
    from privrl.chapter.colours import GREY, PALETTE

    assert len(set(PALETTE)) == 10
    assert _min_delta_e(PALETTE) > 15  # CIE76 difference under every simulated deficiency
    assert _min_delta_e([*PALETTE[:9], "#777777"]) < 2  # a mid grey would not: the test can fail
    assert _min_delta_e([*PALETTE, GREY]) > 10  # the eleventh colour, pale grey, stays apart


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _lines(ax, n: int, label: str = "line") -> None:
    x = np.linspace(0, 1, 50)
    for i in range(n):
        ax.plot(x, x * (i + 1), label=f"{label} {i}")


def test_legend_outside_an_axes_leaves_its_data_area_free():
    from privrl.chapter.plotting import legend_outside

    fig, axes = new_figure()
    ax = axes[0, 0]
    _lines(ax, 8)
    legend = legend_outside(ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert len(legend.get_texts()) == 8
    assert not _overlaps(legend.get_window_extent(renderer), ax.get_window_extent(renderer))


def test_legend_outside_a_figure_collects_each_label_once_beside_every_panel():
    from privrl.chapter.plotting import legend_outside

    fig, axes = new_figure(1, 2)
    for ax in axes[0]:
        _lines(ax, 3)
        ax.legend()
    legend = legend_outside(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert [t.get_text() for t in legend.get_texts()] == ["line 0", "line 1", "line 2"]
    assert all(ax.get_legend() is None for ax in axes[0])
    box = legend.get_window_extent(renderer)
    assert not any(_overlaps(box, ax.get_window_extent(renderer)) for ax in axes[0])


def test_legend_outside_refuses_more_than_eight_entries():
    from privrl.chapter.plotting import legend_outside

    _, axes = new_figure()
    _lines(axes[0, 0], 9)
    with pytest.raises(ValueError, match="fig_or_ax: 9 legend entries"):
        legend_outside(axes[0, 0])
    with pytest.raises(ValueError, match="max_entries must be in 1..8"):
        legend_outside(axes[0, 0], max_entries=9)
    with pytest.raises(ValueError, match="fig_or_ax: 0 legend entries"):
        legend_outside(new_figure()[1][0, 0])


def test_code_names_in_words():
    from privrl.chapter.plotting import in_words

    assert in_words("mountain_car_off") == "Mountain Car, off-policy"
    assert in_words("mountain_car_on") == "Mountain Car, on-policy"
    assert in_words("no_clip") == "no clipping"
    assert in_words("gpope_sampled") == "GPOPE, sampled trajectories"
    assert in_words("GPOPE") == "GPOPE"
    with pytest.raises(ValueError, match="code_name: no words for 'new_domain'"):
        in_words("new_domain")


def test_mark_paper_draws_hollow_black_markers_and_checks_shapes() -> None:
    import matplotlib.pyplot as plt

    from privrl.chapter.plotting import mark_paper

    fig, ax = plt.subplots()
    mark_paper(ax, [1, 2], [3, 4], label="paper: Table 1")
    (line,) = ax.get_lines()
    assert line.get_label() == "paper: Table 1" and line.get_markerfacecolor() == "none"
    mark_paper(ax, y=2.0, orientation="hline")
    assert len(ax.get_lines()) == 2
    with pytest.raises(ValueError, match="x and y"):
        mark_paper(ax, [1, 2], [3])
    plt.close(fig)


def test_legend_below_takes_each_label_once_under_every_panel_and_at_most_eight():
    from privrl.chapter.plotting import legend_below

    fig, axes = new_figure(1, 2)
    for ax in axes[0]:
        _lines(ax, 3)
    legend = legend_below(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert [t.get_text() for t in legend.get_texts()] == ["line 0", "line 1", "line 2"]
    box = legend.get_window_extent(renderer)
    assert all(box.y1 <= ax.get_window_extent(renderer).y0 for ax in axes[0])
    many, axes = new_figure()
    _lines(axes[0, 0], 9)
    with pytest.raises(ValueError, match="fig: 9 legend entries"):
        legend_below(many)
