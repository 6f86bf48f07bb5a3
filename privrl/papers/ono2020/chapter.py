"""Ono and Takahashi (2020): PGC-A3C on CartPole with private gravity, Figures 2-3 and Tables 1-3.

One profile (:class:`OnoProfile`) and one entry point, :func:`run`. Every multi-trial run goes
through :func:`privrl.chapter.sweep.run_sweep` with a module-level run function ``func(config, seed) ->
DataFrame``; one call trains ``trials_per_seed`` independent PGC-A3C trials as one numpy batch:

* :func:`run_first_success` -- one row per trial: first success time (eq. 26; ``inf`` when the
  target is not met within ``n_submissions``), from which Tables 1-3 and Figure 3 follow
  (:func:`success_tables`, :func:`success_ratio_curves`);
* :func:`run_learning_curve` -- the average score of the last 10 submissions (eq. 25) every
  ``record_every`` submissions, without early stop (Figure 2);
* :func:`run_report_statistics` -- the per-report statistics of training (raw and clipped gradient
  norms, noise, update size, actor share, entropy, majority action): the mechanism of failure.

Variants. ``paper`` is the published algorithm (section 4's hyper-parameters, greedy acting,
eq. (22) with ``eta = 0.5``; Laplace ``C = 0.01``, PRS ``C = 1``). The deviations are *not the
paper's* and are labelled as such wherever they appear: ``no_clip`` (non-private, no clipping),
``clip100`` (non-private, ``C = 100``), ``adam_sample`` (actions sampled from ``pi`` as in A3C
and Adam with step size ``1e-3`` at the aggregator). As in the paper, Tables 1-3 use Laplace with
``|B| = 1`` and PRS with ``|B| = 100``; the non-private baseline is Laplace's clipping without
noise (``epsilon = inf``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import platform
import time
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pandas as pd

from privrl.chapter.profile import ExperimentResult, Profile
from privrl.chapter.records import RESULTS, SOURCE_ROOT, current_commit
from privrl.chapter.report import Report
from privrl.chapter.sweep import run_sweep
from privrl.chapter.verdicts import (
    Claim,
    clopper_pearson,
    decide_difference,
    decide_proportions,
    decide_threshold,
    untestable,
)
from privrl.core.accounting.local import per_round_epsilon, sequential_epsilon
from privrl.core.algorithms import a3c
from privrl.core.algorithms.a3c import PGCA3CConfig, train_pgc_a3c
from privrl.core.envs.cartpole import BatchedCartPole, sample_gravities
from privrl.core.mechanisms import local as loc

PAPER = "ono2020"
INF = math.inf
PAPER_CAP = 90_000
TARGET = 195.0
GRAVITY_LABEL = "U{9.7,9.8,9.9} per agent"
RESULTS_DIR = SOURCE_ROOT / RESULTS
TRIALS_CSV = "ono2020-paper-trials.csv"
CURVES_CSV = "ono2020-paper-curves.csv"
RECORD_JSON = "ono2020-paper.json"

#: The deviations from the paper (each one change, or the named pair), never the paper's.
VARIANTS: dict[str, dict[str, Any]] = {
    "paper": {},
    "no_clip": {"clip": INF},
    "clip100": {"clip": 100.0},
    "adam_sample": {"optimizer": "adam", "eta": 1e-3, "action_selection": "sample"},
}
VARIANT_LABELS = {
    "paper": "the paper's algorithm",
    "no_clip": "NOT the paper's: no clipping (non-private)",
    "clip100": "NOT the paper's: C = 100 (non-private)",
    "adam_sample": "NOT the paper's: Adam (step 1e-3) and sampled actions",
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

#: What the paper leaves open that could explain a gap (listed in the chapter and as an erratum).
AMBIGUITIES: tuple[tuple[str, str], ...] = (
    ("clip C", "C = 0.01 (Laplace) is stated, but not whether the non-private baseline "
     "(epsilon = inf) is clipped; with C/2 = 0.005 every report is clipped (measured here)."),
    ("norm of the clip", "eq. (19) writes ||g|| without the norm; the sensitivity argument "
     "(eq. 20 with Laplace noise) needs L1, which we use."),
    ("buffer |B|", "|B| in {1, 100} is stated; how the 9 asynchronous threads interleave their "
     "submissions with updates (staleness) is not."),
    ("learning rate", "eta = 0.5 for plain SGD on the mean of B (eq. 22); TensorFlow's optimiser, "
     "if any other was used, is not named."),
    ("action selection", "Algorithm 1 and section 4 act greedily (argmax pi) with probability "
     "1 - alpha; A3C samples a ~ pi. Greedy acting with a collapsing policy stops exploring."),
    ("initialisation and the time limit", "not stated (we use Glorot uniform, the TF 1.14 "
     "default, and bootstrap V(s_T) at the 200-step limit)."),
)


@dataclass(frozen=True)
class OnoProfile(Profile):
    """Scale of the run; defaults are the quick profile, ``PAPER`` the paper's (section 4)."""

    n_trials: int = 5
    trials_per_seed: int = 5
    epsilons: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0, INF)
    n_submissions: int = 1000
    variants: tuple[str, ...] = ("paper", "no_clip", "clip100", "adam_sample")
    fig2_trials: int = 5
    fig2_submissions: int = 1000
    record_every: int = 50
    diagnostic_trials: int = 6
    diagnostic_submissions: int = 1800
    diagnostic_every: int = 50

    PAPER: ClassVar[dict[str, Any]] = {
        "n_trials": 20,
        "trials_per_seed": 20,
        "n_submissions": PAPER_CAP,
        "fig2_trials": 10,
        "fig2_submissions": PAPER_CAP,
        "record_every": 500,
    }

    def validate(self) -> None:
        for name in ("n_trials", "trials_per_seed", "n_submissions", "fig2_trials",
                     "fig2_submissions", "record_every", "diagnostic_trials",
                     "diagnostic_submissions", "diagnostic_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.n_trials % self.trials_per_seed:
            raise ValueError(f"n_trials ({self.n_trials}) must be a multiple of trials_per_seed "
                             f"({self.trials_per_seed})")
        if not self.epsilons or any(not e > 0 for e in self.epsilons):
            raise ValueError(f"epsilons must be positive (inf allowed), got {self.epsilons}")
        unknown = sorted(set(self.variants) - set(VARIANTS))
        if unknown or "paper" not in self.variants:
            raise ValueError(f"variants must include 'paper' and be among {sorted(VARIANTS)}, "
                             f"got {self.variants}")


# --- run functions (module level, for run_sweep) --------------------------------------------


def algorithm_config(config: dict[str, Any], stop_at_success: bool) -> PGCA3CConfig:
    """The :class:`PGCA3CConfig` of a sweep config (mechanism, epsilon, |B|, variant, ...)."""
    keys = ("mechanism", "epsilon", "buffer_size", "n_submissions", "rounds")
    kwargs = {k: config[k] for k in keys if k in config}
    kwargs.update(VARIANTS[config.get("variant", "paper")])
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


# --- tables ----------------------------------------------------------------------------------


def success_ratio_curves(trials: pd.DataFrame, cap: int, n_points: int = 200) -> pd.DataFrame:
    """Eq. (27): fraction of trials with ``FST <= n`` on a grid of ``n`` up to ``cap`` (Figure 3)."""
    grid = np.unique(np.linspace(0, cap, n_points + 1).astype(int))
    rows = []
    for (variant, mech, eps), g in trials.groupby(["variant", "mechanism", "epsilon"]):
        fst = g["first_success"].to_numpy(dtype=float)
        rows.append(pd.DataFrame({
            "variant": variant, "mechanism": mech, "epsilon": eps, "submission": grid,
            "success_ratio": (fst[None, :] <= grid[:, None]).mean(axis=1)}))
    return pd.concat(rows, ignore_index=True)


def success_tables(trials: pd.DataFrame, cap: int) -> pd.DataFrame:
    """Tables 1-3 per (variant, mechanism, epsilon): median FST (``inf`` when most trials fail)
    with a bootstrap 95% interval (FST censored at ``cap``), success ratio with its exact
    (Clopper-Pearson) 95% interval, and the relative AUC.

    The AUC is the area under the success-ratio curve on ``[0, cap]``, which equals
    ``mean_k (cap - min(FST_k, cap)) / cap``; it is divided by that of the paper's Laplace at
    ``epsilon = inf``.
    """
    from privrl.chapter.verdicts import bootstrap_interval

    rows = []
    for (variant, mech, eps), g in trials.groupby(["variant", "mechanism", "epsilon"]):
        fst = g["first_success"].to_numpy(dtype=float)
        k, n = int(np.isfinite(fst).sum()), len(fst)
        lo, hi = clopper_pearson(k, n)
        censored = np.minimum(fst, cap + 1)
        m_lo, m_hi = bootstrap_interval(np.median, [censored])
        rows.append({
            "variant": variant, "mechanism": mech, "epsilon": eps,
            "median_fst": float(np.median(fst)),
            "median_fst_lo": m_lo, "median_fst_hi": m_hi if m_hi <= cap else INF,
            "successes": k, "n_trials": n, "success_ratio": k / n,
            "success_lo": lo, "success_hi": hi,
            "auc": float(np.mean((cap - np.minimum(fst, cap)) / cap)),
        })  # fmt: skip
    out = pd.DataFrame(rows)
    ref = out.loc[(out.variant == "paper") & (out.mechanism == "laplace")
                  & np.isinf(out.epsilon), "auc"]
    out["relative_auc"] = out["auc"] / ref.iloc[0] if len(ref) and ref.iloc[0] > 0 else np.nan
    return out


def compare_with_paper(tables: pd.DataFrame) -> pd.DataFrame:
    """Tables 1-3 of the paper's algorithm beside the printed values: one row per metric,
    mechanism and epsilon with ``ours``, its 95% interval and ``paper`` (a quote)."""
    rows = []
    paper_rows = tables[tables.variant == "paper"]
    intervals = {"median_fst": ("median_fst_lo", "median_fst_hi"),
                 "success_ratio": ("success_lo", "success_hi"), "relative_auc": (None, None)}
    for metric, quoted in PAPER_TABLES.items():
        lo_col, hi_col = intervals[metric]
        for _, r in paper_rows.iterrows():
            rows.append({
                "metric": metric, "mechanism": r.mechanism, "epsilon": r.epsilon,
                "ours": r[metric], "lo": r[lo_col] if lo_col else np.nan,
                "hi": r[hi_col] if hi_col else np.nan, "n_trials": r.n_trials,
                "paper": quoted.get((r.mechanism, float(r.epsilon)), np.nan),
            })  # fmt: skip
    return pd.DataFrame(rows)


def paper_table(comparison: pd.DataFrame, metric: str) -> pd.DataFrame:
    """One of Tables 1-3 as printed: rows mechanism x (ours, paper), columns epsilon."""
    sub = comparison[comparison.metric == metric]
    wide = sub.pivot_table(index="mechanism", columns="epsilon", values=["ours", "paper"])
    return wide.stack(level=0, future_stack=True).rename_axis(["mechanism", "source"])


# --- privacy: exact worst-case ratios, checks, ledger ----------------------------------------


def prs_ratio_table(epsilons: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0)) -> pd.DataFrame:
    """Exact worst-case log-likelihood ratio of PRS's sign vector (corrected eq. 24) and of a
    weakened PRS spending ``epsilon`` per coordinate (the misprint's risk), by enumeration."""
    rows = []
    for eps in epsilons:
        d_hat = loc.default_projection_dim(eps, a3c.D)
        rows.append({
            "epsilon": eps, "d_hat": d_hat,
            "exact": loc.prs_worst_log_ratio(eps, d_hat),
            "weakened": loc.prs_worst_log_ratio(eps, d_hat, per_coordinate_epsilon=eps),
        })  # fmt: skip
    return pd.DataFrame(rows)


