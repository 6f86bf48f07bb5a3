"""Where things live: the repository root, git, recorded results, and the code a run depends on.

The one module of the library that knows the repository's layout and asks git. Everything else
(the report stamping claims with a commit, the sweep hashing the code of a run, the recorders
writing a paper-scale run, the book pipeline judging whether a record is stale) goes through it.

* **Layout.** ``privrl run NAME --profile paper --record`` stores a run record in
  ``book/measurements/NAME-paper.json`` (:func:`record_path`) and the run's summary beside its
  results in ``book/measurements/results/`` (:data:`RESULTS`, :func:`recorded_summary_path`);
  paper-scale recorders write their tidy CSVs into the same folder (:func:`results_dir`).
* **Code closures.** :func:`module_closure` follows ``privrl`` imports transitively (read from the
  import statements, no import executed). A module that computes no number of a run
  (:func:`computes_numbers` is false: the book pipeline, plotting, this module) is not followed, so
  editing it neither invalidates a sweep's cache nor makes a recorded run stale.
* **Staleness.** A recorded run is *stale* when a file of its chapter's closure
  (:func:`experiment_sources`) differs between the recorded commit and the source tree
  (:func:`changed_since`, :func:`recorded_run`) as code: its syntax tree without docstrings
  (:func:`code_of`), so formatting, comments and docstrings never make a record stale.
"""

from __future__ import annotations

import ast
import datetime as dt
import functools
import importlib
import json
import os
import platform
import resource
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pandas as pd

from privrl.chapter.verdicts import Claim
from privrl.core.results_version import REGISTRY

#: The source tree the running ``privrl`` package was imported from (the repository root when
#: installed in editable mode).
SOURCE_ROOT = Path(__file__).resolve().parents[2]
#: The ``privrl`` package folder (its ``data/`` holds the trained networks chapters start from).
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: Run records of recorded runs, relative to the repository root.
MEASUREMENTS = Path("book") / "measurements"
#: Recorded results (summaries and tidy CSVs of paper-scale runs), relative to the root.
RESULTS = MEASUREMENTS / "results"
#: Modules (and packages: every module under them) that compute no number of a run (``tables``
#: formats numbers for the page; a record stores them unformatted).
NON_COMPUTING: tuple[str, ...] = (
    "privrl.pipeline",
    "privrl.chapter.plotting",
    "privrl.chapter.tables",
    "privrl.chapter.records",
    "privrl.chapter.front",
    "privrl.chapter.figures",
    "privrl.chapter.decided_on",
    "privrl.chapter.compute",
    "privrl.chapter.colours",
)
#: The top package's own ``__init__`` computes no number either: it holds the version and
#: re-exports :mod:`privrl.api` lazily, by name (an edit of the API list made every record stale;
#: ``tests/chapter/test_record_versions.py`` holds that it imports no ``privrl`` module).
INERT_PACKAGES: tuple[str, ...] = ("privrl",)


# --- the repository and git -------------------------------------------------------------------


def find_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The repository root: the nearest folder at or above ``start`` holding ``_config.yml``."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_config.yml").exists() and (folder / "notebooks").is_dir():
            return folder
    raise ValueError(
        f"no privrl book (a folder with _config.yml and notebooks/) at or above {here}"
    )


def git(root: str | os.PathLike[str], *args: str) -> str | None:
    """Output of ``git ARGS`` run in ``root`` (stripped), or ``None`` when git fails or is missing."""
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def current_commit(start: str | os.PathLike[str] | None = None) -> str:
    """Short hash of the checked-out commit: of the git tree at or above ``start`` (default: the
    working directory), else of the source tree the package was imported from (papermill may run
    a chapter in an output folder outside the repository); "unknown" if neither is in git."""
    for folder in (start or Path.cwd(), SOURCE_ROOT):
        out = git(folder, "rev-parse", "--short=12", "HEAD")
        if out:
            return out
    return "unknown"


#: What a run record's ``git_dirty`` looks at: the code a run executes (the package and the
#: notebooks), not the measurement files another run may be writing.
CODE_PATHS: tuple[str, ...] = ("privrl", "notebooks")


