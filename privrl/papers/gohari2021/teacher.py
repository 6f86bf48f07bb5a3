"""Gohari et al. (2021): the teachers. Committed (64, 64) PPO policy networks (CartPole-v1 and
AirRaid RAM) in ``privrl/data/gohari2021/``, their certified and observed Lipschitz constants,
play with a policy or at random, and the training command's best-checkpoint rule."""

from __future__ import annotations

import functools
import math
from collections import deque
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd
import torch

from privrl.core.accounting import dirichlet as acc
from privrl.core.algorithms.ppo import ActorCritic, PPOConfig, train_ppo
from privrl.core.envs.atari import make_env
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_choice, check_int

DATA = "gohari2021"


def teacher_path(env: str) -> Path:
    """Where the committed teacher of ``env`` lives."""
    return Path(str(resources.files("privrl") / "data" / DATA / f"{env}_teacher.npz"))


def save_agent(agent: ActorCritic, path: Path, **meta: Any) -> None:
    """Save the policy network (weights and biases) and metadata to a small ``.npz``."""
    arrays = {f"pi.{k}": v.numpy() for k, v in agent.pi.state_dict().items()}
    arrays |= {f"meta.{k}": np.asarray(v) for k, v in meta.items()}
    np.savez_compressed(path, **arrays)


def load_teacher(env: str) -> tuple[ActorCritic, dict[str, Any]]:
    """The committed teacher of ``env`` (policy network only) and its metadata."""
    path = teacher_path(env)
    if not path.exists():
        raise ValueError(
            f"no teacher for env {env!r} at {path}; train one with "
            f"`python -m privrl.papers.gohari2021.chapter train-teacher --env {env}`"
        )
    with np.load(path) as z:
        meta = {k[5:]: z[k].item() if z[k].ndim == 0 else z[k] for k in z.files if k[:5] == "meta."}
        state = {k[3:]: torch.as_tensor(z[k]) for k in z.files if k[:3] == "pi."}
    hidden = tuple(int(h) for h in np.atleast_1d(meta["hidden_sizes"]))
    agent = ActorCritic(int(meta["obs_dim"]), int(meta["n_actions"]), hidden)
    agent.pi.load_state_dict(state)
    return agent, meta


def teacher_lipschitz(teacher: ActorCritic, eta: float) -> float:
    r"""Certified L of :math:`f = (1 - m\eta)\,\mathrm{softmax}(\text{net}) + \eta`: tanh (1), softmax
    (1/2), product of spectral norms, times :math:`1 - m\eta`."""
    m = int(teacher.pi[-1].out_features)
    return (1.0 - m * eta) * acc.mlp_lipschitz_bound(teacher.policy_weights())


