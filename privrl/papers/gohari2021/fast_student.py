"""Gohari et al. (2021): one learning curve on the numpy path, the run function of the recording
at the paper's horizon (:mod:`privrl.papers.gohari2021.horizon`).

:func:`run_agent_fast` is :func:`privrl.papers.gohari2021.student.run_agent` (same ``config``,
same log columns, the same run on the same seed to floating-point tolerance, tested) on
:func:`~privrl.core.algorithms.ppo_fast.train_ppo_fast` and
:class:`~privrl.core.algorithms.kickstarting_fast.FastKickstarter`, about twice as cheap per
AirRaid roll-out (``benchmarks/bench_gohari2021_student.py``). The teacher's queries answered
from its data are counted per roll-out (:class:`CountingFastKickstarter`).

Its results version (:func:`~privrl.core.results_version.results_version`) keys the recording's
cache: an edit that changes no number keeps the cached runs (the probe, the aware student at
c = 0.3 on five AirRaid roll-outs of 40 that cross its budget, is compared with the committed
frame by ``tests/chapter/test_results_versions.py``; every arm is pinned to today's
:func:`~privrl.papers.gohari2021.student.run_agent` step by step by
``tests/papers/test_gohari2021_fast.py``).
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np
import pandas as pd

from privrl.core.algorithms.kickstarting_fast import FastKickstarter
from privrl.core.algorithms.ppo_fast import train_ppo_fast
from privrl.core.envs.atari import make_env
from privrl.core.results_version import results_version
from privrl.core.rng import as_generator
from privrl.papers.gohari2021.student import QueryCounting, kickstarter_arguments, ppo_config
from privrl.papers.gohari2021.teacher import load_teacher


class CountingFastKickstarter(QueryCounting, FastKickstarter):
    """A :class:`~privrl.core.algorithms.kickstarting_fast.FastKickstarter` counting its
    teacher's queries (:class:`~privrl.papers.gohari2021.student.QueryCounting`)."""


#: The probe of the results version: the c = 0.3 aware student (arm a) crossing its budget.
PROBE = {
    "env": "airraid",
    "epochs": 5,
    "steps_per_epoch": 40,
    "n_envs": 1,
    "max_episode_steps": 1000,
    "reset_each_epoch": True,
    "value_targets": "rewards-to-go",
    "gamma": 0.99,
    "gae_lambda": 0.97,
    "train_pi_iters": 5,
    "train_v_iters": 5,
    "k0": 5.0,
    "lam": 0.5,
    "beta": 0.05,
    "eta": 0.1,
    "k_min": 0.1,
    "radius": "mc",
    "tau": 1.84e-05,
    "b": 0.000105,
    "teacher_hidden": 64,
    "after_budget": "random",
    "method": "private",
    "hidden": 32,
    "coefficient": 0.3,
}


@results_version("1", probe=PROBE, ignore=("wall_time",), checkpoints=True)
def run_agent_fast(
    config: dict[str, Any],
    seed: np.random.SeedSequence,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: int = 25,
) -> pd.DataFrame:
    """One learning curve. ``config``: the profile's run keys plus ``method`` (``ppo``,
    ``kickstart``, ``private``), ``hidden`` (student width) and, for ``private``,
    ``coefficient`` (as :func:`privrl.papers.gohari2021.student.run_agent`). Returns one row
    per roll-out. ``checkpoint``: a file the run is saved to every ``checkpoint_every``
    roll-outs and resumed from, refused if it holds another ``config`` or ``seed``
    (:func:`~privrl.core.algorithms.ppo_fast.train_ppo_fast`; at 25, a save of at most 1 MB,
    6 ms of CPU at roll-out 4,000, is under 0.1 % of the 25 roll-outs' time)."""
    rng = as_generator(seed)
    aux = None
    if config["method"] != "ppo":
        teacher, _ = load_teacher(config["env"])
        aux = CountingFastKickstarter(teacher, rng, **kickstarter_arguments(config, teacher))
    ppo = ppo_config(config)
    env_fn = functools.partial(make_env, config["env"])
    run_id = {"config": config, "seed": (seed.entropy, tuple(seed.spawn_key))}
    _, log = train_ppo_fast(
        env_fn, int(config["epochs"]), rng, ppo, aux, checkpoint, checkpoint_every, run_id
    )
    return log
