"""A chapter's front matter, read from ``book/chapters/<name>.yml``: what the paper claims, the
bottom line, where each claim was decided and every departure from the paper.

One data file per chapter (the landing page, the summary box and the chapter's departures table
read it; the verdict counts are never typed here, they come from the decided claims)::

    claims: "One sentence: what the paper claims."
    bottom_line: "One sentence: the outcome, and the reason for the largest gap."
    evidence:            # claim key -> MyST label of what decided it (a key with a record's
                         # suffix wins over the key without it)
      rmse_dplsw_vs_lsw: fig-balle2016-recorded-rmse
    departures:
      - what: "Trials per point"
        paper: "not stated"
        ours: "20 (record), 8 (quick run)"
        reason: "the paper gives no count; 20 decides every claim"
        link: balle2016-errata      # optional: a MyST label (erratum, ablation, section)

The file is found as :mod:`privrl.chapter.paper_numbers` finds its data; unknown or missing
fields raise a ``ValueError`` naming the file and the field.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from privrl.chapter.records import SOURCE_ROOT, find_root

#: The folder of the data files, relative to the repository root.
CHAPTERS = Path("book") / "chapters"
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
DEPARTURE_FIELDS = ("what", "paper", "ours", "reason")


@dataclass(frozen=True)
class Departure:
    """One place where the chapter differs from the paper, with the reason and (``link``) the
    MyST label of the erratum, ablation or section that shows it."""

    what: str
    paper: str
    ours: str
    reason: str
    link: str | None = None


@dataclass(frozen=True)
class FrontMatter:
    """The front matter of chapter ``name`` (see the module docstring)."""

    name: str
    claims: str
    bottom_line: str
    evidence: dict[str, str] = field(default_factory=dict)
    departures: tuple[Departure, ...] = ()

    def departures_frame(self) -> pd.DataFrame:
        """The departures as a table for the page (the link as a MyST reference)."""
        return pd.DataFrame(
            [
                {
                    "what": d.what,
                    "paper": d.paper,
                    "ours": d.ours,
                    "reason": d.reason,
                    "see": f"{{ref}}`{d.link}`" if d.link else "",
                }
                for d in self.departures
            ],
            columns=["what", "paper", "ours", "reason", "see"],
        )


def front_matter_path(name: str, start: str | os.PathLike[str] | None = None) -> Path:
    """``book/chapters/<name>.yml`` of the book at or above ``start`` (or the working
    directory), else of the source tree."""
    try:
        root = find_root(start)
    except ValueError:
        root = SOURCE_ROOT
    path = root / CHAPTERS / f"{name}.yml"
    if not path.exists() and (SOURCE_ROOT / CHAPTERS / f"{name}.yml").exists():
        path = SOURCE_ROOT / CHAPTERS / f"{name}.yml"
    return path


def front_matter(name: str, start: str | os.PathLike[str] | None = None) -> FrontMatter:
    """The front matter of chapter ``name`` (``FileNotFoundError`` if it has none)."""
    return load(front_matter_path(name, start), name)


def load(path: str | os.PathLike[str], name: str) -> FrontMatter:
    """Read and check a front-matter file."""
    path = Path(path)
    raw: Any = yaml.safe_load(path.read_text())
    where = str(path)
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: a mapping of claims, bottom_line, evidence, departures")
    unknown = sorted(set(raw) - {"claims", "bottom_line", "evidence", "departures"})
    if unknown:
        raise ValueError(f"{where}: unknown fields {unknown}")
    text = {k: _text(raw.get(k), f"{where}: {k}") for k in ("claims", "bottom_line")}
    evidence = raw.get("evidence") or {}
    if not isinstance(evidence, dict):
        raise ValueError(f"{where}: evidence must map claim keys to MyST labels")
    for key, label in evidence.items():
        if not isinstance(label, str) or not _LABEL.match(label):
            raise ValueError(f"{where}: evidence[{key!r}] must be a MyST label, got {label!r}")
    return FrontMatter(
        name,
        text["claims"],
        text["bottom_line"],
        dict(evidence),
        tuple(
            _departure(d, f"{where}: departures[{i}]")
            for i, d in enumerate(raw.get("departures") or [])
        ),
    )


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where} must be a non-empty string")
    return " ".join(value.split())


def _departure(raw: Any, where: str) -> Departure:
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be a mapping of {DEPARTURE_FIELDS} and link")
    unknown = sorted(set(raw) - {*DEPARTURE_FIELDS, "link"})
    if unknown:
        raise ValueError(f"{where}: unknown fields {unknown}")
    link = raw.get("link")
    if link is not None and (not isinstance(link, str) or not _LABEL.match(link)):
        raise ValueError(f"{where}: link must be a MyST label, got {link!r}")
    what, paper, ours, reason = (_text(raw.get(f), f"{where}.{f}") for f in DEPARTURE_FIELDS)
    return Departure(what, paper, ours, reason, link)


__all__ = ["Departure", "FrontMatter", "front_matter", "front_matter_path", "load"]
