"""A gohari2021 run on the numpy path resumed mid-run from its checkpoint is the run never
interrupted, bit for bit (every logged value except ``wall_time``, every action and every
observation the environment returns), on AirRaid across the teacher's budget and on CartPole
with finished and cut episodes; a checkpoint of another run is refused."""

from __future__ import annotations

import hashlib
import pickle
import signal
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

from privrl.chapter.sweep import run_sweep
from privrl.core.algorithms import ppo_fast
from privrl.core.algorithms.ppo import PPOConfig
from privrl.papers.gohari2021 import fast_student
from privrl.papers.gohari2021.fast_student import PROBE, run_agent_fast
from privrl.papers.gohari2021.profile import AWARE, GohariProfile
from privrl.papers.gohari2021.runs import figure2_configs

SEED = np.random.SeedSequence(0, spawn_key=(3,))
#: AirRaid, the probe's aware student (c = 0.3, random answers after the budget), 7 roll-outs:
#: the budget is spent from roll-out 4 (counted from 0) on.
AIRRAID = {**PROBE, "epochs": 7}
CARTPOLE = {
    **next(
        c
        for c in figure2_configs(
            GohariProfile(
                **{
                    **GohariProfile.PAPER_SCALE,
                    "env": "cartpole",
                    "tau": 4.61e-4,
                    "b": 0.01,
                    "max_episode_steps": 200,
                }
            )
        )
        if c["label"] == AWARE
    ),
    "epochs": 7,
    "steps_per_epoch": 300,
}

MAKE_ENV, SAVE = fast_student.make_env, ppo_fast.save_checkpoint


class Interrupted(Exception):
    """Raised in place of the rest of a run, as a kill would."""


class StepLog(gym.Wrapper):
    """Records every step: the action and a hash of what the environment returns."""

    def __init__(self, env: gym.Env, steps: list) -> None:
        super().__init__(env)
        self.steps = steps

    def step(self, action):
        out = self.env.step(action)
        self.steps.append(
            (
                int(action),
                hashlib.sha1(np.asarray(out[0]).tobytes()).hexdigest(),
                float(out[1]),
                bool(out[2]),
                bool(out[3]),
            )
        )
        return out


def run(config, monkeypatch, checkpoint=None, stop_after=None):
    """``run_agent_fast`` (checkpoint every 2 roll-outs) with its steps logged; raises
    :class:`Interrupted` right after its ``stop_after``-th checkpoint."""
    steps: list = []
    saves = []

    def save(*args):
        SAVE(*args)
        saves.append(1)
        if len(saves) == stop_after:
            raise Interrupted

    monkeypatch.setattr(fast_student, "make_env", lambda name: StepLog(MAKE_ENV(name), steps))
    monkeypatch.setattr(ppo_fast, "save_checkpoint", save)
    try:
        return steps, run_agent_fast(config, SEED, checkpoint=checkpoint, checkpoint_every=2)
    except Interrupted:
        return steps, None


@pytest.mark.parametrize(
    ("config", "stop_after"),
    [(AIRRAID, 1), (AIRRAID, 2), (CARTPOLE, 2)],
    ids=["airraid-1", "airraid-2", "cartpole-2"],
)
def test_a_resumed_run_is_the_uninterrupted_run(config, stop_after, tmp_path, monkeypatch):
    steps, whole = run(config, monkeypatch)
    path = tmp_path / "run.ckpt"
    first, none = run(config, monkeypatch, path, stop_after)
    assert none is None and path.exists()
    done = pickle.loads(path.read_bytes())["state"]["epoch"]
    assert done == 2 * stop_after
    rest, resumed = run(config, monkeypatch, path)
    per_rollout = config["steps_per_epoch"]
    # the interrupted run took the first steps of the whole run; the resumed one the rest only
    assert first == steps[: done * per_rollout]
    assert rest == steps[done * per_rollout :]
    pd.testing.assert_frame_equal(
        resumed.drop(columns="wall_time"), whole.drop(columns="wall_time"), check_exact=True
    )
    assert resumed["wall_time"].is_monotonic_increasing
    if config is AIRRAID:  # the budget is crossed within the resumed part
        assert (
            resumed["teacher_queries"].iloc[done - 1] > 0
            and resumed["teacher_queries"].iloc[-1] == 0
        )
    else:  # finished and cut episodes on both sides of the interruption
        assert (
            whole["n_episodes"].iloc[:done].sum() > 0 and whole["n_episodes"].iloc[done:].sum() > 0
        )