def empirical_ldp_table(rng: np.random.Generator, n: int = 100_000) -> pd.DataFrame:
    """Largest |log ratio| of empirical output frequencies of both samplers for two extreme
    inputs, against ``epsilon`` plus four standard errors of that log ratio (a smoke test of the
    samplers; four rather than two because the maximum runs over up to 40 bins, many of them at
    the bound exactly)."""
    rows = []
    for eps in (1.0, 5.0):
        d_hat = loc.default_projection_dim(eps, a3c.D)
        m = loc.random_projection(1, d_hat, a3c.D, rng)[0]
        g_hi = m.sum(0) * 10.0  # M g_hi >> C in every coordinate
        freq = []
        for g in (g_hi, -g_hi):
            out = loc.projected_random_sign(np.tile(g, (n, 1)), eps, 1.0, rng,
                                            matrix=np.broadcast_to(m, (n, d_hat, a3c.D)))
            u = np.linalg.lstsq(m.T, out.T, rcond=None)[0].T
            codes = ((u > 0) * (2 ** np.arange(d_hat))).sum(1)
            freq.append(np.bincount(codes, minlength=2**d_hat) / n)
        p, q = freq
        lr = np.abs(np.log(p / q))
        se = np.sqrt((1 - p) / (n * p) + (1 - q) / (n * q))
        rows.append({"mechanism": "prs", "epsilon": eps, "max_log_ratio": lr.max(),
                     "bound": eps + 4 * se[lr.argmax()]})
        clip = 0.01
        g1 = np.zeros((n, a3c.D))
        g1[:, 0] = 1.0
        y1 = loc.laplace_gradient_mechanism(g1, eps, clip, rng)[:, 0]
        y2 = loc.laplace_gradient_mechanism(-g1, eps, clip, rng)[:, 0]
        bins = np.linspace(-4 * clip / eps, 4 * clip / eps, 41)
        h1, h2 = np.histogram(y1, bins)[0], np.histogram(y2, bins)[0]
        ok = (h1 > 500) & (h2 > 500)
        lr = np.abs(np.log(h1[ok] / h2[ok]))
        se = np.sqrt(1 / h1[ok] + 1 / h2[ok])
        rows.append({"mechanism": "laplace", "epsilon": eps, "max_log_ratio": lr.max(),
                     "bound": eps + 4 * se[lr.argmax()]})
    return pd.DataFrame(rows)


