"""Module-level run functions for the sweep tests (importable by worker processes)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from privrl.core.results_version import results_version


def noisy_mean(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """A tiny experiment: the mean of ``n`` normal draws around ``mu``."""
    rng = np.random.default_rng(seed)
    draws = rng.normal(config["mu"], 1.0, size=config["n"])
    return pd.DataFrame({"metric": ["mean"], "value": [float(draws.mean())]})


def slow_logged(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """Sleep, then append one line to ``config['log']`` naming the run, then return a draw."""
    time.sleep(config["sleep"])
    value = float(np.random.default_rng(seed).random())
    with open(config["log"], "a") as fh:
        fh.write(f"{config['tag']}-{seed.spawn_key[0]}\n")
        fh.flush()
        os.fsync(fh.fileno())
    return pd.DataFrame({"value": [value], "pid": [os.getpid()], "log_exists": [Path(config["log"]).exists()]})


@results_version("1", probe={"mu": 0.5, "n": 3}, ignore=("pid",))
def versioned_mean(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """:func:`noisy_mean` with a declared results version (cached by its tag, not its code)."""
    return noisy_mean(config, seed).assign(pid=os.getpid())
