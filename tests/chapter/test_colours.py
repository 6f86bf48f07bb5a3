"""One colour and one label in words per method in every figure (:mod:`privrl.chapter.colours`):
the registry (no two methods share a colour anywhere in the book; a chapter's stay apart under
colour-vision deficiencies), the legend check every legend helper applies, and every chapter's
figures drawn from its records, read from their artists: across the whole book a method is drawn
in one colour, its own, and no two methods in one."""

from __future__ import annotations

import importlib
from collections import defaultdict

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privrl.chapter.colours import (
    ALIASES,
    BLACK,
    CHAPTERS,
    LOOKS,
    PALETTE,
    check_legend,
    colour,
    epsilon_colour,
    named,
    words,
)
from privrl.chapter.plotting import legend_of, legend_outside, new_figure


def test_no_two_methods_share_a_colour_anywhere_in_the_book():
    """Every look's colour is its own; an alias (one idea in two kinds of figure) takes the
    colour of the name it stands for, and nothing else."""
    owners = defaultdict(set)
    for name, lk in LOOKS.items():
        owners[lk.colour.lower()].add(ALIASES.get(name, name))
    shared = {c: names for c, names in owners.items() if len(names) > 1}
    assert not shared, shared
    assert all(colour(a) == colour(b) for a, b in ALIASES.items())
    assert set(ALIASES) <= set(LOOKS) and set(ALIASES.values()) <= set(LOOKS)
    assert len(set(PALETTE)) == len(PALETTE) == 10


def test_the_methods_of_one_chapter_stay_apart_under_colour_blindness():
    from test_plotting import _min_delta_e

    for chapter, names in CHAPTERS.items():
        assert set(names) <= set(LOOKS), chapter
        assert _min_delta_e([colour(n) for n in names]) > 15, chapter


def test_every_method_has_one_label_in_words_no_other_method_has():
    labels = [look.words for look in LOOKS.values()]
    assert len(set(labels)) == len(labels)
    assert all("_" not in text for text in labels)  # words, not code names
    with pytest.raises(ValueError, match="no look for 'unknown'"):
        colour("unknown")


def test_epsilon_levels_are_shades_of_one_ramp_darker_with_epsilon_and_no_noise_black():
    levels = [0.1, 0.3, 1.0, 2.0, 3.0, 5.0, 10.0]
    shades = [epsilon_colour(e) for e in levels]
    assert len(set(shades)) == len(shades)
    brightness = [sum(int(s[i : i + 2], 16) for i in (1, 3, 5)) for s in shades]
    assert brightness == sorted(brightness, reverse=True)
    assert epsilon_colour(float("inf")) == BLACK
    assert not set(shades) & {look.colour.lower() for look in LOOKS.values()}
    with pytest.raises(ValueError, match="positive"):
        epsilon_colour(0.0)


def test_a_legend_label_names_the_method_whose_words_open_it_the_longest_first():
    assert named("DP-LSW, tabular") == "DP-LSW"
    assert named("GPOPE (RDP) wins") == "GPOPE (RDP)" and named("GPOPE wins") == "GPOPE"
    assert named("GPOPE without noise (tuned, at the cap)") == "GPOPE without noise"
    assert named("|B| = 100") == "buffer 100" and named("|B| = 1") == "buffer 1"
    assert named("aware, c = 0.3, union radius") == "aware, c = 0.3, union radius"
    assert named("LSWx") is None and named("paper: Tables 1-3") is None


def test_a_legend_entry_in_another_colour_than_its_method_fails():
    right = Line2D([], [], color=colour("GPOPE"), label="GPOPE, constant step")
    wrong = Line2D([], [], color=colour("DP-LSW"), label="GPOPE, diminishing step")
    check_legend([(right, right.get_label())])
    with pytest.raises(ValueError, match="'GPOPE, diminishing step' in #cc6677"):
        check_legend([(right, right.get_label()), (wrong, wrong.get_label())])
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], color="C1", label=words("laplace"))  # the default cycle's orange
    with pytest.raises(ValueError, match="'Laplace' in #ff7f0e"):
        legend_outside(ax)
    with pytest.raises(ValueError, match="another colour"):
        legend_of(fig, [wrong])
    plt.close(fig)


