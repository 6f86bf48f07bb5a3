"""The book pipeline: execute every chapter notebook with papermill, then build the HTML book.

``build_book`` stages a copy of the book sources in ``<output>/_build/src`` (``_config.yml``,
``_toc.yml``, ``book/``), executes each notebook listed in ``_toc.yml`` into
``_build/src/notebooks/`` (results tables and summaries land beside each executed notebook),
generates the pages read from the chapters' summaries and run records (:mod:`privrl.pipeline.pages`: the
landing page's verdict table, the errata entries, the reproducibility page; the privacy ledger,
:mod:`privrl.pipeline.ledger_page`),
calls ``jupyter-book build`` with warnings as errors, and scans the HTML for raw MyST, Python
reprs and remote scripts (:mod:`privrl.pipeline.site_check`), so ``<output>/_build/html`` is the published
book, readable offline.

Each notebook runs in its own child process (``python -m privrl.pipeline.build execute ...``) so its wall
time and peak resident memory (largest process of its tree, from ``wait4``) can be recorded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import yaml

from privrl.chapter.front import FrontMatter, front_matter_path, load
from privrl.chapter.records import (
    RecordedRun,
    RunRecord,
    code_dirty,
    find_root,
    format_duration,
    git,
    record_path,
    recorded_run,
)
from privrl.core.validation import check_choice, check_int
from privrl.pipeline.ledger_page import ledger_page
from privrl.pipeline.pages import errata_entries, landing_papers, reproducibility_page
from privrl.pipeline.site_check import check_html

PROFILES = ("quick", "paper")


class NotebookFailed(RuntimeError):
    """A chapter notebook raised: the message names the notebook and the failing cell."""


def chapter_notebooks(root: Path) -> list[str]:
    """Names of the notebooks listed in ``_toc.yml``, in book order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    names: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("notebooks/"):
                names.append(f.removeprefix("notebooks/").removesuffix(".ipynb"))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return names


def notebook_parameters(source: str | os.PathLike[str]) -> list[str]:
    """The names the notebook's ``parameters`` cell defines (papermill's own inspection)."""
    import papermill

    return list(papermill.inspect_notebook(str(source)))


#: The executor of a chapter's sweeps at the quick profile, unless one is given: in-process.
#: A pool's workers each import torch and the library (seconds of CPU apiece) for sweeps of a
#: few seconds, and ``privrl book`` already runs chapters side by side.
QUICK_EXECUTOR = "serial"


def run_parameters(
    name: str, profile: str, parameters: dict[str, Any], known: Collection[str]
) -> dict[str, Any]:
    """The parameters notebook ``name`` (whose parameters cell defines ``known``) runs with:
    ``parameters`` and the ``profile``, and at the quick profile ``executor`` =
    :data:`QUICK_EXECUTOR` when the notebook has that parameter and ``parameters`` do not set it.
    Raises ``ValueError`` for a name the notebook does not define (papermill would ignore it)."""
    params = {**parameters, "profile": profile}
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {unknown} for notebook {name!r} (a typo would be "
            f"ignored by papermill); its parameters: {sorted(known)}"
        )
    if profile == "quick" and "executor" in known:
        params.setdefault("executor", QUICK_EXECUTOR)
    return params


#: The environment of a quick-profile chapter, where the caller's does not set these: the
#: numeric libraries' threads, one (``privrl book`` runs chapters side by side, and a second BLAS
#: or OpenMP thread per chapter only contends for the same cores: the Audits chapter's run took a
#: fifth more CPU time with two); glibc's malloc keeps freed memory for reuse (mmap and trim
#: thresholds of 4 GiB) instead of handing every large array back to the kernel and faulting it
#: in again (the Audits chapter's run: 39 CPU-s, 17 of them in the kernel, against 25 with these
#: thresholds, its peak memory 4% higher). Neither changes a number.
QUICK_ENVIRONMENT = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "GLIBC_TUNABLES": (
        "glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=4294967296"
    ),
}