def code_dirty(root: str | os.PathLike[str] = SOURCE_ROOT) -> bool:
    """Whether the tree at ``root`` has uncommitted changes to tracked files of
    :data:`CODE_PATHS`: a record made now cannot name the code it ran by a commit alone."""
    return bool(git(root, "status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS))


# --- run records ----------------------------------------------------------------------------------

#: Packages whose versions a run record states.
KEY_PACKAGES: tuple[str, ...] = (
    "privrl",
    "numpy",
    "scipy",
    "pandas",
    "torch",
    "gymnasium",
    "ale-py",
    "dp-accounting",
    "dask",
    "papermill",
    "jupyter-book",
    "myst-nb",
)


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`KEY_PACKAGES` (``"not installed"`` for a missing one)."""
    out = {}
    for name in KEY_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


@dataclass
class RunRecord:
    """The one run record of the book: what ran (``notebook``, ``profile``, ``parameters``), on
    which code (``git_commit``: the commit checked out when the run *started*; ``git_dirty``:
    uncommitted code then), how long and on what (wall time, peak memory, Python, machine, CPUs,
    package versions), and when it finished. ``extra`` holds what a recorder adds (reference
    returns, thresholds, the command that made it, the files it wrote)."""

    notebook: str
    profile: str
    parameters: dict[str, Any]
    wall_time_s: float
    peak_memory_mb: float
    git_commit: str
    git_dirty: bool
    python: str
    machine: str
    cpus: int
    finished_at: str
    versions: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def now(
        cls,
        *,
        notebook: str,
        profile: str,
        parameters: dict[str, Any],
        wall_time_s: float,
        git_commit: str,
        git_dirty: bool,
        peak_memory_mb: float | None = None,
        **extra: Any,
    ) -> RunRecord:
        """A record of a run that finished now, on this machine; a record ``produced_by``
        modules whose code closure declares results versions also keeps them
        (``results_versions``, :func:`declared_versions`), by which its staleness is judged."""
        if peak_memory_mb is None:
            peak_memory_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if extra.get("produced_by") and "results_versions" not in extra:
            declared = declared_versions(extra["produced_by"])
            if declared:
                extra["results_versions"] = declared
        return cls(
            notebook=notebook,
            profile=profile,
            parameters=dict(parameters),
            wall_time_s=round(float(wall_time_s), 2),
            peak_memory_mb=round(float(peak_memory_mb), 1),
            git_commit=git_commit,
            git_dirty=bool(git_dirty),
            python=platform.python_version(),
            machine=platform.machine(),
            cpus=os.cpu_count() or 1,
            finished_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            versions=package_versions(),
            extra=extra,
        )

    def as_dict(self) -> dict[str, Any]:
        """The record as written: ``extra``'s keys at the top level beside the others."""
        out = asdict(self)
        return {**{k: v for k, v in out.items() if k != "extra"}, **out["extra"]}

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the record as JSON to ``path`` (folders created); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_dict(), indent=2, default=str) + "\n")
        return path


def command_line(module: str, argv: list[str] | None = None) -> str:
    """The shell command that ran ``python -m module`` with ``argv`` (default: this process's
    arguments), quoted so that it can be pasted back (a run record's ``command``)."""
    return shlex.join(["python", "-m", module, *(sys.argv[1:] if argv is None else argv)])


# --- recorded results -------------------------------------------------------------------------


def record_path(root: Path, name: str, profile: str) -> Path:
    """Where ``privrl run NAME --profile PROFILE --record`` keeps the run record."""
    return root / MEASUREMENTS / f"{name}-{profile}.json"


def recorded_summary_path(root: Path, name: str, profile: str) -> Path:
    """Where ``privrl run NAME --profile PROFILE --record`` keeps the run's summary."""
    return root / RESULTS / f"{name}-{profile}.json"


def _book_roots(start: str | os.PathLike[str] | None) -> list[Path]:
    roots = []
    try:
        roots.append(find_root(start))
    except ValueError:
        pass
    return [*roots, SOURCE_ROOT]


def results_dir(start: str | os.PathLike[str] | None = None) -> Path:
    """``book/measurements/results`` of the book at or above ``start`` (default: the working
    directory, which is the staged book during ``privrl book``), else of the source tree."""
    for root in _book_roots(start):
        if (root / MEASUREMENTS).is_dir():
            return root / RESULTS
    raise ValueError(f"no {MEASUREMENTS} at or above {start or Path.cwd()} nor in {SOURCE_ROOT}")


def recorded_file(filename: str, start: str | os.PathLike[str] | None = None) -> Path | None:
    """A recorded results file (``book/measurements/results/<filename>``) of the book at or above
    ``start``, else of the source tree; ``None`` when neither has it."""
    for root in _book_roots(start):
        path = root / RESULTS / filename
        if path.exists():
            return path
    return None


