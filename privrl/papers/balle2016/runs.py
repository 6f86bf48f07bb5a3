"""Figure 1's experiments: one trial (:func:`run_batch`) samples ONE batch of ``m`` chain
trajectories and evaluates every algorithm on it (LSW, LSL, DP-LSW, DP-LSL; tabular and aggregated
features; optionally a grid of LSL regularisation constants), so all algorithms see the same
batches, as in the paper's Section 6.

Rows of the tidy output: ``features, method, c, m, rmse, excess_risk, sigma`` (+ ``seed`` and the
config columns added by :func:`privrl.chapter.sweep.run_sweep`). :func:`per_trial` and
:func:`mean_rmse_table` read that table back for the claims and the prose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.core.algorithms.monte_carlo import (
    FirstVisitReturns,
    dp_lsl,
    dp_lsw,
    lsl_loss,
    lsl_regularization,
    lsw_loss,
    weighted_rmse,
)
from privrl.core.rng import as_generator
from privrl.papers.balle2016.profile import PAPER, TRIAL_KEYS, BalleProfile


def _release_rows(
    fv: FirstVisitReturns,
    Phi: np.ndarray,
    cfg: BalleProfile,
    c: float | None,
    noise: np.random.Generator,
    features: str,
) -> list[dict[str, Any]]:
    """Non-private and private estimate of one objective: LSW and DP-LSW (Section 3.1, Algorithm
    1) if ``c`` is None, else LSL and DP-LSL (Section 3.2, Algorithm 2) at the lambda of
    constant ``c``."""
    rho, V = cfg.rho(), cfg.mdp().true_values(cfg.gamma)
    budget = cfg.noise(Phi.shape[1]).budget
    if c is None:
        names = ("LSW", "DP-LSW")
        priv = dp_lsw(fv, Phi, rho, budget, noise)
        thetas = (priv.theta_nonprivate, priv.theta)
        risks = [lsw_loss(fv, Phi, rho, th) for th in thetas]
    else:
        names = ("LSL", "DP-LSL")
        lam = lsl_regularization(Phi, rho, fv.m, c, cfg.lsl_power)
        priv = dp_lsl(fv, Phi, rho, lam, budget, noise)
        thetas = (priv.theta_nonprivate, priv.theta)
        risks = [lsl_loss(fv, Phi, rho, lam, th) for th in thetas]
    return [
        dict(
            features=features,
            method=name,
            c=np.nan if c is None else c,
            m=fv.m,
            rmse=weighted_rmse(Phi, th, V, rho),
            excess_risk=risk - risks[0],
            sigma=sigma,
        )
        for name, th, risk, sigma in zip(names, thetas, risks, (0.0, priv.sigma), strict=True)
    ]


def run_batch(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One trial at one batch size ``config['m']``: every algorithm on the same fresh batch.

    ``config['reg_sweep']`` True adds LSL / DP-LSL at every c of the regularisation grid
    (``reg_n`` log-spaced values between ``10**reg_log10_min`` and ``10**reg_log10_max``).
    """
    cfg = BalleProfile(
        **{k: config[k] for k in (*TRIAL_KEYS, "reg_log10_min", "reg_log10_max", "reg_n")}
    )
    data_ss, noise_ss = seed.spawn(2)
    fv = cfg.sample(config["m"], as_generator(data_ss))
    noise = as_generator(noise_ss)
    c_values = [cfg.lsl_c]
    if config.get("reg_sweep", False):
        grid = np.logspace(cfg.reg_log10_min, cfg.reg_log10_max, cfg.reg_n)
        c_values = sorted({*c_values, *grid.tolist()})
    rows = []
    for features, Phi in cfg.features().items():
        for c in (None, *c_values):
            rows += _release_rows(fv, Phi, cfg, c, noise, features)
    out = pd.DataFrame(rows)
    out["default_c"] = np.isnan(out["c"]) | np.isclose(out["c"], cfg.lsl_c)
    return out


def run_figure1(
    profile: BalleProfile,
    *,
    executor: Any = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """All four panels' data: ``n_trials`` independent :func:`run_batch` per batch size (run_sweep)."""
    base = {k: getattr(profile, k) for k in TRIAL_KEYS}
    grid = {
        "reg_log10_min": profile.reg_log10_min,
        "reg_log10_max": profile.reg_log10_max,
        "reg_n": profile.reg_n,
    }
    configs = [
        {**base, **grid, "m": m, "reg_sweep": m in profile.reg_batch_sizes}
        for m in sorted(set(profile.batch_sizes) | set(profile.reg_batch_sizes))
    ]
    return run_sweep(
        run_batch,
        configs,
        replicates=profile.n_trials,
        root_seed=profile.seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc=PAPER,
    )


def per_trial(
    df: pd.DataFrame, features: str, method: str, m: int, column: str = "rmse"
) -> np.ndarray:
    """One value per independent trial (seed) at the profile's default c, ordered by seed."""
    sel = df[
        (df["features"] == features) & (df["method"] == method) & (df["m"] == m) & df["default_c"]
    ]
    return sel.sort_values("seed")[column].to_numpy(float)


def mean_rmse_table(df: pd.DataFrame) -> pd.DataFrame:
    """Mean RMSE over trials, rows (features, method), one column per batch size (default c)."""
    main = df[df["default_c"]]
    return main.groupby(["features", "method", "m"])["rmse"].mean().unstack("m")
