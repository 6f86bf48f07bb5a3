"""Provenance of recorded paper-scale runs: which commit produced them, and is that still the code?

``privrl run NAME --profile paper --record`` stores a run record (commit, date, wall time,
machine) in ``book/measurements/NAME-paper.json`` and, when the notebook saved one, the run's
summary beside it in ``book/measurements/results/NAME-paper.json``. A chapter that shows such a
recorded run beside its live quick run must say whether the record still describes the code: the
record is **stale** when the experiment module ``privrl/experiments/NAME.py``, or any ``privrl``
module it imports (directly or through other ``privrl`` modules), differs between the recorded
commit and the checked-out source tree (committed or not). The book pipeline's own modules
(:data:`PIPELINE_MODULES`: executing chapters, generating pages, checking the site, judging
staleness) compute no number of a run, so a change to them does not make a record stale.
"""

from __future__ import annotations

import ast
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privrl.reporting import recorded_summary_path
from privrl.verdicts import Claim

#: Modules of the book pipeline: an experiment may import them (e.g. to find the repository), but
#: they compute none of its numbers, so :func:`experiment_sources` leaves them (and what only
#: they import) out.
PIPELINE_MODULES = frozenset(
    {"privrl.book", "privrl.cli", "privrl.pages", "privrl.provenance", "privrl.site_check",
     "privrl.sphinx_offline"})

#: The source tree the running ``privrl`` package was imported from.
SOURCE_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class RecordedRun:
    """A recorded run of ``name`` at ``profile`` and whether its code has changed since.

    ``stale`` is ``True`` when a file of :func:`experiment_sources` differs between the recorded
    commit and the source tree (``changed`` lists them), ``False`` when none does, and ``None``
    when it cannot be decided (no git, or the recorded commit is not in the history);
    ``stale_reason`` says which in words.
    """

    name: str
    profile: str
    record: dict[str, Any]
    summary: dict[str, Any] | None
    stale: bool | None
    changed: tuple[str, ...]
    stale_reason: str

    @property
    def commit(self) -> str:
        return str(self.record.get("git_commit", "unknown"))

    @property
    def date(self) -> str:
        return str(self.record.get("finished_at", ""))[:10]

    @property
    def wall_time_s(self) -> float:
        return float(self.record.get("wall_time_s", float("nan")))

    @property
    def wall_time_text(self) -> str:
        return format_duration(self.wall_time_s)

    @property
    def machine(self) -> str:
        r = self.record
        return f"{r.get('cpus', '?')} CPUs, {r.get('machine', '?')}, Python {r.get('python', '?')}"

    @property
    def status(self) -> str:
        """``current``, ``stale`` or ``unknown``, for tables."""
        return {True: "stale", False: "current", None: "unknown"}[self.stale]


