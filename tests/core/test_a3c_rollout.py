"""The compiled rollout of PGC-A3C's agents against a step-by-step reference written apart from
it: gymnasium's own ``CartPoleEnv`` with the agent's gravity, the network in numpy, and the
random draws taken from a generator in the documented order. On fixed seeds every observation,
action, length and ending must agree exactly, for greedy and for sampled actions."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from privrl.core.algorithms import a3c
from privrl.core.algorithms.a3c_rollout import rollout
from privrl.core.envs.cartpole import is_terminal, step_cart, step_rows, terminal_cart


def _reference_episode(theta, gravity, alpha, gen, max_steps, sample):
    """One episode as the module docstring states it, with gymnasium's environment."""
    wc, wp, _ = a3c.unpack(theta[None])
    env = gym.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    env.gravity = float(gravity)
    init = gen.uniform(-0.05, 0.05, size=4)
    env.state = init.copy()
    obs, actions, terminated = [np.float32(init).astype(np.float64)], [], False
    while len(actions) < max_steps and not terminated:
        if alpha > 0 and gen.random() < alpha:
            a = int(gen.integers(0, 2))
        else:
            logits = wp[0] @ np.maximum(wc[0] @ obs[-1], 0.0)
            if sample:
                a = int(gen.random() * (1.0 + math.exp(logits[0] - logits[1])) < 1.0)
            else:
                a = int(logits[1] > logits[0])
        o, _, terminated, _, _ = env.step(a)
        obs.append(o.astype(np.float64))
        actions.append(a)
    return np.array(obs), np.array(actions), terminated


@pytest.mark.parametrize("sample", [False, True])
def test_rollout_equals_gymnasium_step_by_step(sample):
    """12 episodes (exploration rates 0 to 1, the three gravities, some cut at 60 steps):
    observations, actions, lengths and endings equal the reference's exactly, and both consume
    the generator identically (the next draw agrees)."""
    rng = np.random.default_rng(8)
    theta = a3c.init_parameters(12, rng) * 4
    gravity = np.tile([9.7, 9.8, 9.9], 4)
    alpha = np.array([0.0, 0.0, 0.0, 0.1, 0.3, 0.5, 1.0, 0.0, 0.2, 0.0, 0.05, 0.0])
    ep = rollout(theta, gravity, alpha, np.random.default_rng(3), 60, sample)
    gen = np.random.default_rng(3)
    start = 0
    for e in range(12):
        obs, actions, terminated = _reference_episode(
            theta[e], gravity[e], alpha[e], gen, 60, sample
        )
        n = len(actions)
        assert ep.lengths[e] == n and ep.terminated[e] == terminated
        np.testing.assert_array_equal(ep.obs[start : start + n], obs[:-1])
        np.testing.assert_array_equal(ep.last_obs[e], obs[-1])
        np.testing.assert_array_equal(ep.actions[start : start + n], actions)
        start += n
    assert ep.terminated.any() and not ep.terminated.all()  # some fell, some were cut
    assert len(set(ep.lengths)) > 3


def test_compiled_step_equals_the_numpy_rows_and_gymnasium():
    """``step_cart`` (the compiled source of ``step_rows``) equals ``step_rows`` and gymnasium
    bit for bit on 500 random states, both actions and the three gravities."""
    rng = np.random.default_rng(0)
    states = rng.uniform(-0.3, 0.3, size=(500, 4))
    forces = rng.choice([-10.0, 10.0], size=500)
    gravity = rng.choice([9.7, 9.8, 9.9], size=500)
    rows = np.stack(step_rows(*states.T, forces, gravity), axis=1)
    env = gym.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    for i in range(500):
        one = step_cart(*states[i], forces[i], gravity[i])
        np.testing.assert_array_equal(one, rows[i])
        env.gravity, env.state = float(gravity[i]), states[i].copy()
        env.steps_beyond_terminated = None  # a fresh step from a given state
        env.step(int(forces[i] > 0))
        np.testing.assert_array_equal(np.array(env.state, dtype=np.float64), rows[i])
        assert terminal_cart(one[0], one[2]) == is_terminal(rows[i, 0], rows[i, 2])


def test_an_episode_costs_its_own_steps():
    """The flat buffers hold exactly sum(lengths) steps: no padding to the longest episode."""
    rng = np.random.default_rng(1)
    ep = rollout(a3c.init_parameters(30, rng), 9.8, 0.5, rng, 200)
    assert ep.obs.shape == (ep.lengths.sum(), 4) and ep.actions.shape == (ep.lengths.sum(),)
    assert ep.lengths.min() < ep.lengths.max()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"theta": np.zeros((2, 111))}, "112 columns"),
        ({"gravity": -1.0}, "gravity"),
        ({"alpha": 1.5}, "alpha"),
        ({"max_steps": 0}, "max_steps"),
    ],
)
def test_rollout_rejects_bad_input(kwargs, match):
    args = {
        "theta": np.zeros((2, a3c.D)),
        "gravity": 9.8,
        "alpha": 0.5,
        "rng": 0,
        "max_steps": 10,
        **kwargs,
    }
    with pytest.raises(ValueError, match=match):
        rollout(**args)
