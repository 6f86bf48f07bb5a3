"""Gohari et al. (2021): Figure 2, its claims, the teacher's privacy ledger, and the recorded AirRaid run.

One entry point, :func:`run` (profile :class:`GohariProfile`): the checks of Theorem 1 and
Lemma 1 (:mod:`privrl.papers.gohari2021.theory`), the teachers' per-query privacy (ledger
entries), the Figure 2 runs through :func:`privrl.chapter.sweep.run_sweep` (so on Dask with an executor),
the kickstarting speed-up and the paper's claims re-decided with three-state verdicts.

Profiles: ``quick`` (CartPole-v1, 24 roll-outs of 500 interactions in 4 environments, 3 seeds, a
(64, 64) teacher shipped in ``privrl/data/gohari2021/``) and ``paper`` (AirRaid RAM, Spinning Up's
episode handling: roll-outs of 1,000 interactions of one environment, 1,000-step episode cap,
reset per roll-out, rewards-to-go value targets; 4,000 roll-outs, 30 seeds, supplement sweeps).

Speed-up (:func:`time_to_threshold`, :func:`speedup`): thresholds between a uniformly random
policy and the teacher, :math:`X_q = R_{\\rm random} + q (R_{\\rm teacher} - R_{\\rm random})`, both
returns measured in the same run with the same episode cap; a run's time to threshold is the
first roll-out whose rolling-mean return reaches :math:`X_q`, censored at the budget if none
does; the speed-up is the ratio of median times with a bootstrap 95% interval.

The recorded AirRaid run (:func:`record_paper_curves`, CLI ``record-curves``) writes
``book/measurements/results/gohari2021-paper-curves.csv`` (``config, seed, rollout, env_steps,
avg_return, epsilon_spent``) and a JSON run record beside it.

Train the teachers (weights are committed; the command regenerates them)::

    python -m privrl.papers.gohari2021.chapter train-teacher --env cartpole --epochs 40
    python -m privrl.papers.gohari2021.chapter train-teacher --env airraid --epochs 2500
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import os
import platform
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from scipy import stats

from privrl.chapter.plotting import summarise
from privrl.chapter.profile import ExperimentResult, Profile
from privrl.chapter.records import current_commit, results_dir
from privrl.chapter.report import Report
from privrl.chapter.sweep import run_sweep
from privrl.chapter.verdicts import Claim, bootstrap_interval, decide_difference, untestable
from privrl.core.accounting import dirichlet as acc
from privrl.core.algorithms.kickstarting import Kickstarter
from privrl.core.algorithms.ppo import PPOConfig, train_ppo
from privrl.core.envs.atari import make_env
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_choice, check_int
from privrl.papers.gohari2021 import plots, theory
from privrl.papers.gohari2021.teacher import (
    load_teacher,
    play,
    teacher_lipschitz,
    teacher_lipschitz_lower_bound,
    teacher_path,
    train_teacher,
)

DATA = "gohari2021"
CURVES_CSV = "gohari2021-paper-curves.csv"
#: Roll-outs of the faithful design that fits two cores; a shorter record decides no claim.
DESIGN_ROLLOUTS = 450
CURVES_COLUMNS = ("config", "seed", "rollout", "env_steps", "avg_return", "epsilon_spent")


@dataclass(frozen=True)
class GohariProfile(Profile):
    """Every knob of the chapter; defaults are the quick profile, ``PAPER`` the paper's.

    ``n_trials`` seeds per configuration; ``epochs`` roll-outs per run of ``steps_per_epoch``
    interactions; PPO episode handling (``n_envs``, ``max_episode_steps``, ``reset_each_epoch``,
    ``value_targets``, see :mod:`privrl.core.algorithms.ppo`); teacher query (``k0``, vanishing
    ``coefficient``s, ``k_min``, ``eta``, ``tau``, adjacency ``b``); the privacy-aware student
    (``lam``, ``beta``, ``radius`` of Lemma 1; ``radius_arms``: the c = 0.3 student again with
    these radii); speed-up (``quantiles`` q of the thresholds, ``smoothing_window`` roll-outs,
    ``eval_episodes`` for the random and teacher returns).
    """

    env: Literal["cartpole", "airraid"] = "cartpole"
    n_trials: int = 3
    epochs: int = 24
    steps_per_epoch: int = 500
    n_envs: int = 4
    max_episode_steps: int | None = None
    reset_each_epoch: bool = False
    value_targets: Literal["gae", "rewards-to-go"] = "gae"
    gamma: float = 0.99
    gae_lambda: float = 0.97
    train_pi_iters: int = 80
    train_v_iters: int = 80
    teacher_hidden: int = 64
    student_hidden: int = 32
    k0: float = 5.0
    lam: float = 0.5
    beta: float = 0.05
    eta: float = 0.1
    k_min: float = 0.1
    radius: Literal["printed", "union", "subgaussian", "mc"] = "mc"
    radius_arms: tuple[str, ...] = ("printed", "union")
    # tau: delta of eq. (6) is 0.05 at k0 = 5, m = 2, eta = 0.1 (tau_for_delta); b: adjacency
    tau: float = 4.8e-4
    b: float = 0.01
    aware_coefficients: tuple[float, ...] = (0.1, 0.3)
    unaware_coefficients: tuple[float, ...] = (0.3, 0.9)
    supplement: bool = False
    lambdas: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0)
    coefficients: tuple[float, ...] = (0.1, 0.3, 0.5, 0.7, 0.9)
    quantiles: tuple[float, ...] = (0.25, 0.5, 0.75)
    smoothing_window: int = 3
    eval_episodes: int = 20
    measure_cost: bool = True

    PAPER: ClassVar[dict[str, Any]] = {
        "env": "airraid",
        "n_trials": 30,
        "epochs": 4000,
        "steps_per_epoch": 1000,
        "n_envs": 1,
        "max_episode_steps": 1000,
        "reset_each_epoch": True,
        "value_targets": "rewards-to-go",
        # tau: delta of eq. (6) is 0.05 at k0 = 5, m = 6, eta = 0.1; b: with the committed
        # teacher's certified L, Theorem 1 gives the paper's epsilon = 4.46 at k0 (L * b = 0.0153)
        "tau": 1.88e-5,
        "b": 1.05e-4,
        "supplement": True,
        "coefficients": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
        "smoothing_window": 10,
        "eval_episodes": 30,
        "measure_cost": False,
    }

    def validate(self) -> None:
        for name in ("n_trials", "epochs", "steps_per_epoch", "n_envs", "teacher_hidden",
                     "student_hidden", "smoothing_window", "eval_episodes"):  # fmt: skip
            check_int(getattr(self, name), name, minimum=1)
        if self.steps_per_epoch % self.n_envs:
            raise ValueError("steps_per_epoch must be a multiple of n_envs")
        for name in ("k0", "k_min", "tau", "b"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not self.lam >= 0:
            raise ValueError(f"lam must be >= 0, got {self.lam}")
        for name in ("beta", "gamma", "gae_lambda"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must lie in (0, 1], got {getattr(self, name)}")
        for name in ("aware_coefficients", "unaware_coefficients", "coefficients", "quantiles"):
            if any(not 0 < c < 1 for c in getattr(self, name)):
                raise ValueError(f"{name} must lie in (0, 1), got {getattr(self, name)}")
        if 0.5 not in self.quantiles:
            raise ValueError(f"quantiles must contain the headline 0.5, got {self.quantiles}")
        if 0.3 not in self.aware_coefficients or 0.3 not in self.unaware_coefficients:
            raise ValueError("aware_coefficients and unaware_coefficients must contain 0.3 "
                             "(the paper's equal-budget comparison)")  # fmt: skip
        for arm in self.radius_arms:
            check_choice(arm, "radius_arms", acc.RADII)

    def ppo_config(self, hidden: int) -> PPOConfig:
        """PPO of a (hidden, hidden) agent with this profile's episode handling."""
        return PPOConfig(
            hidden_sizes=(hidden, hidden), steps_per_epoch=self.steps_per_epoch,
            n_envs=self.n_envs, gamma=self.gamma, gae_lambda=self.gae_lambda,
            train_pi_iters=self.train_pi_iters, train_v_iters=self.train_v_iters,
            max_episode_steps=self.max_episode_steps, reset_each_epoch=self.reset_each_epoch,
            value_targets=self.value_targets,
        )  # fmt: skip


