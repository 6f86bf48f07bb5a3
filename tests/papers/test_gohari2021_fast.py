"""gohari2021's numpy run function against today's (student.run_agent, the reference), step by
step on fixed seeds: the same action at every step and the same per-roll-out log, for plain PPO,
kickstarting without privacy and the privacy-aware student (c = 0.3) with random answers after
the budget (arm a), a silent teacher (arm b) and the union radius (arm c), on CartPole and on a
short AirRaid run; and the Dirichlet draws in step order.

The paths agree to float32 rounding, not bit for bit (numpy's and torch's matrix products sum in
different orders), and PPO's KL early stop is a threshold: a roll-out whose KL lands within that
rounding of 1.5 * target_kl can stop one iteration apart on the two paths, after which the runs
are different draws of the same algorithm (seen on AirRaid, (64, 64), roll-outs of 150, at roll-out
2: 62 against 63 iterations). The runs here are long enough to cross the budget and stop on KL
many times, and do not meet such a tie."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from privrl.core.algorithms.kickstarting import Kickstarter
from privrl.core.algorithms.kickstarting_fast import FastKickstarter
from privrl.papers.gohari2021 import fast_student, student
from privrl.papers.gohari2021.profile import AWARE, GohariProfile
from privrl.papers.gohari2021.runs import after_budget_label, figure2_configs
from privrl.papers.gohari2021.teacher import load_teacher

ARMS = [
    "PPO (32, 32)",
    "PPO (64, 64)",
    "kickstarting",
    AWARE,
    after_budget_label("silent"),
    f"{AWARE}, union radius",
]
#: Roll-outs: the c = 0.3 budget (k0 = 5, k_min = 0.1) is spent from roll-out 4 (counted from 0) on.
ROLLOUTS = 5


class ActionLog(gym.Wrapper):
    def __init__(self, env: gym.Env, actions: list[int]) -> None:
        super().__init__(env)
        self.actions = actions

    def step(self, action):
        self.actions.append(int(action))
        return self.env.step(action)


def logged(module, run, config, monkeypatch):
    """``run(config)`` with every action its environment takes recorded."""
    actions: list[int] = []
    real = module.make_env
    monkeypatch.setattr(module, "make_env", lambda name: ActionLog(real(name), actions))
    return actions, run(config, np.random.SeedSequence(5))


def configs(profile: GohariProfile, steps: int) -> dict[str, dict]:
    return {
        c["label"]: {**c, "epochs": ROLLOUTS, "steps_per_epoch": steps}
        for c in figure2_configs(profile)
    }


def assert_same_run(today, fast, label):
    (act_a, a), (act_b, b) = today, fast
    assert act_a == act_b, label
    assert list(a.columns) == list(b.columns)
    np.testing.assert_allclose(a["avg_return"], b["avg_return"], rtol=1e-12)
    cols = [c for c in a.columns if c not in ("wall_time",)]
    np.testing.assert_allclose(
        a[cols].to_numpy(float), b[cols].to_numpy(float), rtol=2e-4, atol=2e-6, err_msg=label
    )


CARTPOLE = GohariProfile(
    **{
        **GohariProfile.PAPER_SCALE,
        "env": "cartpole",
        "tau": 4.61e-4,
        "b": 0.01,
        "max_episode_steps": 200,
    }
)


@pytest.mark.parametrize("label", ARMS)
def test_cartpole_same_run_as_today(label, monkeypatch):
    """Spinning Up's handling, episodes cut at 200 interactions (bootstrapped), 300 per roll-out."""
    config = configs(CARTPOLE, 300)[label]
    today = logged(student, student.run_agent, config, monkeypatch)
    fast = logged(fast_student, fast_student.run_agent_fast, config, monkeypatch)
    assert_same_run(today, fast, label)
    log = today[1]
    if config["method"] == "private":  # the budget is spent within the run
        assert log["teacher_queries"].iloc[0] == 300 and log["teacher_queries"].iloc[-1] == 0
        if config.get("after_budget") == "silent":
            assert log["aux_loss"].iloc[-1] == 0
        else:
            assert log["penalised_fraction"].iloc[-1] > 0


def test_cartpole_quick_profile_same_run_as_today(monkeypatch):
    """The quick profile: 4 environments, no reset per roll-out, GAE targets."""
    config = configs(GohariProfile(), 400)[AWARE]
    today = logged(student, student.run_agent, config, monkeypatch)
    fast = logged(fast_student, fast_student.run_agent_fast, config, monkeypatch)
    assert_same_run(today, fast, AWARE)


@pytest.mark.parametrize(
    "label",
    ["PPO (32, 32)", "PPO (64, 64)", AWARE, after_budget_label("silent"), f"{AWARE}, union radius"],
)
def test_airraid_same_run_as_today(label, monkeypatch):
    """Paper settings, roll-outs of 200 interactions."""
    config = configs(GohariProfile(**GohariProfile.PAPER_SCALE), 200)[label]
    today = logged(student, student.run_agent, config, monkeypatch)
    fast = logged(fast_student, fast_student.run_agent_fast, config, monkeypatch)
    assert_same_run(today, fast, label)
    assert len(set(today[0])) == 6


@pytest.mark.parametrize("after_budget", ["random", "silent"])
@pytest.mark.parametrize("private", [True, False])
def test_rollout_targets_are_the_per_step_draws(private, after_budget):
    """A roll-out's answers at once equal the per-step path's answers drawn one state at a
    time from the same generator, before and after the budget (k_1 = 1.5, k_5 < k_min)."""
    teacher, _ = load_teacher("cartpole")
    obs = np.random.default_rng(0).normal(size=(50, 2, 4)).astype(np.float32)
    kw = {"private": private, "radius": "mc", "after_budget": after_budget}
    for epoch in (1, 5):
        ref, fast = Kickstarter(teacher, 9, **kw), FastKickstarter(teacher, 9, **kw)
        ref.start_epoch(epoch), fast.start_epoch(epoch)
        expected = np.stack([ref.targets(o) for o in obs])
        np.testing.assert_allclose(fast.rollout_targets(obs), expected, rtol=1e-5, atol=1e-7)
        assert ref.rng.random() == fast.rng.random()  # the same number of draws
