"""One colour and one label in words per method, arm and privacy level, in every figure of the
book (issue 51).

:data:`LOOKS` maps each method or arm a figure draws (by its code name) to its :class:`Look`: the
words its legend says and its colour, the same in every chapter that draws it. The colours come
from :data:`PALETTE` (Paul Tol's "muted" scheme and black, told apart under the common
colour-vision deficiencies) and, where a chapter draws more than ten, :data:`GREY`; the methods
one chapter draws (:data:`CHAPTERS`) never share a colour. An epsilon level is a shade of one
sequential ramp (:func:`epsilon_colour`: light for a small epsilon, dark for a large one; no
noise black), never a method's hue.

:func:`check_legend` holds a drawn legend to the registry: an entry whose label opens with a
method's words (the longest that matches, followed by the end of the label or a character that is
not a letter or digit: "DP-LSW, tabular" is DP-LSW's, "|B| = 100" is not "|B| = 1"'s) must be drawn
in that method's colour; :func:`privrl.chapter.plotting.legend_outside` and ``legend_below`` call
it, so every figure with a legend is checked as it is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
from matplotlib.colors import to_hex

#: Ten colours told apart under the common colour-vision deficiencies: Paul Tol's "muted" scheme
#: (nine colours) and black, kept for baselines (no privacy, zero estimate).
PALETTE: tuple[str, ...] = (
    "#332288",
    "#CC6677",
    "#117733",
    "#DDCC77",
    "#88CCEE",
    "#882255",
    "#44AA99",
    "#999933",
    "#AA4499",
    "#000000",
)
INDIGO, ROSE, GREEN, SAND, CYAN, WINE, TEAL, OLIVE, PURPLE, BLACK = PALETTE
#: An eleventh colour, for a chapter that draws more than ten methods (gohari2021): Tol's pale
#: grey (a mid grey would be taken for a colour of the palette under a colour-vision deficiency).
GREY = "#BBBBBB"
#: The sequential colour map of epsilon levels and the range of log10 epsilon it spans.
EPSILON_MAP = "YlOrBr"
EPSILON_RANGE = (-1.0, 1.0)


@dataclass(frozen=True)
class Look:
    """How one method or arm is drawn: the ``words`` its legend says and its ``colour``."""

    words: str
    colour: str


#: Every method and arm the book's figures draw, by code name.
LOOKS: dict[str, Look] = {
    # policy evaluation: balle2016, xie2019, frontier
    "GPOPE": Look("GPOPE", INDIGO),
    "GPOPE (RDP)": Look("GPOPE (RDP)", PURPLE),
    "GPOPE without noise": Look("GPOPE without noise", OLIVE),
    "DP-LSW": Look("DP-LSW", ROSE),
    "DP-LSL": Look("DP-LSL", GREEN),
    "LSW": Look("LSW (non-private)", PURPLE),
    "LSL": Look("LSL (non-private)", TEAL),
    "LSTD": Look("LSTD (non-private)", SAND),
    "WIS-LSTD": Look("WIS-LSTD (non-private)", CYAN),
    "GTD2": Look("GTD2 (noiseless)", TEAL),
    "SSP-LSTD": Look("SSP-LSTD", WINE),
    "reference": Look("non-private (LSTD / WIS-LSTD)", GREY),
    "zero": Look("zero estimate", BLACK),
    # Q-learning: wang2019
    "functional": Look("Algorithm 1 (functional noise)", INDIGO),
    "functional (T/B)": Look("Algorithm 1, calibrated for T/B updates", CYAN),
    "input": Look("input perturbation", GREEN),
    "dpsgd (reward fn)": Look("DP-SGD (reward function)", SAND),
    "dpsgd": Look("DP-SGD (one transition)", OLIVE),
    "output": Look("output perturbation: no guarantee", ROSE),
    "none": Look("non-private", BLACK),
    "resample every": Look("paths redrawn every episode", TEAL),
    "resample never": Look("paths never redrawn (J = 1)", WINE),
    # distributed RL: ono2020
    "prs": Look("PRS", INDIGO),
    "laplace": Look("Laplace", ROSE),
    "buffer 1": Look("|B| = 1", OLIVE),
    "buffer 100": Look("|B| = 100", TEAL),
    "no_clip": Look("no clipping", GREEN),
    "clip100": Look("clip C = 100", CYAN),
    "adam_sample": Look("Adam, sampled actions", PURPLE),
    # kickstarting: gohari2021
    "PPO (64, 64)": Look("PPO (64, 64)", BLACK),
    "PPO (32, 32)": Look("PPO (32, 32)", GREY),
    "kickstarting": Look("kickstarting", GREEN),
    "aware, c = 0.1": Look("aware, c = 0.1", CYAN),
    "aware, c = 0.3": Look("aware, c = 0.3", INDIGO),
    "unaware, c = 0.3": Look("unaware, c = 0.3", ROSE),
    "unaware, c = 0.9": Look("unaware, c = 0.9", WINE),
    "aware, c = 0.3, union radius": Look("aware, c = 0.3, union radius", SAND),
    "aware, c = 0.3, printed radius": Look("aware, c = 0.3, printed radius", PURPLE),
    "aware, c = 0.3, teacher silent after budget": Look(
        "aware, c = 0.3, teacher silent after budget", OLIVE
    ),
    "radius union": Look("union bound radius (Lemma 1)", SAND),
    "radius printed": Look("radius as printed (Lemma 1)", PURPLE),
    "radius subgaussian": Look("sub-Gaussian radius", TEAL),
    "radius mc": Look("Monte Carlo radius (the runs')", INDIGO),
    # audits
    "audited": Look("audited lower bound", INDIGO),
    "weakened": Look("weakened variant's lower bound", ROSE),
}

#: The methods each chapter draws: within a chapter no two share a colour.
CHAPTERS: dict[str, tuple[str, ...]] = {
    "balle2016": ("LSW", "LSL", "DP-LSW", "DP-LSL"),
    "xie2019": ("GPOPE", "DP-LSW", "DP-LSL", "LSW", "LSTD", "WIS-LSTD", "GTD2", "zero"),
    "frontier": (
        "GPOPE",
        "GPOPE (RDP)",
        "GPOPE without noise",
        "DP-LSW",
        "DP-LSL",
        "SSP-LSTD",
        "reference",
        "zero",
    ),
    "wang2019": (
        "functional",
        "functional (T/B)",
        "input",
        "dpsgd (reward fn)",
        "dpsgd",
        "output",
        "none",
        "resample every",
        "resample never",
    ),
    "ono2020": ("prs", "laplace", "buffer 1", "buffer 100", "no_clip", "clip100", "adam_sample"),
    "gohari2021": (
        "PPO (64, 64)",
        "PPO (32, 32)",
        "kickstarting",
        "aware, c = 0.1",
        "aware, c = 0.3",
        "unaware, c = 0.3",
        "unaware, c = 0.9",
        "aware, c = 0.3, union radius",
        "aware, c = 0.3, printed radius",
        "aware, c = 0.3, teacher silent after budget",
        "radius subgaussian",
    ),
    "audits": ("audited", "weakened"),
}


def look(name: str) -> Look:
    """The :class:`Look` of method ``name`` (a code name of :data:`LOOKS`)."""
    if name not in LOOKS:
        raise ValueError(f"name: no look for {name!r}; add it to privrl.chapter.colours.LOOKS")
    return LOOKS[name]


def colour(name: str) -> str:
    """The colour of method ``name`` (:func:`look`)."""
    return look(name).colour


def words(name: str) -> str:
    """The words that name method ``name`` in a legend (:func:`look`)."""
    return look(name).words


def epsilon_colour(epsilon: float) -> str:
    """The colour of a privacy level: a shade of :data:`EPSILON_MAP` by log10 epsilon over
    :data:`EPSILON_RANGE` (clipped; from 35% of the map, so that the lightest level shows on
    white), black for no noise (epsilon = inf)."""
    if math.isinf(epsilon) and epsilon > 0:
        return BLACK
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon!r}")
    low, high = EPSILON_RANGE
    share = min(max((math.log10(epsilon) - low) / (high - low), 0.0), 1.0)
    return to_hex(mpl.colormaps[EPSILON_MAP](0.35 + 0.65 * share))


def named(label: str, looks: Mapping[str, Look] = LOOKS) -> str | None:
    """The code name of the method a legend ``label`` names: the look whose words open the
    label, followed by its end or a character that is neither a letter nor a digit, the longest
    such; ``None`` when no look's words open it."""
    found = [
        (len(lk.words), name)
        for name, lk in looks.items()
        if label.startswith(lk.words)
        and (len(label) == len(lk.words) or not label[len(lk.words)].isalnum())
    ]
    return max(found)[1] if found else None


