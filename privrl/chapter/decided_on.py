"""Where each verdict was decided, for the claims tables of the chapters: the record (or this
run), the trials per arm and the scale.

:func:`record_of` finds the record that decided a claim (``book/measurements/<paper>-<name>.json``
with the claim's commit); :func:`decided_on` writes the cell ("record balle2016-paper: 20 trials
per arm, paper scale"; the summary box and the reproducibility page give the record's commit)
and :func:`claims_table` the table a chapter shows beside its deciding figure, laid out for
reading by :func:`claims_for_reading`: the claim the wide column with its key small beneath it,
the verdict, the evidence sentence (statistic, 95% interval, trials, and the reason: for an
inconclusive verdict, which way the estimate leans and how many trials would decide it) and
where it was decided; :func:`records_note` the compute and rerun command of each record behind
them (:mod:`privrl.chapter.compute`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from privrl.chapter.compute import measurements, record_line
from privrl.chapter.decided import Decided, EvidenceSource, base_key
from privrl.chapter.tables import Table, format_number, format_table
from privrl.chapter.verdicts import Claim

#: Each column's share of the text column in a claims table laid out for reading (the key is
#: written beneath its claim).
CLAIMS_WIDTHS: dict[str, float] = {
    "claim": 0.4,
    "verdict": 0.17,
    "evidence": 0.28,
    "decided on": 0.15,
}


def records_of(paper: str, d: Decided, directory: Path | None = None) -> list[str]:
    """The names (``<paper>-<profile>``) of the records of the paper in ``directory`` (default:
    :func:`~privrl.chapter.compute.measurements`) whose commit is the one of the claim that
    decided ``d``, sorted; none for a verdict of this run."""
    if not d.recorded:
        return []
    folder = directory or measurements()
    return sorted(
        p.stem
        for p in folder.glob(f"{paper}-*.json")
        if json.loads(p.read_text()).get("git_commit") == d.claim.commit
    )


def record_of(paper: str, d: Decided, directory: Path | None = None) -> str | None:
    """The name of the record that decided ``d``: the one of :func:`records_of`; ``None`` for a
    verdict of this run, or when no record or several carry the commit (a claim's profile
    does not tell two records of one commit apart: ono2020's records of its two set-ups are
    both read as paper profiles)."""
    names = records_of(paper, d, directory)
    return names[0] if len(names) == 1 else None


#: The run-record parameters that give a run's horizon, with their unit in words.
HORIZONS: dict[str, str] = {
    "n_submissions": "submissions",
    "episodes": "episodes",
    "epochs": "roll-outs",
}


def horizon(record: str, directory: Path | None = None) -> str:
    """The horizon of each trial of ``record`` in words ("90,000 submissions"), read from its
    run record's parameters (the first of :data:`HORIZONS` it has); "" when it states none."""
    path = (directory or measurements()) / f"{record}.json"
    parameters = json.loads(path.read_text()).get("parameters", {})
    return next(
        (f"{int(parameters[k]):,} {unit}" for k, unit in HORIZONS.items() if k in parameters), ""
    )


def decided_on(paper: str, d: Decided, scale: str = "", directory: Path | None = None) -> str:
    """The "decided on" cell of ``d``: the record's name (or, when no one record is known, the
    commit of the recorded run; or "this run"), the trials per arm, each trial's horizon where
    the record states it and the scale does not say it (:func:`horizon`), and the scale
    (``scale``, else the deciding claim's), e.g. "record ono2020-tuned: 20 trials per arm x
    90,000 submissions, paper scale" (plain text: a table cell renders no Markdown)."""
    record = record_of(paper, d, directory)
    run = (
        f"record {record}"
        if record
        else f"recorded run of commit {d.claim.commit[:12]}"
        if d.recorded
        else f"this run ({d.claim.profile} profile)"
    )
    n, scale = d.claim.n_trials, scale or d.scale
    long = horizon(record, directory) if record else ""
    long = f" x {long}" if long and long.split()[-1] not in scale else ""
    return f"{run}: {n} trial{'s' * (n != 1)} per arm{long}, {scale}"


