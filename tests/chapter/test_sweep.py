"""The sweep: identical results whatever the executor; cache; a killed sweep resumes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
from sweep_funcs import Stopped, noisy_mean, resumable_count, slow_logged

from privrl.chapter.sweep import run_sweep, seed_for

TESTS = Path(__file__).resolve().parent
CONFIGS = [{"mu": 0.0, "n": 50}, {"mu": 1.0, "n": 80}]


def test_seed_for_matches_spawn():
    children = __import__("numpy").random.SeedSequence(11).spawn(3)
    for i, child in enumerate(children):
        assert seed_for(11, i).generate_state(4).tolist() == child.generate_state(4).tolist()


def test_labels_and_order():
    df = run_sweep(
        noisy_mean, CONFIGS, replicates=3, root_seed=5, executor="serial", progress=False
    )
    assert list(df["seed"]) == [0, 1, 2, 0, 1, 2]
    assert list(df["mu"]) == [0.0] * 3 + [1.0] * 3
    assert set(df.columns) >= {"metric", "value", "seed", "mu", "n"}


def test_same_numbers_whatever_the_executor(tmp_path):
    serial = run_sweep(
        noisy_mean, CONFIGS, replicates=4, root_seed=3, executor="serial", progress=False
    )
    threads = run_sweep(
        noisy_mean,
        CONFIGS,
        replicates=4,
        root_seed=3,
        executor=ThreadPoolExecutor(3),
        progress=False,
    )
    procs = run_sweep(
        noisy_mean,
        CONFIGS,
        replicates=4,
        root_seed=3,
        executor="process",
        max_workers=2,
        progress=False,
    )
    pd.testing.assert_frame_equal(serial, threads)
    pd.testing.assert_frame_equal(serial, procs)
    other_root = run_sweep(
        noisy_mean, CONFIGS, replicates=4, root_seed=4, executor="serial", progress=False
    )
    assert not serial["value"].equals(other_root["value"])


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_numbers(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    )
    serial = run_sweep(
        noisy_mean, CONFIGS, replicates=4, root_seed=3, executor="serial", progress=False
    )
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = run_sweep(
            noisy_mean,
            CONFIGS,
            replicates=4,
            root_seed=3,
            scheduler=cluster.scheduler_address,
            progress=False,
        )
    pd.testing.assert_frame_equal(serial, dask)


def test_cache_hits_skip_work(tmp_path):
    log = tmp_path / "log.txt"
    cfg = [{"tag": "a", "sleep": 0.0, "log": str(log)}]
    first = run_sweep(
        slow_logged, cfg, replicates=3, cache_dir=tmp_path / "c", executor="serial", progress=False
    )
    second = run_sweep(
        slow_logged, cfg, replicates=3, cache_dir=tmp_path / "c", executor="serial", progress=False
    )
    assert log.read_text().splitlines() == ["a-0", "a-1", "a-2"]
    pd.testing.assert_frame_equal(first, second)


def test_killed_sweep_resumes_without_losing_or_repeating(tmp_path):
    """Kill a sweep half way, rerun it: runs cached before the kill are not repeated, and the
    final table equals an uninterrupted sweep's."""
    log, cache = tmp_path / "log.txt", tmp_path / "cache"
    cfg = [{"tag": "k", "sleep": 0.4, "log": str(log)}]
    script = (
        f"import sys; sys.path.insert(0, {str(TESTS)!r})\n"
        "from sweep_funcs import slow_logged\n"
        "from privrl.chapter.sweep import run_sweep\n"
        f"run_sweep(slow_logged, {cfg!r}, replicates=8, cache_dir={str(cache)!r}, executor='serial', progress=False)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.time() + 60
    while time.time() < deadline and len(list(cache.rglob("*.pkl"))) < 3:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    done_before = {p.name for p in cache.rglob("*.pkl")}
    assert 3 <= len(done_before) < 8, "the sweep should have been killed half way"
    assert not list(cache.rglob(".tmp-*")), "no partial file may be left behind"
    logged_before = log.read_text().splitlines()

    resumed = run_sweep(
        slow_logged, cfg, replicates=8, cache_dir=cache, executor="serial", progress=False
    )
    logged_after = log.read_text().splitlines()
    new_runs = logged_after[len(logged_before) :]
    # every run cached before the kill is not executed again
    assert len(new_runs) == 8 - len(done_before)
    assert len(set(logged_after)) == 8  # and nothing is lost
    fresh = run_sweep(
        slow_logged,
        [{**cfg[0], "log": str(tmp_path / "other.txt"), "sleep": 0.0}],
        replicates=8,
        executor="serial",
        progress=False,
    )
    assert resumed["value"].tolist() == fresh["value"].tolist()


def test_bad_inputs():
    with pytest.raises(ValueError, match="replicates"):
        run_sweep(noisy_mean, CONFIGS, replicates=0, progress=False)
    with pytest.raises(ValueError, match="configs"):
        run_sweep(noisy_mean, [], replicates=1, progress=False)
    with pytest.raises(ValueError, match="executor"):
        run_sweep(noisy_mean, CONFIGS, replicates=1, executor="gpu", progress=False)


STALE_MODULE = """
import pandas as pd

from privrl.core.validation import check_int


def run(config, seed):
    return pd.DataFrame({{"value": [{value}]}})
"""

VERSIONED_MODULE = """
import pandas as pd

from privrl.core.results_version import results_version


@results_version("{tag}", probe={{}})
def run(config, seed):
    return pd.DataFrame({{"value": [{value}]}})
"""

STALE_DRIVER = """
import sys
sys.path.insert(0, sys.argv[1])
import stalemod
from privrl.chapter.sweep import run_sweep
df = run_sweep(stalemod.run, {{"a": 1}}, replicates=1, cache_dir=sys.argv[2], executor="serial",
               progress=False)
print(df["value"].iloc[0])
"""


def test_editing_the_run_function_recomputes_instead_of_returning_a_stale_cache(tmp_path):
    """A cached result is reused only while the code it came from is unchanged."""
    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    driver = tmp_path / "driver.py"
    driver.write_text(STALE_DRIVER.format())

    def run_with(value: int) -> str:
        (src / "stalemod.py").write_text(STALE_MODULE.format(value=value))
        out = subprocess.run(
            [sys.executable, str(driver), str(src), str(cache)],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()

    assert run_with(1) == "1"
    assert run_with(2) == "2", "the sweep returned the cached result of the old code"
    assert run_with(1) == "1"  # the first result is still cached under its own code
    assert len(list(cache.rglob("*.pkl"))) == 2


def test_a_declared_results_version_keys_the_cache_instead_of_the_code(tmp_path):
    """A run function with a results version keeps its cache across edits of its code (the probe
    test keeps the tag honest) and recomputes once the tag is bumped."""
    src, cache = tmp_path / "src", tmp_path / "cache"
    src.mkdir()
    driver = tmp_path / "driver.py"
    driver.write_text(STALE_DRIVER.format())

    def run_with(tag: str, value: int) -> str:
        (src / "stalemod.py").write_text(VERSIONED_MODULE.format(tag=tag, value=value))
        out = subprocess.run(
            [sys.executable, str(driver), str(src), str(cache)],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()

    assert run_with("1", 1) == "1"
    assert run_with("1", 2) == "1", "an edit under the same tag recomputed the cached run"
    assert run_with("2", 2) == "2", "a bumped tag returned the cache of the old tag"
    assert len(list(cache.rglob("*.pkl"))) == 2


def test_a_checkpointing_run_resumes_mid_run_and_its_checkpoint_goes_once_cached(
    tmp_path, monkeypatch
):
    """A function declaring ``checkpoints=True`` gets a file beside its cache entry (same key),
    a rerun resumes a stopped run from it with the same result, and it is deleted once cached."""
    config, cache = {"n": 5}, tmp_path / "cache"
    whole = run_sweep(resumable_count, config, replicates=2, executor="serial", progress=False)
    assert list(whole["checkpoint"]) == ["None"] * 10  # no cache folder: called without one
    monkeypatch.setenv("PRIVRL_TEST_STOP_AFTER", "3")
    with pytest.raises(Stopped):
        run_sweep(
            resumable_count,
            config,
            replicates=2,
            cache_dir=cache,
            executor="serial",
            progress=False,
        )
    ckpt = list(cache.rglob("*.ckpt"))
    assert len(ckpt) == 1 and not list(cache.rglob("*.pkl"))
    monkeypatch.delenv("PRIVRL_TEST_STOP_AFTER")
    resumed = run_sweep(
        resumable_count, config, replicates=2, cache_dir=cache, executor="serial", progress=False
    )
    pd.testing.assert_frame_equal(resumed[["value", "seed"]], whole[["value", "seed"]])
    assert list(resumed.groupby("seed")["started_at"].first()) == [3, 0]
    paths = [Path(p) for p in resumed.groupby("seed")["checkpoint"].first()]
    assert paths[0] == ckpt[0] and paths[0] != paths[1]
    assert all(p.with_suffix(".pkl").exists() and not p.exists() for p in paths)
    assert not list(cache.rglob("*.ckpt")) and len(list(cache.rglob("*.pkl"))) == 2


def test_seed_order_starts_seed_zero_of_every_config_first(tmp_path):
    log = tmp_path / "log.txt"
    configs = [{"tag": t, "sleep": 0.0, "log": str(log)} for t in ("a", "b")]
    for order, expected in (
        ("config", ["a-0", "a-1", "b-0", "b-1"]),
        ("seed", ["a-0", "b-0", "a-1", "b-1"]),
    ):
        log.write_text("")
        df = run_sweep(
            slow_logged, configs, replicates=2, executor="serial", progress=False, order=order
        )
        assert log.read_text().split() == expected
        assert list(zip(df["tag"], df["seed"], strict=True)) == [
            ("a", 0),
            ("a", 1),
            ("b", 0),
            ("b", 1),
        ]
    with pytest.raises(ValueError, match="order"):
        run_sweep(
            slow_logged, configs, replicates=1, executor="serial", progress=False, order="random"
        )


def test_code_hash_follows_privrl_imports_transitively():
    from privrl.chapter.sweep import source_files

    files = {
        p.as_posix().split("privrl/", 1)[-1]
        for p in source_files("privrl.papers.balle2016.chapter")
    }
    assert "papers/balle2016/chapter.py" in files
    assert "core/algorithms/monte_carlo.py" in files  # imported by the experiment
    assert "core/validation.py" in files  # imported by what it imports
    assert "chapter/plotting.py" not in files  # computes no number: an edit keeps the cache
    assert not any(f.startswith("pipeline/") for f in files)


@pytest.mark.parametrize(
    "module, run_file",
    [
        ("privrl.papers.gohari2021.student", "papers/gohari2021/student.py"),
        ("privrl.papers.ono2020.trials", "papers/ono2020/trials.py"),
    ],
)
def test_the_long_runs_cache_survives_edits_to_profile_claims_and_chapter(module, run_file):
    """The runs that take hours (AirRaid curves, the PGC-A3C sweeps) hash only the core layer and
    their own module: editing the profile, the claims, the chapter layer or the book keeps them."""
    from privrl.chapter.sweep import source_files

    files = {p.as_posix().split("privrl/", 1)[-1] for p in source_files(module)}
    assert run_file in files and any(f.startswith("core/algorithms/") for f in files)
    outside = sorted(
        f
        for f in files
        if not f.startswith("core/")
        and f
        not in (
            run_file,
            "__init__.py",
            "papers/__init__.py",
            "papers/gohari2021/__init__.py",
            "papers/gohari2021/teacher.py",
        )
    )
    assert not outside, f"{module}'s cache key also hashes {outside}"