def prs_shrinkage_table(rng: np.random.Generator, n: int = 200_000) -> pd.DataFrame:
    """Measured ``E[M^T u_tilde] . g / |g|^2`` against ``d_hat tanh(epsilon / (2 d_hat))``."""
    rows = []
    for eps in (1.0, 5.0, 10.0):
        d_hat = loc.default_projection_dim(eps, a3c.D)
        g = rng.normal(size=a3c.D)
        g *= 0.9 / (math.sqrt(3) * np.abs(g).sum())
        out = loc.projected_random_sign(np.tile(g, (n, 1)), eps, 1.0, rng, d_hat=d_hat)
        proj = out @ g / (g @ g)
        rows.append({"epsilon": eps, "d_hat": d_hat,
                     "theory": d_hat * math.tanh(eps / (2 * d_hat)),
                     "measured": float(proj.mean()), "se": float(proj.std() / math.sqrt(n))})
    return pd.DataFrame(rows)


def jl_moment_error(rng: np.random.Generator, n: int = 20_000, d_hat: int = 4) -> float:
    """``max |mean(M^T M) / d_hat - I|`` over ``n`` draws of eq. (5)."""
    m = loc.random_projection(n, d_hat, a3c.D, rng)
    return float(np.abs(np.einsum("nkd,nke->de", m, m) / (n * d_hat) - np.eye(a3c.D)).max())


def cartpole_matches_gymnasium(rng: np.random.Generator, n: int = 3, steps: int = 30) -> bool:
    """The batched CartPole steps bit for bit like gymnasium's ``CartPoleEnv`` (random actions)."""
    grav = sample_gravities(n, rng)
    batch = BatchedCartPole(grav)
    init = rng.uniform(-0.05, 0.05, size=(n, 4))
    batch.reset(states=init)
    envs = []
    for i in range(n):
        e = gym.make("CartPole-v1").unwrapped
        e.reset(seed=i)
        e.gravity, e.state = float(grav[i]), init[i].copy()
        envs.append(e)
    same = True
    for _ in range(steps):
        act = rng.integers(0, 2, size=n)
        running = ~batch.done
        obs = batch.step(act)[0]
        for i in np.flatnonzero(running):
            same &= bool(np.array_equal(envs[i].step(int(act[i]))[0], obs[i]))
        if batch.done.all():
            break
    return same


