r"""Proximal policy optimisation (Schulman et al. 2017) for discrete actions, after Spinning Up.

An epoch collects ``steps_per_epoch`` interactions from ``n_envs`` environments (``SAME_STEP``
autoreset), computes GAE(:math:`\gamma, \lambda`) advantages, then takes up to
``train_pi_iters`` full-batch Adam steps on

.. math:: L(\theta) = -\mathbb{E}\big[\min(r_t(\theta) A_t,\ \mathrm{clip}(r_t(\theta), 1-\epsilon,
   1+\epsilon) A_t)\big] + \text{aux}(\theta),

stopping once the approximate KL exceeds ``1.5 * target_kl``, and ``train_v_iters`` steps on the
value error. Defaults are Spinning Up's ``ppo`` (Gohari et al. 2021's library): 4000 steps, gamma
0.99, lambda 0.97, clip 0.2, learning rates 3e-4 and 1e-3, 80 + 80 iterations, target KL 0.01,
tanh MLPs. ``PPOConfig.spinning_up()`` also takes its episode handling (one environment, a
1000-step cap, a reset every epoch, rewards-to-go value targets); the class defaults are the
vectorised variant (GAE-:math:`\lambda` returns as targets). An episode cut by a time limit or
the epoch is bootstrapped with :math:`\gamma V(s_{\rm final})`, a terminal state is not.

``aux`` (:class:`Auxiliary`) adds a policy-loss term. Logged per epoch: ``entropy`` and, with ``aux``,
``aux_grad_share`` :math:`= \|\nabla\text{aux}\| / (\|\nabla\text{aux}\| + \|\nabla L^{\rm
clip}\|)` and the auxiliary's ``diagnostics(probs, targets)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol, cast

import gymnasium as gym
import numpy as np
import pandas as pd
import torch
from gymnasium import spaces
from torch import nn
from tqdm import tqdm

from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_choice, check_int, check_positive, check_probability


@dataclass(frozen=True)
class PPOSchedule:
    """How PPO collects and learns from its roll-outs (Spinning Up defaults): roll-out size and
    episode handling (module docstring), discount and GAE, update iterations. A chapter's profile
    that exposes them as its own knobs derives from it; :class:`PPOConfig` adds the network and
    the optimiser and checks every field."""

    steps_per_epoch: int = 4000
    n_envs: int = 4
    max_episode_steps: int | None = None
    reset_each_epoch: bool = False
    value_targets: Literal["gae", "rewards-to-go"] = "gae"
    gamma: float = 0.99
    gae_lambda: float = 0.97
    train_pi_iters: int = 80
    train_v_iters: int = 80

    def schedule(self) -> dict[str, Any]:
        """The :class:`PPOSchedule` fields of this object, by name (for :class:`PPOConfig`)."""
        return {f.name: getattr(self, f.name) for f in fields(PPOSchedule)}


@dataclass(frozen=True)
class PPOConfig(PPOSchedule):
    """Hyper-parameters (Spinning Up defaults): the :class:`PPOSchedule`, the network and the
    optimiser."""

    hidden_sizes: tuple[int, ...] = (64, 64)
    clip_ratio: float = 0.2
    pi_lr: float = 3e-4
    vf_lr: float = 1e-3
    target_kl: float = 0.01

    @classmethod
    def spinning_up(cls, **overrides: Any) -> PPOConfig:
        """Spinning Up's ``ppo`` episode handling: one environment, 1,000-step episode cap, reset at
        every epoch, rewards-to-go value targets (``overrides`` change any field)."""
        return cls(
            **{
                "n_envs": 1,
                "max_episode_steps": 1000,
                "reset_each_epoch": True,
                "value_targets": "rewards-to-go",
                **overrides,
            }
        )

    def __post_init__(self) -> None:
        check_int(self.steps_per_epoch, "steps_per_epoch", minimum=1)
        check_int(self.n_envs, "n_envs", minimum=1)
        if self.steps_per_epoch % self.n_envs:
            raise ValueError("steps_per_epoch must be a multiple of n_envs")
        for name in ("gamma", "gae_lambda"):
            check_probability(getattr(self, name), name)
        for name in ("clip_ratio", "pi_lr", "vf_lr", "target_kl"):
            check_positive(getattr(self, name), name)
        check_int(self.train_pi_iters, "train_pi_iters", minimum=0)
        check_int(self.train_v_iters, "train_v_iters", minimum=0)
        if self.max_episode_steps is not None:
            check_int(self.max_episode_steps, "max_episode_steps", minimum=1)
        check_choice(self.value_targets, "value_targets", ("gae", "rewards-to-go"))
        if len(self.hidden_sizes) == 0 or any(int(h) < 1 for h in self.hidden_sizes):
            raise ValueError(f"hidden_sizes must be positive ints, got {self.hidden_sizes}")


def mlp(sizes: Sequence[int], activation: type[nn.Module] = nn.Tanh) -> nn.Sequential:
    """Linear layers of the given sizes with ``activation`` between them (none after the last)."""
    layers: list[nn.Module] = []
    for j in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[j], sizes[j + 1]))
        if j < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Categorical policy ``softmax(pi(obs))`` and value ``v(obs)``, separate tanh MLPs."""

    def __init__(self, obs_dim: int, n_actions: int, hidden_sizes: Sequence[int]) -> None:
        super().__init__()
        self.pi = mlp([obs_dim, *hidden_sizes, n_actions])
        self.v = mlp([obs_dim, *hidden_sizes, 1])

    def probs(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.pi(obs), dim=-1)

    def policy_weights(self) -> list[np.ndarray]:
        """Weight matrices of the policy network, input to output (for Lipschitz certificates)."""
        return [m.weight.detach().numpy().copy() for m in self.pi if isinstance(m, nn.Linear)]