def _legend_entries(fig: Figure) -> list[tuple[str, str]]:
    """(label, colour) of every entry of every legend of ``fig``."""
    from privrl.chapter.colours import handle_colour

    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    return [
        (text.get_text(), handle_colour(handle))
        for legend in legends
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True)
    ]


def _exhibits(chapter: str) -> list[Figure | None]:
    """The figures a chapter lists in ``plots.EXHIBITS``, each drawn from its record (``None``:
    a record not committed; tables left out)."""
    exhibits = importlib.import_module(f"privrl.papers.{chapter}.plots").EXHIBITS
    drawn = []
    for exhibit in exhibits.values():
        data = exhibit.read()
        figure = None if data is None else exhibit.draw(data)
        if figure is None or isinstance(figure, Figure):
            drawn.append(figure)
    return drawn


def _frontier() -> list[Figure | None]:
    """The frontier's figures drawn from its recorded map (the notebook's, on a run at another
    profile than the record's)."""
    from privrl.papers.frontier import analysis, plots
    from privrl.papers.frontier.record import recorded_tables

    tables = recorded_tables()
    if tables is None:
        return [None]
    points = tables["points"]
    return [
        plots.plot_map(analysis.winners(points)),
        plots.plot_errors(points, float(points.epsilon.max())),
        plots.plot_cost(analysis.privacy_cost(points), int(points.n.max())),
        plots.plot_gap(analysis.log_gap(points, "DP-LSW", analysis.GPOPE_RDP)),
    ]


def _audits() -> list[Figure | None]:
    """The audits' figure drawn from the recorded paper-profile run's summary."""
    from privrl.chapter.records import recorded_summary
    from privrl.papers.audits import plots

    audits = plots.recorded_audits(recorded_summary("audits", "paper"))
    if audits is None:
        return [None]
    fig, axes = new_figure(width=7.5, height=4.8, layout="constrained")
    plots.plot_audits(audits, axes[0, 0])
    return [fig]


#: Every chapter's figures drawn from its records.
RECORD_FIGURES = {
    "balle2016": lambda: _exhibits("balle2016"),
    "xie2019": lambda: _exhibits("xie2019"),
    "ono2020": lambda: _exhibits("ono2020"),
    "wang2019": lambda: _exhibits("wang2019"),
    "gohari2021": lambda: _exhibits("gohari2021"),
    "frontier": _frontier,
    "audits": _audits,
}


def test_every_chapter_draws_record_figures_and_knows_its_methods():
    assert set(RECORD_FIGURES) == set(CHAPTERS)


def test_the_book_s_record_figures_give_each_method_one_colour_and_no_two_one():
    """Every figure drawn from a record, of every chapter: a method named by legend entries of
    any of them is drawn in one colour, its own, and no two methods share one; each chapter's
    figures name at least one method."""
    by_method: dict[str, set[str]] = defaultdict(set)
    for chapter, draw in RECORD_FIGURES.items():
        named_here = set()
        for figure in draw():
            if figure is None:
                pytest.skip(f"a record of {chapter} is not committed")
            for label, drawn_colour in _legend_entries(figure):
                name = named(label)
                if name is not None and drawn_colour is not None:
                    by_method[name].add(drawn_colour)
                    named_here.add(name)
            plt.close(figure)
        assert named_here, f"{chapter}: no legend entry of its record figures names a method"
    for name, colours in by_method.items():
        assert colours == {colour(name).lower()}, (name, colours)
    owners = defaultdict(set)
    for name, colours in by_method.items():
        owners[next(iter(colours))].add(ALIASES.get(name, name))
    assert all(len(names) == 1 for names in owners.values()), owners
