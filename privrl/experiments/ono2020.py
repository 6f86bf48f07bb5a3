"""Ono and Takahashi (2020): profiles, run functions and tables for Figures 2-3 and Tables 1-3.

Two run functions, both ``func(config, seed) -> DataFrame`` for :func:`privrl.sweep.run_sweep`;
one call trains ``trials_per_seed`` independent PGC-A3C trials *as one numpy batch*:

* :func:`run_first_success` -- rows ``trial, first_success, success, env_steps, seconds``: the
  first success time (eq. 26, capped at ``n_submissions``; ``inf`` when never reached), from which
  Tables 1-3 and Figure 3 are computed (:func:`success_tables`, :func:`success_ratio_curves`).
* :func:`run_learning_curve` -- rows ``trial, submission, avg_score``: the average score of the
  last ``window`` submissions (eq. 25) every ``record_every`` submissions (Figure 2).

The non-private baseline (``epsilon = inf``) is PGC-A3C with the Laplace mechanism's clipping and
no noise. As in the paper, Tables 1-3 use the Laplace mechanism with ``|B| = 1`` and PRS with
``|B| = 100``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from privrl.algorithms.a3c import PGCA3CConfig, train_pgc_a3c
from privrl.sweep import run_sweep

INF = math.inf

PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        "n_trials": 4,
        "trials_per_seed": 4,
        "epsilons": [1.0, 2.0, 5.0, 10.0, INF],
        "n_submissions": 2000,
        "fig2_trials": 2,
        "fig2_submissions": 2000,
        "record_every": 50,
        "action_selection": "greedy",
        "baseline_clip": 0.01,
        "max_workers": 2,
    },
    "paper": {
        "n_trials": 20,
        "trials_per_seed": 10,
        "epsilons": [1.0, 2.0, 5.0, 10.0, INF],
        "n_submissions": 90_000,
        "fig2_trials": 2,
        "fig2_submissions": 90_000,
        "record_every": 500,
        "action_selection": "greedy",
        "baseline_clip": 0.01,
        "max_workers": 2,
    },
}

# Tables 1-3 of the paper, as printed (quotes; PRS has no epsilon = inf column).
PAPER_TABLES: dict[str, dict[tuple[str, float], float]] = {
    "median_fst": {
        ("laplace", 1.0): 18377.0, ("laplace", 2.0): 20238.5, ("laplace", 5.0): 5714.5,
        ("laplace", 10.0): 4055.0, ("laplace", INF): 1769.0,
        ("prs", 1.0): 25226.5, ("prs", 2.0): 7549.0, ("prs", 5.0): 2656.5, ("prs", 10.0): 11217.5,
    },
    "success_ratio": {
        ("laplace", 1.0): 0.80, ("laplace", 2.0): 0.90, ("laplace", 5.0): 1.00,
        ("laplace", 10.0): 1.00, ("laplace", INF): 1.0,
        ("prs", 1.0): 0.85, ("prs", 2.0): 0.95, ("prs", 5.0): 0.90, ("prs", 10.0): 0.90,
    },
    "relative_auc": {
        ("laplace", 1.0): 0.673, ("laplace", 2.0): 0.711, ("laplace", 5.0): 0.909,
        ("laplace", 10.0): 0.965, ("laplace", INF): 1.0,
        ("prs", 1.0): 0.660, ("prs", 2.0): 0.862, ("prs", 5.0): 0.835, ("prs", 10.0): 0.771,
    },
}  # fmt: skip

_ALGO_KEYS = (
    "mechanism", "epsilon", "buffer_size", "n_submissions", "action_selection", "rounds", "clip",
)  # fmt: skip


def _algo_config(config: dict[str, Any], stop_at_success: bool) -> PGCA3CConfig:
    kwargs = {k: config[k] for k in _ALGO_KEYS if k in config}
    return PGCA3CConfig(**kwargs, stop_at_success=stop_at_success)


def run_first_success(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train ``config['trials_per_seed']`` trials; one row per trial with its first success time."""
    algo = _algo_config(config, stop_at_success=True)
    k = int(config["trials_per_seed"])
    start = time.perf_counter()
    res = train_pgc_a3c(algo, k, np.random.default_rng(seed))
    seconds = time.perf_counter() - start
    return pd.DataFrame(
        {
            "trial": np.arange(k),
            "first_success": res.first_success,
            "success": np.isfinite(res.first_success),
            "env_steps": res.env_steps / k,
            "seconds": seconds / k,
        }
    )


