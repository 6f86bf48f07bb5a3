"""The multi-trial runs of ono2020: module-level run functions for
:func:`privrl.chapter.sweep.run_sweep` (``func(config, seed) -> DataFrame``), their
configurations, and the three sweeps.

One call trains ``trials_per_seed`` independent PGC-A3C trials (Algorithm 1) as one numpy batch:

* :func:`run_first_success` -- one row per trial: first success time (eq. 26; ``inf`` when the
  target is not met within ``n_submissions``), from which Tables 1-3 and Figure 3 follow;
* :func:`run_learning_curve` -- the average score of the last 10 submissions (eq. 25) every
  ``record_every`` submissions, without early stop (Figure 2);
* :func:`run_report_statistics` -- the per-report statistics of training (raw and clipped gradient
  norms, noise, update size, actor share, entropy, majority action): the mechanism of failure.

Variants. ``paper`` is the published algorithm (section 4's hyper-parameters, greedy acting,
eq. (22) with ``eta = 0.5``; Laplace ``C = 0.01``, PRS ``C = 1``). The deviations
(:data:`~privrl.papers.ono2020.profile.VARIANTS`) are *not the paper's* and are labelled as such
wherever they appear. As in the paper, Tables 1-3 use Laplace with ``|B| = 1`` and PRS with
``|B| = 100``; the non-private baseline is Laplace's clipping without noise (``epsilon = inf``).
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.core.algorithms.a3c import PGCA3CConfig, train_pgc_a3c
from privrl.papers.ono2020.profile import INF, VARIANTS, OnoProfile


def algorithm_config(config: dict[str, Any], stop_at_success: bool) -> PGCA3CConfig:
    """The :class:`PGCA3CConfig` of a sweep config (mechanism, epsilon, |B|, variant, ...): the
    variant's settings (:data:`~privrl.papers.ono2020.profile.VARIANTS`), then the config's own
    ``eta`` and ``clip`` where it sets them (the reference set-up's swept step sizes and its
    unclipped non-private arm, :mod:`.practised`)."""
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
    return pd.DataFrame({
        "trial": np.arange(k), "first_success": res.first_success,
        "success": np.isfinite(res.first_success), "env_steps": steps.astype(np.int64),
        "seconds": seconds * steps / max(steps.sum(), 1.0),
    })  # fmt: skip


def run_learning_curve(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train without early stop; average score of the last ``window`` submissions (eq. 25)."""
    algo = algorithm_config(config, stop_at_success=False)
    k, every = int(config["trials_per_seed"]), int(config["record_every"])
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed))
    w = algo.window
    c = np.concatenate([np.zeros((k, 1)), np.cumsum(res.scores, axis=1)], axis=1)
    ends = np.arange(max(every, w), algo.n_submissions + 1, every)
    mu = (c[:, ends] - c[:, ends - w]) / w
    return pd.DataFrame({
        "trial": np.repeat(np.arange(k), ends.size), "submission": np.tile(ends, k),
        "avg_score": mu.ravel(),
    })  # fmt: skip


def run_report_statistics(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Per-report statistics of training (:class:`~privrl.core.algorithms.a3c.TrainingResult`),
    averaged over blocks of ``config['every']`` submissions; one row per (trial, block)."""
    algo = algorithm_config(config, stop_at_success=False)
    k, every = int(config["trials_per_seed"]), int(config["every"])
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed), record_reports=True)
    n_blocks = algo.n_submissions // every
    out = {"trial": np.repeat(np.arange(k), n_blocks),
           "submission": np.tile((np.arange(n_blocks) + 1) * every, k)}
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


# --- configurations --------------------------------------------------------------------------


def table_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """Tables 1-3: Laplace (|B| = 1) at every epsilon incl. inf, PRS (|B| = 100) at every finite
    epsilon, for the paper's algorithm; the non-private deviations at epsilon = inf, and
    ``adam_sample`` also at epsilon = 1 (Laplace)."""
    base = {"n_submissions": profile.n_submissions, "trials_per_seed": profile.trials_per_seed}
    out = [{**base, "variant": "paper", "mechanism": "laplace", "epsilon": float(e),
            "buffer_size": 1} for e in profile.epsilons]
    out += [{**base, "variant": "paper", "mechanism": "prs", "epsilon": float(e),
             "buffer_size": 100} for e in profile.epsilons if math.isfinite(e)]
    for variant in profile.variants:
        if variant == "paper":
            continue
        eps_list = (INF, 1.0) if variant == "adam_sample" else (INF,)
        out += [{**base, "variant": variant, "mechanism": "laplace", "epsilon": e,
                 "buffer_size": 1} for e in eps_list]
    return out


def figure2_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """Figure 2: epsilon = 1, Laplace and PRS, |B| in {1, 100}."""
    return [{"variant": "paper", "mechanism": m, "epsilon": 1.0, "buffer_size": b,
             "n_submissions": profile.fig2_submissions, "trials_per_seed": profile.fig2_trials,
             "record_every": profile.record_every}
            for m in ("laplace", "prs") for b in (1, 100)]


def diagnostic_configs(profile: OnoProfile) -> list[dict[str, Any]]:
    """The failure's evidence: the paper's Laplace at epsilon = inf and 1, and the deviations."""
    base = {"n_submissions": profile.diagnostic_submissions, "mechanism": "laplace",
            "buffer_size": 1, "trials_per_seed": profile.diagnostic_trials,
            "every": profile.diagnostic_every}
    out = [{**base, "variant": "paper", "epsilon": e} for e in (INF, 1.0)]
    return out + [{**base, "variant": v, "epsilon": INF} for v in profile.variants if v != "paper"]


# --- sweeps ----------------------------------------------------------------------------------


def sweep_tables(profile: OnoProfile, *, executor: Any = None, cache_dir: Any = None,
                 progress: bool = False, max_workers: int | None = None) -> pd.DataFrame:
    """All trials behind Tables 1-3 and Figure 3 (one row per trial, ``trial`` numbered 0..N-1)."""
    out = run_sweep(run_first_success, table_configs(profile),
                    n_seeds=profile.n_trials // profile.trials_per_seed, root_seed=profile.seed,
                    cache_dir=cache_dir, executor=executor, max_workers=max_workers,
                    progress=progress, desc="ono2020 tables")
    out["trial"] = out["seed"] * profile.trials_per_seed + out["trial"]
    return out


def sweep_figure2(profile: OnoProfile, *, executor: Any = None, cache_dir: Any = None,
                  progress: bool = False, max_workers: int | None = None) -> pd.DataFrame:
    """Learning curves of Figure 2 (one row per trial and recorded submission)."""
    return run_sweep(run_learning_curve, figure2_configs(profile), n_seeds=1,
                     root_seed=profile.seed, cache_dir=cache_dir, executor=executor,
                     max_workers=max_workers, progress=progress, desc="ono2020 figure 2")


def sweep_diagnostics(profile: OnoProfile, *, executor: Any = None, cache_dir: Any = None,
                      progress: bool = False, max_workers: int | None = None) -> pd.DataFrame:
    """Per-report statistics over training for :func:`diagnostic_configs`."""
    return run_sweep(run_report_statistics, diagnostic_configs(profile), n_seeds=1,
                     root_seed=profile.seed, cache_dir=cache_dir, executor=executor,
                     max_workers=max_workers, progress=progress, desc="ono2020 diagnostics")