def read_recorded(
    files: dict[str, str], record_json: str, directory: Path | None = None
) -> dict[str, Any] | None:
    """A recorded run's CSVs ``files`` (name -> file in ``book/measurements/results/``, read as
    frames) and, under ``"record"``, its run record ``record_json`` one folder up (``{}`` when
    absent); ``None`` when the first CSV is absent (looked up with :func:`recorded_file` unless
    ``directory`` is given)."""
    first = next(iter(files.values()))
    if directory is None:
        found = recorded_file(first)
        if found is None:
            return None
        directory = found.parent
    directory = Path(directory)
    if not (directory / first).exists():
        return None
    record_file = directory.parent / record_json
    out: dict[str, Any] = {name: pd.read_csv(directory / file) for name, file in files.items()}
    out["record"] = json.loads(record_file.read_text()) if record_file.exists() else {}
    return out


def recorded_summary(
    name: str, profile: str, start: str | os.PathLike[str] | None = None
) -> dict | None:
    """The recorded summary of a run of another profile (e.g. the paper-scale run shown in a
    quick-profile chapter), or ``None`` if none was recorded (looked up as :func:`recorded_file`)."""
    path = recorded_file(f"{name}-{profile}.json", start)
    return None if path is None else json.loads(path.read_text())


# --- code closures ----------------------------------------------------------------------------


def computes_numbers(module: str) -> bool:
    """False for the modules that compute no number of a run (:data:`NON_COMPUTING`,
    :data:`INERT_PACKAGES`, and the ``plots`` module of a paper's chapter)."""
    if module in INERT_PACKAGES or (
        module.startswith("privrl.papers.") and module.endswith(".plots")
    ):
        return False
    return not any(module == m or module.startswith(m + ".") for m in NON_COMPUTING)


def imported_modules(path: Path, module: str) -> set[str]:
    """``privrl`` modules that ``path`` (the source of ``module``) imports, with their packages;
    ``from privrl.x import y`` also names ``privrl.x.y``, which may be a module. A text is
    parsed once per process: a chapter's claims ask for the closures of its records dozens of
    times in one run."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return set(_imports(path.read_text(), str(path), package))


@functools.lru_cache(maxsize=4096)
def _imports(text: str, where: str, package: str) -> frozenset[str]:
    """:func:`imported_modules` of the source ``text`` (of file ``where``) in ``package``."""
    tree = ast.parse(text, filename=where)
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
    return frozenset(found)


def module_file(module: str, root: Path = SOURCE_ROOT) -> Path | None:
    """The source file of a module under ``root`` (package ``__init__`` or ``.py``), if any."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_closure(start: Iterable[str], locate: Callable[[str], Path | None]) -> dict[str, Path]:
    """Every module reachable from ``start`` through ``privrl`` imports, with its file.

    ``locate`` maps a module name to its source file (``None``: not a module, e.g. an imported
    function). Start modules are always included; a module for which :func:`computes_numbers` is
    false is neither included nor followed.
    """
    start = list(start)
    seen: dict[str, Path] = {}
    visited: set[str] = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        if module in visited or (module not in start and not computes_numbers(module)):
            continue
        visited.add(module)
        path = locate(module)
        if path is None:
            continue
        seen[module] = path
        todo.extend(imported_modules(path, module) - visited)
    return seen


def chapter_modules(name: str, root: Path = SOURCE_ROOT) -> list[str]:
    """The computing modules of the chapter package ``privrl/papers/<name>/``."""
    folder = root / "privrl" / "papers" / name
    if not (folder / "__init__.py").is_file():
        raise ValueError(f"name: no chapter package privrl/papers/{name}/ under {root}")
    modules = [f"privrl.papers.{name}"]
    modules += [
        f"privrl.papers.{name}.{p.stem}"
        for p in sorted(folder.glob("*.py"))
        if p.name != "__init__.py"
    ]
    return [m for m in modules if computes_numbers(m)]


def experiment_sources(
    name: str, root: Path = SOURCE_ROOT, produced_by: Iterable[str] | None = None
) -> list[Path]:
    """The files of chapter ``name`` (``privrl/papers/<name>/``), or of the modules
    ``produced_by`` when given (the modules whose code computed a recorded table, e.g. the run
    functions of a sweep), and of every ``privrl`` module they import, transitively (packages'
    ``__init__`` files included), relative to ``root`` and sorted; modules that compute no
    number (:func:`computes_numbers`) are left out."""
    start = list(produced_by) if produced_by else chapter_modules(name, root)
    closure = module_closure(start, lambda m: module_file(m, root))
    return sorted(path.relative_to(root) for path in closure.values())