class Auxiliary(Protocol):
    """Hook into PPO (kickstarting implements it; it may also have ``diagnostics(probs, targets)
    -> dict[str, float]``, logged per epoch)."""

    def start_epoch(self, epoch: int) -> dict[str, float]: ...

    def targets(self, obs: np.ndarray) -> np.ndarray: ...

    def loss(self, probs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor: ...


def make_vec_env(
    env_fn: Any, n_envs: int, max_episode_steps: int | None = None
) -> gym.vector.SyncVectorEnv:
    """``n_envs`` copies of ``env_fn()`` stepped in-process, reset in the same step they end;
    episodes truncated after ``max_episode_steps`` interactions if given (Spinning Up's
    ``max_ep_len``, on top of the environment's own limit)."""
    make = env_fn
    if max_episode_steps is not None:

        def make() -> gym.Env:
            return gym.wrappers.TimeLimit(env_fn(), max_episode_steps)

    return gym.vector.SyncVectorEnv(
        [make] * n_envs, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
    )


def discounted_cumsum(x: np.ndarray, factor: float, dones: np.ndarray) -> np.ndarray:
    """Backward ``y_t = x_t + factor * y_{t+1} * (1 - done_t)`` along axis 0 (time)."""
    y = np.zeros_like(x)
    running = np.zeros(x.shape[1:], dtype=x.dtype)
    for t in range(x.shape[0] - 1, -1, -1):
        running = x[t] + factor * running * (1.0 - dones[t])
        y[t] = running
    return y


def advantages_and_targets(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    last_value: np.ndarray,
    gamma: float,
    gae_lambda: float,
    value_targets: str = "gae",
) -> tuple[np.ndarray, np.ndarray]:
    r"""GAE advantages and value targets of one epoch, arrays (T, n_envs) in time order.

    ``rewards`` already include :math:`\gamma V(s_{\rm final})` where a time limit cut an episode;
    ``dones`` marks the last step of every episode; ``last_value`` is :math:`V(s_T)` after the
    epoch's last step (the bootstrap of a trajectory cut by the epoch). Advantages:
    :math:`A_t = \sum_l (\gamma\lambda)^l \delta_{t+l}`, :math:`\delta_t = r_t + \gamma V(s_{t+1})
    - V(s_t)`. Targets: ``"rewards-to-go"`` (Spinning Up's ``finish_path``:
    :math:`\hat R_t = r_t + \gamma \hat R_{t+1}`, with :math:`\hat R_T = V(s_T)`) or ``"gae"``
    (:math:`A_t + V(s_t)`).
    """
    check_choice(value_targets, "value_targets", ("gae", "rewards-to-go"))
    next_v = np.concatenate([values[1:], np.asarray(last_value, values.dtype)[None]], axis=0)
    deltas = rewards + gamma * next_v * (1.0 - dones) - values
    adv = discounted_cumsum(deltas, gamma * gae_lambda, dones)
    if value_targets == "gae":
        return adv, adv + values
    tail = rewards.copy()
    tail[-1] += gamma * np.asarray(last_value, rewards.dtype) * (1.0 - dones[-1])
    return adv, discounted_cumsum(tail, gamma, dones)


def _aux_diagnostics(
    aux: Auxiliary,
    agent: ActorCritic,
    logp_all: torch.Tensor,
    targets: torch.Tensor,
    surrogate: torch.Tensor,
    extra: torch.Tensor,
) -> dict[str, float]:
    """The auxiliary term's share of the policy-gradient norm and its own ``diagnostics``."""
    params = list(agent.pi.parameters())

    def norm(term: torch.Tensor) -> float:
        if not term.requires_grad:
            return 0.0
        grads = torch.autograd.grad(term, params, retain_graph=True, allow_unused=True)
        return float(
            torch.sqrt(cast(torch.Tensor, sum((g**2).sum() for g in grads if g is not None)))
        )

    g_aux, g_clip = norm(extra), norm(surrogate)
    out = {"aux_grad_share": g_aux / (g_aux + g_clip) if g_aux + g_clip > 0 else 0.0}
    hook = getattr(aux, "diagnostics", None)
    if hook is not None:
        out |= hook(logp_all.exp(), targets)
    return out


def train_ppo(
    env_fn: Any,
    epochs: int,
    rng: SeedLike,
    config: PPOConfig = PPOConfig(),
    aux: Auxiliary | None = None,
    progress: bool = False,
    num_threads: int | None = 1,
    callback: Callable[[ActorCritic, dict[str, Any]], None] | None = None,
) -> tuple[ActorCritic, pd.DataFrame]:
    """Train PPO for ``epochs`` epochs; return the agent and a per-epoch log (tidy rows: epoch,
    env steps so far, mean/count of returns of episodes finished in the epoch, losses, KL, the
    auxiliary's own columns, wall time). ``num_threads`` sets torch's intra-op threads (1: small
    MLPs run fastest single-threaded and parallel seeds use the other cores; None: leave as is).
    ``callback(agent, row)`` is called after every epoch with that epoch's log row (e.g. to keep
    a checkpoint)."""
    epochs = check_int(epochs, "epochs", minimum=1)
    if num_threads is not None:
        torch.set_num_threads(check_int(num_threads, "num_threads", minimum=1))
    rng = as_generator(rng)
    torch_gen_seed = int(rng.integers(2**62))
    torch.manual_seed(torch_gen_seed)
    envs = make_vec_env(env_fn, config.n_envs, config.max_episode_steps)
    obs_dim = int(np.prod(cast(tuple[int, ...], envs.single_observation_space.shape)))
    n_actions = int(cast(spaces.Discrete, envs.single_action_space).n)
    agent = ActorCritic(obs_dim, n_actions, config.hidden_sizes)
    pi_opt = torch.optim.Adam(agent.pi.parameters(), lr=config.pi_lr, fused=True)
    v_opt = torch.optim.Adam(agent.v.parameters(), lr=config.vf_lr, fused=True)
    gen = torch.Generator().manual_seed(torch_gen_seed)
    n_t = config.steps_per_epoch // config.n_envs
    shape = (n_t, config.n_envs)
    obs_buf = np.zeros((*shape, obs_dim), dtype=np.float32)
    act_buf = np.zeros(shape, dtype=np.int64)
    rew_buf, val_buf, logp_buf, done_buf = (np.zeros(shape, dtype=np.float32) for _ in range(4))
    tgt_buf = np.zeros((*shape, n_actions), dtype=np.float32)
    obs, _ = envs.reset(seed=int(rng.integers(2**31)))
    ep_ret, ep_len = np.zeros(config.n_envs), np.zeros(config.n_envs, dtype=int)
    rows, t0, steps = [], time.perf_counter(), 0
    for epoch in tqdm(range(epochs), disable=not progress, desc="PPO epochs"):
        info_row = aux.start_epoch(epoch) if aux is not None else {}
        if config.reset_each_epoch and epoch > 0:  # Spinning Up: a new episode every epoch
            obs, _ = envs.reset(seed=int(rng.integers(2**31)))
            ep_ret[:], ep_len[:] = 0.0, 0
        finished: list[float] = []
        for t in range(n_t):
            obs_t = torch.as_tensor(obs, dtype=torch.float32).reshape(config.n_envs, -1)
            with torch.no_grad():
                logp_all = torch.log_softmax(agent.pi(obs_t), dim=-1)
                value = agent.v(obs_t).squeeze(-1)
                action = torch.multinomial(logp_all.exp(), 1, generator=gen).squeeze(-1)
            obs_buf[t], act_buf[t] = obs_t.numpy(), action.numpy()
            val_buf[t] = value.numpy()
            logp_buf[t] = logp_all.gather(1, action[:, None]).squeeze(1).numpy()
            if aux is not None:
                tgt_buf[t] = aux.targets(obs_buf[t])
            obs, reward, term, trunc, info = envs.step(action.numpy())
            reward = np.asarray(reward, dtype=np.float32)
            ep_ret += reward
            ep_len += 1
            done = term | trunc
            if np.any(trunc & ~term):  # bootstrap episodes cut by the time limit
                cut = np.flatnonzero(trunc & ~term)
                final = np.stack([info["final_obs"][i] for i in cut]).astype(np.float32)
                with torch.no_grad():
                    v_final = agent.v(torch.as_tensor(final).reshape(len(cut), -1)).squeeze(-1)
                reward = reward.copy()
                reward[cut] += config.gamma * v_final.numpy()
            rew_buf[t], done_buf[t] = reward, done
            finished.extend(ep_ret[done].tolist())
            ep_ret[done], ep_len[done] = 0.0, 0
        steps += config.steps_per_epoch
        with torch.no_grad():
            last_v = agent.v(torch.as_tensor(obs, dtype=torch.float32).reshape(config.n_envs, -1))
        adv, ret = advantages_and_targets(
            rew_buf,
            val_buf,
            done_buf,
            last_v.squeeze(-1).numpy(),
            config.gamma,
            config.gae_lambda,
            config.value_targets,
        )
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        b_obs = torch.as_tensor(obs_buf.reshape(-1, obs_dim))
        b_act = torch.as_tensor(act_buf.reshape(-1))
        b_adv, b_ret = torch.as_tensor(adv.reshape(-1)), torch.as_tensor(ret.reshape(-1))
        b_logp = torch.as_tensor(logp_buf.reshape(-1))
        b_tgt = torch.as_tensor(tgt_buf.reshape(-1, n_actions))
        kl, pi_iters, aux_loss = 0.0, 0, 0.0
        # policy and value networks are disjoint, so one backward pass of loss_pi + loss_v gives
        # each optimiser exactly its own gradient (same updates as two separate loops, half the
        # passes); the policy stops early on KL, the value function keeps its train_v_iters
        kl, pi_iters, aux_loss, pi_on = 0.0, 0, 0.0, config.train_pi_iters > 0
        diag: dict[str, float] = {"entropy": np.nan}
        for it in range(max(config.train_pi_iters, config.train_v_iters)):
            pi_on = pi_on and it < config.train_pi_iters
            v_on = it < config.train_v_iters
            loss = torch.zeros(())
            if pi_on:
                logp_all = torch.log_softmax(agent.pi(b_obs), dim=-1)
                logp = logp_all.gather(1, b_act[:, None]).squeeze(1)
                ratio = torch.exp(logp - b_logp)
                clipped = torch.clamp(ratio, 1 - config.clip_ratio, 1 + config.clip_ratio) * b_adv
                loss_pi = -torch.min(ratio * b_adv, clipped).mean()
                kl = float((b_logp - logp.detach()).mean())
                pi_on = kl <= 1.5 * config.target_kl
            if pi_on:
                if it == 0:
                    diag["entropy"] = float(-(logp_all.exp() * logp_all).sum(-1).mean().detach())
                if aux is not None:
                    extra = aux.loss(logp_all.exp(), b_tgt)
                    aux_loss = float(extra.detach())
                    if it == 0:
                        diag |= _aux_diagnostics(aux, agent, logp_all, b_tgt, loss_pi, extra)
                    loss_pi = loss_pi + extra
                loss = loss + loss_pi
                pi_opt.zero_grad()
                pi_iters += 1
            if v_on:
                loss_v = ((agent.v(b_obs).squeeze(-1) - b_ret) ** 2).mean()
                loss = loss + loss_v
                v_opt.zero_grad()
            if not (pi_on or v_on):
                break
            loss.backward()
            if pi_on:
                pi_opt.step()
            if v_on:
                v_opt.step()
        rows.append(
            {
                "epoch": epoch,
                "env_steps": steps,
                "avg_return": float(np.mean(finished)) if finished else np.nan,
                "n_episodes": len(finished),
                "kl": kl,
                "pi_iters": pi_iters,
                "loss_v": float(loss_v.detach()) if config.train_v_iters else np.nan,
                "aux_loss": aux_loss,
                **diag,
                "wall_time": time.perf_counter() - t0,
                **info_row,
            }
        )
        if callback is not None:
            callback(agent, rows[-1])
    envs.close()
    return agent, pd.DataFrame(rows)