def run_learning_curve(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """Train without early stop; average score of the last ``window`` submissions (eq. 25)."""
    algo = _algo_config(config, stop_at_success=False)
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


def table_configs(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Laplace (|B| = 1) at every epsilon incl. inf, PRS (|B| = 100) at every finite epsilon.

    ``baseline_clip`` sets ``C`` of the non-private (``epsilon = inf``) run only.
    """
    base = {
        "n_submissions": config["n_submissions"],
        "trials_per_seed": config["trials_per_seed"],
        "action_selection": config["action_selection"],
    }
    out = [
        {**base, "mechanism": "laplace", "epsilon": float(e), "buffer_size": 1}
        for e in config["epsilons"]
    ]
    clip = config.get("baseline_clip", 0.01)
    for c in out:  # the non-private baseline may use another clip (the paper's C = 0.01 by default)
        if math.isinf(c["epsilon"]) and clip != 0.01:
            c["clip"] = clip
    out += [
        {**base, "mechanism": "prs", "epsilon": float(e), "buffer_size": 100}
        for e in config["epsilons"]
        if math.isfinite(e)
    ]
    return out


def _n_seeds(n_trials: int, per_seed: int) -> int:
    if n_trials % per_seed:
        raise ValueError(
            f"n_trials ({n_trials}) must be a multiple of trials_per_seed ({per_seed})"
        )
    return n_trials // per_seed


def run_tables(
    config: dict[str, Any],
    seed: int = 0,
    progress: bool = False,
    cache_dir: str | None = None,
    scheduler: Any = None,
    executor: Any = None,
) -> pd.DataFrame:
    """All trials behind Tables 1-3 and Figure 3 through :func:`privrl.sweep.run_sweep`."""
    return run_sweep(
        run_first_success,
        table_configs(config),
        n_seeds=_n_seeds(config["n_trials"], config["trials_per_seed"]),
        root_seed=seed,
        cache_dir=cache_dir,
        scheduler=scheduler,
        executor=executor,
        max_workers=config.get("max_workers"),
        progress=progress,
        desc="ono2020 tables",
    )


def run_figure2(
    config: dict[str, Any],
    seed: int = 0,
    progress: bool = False,
    cache_dir: str | None = None,
    scheduler: Any = None,
) -> pd.DataFrame:
    """Learning curves at epsilon = 1 for Laplace and PRS with |B| in {1, 100} (Figure 2)."""
    configs = [
        {
            "mechanism": m,
            "epsilon": 1.0,
            "buffer_size": b,
            "n_submissions": config["fig2_submissions"],
            "trials_per_seed": config["fig2_trials"],
            "record_every": config["record_every"],
            "action_selection": config["action_selection"],
        }
        for m in ("laplace", "prs")
        for b in (1, 100)
    ]
    return run_sweep(
        run_learning_curve, configs, n_seeds=1, root_seed=seed, cache_dir=cache_dir,
        scheduler=scheduler, max_workers=config.get("max_workers"), progress=progress,
        desc="ono2020 figure 2",
    )  # fmt: skip


def success_ratio_curves(trials: pd.DataFrame, cap: int, n_points: int = 200) -> pd.DataFrame:
    """Eq. (27): fraction of trials with ``FST <= n`` on a grid of ``n`` up to ``cap`` (Figure 3)."""
    grid = np.unique(np.linspace(0, cap, n_points + 1).astype(int))
    rows = []
    for (mech, eps), g in trials.groupby(["mechanism", "epsilon"]):
        fst = g["first_success"].to_numpy()
        ratio = (fst[None, :] <= grid[:, None]).mean(axis=1)
        rows.append(
            pd.DataFrame(
                {"mechanism": mech, "epsilon": eps, "submission": grid, "success_ratio": ratio}
            )
        )
    return pd.concat(rows, ignore_index=True)


def success_tables(trials: pd.DataFrame, cap: int) -> pd.DataFrame:
    """Tables 1-3: median FST (inf when most trials fail), success ratio, relative AUC.

    The AUC is the area under the success-ratio curve on ``[0, cap]``, which equals
    ``mean_k (cap - min(FST_k, cap)) / cap``; it is divided by that of Laplace at ``epsilon = inf``.
    """
    rows = []
    for (mech, eps), g in trials.groupby(["mechanism", "epsilon"]):
        fst = g["first_success"].to_numpy(dtype=float)
        rows.append(
            {
                "mechanism": mech,
                "epsilon": eps,
                "median_fst": float(np.median(fst)),
                "success_ratio": float(np.isfinite(fst).mean()),
                "auc": float(np.mean((cap - np.minimum(fst, cap)) / cap)),
                "n_trials": len(fst),
            }
        )
    out = pd.DataFrame(rows)
    ref = out.loc[(out.mechanism == "laplace") & np.isinf(out.epsilon), "auc"]
    out["relative_auc"] = out["auc"] / ref.iloc[0] if len(ref) and ref.iloc[0] > 0 else np.nan
    return out


def compare_with_paper(tables: pd.DataFrame) -> pd.DataFrame:
    """Long table: metric, mechanism, epsilon, ours, paper (the paper's value is a quote)."""
    rows = []
    for metric, quoted in PAPER_TABLES.items():
        for _, r in tables.iterrows():
            rows.append(
                {
                    "metric": metric,
                    "mechanism": r.mechanism,
                    "epsilon": r.epsilon,
                    "ours": r[metric],
                    "paper": quoted.get((r.mechanism, float(r.epsilon)), np.nan),
                }
            )
    return pd.DataFrame(rows)
