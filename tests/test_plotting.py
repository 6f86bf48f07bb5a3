"""Figure helpers: summarised bands and drawing them (live or from a recorded summary)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from privrl.plotting import band_plot, new_figure, plot_bands, summarise  # noqa: E402


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