def handle_colour(handle: Any) -> str | None:
    """The colour a legend handle is drawn in (a line's, or a marker's or patch's face, or an
    error bar's line), as hex; ``None`` for a handle without one."""
    for artist in (handle, *getattr(handle, "lines", ())):
        if artist is None:
            continue
        if hasattr(artist, "get_color") and not hasattr(artist, "get_facecolor"):
            return to_hex(artist.get_color())
        faces = artist.get_facecolor() if hasattr(artist, "get_facecolor") else []
        faces = [faces] if isinstance(faces, tuple) else list(faces)
        edges = artist.get_edgecolor() if hasattr(artist, "get_edgecolor") else []
        edges = [edges] if isinstance(edges, tuple) else list(edges)
        for c in (*faces, *edges):
            if len(c) == 4 and c[3] > 0:
                return to_hex(c)
    return None


def check_legend(entries: Iterable[tuple[Any, str]], looks: Mapping[str, Look] = LOOKS) -> None:
    """Raise ``ValueError`` when a legend entry ``(handle, label)`` names a method (:func:`named`)
    but is drawn in another colour than the method's."""
    wrong = []
    for handle, label in entries:
        name = named(label, looks)
        drawn = handle_colour(handle)
        if name is not None and drawn is not None and drawn != looks[name].colour.lower():
            wrong.append(f"{label!r} in {drawn}, {name!r} is {looks[name].colour}")
    if wrong:
        raise ValueError(
            "legend: a method drawn in another colour than its own: " + "; ".join(wrong)
        )


__all__ = [
    "CHAPTERS",
    "EPSILON_MAP",
    "GREY",
    "LOOKS",
    "PALETTE",
    "Look",
    "check_legend",
    "colour",
    "epsilon_colour",
    "handle_colour",
    "look",
    "named",
    "words",
]