def test_without_a_checkpoint_file_the_run_is_unchanged(tmp_path, monkeypatch):
    steps, plain = run(AIRRAID, monkeypatch)
    saved_steps, saved = run(AIRRAID, monkeypatch, tmp_path / "run.ckpt")
    assert saved_steps == steps
    pd.testing.assert_frame_equal(
        saved.drop(columns="wall_time"), plain.drop(columns="wall_time"), check_exact=True
    )
    assert (tmp_path / "run.ckpt").exists()  # the last one (roll-outs 0-5), left for the caller


@pytest.mark.parametrize(
    ("config", "seed"),
    [({**AIRRAID, "coefficient": 0.5}, SEED), (AIRRAID, np.random.SeedSequence(0, spawn_key=(4,)))],
)
def test_a_checkpoint_of_another_config_or_seed_is_refused(config, seed, tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"
    run(AIRRAID, monkeypatch, path, stop_after=1)
    with pytest.raises(ValueError, match="checkpoint .* belongs to another run"):
        run_agent_fast(config, seed, checkpoint=path, checkpoint_every=2)


def test_a_checkpoint_needs_a_seeded_reset_per_rollout(tmp_path):
    config = {**AIRRAID, "reset_each_epoch": False}
    with pytest.raises(ValueError, match="reset_each_epoch"):
        run_agent_fast(config, SEED, checkpoint=tmp_path / "run.ckpt")
    cfg = PPOConfig(hidden_sizes=(4,), steps_per_epoch=20)
    with pytest.raises(ValueError, match="reset_each_epoch"):
        ppo_fast.train_ppo_fast(
            lambda: gym.make("CartPole-v1"), 2, 0, cfg, checkpoint=tmp_path / "x"
        )


KILLED_DRIVER = """
import os, pickle, signal, sys
from privrl.chapter.sweep import run_sweep
from privrl.chapter.sweep import run_sweep
from privrl.core.algorithms import ppo_fast
from privrl.papers.gohari2021.fast_student import run_agent_fast

save = ppo_fast.save_checkpoint

def save_and_die(*args):
    save(*args)
    os.kill(os.getpid(), signal.SIGKILL)

ppo_fast.save_checkpoint = save_and_die
config = pickle.loads(bytes.fromhex(sys.argv[2]))
run_sweep(run_agent_fast, config, replicates=1, cache_dir=sys.argv[1], executor="serial",
          progress=False)
"""


def test_a_sweep_killed_with_sigkill_resumes_the_run_mid_way(tmp_path, monkeypatch):
    """The recording's path: a sweep process killed (SIGKILL) right after a run's first
    checkpoint (roll-out 25 of 30); the rerun resumes that run and returns the uninterrupted
    frame, and the checkpoint is gone once the run is cached."""
    config = {
        **CARTPOLE,
        "epochs": 30,
        "steps_per_epoch": 100,
        "train_pi_iters": 10,
        "train_v_iters": 10,
    }
    whole = run_sweep(run_agent_fast, config, replicates=1, executor="serial", progress=False)
    cache = tmp_path / "cache"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_DRIVER, str(cache), pickle.dumps(config).hex()],
        capture_output=True,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()[-2000:]
    (ckpt,) = cache.rglob("*.ckpt")
    assert not list(cache.rglob("*.pkl"))
    steps: list = []
    monkeypatch.setattr(fast_student, "make_env", lambda name: StepLog(MAKE_ENV(name), steps))
    resumed = run_sweep(
        run_agent_fast, config, replicates=1, cache_dir=cache, executor="serial", progress=False
    )
    assert len(steps) == 5 * 100  # roll-outs 25 to 29 only
    pd.testing.assert_frame_equal(
        resumed.drop(columns="wall_time"), whole.drop(columns="wall_time"), check_exact=True
    )
    assert not ckpt.exists() and ckpt.with_suffix(".pkl").exists()