def format_duration(seconds: float) -> str:
    """``"42 s"`` below two minutes, ``"3.5 min"`` below two hours, else ``"2.1 h"``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def _module_file(module: str, root: Path) -> Path | None:
    """The source file of a ``privrl`` module under ``root`` (package ``__init__`` or ``.py``)."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported_modules(path: Path, module: str) -> set[str]:
    """``privrl`` modules that ``path`` (the source of ``module``) imports, with their packages."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if name == "privrl" or name.startswith("privrl."):
                parts = name.split(".")
                found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return found


def experiment_sources(name: str, root: Path = SOURCE_ROOT) -> list[Path]:
    """``privrl/experiments/<name>.py`` (or ``privrl/<name>.py`` for a chapter of the book's own,
    such as the Audits chapter) and every ``privrl`` module it imports, transitively
    (packages' ``__init__`` files included), as paths relative to ``root``, sorted; the book
    pipeline's modules (:data:`PIPELINE_MODULES`) are not followed."""
    start = f"privrl.experiments.{name}"
    if _module_file(start, root) is None:
        start = f"privrl.{name}"  # a chapter of the book's own (the Audits chapter: privrl/audits.py)
    if _module_file(start, root) is None:
        raise ValueError(f"name: no experiment module privrl/experiments/{name}.py "
                         f"(nor privrl/{name}.py) under {root}")
    seen: set[str] = set()
    todo = [start]
    files: set[Path] = set()
    while todo:
        module = todo.pop()
        if module in seen or module in PIPELINE_MODULES:
            continue
        seen.add(module)
        path = _module_file(module, root)
        if path is None:  # an imported name that is not a module (a function or class)
            continue
        files.add(path.relative_to(root))
        todo.extend(_imported_modules(path, module) - seen)
    return sorted(files)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    except OSError:
        return None


def changed_since(commit: str, files: list[Path], root: Path = SOURCE_ROOT) -> tuple[bool | None, tuple[str, ...], str]:
    """Whether any of ``files`` differs between ``commit`` and the working tree of ``root``.

    Returns ``(stale, changed files, reason in words)``; ``stale`` is ``None`` when git cannot
    answer (not a repository, or ``commit`` unknown to it).
    """
    known = _git(root, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if known is None or known.returncode != 0:
        return None, (), f"commit {commit} is not in this source tree's git history"
    diff = _git(root, "diff", "--name-only", commit, "--", *map(str, files))
    if diff is None or diff.returncode != 0:
        return None, (), "git diff failed"
    changed = tuple(line for line in diff.stdout.splitlines() if line.strip())
    if changed:
        return True, changed, f"changed since {commit}: {', '.join(changed)}"
    return False, (), f"experiment code unchanged since {commit}"


def recorded_run(name: str, profile: str = "paper", root: Path | None = None,
                 source_root: Path = SOURCE_ROOT) -> RecordedRun | None:
    """The recorded run of ``name`` at ``profile`` (record + summary) and whether it is stale,
    or ``None`` when no run was recorded.

    Records are read from the book at ``root`` (default: the source tree), staleness is judged
    against the git history of ``source_root`` (the tree the running ``privrl`` comes from).
    """
    root = root or source_root
    record_path = root / "book" / "measurements" / f"{name}-{profile}.json"
    summary_path = recorded_summary_path(root, name, profile)
    record: dict[str, Any] | None = None
    summary: dict[str, Any] | None = None
    if summary_path.exists():
        payload = json.loads(summary_path.read_text())
        record, summary = payload.get("record"), payload.get("summary")
    if record is None and record_path.exists():
        record = json.loads(record_path.read_text())
    if record is None:
        return None
    commit = str(record.get("git_commit", "unknown"))
    try:
        files = experiment_sources(name, source_root)
    except ValueError as err:
        stale, changed, reason = None, (), str(err)
    else:
        stale, changed, reason = changed_since(commit, files, source_root)
    if record.get("git_dirty") and stale is False:
        stale, reason = None, (f"recorded at {commit} with uncommitted changes in the tree: whether "
                               "they touched the experiment code is not known")
    return RecordedRun(name, profile, record, summary, stale, changed, reason)


def recorded_claims(name: str, profile: str = "paper", suffix: str = "_paper",
                    root: Path | None = None, source_root: Path = SOURCE_ROOT) -> list[Claim]:
    """The claims a recorded run of ``name`` decided (from its saved summary), for a chapter to
    list beside its live claims: keyed ``<key><suffix>`` and stamped with the recorded run's
    profile and commit. Empty when no run (or no summary) was recorded."""
    run = recorded_run(name, profile, root, source_root)
    if run is None or not run.summary:
        return []
    claims = []
    for c in run.summary.get("claims", []):
        interval = tuple(c["interval"]) if c.get("interval") is not None else None
        claims.append(Claim(**{**c, "key": f"{c['key']}{suffix}", "interval": interval,
                               "profile": profile, "commit": run.commit}))
    return claims


__all__ = ["PIPELINE_MODULES", "RecordedRun", "changed_since", "experiment_sources",
           "format_duration", "recorded_claims", "recorded_run"]
