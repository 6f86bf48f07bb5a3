"""A record's compute line and rerun command (:mod:`privrl.chapter.compute`), and the note of
the records behind a chapter's verdicts (:func:`privrl.chapter.decided_on.records_note`)."""

from __future__ import annotations

import json
import re

import pytest

from privrl.chapter.compute import (
    NO_COMMAND,
    compute_line,
    core_hours,
    measurements,
    record_line,
    rerun_command,
)
from privrl.chapter.decided import EvidenceSource, decided_claims
from privrl.chapter.decided_on import records_note
from privrl.chapter.records import MEASUREMENTS, SOURCE_ROOT
from privrl.chapter.verdicts import Claim

RECORDS = sorted((SOURCE_ROOT / MEASUREMENTS).glob("*.json"))
#: A compute line: core-hours (a bound says "at most"), how, wall time, CPUs and machine.
LINE = re.compile(
    r"^(at most )?\d+\.\d\d core-hours \((workers' compute, [\d,]+ s|CPU time, [\d,]+ s|"
    r"wall time x \d+ workers?|wall time x \d+ CPUs)\), wall time [\d.]+ (s|min|h) on \d+ "
    r"CPUs, \S+$"
)


def test_the_book_has_records():
    assert RECORDS and measurements() == SOURCE_ROOT / MEASUREMENTS


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_every_record_yields_a_compute_line_and_its_command(path):
    record = json.loads(path.read_text())
    assert LINE.match(compute_line(record)), compute_line(record)
    line = record_line(path.stem)
    assert line.startswith(f"Record `{path.stem}`: {compute_line(record)}; ")
    command = rerun_command(record)
    if command is None:  # never made up: the record says it has none
        assert "command" not in record or not record["command"]
        assert line.endswith(NO_COMMAND + ".")
    else:
        assert line.endswith(f"rerun: `{record['command']}`.")


def test_core_hours_take_the_measured_compute_first_and_else_say_what_bounds_them():
    run = {"wall_time_s": 3600.0, "cpus": 4, "machine": "x86_64"}
    assert core_hours({**run, "compute_s": 1800.0, "cpu_time_s": 99.0, "workers": 3}) == (
        0.5,
        "workers' compute, 1,800 s",
    )
    assert core_hours({**run, "cpu_time_s": 900.0, "workers": 3}) == (0.25, "CPU time, 900 s")
    assert core_hours({**run, "workers": 3}) == (3.0, "wall time x 3 workers")
    assert core_hours(run) == (4.0, "at most: wall time x 4 CPUs")
    assert compute_line(run) == (
        "at most 4.00 core-hours (wall time x 4 CPUs), wall time 60.0 min on 4 CPUs, x86_64"
    )
    with pytest.raises(ValueError, match="wall_time_s"):
        core_hours({"cpus": 2})


def _claim(key: str, profile: str, commit: str) -> Claim:
    return Claim(
        verdict="reproduced",
        statistic="mean",
        value=1.0,
        interval=(0.5, 1.5),
        n_trials=20,
        reason="why",
        key=key,
        statement=f"claim {key}",
        profile=profile,
        commit=commit,
    )


def test_the_note_beneath_a_claims_table_names_each_deciding_record_once(tmp_path):
    record = {"git_commit": "rec1", "wall_time_s": 7200.0, "cpus": 2, "machine": "x86_64"}
    (tmp_path / "toy-paper.json").write_text(json.dumps({**record, "command": "python -m toy"}))
    rows = decided_claims(
        [_claim("a_paper", "paper", "rec1"), _claim("b_paper", "paper", "rec1")]
        + [_claim("c", "quick", "live")],
        (EvidenceSource("paper", "_paper", "the recorded paper-profile run"),),
    )
    note = records_note("toy", rows, tmp_path)
    assert note.count("- Record `toy-paper`: at most 4.00 core-hours") == 1
    assert "rerun: `python -m toy`." in note
    assert records_note("toy", [d for d in rows if d.key == "c"], tmp_path) == ""
    # two records of one commit (ono2020's two set-ups): the note names both
    (tmp_path / "toy-other.json").write_text(json.dumps(record))
    note = records_note("toy", rows, tmp_path)
    assert "- Record `toy-other`: " in note and "- Record `toy-paper`: " in note
