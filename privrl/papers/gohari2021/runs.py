r"""Gohari et al. (2021): the Figure 2 runs, the teacher's budget over a run, and reference returns.

:func:`run_figure2` runs every configuration of :func:`figure2_configs` over seeds through
:func:`privrl.chapter.sweep.run_sweep` (one run: :func:`.student.run_agent`; on Dask with an
executor). :func:`budget_table` composes the teacher's per-query (epsilon, delta) of Theorem 1
over a run; :func:`query_table` sets the queries the teacher answered from its data (counted as
they are asked, :class:`.student.CountingKickstarter`) against the allowance of the vanishing
schedule.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.core.accounting import dirichlet as acc
from privrl.core.rng import SeedLike
from privrl.papers.gohari2021.fast_student import run_agent_fast
from privrl.papers.gohari2021.profile import AWARE, GohariProfile
from privrl.papers.gohari2021.student import run_agent
from privrl.papers.gohari2021.teacher import load_teacher, play

#: The profile's fields a run depends on (with the run's own ``method``, ``hidden``, ...).
RUN_KEYS = (
    "env",
    "epochs",
    "steps_per_epoch",
    "n_envs",
    "max_episode_steps",
    "reset_each_epoch",
    "value_targets",
    "gamma",
    "gae_lambda",
    "train_pi_iters",
    "train_v_iters",
    "k0",
    "lam",
    "beta",
    "eta",
    "k_min",
    "radius",
    "tau",
    "b",
    "teacher_hidden",
    "after_budget",
)


def figure2_configs(profile: GohariProfile) -> list[dict[str, Any]]:
    """Runs of Figure 2 (panels a-d), the radius and after-budget arms (panel ``deciding``:
    the c = 0.3 aware student with another radius or with the teacher ``silent`` after its budget;
    arms (c) and (b)) and, with ``supplement``, the supplement's
    lambda and coefficient sweeps (duplicates by content are removed by :func:`run_figure2`)."""
    base = {k: getattr(profile, k) for k in RUN_KEYS}
    s, t = profile.student_hidden, profile.teacher_hidden
    big, small = profile.baseline_labels()
    runs = [
        {**base, "panel": "a", "method": "ppo", "hidden": t, "label": big},
        {**base, "panel": "a", "method": "ppo", "hidden": s, "label": small},
        {**base, "panel": "b", "method": "kickstart", "hidden": s, "label": "kickstarting"},
    ]
    for c in profile.aware_coefficients:
        runs.append(
            {
                **base,
                "panel": "c",
                "method": "private",
                "hidden": s,
                "coefficient": c,
                "label": f"aware, c = {c}",
            }
        )
    for c in profile.unaware_coefficients:
        runs.append(
            {
                **base,
                "panel": "d",
                "method": "private",
                "hidden": s,
                "coefficient": c,
                "lam": 0.0,
                "label": f"unaware, c = {c}",
            }
        )
    for arm in profile.radius_arms:
        runs.append(
            {
                **base,
                "panel": "radius",
                "method": "private",
                "hidden": s,
                "coefficient": 0.3,
                "radius": arm,
                "label": f"{AWARE}, {arm} radius",
            }
        )
    for arm in profile.after_budget_arms:
        if arm != profile.after_budget:
            runs.append(
                {
                    **base,
                    "panel": "after budget",
                    "method": "private",
                    "hidden": s,
                    "coefficient": 0.3,
                    "after_budget": arm,
                    "label": after_budget_label(arm),
                }
            )
    if profile.supplement:
        for lam in profile.lambdas:
            runs.append(
                {
                    **base,
                    "panel": "lambda",
                    "method": "private",
                    "hidden": s,
                    "coefficient": 0.3,
                    "lam": lam,
                    "label": f"lambda = {lam}",
                }
            )
        for c in profile.coefficients:
            runs.append(
                {
                    **base,
                    "panel": "coefficient",
                    "method": "private",
                    "hidden": s,
                    "coefficient": c,
                    "label": f"c = {c}",
                }
            )
    return runs


def after_budget_label(arm: str) -> str:
    """Label of the c = 0.3 aware student whose teacher sends ``arm`` after its budget."""
    return f"{AWARE}, teacher {arm} after budget"


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
    label and panel), on the profile's runner (:attr:`GohariProfile.figure2_runner`: ``torch``,
    :func:`.student.run_agent`, or ``numpy``, :func:`.fast_student.run_agent_fast`). ``executor``:
    as :func:`privrl.chapter.sweep.run_sweep` (a pool, ``"serial"``, a Dask scheduler address
    ``"tcp://HOST:8786"`` or a ``distributed.Client``)."""
    configs = figure2_configs(profile) if configs is None else configs
    unique, source = unique_configs(configs)
    func = run_agent_fast if profile.figure2_runner == "numpy" else run_agent
    runs = run_sweep(
        func,
        unique,
        replicates=profile.n_trials,
        root_seed=profile.seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="gohari2021 runs",
    )
    by_label = dict(tuple(runs.groupby("label", sort=False)))
    frames = [
        by_label[source[c["label"]]].assign(label=c["label"], panel=c["panel"]) for c in configs
    ]
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


