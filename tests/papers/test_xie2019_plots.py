"""Figure 2 a zoomed (Xie et al. 2019), drawn from the recorded paper-scale points: log-log MSPBE
against n, GPOPE at each recorded epsilon and LSTD on on-policy Mountain Car and nothing else,
each line at the recorded means (recomputed here from the CSV with numpy)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from privrl.chapter.decided import Decided
from privrl.chapter.sentences import NOT_DECIDED, sentences_frame
from privrl.chapter.verdicts import Claim
from privrl.papers.xie2019 import plots, points


@pytest.fixture(scope="module")
def recorded() -> pd.DataFrame:
    found = points.read_paper_points()
    assert found is not None, "the recorded paper points are committed with the book"
    return found


def _lines(ax) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {
        line.get_label(): (np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float))
        for line in ax.get_lines()
        if not line.get_label().startswith("_")
    }


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
    expected = {
        f"{plots.METHOD_LABELS['GPOPE']}, ε = {e:g}": gpope[np.isclose(gpope.epsilon, e)]
        for e in epsilons
    }
    expected[plots.METHOD_LABELS["LSTD"]] = mc[mc.method == "LSTD"]
    assert set(lines) == set(expected)  # no DP-LSW, no GTD2, no other domain
    assert {t.get_text() for t in ax.get_legend().get_texts()} == set(expected)
    for label, rows in expected.items():
        x, y = lines[label]
        ns = np.sort(rows.n.unique())
        means = np.array([rows.mspbe[rows.n == n].to_numpy().mean() for n in ns])
        np.testing.assert_array_equal(x, ns)
        np.testing.assert_allclose(y, means, rtol=1e-12)
    assert len(shown) == len(
        mc[mc.method.isin(["GPOPE", "LSTD"])].groupby(["method", "epsilon", "n"], dropna=False)
    )
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


def test_small_multiples_draw_each_epsilon_in_its_panel(recorded):
    """Figure 2 as small multiples (issue 35: no 17-entry legend): a row per domain, a column per
    recorded epsilon, each panel GPOPE and DP-LSW at its own epsilon (means recomputed from the
    CSV) and the non-private methods; one colour per method, at most 8 legend entries, panel
    titles and labels in words."""
    fig = plots.figure_by_epsilon(recorded, ("mountain_car_on", "mountain_car_off"))
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 6
    legend = fig.legends[0]
    assert 1 <= len(legend.get_texts()) <= 8
    colours: dict[str, set] = {}
    for ax in axes:
        assert "_" not in ax.get_title() + ax.get_ylabel() + ax.get_xlabel()
        for label in _lines(ax):
            line = next(ln for ln in ax.get_lines() if ln.get_label() == label)
            colours.setdefault(plots.split_method(label.split(" (")[0])[0], set()).add(
                line.get_color()
            )
    assert all(len(c) == 1 for c in colours.values())
    assert len(set().union(*colours.values())) == len(colours)
    mc = recorded[recorded.domain == "mountain_car_on"]
    for ax, eps in zip(axes[:3], [0.5, 1.0, 4.0], strict=True):
        assert ax.get_title() == f"ε = {eps:g}"
        lines = _lines(ax)
        gpope = mc[(mc.method == "GPOPE") & np.isclose(mc.epsilon, eps)]
        x, y = lines["GPOPE"]
        np.testing.assert_allclose(y, gpope.groupby("n").mspbe.mean().to_numpy(), rtol=1e-12)
        lsw = mc[(mc.method == "DP-LSW 5x5") & np.isclose(mc.epsilon, eps)]
        _, y = lines["DP-LSW, 5x5 grid"]
        np.testing.assert_allclose(y, lsw.groupby("n").mspbe.mean().to_numpy(), rtol=1e-12)
        assert not any(label.startswith("LSW") for label in lines)  # non-private LSW left out
    plt.close(fig)


def test_the_chain_marks_the_papers_order_of_magnitude(recorded):
    """The chain's diamonds sit a factor 10 (the paper's 'order of magnitude') below the better
    of DP-LSW and DP-LSL at every n, and GPOPE's recorded means lie below them."""
    fig = plots.figure_by_epsilon(recorded, ("chain",), order_of_magnitude=10)
    ax = fig.axes[0]
    chain = recorded[recorded.domain == "chain"]
    means = chain.groupby(["method", "n"]).mspbe.mean()
    best = np.minimum(means["DP-LSW"].to_numpy(), means["DP-LSL"].to_numpy())
    x, y = _lines(ax)["paper: 10x below output perturbation"]
    np.testing.assert_array_equal(x, means["DP-LSW"].index.to_numpy(float))
    np.testing.assert_allclose(y, best / 10, rtol=1e-12)
    assert (means["GPOPE"].to_numpy() < y).all()
    plt.close(fig)


def test_sentences_stand_beside_the_verdicts_that_decide_them():
    claims = [
        Decided(k, Claim(v, "", None, None, 1, "", key=k + "_paper", statement="s"))
        for k, v in (
            ("mc_beats_output_perturbation", "reproduced"),
            ("off_policy_like_on_policy", "not reproduced"),
        )
    ]
    table = sentences_frame("xie2019", plots.SENTENCES["mountain_car"], claims)
    assert list(table.verdict) == [
        "mc_beats_output_perturbation: reproduced",
        "off_policy_like_on_policy: not reproduced",
    ]
    assert table["the paper says"][0].startswith("\u201cour proposed gradient perturbation")
    hiv = sentences_frame("xie2019", plots.SENTENCES["hiv"], claims)
    assert list(hiv.verdict) == [NOT_DECIDED]
    with pytest.raises(ValueError, match="off_policy_like_on_policy"):
        sentences_frame("xie2019", plots.SENTENCES["mountain_car"], claims[:1])
