"""Where each verdict was decided, for the claims tables of the chapters: the record (or this
run), the trials per arm and the scale.

:func:`record_of` finds the record that decided a claim (``book/measurements/<paper>-<name>.json``
with the claim's commit); :func:`decided_on` writes the cell ("record balle2016-paper: 20 trials
per arm, paper scale"; the summary box and the reproducibility page give the record's commit)
and :func:`claims_table` the table a chapter shows beside its deciding figure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from privrl.chapter.decided import Decided
from privrl.chapter.records import MEASUREMENTS, SOURCE_ROOT, find_root


def _measurements() -> Path:
    """``book/measurements`` of the book at or above the working directory, else of the source
    tree."""
    try:
        root = find_root()
    except ValueError:
        root = SOURCE_ROOT
    return root / MEASUREMENTS if (root / MEASUREMENTS).is_dir() else SOURCE_ROOT / MEASUREMENTS


def record_of(paper: str, d: Decided, directory: Path | None = None) -> str | None:
    """The name (``<paper>-<profile>``) of the record that decided ``d``: the one record of the
    paper in ``directory`` (default: :func:`_measurements`) whose commit is the deciding
    claim's; ``None`` for a verdict of this run, or when no record or several carry the commit
    (a claim's profile does not tell two records of one commit apart: ono2020's records of
    its two set-ups are both read as paper profiles)."""
    if not d.recorded:
        return None
    folder = directory or _measurements()
    names = [p.stem for p in folder.glob(f"{paper}-*.json")
             if json.loads(p.read_text()).get("git_commit") == d.claim.commit]
    return names[0] if len(names) == 1 else None


def decided_on(paper: str, d: Decided, scale: str = "", directory: Path | None = None) -> str:
    """The "decided on" cell of ``d``: the record's name (or, when no one record is known, the
    commit of the recorded run; or "this run"), the trials per arm and the scale (``scale``,
    else the deciding claim's), e.g. "record balle2016-paper: 20 trials per arm, paper scale"
    (plain text: a table cell renders no Markdown)."""
    record = record_of(paper, d, directory)
    run = (f"record {record}" if record else f"recorded run of commit {d.claim.commit}"
           if d.recorded else f"this run ({d.claim.profile} profile)")
    n = d.claim.n_trials
    return f"{run}: {n} trial{'s' * (n != 1)} per arm, {scale or d.scale}"


def claims_table(paper: str, decided: Sequence[Decided],
                 scales: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The decided claims of chapter ``paper`` as its claims table: key, claim, verdict,
    evidence (statistic, 95% interval, trials and reason) and "decided on" (with the scale
    ``scales`` gives a key, where its record ran the claim's arms smaller than the rest)."""
    scales = scales or {}
    return pd.DataFrame(
        [{"key": d.key, "claim": d.claim.statement, "verdict": d.claim.verdict,
          "evidence": d.claim.evidence_text(),
          "decided on": decided_on(paper, d, scales.get(d.key, ""))}
         for d in decided],
        columns=["key", "claim", "verdict", "evidence", "decided on"])


__all__ = ["claims_table", "decided_on", "record_of"]