def query_allowance(
    profile: GohariProfile, method: str, coefficient: float, rollouts: np.ndarray
) -> np.ndarray:
    """Queries the schedule lets the teacher answer from its data in each of ``rollouts``: every
    interaction (``steps_per_epoch``) of the roll-outs before :math:`k_t = k_0 c^t` falls below
    ``k_min`` (:func:`informed_rollouts`) for a private teacher, none without a teacher
    (``ppo``), all of them (``inf``, no budget) for kickstarting without privacy."""
    t = np.asarray(rollouts)
    if method == "ppo":
        return np.zeros(len(t))
    if method == "kickstart":
        return np.full(len(t), np.inf)
    if method != "private":
        raise ValueError(f"method must be 'ppo', 'kickstart' or 'private', got {method!r}")
    n = informed_rollouts(profile.k0, coefficient, profile.k_min)
    return np.where(t < n, float(profile.steps_per_epoch), 0.0)


def query_table(runs: pd.DataFrame, profile: GohariProfile) -> pd.DataFrame:
    """Per run (label, seed) and roll-out (epoch): ``queries``, the queries answered from the
    teacher's data so far (cumulative ``teacher_queries``; plain PPO asks none), and
    ``queries_allowed``, the schedule's allowance so far (cumulative :func:`query_allowance`)."""
    runs = runs.sort_values(["label", "seed", "epoch"])
    asked = (
        runs["teacher_queries"]
        if "teacher_queries" in runs
        else pd.Series(np.nan, index=runs.index)
    )
    if asked[runs["method"] != "ppo"].isna().any():
        raise ValueError("runs with a teacher lack their teacher_queries count (run_agent logs it)")
    asked = asked.where(runs["method"] != "ppo", 0.0).astype(float)
    allowed = pd.Series(np.nan, index=runs.index)
    for _, g in runs.groupby(["label", "seed"], sort=False):  # numpy's cumsum: inf + inf = inf
        allowed[g.index] = np.cumsum(
            query_allowance(
                profile,
                str(g["method"].iloc[0]),
                float(g["coefficient"].iloc[0]),
                g["epoch"].to_numpy(),
            )
        )
    return pd.DataFrame(
        {
            "label": runs["label"],
            "seed": runs["seed"],
            "epoch": runs["epoch"],
            "queries": asked.groupby([runs["label"], runs["seed"]]).cumsum(),
            "queries_allowed": allowed,
        }
    ).reset_index(drop=True)


def budget_table(runs: pd.DataFrame, profile: GohariProfile) -> pd.DataFrame:
    """Per private configuration: queries the teacher answered from its data (counted,
    :func:`query_table`; largest over seeds), those the schedule allows, and the composed
    (epsilon, delta) of a run (basic and advanced composition)."""
    rows = []
    queries = query_table(runs, profile)
    for label, sub in runs[runs["method"] == "private"].groupby("label", sort=False):
        totals = [privacy_spent(g, profile.steps_per_epoch) for _, g in sub.groupby("seed")]
        mine = (
            queries[queries["label"] == label].groupby("seed")[["queries", "queries_allowed"]].max()
        )
        rows.append(
            {
                "config": label,
                "coefficient": float(sub["coefficient"].iloc[0]),
                "queries": float(mine["queries"].max()),
                "queries allowed": float(mine["queries_allowed"].max()),
                **{
                    k: max(t[k] for t in totals)
                    for k in ("basic_epsilon", "basic_delta", "advanced_epsilon", "advanced_delta")
                },
            }
        )
    return pd.DataFrame(rows)


def measure_references(profile: GohariProfile, rng: SeedLike) -> dict[str, float]:
    """Returns of uniformly random play and of the committed teacher on the profile's
    environment, ``eval_episodes`` episodes each, cut at the profile's episode cap (the same
    protocol as the learning curves)."""
    teacher, _ = load_teacher(profile.env)
    r_rand, _ = play(profile.env, None, profile.eval_episodes, rng, profile.max_episode_steps)
    r_teach, _ = play(profile.env, teacher, profile.eval_episodes, rng, profile.max_episode_steps)
    n = profile.eval_episodes
    return {
        "random": float(r_rand.mean()),
        "random_se": float(r_rand.std(ddof=1) / math.sqrt(n)),
        "teacher": float(r_teach.mean()),
        "teacher_se": float(r_teach.std(ddof=1) / math.sqrt(n)),
        "episodes": n,
    }


def measure_rollout_cost(profile: GohariProfile, n_rollouts: int = 3) -> pd.DataFrame:
    """CPU seconds per roll-out and interactions per CPU second (the step rate core-hours are
    counted in) of the most expensive run (privacy-aware student, a teacher query and a
    Dirichlet draw per step) and of the teacher-sized PPO, at ``profile``'s settings: a run of
    ``n_rollouts + 1`` roll-outs minus a run of one, so a run's set-up costs cancel (after a
    first run of one roll-out that pays the process's one-time costs, e.g. imports)."""
    configs = {c["label"]: c for c in figure2_configs(profile)}
    seed = np.random.SeedSequence(profile.seed)
    run_agent({**configs[AWARE], "epochs": 1}, seed)
    rows = []
    for label in (AWARE, profile.baseline_labels()[0]):
        cpu = []
        for epochs in (1, n_rollouts + 1):
            t0 = time.process_time()
            run_agent({**configs[label], "epochs": epochs}, seed)
            cpu.append(time.process_time() - t0)
        per_rollout = (cpu[1] - cpu[0]) / n_rollouts
        rows.append(
            {
                "config": label,
                "interactions per second": profile.steps_per_epoch / per_rollout,
                "seconds per roll-out": per_rollout,
            }
        )
    return pd.DataFrame(rows)
