"""The batched CartPole reproduces gymnasium's CartPoleEnv step by step."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from privrl.core.envs.cartpole import BatchedCartPole, sample_gravities


def test_batched_equals_gymnasium_step_by_step():
    rng = np.random.default_rng(0)
    n = 12
    gravity = sample_gravities(n, rng)
    batch = BatchedCartPole(gravity)
    init = rng.uniform(-0.05, 0.05, size=(n, 4))
    obs = batch.reset(states=init)
    envs = []
    for i in range(n):
        env = gym.make("CartPole-v1", max_episode_steps=200).unwrapped
        env.reset(seed=i)
        env.gravity = float(gravity[i])
        env.state = init[i].copy()
        envs.append(env)
    done = np.zeros(n, dtype=bool)
    steps = 0
    while not done.all():
        actions = rng.integers(0, 2, size=n)
        obs, reward, term, trunc = batch.step(actions)
        steps += 1
        for i, env in enumerate(envs):
            if done[i]:
                continue
            o, r, t, _, _ = env.step(int(actions[i]))
            assert np.array_equal(o, obs[i])  # bit-identical float32 observation
            assert np.array_equal(env.state, batch.state[i])
            assert r == reward[i]
            assert t == term[i]
            done[i] = t or steps >= 200
        assert np.array_equal(done, batch.done)
    assert np.all(batch.steps <= 200)


def test_time_limit_and_score():
    batch = BatchedCartPole(np.full(3, 9.8), max_steps=5)
    batch.reset(states=np.zeros((3, 4)))
    total = np.zeros(3)
    for _ in range(8):
        total += batch.step(np.array([1, 0, 1]))[1]
    assert np.all(batch.truncated) and np.all(total == 5)


def test_gravities_uniform_on_three_values():
    g = sample_gravities(30_000, 1)
    vals, counts = np.unique(g, return_counts=True)
    assert np.allclose(vals, [9.7, 9.8, 9.9])
    assert np.all(np.abs(counts / 30_000 - 1 / 3) < 0.015)  # s.e. 0.0027


def test_bad_inputs():
    with pytest.raises(ValueError):
        BatchedCartPole(np.array([9.8, -1.0]))
    batch = BatchedCartPole(np.array([9.8]))
    batch.reset(0)
    with pytest.raises(ValueError):
        batch.step(np.array([2]))