def record_privacy(report: Report, epsilons: tuple[float, ...], rounds: int = 3) -> None:
    """Ledger entries: every report's local epsilon for both mechanisms at each finite epsilon,
    with the exact worst-case ratio as cross-check; and the multi-round extension (section
    3.2.1) at ``rounds`` submissions per agent (per-round entry and the agent's total)."""
    for eps in (e for e in epsilons if math.isfinite(e)):
        clip = a3c.DEFAULT_CLIP["laplace"]
        report.ledger(
            release=f"one gradient report (Laplace, C = {clip:g})", mechanism="Laplace (Alg. 2)",
            relation="replace-one", unit="report",
            noise=f"b = C/epsilon = {loc.laplace_scale(clip, eps):.4g} per coordinate",
            epsilon=eps, delta=0.0, compositions=1,
            accountant="Lemma 2: L1 clip to C/2 (eq. 19), sensitivity C (eq. 20)",
            cross_check="exact worst-case log density ratio of the mechanism's clip and scale",
            cross_check_epsilon=loc.laplace_worst_log_ratio(eps, clip, a3c.D),
            audit="audits:pgc_laplace")
        d_hat = loc.default_projection_dim(eps, a3c.D)
        report.ledger(
            release=f"one gradient report (PRS, d_hat = {d_hat}, C = 1)",
            mechanism="projected random sign (Alg. 3, corrected eq. 24)",
            relation="replace-one", unit="report",
            noise=f"bit flip with epsilon/d_hat = {eps / d_hat:.4g} per sign",
            epsilon=eps, delta=0.0, compositions=d_hat,
            accountant="Lemma 3: d_hat signs, each epsilon/d_hat",
            cross_check="exact worst-case log-likelihood ratio by enumeration of extreme inputs",
            cross_check_epsilon=loc.prs_worst_log_ratio(eps, d_hat), audit="audits:pgc_prs")
    eps = 1.0
    eps_round = per_round_epsilon(eps, rounds)
    clip = a3c.DEFAULT_CLIP["laplace"]
    exact_round = loc.laplace_worst_log_ratio(eps_round, clip, a3c.D)
    report.ledger(
        release=f"one of {rounds} reports of an agent (Laplace, multi-round, sec. 3.2.1)",
        mechanism="Laplace (Alg. 2)", relation="replace-one", unit="report",
        noise=f"b = C/(epsilon/T) = {loc.laplace_scale(clip, eps_round):.4g}",
        epsilon=eps_round, delta=0.0, compositions=1,
        accountant=f"per-round budget epsilon/T = {eps:g}/{rounds}",
        cross_check="exact worst-case log density ratio", cross_check_epsilon=exact_round,
        audit="audits:pgc_laplace")
    report.ledger(
        release=f"all {rounds} reports of an agent (Laplace, multi-round, sec. 3.2.1)",
        mechanism="Laplace (Alg. 2)", relation="replace-one", unit="user",
        noise=f"b = {loc.laplace_scale(clip, eps_round):.4g} in each of {rounds} reports",
        epsilon=sequential_epsilon([eps_round] * rounds), delta=0.0, compositions=rounds,
        accountant="sequential composition (Theorem 1)",
        cross_check="sum of the exact per-round worst-case ratios",
        cross_check_epsilon=rounds * exact_round)


def record_mechanism_checks(report: Report, rng: np.random.Generator) -> dict[str, Any]:
    """The chapter's privacy and environment checks (each raises if it fails); returns the tables."""
    prs = prs_ratio_table()
    report.check("prs_exact_ldp", "largest exact PRS worst-case log ratio minus epsilon",
                 float((prs.exact - prs.epsilon).max()), at_most=1e-9)
    multi = prs[prs.d_hat > 1]
    report.check("prs_weakened_caught", "smallest excess of the weakened PRS over epsilon "
                 "(d_hat > 1)", float((multi.weakened - multi.epsilon).min()), above=0.0)
    emp = empirical_ldp_table(rng)
    report.check("empirical_ldp", "largest empirical |log ratio| minus (epsilon + 4 se)",
                 float((emp.max_log_ratio - emp.bound).max()), at_most=0.0)
    jl = jl_moment_error(rng)
    report.check("jl_moment", "max |mean(M^T M)/d_hat - I| over 20,000 draws", jl, below=0.1)
    shrink = prs_shrinkage_table(rng)
    report.check("prs_shrinkage", "largest |measured - d_hat tanh(eps/(2 d_hat))| in standard "
                 "errors", float((np.abs(shrink.measured - shrink.theory) / shrink.se).max()),
                 below=4.0)
    report.check("cartpole_equals_gymnasium", "batched CartPole equals gymnasium bit for bit",
                 cartpole_matches_gymnasium(rng))
    return {"prs_ratio": prs, "empirical_ldp": emp, "shrinkage": shrink, "jl_error": jl}


def record_errata(report: Report) -> None:
    """The paper's errata (book/errata.md) and the ambiguities that could explain the gap."""
    report.erratum(
        "eq24", "wrong",
        "Eq. (24) mixes epsilon/k (k undefined) with epsilon/d_hat in PRS's bit flip; with two "
        "budgets the probability can leave [0, 1] or its ratio exceed e^(epsilon/d_hat).",
        "Implemented as eq. (4) with epsilon/d_hat in both places; exact enumeration shows the "
        "worst-case log ratio equals epsilon, and a weakened version exceeds it (check "
        "prs_exact_ldp, prs_weakened_caught).")
    report.erratum(
        "hyperparameters", "ambiguous",
        "The paper leaves open: " + "; ".join(f"{k}: {v}" for k, v in AMBIGUITIES),
        "Section 4 and Algorithm 1; the chapter's report statistics show the clip binding on "
        "every report and the greedy policy collapsing to one action.")


# --- claims ----------------------------------------------------------------------------------


def _arm(trials: pd.DataFrame, variant: str, mech: str, eps: float) -> pd.DataFrame:
    return trials[(trials.variant == variant) & (trials.mechanism == mech)
                  & (trials.epsilon == eps)]


