"""Run a grid of (config, seed) through any :class:`concurrent.futures.Executor`, cached.

* Seeds: run ``(config, i)`` receives ``SeedSequence(root_seed, spawn_key=(i,))``, so results do
  not depend on the executor or the order runs finish, and seed ``i`` is shared by every config
  (common random numbers).
* Cache: each finished run is pickled to ``cache_dir/<func>/<key>.pkl``, ``key`` a hash of
  function, config, root seed, seed index and code: the run function's results version
  (:func:`privrl.core.results_version.results_version`), else a hash of the source of its module,
  of every ``privrl`` module it imports (transitively) and of the package's data files. Files are
  written under a temporary name and renamed; a rerun skips what is done.
* Checkpoints: a run function declaring ``checkpoints=True`` is called with a cache folder as
  ``func(config, seed, checkpoint=PATH)``, PATH ``cache_dir/<func>/<key>.ckpt``, from which a
  rerun resumes a killed run (same result); the file goes once the result is cached.
* Executors: a local process pool by default; a Dask cluster when ``scheduler`` (an address or a
  ``Client``) is given or ``executor`` is an address (``"tcp://HOST:8786"``);
  ``executor="serial"`` runs in-process.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import pickle
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import ExitStack
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from privrl.chapter.records import PACKAGE_DIR, module_closure
from privrl.core.checkpoint import atomic_pickle
from privrl.core.results_version import VersionedRun, declared_version, declares_checkpoints
from privrl.core.validation import check_choice, check_int

RunFunction = Callable[[dict[str, Any], np.random.SeedSequence], pd.DataFrame]


def seed_for(root_seed: int, index: int) -> np.random.SeedSequence:
    """The seed of run ``index``: child ``index`` of ``SeedSequence(root_seed)``."""
    return np.random.SeedSequence(root_seed, spawn_key=(index,))


def _function_name(func: Callable[..., Any]) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def _locate(module: str) -> Path | None:
    """The source file of an importable module (``None`` for a name that is not a module)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def source_files(module: str) -> list[Path]:
    """The source files of ``module`` and of every ``privrl`` module it imports, transitively,
    leaving out modules that compute no number (:func:`privrl.chapter.records.computes_numbers`):
    an edit to the book pipeline or to plotting keeps the cache."""
    return sorted(set(module_closure([module], _locate).values()))


def code_hash(func: Callable[..., Any]) -> str:
    """Hash of the code a run function depends on: its module's source, the sources of every
    ``privrl`` module that imports (transitively) and the files in ``privrl/data``."""
    module = func.__module__
    files = source_files(module)
    if not files and (file := getattr(sys.modules.get(module), "__file__", None)):
        files = [Path(file)]
    data = PACKAGE_DIR / "data"
    files += sorted(p for p in data.rglob("*") if p.is_file()) if data.is_dir() else []
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_code(func: Callable[..., Any]) -> str:
    """What a cached run's key holds for its code: ``version:<tag>`` when ``func`` declares a
    results version, else :func:`code_hash`."""
    tag = declared_version(func)
    return f"version:{tag}" if tag is not None else code_hash(func)


def run_key(
    func: Callable[..., Any],
    config: Mapping[str, Any],
    root_seed: int,
    index: int,
    code: str | None = None,
) -> str:
    """Hash identifying one run: function, config, root seed, seed index and :func:`cache_code`."""
    payload = json.dumps(
        {
            "func": _function_name(func),
            "config": config,
            "root_seed": root_seed,
            "index": index,
            "code": code if code is not None else cache_code(func),
        },
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _execute(
    func: RunFunction,
    config: Mapping[str, Any],
    root_seed: int,
    index: int,
    checkpoint: Path | None = None,
) -> pd.DataFrame:
    kwargs = {} if checkpoint is None else {"checkpoint": checkpoint}
    out = func(dict(config), seed_for(root_seed, index), **kwargs)
    if not isinstance(out, pd.DataFrame):
        raise TypeError(f"{_function_name(func)} must return a pandas DataFrame, got {type(out)}")
    return out


def _label(frame: pd.DataFrame, config: Mapping[str, Any], index: int) -> pd.DataFrame:
    frame = frame.copy()
    frame["seed"] = index
    for key, value in config.items():
        if key not in frame.columns and np.isscalar(value):
            frame[key] = value
    return frame


def is_scheduler_address(value: Any) -> bool:
    """Whether ``value`` is a Dask scheduler address (``"tcp://HOST:PORT"``, any ``scheme://``)."""
    return isinstance(value, str) and "://" in value


def _make_executor(
    stack: ExitStack, executor: Executor | str | None, scheduler: Any, max_workers: int | None
) -> Executor | None:
    if scheduler is None and is_scheduler_address(executor):
        scheduler = executor
    if scheduler is not None:
        from distributed import Client

        client = (
            scheduler if isinstance(scheduler, Client) else stack.enter_context(Client(scheduler))
        )
        return client.get_executor()
    if executor is None or executor == "process":
        workers = max_workers or os.cpu_count() or 1
        return stack.enter_context(
            ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))
        )
    if executor == "serial":
        return None
    if isinstance(executor, Executor):
        return executor
    raise ValueError(
        "executor must be 'process', 'serial', a Dask scheduler address "
        f"(tcp://HOST:PORT) or an Executor, got {executor!r}"
    )


