"""One colour and one label in words per method in every figure (:mod:`privrl.chapter.colours`):
the registry, the legend check every legend helper applies, and the chapters' figures drawn from
their records, read from their artists."""

from __future__ import annotations

import importlib
from collections import defaultdict

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from privrl.chapter.colours import (
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
from privrl.chapter.plotting import legend_of, legend_outside


def test_within_a_chapter_no_two_methods_share_a_colour():
    for chapter, names in CHAPTERS.items():
        colours = [colour(n) for n in names]
        assert len(set(colours)) == len(colours), (chapter, names)
    assert len(set(PALETTE)) == len(PALETTE) == 10


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


@pytest.mark.parametrize("chapter", ["balle2016", "xie2019", "ono2020"])
def test_the_figures_drawn_from_a_chapters_records_give_each_method_one_colour(chapter):
    """Every exhibit of the chapter, drawn from its record: a method named by legend entries of
    any of its figures is drawn in one colour, its own, and no two methods share one."""
    exhibits = importlib.import_module(f"privrl.papers.{chapter}.plots").EXHIBITS
    by_method: dict[str, set[str]] = defaultdict(set)
    for exhibit in exhibits.values():
        data = exhibit.read()
        if data is None:
            pytest.skip(f"{exhibit.record} is not committed")
        drawn = exhibit.draw(data)
        if not isinstance(drawn, Figure):
            continue
        for label, drawn_colour in _legend_entries(drawn):
            name = named(label)
            if name is not None and drawn_colour is not None:
                by_method[name].add(drawn_colour)
        plt.close(drawn)
    assert by_method, "no legend entry names a method"
    for name, colours in by_method.items():
        assert colours == {colour(name).lower()}, (name, colours)
    owners = defaultdict(set)
    for name, colours in by_method.items():
        owners[next(iter(colours))].add(name)
    assert all(len(names) == 1 for names in owners.values()), owners
