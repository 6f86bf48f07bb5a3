"""Figure 2 a zoomed (Xie et al. 2019), drawn from the recorded paper-scale points: log-log MSPBE
against n, GPOPE at each recorded epsilon and LSTD on on-policy Mountain Car and nothing else,
each line at the recorded means (recomputed here from the CSV with numpy)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from privrl.papers.xie2019 import plots, points


@pytest.fixture(scope="module")
def recorded() -> pd.DataFrame:
    found = points.read_paper_points()
    assert found is not None, "the recorded paper points are committed with the book"
    return found


def _lines(ax) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {line.get_label(): (np.asarray(line.get_xdata(), float),
                               np.asarray(line.get_ydata(), float))
            for line in ax.get_lines() if not line.get_label().startswith("_")}


def test_zoom_draws_the_recorded_points(recorded):
    fig, ax = plt.subplots()
    shown = plots.plot_zoom(ax, recorded, "record")
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert "MSPBE" in ax.get_ylabel() and "n" in ax.get_xlabel()
    lines = _lines(ax)
    mc = recorded[recorded.domain == "mountain_car_on"]
    epsilons = sorted(mc[mc.method == "GPOPE"].epsilon.unique())
    assert epsilons == [0.5, 1.0, 4.0]
    gpope = mc[mc.method == "GPOPE"]
    expected = {f"{plots.METHOD_LABELS['GPOPE']}, ε = {e:g}":
                gpope[np.isclose(gpope.epsilon, e)] for e in epsilons}
    expected[plots.METHOD_LABELS["LSTD"]] = mc[mc.method == "LSTD"]
    assert set(lines) == set(expected)  # no DP-LSW, no GTD2, no other domain
    assert {t.get_text() for t in ax.get_legend().get_texts()} == set(expected)
    for label, rows in expected.items():
        x, y = lines[label]
        ns = np.sort(rows.n.unique())
        means = np.array([rows.mspbe[rows.n == n].to_numpy().mean() for n in ns])
        np.testing.assert_array_equal(x, ns)
        np.testing.assert_allclose(y, means, rtol=1e-12)
    assert len(shown) == len(mc[mc.method.isin(["GPOPE", "LSTD"])].groupby(["method", "epsilon", "n"],
                                                                              dropna=False))
    assert (shown["count"] == 100).all()
    plt.close(fig)


def test_zoom_numbers_read_the_largest_n(recorded):
    fig, ax = plt.subplots()
    got = plots.zoom_numbers(plots.plot_zoom(ax, recorded, "record"))
    plt.close(fig)
    mc = recorded[(recorded.domain == "mountain_car_on") & (recorded.n == 3000)]
    lstd = mc[mc.method == "LSTD"].mspbe.mean()
    at4 = mc[(mc.method == "GPOPE") & np.isclose(mc.epsilon, 4.0)].mspbe.mean()
    assert got["n"] == 3000
    assert got["lstd"] == pytest.approx(lstd, rel=1e-12)
    assert got["ratio"] == pytest.approx(at4 / lstd, rel=1e-12)
    assert got["by_epsilon"].count(" at ε = ") == 3
    assert got["by_epsilon"].endswith(f"and {at4:.3g} at ε = 4")


def test_zoom_without_lstd_is_an_error(recorded):
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="LSTD"):
        plots.plot_zoom(ax, recorded[recorded.method != "LSTD"], "record")
    plt.close(fig)