def declared_versions(produced_by: Iterable[str], root: Path = SOURCE_ROOT) -> dict[str, str]:
    """The results versions (:mod:`privrl.core.results_version`) that the run functions in the
    code closure of the modules ``produced_by`` declare, by ``module.qualname``: the promise that
    a recorded table's numbers are what the code computes while the tags stand."""
    closure = module_closure(list(produced_by), lambda m: module_file(m, root))
    for module, path in closure.items():
        if "@results_version(" in path.read_text():
            importlib.import_module(module)
    return {
        name: run.tag
        for name, run in sorted(REGISTRY.items())
        if name.rpartition(".")[0] in closure
    }


def versions_changed(
    recorded: dict[str, str], produced_by: Iterable[str], root: Path = SOURCE_ROOT
) -> tuple[bool | None, tuple[str, ...], str]:
    """Whether a record's results versions (``recorded``, by function) differ from the ones its
    ``produced_by`` modules declare now: ``(stale, changed functions, reason in words)``;
    ``stale`` is ``None`` when a module cannot be imported (a missing dependency); any other
    error a module raises is raised (a broken module fails the page that reads the record)."""
    try:
        now = declared_versions(produced_by, root)
    except ImportError as err:
        return None, (), f"its run functions could not be imported ({err})"
    changed = tuple(
        name for name in sorted(set(recorded) | set(now)) if recorded.get(name) != now.get(name)
    )
    if changed:
        return (
            True,
            changed,
            "results version changed since it was recorded: "
            + ", ".join(
                f"{n} ({recorded.get(n, 'none')} -> {now.get(n, 'none')})" for n in changed
            ),
        )
    tags = ", ".join(f"{n.rpartition('.')[2]} {t}" for n, t in sorted(recorded.items()))
    return (
        False,
        (),
        (
            f"results versions unchanged ({tags}), each held to its probe by "
            "tests/chapter/test_results_versions.py"
        ),
    )


