"""Tests of DQN with functional noise and its baselines (Wang and Hegde 2019)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from privrl.algorithms.functional_q import (
    _Noise,
    dpsgd_gradient,
    epsilon_greedy_threshold,
    per_sample_gradients,
    q_network,
    train_dqn,
)


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
    noise = _Noise("functional", 0.7, 2.0, 2, np.random.default_rng(0))
    x = np.random.default_rng(1).uniform(size=50)
    v = noise.values(x)
    np.testing.assert_array_equal(noise.values(x[::-1])[::-1], v)
    noise.reset()
    assert not np.allclose(noise.values(x), v)


def test_output_noise_has_calibrated_scale():
    """20000 draws: sample sd within 3% (about 4 standard errors) of sigma; half the noise fails."""
    noise = _Noise("output", 2.5, 1.0, 2, np.random.default_rng(0))
    v = noise.values(np.zeros(10000))
    assert abs(v.std() / 2.5 - 1) < 0.03
    assert np.all(_Noise("none", 2.5, 1.0, 2, np.random.default_rng(0)).values(np.zeros(3)) == 0)


@pytest.mark.parametrize("method", ["none", "functional", "output", "input", "dpsgd"])
def test_training_runs_and_reports_returns(method):
    frame, net, _ = train_dqn(method, 0.5, 0, episodes=4, resample_every=1, warmup=150)
    assert list(frame.columns) == ["episode", "samples", "return"]
    assert list(frame.samples) == [50, 100, 150, 200]
    assert frame["return"].between(0, 25).all()
    assert isinstance(net, nn.Module)


def test_training_is_reproducible():
    a, _, _ = train_dqn("functional", 0.3, 5, episodes=4)
    b, _, _ = train_dqn("functional", 0.3, 5, episodes=4)
    np.testing.assert_array_equal(a["return"], b["return"])


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
    with pytest.raises(ValueError):
        train_dqn("bogus", 0.1, 0, episodes=1)
    with pytest.raises(ValueError):
        train_dqn("functional", -1.0, 0, episodes=1)
    with pytest.raises(ValueError):
        train_dqn("functional", 1.0, 0, episodes=1, beta=0.0)
    with pytest.raises(ValueError):
        train_dqn("functional", 1.0, 0, episodes=0)