def records_note(paper: str, decided: Sequence[Decided], directory: Path | None = None) -> str:
    """Markdown beneath a chapter's claims table: one
    :func:`~privrl.chapter.compute.record_line` (compute and rerun command) per record that
    decided rows of ``decided`` (:func:`records_of`: where two records carry a deciding commit,
    e.g. ono2020's two set-ups, both), in order of first use; "" when every row was decided on
    this run."""
    names = dict.fromkeys(name for d in decided for name in records_of(paper, d, directory))
    if not names:
        return ""
    lines = [f"- {record_line(n, directory)}" for n in names]
    return "**The records behind these verdicts, their compute and rerun commands:**\n\n" + (
        "\n".join(lines) + "\n"
    )


def _bound(x: float) -> str:
    """An interval's end as the tables write a number; an end the data leave open (infinite)
    is "unbounded"."""
    return "unbounded" if math.isinf(x) else format_number(x)


def evidence_sentence(claim: Claim) -> str:
    """The evidence of ``claim`` in one sentence for a claims table: statistic, estimate and 95%
    interval (numbers as the tables write them, an open end "unbounded"), trials per arm and
    the reason (for an inconclusive verdict: which way the estimate leans and how many trials
    would decide it); the reason alone, with its trials, for a claim without a statistic."""
    if claim.value is None:
        return f"{claim.reason} (n = {claim.n_trials})"
    interval = (
        ""
        if claim.interval is None
        else ", 95% interval [" + ", ".join(_bound(float(x)) for x in claim.interval) + "]"
    )
    return (
        f"{claim.statistic} = {format_number(float(claim.value))}{interval}, "
        f"n = {claim.n_trials}; {claim.reason}"
    )


def claims_table(
    paper: str, decided: Sequence[Decided], scales: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """The decided claims of chapter ``paper`` as its claims table: key, claim, verdict,
    evidence (statistic, 95% interval, trials and reason) and "decided on" (with the scale
    ``scales`` gives a key, where its record ran the claim's arms smaller than the rest)."""
    scales = scales or {}
    return pd.DataFrame(
        [
            {
                "key": d.key,
                "claim": d.claim.statement,
                "verdict": d.claim.verdict,
                "evidence": evidence_sentence(d.claim),
                "decided on": decided_on(paper, d, scales.get(d.key, "")),
            }
            for d in decided
        ],
        columns=["key", "claim", "verdict", "evidence", "decided on"],
    )


def every_record(claims: Sequence[Claim], sources: Sequence[EvidenceSource]) -> list[Decided]:
    """Each claim decided on a record (not on this run: profile ``quick``) as a row of its own,
    keyed as its chapter's ``sources`` say (:func:`~privrl.chapter.decided.base_key`), for a
    chapter that sets its records' verdicts side by side (the verdict the book reports is
    :func:`~privrl.chapter.decided.decided_claims`'s)."""
    return [Decided(base_key(c.key, sources), c) for c in claims if c.profile != "quick"]


def on_run(claims: Sequence[Claim], profile: str) -> list[Decided]:
    """Each claim decided on this run (of ``profile``), as a row of its own: the chapter's
    section on its own run sets them beside the verdicts the book reports."""
    return [Decided(c.key, c) for c in claims if c.profile == profile]


def claims_for_reading(frame: pd.DataFrame) -> Table:
    """A claims table (:func:`claims_table`'s columns) laid out for reading: each column its
    share of :data:`CLAIMS_WIDTHS`, the key small beneath its claim."""
    return format_table(frame, beneath={"claim": "key"}, widths=CLAIMS_WIDTHS)


__all__ = [
    "CLAIMS_WIDTHS",
    "HORIZONS",
    "claims_for_reading",
    "claims_table",
    "decided_on",
    "evidence_sentence",
    "every_record",
    "horizon",
    "on_run",
    "record_of",
    "records_note",
    "records_of",
]
