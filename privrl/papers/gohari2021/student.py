"""Gohari et al. (2021): one learning curve of Figure 2, the run function handed to
:func:`privrl.chapter.sweep.run_sweep`.

:func:`run_agent` trains one student or baseline (PPO, kickstarting without privacy, or
privacy-preserving kickstarting through the Dirichlet mechanism, eq. 5, with the vanishing
:math:`k_t = k_0 c^t` of Section 4's remark and the student's objective, eq. 17), counting the
queries the teacher answers from its data (:class:`CountingKickstarter`).

This module imports only the core layer and the committed teachers, so the sweep cache's code
hash of a run does not change when the profile, the claims, the chapter or the book change: an
AirRaid run that takes hours and resumes over several sittings keeps its cached seeds.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from privrl.core.algorithms.kickstarting import Kickstarter
from privrl.core.algorithms.ppo import PPOConfig, train_ppo
from privrl.core.envs.atari import make_env
from privrl.core.rng import as_generator
from privrl.papers.gohari2021.teacher import load_teacher, teacher_lipschitz


class QueryCounting:
    """Mixed into a kickstarter: counts, per roll-out, the queries the teacher answers from its
    data, the observations its network is evaluated on (:meth:`teacher_policy`; random answers
    after the budget and a silent teacher never call it). The count is the ``teacher_queries``
    entry of the row :meth:`start_epoch` returns, which PPO logs at the end of the roll-out
    (after every query of it)."""

    def start_epoch(self, epoch: int) -> dict[str, float]:
        self._row = {**super().start_epoch(epoch), "teacher_queries": 0}  # type: ignore[misc]
        return self._row

    def teacher_policy(self, obs: np.ndarray) -> np.ndarray:
        self._row["teacher_queries"] += len(obs)
        return super().teacher_policy(obs)  # type: ignore[misc]


class CountingKickstarter(QueryCounting, Kickstarter):
    """A :class:`~privrl.core.algorithms.kickstarting.Kickstarter` counting its teacher's
    queries (:class:`QueryCounting`)."""


def kickstarter_arguments(config: dict[str, Any], teacher: Any) -> dict[str, Any]:
    """The kickstarter's keyword arguments from a run's ``config`` (``method`` ``private``:
    the Dirichlet-answering teacher with the config's ``lam``; else plain kickstarting)."""
    private = config["method"] == "private"
    return dict(
        private=private,
        k0=config["k0"],
        coefficient=config.get("coefficient", 1.0),
        lam=config["lam"] if private else 0.0,
        beta=config["beta"],
        radius=config["radius"],
        eta=config["eta"],
        tau=config["tau"],
        lipschitz=teacher_lipschitz(teacher, config["eta"]),
        b=config["b"],
        k_min=config["k_min"],
        after_budget=config.get("after_budget", "random"),
    )


def ppo_config(config: dict[str, Any]) -> PPOConfig:
    """PPO of a (hidden, hidden) agent with the run's episode handling and updates."""
    return PPOConfig(
        hidden_sizes=(int(config["hidden"]),) * 2,
        steps_per_epoch=int(config["steps_per_epoch"]),
        n_envs=int(config["n_envs"]),
        gamma=float(config["gamma"]),
        gae_lambda=float(config["gae_lambda"]),
        train_pi_iters=int(config["train_pi_iters"]),
        train_v_iters=int(config["train_v_iters"]),
        max_episode_steps=config["max_episode_steps"],
        reset_each_epoch=bool(config["reset_each_epoch"]),
        value_targets=config["value_targets"],
    )


def run_agent(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One learning curve. ``config``: the profile's run keys plus ``method`` (``ppo``,
    ``kickstart``, ``private``), ``hidden`` (student width) and, for ``private``,
    ``coefficient``. Returns one row per roll-out (with a teacher: ``teacher_queries``, the
    roll-out's queries answered from the teacher's data, :class:`CountingKickstarter`)."""
    rng = as_generator(seed)
    env_fn = functools.partial(make_env, config["env"])
    aux = None
    if config["method"] != "ppo":
        teacher, _ = load_teacher(config["env"])
        aux = CountingKickstarter(teacher, rng, **kickstarter_arguments(config, teacher))
    _, log = train_ppo(env_fn, int(config["epochs"]), rng, ppo_config(config), aux)
    return log
