"""Wang and Hegde (2019): the training runs behind Figures 1 and 2, as sweep configurations.

A run is described by a flat dict (so :func:`privrl.chapter.sweep.run_sweep` can hash and label it):
``method`` plus that method's own noise parameter (``gp_sigma``/``gp_beta`` for Algorithm 1,
``output_std``, ``reward_std``, ``noise_multiplier``), the path protocol for Algorithm 1, and the
training knobs. :func:`privacy_config` turns it into the algorithm's typed config and
:func:`run_learning_curve` trains one seed of it. :func:`figure1_configs` and
:func:`figure2_configs` list a profile's runs; :func:`curves_table` joins their per-episode
records into the tidy curves table the claims are decided on and the paper-scale run records
(:func:`write_paper_curves`, :func:`read_paper_curves`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from privrl.chapter.records import recorded_file, results_dir
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
from privrl.papers.wang2019.profile import CURVE_COLUMNS, CURVES_CSV, FINAL_EPISODES, WangProfile

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


def figure1_configs(p: WangProfile) -> list[dict[str, Any]]:
    """Algorithm 1 for each gp_sigma, resampled (every episode / every update) or never; plus the
    other protocol at the largest gp_sigma (to show how much the protocol matters)."""
    common = {**p.common(), "figure": "1"}
    other = "earlier" if p.protocol == "authors" else "authors"
    configs = [
        functional_config(s, p.gp_beta, r, p.protocol, common)
        for r in ("every", "never")
        for s in p.gp_sigmas
    ]
    configs += [
        functional_config(max(p.gp_sigmas), p.gp_beta, r, other, common) for r in ("every", "never")
    ]
    return configs


def figure2_configs(p: WangProfile, table: pd.DataFrame) -> list[dict[str, Any]]:
    """Every method of the calibration table (:func:`~privrl.papers.wang2019.calibration.privacy_table`)
    with its calibrated noise, plus the non-private DQN."""
    configs = []
    for row in table.itertuples():
        common = {
            **p.common(),
            "figure": "2",
            "epsilon": float(row.epsilon_target),
            "variant": row.method,
        }
        if row.method.startswith("functional"):
            configs.append(functional_config(row.value, row.gp_beta, "every", p.protocol, common))
        elif row.method == "output":
            configs.append({"method": "output", "output_std": row.value, **common})
        elif row.method == "input":
            configs.append({"method": "input", "reward_std": row.value, **common})
        else:
            configs.append(
                {
                    "method": "dpsgd",
                    "noise_multiplier": row.value,
                    "warmup": p.dpsgd_warmup,
                    "sampling": "poisson" if row.method == "dpsgd" else "fixed",
                    **common,
                }
            )
    configs.append(
        {"method": "none", **p.common(), "figure": "2", "epsilon": math.inf, "variant": "none"}
    )
    return configs


def final_returns(
    curves: pd.DataFrame, keys: list[str], column: str = "eval_return"
) -> pd.DataFrame:
    """Per run (``keys`` + seed): mean ``column`` over the last :data:`FINAL_EPISODES` episodes."""
    last = curves[curves.episode >= curves.episode.max() - FINAL_EPISODES + 1]
    return last.groupby([*keys, "seed"], dropna=False)[column].mean().reset_index()


#: The curves table's columns.
TABLE_COLUMNS = [*CURVE_COLUMNS, "variant", "protocol"]


def figure2_table(fig2: pd.DataFrame) -> pd.DataFrame:
    """Figure 2's runs in the tidy curves table's columns (:data:`TABLE_COLUMNS`)."""
    two = fig2.assign(
        sigma=np.nan,
        resample=fig2.get("resample", "every"),
        method=fig2.variant.str.split(" ").str[0],
    )
    return two.reindex(columns=TABLE_COLUMNS)


def curves_table(fig1: pd.DataFrame, fig2: pd.DataFrame) -> pd.DataFrame:
    """The tidy curves table (columns :data:`CURVE_COLUMNS` plus ``variant`` and ``protocol``)."""
    one = fig1.assign(sigma=fig1.gp_sigma, epsilon=np.nan, variant="functional")
    return pd.concat([one.reindex(columns=TABLE_COLUMNS), figure2_table(fig2)], ignore_index=True)


def write_paper_curves(curves: pd.DataFrame, path: str | Path | None = None) -> Path:
    """Write the recorded curves CSV (default: :data:`CURVES_CSV` in the book's results folder)."""
    missing = sorted(set(CURVE_COLUMNS) - set(curves.columns))
    if missing:
        raise ValueError(f"curves lack columns {missing}")
    path = Path(path) if path is not None else results_dir() / CURVES_CSV
    path.parent.mkdir(parents=True, exist_ok=True)
    curves.to_csv(path, index=False)
    return path


def read_paper_curves(path: str | Path | None = None) -> pd.DataFrame | None:
    """The recorded paper-profile curves, or ``None`` when none were recorded."""
    found = Path(path) if path is not None else recorded_file(CURVES_CSV)
    return pd.read_csv(found) if found is not None and found.exists() else None