def teacher_lipschitz_lower_bound(
    teacher: ActorCritic, eta: float, observations: np.ndarray
) -> float:
    r"""Largest spectral norm of the Jacobian of :math:`f = (1 - m\eta)\,\mathrm{softmax}(\text{net})
    + \eta` over ``observations`` (n, d): a *lower* bound on the Lipschitz constant (no local slope
    exceeds it), to show how loose the certified bound of :func:`teacher_lipschitz` is.

    The chain rule through the tanh MLP :math:`z_1 = W_1 x + b_1`, :math:`h_i = \tanh z_i`,
    :math:`z_{i+1} = W_{i+1} h_i + b_{i+1}`, :math:`p = \mathrm{softmax}(z_L)`, in float64:
    :math:`J = (1 - m\eta)(\mathrm{diag}(p) - p p^\top) W_L \prod_i \mathrm{diag}(1 - h_i^2)
    W_i`."""
    x = np.asarray(observations, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != teacher.pi[0].in_features or len(x) == 0:
        raise ValueError(
            f"observations must have shape (n, {teacher.pi[0].in_features}), got {x.shape}"
        )
    linear = [m for m in teacher.pi if isinstance(m, torch.nn.Linear)]
    weights = [m.weight.detach().double().numpy() for m in linear]
    biases = [m.bias.detach().double().numpy() for m in linear]
    z = x @ weights[0].T + biases[0]
    jac = np.broadcast_to(weights[0], (len(x), *weights[0].shape))
    for w, b in zip(weights[1:], biases[1:], strict=True):
        h = np.tanh(z)
        jac = np.einsum("oh,nhd->nod", w, (1.0 - h**2)[:, :, None] * jac)
        z = h @ w.T + b
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    m = len(biases[-1])
    softmax = p[:, :, None] * np.eye(m) - p[:, :, None] * p[:, None, :]
    jac = (1.0 - m * eta) * np.einsum("nok,nkd->nod", softmax, jac)
    return float(np.linalg.norm(jac, ord=2, axis=(1, 2)).max())


def play(
    env: str,
    agent: ActorCritic | None,
    n_episodes: int,
    rng: SeedLike,
    max_episode_steps: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n_episodes`` episodes of ``env`` (cut after ``max_episode_steps`` interactions if
    given, as in training) with the agent's stochastic policy (``None``: uniformly random
    actions). Returns the episodes' returns and every observation seen."""
    n_episodes = check_int(n_episodes, "n_episodes", minimum=1)
    rng = as_generator(rng)
    e = make_env(env)
    if max_episode_steps is not None:
        e = gym.wrappers.TimeLimit(e, check_int(max_episode_steps, "max_episode_steps", minimum=1))
    returns, seen = [], []
    for _ in range(n_episodes):
        obs, _ = e.reset(seed=int(rng.integers(2**31)))
        total, done = 0.0, False
        while not done:
            seen.append(np.asarray(obs, dtype=np.float32).ravel())
            if agent is None:
                action = int(rng.integers(e.action_space.n))
            else:
                with torch.no_grad():
                    p = agent.probs(torch.as_tensor(seen[-1])).numpy().astype(float)
                action = int(rng.choice(len(p), p=p / p.sum()))
            obs, reward, term, trunc, _ = e.step(action)
            total += float(reward)
            done = term or trunc
        returns.append(total)
    e.close()
    return np.asarray(returns), np.stack(seen)


class BestCheckpoint:
    """PPO callback keeping the policy whose average return over the episodes finished in the last
    ``window`` roll-outs is the highest so far (from roll-out ``window`` on)."""

    def __init__(self, window: int = 100) -> None:
        self.window = check_int(window, "window", minimum=1)
        self.recent: deque[tuple[float, int]] = deque(maxlen=self.window)
        self.best_return = -math.inf
        self.best_epoch = -1
        self.state: dict[str, torch.Tensor] | None = None

    def __call__(self, agent: ActorCritic, row: dict[str, Any]) -> None:
        n = int(row["n_episodes"])
        self.recent.append((float(row["avg_return"]) * n if n else 0.0, n))
        episodes = sum(c for _, c in self.recent)
        if len(self.recent) < self.window or episodes == 0:
            return
        mean = sum(t for t, _ in self.recent) / episodes
        if mean > self.best_return:
            self.best_return, self.best_epoch = mean, int(row["epoch"])
            self.state = {k: v.detach().clone() for k, v in agent.pi.state_dict().items()}


def train_teacher(
    env: str,
    epochs: int,
    rng: SeedLike,
    hidden: int = 64,
    steps_per_epoch: int = 1000,
    keep: str = "best",
    window: int = 100,
    progress: bool = True,
) -> pd.DataFrame:
    """Train a (hidden, hidden) PPO teacher on ``env`` and save it to :func:`teacher_path`.

    ``keep="best"`` saves the policy of the best ``window``-roll-out average return seen in
    training (:class:`BestCheckpoint`; PPO with Spinning Up's constant learning rates can fall off
    after its peak), ``"last"`` the final one. The learning curve is saved with it."""
    check_choice(keep, "keep", ("best", "last"))
    cfg = PPOConfig(hidden_sizes=(hidden, hidden), steps_per_epoch=steps_per_epoch, n_envs=4)
    best = BestCheckpoint(window)
    agent, log = train_ppo(
        functools.partial(make_env, env),
        epochs,
        rng,
        cfg,
        progress=progress,
        callback=best,
    )
    kept_epoch = epochs - 1
    if keep == "best" and best.state is not None:
        agent.pi.load_state_dict(best.state)
        kept_epoch = best.best_epoch
    probe = make_env(env)
    save_agent(
        agent,
        teacher_path(env),
        hidden_sizes=np.array([hidden, hidden]),
        obs_dim=int(math.prod(probe.observation_space.shape)),
        n_actions=int(probe.action_space.n),
        env=env,
        epochs=epochs,
        steps_per_epoch=steps_per_epoch,
        keep=keep,
        kept_epoch=kept_epoch,
        kept_window_return=best.best_return if keep == "best" else math.nan,
        train_seconds=float(log["wall_time"].iloc[-1]),
        final_avg_return=float(log["avg_return"].tail(window).mean()),
        curve_env_steps=log["env_steps"].to_numpy(np.int64),
        curve_avg_return=log["avg_return"].to_numpy(np.float32),
        curve_n_episodes=log["n_episodes"].to_numpy(np.int32),
    )
    return log
