"""Run a grid of (config, seed) through any :class:`concurrent.futures.Executor`, cached.

* Seeds: run ``(config, i)`` receives ``SeedSequence(root_seed, spawn_key=(i,))``, the i-th child
  of ``SeedSequence(root_seed).spawn``. Results therefore do not depend on the executor, the
  number of workers or the order in which runs finish, and seed ``i`` is shared by every config
  (common random numbers, which sharpen comparisons between methods).
* Cache: each finished run is pickled to ``cache_dir/<func>/<key>.pkl`` where ``key`` hashes
  (function, config, root seed, seed index, package version); files are written to a temporary
  name and renamed, so a killed sweep leaves no partial file, and a rerun skips what is done.
* Executors: a local process pool by default; a Dask distributed cluster through
  ``Client(scheduler).get_executor()`` when ``scheduler`` (an address or a ``Client``) is given;
  ``executor="serial"`` runs in-process (handy in notebooks and tests).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import ExitStack
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

import privrl
from privrl.validation import check_int

RunFunction = Callable[[dict[str, Any], np.random.SeedSequence], pd.DataFrame]


def seed_for(root_seed: int, index: int) -> np.random.SeedSequence:
    """The seed of run ``index``: child ``index`` of ``SeedSequence(root_seed)``."""
    return np.random.SeedSequence(root_seed, spawn_key=(index,))


def _function_name(func: Callable[..., Any]) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def run_key(func: Callable[..., Any], config: Mapping[str, Any], root_seed: int, index: int) -> str:
    """Hash identifying one run: function, config, root seed, seed index and package version."""
    payload = json.dumps(
        {
            "func": _function_name(func),
            "config": config,
            "root_seed": root_seed,
            "index": index,
            "version": privrl.__version__,
        },
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _atomic_pickle(obj: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pkl")
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _execute(func: RunFunction, config: dict[str, Any], root_seed: int, index: int) -> pd.DataFrame:
    out = func(dict(config), seed_for(root_seed, index))
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


def _make_executor(
    stack: ExitStack, executor: Executor | str | None, scheduler: Any, max_workers: int | None
) -> Executor | None:
    if scheduler is not None:
        from distributed import Client

        client = scheduler if isinstance(scheduler, Client) else stack.enter_context(Client(scheduler))
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
    raise ValueError(f"executor must be 'process', 'serial' or an Executor, got {executor!r}")


def run_sweep(
    func: RunFunction,
    configs: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    n_seeds: int,
    root_seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    executor: Executor | str | None = None,
    scheduler: Any = None,
    max_workers: int | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> pd.DataFrame:
    """Run ``func(config, seed)`` for every config and seed index ``0 .. n_seeds - 1``.

    Returns the concatenated tidy frames, ordered by (config, seed index), with a ``seed`` column
    and the config's scalar entries added as columns (unless ``func`` already set them).
    ``func`` must be defined at module level so worker processes can import it.
    """
    if not callable(func):
        raise ValueError("func must be callable")
    if isinstance(configs, Mapping):
        configs = [configs]
    configs = [dict(c) for c in configs]
    if not configs:
        raise ValueError("configs must contain at least one configuration")
    n_seeds = check_int(n_seeds, "n_seeds", minimum=1)
    root_seed = check_int(root_seed, "root_seed", minimum=0)
    tasks = [(c, i) for c in configs for i in range(n_seeds)]
    cache = Path(cache_dir) / _function_name(func) if cache_dir is not None else None

    results: dict[int, pd.DataFrame] = {}
    pending: list[int] = []
    for t, (config, index) in enumerate(tasks):
        path = cache / f"{run_key(func, config, root_seed, index)}.pkl" if cache else None
        if path is not None and path.exists():
            with open(path, "rb") as fh:
                results[t] = pickle.load(fh)
        else:
            pending.append(t)

    def finish(t: int, frame: pd.DataFrame) -> None:
        config, index = tasks[t]
        if cache is not None:
            _atomic_pickle(frame, cache / f"{run_key(func, config, root_seed, index)}.pkl")
        results[t] = frame

    bar = tqdm(
        total=len(tasks), initial=len(tasks) - len(pending), desc=desc or func.__name__,
        disable=not progress, unit="run",
    )
    with ExitStack() as stack, bar:
        pool = _make_executor(stack, executor, scheduler, max_workers) if pending else None
        if pool is None:
            for t in pending:
                finish(t, _execute(func, *_args(tasks[t], root_seed)))
                bar.update()
        else:
            futures = {pool.submit(_execute, func, *_args(tasks[t], root_seed)): t for t in pending}
            for future in as_completed(futures):
                finish(futures[future], future.result())
                bar.update()

    frames: Iterable[pd.DataFrame] = (
        _label(results[t], tasks[t][0], tasks[t][1]) for t in range(len(tasks))
    )
    return pd.concat(list(frames), ignore_index=True)


def _args(task: tuple[dict[str, Any], int], root_seed: int) -> tuple[dict[str, Any], int, int]:
    config, index = task
    return config, root_seed, index
