"""Re-stamp recorded paper-scale runs after a refactor that changed no number.

A recorded run is *stale* once a file of its chapter's code closure differs from the recorded
commit (:func:`privrl.chapter.records.recorded_run`); moving modules makes every record stale,
although nothing it measured changed. Re-running hours of paper-scale experiments to show that
would be waste, so this script re-stamps a record instead, and only on evidence:

1. the chapter's quick profile was run on the tree of the recorded code (``--before``) and on the
   refactored tree (``--after``), each with ``privrl run NAME -o DIR``;
2. :func:`compare` finds the two runs identical: every check's observed value, every claim's
   verdict, statistic, value and interval, every erratum, every ledger entry's epsilon, delta,
   noise and compositions, and the tidy results table, to the last bit; or every difference it
   finds is one the caller accepts by name (``--accept REGEX``: wall-clock timings, a relabelled
   field), and the evidence lists each accepted difference;
3. then the record's ``git_commit`` becomes ``--commit`` (the refactored tree that was compared),
   and ``restamped`` keeps the commit it was recorded at and the evidence.

Usage::

    python -m privrl.pipeline.restamp --before /tmp/before --after /tmp/after --commit abc123 \
        balle2016 xie2019
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from privrl.chapter.records import find_root, record_path, recorded_summary_path

LEDGER_NUMBERS = (
    "release",
    "mechanism",
    "relation",
    "unit",
    "noise",
    "epsilon",
    "delta",
    "compositions",
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def compare(before: Path, after: Path, name: str, tables_only: bool = False) -> list[str]:
    """Differences between two quick runs of chapter ``name`` (empty when identical); the
    commit stamps and the ledger's schema (events, kinds of cross-check) are not compared.
    ``tables_only``: only the tidy results table, for a record that names the modules that
    produced its tables (``produced_by``), whose claims the chapter decides anew on every build."""
    diffs: list[str] = []
    for folder in (before, after):
        if not (folder / f"{name}.summary.json").exists():
            raise FileNotFoundError(
                f"no quick run of {name!r} in {folder} ({name}.summary.json "
                "missing): nothing to compare"
            )
    if tables_only:
        return _compare_tables(before, after, name)
    a = json.loads((before / f"{name}.summary.json").read_text())
    b = json.loads((after / f"{name}.summary.json").read_text())
    for part in ("checks", "claims", "errata"):
        left = {d["key"]: d for d in a.get(part, [])}
        right = {d["key"]: d for d in b.get(part, [])}
        if sorted(left) != sorted(right):
            diffs.append(f"{part}: keys {sorted(left)} before, {sorted(right)} after")
        for key in left.keys() & right.keys():
            for field in sorted((left[key].keys() | right[key].keys()) - {"commit"}):
                if not _same(left[key].get(field), right[key].get(field)):
                    diffs.append(
                        f"{part}[{key}].{field}: {left[key].get(field)!r} -> "
                        f"{right[key].get(field)!r}"
                    )
    for part in ("checks", "claims", "errata"):
        left = [d["key"] for d in a.get(part, [])]
        right = [d["key"] for d in b.get(part, [])]
        if sorted(left) == sorted(right) and left != right:
            diffs.append(f"{part}: same keys in another order")
    ledger_a, ledger_b = a.get("ledger", []), b.get("ledger", [])
    if len(ledger_a) != len(ledger_b):
        diffs.append(f"ledger: {len(ledger_a)} entries before, {len(ledger_b)} after")
    for ea, eb in zip(ledger_a, ledger_b, strict=False):
        diffs += [
            f"ledger[{ea.get('release')!r}].{f}: {ea.get(f)!r} -> {eb.get(f)!r}"
            for f in LEDGER_NUMBERS
            if not _same(ea.get(f), eb.get(f))
        ]
    return diffs + _compare_tables(before, after, name)


def _compare_tables(before: Path, after: Path, name: str) -> list[str]:
    diffs = []
    table_a, table_b = before / f"{name}.results.csv", after / f"{name}.results.csv"
    if not (table_a.exists() or table_b.exists()):
        raise FileNotFoundError(f"neither {before} nor {after} has {name}.results.csv")
    if table_a.exists() != table_b.exists():
        diffs.append("results.csv written by one run only")
    else:
        left, right = pd.read_csv(table_a), pd.read_csv(table_b)
        if list(left.columns) != list(right.columns) or len(left) != len(right):
            diffs.append("results.csv: other columns or rows")
        else:
            diffs += [
                f"results.csv column {col!r} differs"
                for col in left.columns
                if not left[col].equals(right[col])
            ]
    return diffs


def restamp(
    root: Path,
    name: str,
    commit: str,
    evidence: str,
    produced_by: list[str] | None = None,
    profile: str = "paper",
) -> list[Path]:
    """Set the recorded ``profile`` run's ``git_commit`` to ``commit`` (cut to 12 characters, as
    every record's stamp), keeping the old one and
    ``evidence`` under ``restamped``, in its run record and in its saved summary (where there is
    one); with ``produced_by``, also name the modules whose code computed the recorded tables
    (their code, not the whole chapter's, then decides whether the record is stale)."""
    commit = commit[:12]  # the stamp every record carries (records.git_commit)
    written = []
    for path in (record_path(root, name, profile), recorded_summary_path(root, name, profile)):
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        record = data["record"] if "record" in data else data
        record["restamped"] = {
            "recorded_at": record.get("git_commit"),
            "evidence": evidence,
            **({"earlier": record["restamped"]} if "restamped" in record else {}),
        }
        record["git_commit"] = commit
        if produced_by:
            record["produced_by"] = produced_by
        path.write_text(json.dumps(data, indent=2) + "\n")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names",
        nargs="+",
        metavar="NAME[:PROFILE]",
        help="chapters whose recorded run to re-stamp (profile: paper unless "
        "given, e.g. ono2020:reference)",
    )
    parser.add_argument("--before", required=True, help="folder of quick runs of the old tree")
    parser.add_argument("--after", required=True, help="folder of quick runs of the new tree")
    parser.add_argument("--commit", required=True, help="the commit the --after runs ran on")
    parser.add_argument("--old-tree", required=True, help="the commit the --before runs ran on")
    parser.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="REGEX",
        help="a difference to accept (matched against its description); the "
        "evidence lists every accepted difference",
    )
    parser.add_argument(
        "--note", default="", help="further evidence in words, added to the evidence kept"
    )
    parser.add_argument(
        "--tables-only",
        action="store_true",
        help="compare the results tables only (records with produced_by)",
    )
    parser.add_argument(
        "--produced-by",
        action="append",
        default=[],
        metavar="NAME[:PROFILE]=MODULE,...",
        help="the modules whose code computed that record's tables",
    )
    args = parser.parse_args(argv)
    producers = {n: m.split(",") for n, m in (item.split("=", 1) for item in args.produced_by)}
    root = find_root()
    failed = False
    for item in args.names:
        name, _, profile = item.partition(":")
        before, after = Path(args.before) / name, Path(args.after) / name
        diffs = compare(before, after, name, args.tables_only)
        accepted = [d for d in diffs if any(re.search(rx, d) for rx in args.accept)]
        refused = [d for d in diffs if d not in accepted]
        if refused:
            failed = True
            print(f"{name}: NOT re-stamped, the quick runs differ:\n  " + "\n  ".join(refused))
            continue
        summary = json.loads((after / f"{name}.summary.json").read_text())
        if args.tables_only:
            evidence = (
                f"the code that produced the recorded tables computes the same: the results "
                f"table of the quick profile run on {args.old_tree} and on {args.commit} "
                "agree exactly (the chapter's claims are decided anew on every build)"
            )
        else:
            evidence = (
                f"refactor without numeric change: the quick profile run on {args.old_tree} "
                f"and on {args.commit} agree exactly ({len(summary.get('checks', []))} "
                f"checks, {len(summary.get('claims', []))} claims, "
                f"{len(summary.get('ledger', []))} ledger entries, "
                f"{len(summary.get('errata', []))} errata, the results table)"
            )
        if accepted:
            evidence += "; accepted differences: " + "; ".join(accepted)
        if args.note:
            evidence += f"; {args.note}"
        for path in restamp(
            root, name, args.commit, evidence, producers.get(item), profile or "paper"
        ):
            print(f"{name}: re-stamped {path.relative_to(root)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