def run_sweep(
    func: RunFunction,
    configs: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    replicates: int,
    root_seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    executor: Executor | str | None = None,
    scheduler: Any = None,
    max_workers: int | None = None,
    progress: bool = True,
    desc: str | None = None,
    order: str = "config",
) -> pd.DataFrame:
    """Run ``func(config, seed)`` for every config and seed index ``0 .. replicates - 1``.

    Returns the concatenated tidy frames, ordered by (config, seed index), with a ``seed`` column
    and the config's scalar entries added as columns (unless ``func`` already set them).
    ``func`` must be defined at module level so worker processes can import it. ``order``: the
    order runs start in, ``"config"`` (every seed of the first config first) or ``"seed"`` (seed 0
    of every config first: a recording stopped early has its configs equally far). A function
    that declares ``checkpoints=True`` gets ``checkpoint=PATH`` when ``cache_dir`` is given
    (module docstring: resumed mid-run by a rerun, deleted once the run is cached).
    """
    if not callable(func):
        raise ValueError("func must be callable")
    if isinstance(configs, Mapping):
        configs = [configs]
    configs = [dict(c) for c in configs]
    if not configs:
        raise ValueError("configs must contain at least one configuration")
    replicates = check_int(replicates, "replicates", minimum=1)
    root_seed = check_int(root_seed, "root_seed", minimum=0)
    check_choice(order, "order", ("config", "seed"))
    tasks = [(c, i) for c in configs for i in range(replicates)]
    cache = Path(cache_dir) / _function_name(func) if cache_dir is not None else None
    code = cache_code(func) if cache is not None else ""
    checkpoints = cache is not None and declares_checkpoints(func)

    def entry(t: int, suffix: str) -> Path:
        config, index = tasks[t]
        assert cache is not None  # entries are asked for only with a cache
        return cache / f"{run_key(func, config, root_seed, index, code)}{suffix}"

    def args(t: int) -> tuple[Mapping[str, Any], int, int, Path | None]:
        config, index = tasks[t]
        return config, root_seed, index, entry(t, ".ckpt") if checkpoints else None

    results: dict[int, pd.DataFrame] = {}
    pending: list[int] = []
    starts = list(range(len(tasks)))
    if order == "seed":
        starts = sorted(starts, key=lambda t: tasks[t][1])
    for t in starts:
        path = entry(t, ".pkl") if cache else None
        if path is not None and path.exists():
            with open(path, "rb") as fh:
                results[t] = pickle.load(fh)
        else:
            pending.append(t)

    def finish(t: int, frame: pd.DataFrame) -> None:
        if cache is not None:
            atomic_pickle(frame, entry(t, ".pkl"))
            entry(t, ".ckpt").unlink(missing_ok=True)
        results[t] = frame

    bar = tqdm(
        total=len(tasks),
        initial=len(tasks) - len(pending),
        desc=desc or func.__name__,
        disable=not progress,
        unit="run",
    )
    with ExitStack() as stack, bar:
        pool = _make_executor(stack, executor, scheduler, max_workers) if pending else None
        if pool is None:
            for t in pending:
                finish(t, _execute(func, *args(t)))
                bar.update()
        else:
            futures = {pool.submit(_execute, func, *args(t)): t for t in pending}
            for future in as_completed(futures):
                finish(futures[future], future.result())
                bar.update()

    frames: Iterable[pd.DataFrame] = (
        _label(results[t], tasks[t][0], tasks[t][1]) for t in range(len(tasks))
    )
    return pd.concat(list(frames), ignore_index=True)


def run_probe(versioned: VersionedRun) -> pd.DataFrame:
    """The frame a declared run function returns on its probe (configuration and seed index,
    root seed 0), without the columns it declares as no results."""
    module, _, name = versioned.name.rpartition(".")
    func = getattr(importlib.import_module(module), name)
    frame = _execute(func, dict(versioned.probe), 0, versioned.seed_index)
    return frame.drop(columns=[c for c in versioned.ignore if c in frame.columns])
