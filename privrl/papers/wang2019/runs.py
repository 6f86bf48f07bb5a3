"""Wang and Hegde (2019): the training runs behind Figures 1 and 2, as sweep configurations.

A run is described by a flat dict (so :func:`privrl.chapter.sweep.run_sweep` can hash and label it):
``method`` plus that method's own noise parameter (``gp_sigma``/``gp_beta`` for Algorithm 1,
``output_std``, ``reward_std``, ``noise_multiplier``), the path protocol for Algorithm 1, and the
training knobs. :func:`privacy_config` turns it into the algorithm's typed config and
:func:`run_learning_curve` trains one seed of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import torch

from privrl.core.algorithms.functional_q import (
    DPSGDConfig,
    FunctionalNoiseConfig,
    InputPerturbation,
    NoPrivacy,
    OutputPerturbation,
    PrivacyConfig,
    train_dqn,
)
from privrl.core.rng import as_generator

#: Path protocols of Algorithm 1: the authors' code (default) and this package's earlier reading.
PROTOCOLS: dict[str, dict[str, str]] = {
    "authors": {"target_path": "independent", "every": "episode"},
    "earlier": {"target_path": "shared", "every": "updates"},
}


def privacy_config(config: dict[str, Any]) -> PrivacyConfig:
    """The typed method config of a sweep configuration (its own noise parameter per method)."""
    method = config["method"]
    if method == "functional":
        protocol = PROTOCOLS[config["protocol"]]
        reset = protocol["every"] if config["resample"] == "every" else "never"
        return FunctionalNoiseConfig(
            config["gp_sigma"], config["gp_beta"], protocol["target_path"], reset
        )
    if method == "output":
        return OutputPerturbation(config["output_std"])
    if method == "input":
        return InputPerturbation(config["reward_std"])
    if method == "dpsgd":
        return DPSGDConfig(config["noise_multiplier"], 1.0, config["warmup"], config["sampling"])
    if method == "none":
        return NoPrivacy()
    raise ValueError(f"method must be one of functional/output/input/dpsgd/none, got {method!r}")


def run_learning_curve(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One training run: per-episode ``episode, samples, train_return, eval_return, dp_steps,
    max_sampling_rate`` and the run's gradient ``updates`` and path ``resets`` counts."""
    torch.set_num_threads(1)
    run = train_dqn(
        privacy_config(config),
        as_generator(seed),
        episodes=config["episodes"],
        lr=config["lr"],
        batch_size=config["batch_size"],
        eval_episodes=config["eval_episodes"],
    )
    return run.curve.assign(updates=run.updates, resets=len(run.path_resets))


def functional_config(
    gp_sigma: float, gp_beta: float, resample: str, protocol: str, common: dict[str, Any]
) -> dict[str, Any]:
    """Sweep configuration of one Algorithm 1 run."""
    if resample not in ("every", "never"):
        raise ValueError(f"resample must be 'every' or 'never', got {resample!r}")
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {sorted(PROTOCOLS)}, got {protocol!r}")
    return {
        "method": "functional",
        "gp_sigma": float(gp_sigma),
        "gp_beta": float(gp_beta),
        "resample": resample,
        "protocol": protocol,
        **common,
    }