def success_ratio_claim(key: str, statement: str, arm: pd.DataFrame, threshold: float,
                        cap: int, evidence: str = "") -> Claim:
    """"The success ratio exceeds ``threshold``" with its exact (Clopper-Pearson) 95% interval.

    Reproduced when the interval lies above ``threshold``; not reproduced otherwise; untestable
    below 5 trials. Success is defined at the paper's budget of 90,000 submissions: at a smaller
    budget ``cap`` the measured ratio is a lower bound of that one, so the claim can still be
    reproduced there, but an interval that does not lie above the threshold is untestable.
    """
    n, k = len(arm), int(arm["success"].sum())
    if n < 5:
        return untestable(key, statement, "too few trials (fewer than 5)", n, evidence)
    lo, hi = clopper_pearson(k, n)
    short = cap < PAPER_CAP
    if lo > threshold:
        verdict = "reproduced"
        reason = "the exact 95% interval lies above the threshold" + (
            f" already at a budget of {cap:,} submissions" if short else "")
    elif short:
        return Claim(key, statement, "untestable", "success ratio", k / n, (lo, hi), n,
                     f"budget {cap:,} < {PAPER_CAP:,}: a success ratio at this budget only "
                     f"bounds the paper's from below ({k}/{n})", evidence)
    elif hi < threshold:
        verdict, reason = "not reproduced", "the exact 95% interval lies below the threshold"
    else:
        verdict, reason = "not reproduced", "the exact 95% interval contains the threshold"
    return Claim(key, statement, verdict, "success ratio", k / n, (lo, hi), n,
                 f"{reason} {threshold:g} ({k}/{n})", evidence)


def decide_claims(trials: pd.DataFrame, curves: pd.DataFrame, cap: int,
                  evidence: str = "", suffix: str = "") -> list[Claim]:
    """The paper's headline claims decided on ``trials`` (Tables 1-3) and ``curves`` (Fig. 2)."""
    claims = [
        success_ratio_claim(
            f"baseline_learns{suffix}", "Non-private PGC-A3C (Laplace clipping, epsilon = inf) "
            "reaches the target in most trials (Table 2: 1.0)",
            _arm(trials, "paper", "laplace", INF), 0.5, cap, evidence),
        success_ratio_claim(
            f"laplace_eps1_learns{suffix}", "PGC-A3C with Laplace at epsilon = 1 reaches the "
            "target in most trials (Table 2: 0.80)",
            _arm(trials, "paper", "laplace", 1.0), 0.5, cap, evidence),
        success_ratio_claim(
            f"prs_eps1_learns{suffix}", "PGC-A3C with PRS at epsilon = 1 reaches the target in "
            "most trials (Table 2: 0.85)", _arm(trials, "paper", "prs", 1.0), 0.5, cap, evidence),
    ]
    for (mech, eps), printed in PAPER_TABLES["median_fst"].items():
        if printed >= 10_000:
            continue
        arm = _arm(trials, "paper", mech, eps)
        fst = np.minimum(arm["first_success"].to_numpy(dtype=float), cap + 1)
        name = "Laplace" if mech == "laplace" else "PRS"
        key = f"median_fst_{mech}_eps{'inf' if math.isinf(eps) else f'{eps:g}'}{suffix}"
        statement = (f"{name} at {_eps_label(eps)}: median first success time below 10,000 "
                     f"submissions (Table 1: {printed:,.0f})")
        if cap < 10_000:
            claims.append(untestable(key, statement, f"the profile's budget ({cap:,}) is below "
                                     "10,000", len(fst), evidence))
        else:
            claims.append(decide_threshold(key, statement, fst, 10_000, direction="less",
                                           label="FST (censored at the budget)",
                                           statistic="median", evidence=evidence))
    for key, eps, better, worse in (("prs_beats_laplace_eps1", 1.0, "prs", "laplace"),
                                    ("laplace_beats_prs_eps10", 10.0, "laplace", "prs")):
        a, b = _arm(trials, "paper", better, eps), _arm(trials, "paper", worse, eps)
        claims.append(decide_proportions(
            f"{key}{suffix}", f"{better.upper() if better == 'prs' else 'Laplace'} succeeds more "
            f"often than {worse.upper() if worse == 'prs' else 'Laplace'} at epsilon = {eps:g} "
            "(Tables 2-3)", int(a.success.sum()), len(a), int(b.success.sum()), len(b),
            direction="greater", label_a=better, label_b=worse, evidence=evidence))
    half = curves[curves.submission > curves.submission.max() / 2]
    late = half.groupby(["mechanism", "buffer_size", "trial"]).avg_score.mean()
    for key, mech, direction, text in (("buffer_helps_prs", "prs", "greater", "helps PRS"),
                                       ("buffer_hurts_laplace", "laplace", "less",
                                        "hurts Laplace")):
        with_b = late.get((mech, 100), pd.Series(dtype=float)).to_numpy()
        without = late.get((mech, 1), pd.Series(dtype=float)).to_numpy()
        claims.append(decide_difference(
            f"{key}{suffix}", f"Buffering (|B| = 100) {text} at epsilon = 1 (Figure 2: average "
            "score over the second half of training)", with_b, without, direction=direction,
            label_a="|B|=100", label_b="|B|=1", statistic="median", evidence=evidence))
    return claims


# --- the failure, as numbers -----------------------------------------------------------------


