"""Tests of the continuous line MDP (Wang and Hegde 2019, Appendix E.1)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import privrl.core.envs  # noqa: F401  (registers the ids)
from privrl.core.envs.line import BatchedLineEnv, ContinuousLineEnv, line_step


def test_check_env_passes():
    check_env(ContinuousLineEnv(), skip_render_check=True)


def test_registered_id_makes_the_env():
    env = gym.make("privrl/ContinuousLine-v0")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


def test_dynamics_and_reward():
    s = np.array([0.1, 0.9, 0.95, 0.05])
    a = np.array([0, 1, 0, 1])
    u = np.array([0.2, 0.2, 0.2, 0.2])
    nxt, r = line_step(s, a, u)
    np.testing.assert_allclose(nxt, [0.3, 0.7, 1.0, 0.0])
    np.testing.assert_allclose(r, [0.3, 0.3, 0.0, 0.0])


def test_episode_lasts_50_steps_and_moves_at_most_a_quarter():
    env = ContinuousLineEnv()
    obs, _ = env.reset(seed=1)
    for t in range(50):
        nxt, r, term, trunc, _ = env.step(t % 2)
        assert abs(nxt[0] - obs[0]) <= 0.25 + 1e-6
        assert r == pytest.approx(0.5 - abs(nxt[0] - 0.5), abs=1e-6)
        assert not term and trunc == (t == 49)
        obs = nxt


def test_batched_env_and_validation():
    env = BatchedLineEnv(4, 0)
    s = env.reset()
    assert s.shape == (4,) and np.all((0 <= s) & (s <= 1))
    nxt, r, over = env.step(np.zeros(4, dtype=int))
    assert np.all(nxt >= s) and np.all(nxt - s <= 0.25) and not over
    with pytest.raises(ValueError):
        env.step(np.array([0, 1, 2, 0]))
    with pytest.raises(ValueError):
        ContinuousLineEnv().step(3)
    with pytest.raises(ValueError):
        BatchedLineEnv(0, 0)