# --- staleness of recorded runs -----------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRun:
    """A recorded run of ``name`` at ``profile`` and whether its code has changed since.

    ``stale`` is ``True`` when a file of :func:`experiment_sources` differs between the recorded
    commit and the source tree (``changed`` lists them), ``False`` when none does, and ``None``
    when it cannot be decided (no git, or the recorded commit is not in the history);
    ``stale_reason`` says which in words. A record that names the modules that produced it
    (``produced_by``: a recorded table of run functions, whose claims the chapter decides anew
    on every build) is judged on their code only; otherwise on the whole chapter's. A record
    that keeps the results versions of its run functions (``results_versions``) is judged on
    them instead: stale when a tag changed (a refactor that changes no number keeps the tags,
    and the versions test holds each tag to its probe).
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

    @property
    def provenance(self) -> str:
        """One sentence for a page: commit, date, wall time, machine and whether the code that
        produced it changed since (e.g. "commit `abc`, 2026-11-25, wall time 24.5 min on 2 CPUs,
        x86_64, Python 3.11.7; current (...)")."""
        state = {
            True: "**stale**: the experiment code changed since it was recorded",
            False: "current: the experiment code is unchanged since it was recorded",
            None: "staleness unknown",
        }[self.stale]
        return (
            f"commit `{self.commit}`, {self.date}, wall time {self.wall_time_text} on "
            f"{self.machine}; {state} ({self.stale_reason})"
        )


def format_duration(seconds: float) -> str:
    """``"42 s"`` below two minutes, ``"3.5 min"`` below two hours, else ``"2.1 h"``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def code_of(source: str) -> str:
    """The code of a Python source as a run executes it: ``ast.dump`` of its syntax tree with
    the docstrings of the module, its classes and functions removed (comments, formatting and
    line numbers are not in the dump); the source itself when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    for node in ast.walk(tree):
        if not isinstance(node, _DOCUMENTED) or not node.body:
            continue
        first = node.body[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            node.body = node.body[1:]
    return ast.dump(tree)


def _code_differs(commit: str, path: str, root: Path) -> bool:
    """Whether ``path`` (relative to ``root``) differs as code (:func:`code_of`) between
    ``commit`` and the working tree; a file absent on either side differs."""
    before = git(root, "show", f"{commit}:{path}")
    file = root / path
    if before is None or not file.is_file():
        return True
    return code_of(before) != code_of(file.read_text())


def changed_since(
    commit: str, files: list[Path], root: Path = SOURCE_ROOT
) -> tuple[bool | None, tuple[str, ...], str]:
    """Whether any of ``files`` differs as code (:func:`code_of`: formatting, comments and
    docstrings aside) between ``commit`` and the working tree of ``root``.

    Returns ``(stale, changed files, reason in words)``; ``stale`` is ``None`` when git cannot
    answer (not a repository, or ``commit`` unknown to it).
    """
    if git(root, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}") is None:
        return None, (), f"commit {commit} is not in this source tree's git history"
    diff = git(root, "diff", "--name-only", commit, "--", *map(str, files))
    if diff is None:
        return None, (), "git diff failed"
    changed = tuple(
        line for line in diff.splitlines() if line.strip() and _code_differs(commit, line, root)
    )
    if changed:
        return True, changed, f"changed since {commit}: {', '.join(changed)}"
    return False, (), f"experiment code unchanged since {commit}"


def recorded_run(
    name: str, profile: str = "paper", root: Path | None = None, source_root: Path = SOURCE_ROOT
) -> RecordedRun | None:
    """The recorded run of ``name`` at ``profile`` (record + summary) and whether it is stale,
    or ``None`` when no run was recorded.

    Records are read from the book at ``root`` (default: the source tree), staleness is judged
    against the git history of ``source_root`` (the tree the running ``privrl`` comes from).
    """
    root = root or source_root
    summary_path = recorded_summary_path(root, name, profile)
    record: dict[str, Any] | None = None
    summary: dict[str, Any] | None = None
    if summary_path.exists():
        payload = json.loads(summary_path.read_text())
        record, summary = payload.get("record"), payload.get("summary")
    if record is None and record_path(root, name, profile).exists():
        record = json.loads(record_path(root, name, profile).read_text())
    if record is None:
        return None
    commit = str(record.get("git_commit", "unknown"))
    if record.get("results_versions") and record.get("produced_by"):
        stale, changed, reason = versions_changed(
            record["results_versions"], record["produced_by"], source_root
        )
    else:
        try:
            files = experiment_sources(name, source_root, record.get("produced_by"))
        except ValueError as err:
            stale, changed, reason = None, (), str(err)
        else:
            stale, changed, reason = changed_since(commit, files, source_root)
    if record.get("git_dirty") and stale is False:
        stale, reason = (
            None,
            (
                f"recorded at {commit} with uncommitted changes in the tree: whether "
                "they touched the experiment code is not known"
            ),
        )
    return RecordedRun(name, profile, record, summary, stale, changed, reason)


def recorded_claims(
    name: str,
    profile: str = "paper",
    *,
    suffix: str,
    root: Path | None = None,
    source_root: Path = SOURCE_ROOT,
) -> list[Claim]:
    """The claims a recorded run of ``name`` decided (from its saved summary), for a chapter to
    list beside its live claims: keyed ``<key><suffix>`` (the suffix of the chapter's
    :class:`~privrl.chapter.decided.EvidenceSource` for the record) and stamped with the recorded run's
    profile and commit. Empty when no run (or no summary) was recorded."""
    run = recorded_run(name, profile, root, source_root)
    if run is None or not run.summary:
        return []
    claims = []
    for c in run.summary.get("claims", []):
        interval = tuple(c["interval"]) if c.get("interval") is not None else None
        claims.append(
            Claim(
                **{
                    **c,
                    "key": f"{c['key']}{suffix}",
                    "interval": interval,
                    "profile": profile,
                    "commit": run.commit,
                }
            )
        )
    return claims


__all__ = [
    "KEY_PACKAGES",
    "MEASUREMENTS",
    "PACKAGE_DIR",
    "RESULTS",
    "RecordedRun",
    "RunRecord",
    "SOURCE_ROOT",
    "changed_since",
    "code_of",
    "command_line",
    "computes_numbers",
    "current_commit",
    "declared_versions",
    "experiment_sources",
    "find_root",
    "format_duration",
    "git",
    "imported_modules",
    "package_versions",
    "module_closure",
    "module_file",
    "read_recorded",
    "record_path",
    "recorded_claims",
    "recorded_file",
    "recorded_run",
    "recorded_summary",
    "recorded_summary_path",
    "versions_changed",
    "results_dir",
]
