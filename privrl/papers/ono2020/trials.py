"""One sweep run of ono2020: the module-level run functions handed to
:func:`privrl.chapter.sweep.run_sweep` (``func(config, seed) -> DataFrame``) and the variants'
settings they read.

One call trains ``trials_per_seed`` independent PGC-A3C trials (Algorithm 1) as one numpy batch:

* :func:`run_first_success` -- one row per trial: first success time (eq. 26; ``inf`` when the
  target is not met within ``n_submissions``), from which Tables 1-3 and Figure 3 follow;
* :func:`run_learning_curve` -- the average score of the last 10 submissions (eq. 25) every
  ``record_every`` submissions, without early stop (Figure 2);
* :func:`run_report_statistics` -- the per-report statistics of training (raw and clipped gradient
  norms, noise, update size, actor share, entropy, majority action): the mechanism of failure.

This module imports only the core layer, so the sweep cache's code hash of a run (which covers
the run function's module and what it imports) does not change when the profile, the claims, the
chapter or the book change: hours of cached runs survive an edit to any of them.
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from privrl.core.algorithms.a3c import PGCA3CConfig, train_pgc_a3c

INF = math.inf

#: The reference set-up that learns (:mod:`.reference`): everything the paper states, plus actions
#: sampled from pi in the non-random branch of the epsilon-greedy rule and RMSProp at the
#: aggregator (its step size chosen per arm by a sweep); its non-private arm is not clipped.
REFERENCE = "reference"
#: RMSProp's step of the ablation's non-private arms.
ABLATION_STEP = 5e-3
#: The deviations from the paper (each one change, or the named set), never the paper's. The
#: ``ablation_*`` arms are non-private and differ from the reference set-up by one change each
#: (or add one change to the paper's); ``reference`` takes its step size from the sweep.
VARIANTS: dict[str, dict[str, Any]] = {
    "paper": {},
    "no_clip": {"clip": INF},
    "clip100": {"clip": 100.0},
    "adam_sample": {"optimizer": "adam", "eta": 1e-3, "action_selection": "sample"},
    "ablation_sampled": {"action_selection": "sample"},
    "ablation_sampled_no_clip": {"action_selection": "sample", "clip": INF},
    "ablation_greedy_rmsprop": {"optimizer": "rmsprop", "eta": ABLATION_STEP, "clip": INF},
    "ablation_clipped_reference": {
        "action_selection": "sample",
        "optimizer": "rmsprop",
        "eta": ABLATION_STEP,
    },
    REFERENCE: {"action_selection": "sample", "optimizer": "rmsprop"},
}


def censored(first_success: Any, cap: int) -> np.ndarray:
    """First success times (eq. 26) censored just past the budget ``cap``: a trial that never
    succeeds counts as ``cap + 1``, so a median of them is finite and above ``cap`` when most
    fail."""
    return np.minimum(np.asarray(first_success, dtype=float), cap + 1)


def algorithm_config(config: dict[str, Any], stop_at_success: bool) -> PGCA3CConfig:
    """The :class:`PGCA3CConfig` of a sweep config (mechanism, epsilon, |B|, variant, ...): the
    variant's settings (:data:`~privrl.papers.ono2020.trials.VARIANTS`), then the config's own
    ``eta`` and ``clip`` where it sets them (the reference set-up's swept step sizes and its
    unclipped non-private arm, :mod:`.reference`)."""
    keys = ("mechanism", "epsilon", "buffer_size", "n_submissions", "rounds")
    kwargs = {k: config[k] for k in keys if k in config}
    kwargs.update(VARIANTS[config.get("variant", "paper")])
    kwargs.update({k: config[k] for k in ("eta", "clip") if k in config})
    return PGCA3CConfig(**kwargs, stop_at_success=stop_at_success)


def run_first_success(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train ``config['trials_per_seed']`` trials; one row per trial with its first success time."""
    algo = algorithm_config(config, stop_at_success=True)
    k = int(config["trials_per_seed"])
    start = time.perf_counter()
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed))
    seconds = time.perf_counter() - start
    steps = np.nansum(res.scores, axis=1)
    return pd.DataFrame(
        {
            "trial": np.arange(k),
            "first_success": res.first_success,
            "success": np.isfinite(res.first_success),
            "env_steps": steps.astype(np.int64),
            "seconds": seconds * steps / max(steps.sum(), 1.0),
        }
    )


def run_learning_curve(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train without early stop; average score of the last ``window`` submissions (eq. 25)."""
    algo = algorithm_config(config, stop_at_success=False)
    k, every = int(config["trials_per_seed"]), int(config["record_every"])
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed))
    w = algo.window
    c = np.concatenate([np.zeros((k, 1)), np.cumsum(res.scores, axis=1)], axis=1)
    ends = np.arange(max(every, w), algo.n_submissions + 1, every)
    mu = (c[:, ends] - c[:, ends - w]) / w
    return pd.DataFrame(
        {
            "trial": np.repeat(np.arange(k), ends.size),
            "submission": np.tile(ends, k),
            "avg_score": mu.ravel(),
        }
    )


def run_report_statistics(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Per-report statistics of training (:class:`~privrl.core.algorithms.a3c.TrainingResult`),
    averaged over blocks of ``config['every']`` submissions; one row per (trial, block)."""
    algo = algorithm_config(config, stop_at_success=False)
    k, every = int(config["trials_per_seed"]), int(config["every"])
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed), record_reports=True)
    n_blocks = algo.n_submissions // every
    out = {
        "trial": np.repeat(np.arange(k), n_blocks),
        "submission": np.tile((np.arange(n_blocks) + 1) * every, k),
    }
    stats = {"score": res.scores, **res.reports}
    clip_half = algo.clip_value / 2
    stats["clipped_fraction"] = (res.reports["raw_norm"] > clip_half).astype(np.float32)
    with warnings.catch_warnings():  # blocks after a diverged trial are all NaN: NaN rows
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, arr in stats.items():
            blocks = arr[:, : n_blocks * every].reshape(k, n_blocks, every)
            if name == "raw_norm":
                for q in (10, 50, 90):
                    out[f"raw_norm_q{q}"] = np.nanpercentile(blocks, q, axis=2).ravel()
            elif not np.isnan(blocks).all():
                out[name] = np.nanmean(blocks, axis=2).ravel()
    return pd.DataFrame(out)
