"""Gohari et al. (2021): one learning curve on the numpy path, the run function of the recording
at the paper's horizon (:mod:`privrl.papers.gohari2021.horizon`).

:func:`run_agent_fast` is :func:`privrl.papers.gohari2021.student.run_agent` (same ``config``,
same log columns, the same run on the same seed to floating-point tolerance, tested) on
:func:`~privrl.core.algorithms.ppo_fast.train_ppo_fast` and
:class:`~privrl.core.algorithms.kickstarting_fast.FastKickstarter`, about twice as cheap per
AirRaid roll-out (``benchmarks/bench_gohari2021_student.py``). The teacher's queries answered
from its data are counted per roll-out (:class:`CountingFastKickstarter`).

This module imports only the core layer and the committed teachers, so the sweep cache's code
hash of a run does not change when the profile, the claims, the chapter or the book change.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from privrl.core.algorithms.kickstarting_fast import FastKickstarter
from privrl.core.algorithms.ppo import PPOConfig
from privrl.core.algorithms.ppo_fast import train_ppo_fast
from privrl.core.envs.atari import make_env
from privrl.core.rng import as_generator
from privrl.papers.gohari2021.teacher import load_teacher, teacher_lipschitz


class CountingFastKickstarter(FastKickstarter):
    """A :class:`~privrl.core.algorithms.kickstarting_fast.FastKickstarter` that counts, per
    roll-out, the queries the teacher answers from its data (the observations its network is
    evaluated on; random answers after the budget and a silent teacher never evaluate it): the
    ``teacher_queries`` entry of the row :meth:`start_epoch` returns."""

    def start_epoch(self, epoch: int) -> dict[str, float]:
        self._row = {**super().start_epoch(epoch), "teacher_queries": 0}
        return self._row

    def teacher_policy(self, obs: np.ndarray) -> np.ndarray:
        self._row["teacher_queries"] += len(obs)
        return super().teacher_policy(obs)


def run_agent_fast(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One learning curve. ``config``: the profile's run keys plus ``method`` (``ppo``,
    ``kickstart``, ``private``), ``hidden`` (student width) and, for ``private``,
    ``coefficient`` (as :func:`privrl.papers.gohari2021.student.run_agent`). Returns one row
    per roll-out."""
    rng = as_generator(seed)
    aux = None
    if config["method"] != "ppo":
        teacher, _ = load_teacher(config["env"])
        private = config["method"] == "private"
        aux = CountingFastKickstarter(
            teacher, rng, private=private, k0=config["k0"],
            coefficient=config.get("coefficient", 1.0), lam=config["lam"] if private else 0.0,
            beta=config["beta"], radius=config["radius"], eta=config["eta"], tau=config["tau"],
            lipschitz=teacher_lipschitz(teacher, config["eta"]), b=config["b"],
            k_min=config["k_min"], after_budget=config.get("after_budget", "random"),
        )  # fmt: skip
    ppo = PPOConfig(
        hidden_sizes=(int(config["hidden"]),) * 2, steps_per_epoch=int(config["steps_per_epoch"]),
        n_envs=int(config["n_envs"]), gamma=float(config["gamma"]),
        gae_lambda=float(config["gae_lambda"]), train_pi_iters=int(config["train_pi_iters"]),
        train_v_iters=int(config["train_v_iters"]), max_episode_steps=config["max_episode_steps"],
        reset_each_epoch=bool(config["reset_each_epoch"]), value_targets=config["value_targets"],
    )  # fmt: skip
    env_fn = functools.partial(make_env, config["env"])
    _, log = train_ppo_fast(env_fn, int(config["epochs"]), rng, ppo, aux)
    return log
