"""PPO (Spinning Up defaults) on CartPole-v1."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from privrl.algorithms.ppo import PPOConfig, discounted_cumsum, train_ppo


def cartpole():
    return gym.make("CartPole-v1")


def test_ppo_learns_cartpole():
    # fixed seed and budget: 40 epochs x 1000 steps; CartPole-v1's solved threshold is 475
    _, log = train_ppo(cartpole, 40, 0, PPOConfig(steps_per_epoch=1000, n_envs=4))
    assert log["avg_return"].max() >= 475
    assert log["avg_return"].iloc[:3].mean() < 100  # it did start from scratch


def test_ppo_is_reproducible_from_seed():
    cfg = PPOConfig(steps_per_epoch=200, n_envs=2, train_pi_iters=5, train_v_iters=5)
    _, a = train_ppo(cartpole, 2, 7, cfg)
    _, b = train_ppo(cartpole, 2, 7, cfg)
    _, c = train_ppo(cartpole, 2, 8, cfg)
    cols = ["avg_return", "kl", "loss_v"]
    np.testing.assert_array_equal(a[cols].to_numpy(), b[cols].to_numpy())
    assert not np.array_equal(a[cols].to_numpy(), c[cols].to_numpy())


def test_discounted_cumsum_matches_loop():
    rng = np.random.default_rng(0)
    x, dones = rng.normal(size=(6, 3)), rng.random((6, 3)) < 0.3
    y = discounted_cumsum(x, 0.9, dones.astype(float))
    for j in range(3):
        run = 0.0
        for t in range(5, -1, -1):
            run = x[t, j] + 0.9 * run * (not dones[t, j])
            assert y[t, j] == pytest.approx(run)


@pytest.mark.parametrize(
    "kw",
    [{"steps_per_epoch": 0}, {"steps_per_epoch": 10, "n_envs": 3}, {"gamma": 1.5},
     {"clip_ratio": 0.0}, {"hidden_sizes": ()}],
)  # fmt: skip
def test_bad_config_raises(kw):
    with pytest.raises(ValueError):
        PPOConfig(**kw)
