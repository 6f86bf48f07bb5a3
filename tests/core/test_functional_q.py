"""Tests of DQN with functional noise and its baselines (Wang and Hegde 2019)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from privrl.core.algorithms.functional_q import (
    DPSGDConfig,
    FunctionalNoiseConfig,
    InputPerturbation,
    NoPrivacy,
    OutputPerturbation,
    _QNoise,
    dpsgd_gradient,
    earlier_reading,
    epsilon_greedy_threshold,
    per_sample_gradients,
    q_network,
    train_dqn,
)
from privrl.core.envs.line import HORIZON


def test_per_sample_gradients_match_autograd():
    torch.manual_seed(0)
    net = q_network()
    s, a, y = torch.rand(9, 1), torch.randint(0, 2, (9,)), 3 * torch.randn(9)
    grads = per_sample_gradients(net, s, a, y)
    for i in range(9):
        net.zero_grad()
        q = net(s[i : i + 1]).gather(1, a[i : i + 1, None])[:, 0]
        nn.functional.smooth_l1_loss(q, y[i : i + 1]).backward()
        for p, g in zip(net.parameters(), grads, strict=True):
            torch.testing.assert_close(p.grad, g[i], atol=1e-6, rtol=1e-5)


def test_exploration_schedule():
    assert epsilon_greedy_threshold(0) == pytest.approx(0.9)
    assert epsilon_greedy_threshold(200) == pytest.approx(0.05 + 0.85 / np.e)
    assert epsilon_greedy_threshold(10**6) == pytest.approx(0.05)


def test_functional_noise_is_a_consistent_path_per_action():
    noise = _QNoise(FunctionalNoiseConfig(0.7, 2.0), np.random.default_rng(0))
    x = np.random.default_rng(1).uniform(size=50)
    v = noise.values(x)
    np.testing.assert_array_equal(noise.values(x[::-1])[::-1], v)
    noise.reset()
    assert not np.allclose(noise.values(x), v)


def test_output_noise_has_calibrated_scale():
    """20000 draws: sample sd within 3% (about 4 standard errors) of output_std; half fails."""
    noise = _QNoise(OutputPerturbation(2.5), np.random.default_rng(0))
    v = noise.values(np.zeros(10000))
    assert abs(v.std() / 2.5 - 1) < 0.03
    assert np.all(_QNoise(NoPrivacy(), np.random.default_rng(0)).values(np.zeros(3)) == 0)


@pytest.mark.parametrize(
    "privacy",
    [
        NoPrivacy(),
        FunctionalNoiseConfig(0.5),
        earlier_reading(0.5),
        OutputPerturbation(0.5),
        InputPerturbation(0.5),
        DPSGDConfig(0.5, warmup=150),
        DPSGDConfig(0.5, sampling="fixed"),
    ],
)
def test_training_runs_and_reports_both_returns(privacy):
    run = train_dqn(privacy, 0, episodes=4, eval_episodes=3)
    assert list(run.curve.columns[:4]) == ["episode", "samples", "train_return", "eval_return"]
    assert list(run.curve.samples) == [50, 100, 150, 200]
    assert run.curve[["train_return", "eval_return"]].stack().between(0, 25).all()
    assert isinstance(run.net, nn.Module)


def test_training_is_reproducible():
    a = train_dqn(FunctionalNoiseConfig(0.3), 5, episodes=4).curve
    b = train_dqn(FunctionalNoiseConfig(0.3), 5, episodes=4).curve
    pd_equal = a.equals(b)
    assert pd_equal


def test_evaluation_episodes_are_fixed():
    """The released function of an untrained, non-private run acts identically in every episode's
    evaluation only if the evaluation episodes are the same: with learning rate ~0 the greedy
    policy barely changes, so equal evaluation returns across episodes show fixed episodes."""
    run = train_dqn(NoPrivacy(), 3, episodes=4, lr=1e-12)
    assert run.curve.eval_return.nunique() == 1
    assert run.curve.train_return.nunique() > 1


def test_target_path_is_independent_of_the_policy_path():
    """Authors' protocol: the TD target's path is a different, independent sample path.

    With gp_beta = 1000, values 0.005 apart have correlation exp(-5): 200 grid values of the two
    paths have a sample correlation ~ N(0, 1/200) when independent (|r| > 0.3 has probability
    ~2e-5), and exactly 1 when the path is shared, so the test fails on a shared path.
    """
    grid = np.linspace(0.0, 1.0, 200)
    run = train_dqn(FunctionalNoiseConfig(1.0, 1000.0), 0, episodes=3)
    assert run.target_noise is not run.policy_noise
    pol, tgt = run.policy_noise.values(grid), run.target_noise.values(grid)
    for a in range(2):
        assert abs(np.corrcoef(pol[:, a], tgt[:, a])[0, 1]) < 0.3
    shared = train_dqn(earlier_reading(1.0, 1000.0), 0, episodes=2)
    pol, tgt = shared.policy_noise.values(grid), shared.target_noise.values(grid)
    assert np.corrcoef(pol[:, 0], tgt[:, 0])[0, 1] == pytest.approx(1.0)


def test_paths_reset_exactly_at_episode_starts():
    episodes = 5
    run = train_dqn(FunctionalNoiseConfig(0.5), 1, episodes=episodes)
    assert run.path_resets == [HORIZON * e for e in range(episodes)]
    never = train_dqn(FunctionalNoiseConfig(0.5, path_reset="never"), 1, episodes=3)
    assert never.path_resets == []
    # the earlier reading redraws at every gradient step (one per env step from the 128th on)
    every = train_dqn(earlier_reading(0.5), 1, episodes=3)
    assert every.path_resets == list(range(0, 128)) + list(range(128, 150))


def test_path_is_fresh_after_an_episode_start():
    """Values stored in the last episode's path are gone after the reset: a path built in the
    final episode holds only states seen in that episode's queries (fewer than a full run's)."""
    run = train_dqn(FunctionalNoiseConfig(0.5), 2, episodes=4)
    stored = len(run.policy_noise.paths)
    every_query = HORIZON * (1 + 128)  # at most one acting query + one batch per step
    assert 0 < stored <= every_query


def test_dpsgd_records_its_sampling_rates_from_the_warmup_on():
    run = train_dqn(DPSGDConfig(1.0, warmup=150), 0, episodes=4)
    rates = run.sampling_rates
    assert len(rates) == 200 - 150 + 1
    np.testing.assert_allclose(rates, 128 / np.arange(150, 201))
    assert run.curve.dp_steps.sum() == len(rates)


def test_dpsgd_gradient_clips_and_adds_calibrated_noise():
    """Without noise, the result is the mean of per-sample gradients rescaled to norm <= clip
    (checked exactly); with noise, the coordinates' sd is z * clip / B (40000 coordinates: the
    sample sd is within 2% at > 5 standard errors). Dropping the clip or halving the noise fails."""
    gen = torch.Generator().manual_seed(0)
    big = [torch.full((4, 3), 10.0), torch.full((4, 2, 2), -10.0)]  # per-sample norm 10 * sqrt(7)
    clipped = dpsgd_gradient(big, 1.0, 0.0, 4, gen)
    norm = torch.sqrt(sum(g.pow(2).sum() for g in clipped))
    assert float(norm) == pytest.approx(1.0, rel=1e-5)
    zero = [torch.zeros(5, 40000)]
    noisy = dpsgd_gradient(zero, 2.0, 3.0, 5, gen)[0]
    assert abs(float(noisy.std()) / (3.0 * 2.0 / 5) - 1) < 0.02


def test_invalid_inputs_raise():
    with pytest.raises(ValueError, match="privacy"):
        train_dqn("functional", 0, episodes=1)
    with pytest.raises(ValueError, match="gp_sigma"):
        FunctionalNoiseConfig(-1.0)
    with pytest.raises(ValueError, match="gp_beta"):
        FunctionalNoiseConfig(1.0, 0.0)
    with pytest.raises(ValueError, match="path_reset"):
        FunctionalNoiseConfig(1.0, path_reset="sometimes")
    with pytest.raises(ValueError, match="output_std"):
        OutputPerturbation(float("nan"))
    with pytest.raises(ValueError, match="reward_std"):
        InputPerturbation(-0.1)
    assert (OutputPerturbation(2).output_std, InputPerturbation(0).reward_std) == (2.0, 0.0)
    with pytest.raises(ValueError, match="noise_multiplier"):
        DPSGDConfig(-1.0)
    with pytest.raises(ValueError, match="episodes"):
        train_dqn(NoPrivacy(), 0, episodes=0)
