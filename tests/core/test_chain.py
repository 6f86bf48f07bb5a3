"""The chain MDP of Balle et al. (2016): exact model, simulation, gymnasium interface."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import privrl.core.envs  # noqa: F401  (registers privrl/Chain-v0)
from privrl.core.envs.chain import ChainEnv, chain_mdp, sample_trajectories
from privrl.core.envs.tabular import TabularMDP, aggregated_features, tabular_features


def test_check_env_and_registration():
    env = gymnasium.make("privrl/Chain-v0")
    check_env(env.unwrapped)
    assert isinstance(env.unwrapped, ChainEnv)


def test_exact_model_structure():
    mdp = chain_mdp(40)
    assert np.allclose(mdp.P.sum(1), 1)
    assert mdp.P[39, 39] == 1 and mdp.absorbing[39] and not mdp.absorbing[:39].any()
    assert mdp.P[5, 5] == 0.5 and mdp.P[5, 6] == 0.5
    # reward 1 only on entering the goal state 38, so R is 1/2 at state 37 and 0 elsewhere
    expected_R = np.zeros(40)
    expected_R[37] = 0.5
    assert np.allclose(mdp.R, expected_R)
    assert np.allclose(mdp.start[:39], 1 / 39) and mdp.start[39] == 0


def test_true_values_closed_form():
    # Independent computation: from state s < 38 the goal is entered after T = T_1 + ... + T_k
    # steps (k = 38 - s independent Geom(1/2) waits on {1, 2, ...}); the reward is r_{T-1}, worth
    # gamma^(T-1), so V(s) = E[gamma^T_1]^k / gamma with E[gamma^T_1] = (gamma/2)/(1 - gamma/2).
    gamma = 0.99
    g = (gamma / 2) / (1 - gamma / 2)
    V = chain_mdp(40).true_values(gamma)
    expected = np.array([g ** (38 - s) / gamma for s in range(38)] + [0.0, 0.0])
    assert np.allclose(V, expected, atol=1e-12)


def test_simulation_matches_exact_model():
    # One-step transition frequencies from 200k sampled transitions vs P: the standard error of a
    # frequency near 1/2 with ~n visits is <= 0.5/sqrt(n); we allow 5 SE (false alarm < 1e-5).
    mdp = chain_mdp(10)
    tr = sample_trajectories(mdp, 20000, 0, max_steps=50)
    mask = tr.mask()
    s, s2 = tr.observations[:, :-1][mask], tr.observations[:, 1:][mask]
    counts = np.zeros((10, 10))
    np.add.at(counts, (s, s2), 1)
    n = counts.sum(1)
    freq = counts[n > 0] / n[n > 0, None]
    se = 0.5 / np.sqrt(n[n > 0, None])
    assert np.all(np.abs(freq - mdp.P[n > 0]) <= 5 * se + 1e-12)
    assert np.allclose(tr.rewards[mask], mdp.rewards[s, s2])
    # start distribution: chi-square-free check with 5 SE
    starts = np.bincount(tr.observations[:, 0], minlength=10) / 20000
    assert np.all(np.abs(starts - mdp.start) <= 5 * np.sqrt(mdp.start / 20000) + 1e-12)


def test_trajectory_structure_and_padding():
    mdp = chain_mdp(40)
    tr = sample_trajectories(mdp, 500, 1, max_steps=30)
    assert tr.observations.shape == (500, 31)
    for i in range(500):
        L = tr.lengths[i]
        obs = tr.observations[i]
        if tr.terminated[i]:
            assert obs[L] == 39 and np.all(obs[:L] < 39)
        else:
            assert L == 30 and np.all(obs[: L + 1] < 39)
        assert np.all(obs[L + 1 :] == 0) and np.all(tr.rewards[i, L:] == 0)
        assert np.all(np.diff(obs[: L + 1]) >= 0) and np.all(np.diff(obs[: L + 1]) <= 1)
    assert tr.terminated.any() and not tr.terminated.all()


def test_env_step_agrees_with_model():
    env = ChainEnv(n_states=6, start="first", max_steps=1000)
    s, _ = env.reset(seed=3)
    assert s == 0
    total, done = 0.0, False
    while not done:
        s2, r, term, trunc, _ = env.step(0)
        assert env.mdp.P[s, s2] > 0 and r == env.mdp.rewards[s, s2]
        total += r
        s, done = s2, term or trunc
    assert s == 5 and total == 1.0


def test_determinism_from_seed():
    mdp = chain_mdp(40)
    a, b = sample_trajectories(mdp, 100, 7), sample_trajectories(mdp, 100, 7)
    c = sample_trajectories(mdp, 100, 8)
    assert np.array_equal(a.observations, b.observations)
    assert not np.array_equal(a.observations, c.observations)


def test_features():
    assert np.array_equal(tabular_features(3), np.eye(3))
    agg = aggregated_features(5, 2)
    assert agg.shape == (5, 3) and np.array_equal(agg.argmax(1), [0, 0, 1, 1, 2])
    assert np.all(agg.sum(1) == 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda: chain_mdp(2),
        lambda: chain_mdp(40, p_stay=1.0),
        lambda: chain_mdp(40, p_stay=-0.1),
        lambda: chain_mdp(40, start="middle"),
        lambda: sample_trajectories(chain_mdp(), 0, 0),
        lambda: sample_trajectories(chain_mdp(), 10, 0, max_steps=0),
        lambda: sample_trajectories(chain_mdp(), 10, None),
        lambda: chain_mdp().true_values(1.0),
        lambda: aggregated_features(4, 0),
        lambda: TabularMDP(
            np.ones((2, 2)), np.zeros((2, 2)), np.array([1.0, 0]), np.zeros(2, bool)
        ),
    ],
)
def test_input_validation(call):
    with pytest.raises(ValueError):
        call()


def test_a_process_keeps_its_own_read_only_arrays():
    """Changing the caller's arrays after construction changes neither the process nor its
    exact values, and the process's arrays refuse writes."""
    P = np.array([[0.5, 0.5], [0.0, 1.0]])
    rewards = np.array([[1.0, 2.0], [0.0, 0.0]])
    start = np.array([1.0, 0.0])
    absorbing = np.array([False, True])
    mdp = TabularMDP(P, rewards, start, absorbing)
    before = mdp.true_values(0.9)
    P[0] = [1.0, 0.0]
    rewards[:] = 5.0
    absorbing[:] = False
    assert np.array_equal(mdp.true_values(0.9), before)
    assert mdp.absorbing[1] and mdp.P[0, 1] == 0.5
    for arr in (mdp.P, mdp.rewards, mdp.start, mdp.absorbing):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 0
