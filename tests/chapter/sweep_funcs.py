"""Module-level run functions for the sweep tests (importable by worker processes)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from privrl.core.checkpoint import load_checkpoint, save_checkpoint
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
    return pd.DataFrame(
        {"value": [value], "pid": [os.getpid()], "log_exists": [Path(config["log"]).exists()]}
    )


@results_version("1", probe={"mu": 0.5, "n": 3}, ignore=("pid",))
def versioned_mean(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """:func:`noisy_mean` with a declared results version (cached by its tag, not its code)."""
    return noisy_mean(config, seed).assign(pid=os.getpid())


class Stopped(Exception):
    """Raised by :func:`resumable_count` in place of the rest of a run, as a kill would."""


@results_version("1", probe={"n": 3}, checkpoints=True)
def resumable_count(config: dict, seed: np.random.SeedSequence, checkpoint=None) -> pd.DataFrame:
    """``config['n']`` draws, one per step, saved to ``checkpoint`` after each step and resumed
    from it; stops (:class:`Stopped`) after ``PRIVRL_TEST_STOP_AFTER`` steps of a call if set.
    Returns the draws, the step the call started at and the checkpoint it was given."""
    rng = np.random.default_rng(seed)
    identity = {"config": config, "seed": seed.spawn_key}
    state = load_checkpoint(checkpoint, identity) if checkpoint is not None else None
    draws, bits = (state["draws"], state["rng"]) if state else ([], rng.bit_generator.state)
    rng.bit_generator.state = bits
    start, stop = len(draws), int(os.environ.get("PRIVRL_TEST_STOP_AFTER", 0))
    for step in range(start, config["n"]):
        draws = [*draws, float(rng.random())]
        if checkpoint is not None:
            save_checkpoint(checkpoint, identity, {"draws": draws, "rng": rng.bit_generator.state})
        if step + 1 - start == stop:
            raise Stopped
    return pd.DataFrame({"value": draws, "started_at": start, "checkpoint": str(checkpoint)})
