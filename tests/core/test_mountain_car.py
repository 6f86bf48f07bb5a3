"""Mountain Car (privrl.core.envs.mountain_car): batched dynamics vs gymnasium, Fourier basis."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from privrl.core.envs.mountain_car import batched_step, collect, fourier_features


def test_batched_step_matches_gymnasium():
    env = gymnasium.make("MountainCar-v0").unwrapped
    rng = np.random.default_rng(0)
    for ep in range(3):
        obs, _ = env.reset(seed=ep)
        state = np.array(env.state, dtype=float)[None, :]
        for _ in range(200):
            a = int(rng.integers(3))
            obs, _, term, _, _ = env.step(a)
            state, done = batched_step(state, np.array([a]))
            assert np.allclose(state[0], np.array(env.state, dtype=float), atol=1e-12)
            assert bool(done[0]) == term
            if term:
                break


def test_fourier_basis():
    f = fourier_features(np.array([[-1.2, -0.07], [0.6, 0.07]]))
    assert f.shape == (2, 36)
    assert np.allclose(f[0], 1.0)  # x = 0: cos(0) for every coefficient
    # x = (1, 1): cos(pi (c1 + c2)) = (-1)^(c1 + c2)
    c = np.array([[i, j] for i in range(6) for j in range(6)])
    assert np.allclose(f[1], (-1.0) ** c.sum(axis=1))
    with pytest.raises(ValueError, match="states"):
        fourier_features(np.zeros((3, 3)))


def test_collect_shapes_and_rewards():
    traj, probs = collect(lambda s: np.full((len(s), 3), 1 / 3), 8, 0, max_steps=50)
    assert traj.observations.shape == (8, 51, 2)
    assert np.all(traj.rewards[traj.mask()] == -1.0)
    assert np.allclose(probs[traj.mask()], 1 / 3)
    with pytest.raises(ValueError, match="m"):
        collect(lambda s: np.full((len(s), 3), 1 / 3), 0, 0)
