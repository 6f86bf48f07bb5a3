"""One colour and one label in words per method, arm and privacy level, in every figure of the
book.

:data:`LOOKS` maps each method or arm a figure draws (by its code name) to its :class:`Look`: the
words its legend says and its colour, the same in every chapter that draws it. No two methods
share a colour anywhere in the book, but the names of :data:`ALIASES` (one idea drawn in two kinds
of figure). The policy evaluators (balle2016, xie2019, frontier) take Paul Tol's "muted" scheme
(:data:`PALETTE`, told apart under the common colour-vision deficiencies), :data:`GREY`,
:data:`SLATE`, :data:`ORANGE` and :data:`CHARCOAL`; every other chapter its own set
(:data:`Q_LEARNING`, :data:`DISTRIBUTED`, :data:`KICKSTARTING`, :data:`AUDITS`). The methods one
chapter draws (:data:`CHAPTERS`) stay apart under those deficiencies (a CIE76 difference above
15 between any two). An epsilon level is a shade of one sequential ramp (:func:`epsilon_colour`:
light for a small epsilon, dark for a large one; no noise black), never a method's hue.

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
#: (nine colours), the policy evaluators', and black, wang2019's non-private run and no noise
#: (:func:`epsilon_colour`).
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
#: The policy evaluators' other four colours: Tol's pale grey (a mid grey would be taken for a
#: colour of the palette under a colour-vision deficiency), Dark2's slate blue, Tol's vibrant
#: orange and, for the zero estimate, charcoal.
GREY, SLATE, ORANGE, CHARCOAL = "#BBBBBB", "#7570B3", "#EE7733", "#222222"
#: The colours of the other chapters' methods, in the order :data:`LOOKS` gives them, none a
#: policy evaluator's nor another chapter's: each chapter's set picked greedily from matplotlib's
#: qualitative maps and Tol's schemes (none lighter than CIELAB L = 78, so that each shows on
#: white) for the largest smallest CIE76 difference between two of its colours under every
#: simulated colour-vision deficiency: 21 (wang2019), 20 (ono2020), 15 (gohari2021, whose plain
#: PPO baselines are its two greys).
Q_LEARNING: tuple[str, ...] = (
    "#222255",
    "#33BBEE",
    "#FF7F0E",
    "#FDAE6B",
    "#663333",
    "#D62728",
    BLACK,
    "#386CB0",
    "#BDBDBD",
)
DISTRIBUTED: tuple[str, ...] = (
    "#225555",
    "#CC3311",
    "#E6AB02",
    "#1B9E77",
    "#6A3D9A",
    "#A55194",
    "#BCBDDC",
)
KICKSTARTING: tuple[str, ...] = (
    "#555555",
    "#B3B3B3",
    "#225522",
    "#66CCEE",
    "#393B79",
    "#F0027F",
    "#FF7F00",
    "#E7BA52",
    "#8C6D31",
    "#7FC97F",
    "#3182BD",
)
AUDITS: tuple[str, ...] = ("#80B1D3", "#D95F02")
#: The sequential colour map of epsilon levels and the range of log10 epsilon it spans.
EPSILON_MAP = "YlOrBr"
EPSILON_RANGE = (-1.0, 1.0)


@dataclass(frozen=True)
class Look:
    """How one method or arm is drawn: the ``words`` its legend says and its ``colour``."""

    words: str
    colour: str


_Q = dict(
    zip(
        (
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
        Q_LEARNING,
        strict=True,
    )
)
_D = dict(
    zip(
        ("prs", "laplace", "buffer 1", "buffer 100", "no_clip", "clip100", "adam_sample"),
        DISTRIBUTED,
        strict=True,
    )
)
(
    PPO_BIG,
    PPO_SMALL,
    KICKSTART,
    AWARE_LOW,
    AWARE_MID,
    UNAWARE_MID,
    UNAWARE_HIGH,
    UNION,
    PRINTED,
    SILENT,
    SUBGAUSSIAN,
) = KICKSTARTING

#: Every method and arm the book's figures draw, by code name: no two share a colour, but for
#: the names of :data:`ALIASES`.
LOOKS: dict[str, Look] = {
    # policy evaluation: balle2016, xie2019, frontier
    "GPOPE": Look("GPOPE", INDIGO),
    "GPOPE (RDP)": Look("GPOPE (RDP)", SLATE),
    "GPOPE without noise": Look("GPOPE without noise", OLIVE),
    "DP-LSW": Look("DP-LSW", ROSE),
    "DP-LSL": Look("DP-LSL", GREEN),
    "LSW": Look("LSW (non-private)", PURPLE),
    "LSL": Look("LSL (non-private)", TEAL),
    "LSTD": Look("LSTD (non-private)", SAND),
    "WIS-LSTD": Look("WIS-LSTD (non-private)", CYAN),
    "GTD2": Look("GTD2 (noiseless)", ORANGE),
    "SSP-LSTD": Look("SSP-LSTD", WINE),
    "reference": Look("non-private (LSTD / WIS-LSTD)", GREY),
    "zero": Look("zero estimate", CHARCOAL),
    # Q-learning: wang2019
    "functional": Look("Algorithm 1 (functional noise)", _Q["functional"]),
    "functional (T/B)": Look("Algorithm 1, calibrated for T/B updates", _Q["functional (T/B)"]),
    "input": Look("input perturbation", _Q["input"]),
    "dpsgd (reward fn)": Look("DP-SGD (reward function)", _Q["dpsgd (reward fn)"]),
    "dpsgd": Look("DP-SGD (one transition)", _Q["dpsgd"]),
    "output": Look("output perturbation: no guarantee", _Q["output"]),
    "none": Look("non-private", _Q["none"]),
    "resample every": Look("paths redrawn every episode", _Q["resample every"]),
    "resample never": Look("paths never redrawn (J = 1)", _Q["resample never"]),
    # distributed RL: ono2020
    "prs": Look("PRS", _D["prs"]),
    "laplace": Look("Laplace", _D["laplace"]),
    "buffer 1": Look("|B| = 1", _D["buffer 1"]),
    "buffer 100": Look("|B| = 100", _D["buffer 100"]),
    "no_clip": Look("no clipping", _D["no_clip"]),
    "clip100": Look("clip C = 100", _D["clip100"]),
    "adam_sample": Look("Adam, sampled actions", _D["adam_sample"]),
    # kickstarting: gohari2021
    "PPO (64, 64)": Look("PPO (64, 64)", PPO_BIG),
    "PPO (32, 32)": Look("PPO (32, 32)", PPO_SMALL),
    "kickstarting": Look("kickstarting", KICKSTART),
    "aware, c = 0.1": Look("aware, c = 0.1", AWARE_LOW),
    "aware, c = 0.3": Look("aware, c = 0.3", AWARE_MID),
    "unaware, c = 0.3": Look("unaware, c = 0.3", UNAWARE_MID),
    "unaware, c = 0.9": Look("unaware, c = 0.9", UNAWARE_HIGH),
    "aware, c = 0.3, union radius": Look("aware, c = 0.3, union radius", UNION),
    "aware, c = 0.3, printed radius": Look("aware, c = 0.3, printed radius", PRINTED),
    "aware, c = 0.3, teacher silent after budget": Look(
        "aware, c = 0.3, teacher silent after budget", SILENT
    ),
    "radius union": Look("union bound radius (Lemma 1)", UNION),
    "radius printed": Look("radius as printed (Lemma 1)", PRINTED),
    "radius subgaussian": Look("sub-Gaussian radius", SUBGAUSSIAN),
    "radius mc": Look("Monte Carlo radius (the runs')", AWARE_MID),
    # audits
    "audited": Look("audited lower bound", AUDITS[0]),
    "weakened": Look("weakened variant's lower bound", AUDITS[1]),
}

#: Names that draw one idea in two kinds of figure, with the name whose colour they take: a
#: radius of Lemma 1 (gohari2021's radii figure) is drawn in the colour of the c = 0.3 aware
#: student that runs with it (Figure 2; the Monte Carlo radius is the default student's).
ALIASES: dict[str, str] = {
    "radius union": "aware, c = 0.3, union radius",
    "radius printed": "aware, c = 0.3, printed radius",
    "radius mc": "aware, c = 0.3",
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
    "wang2019": tuple(_Q),
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
    "ALIASES",
    "AUDITS",
    "CHAPTERS",
    "CHARCOAL",
    "DISTRIBUTED",
    "KICKSTARTING",
    "Q_LEARNING",
    "EPSILON_MAP",
    "GREY",
    "LOOKS",
    "ORANGE",
    "PALETTE",
    "SLATE",
    "Look",
    "check_legend",
    "colour",
    "epsilon_colour",
    "handle_colour",
    "look",
    "named",
    "words",
]