_RUN_KEYS = (
    "env", "epochs", "steps_per_epoch", "n_envs", "max_episode_steps", "reset_each_epoch",
    "value_targets", "gamma", "gae_lambda", "train_pi_iters", "train_v_iters", "k0", "lam", "beta",
    "eta", "k_min", "radius", "tau", "b", "teacher_hidden",
)  # fmt: skip


def run_agent(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One learning curve. ``config``: the profile's run keys plus ``method`` (``ppo``,
    ``kickstart``, ``private``), ``hidden`` (student width) and, for ``private``,
    ``coefficient``. Returns one row per roll-out."""
    rng = as_generator(seed)
    env_fn = functools.partial(make_env, config["env"])
    aux = None
    if config["method"] != "ppo":
        teacher, _ = load_teacher(config["env"])
        private = config["method"] == "private"
        aux = Kickstarter(
            teacher, rng, private=private, k0=config["k0"],
            coefficient=config.get("coefficient", 1.0), lam=config["lam"] if private else 0.0,
            beta=config["beta"], radius=config["radius"], eta=config["eta"], tau=config["tau"],
            lipschitz=teacher_lipschitz(teacher, config["eta"]), b=config["b"],
            k_min=config["k_min"],
        )  # fmt: skip
    ppo = PPOConfig(
        hidden_sizes=(int(config["hidden"]),) * 2, steps_per_epoch=int(config["steps_per_epoch"]),
        n_envs=int(config["n_envs"]), gamma=float(config["gamma"]),
        gae_lambda=float(config["gae_lambda"]), train_pi_iters=int(config["train_pi_iters"]),
        train_v_iters=int(config["train_v_iters"]), max_episode_steps=config["max_episode_steps"],
        reset_each_epoch=bool(config["reset_each_epoch"]), value_targets=config["value_targets"],
    )  # fmt: skip
    _, log = train_ppo(env_fn, int(config["epochs"]), rng, ppo, aux)
    return log


def baseline_labels(profile: GohariProfile) -> tuple[str, str]:
    """Labels of the teacher-sized and the student-sized plain PPO agents."""
    t, s = profile.teacher_hidden, profile.student_hidden
    return f"PPO ({t}, {t})", f"PPO ({s}, {s})"


def figure2_configs(profile: GohariProfile) -> list[dict[str, Any]]:
    """Runs of Figure 2 (panels a-d), the radius arms and, with ``supplement``, the supplement's
    lambda and coefficient sweeps (duplicates by content are removed by :func:`run_figure2`)."""
    base = {k: getattr(profile, k) for k in _RUN_KEYS}
    s, t = profile.student_hidden, profile.teacher_hidden
    big, small = baseline_labels(profile)
    runs = [
        {**base, "panel": "a", "method": "ppo", "hidden": t, "label": big},
        {**base, "panel": "a", "method": "ppo", "hidden": s, "label": small},
        {**base, "panel": "b", "method": "kickstart", "hidden": s, "label": "kickstarting"},
    ]
    for c in profile.aware_coefficients:
        runs.append({**base, "panel": "c", "method": "private", "hidden": s, "coefficient": c,
                     "label": f"aware, c = {c}"})  # fmt: skip
    for c in profile.unaware_coefficients:
        runs.append({**base, "panel": "d", "method": "private", "hidden": s, "coefficient": c,
                     "lam": 0.0, "label": f"unaware, c = {c}"})  # fmt: skip
    for arm in profile.radius_arms:
        runs.append({**base, "panel": "radius", "method": "private", "hidden": s,
                     "coefficient": 0.3, "radius": arm, "label": f"aware, c = 0.3, {arm} radius"})  # fmt: skip
    if profile.supplement:
        for lam in profile.lambdas:
            runs.append({**base, "panel": "lambda", "method": "private", "hidden": s,
                         "coefficient": 0.3, "lam": lam, "label": f"lambda = {lam}"})  # fmt: skip
        for c in profile.coefficients:
            runs.append({**base, "panel": "coefficient", "method": "private", "hidden": s,
                         "coefficient": c, "label": f"c = {c}"})  # fmt: skip
    return runs


def _content(config: dict[str, Any]) -> tuple:
    """What a run computes: its configuration without the labels (``label``, ``panel``); the
    coefficient and lambda of a run that never queries a private teacher do not matter."""
    keys = {k: v for k, v in config.items() if k not in ("label", "panel")}
    if keys["method"] != "private":
        keys.pop("coefficient", None)
        keys.pop("lam", None)
    return tuple(sorted((k, repr(v)) for k, v in keys.items()))


def unique_configs(configs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The configurations with duplicates by content removed, and for every label the label of
    the run that computes it."""
    first: dict[tuple, dict[str, Any]] = {}
    source = {}
    for c in configs:
        rep = first.setdefault(_content(c), c)
        source[c["label"]] = rep["label"]
    return list(first.values()), source