def run_environment(profile: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a chapter at ``profile`` runs in: ``environ`` without ``MPLBACKEND`` (the
    kernel must use matplotlib's inline backend so figures become outputs; test runners set a
    non-interactive one), and at the quick profile :data:`QUICK_ENVIRONMENT` where ``environ``
    does not set them."""
    env = {k: v for k, v in environ.items() if k != "MPLBACKEND"}
    return {**QUICK_ENVIRONMENT, **env} if profile == "quick" else env


def run_notebook(
    name: str,
    output_dir: str | os.PathLike[str],
    profile: str = "quick",
    parameters: dict[str, Any] | None = None,
    root: Path | None = None,
    known: Collection[str] | None = None,
) -> RunRecord:
    """Execute ``notebooks/<name>.ipynb`` with papermill into ``output_dir/<name>.ipynb``, with
    the parameters of :func:`run_parameters`.

    The notebook runs with ``output_dir`` as working directory, so the tidy table and summary it
    writes land beside it. Writes ``output_dir/<name>.run.json`` (with ``cpu_time_s``, the
    CPU seconds of the notebook and every process it started) and returns the record.
    Raises :class:`NotebookFailed` naming the notebook and cell if execution fails. ``known``:
    the notebook's parameter names when the caller has already read them (else read here).
    """
    check_choice(profile, "profile", PROFILES)
    root = root or find_root()
    source = root / "notebooks" / f"{name}.ipynb"
    if not source.exists():
        known = sorted(p.stem for p in (root / "notebooks").glob("*.ipynb"))
        raise ValueError(f"unknown notebook {name!r}; known: {known}")
    known = notebook_parameters(source) if known is None else known
    params = run_parameters(name, profile, parameters or {}, known)
    output_dir = Path(output_dir).resolve()
    output_dir.mkdir(parents=True, exist_ok=True)
    target = output_dir / f"{name}.ipynb"
    cmd = [
        sys.executable,
        "-m",
        "privrl.pipeline.build",
        "execute",
        str(source),
        str(target),
        json.dumps(params),
        str(output_dir),
    ]
    # The code that runs is the tree as it is now: a long run must not record a commit made
    # (or an edit left) while it was running. Dirty means uncommitted changes to code (the
    # package or the notebooks), not to measurement files another run just wrote.
    git_commit = git(root, "rev-parse", "--short=12", "HEAD") or "unknown"
    git_dirty = code_dirty(root)
    start = time.perf_counter()
    env = run_environment(profile, os.environ)
    # The notebook runs in output_dir, which may lie outside the repository (a temporary build
    # folder): point git at the repository so Report stamps claims with the commit of the code.
    git_dir = git(root, "rev-parse", "--absolute-git-dir")
    if git_dir:
        env["GIT_DIR"] = git_dir
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    stderr = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise NotebookFailed(
            stderr.strip().splitlines()[-1]
            if stderr.strip()
            else f"notebook {name!r} failed (exit code {proc.returncode})"
        )
    record = RunRecord.now(
        notebook=name,
        profile=profile,
        parameters=params,
        wall_time_s=wall,
        peak_memory_mb=usage.ru_maxrss / 1024,
        git_commit=git_commit,
        git_dirty=git_dirty,
        cpu_time_s=round(usage.ru_utime + usage.ru_stime, 2),
    )
    record.write(output_dir / f"{name}.run.json")
    return record


def _execute(source: str, target: str, params_json: str, cwd: str) -> int:
    """Child-process entry: run papermill, hide the injected-parameters cell, report failures."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    name = Path(source).stem
    try:
        papermill.execute_notebook(
            source,
            target,
            parameters=json.loads(params_json),
            kernel_name="python3",
            cwd=cwd,
            progress_bar=False,
            log_output=False,
        )
    except PapermillExecutionError as err:
        print(
            f"notebook {name!r} failed in cell {err.cell_index} (execution count "
            f"{err.exec_count}): {err.ename}: {err.evalue}",
            file=sys.stderr,
        )
        return 1
    nb = nbformat.read(target, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")
    nbformat.write(nb, target)
    return 0


#: Generated files the hand-written pages include (``{include}``), relative to the staged book:
#: the landing page's papers and verdicts, and the errata page's entries.
VERDICT_TABLE = Path("book") / "generated" / "verdicts.md"
ERRATA_ENTRIES = Path("book") / "generated" / "errata.md"


def read_summaries(notebooks: Path, names: list[str]) -> list[dict[str, Any]]:
    """The executed chapters' ``<name>.summary.json``, in book order (a chapter that saved none
    gives a summary naming only its paper)."""
    out = []
    for name in names:
        path = notebooks / f"{name}.summary.json"
        summary = json.loads(path.read_text()) if path.exists() else {}
        out.append({**summary, "paper": summary.get("paper", name)})
    return out


def recorded_runs(root: Path) -> list[RecordedRun]:
    """Every run recorded in ``book/measurements/<name>-<profile>.json``, with its provenance."""
    runs = []
    for path in sorted(record_path(root, "*", "*").parent.glob("*.json")):
        record = json.loads(path.read_text())
        run = recorded_run(record["notebook"], record["profile"], root)
        if run is not None:
            runs.append(run)
    return runs


def front_matters(src: Path, names: list[str]) -> dict[str, FrontMatter]:
    """The front matter (``book/chapters/<name>.yml``) of each chapter of the staged book
    ``src`` that has one."""
    paths = {name: front_matter_path(name, src) for name in names}
    return {name: load(path, name) for name, path in paths.items() if path.exists()}


def write_generated_pages(
    src: Path, names: list[str], records: list[RunRecord], measured: list[RecordedRun]
) -> None:
    """Write the generated pages into the staged book ``src`` (see :mod:`privrl.pipeline.pages`
    and :mod:`privrl.pipeline.ledger_page`)."""
    summaries = read_summaries(src / "notebooks", names)
    (src / VERDICT_TABLE).parent.mkdir(parents=True, exist_ok=True)
    (src / VERDICT_TABLE).write_text(landing_papers(summaries, front_matters(src, names)))
    (src / ERRATA_ENTRIES).write_text(errata_entries(summaries))
    (src / "book" / "ledger.md").write_text(ledger_page(summaries))
    (src / "book" / "reproducibility.md").write_text(reproducibility_page(records, measured))


def _stage(root: Path, src: Path, names: list[str]) -> None:
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    shutil.copy2(root / "_config.yml", src / "_config.yml")
    shutil.copytree(root / "book", src / "book")
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    keep = set(names)

    def prune(node: Any) -> Any:
        if isinstance(node, dict):
            f = node.get("file")
            if (
                isinstance(f, str)
                and f.startswith("notebooks/")
                and f.removeprefix("notebooks/") not in keep
            ):
                return None
            out = {}
            for k, v in node.items():
                pv = prune(v)
                if isinstance(v, list) and not pv:
                    continue
                out[k] = pv
            return out if out.get("file") or out.get("chapters") or out.get("root") else None
        if isinstance(node, list):
            return [x for x in (prune(n) for n in node) if x]
        return node

    (src / "_toc.yml").write_text(yaml.safe_dump(prune(toc), sort_keys=False))


def build_book(
    root: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    profile: str = "quick",
    only: list[str] | None = None,
    parameters: dict[str, Any] | None = None,
    jobs: int | None = None,
) -> Path:
    """Execute the chapters and build the HTML book; returns ``<output>/_build/html``.

    ``parameters`` go to every chapter whose parameters cell has them (one that no chapter
    has is rejected). ``only`` restricts the build to some notebooks (the other chapters are
    left out of the toc, and Sphinx warnings, e.g. links to them, are reported but not fatal). ``jobs`` chapters are
    executed at once (default: one per CPU; each chapter is a separate process, mostly
    single-threaded), so a chapter's recorded wall time includes sharing the machine.
    """
    check_choice(profile, "profile", PROFILES)
    jobs = check_int(jobs if jobs is not None else os.cpu_count() or 1, "jobs", minimum=1)
    root = find_root(root)
    output = Path(output).resolve() if output else root
    names = chapter_notebooks(root)
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise ValueError(f"unknown notebook(s) {unknown}; chapters: {names}")
        names = [n for n in names if n in only]
    build = output / "_build"
    # A book-wide parameter goes to the chapters that have it; one that no chapter has is a typo.
    known = {n: set(notebook_parameters(root / "notebooks" / f"{n}.ipynb")) for n in names}
    unknown = sorted(set(parameters or {}) - set().union(*known.values()))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown}: no chapter of {names} has them")
    src = build / "src"
    _stage(root, src, names)

    def execute(name: str) -> RunRecord:
        print(f"privrl book: executing {name} ({profile} profile) ...", flush=True)
        own = {k: v for k, v in (parameters or {}).items() if k in known[name]}
        record = run_notebook(name, src / "notebooks", profile, own, root, known[name])
        print(
            f"privrl book: {name} done in {format_duration(record.wall_time_s)}, "
            f"peak {record.peak_memory_mb:.0f} MB",
            flush=True,
        )
        return record

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(names)))) as pool:
        records = list(pool.map(execute, names))
    write_generated_pages(src, names, records, recorded_runs(root))
    cmd = ["jupyter-book", "build", str(src), "--path-output", str(output), "--keep-going"]
    if not only:
        # The full book is built with warnings as errors; a partial build (``only``) keeps
        # warnings as warnings, since links to the chapters left out cannot resolve.
        cmd += ["--warningiserror", "--nitpick"]
    exe = Path(sys.executable).parent / "jupyter-book"
    if exe.exists():
        cmd[0] = str(exe)
    print("privrl book: building HTML ...", flush=True)
    result = subprocess.run(cmd, cwd=root)
    if result.returncode != 0:
        raise RuntimeError(
            f"jupyter-book build failed (exit code {result.returncode}); see the log above"
        )
    html = build / "html"
    check_html(html)
    print(f"privrl book: done, open {html / 'index.html'}")
    return html


def main(argv: list[str]) -> int:
    if len(argv) == 5 and argv[0] == "execute":
        return _execute(*argv[1:])
    print(
        "usage: python -m privrl.pipeline.build execute SOURCE TARGET PARAMS_JSON CWD",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
