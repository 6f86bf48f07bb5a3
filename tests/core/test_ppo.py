"""PPO (Spinning Up defaults) on CartPole-v1."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from privrl.core.algorithms.ppo import PPOConfig, PPOSchedule, discounted_cumsum, train_ppo


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
    [
        {"steps_per_epoch": 0},
        {"steps_per_epoch": 10, "n_envs": 3},
        {"gamma": 1.5},
        {"clip_ratio": 0.0},
        {"hidden_sizes": ()},
    ],
)
def test_bad_config_raises(kw):
    with pytest.raises(ValueError):
        PPOConfig(**kw)


def test_the_schedule_is_the_shared_part_of_a_config():
    """A PPOConfig carries the PPOSchedule fields (Spinning Up's defaults) and hands them on."""
    cfg = PPOConfig(steps_per_epoch=300, n_envs=3, gamma=0.9, train_v_iters=7)
    assert cfg.schedule() == {
        "steps_per_epoch": 300,
        "n_envs": 3,
        "max_episode_steps": None,
        "reset_each_epoch": False,
        "value_targets": "gae",
        "gamma": 0.9,
        "gae_lambda": 0.97,
        "train_pi_iters": 80,
        "train_v_iters": 7,
    }
    assert PPOConfig(**PPOSchedule().schedule()) == PPOConfig()
    assert PPOConfig(hidden_sizes=(8,), **cfg.schedule()) == PPOConfig(
        hidden_sizes=(8,), steps_per_epoch=300, n_envs=3, gamma=0.9, train_v_iters=7
    )


class Counter(gym.Env):
    """Toy environment: observation = steps since reset, reward 1 per step, never terminates."""

    observation_space = gym.spaces.Box(0.0, np.inf, shape=(1,), dtype=np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.0], dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        return np.array([float(self.t)], dtype=np.float32), 1.0, False, False, {}


class Recorder:
    """Auxiliary that records the observations PPO sees (and adds no loss)."""

    def __init__(self):
        self.seen = []

    def start_epoch(self, epoch):
        self.seen.append([])
        return {}

    def targets(self, obs):
        self.seen[-1].append(float(obs[0, 0]))
        return np.full((len(obs), 2), 0.5)

    def loss(self, probs, targets):
        return probs.sum() * 0.0


def test_spinning_up_episode_cap_and_reset_per_epoch():
    cfg = PPOConfig.spinning_up(
        max_episode_steps=5, steps_per_epoch=7, hidden_sizes=(4,), train_pi_iters=1, train_v_iters=1
    )
    rec = Recorder()
    _, log = train_ppo(Counter, 3, 0, cfg, rec)
    # the cap ends an episode after 5 steps (return 5); the epoch then cuts the next one after 2
    # steps, and the next epoch starts from a reset (observation 0), not from step 2
    assert rec.seen == [[0, 1, 2, 3, 4, 0, 1]] * 3
    assert list(log["n_episodes"]) == [1, 1, 1] and list(log["avg_return"]) == [5.0] * 3
    # without the reset the second epoch continues the cut episode
    rec = Recorder()
    train_ppo(
        Counter,
        2,
        0,
        PPOConfig(
            n_envs=1,
            max_episode_steps=5,
            steps_per_epoch=7,
            hidden_sizes=(4,),
            train_pi_iters=1,
            train_v_iters=1,
        ),
        rec,
    )
    assert rec.seen[1][:3] == [2, 3, 4]


def _spinning_up_finish_path(rews, vals, last_val, gamma, lam):
    """Spinning Up's PPOBuffer.finish_path for one trajectory (independent re-implementation)."""

    def cumsum(x, d):
        return np.array([sum(d**j * x[i + j] for j in range(len(x) - i)) for i in range(len(x))])

    r, v = np.append(rews, last_val), np.append(vals, last_val)
    adv = cumsum(r[:-1] + gamma * v[1:] - v[:-1], gamma * lam)
    return adv, cumsum(r, gamma)[:-1]


def test_rewards_to_go_targets_match_spinning_up():
    from privrl.core.algorithms.ppo import advantages_and_targets

    gamma, lam = 0.9, 0.8
    rews = np.array([1.0, 2.0, 0.5, 1.0, 3.0], dtype=np.float32)[:, None]
    vals = np.array([0.3, 0.1, 0.7, 0.2, 0.4], dtype=np.float32)[:, None]
    dones = np.array([0, 0, 1, 0, 0], dtype=np.float32)[:, None]  # terminal at 2, cut at 4
    last_v = np.array([5.0], dtype=np.float32)
    adv, ret = advantages_and_targets(rews, vals, dones, last_v, gamma, lam, "rewards-to-go")
    a1, r1 = _spinning_up_finish_path(rews[:3, 0], vals[:3, 0], 0.0, gamma, lam)
    a2, r2 = _spinning_up_finish_path(rews[3:, 0], vals[3:, 0], 5.0, gamma, lam)
    np.testing.assert_allclose(ret[:, 0], np.r_[r1, r2], rtol=1e-6)
    np.testing.assert_allclose(adv[:, 0], np.r_[a1, a2], rtol=1e-6)
    _, gae_ret = advantages_and_targets(rews, vals, dones, last_v, gamma, lam, "gae")
    np.testing.assert_allclose(gae_ret[:, 0], np.r_[a1, a2] + vals[:, 0], rtol=1e-6)
    assert not np.allclose(gae_ret, ret)