def run_figure2(
    profile: GohariProfile,
    configs: list[dict[str, Any]] | None = None,
    *,
    executor: Any = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """All runs of ``configs`` (default :func:`figure2_configs`) over ``n_trials`` seeds, each
    distinct configuration once (tidy: one row per roll-out; duplicates copied under their own
    label and panel). ``executor``: as :func:`privrl.chapter.sweep.run_sweep`, or a Dask scheduler
    address (``"tcp://..."``) or ``distributed.Client``."""
    configs = figure2_configs(profile) if configs is None else configs
    unique, source = unique_configs(configs)
    scheduler = None
    if isinstance(executor, str) and "://" in executor or type(executor).__name__ == "Client":
        scheduler, executor = executor, None
    runs = run_sweep(run_agent, unique, n_seeds=profile.n_trials, root_seed=profile.seed,
                     cache_dir=cache_dir, executor=executor, scheduler=scheduler,
                     progress=progress, desc="gohari2021 runs")  # fmt: skip
    by_label = dict(tuple(runs.groupby("label", sort=False)))
    frames = [by_label[source[c["label"]]].assign(label=c["label"], panel=c["panel"]) for c in configs]
    return pd.concat(frames, ignore_index=True)


def privacy_spent(run: pd.DataFrame, steps_per_epoch: int, delta_slack: float = 1e-5) -> dict:
    """The teacher's total privacy over one run: every visited state is one query at that roll-out's
    per-query (epsilon, delta); basic and advanced composition (:func:`acc.teacher_budget`)."""
    eps = np.repeat(run["epsilon_query"].to_numpy(float), steps_per_epoch)
    dlt = np.repeat(run["delta_query"].to_numpy(float), steps_per_epoch)
    return acc.teacher_budget(eps, dlt, delta_slack)


def informed_rollouts(k0: float, coefficient: float, k_min: float) -> int:
    """Roll-outs answered by the teacher before :math:`k_t = k_0 c^t` falls below ``k_min``."""
    return math.floor(math.log(k_min / k0) / math.log(coefficient)) + 1


def informed_schedule(profile: GohariProfile, coefficient: float) -> np.ndarray:
    """The concentrations k_t = k0 c^t of the roll-outs the teacher answers from its data."""
    n = min(profile.epochs, informed_rollouts(profile.k0, coefficient, profile.k_min))
    return profile.k0 * coefficient ** np.arange(n)


def budget_table(runs: pd.DataFrame, profile: GohariProfile) -> pd.DataFrame:
    """Per private configuration: queries the teacher answered (largest over seeds), those the
    schedule allows, and the composed (epsilon, delta) of a run (basic and advanced composition)."""
    rows = []
    for label, sub in runs[runs["method"] == "private"].groupby("label", sort=False):
        totals = [privacy_spent(g, profile.steps_per_epoch) for _, g in sub.groupby("seed")]
        c = float(sub["coefficient"].iloc[0])
        rows.append({"config": label, "coefficient": c,
                     "queries": max(t["n_queries"] for t in totals),
                     "queries allowed": profile.steps_per_epoch * min(
                         profile.epochs, informed_rollouts(profile.k0, c, profile.k_min)),
                     **{k: max(t[k] for t in totals) for k in
                        ("basic_epsilon", "basic_delta", "advanced_epsilon", "advanced_delta")}})  # fmt: skip
    return pd.DataFrame(rows)


# --- speed-up ---------------------------------------------------------------------------------


def thresholds(r_random: float, r_teacher: float, quantiles: tuple[float, ...]) -> dict[float, float]:
    r""":math:`X_q = R_{\rm random} + q (R_{\rm teacher} - R_{\rm random})` for every q."""
    if not r_teacher > r_random:
        raise ValueError(f"the teacher's return ({r_teacher:g}) must exceed random play's "
                         f"({r_random:g}) for thresholds between them")  # fmt: skip
    return {float(q): r_random + q * (r_teacher - r_random) for q in quantiles}


def time_to_threshold(runs: pd.DataFrame, threshold: float, window: int) -> pd.DataFrame:
    """Per run (label, seed): env steps of the first roll-out whose rolling mean return over
    ``window`` roll-outs (episode-weighted, :func:`smoothed_returns`) reaches ``threshold``; runs
    that never reach it are censored at their budget (last env steps, ``censored`` True)."""
    smooth = smoothed_returns(runs, window)
    rows = []
    for (label, seed), g in smooth.groupby(["label", "seed"], sort=False):
        g = g.sort_values("epoch")
        hit = g.loc[g["avg_return"] >= threshold, "env_steps"]
        censored = hit.empty
        rows.append({"label": label, "seed": seed, "censored": censored,
                     "steps": float(g["env_steps"].max() if censored else hit.iloc[0])})  # fmt: skip
    return pd.DataFrame(rows)


def speedup(times: pd.DataFrame, baseline: str, treated: str, seed: int = 0) -> dict[str, Any]:
    """Ratio of median times to threshold (baseline / treated) with a percentile bootstrap 95%
    interval over seeds (each arm resampled). Censored times enter at the budget, so a censored
    baseline makes the ratio a lower bound and a censored treated arm an upper bound."""
    a = times.loc[times["label"] == baseline, "steps"].to_numpy(float)
    b = times.loc[times["label"] == treated, "steps"].to_numpy(float)
    if len(a) == 0 or len(b) == 0:
        raise ValueError(f"no times for {baseline!r} or {treated!r}")
    lo, hi = bootstrap_interval(lambda u, v: np.median(u) / np.median(v), [a, b], seed=seed)
    return {"baseline": baseline, "treated": treated, "ratio": float(np.median(a) / np.median(b)),
            "lower": lo, "upper": hi, "n": int(min(len(a), len(b))),
            "censored_baseline": int(times.loc[times["label"] == baseline, "censored"].sum()),
            "censored_treated": int(times.loc[times["label"] == treated, "censored"].sum())}  # fmt: skip


def decide_speedup(key: str, statement: str, result: dict[str, Any], min_trials: int = 5) -> Claim:
    """Three-state verdict on "``treated`` reaches the threshold faster than ``baseline``": the
    bootstrap interval of the ratio of median times lies above 1. Untestable with fewer than
    ``min_trials`` seeds per arm or when every run of both arms is censored."""
    n, name = result["n"], f"median time ({result['baseline']}) / median time ({result['treated']})"
    evidence = (f"censored runs: {result['censored_baseline']} of {result['baseline']}, "
                f"{result['censored_treated']} of {result['treated']}")  # fmt: skip
    if n < min_trials:
        return Claim(key, statement, "untestable", name, None, None, n,
                     f"too few seeds (fewer than {min_trials} per arm)", evidence)  # fmt: skip
    if result["censored_baseline"] == result["censored_treated"] == n:
        return Claim(key, statement, "untestable", name, None, None, n,
                     "no run of either arm reached the threshold", evidence)  # fmt: skip
    lo, hi = result["lower"], result["upper"]
    if lo > 1:
        verdict, reason = "reproduced", "the 95% interval lies above 1"
    elif hi < 1:
        verdict, reason = "not reproduced", "the 95% interval lies below 1"
    else:
        verdict, reason = "not reproduced", "the 95% interval contains 1"
    return Claim(key, statement, verdict, name, result["ratio"], (lo, hi), n, reason, evidence)


def speedup_table(runs: pd.DataFrame, levels: dict[float, float], window: int,
                  baseline: str, treated: tuple[str, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """Times to every threshold of ``levels`` (q -> X_q) and the speed-up of each ``treated``
    label over ``baseline`` at each q."""
    times, rows = [], []
    for q, x in levels.items():
        t = time_to_threshold(runs, x, window).assign(q=q, threshold=x)
        times.append(t)
        for label in treated:
            rows.append({"q": q, "threshold": x, **speedup(t, baseline, label)})
    return pd.concat(times, ignore_index=True), pd.DataFrame(rows)


def final_returns(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run (label, seed): mean return over its last tenth of roll-outs (at least three)."""
    n_epochs = int(runs["epoch"].max()) + 1
    last = runs[runs["epoch"] >= n_epochs - max(3, n_epochs // 10)]
    return last.groupby(["label", "seed"], sort=False)["avg_return"].mean().reset_index()


def decide_claims(report: Report, runs: pd.DataFrame, speed: pd.DataFrame, profile: GohariProfile,
                  suffix: str = "", source: str = "") -> list[Claim]:  # fmt: skip
    """The paper's claims re-decided on ``runs`` (``suffix`` keys a second set, e.g. the recorded
    run, whose provenance ``source`` goes into the evidence)."""
    big, small = baseline_labels(profile)
    fin = final_returns(runs)

    def arm(label: str) -> np.ndarray:
        return fin.loc[fin["label"] == label, "avg_return"].dropna().to_numpy(float)

    head = speed[speed["q"] == 0.5].set_index("treated", drop=False)
    claims = [
        decide_speedup(f"speedup_kickstarting{suffix}", f"Kickstarting (no privacy) reaches X_0.5 "
                       f"faster than the teacher-sized {big} (Fig. 2b)", head.loc["kickstarting"].to_dict()),  # fmt: skip
        decide_speedup(f"speedup_aware{suffix}", f"The privacy-aware student (c = 0.3) reaches X_0.5 "
                       f"faster than the teacher-sized {big} (paper: about 4 times)",
                       head.loc["aware, c = 0.3"].to_dict()),  # fmt: skip
        decide_difference(f"aware_beats_unaware{suffix}", "At equal budget (c = 0.3) the privacy-aware "
                          "student ends above the privacy-unaware one (Fig. 2c, d)",
                          arm("aware, c = 0.3"), arm("unaware, c = 0.3"), direction="greater",
                          label_a="aware", label_b="unaware", statistic="median"),  # fmt: skip
        decide_difference(f"aware_beats_small_ppo{suffix}", f"The privacy-aware student (c = 0.3) "
                          f"ends above plain {small} (result ii)", arm("aware, c = 0.3"), arm(small),
                          direction="greater", label_a="aware", label_b=small, statistic="median"),  # fmt: skip
        decide_difference(f"unaware_below_small_ppo{suffix}", f"The privacy-unaware student "
                          f"(c = 0.3) ends below plain {small} (Fig. 2d)", arm("unaware, c = 0.3"),
                          arm(small), direction="less", label_a="unaware", label_b=small,
                          statistic="median"),  # fmt: skip
    ]
    out = []
    for c in claims:
        if source:
            c = dataclasses.replace(c, evidence=f"{source}; {c.evidence}".rstrip("; "))
        out.append(report.claim(c))
    return out


def budget_claim(report: Report, budget: pd.DataFrame, n_runs: int) -> Claim:
    """"The teacher manages its budget": it answers no query after its budget (k_t < k_min) is
    spent, in every run (exact counts: the interval is the value itself)."""
    ratio = float((budget["queries"] / budget["queries allowed"]).max())
    verdict = "reproduced" if ratio <= 1 else "not reproduced"
    return report.claim(Claim(
        "budget_respected", "The teacher stops answering from its data once its budget is spent "
        "(vanishing k, Section 4)", verdict, "largest queries answered / queries the schedule allows",
        ratio, (ratio, ratio), n_runs, "exact count over every private run",
        f"composed over a run the per-query guarantees give delta = "
        f"{budget['basic_delta'].max():.3g} (basic composition): vacuous"))  # fmt: skip


def paper_curves(runs: pd.DataFrame, steps_per_epoch: int) -> pd.DataFrame:
    """The recorded run's tidy table (:data:`CURVES_COLUMNS`): one row per (config, seed,
    roll-out); ``epsilon_spent`` is the teacher's epsilon spent so far by basic composition
    (every visited state one query; 0 without a teacher, inf for the exact teacher)."""
    runs = runs.sort_values(["label", "seed", "epoch"])
    eps = runs["epsilon_query"] if "epsilon_query" in runs else pd.Series(np.nan, index=runs.index)
    per_rollout = eps.fillna(0.0).to_numpy(float) * steps_per_epoch
    spent = pd.Series(per_rollout, index=runs.index).groupby([runs["label"], runs["seed"]]).cumsum()
    spent = spent.where(runs["method"] != "kickstart", np.inf)
    return pd.DataFrame({"config": runs["label"], "seed": runs["seed"], "rollout": runs["epoch"],
                         "env_steps": runs["env_steps"], "avg_return": runs["avg_return"],
                         "epsilon_spent": spent}).reset_index(drop=True)  # fmt: skip


def runs_from_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """A recorded table back in the shape of :func:`run_figure2`'s output (for the estimators)."""
    missing = set(CURVES_COLUMNS) - set(curves.columns)
    if missing:
        raise ValueError(f"curves lack columns {sorted(missing)}")
    return pd.DataFrame({"label": curves["config"], "panel": curves["config"].map(panel_of),
                         "seed": curves["seed"], "epoch": curves["rollout"],
                         "env_steps": curves["env_steps"], "avg_return": curves["avg_return"],
                         "n_episodes": curves["avg_return"].notna().astype(int)})  # fmt: skip


def panel_of(label: str) -> str:
    """Figure 2 panel of a configuration label."""
    if label.startswith("PPO"):
        return "a"
    if label == "kickstarting":
        return "b"
    if label.endswith("radius"):
        return "radius"
    return "c" if label.startswith("aware") else "d" if label.startswith("unaware") else "other"


def band95(runs: pd.DataFrame, window: int) -> pd.DataFrame:
    """Per (panel, label, env steps): mean over seeds of the smoothed return with a 95%
    t-interval (the recorded Figure 2's bands)."""
    stats_ = summarise(smoothed_returns(runs, window), "env_steps", "avg_return",
                       by=["panel", "label"], err="std")  # fmt: skip
    t = stats.t.ppf(0.975, np.maximum(stats_["count"] - 1, 1))
    half = t * stats_["std"].fillna(0.0) / np.sqrt(stats_["count"])
    return stats_.assign(center=stats_["mean"], lower=stats_["mean"] - half, upper=stats_["mean"] + half)


def measure_references(profile: GohariProfile, rng: SeedLike) -> dict[str, float]:
    """Returns of uniformly random play and of the committed teacher on the profile's
    environment, ``eval_episodes`` episodes each, cut at the profile's episode cap (the same
    protocol as the learning curves)."""
    teacher, _ = load_teacher(profile.env)
    r_rand, _ = play(profile.env, None, profile.eval_episodes, rng, profile.max_episode_steps)
    r_teach, _ = play(profile.env, teacher, profile.eval_episodes, rng, profile.max_episode_steps)
    n = profile.eval_episodes
    return {"random": float(r_rand.mean()), "random_se": float(r_rand.std(ddof=1) / math.sqrt(n)),
            "teacher": float(r_teach.mean()), "teacher_se": float(r_teach.std(ddof=1) / math.sqrt(n)),
            "episodes": n}  # fmt: skip


def record_paper_curves(profile: GohariProfile, out_dir: str | Path, *, executor: Any = None,
                        cache_dir: str | Path | None = None, progress: bool = True,
                        command: str = "") -> tuple[Path, Path]:  # fmt: skip
    """Run the Figure 2 configurations of ``profile`` and write :data:`CURVES_CSV` and its run
    record (``.json``: profile, commit, wall time, reference returns, thresholds, command)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started, t0 = datetime.now(UTC), time.perf_counter()
    refs = measure_references(profile, np.random.default_rng(profile.seed + 1))
    runs = run_figure2(profile, executor=executor, cache_dir=cache_dir, progress=progress)
    wall = time.perf_counter() - t0
    csv = out / CURVES_CSV
    paper_curves(runs, profile.steps_per_epoch).to_csv(csv, index=False)
    run_seconds = float(runs.groupby(["label", "seed"])["wall_time"].max().sum())
    record = {"profile": profile.as_dict(), "commit": current_commit(), "started": started.isoformat(),
              "wall_seconds": wall, "run_core_seconds": run_seconds, "cpus": os.cpu_count(),
              "machine": platform.processor() or platform.machine(), "references": refs,
              "thresholds": thresholds(refs["random"], refs["teacher"], profile.quantiles),
              "command": command}  # fmt: skip
    meta = csv.with_suffix(".json")
    meta.write_text(json.dumps(record, indent=1, default=str))
    return csv, meta


def load_paper_curves(directory: str | Path | None = None) -> tuple[pd.DataFrame, dict] | None:
    """The recorded curves and their run record, or ``None`` when nothing is recorded."""
    d = Path(directory) if directory is not None else results_dir()
    csv = d / CURVES_CSV
    if not csv.exists():
        return None
    return pd.read_csv(csv), json.loads(csv.with_suffix(".json").read_text())


def measure_rollout_cost(profile: GohariProfile, n_rollouts: int = 4) -> pd.DataFrame:
    """Seconds per roll-out (median after the first, which carries set-up costs) of the most
    expensive run (privacy-aware student, a teacher query and a Dirichlet draw per step) and of
    the teacher-sized PPO, at ``profile``'s settings."""
    configs = {c["label"]: c for c in figure2_configs(profile)}
    rows = []
    for label in ("aware, c = 0.3", baseline_labels(profile)[0]):
        log = run_agent({**configs[label], "epochs": n_rollouts}, np.random.SeedSequence(profile.seed))
        rows.append({"config": label, "seconds per roll-out": float(np.median(np.diff(log["wall_time"])))})
    return pd.DataFrame(rows)


ERRATA = (
    ("unstated_parameters", "ambiguous",
     "The (L, b, eta, tau) behind the reported per-query (4.46, 0.05) at k = 5 are not stated.",
     "A consistent combination (eta = 0.1, tau from eq. (6) at delta = 0.05, L b from eq. (12)) is "
     "stated with the one-parameter family it belongs to and the sensitivity of the pair."),
    ("no_k_floor", "ambiguous",
     "No floor on the vanishing k is stated ('set k = 0' is not a Dirichlet distribution); as "
     "k -> 0 the answers become one-hot samples of the teacher's own policy.",
     "An explicit k_min: below it the teacher answers policies drawn uniformly from the simplex."),
    ("lemma1_radius", "wrong",
     "Lemma 1's 2-norm concentration radius (eq. 14) is exceeded with probability above beta.",
     "Monte Carlo tail at k = 5, m = 6, uniform policy, beta = 0.05: {lemma_tail:.3f}. Valid radii "
     "(union bound, proven sub-Gaussian, Monte Carlo) are stated and the student runs with them."),
    ("small_k_privacy", "wrong",
     "Decreasing k is said to strengthen the Dirichlet mechanism's privacy, but Theorem 1's "
     "delta tends to 1 as k -> 0 (epsilon tends to a finite limit).",
     "delta = {delta_small_k:.3f} at k = 0.05 (m = 6, the stated eta and tau); grid of k shown."),
    ("airraid_adjacency", "wrong",
     "The per-query (4.46, 0.05) is reported as the teacher's protection, but with the Lipschitz "
     "constant of a trained AirRaid teacher it holds only for observations less than one RAM step "
     "apart.",
     "b = {air_b:.1e} with the committed teacher's certified L = {air_L:.1f}; even with the "
     "observed slope L >= {air_L_low:.2f}, adjacent observations differ by at most "
     "{air_b_raw:.2f} RAM steps."),
    ("composed_budget", "unsupported",
     "The teacher's privacy is reported per query only; composed over the states a student "
     "visits, the per-query guarantees give no guarantee (delta above 1).",
     "Largest composed delta over a run of this build (basic composition): {composed_delta:.3g} "
     "after {queries:.0f} queries."),
    ("random_answers_pull", "wrong",
     "Section 4: once the budget is spent the teacher's random answers do not harm the "
     "privacy-aware student. The ball radius alpha = lambda r(k) of the printed Lemma 1 stays "
     "below the simplex's diameter sqrt(2) for every k, so random answers keep pulling the student.",
     "lambda r(k) -> lambda sqrt(log(1/beta)/2) = {printed_limit:.2f} < 1.41 as k -> 0."),
)


def record_errata(report: Report, values: dict[str, float]) -> None:
    """The chapter's errata (the book's errata page lists them), with this run's numbers."""
    for key, kind, statement, evidence in ERRATA:
        report.erratum(key, kind, statement, evidence.format(**values))


def teacher_privacy(report: Report, profile: GohariProfile, rng: np.random.Generator) -> dict[str, float]:
    """Per-query privacy of the profile's teacher at k0 (Theorem 1), recorded in the ledger with
    the numerical maximisation of the exact log-density ratio as cross-check."""
    teacher, meta = load_teacher(profile.env)
    lip = teacher_lipschitz(teacher, profile.eta)
    m = int(meta["n_actions"])
    eps = acc.theorem1_epsilon(profile.k0, m, profile.eta, profile.tau, lip, profile.b)
    dlt = acc.theorem1_delta_mc(profile.k0, m, profile.eta, profile.tau, rng, 200_000)
    sup = acc.theorem1_log_ratio_sup(profile.k0, m, profile.eta, profile.tau, lip * profile.b, rng)
    report.ledger(
        release=f"{profile.env} teacher's policy for one observation, Dir_k(f(s)) at k0 = {profile.k0:g}",
        mechanism="Dirichlet mechanism on the eta-restricted simplex (eq. 5)",
        relation="replace-one", unit="observation",
        noise=f"k = {profile.k0:g}, eta = {profile.eta:g}, tau = {profile.tau:.3g}, "
              f"b = {profile.b:.3g} (b-adjacent: ||X - X'||_2 <= b, Definition 1), certified L = {lip:.3g}",
        epsilon=eps, delta=dlt.upper, compositions=1,
        accountant="Theorem 1 (eq. 12; delta of eq. 6 by Monte Carlo, 95% Clopper-Pearson upper bound)",
        cross_check="numerical maximisation of the exact log-density ratio over Delta_{m,tau} and "
                    "policies L b apart (a lower estimate of the loss outside the delta event)",
        cross_check_epsilon=max(sup, 1e-12), audit="audits:dirichlet",
    )  # fmt: skip
    out = {"L": lip, "m": m, "eps_q": eps, "d_q": dlt.estimate, "d_q_upper": dlt.upper,
           "sup_ratio": sup, "teacher_return": float(meta["final_avg_return"])}  # fmt: skip
    for key in ("L", "eps_q", "d_q", "sup_ratio"):
        report.glue(key, float(out[key]))
    return out


def paper_pair_ledger(report: Report, pair: theory.PaperPair, rng: np.random.Generator) -> None:
    """The paper's reported (4.46, 0.05) at k = 5 with the stated (eta, tau, L b)."""
    sup = acc.theorem1_log_ratio_sup(theory.PAPER_K, theory.AIRRAID_ACTIONS, pair.eta, pair.tau, pair.lb, rng)
    report.ledger(
        release="AirRaid teacher's policy for one observation at k = 5 (the paper's reported pair)",
        mechanism="Dirichlet mechanism on the eta-restricted simplex (eq. 5)",
        relation="replace-one", unit="observation",
        noise=f"k = 5, eta = {pair.eta:g}, tau = {pair.tau:.3g}, L b = {pair.lb:.4f} (stated here; "
              "the paper states none of them)",
        epsilon=pair.epsilon, delta=pair.delta_upper, compositions=1,
        accountant="Theorem 1 (eq. 12; delta of eq. 6 by Monte Carlo, 95% Clopper-Pearson upper bound)",
        cross_check="numerical maximisation of the exact log-density ratio over Delta_{6,tau} and "
                    "policies L b apart (a lower estimate of the loss outside the delta event)",
        cross_check_epsilon=max(sup, 1e-12), audit="audits:dirichlet",
    )  # fmt: skip


def airraid_teacher(report: Report, pair: theory.PaperPair, rng: np.random.Generator,
                    n_episodes: int = 5, cap: int = 1000) -> dict[str, Any]:  # fmt: skip
    """The committed AirRaid teacher: returns against random play (``n_episodes`` episodes cut
    at ``cap`` steps), certified and observed Lipschitz constants, and the adjacency radius b
    that gives the paper's pair."""
    air, meta = load_teacher("airraid")
    ret_teacher, obs = play("airraid", air, n_episodes, rng, cap)
    ret_random, _ = play("airraid", None, n_episodes, rng, cap)
    lip = teacher_lipschitz(air, pair.eta)
    lip_low = teacher_lipschitz_lower_bound(air, pair.eta, obs[:: max(1, len(obs) // 500)])
    report.check("air_L_order", "observed Jacobian norm <= certified L", lip_low, at_most=lip)
    b_low = pair.lb / lip_low
    report.check("air_b_below_one_step", "largest b (in RAM steps) with the paper's pair, any valid L",
                 255 * b_low, below=1.0)  # fmt: skip
    out = {"air_kept": float(meta["kept_window_return"]), "air_play": float(ret_teacher.mean()),
           "air_random": float(ret_random.mean()), "air_L": lip, "air_L_low": lip_low,
           "air_b": pair.lb / lip, "air_b_raw": 255 * b_low,
           "air_eps4": acc.theorem1_epsilon(theory.PAPER_K, theory.AIRRAID_ACTIONS, pair.eta, pair.tau,
                                            lip_low, 4 / 255),
           "curve": pd.Series(meta["curve_avg_return"], index=meta["curve_env_steps"]).dropna(),
           "kept_steps": int(meta["curve_env_steps"][int(meta["kept_epoch"])])}  # fmt: skip
    for key, value in out.items():
        if isinstance(value, float):
            report.glue(key, value)
    return out


def run(profile: GohariProfile, *, executor: Any = None, cache_dir: str | Path | None = None,
        progress: bool = False) -> ExperimentResult:  # fmt: skip
    """The chapter: theory checks, teacher privacy (ledger), Figure 2 runs, speed-up and claims.

    Tables: ``delta_cross_check``, ``eta_family``, ``sensitivity``, ``k_grid``, ``lemma1``,
    ``radii``, ``runs``, ``curves``, ``times``, ``speedup``, ``final``, ``budget`` (and ``cost``
    when ``measure_cost``). ``extra``: the paper pair, the AirRaid teacher, reference returns,
    thresholds, panel titles, the recorded AirRaid run (if any) and its speed-up."""
    report = Report(DATA, profile.profile, profile.seed, profile.as_dict())
    rng = np.random.default_rng(profile.seed)
    tables: dict[str, pd.DataFrame] = {"delta_cross_check": theory.delta_cross_check(report, rng)}
    pair, tables["eta_family"], tables["sensitivity"] = theory.paper_pair(report, rng)
    for key in ("tau", "lb", "delta", "delta_upper"):
        report.glue(f"pair_{key}", float(getattr(pair, key)))
    tables["k_grid"] = theory.k_grid(report, pair, rng)
    theory.log_density_bound(report, rng, pair.eta)
    tables["lemma1"] = theory.lemma1_table(report, rng, pair.eta, profile.beta)
    teacher = teacher_privacy(report, profile, rng)
    paper_pair_ledger(report, pair, rng)
    ks = np.unique(np.r_[np.geomspace(1e-2, 1e2, 13), informed_schedule(profile, 0.3)])
    tables["radii"] = theory.radius_table(ks, int(teacher["m"]), profile.beta, profile.eta, profile.lam)
    air = airraid_teacher(report, pair, rng)

    t0 = time.perf_counter()
    runs = run_figure2(profile, executor=executor, cache_dir=cache_dir, progress=progress)
    sweep_seconds = time.perf_counter() - t0
    refs = measure_references(profile, rng)
    levels = thresholds(refs["random"], refs["teacher"], profile.quantiles)
    big, _ = baseline_labels(profile)
    times, speed = speedup_table(runs, levels, profile.smoothing_window, big,
                                 ("kickstarting", "aware, c = 0.3"))  # fmt: skip
    budget = budget_table(runs, profile)
    report.check("queries_within_schedule", "largest queries answered / allowed by the k_min cut",
                 float((budget["queries"] / budget["queries allowed"]).max()), at_most=1.0)  # fmt: skip
    decide_claims(report, runs, speed, profile)
    budget_claim(report, budget, int(runs[runs["method"] == "private"].groupby(["label", "seed"]).ngroups))
    head = speed[speed["q"] == 0.5].set_index("treated", drop=False)
    report.glue("speedup_ks", float(head.loc["kickstarting", "ratio"]))
    report.glue("threshold", levels[0.5])
    report.glue("r_random", refs["random"])
    report.glue("r_teacher", refs["teacher"])
    printed_limit = profile.lam * math.sqrt(math.log(1 / profile.beta) / 2)
    record_errata(report, {
        **{k: float(v) for k, v in air.items() if isinstance(v, float)},
        "lemma_tail": float(tables["lemma1"].query("k == 5 and policy == 'uniform' and radius == 'printed'")["tail"].iloc[0]),
        "delta_small_k": float(tables["k_grid"]["delta"].iloc[0]),
        "composed_delta": float(budget["basic_delta"].max()), "queries": float(budget["queries"].max()),
        "printed_limit": printed_limit,
    })  # fmt: skip
    tables.update(runs=runs, times=times, speedup=speed, budget=budget,
                  final=final_returns(runs).groupby("label", sort=False)["avg_return"].median().to_frame("median final return"),
                  curves=figure2_curves(runs, window=profile.smoothing_window))  # fmt: skip
    extra: dict[str, Any] = {"pair": pair, "airraid": air, "references": refs, "thresholds": levels,
                             "teacher": teacher, "sweep_seconds": sweep_seconds,
                             "titles": figure2_titles(budget, tables["curves"], profile.lam)}  # fmt: skip
    if profile.measure_cost:
        paper = GohariProfile.paper(seed=profile.seed)
        tables["cost"] = measure_rollout_cost(paper)
        per_run = float(tables["cost"]["seconds per roll-out"].max()) * paper.epochs / 3600
        n_cfg = len(unique_configs(figure2_configs(paper))[0])
        report.glue("sec_rollout", float(tables["cost"]["seconds per roll-out"].max()))
        report.glue("hours_run", per_run)
        report.glue("hours_total", per_run * n_cfg * paper.n_trials)
        report.glue("n_paper_configs", n_cfg)
        report.glue("n_paper_configs_listed", len(figure2_configs(paper)))
        design = GohariProfile.paper(n_trials=6, epochs=450, supplement=False, radius_arms=())
        report.glue("hours_design", float(tables["cost"]["seconds per roll-out"].max()) * design.epochs
                    * len(figure2_configs(design)) * design.n_trials / 3600)  # fmt: skip
    recorded = load_paper_curves()
    if recorded is not None:
        extra["recorded"] = recorded_analysis(report, *recorded)
    return ExperimentResult(tables, report, extra)


def recorded_analysis(report: Report, curves: pd.DataFrame, record: dict) -> dict[str, Any]:
    """The recorded AirRaid run: its Figure 2 with 95% bands, speed-up and claims (keys
    suffixed ``_airraid``, evidence naming the record)."""
    prof = GohariProfile(**{**record["profile"], "profile": "paper"})
    runs = runs_from_curves(curves).assign(method="")
    levels = {float(k): v for k, v in record["thresholds"].items()}
    big, _ = baseline_labels(prof)
    times, speed = speedup_table(runs, levels, prof.smoothing_window, big, ("kickstarting", "aware, c = 0.3"))
    source = (f"recorded AirRaid run, commit {record['commit']}, {prof.n_trials} seeds x {prof.epochs} "
              f"roll-outs of {prof.steps_per_epoch}")  # fmt: skip
    if prof.epochs >= DESIGN_ROLLOUTS:
        decide_claims(report, runs, speed, prof, suffix="_airraid", source=source)
    else:
        for key in ("speedup_kickstarting", "speedup_aware", "aware_beats_unaware"):
            report.claim(untestable(f"{key}_airraid", f"{key} on the recorded AirRaid run",
                                    f"shortened record: {prof.epochs} roll-outs, fewer than the "
                                    f"{DESIGN_ROLLOUTS} of the design", prof.n_trials, source))  # fmt: skip
    return {"profile": prof, "record": record, "bands": band95(runs, prof.smoothing_window),
            "times": times, "speedup": speed, "source": source}


FIGURE2_CURVE_COLUMNS = ("panel", "label", "env_steps", "center", "lower", "upper", "count")


def smoothed_returns(runs: pd.DataFrame, window: int) -> pd.DataFrame:
    """``runs`` with ``avg_return`` replaced, per run (label, seed), by the average return of the
    episodes finished in the last ``window`` roll-outs (episode-weighted; NaN if none finished)."""
    window = check_int(window, "window", minimum=1)
    if window == 1:
        return runs
    runs = runs.sort_values(["label", "seed", "epoch"])
    total = runs["avg_return"].fillna(0.0) * runs["n_episodes"]
    keys = [runs["label"], runs["seed"]]

    def rolling_sum(x: pd.Series) -> pd.Series:
        return x.groupby(keys).transform(lambda c: c.rolling(window, min_periods=1).sum())

    episodes = rolling_sum(runs["n_episodes"])
    return runs.assign(avg_return=rolling_sum(total) / episodes.where(episodes > 0))


def figure2_curves(
    runs: pd.DataFrame, max_points: int = 250, window: int | None = None
) -> pd.DataFrame:
    """Point-wise median and 15-85% band of the average return over seeds, per panel and label,
    thinned to at most ``max_points`` roll-outs per curve (small enough to record). Each run's
    returns are first averaged over ``window`` roll-outs (:func:`smoothed_returns`; default one
    hundredth of the run, so 1 in the quick profile: with roll-outs of 1,000 interactions most
    AirRaid roll-outs finish no episode or one)."""
    if window is None:
        window = max(1, (int(runs["epoch"].max()) + 1) // 100)
    curves = summarise(
        smoothed_returns(runs, window), "env_steps", "avg_return", by=["panel", "label"],
        err="quantile", center="median",
    )  # fmt: skip
    steps = np.sort(curves["env_steps"].unique())
    keep = steps[:: max(1, math.ceil(len(steps) / max_points))]
    return curves[curves["env_steps"].isin(keep)][list(FIGURE2_CURVE_COLUMNS)].reset_index(drop=True)


def figure2_titles(
    budget: pd.DataFrame,
    curves: pd.DataFrame,
    lam: float,
    panels: tuple[tuple[str, str], ...] | None = None,
) -> dict[str, str]:
    """Panel titles (``panels``: (panel, text) pairs, Figure 2's by default) stating the
    teacher's total privacy spent per run (basic composition, :func:`budget_table`)."""
    spent = budget.set_index("config") if len(budget) else budget
    titles = {}
    for panel, text in panels or plots.PANELS:
        if panel == "c":
            text += f", lambda = {lam}"
        own = [lab for lab in curves.loc[curves["panel"] == panel, "label"].unique() if lab in spent.index]
        if not own:
            extra = "teacher: no privacy (epsilon = inf)" if panel == "b" else "no teacher"
        else:
            extra = "teacher's spend per run (eps, delta):\n" + "\n".join(
                f"{lab.split(', ')[-1] if ', ' in lab else lab}: "
                f"({spent.loc[lab, 'basic_epsilon']:.0f}, {spent.loc[lab, 'basic_delta']:.2f})"
                for lab in own
            )
        titles[panel] = f"{text}\n{extra}"
    return titles



def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.gohari2021.chapter")
    sub = parser.add_subparsers(dest="command", required=True)
    tt = sub.add_parser("train-teacher", help="train and save the (64, 64) PPO teacher")
    tt.add_argument("--env", choices=["cartpole", "airraid"], default="cartpole")
    tt.add_argument("--epochs", type=int, default=40)
    tt.add_argument("--steps-per-epoch", type=int, default=1000)
    tt.add_argument("--seed", type=int, default=0)
    tt.add_argument("--keep", choices=["best", "last"], default="best",
                    help="save the best checkpoint (100-roll-out average return) or the last")  # fmt: skip
    rc = sub.add_parser("record-curves", help="run Figure 2 at paper settings and record the curves")
    rc.add_argument("--n-trials", type=int, default=6)
    rc.add_argument("--epochs", type=int, default=450)
    rc.add_argument("--seed", type=int, default=0)
    rc.add_argument("--executor", default="process",
                    help="'process', 'serial' or a Dask scheduler address tcp://HOST:8786")  # fmt: skip
    rc.add_argument("--cache-dir", default=None)
    rc.add_argument("--out", default=None, help="directory (default book/measurements/results)")
    args = parser.parse_args(argv)
    if args.command == "record-curves":
        profile = GohariProfile.paper(n_trials=args.n_trials, epochs=args.epochs, seed=args.seed,
                                      supplement=False, radius_arms=())  # fmt: skip
        command = " ".join(["python -m privrl.papers.gohari2021.chapter", *(argv or [])])
        paths = record_paper_curves(profile, args.out or results_dir(), executor=args.executor,
                                    cache_dir=args.cache_dir, command=command)  # fmt: skip
        print("wrote", *paths)
        return
    log = train_teacher(
        args.env, args.epochs, args.seed, steps_per_epoch=args.steps_per_epoch, keep=args.keep
    )
    print(log[["epoch", "env_steps", "avg_return", "wall_time"]].to_string(index=False))
    print(f"saved {teacher_path(args.env)}")


if __name__ == "__main__":
    main()
