"""The numpy PPO path against today's torch path (train_ppo, the reference), piece by piece and
step by step on fixed seeds: the same action at every step and the same per-roll-out log."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from privrl.core.algorithms.ppo import PPOConfig, mlp, train_ppo
from privrl.core.algorithms.ppo_fast import (
    MLP,
    Adam,
    log_softmax,
    logits_grad,
    surrogate_grad,
    train_ppo_fast,
)

#: Log columns compared to tolerance (returns are compared exactly: the same actions).
COLUMNS = ["kl", "pi_iters", "loss_v", "aux_loss", "entropy"]


class ActionLog(gym.Wrapper):
    """Records every action an environment is stepped with."""

    def __init__(self, env: gym.Env, actions: list[int]) -> None:
        super().__init__(env)
        self.actions = actions

    def step(self, action):
        self.actions.append(int(action))
        return self.env.step(action)


def logged_run(train, config, epochs=4, seed=11):
    actions: list[int] = []
    _, log = train(lambda: ActionLog(gym.make("CartPole-v1"), actions), epochs, seed, config)
    return actions, log


def assert_same_run(a, b):
    """Same actions at every step, same episode returns, the same logged values."""
    (act_a, log_a), (act_b, log_b) = a, b
    assert act_a == act_b
    assert list(log_a.columns) == list(log_b.columns)
    np.testing.assert_array_equal(log_a["n_episodes"], log_b["n_episodes"])
    np.testing.assert_allclose(log_a["avg_return"], log_b["avg_return"], rtol=1e-12)
    cols = [c for c in log_a.columns if c not in ("epoch", "env_steps", "wall_time")]
    np.testing.assert_allclose(
        log_a[cols].to_numpy(float), log_b[cols].to_numpy(float), rtol=2e-4, atol=2e-6
    )


@pytest.mark.parametrize("n_actions", [2, 6])
def test_one_sample_multinomial_is_argmax_over_exponentials(n_actions):
    """torch's one-sample multinomial is argmax(p / q), q ~ Exp(1) from the generator, and
    one draw of a roll-out's q equals one draw per step (what the fast path relies on)."""
    p = torch.softmax(torch.randn(1, n_actions, generator=torch.Generator().manual_seed(0)), -1)
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    drawn = [int(torch.multinomial(p, 1, generator=g1)) for _ in range(3000)]
    q = torch.empty((3000, 1, n_actions)).exponential_(1, generator=g2)
    assert drawn == torch.argmax(p / q, dim=-1).squeeze(-1).tolist()
    assert len(set(drawn)) == n_actions


def test_mlp_forward_and_backward_match_autograd():
    torch.manual_seed(0)
    net = mlp([5, 7, 4, 3])
    x = torch.randn(20, 5)
    g_out = torch.randn(20, 3)
    (net(x) * g_out).sum().backward()
    fast = MLP.from_torch(net)
    out, acts = fast.forward(x.numpy())
    np.testing.assert_allclose(out, net(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    grad = fast.backward(acts, g_out.numpy())
    expected = np.concatenate([p.grad.numpy().ravel() for p in net.parameters()])
    np.testing.assert_allclose(grad, expected, rtol=1e-4, atol=1e-6)


def test_surrogate_gradient_matches_autograd_with_ties_and_clipping():
    """Ratios inside, on the edge of and outside the clip range, advantages of both signs and
    zero: torch's min splits a tie in half, clamp passes the gradient on the closed range."""
    rng = np.random.default_rng(1)
    old = np.log(rng.uniform(0.1, 0.9, 40)).astype(np.float32)
    logp = (old + np.r_[np.zeros(10), rng.normal(0, 0.4, 30)]).astype(np.float32)
    adv = np.r_[rng.normal(size=36), np.zeros(4)].astype(np.float32)
    lp = torch.tensor(logp, requires_grad=True)
    ratio = torch.exp(lp - torch.tensor(old))
    clipped = torch.clamp(ratio, 0.8, 1.2) * torch.tensor(adv)
    loss = -torch.min(ratio * torch.tensor(adv), clipped).mean()
    loss.backward()
    value, grad = surrogate_grad(logp, old, adv, 0.2)
    assert value == pytest.approx(float(loss.detach()), rel=1e-5)
    np.testing.assert_allclose(grad, lp.grad.numpy(), rtol=1e-5, atol=1e-8)
    assert np.any(grad == 0)  # some clipped terms pass no gradient


def test_log_softmax_backward_matches_autograd():
    logits = torch.randn(8, 6, requires_grad=True)
    g = torch.randn(8, 6)
    (torch.log_softmax(logits, -1) * g).sum().backward()
    lp = log_softmax(logits.detach().numpy())
    np.testing.assert_allclose(lp, torch.log_softmax(logits, -1).detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(logits_grad(g.numpy(), np.exp(lp)), logits.grad.numpy(), atol=1e-6)


def test_adam_is_torchs_update_rule():
    torch.manual_seed(0)
    w = torch.randn(50, requires_grad=True)
    opt = torch.optim.Adam([w], lr=3e-4, fused=True)
    flat = w.detach().numpy().copy()
    adam = Adam(flat, 3e-4)
    for step in range(60):
        grad = torch.randn(50) * (10.0 if step % 7 == 0 else 1e-3)
        w.grad = grad.clone()
        opt.step()
        adam.step(grad.numpy())
    np.testing.assert_allclose(flat, w.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert not np.allclose(flat, torch.randn(50, generator=torch.Generator().manual_seed(0)))


@pytest.mark.parametrize("hidden", [(32, 32), (64, 64)])
def test_plain_ppo_same_run_as_today_spinning_up(hidden):
    """Spinning Up's episode handling (one env, cap 100 so that episodes are cut and
    bootstrapped, reset per roll-out, rewards-to-go)."""
    cfg = PPOConfig.spinning_up(hidden_sizes=hidden, steps_per_epoch=400, max_episode_steps=100)
    today, fast = logged_run(train_ppo, cfg), logged_run(train_ppo_fast, cfg)
    assert_same_run(today, fast)
    assert today[1]["n_episodes"].sum() > 8 and today[1]["pi_iters"].min() > 0


def test_plain_ppo_same_run_as_today_vectorised():
    """The class defaults: several environments, no reset per roll-out (episodes run on across
    roll-outs), GAE value targets; a small target KL so that the policy stops early."""
    cfg = PPOConfig(hidden_sizes=(16, 16), steps_per_epoch=300, n_envs=3, target_kl=0.002)
    today, fast = logged_run(train_ppo, cfg), logged_run(train_ppo_fast, cfg)
    assert_same_run(today, fast)
    assert today[1]["pi_iters"].min() < 80  # early stop exercised


def test_a_different_seed_is_a_different_run():
    cfg = PPOConfig.spinning_up(hidden_sizes=(8, 8), steps_per_epoch=200, train_pi_iters=5)
    a, b = logged_run(train_ppo_fast, cfg, 2, 1), logged_run(train_ppo_fast, cfg, 2, 2)
    assert a[0] != b[0]