def failure_summary(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """Per variant and epsilon: means of the report statistics over training and over its last
    quarter (``late_*``), the fraction of clipped reports, the median raw norm, and the fraction
    of trials whose late episodes take their most frequent action in >= 90% of steps
    (``collapsed_trials``: the policy has collapsed to nearly one action)."""
    rows = []
    for (variant, eps), g in diagnostics.groupby(["variant", "epsilon"]):
        last = g[g.submission > 0.75 * g.submission.max()]
        per_trial = last.groupby("trial")["majority_fraction"].mean()
        rows.append({
            "collapsed_trials": float((per_trial >= 0.9).mean()),
            "variant": variant, "epsilon": eps,
            "clipped_fraction": float(g["clipped_fraction"].mean()),
            "median_raw_norm": float(g["raw_norm_q50"].median()),
            "late_actor_share": float(last["actor_share"].mean()),
            "late_majority_fraction": float(last["majority_fraction"].mean()),
            "late_entropy": float(last["entropy"].mean()),
            "late_score": float(last["score"].mean()),
            "update_norm": float(g["update_norm"].mean()),
        })  # fmt: skip
    return pd.DataFrame(rows)


# --- the one entry point ---------------------------------------------------------------------


def run(profile: OnoProfile, *, executor: Any = None, cache_dir: Any = None,
        progress: bool = False) -> ExperimentResult:
    """Run ``profile``: mechanism checks, ledger, errata, Tables 1-3, Figure 2, the report
    statistics of training, and the claims decided on this run's trials."""
    if not isinstance(profile, OnoProfile):
        raise ValueError(f"profile must be an OnoProfile, got {type(profile).__name__}")
    report = Report(PAPER, profile.profile, seed=profile.seed, config=profile.as_dict())
    rng = np.random.default_rng(profile.seed)
    mech_tables = record_mechanism_checks(report, rng)
    record_privacy(report, profile.epsilons)
    record_errata(report)
    kw = {"executor": executor, "cache_dir": cache_dir, "progress": progress}
    trials = sweep_tables(profile, **kw)
    curves = sweep_figure2(profile, **kw)
    diagnostics = sweep_diagnostics(profile, **kw)
    cap = profile.n_submissions
    tables = success_tables(trials, cap)
    for claim in decide_claims(trials, curves, cap, evidence=f"live {profile.profile} run"):
        report.claim(claim)
    failure = failure_summary(diagnostics)
    steps_per_s = float(trials.env_steps.sum() / trials.seconds.sum())
    report.glue("steps_per_s", steps_per_s)
    report.glue("cap", cap)
    report.glue("n_trials", profile.n_trials)
    report.glue("jl_err", mech_tables["jl_error"])
    return ExperimentResult(
        tables={"trials": trials, "curves": curves, "diagnostics": diagnostics,
                "tables": tables, "comparison": compare_with_paper(tables),
                "success_curves": success_ratio_curves(trials, cap), "failure": failure,
                **{k: v for k, v in mech_tables.items() if isinstance(v, pd.DataFrame)}},
        report=report, extra={"steps_per_s": steps_per_s})


# --- the recorded paper-profile run ----------------------------------------------------------


def paper_trials_frame(trials: pd.DataFrame) -> pd.DataFrame:
    """The tidy trials CSV: ``variant, mechanism, epsilon, gravity, trial, first_success,
    success, env_steps``."""
    out = trials.assign(gravity=GRAVITY_LABEL)
    cols = ["variant", "mechanism", "epsilon", "gravity", "trial", "first_success", "success",
            "env_steps"]
    return out[cols].sort_values(["variant", "mechanism", "epsilon", "trial"])


def paper_curves_frame(curves: pd.DataFrame) -> pd.DataFrame:
    """The tidy curves CSV: ``variant, mechanism, epsilon, trial, submission, avg_score``
    (Figure 2's buffer size is part of ``variant``: ``paper |B|=1`` / ``paper |B|=100``)."""
    out = curves.assign(variant=curves["variant"] + " |B|=" + curves["buffer_size"].astype(str))
    return out[["variant", "mechanism", "epsilon", "trial", "submission", "avg_score"]]


def record_paper_run(profile: OnoProfile, *, cache_dir: Any, directory: Path = RESULTS_DIR,
                     executor: Any = "serial", progress: bool = False, note: str = "",
                     workers: int = 1) -> dict[str, Any]:
    """Run the tables and Figure 2 of ``profile`` and write the two CSVs and the run record
    (``book/measurements/``). ``note`` states what part of the paper profile was run; the record
    names the commit checked out when the run *started* and the ``workers`` it ran on."""
    commit, start = current_commit(), time.perf_counter()
    kw = {"executor": executor, "cache_dir": cache_dir, "progress": progress,
          "max_workers": workers}
    trials = sweep_tables(profile, **kw)
    curves = sweep_figure2(profile, **kw)
    wall = time.perf_counter() - start
    record = {
        "notebook": PAPER, "profile": profile.profile,
        "parameters": {k: list(v) if isinstance(v, tuple) else v
                       for k, v in dataclasses.asdict(profile).items()},
        "wall_time_s": round(wall, 1), "compute_s": round(float(trials.seconds.sum()), 1),
        "env_steps": int(trials.env_steps.sum()), "git_commit": commit,
        "python": platform.python_version(), "machine": platform.machine(),
        "cpus": workers, "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "note": note, "files": [TRIALS_CSV, CURVES_CSV],
    }  # fmt: skip
    write_paper_results(trials, curves, record, directory)
    return record


def recorded_paper_run(directory: Path = RESULTS_DIR) -> dict[str, Any] | None:
    """The recorded paper run: ``{"trials", "curves", "record"}`` or ``None`` if absent."""
    directory = Path(directory)
    if not (directory / TRIALS_CSV).exists():
        return None
    record_path = directory.parent / RECORD_JSON
    return {"trials": pd.read_csv(directory / TRIALS_CSV),
            "curves": pd.read_csv(directory / CURVES_CSV),
            "record": json.loads(record_path.read_text()) if record_path.exists() else {}}


def recorded_curves_for_claims(curves: pd.DataFrame) -> pd.DataFrame:
    """The recorded curves CSV back in the form :func:`decide_claims` reads (``buffer_size``)."""
    return curves.assign(buffer_size=curves["variant"].str.extract(r"=(\d+)$")[0].astype(int))


# --- figures ---------------------------------------------------------------------------------


def _eps_label(eps: float) -> str:
    return "ε = ∞ (no noise)" if math.isinf(eps) else f"ε = {eps:g}"


def plot_figure2(curves: pd.DataFrame, title: str = "") -> Any:
    """Figure 2: average score (eq. 25) over submissions, Laplace and PRS at epsilon = 1, with
    and without the buffer (mean over trials, band = one standard error)."""
    from privrl.chapter.plotting import band_plot, new_figure

    fig, axes = new_figure(1, 2, sharey=True)
    for ax, mech in zip(axes[0], ("laplace", "prs"), strict=True):
        band_plot(ax, curves[curves.mechanism == mech], "submission", "avg_score",
                  hue="buffer_size", label_fmt="|B| = {}")
        ax.axhline(TARGET, color="k", ls=":", lw=1, label="target 195")
        ax.set_title(f"{'Laplace' if mech == 'laplace' else 'PRS'}, ε = 1 {title}".strip())
        ax.set_xlabel("submissions")
        ax.legend()
    axes[0][0].set_ylabel("average score of the last 10 episodes (steps)")
    axes[0][1].set_ylabel("")
    fig.tight_layout()
    return fig


def plot_figure3(success_curves: pd.DataFrame, title: str = "") -> Any:
    """Figure 3: success ratio (eq. 27) against the number of submissions, per epsilon."""
    from privrl.chapter.plotting import new_figure

    fig, axes = new_figure(1, 2, sharey=True)
    paper_rows = success_curves[success_curves.variant == "paper"]
    for ax, mech in zip(axes[0], ("laplace", "prs"), strict=True):
        for eps, g in paper_rows[paper_rows.mechanism == mech].groupby("epsilon"):
            ax.step(g.submission, g.success_ratio, where="post", label=_eps_label(eps))
        ax.set_title(f"{'Laplace' if mech == 'laplace' else 'PRS'} {title}".strip())
        ax.set_xlabel("submissions")
        ax.set_ylim(-0.03, 1.03)
        ax.legend()
    axes[0][0].set_ylabel("fraction of trials that succeeded")
    fig.tight_layout()
    return fig


def plot_failure(diagnostics: pd.DataFrame) -> Any:
    """Four panels over training (mean over trials): raw report L1 norms (10/50/90% quantiles)
    against the clip C/2; the L1 size of each applied update; the actor's share of the gradient;
    the fraction of steps taking the episode's most frequent action."""
    from privrl.chapter.plotting import new_figure

    fig, axes = new_figure(2, 2, width=4.4, height=3.0)
    ax_norm, ax_update, ax_share, ax_major = axes.ravel()
    paper_rows = diagnostics[diagnostics.variant == "paper"]
    for eps, g in paper_rows.groupby("epsilon"):
        mean = g.groupby("submission").mean(numeric_only=True)
        label = f"paper, {_eps_label(eps)}"
        (line,) = ax_norm.plot(mean.index, mean["raw_norm_q50"], label=f"{label}: median")
        ax_norm.fill_between(mean.index, mean["raw_norm_q10"], mean["raw_norm_q90"],
                             color=line.get_color(), alpha=0.2, lw=0)
        ax_update.plot(mean.index, mean["update_norm"], label=label)
        ax_share.plot(mean.index, mean["actor_share"], label=label)
        ax_major.plot(mean.index, mean["majority_fraction"], label=label)
    for variant, g in diagnostics[diagnostics.variant != "paper"].groupby("variant"):
        mean = g.groupby("submission").mean(numeric_only=True)
        ax_major.plot(mean.index, mean["majority_fraction"], ls="--", label=f"{variant} (not "
                      "the paper's)")
    ax_norm.axhline(a3c.DEFAULT_CLIP["laplace"] / 2, color="k", ls=":", label="clip C/2 = 0.005")
    ax_norm.set_yscale("log")
    ax_norm.set_ylabel("gradient L1 norm before the clip")
    ax_update.set_yscale("log")
    ax_update.set_ylabel("L1 size of the applied update")
    ax_share.set_ylabel("actor's share of |gradient|_1")
    ax_share.set_ylim(0, 1)
    ax_major.set_ylabel("fraction of steps with the most\nfrequent action")
    for ax in axes.ravel():
        ax.set_xlabel("submissions")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def deviation_table(tables: pd.DataFrame) -> pd.DataFrame:
    """Success ratios (exact 95% intervals) of the deviations beside the paper's algorithm at the
    same epsilon, each row labelled with what it changes."""
    keep = tables[(tables.mechanism == "laplace")
                  & (tables.epsilon.isin([INF, 1.0]))].copy()
    keep["what"] = keep.variant.map(VARIANT_LABELS)
    keep["success ratio [95% CI]"] = [
        f"{r.successes}/{r.n_trials} [{r.success_lo:.2f}, {r.success_hi:.2f}]"
        for r in keep.itertuples()]
    cols = ["variant", "what", "epsilon", "success ratio [95% CI]", "median_fst"]
    return keep[cols].sort_values(["epsilon", "variant"]).reset_index(drop=True)


def ambiguity_table() -> pd.DataFrame:
    """The choices the paper leaves open (see :data:`AMBIGUITIES`)."""
    return pd.DataFrame(AMBIGUITIES, columns=["choice", "what the paper says and leaves open"])


def projected_paper_hours(record: dict[str, Any], workers: int = 2) -> float:
    """Wall time (hours) of the full paper profile (90,000 submissions) on ``workers`` processes:
    measured when ``record`` is a full run on that many, else projected from its wall time
    scaled by the budget ratio (failing trials step about as fast late as early) and divided
    over ``workers``."""
    budget = int(record["parameters"]["n_submissions"])
    ran_on = int(record.get("cpus", 1))
    return float(record["wall_time_s"]) * PAPER_CAP / budget * ran_on / workers / 3600


def record_reproduction_erratum(report: Report, claims: list[Claim], source: str) -> None:
    """An erratum of kind "not reproduced" listing the claims ``source`` did not reproduce."""
    failed = [c for c in claims if c.verdict == "not reproduced"]
    if failed:
        report.erratum(
            "learning_not_reproduced", "not reproduced",
            "The learning results (Tables 1-3, Figure 2) are not reproduced from the published "
            "description: " + "; ".join(c.statement for c in failed) + ".",
            f"{source}: " + "; ".join(f"{c.key}: {c.evidence_text()}" for c in failed))


def cached_paper_subset(profile: OnoProfile, cache_dir: Any) -> tuple[pd.DataFrame,
                                                                     pd.DataFrame, list[str]]:
    """The configurations of ``profile`` whose trials are already in the sweep cache (for
    recording an interrupted paper run honestly): ``(trials, curves, missing)`` with the labels
    of the configurations not yet run."""
    from privrl.chapter.sweep import run_key

    frames: dict[str, list[pd.DataFrame]] = {"trials": [], "curves": []}
    missing = []
    n_seeds = profile.n_trials // profile.trials_per_seed
    jobs = [("trials", run_first_success, table_configs(profile), n_seeds),
            ("curves", run_learning_curve, figure2_configs(profile), 1)]
    for name, func, configs, seeds in jobs:
        for config in configs:
            for index in range(seeds):
                path = (Path(cache_dir) / f"{func.__module__}.{func.__qualname__}"
                        / f"{run_key(func, config, profile.seed, index)}.pkl")
                label = (f"{name}: {config['variant']} {config['mechanism']} "
                         f"eps={config['epsilon']:g} |B|={config['buffer_size']}")
                if not path.exists():
                    missing.append(label)
                    continue
                frame = pd.read_pickle(path)
                scalars = {k: v for k, v in config.items() if k not in frame.columns}
                frames[name].append(frame.assign(**scalars, seed=index))
    trials = pd.concat(frames["trials"], ignore_index=True) if frames["trials"] else None
    if trials is not None:
        trials["trial"] = trials["seed"] * profile.trials_per_seed + trials["trial"]
    curves = pd.concat(frames["curves"], ignore_index=True) if frames["curves"] else None
    return trials, curves, missing


def write_paper_results(trials: pd.DataFrame, curves: pd.DataFrame | None,
                        record: dict[str, Any], directory: Path = RESULTS_DIR) -> None:
    """Write the two tidy CSVs and the run record (used by :func:`record_paper_run`)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paper_trials_frame(trials).to_csv(directory / TRIALS_CSV, index=False)
    if curves is not None:
        paper_curves_frame(curves).to_csv(directory / CURVES_CSV, index=False)
    (directory.parent / RECORD_JSON).write_text(json.dumps(record, indent=2, default=str) + "\n")


def recorded_highlights(tables: pd.DataFrame) -> dict[str, float]:
    """The numbers the chapter's prose quotes from the recorded run (successes out of trials
    and median first success time of the paper's baseline, its epsilon = 1 arms, and the
    non-private deviations)."""
    out: dict[str, float] = {}
    for variant, mech, eps, name in (("paper", "laplace", INF, "baseline"),
                                     ("paper", "laplace", 1.0, "laplace1"),
                                     ("paper", "prs", 1.0, "prs1"),
                                     ("clip100", "laplace", INF, "clip100"),
                                     ("no_clip", "laplace", INF, "no_clip"),
                                     ("adam_sample", "laplace", INF, "adam_inf"),
                                     ("adam_sample", "laplace", 1.0, "adam_1")):
        row = tables[(tables.variant == variant) & (tables.mechanism == mech)
                     & (tables.epsilon == eps)]
        if len(row):
            out[f"{name}_successes"] = int(row.successes.iloc[0])
            out[f"{name}_n"] = int(row.n_trials.iloc[0])
            out[f"{name}_median_fst"] = float(row.median_fst.iloc[0])
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m privrl.papers.ono2020.chapter record-paper``: record the paper profile (Tables
    1-3 and Figure 2 at 20 trials and 90,000 submissions unless told otherwise)."""
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.ono2020.chapter")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record-paper", help="run and record the paper profile")
    rec.add_argument("--n-submissions", type=int, default=PAPER_CAP)
    rec.add_argument("--workers", type=int, default=2, help="worker processes")
    rec.add_argument("--cache-dir", required=True, help="sweep cache (resumable)")
    rec.add_argument("--out", default=None, help="results directory (default book/measurements/results)")
    rec.add_argument("--note", default="")
    args = parser.parse_args(argv)
    profile = OnoProfile.from_parameters("paper", n_submissions=args.n_submissions,
                                         fig2_submissions=args.n_submissions)
    record = record_paper_run(profile, cache_dir=args.cache_dir,
                              directory=Path(args.out) if args.out else RESULTS_DIR,
                              executor="process" if args.workers > 1 else "serial",
                              progress=True, note=args.note, workers=args.workers)
    print(json.dumps(record, indent=1, default=str))


if __name__ == "__main__":
    main()
