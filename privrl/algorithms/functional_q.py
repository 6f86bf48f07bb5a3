r"""Deep Q-learning with functional noise (Wang and Hegde 2019, Algorithm 1) and its baselines.

The learner is the DQN of the authors' code: MLP 1-16-16-2 (ReLU), RMSprop, replay memory of
10,000 transitions, batches of 128, :math:`\gamma = 0.999`, :math:`\epsilon`-greedy exploration
:math:`0.05 + 0.85 e^{-t/200}`, target network copied every 10 episodes, Huber loss, one
gradient step per environment step. ``method`` selects how privacy enters:

``"functional"`` (Algorithm 1)
    every Q output is perturbed by a Gaussian-process sample path, one independent path per action:
    :math:`\tilde Q(s, a) = Q_\theta(s, a) + \hat g_a(s)` when acting (line 11), in the TD target
    :math:`y = r + \gamma \max_a (Q_{\theta^-}(s', a) + \hat g_a(s'))` (line 19) and in the
    prediction :math:`Q_\theta(s, a) + \hat g_a(s)` (line 20). The paths are resampled every
    ``resample_every`` gradient steps (``None``: never, :math:`J = 1`; ``1``: every round,
    :math:`J = T/B`).
``"output"`` (Balle et al. 2016 style output perturbation)
    i.i.d. Gaussian noise of standard deviation ``sigma`` on each Q output, wherever it is used.
``"input"`` (Venkitasubramaniam 2013)
    every observed reward is replaced by ``r + N(0, sigma^2)`` before it enters the replay memory.
``"dpsgd"`` (Abadi et al. 2016)
    Poisson-sampled batches (rate ``batch_size / len(replay)``), per-sample gradients clipped to
    ``clip``, Gaussian noise ``sigma * clip`` added to their sum, divided by ``batch_size``.
``"none"``
    plain DQN.

The calibrations of ``sigma`` are in :mod:`privrl.accounting.functional_noise`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm import tqdm

from privrl.envs.line import HORIZON, BatchedLineEnv
from privrl.mechanisms.gaussian_process import FunctionalNoise
from privrl.rng import SeedLike, as_generator, torch_generator
from privrl.validation import check_choice, check_int, check_nonnegative, check_positive

METHODS = ("none", "functional", "output", "input", "dpsgd")


def q_network(hidden: int = 16, n_actions: int = 2) -> nn.Module:
    """The MLP 1-16-16-2 with ReLU activations of the authors' DQN."""
    return nn.Sequential(
        nn.Linear(1, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, n_actions),
    )


def epsilon_greedy_threshold(
    step: int, start: float = 0.9, end: float = 0.05, decay: float = 200.0
) -> float:
    """Exploration rate :math:`\\epsilon_t = 0.05 + 0.85 e^{-t/200}`."""
    return end + (start - end) * math.exp(-step / decay)


def per_sample_gradients(
    net: nn.Sequential, s: torch.Tensor, a: torch.Tensor, y: torch.Tensor
) -> list[torch.Tensor]:
    """Per-sample gradients of the Huber loss :math:`h(Q_\\theta(s_i, a_i) - y_i)` for the 3-layer MLP.

    Back-propagation written out (one outer product per layer), in the order of
    ``net.parameters()``; each tensor has a leading batch dimension. Tested against autograd.
    """
    w1, b1, w2, b2, w3, b3 = (p.detach() for p in net.parameters())
    h1 = torch.relu(s @ w1.T + b1)
    h2 = torch.relu(h1 @ w2.T + b2)
    q = h2 @ w3.T + b3
    diff = q.gather(1, a[:, None])[:, 0] - y
    dq = torch.zeros_like(q).scatter_(1, a[:, None], diff.clamp(-1.0, 1.0)[:, None])
    dh2 = (dq @ w3) * (h2 > 0)
    dh1 = (dh2 @ w2) * (h1 > 0)
    outer = lambda u, v: u[:, :, None] * v[:, None, :]  # noqa: E731
    return [outer(dh1, s), dh1, outer(dh2, h1), dh2, outer(dq, h2), dq]


def dpsgd_gradient(
    grads: list[torch.Tensor],
    clip: float,
    noise_multiplier: float,
    batch_size: int,
    generator: torch.Generator,
) -> list[torch.Tensor]:
    """DP-SGD step direction (Abadi et al. 2016): clip each sample's full gradient to ``clip``,
    sum, add :math:`N(0, (z \\cdot clip)^2)` per coordinate, divide by the expected batch size."""
    n = grads[0].shape[0]
    sq = sum(g.reshape(n, -1).pow(2).sum(1) for g in grads)
    scale = torch.clamp(clip / (torch.sqrt(sq) + 1e-12), max=1.0)
    out = []
    for g in grads:
        total = torch.einsum("n,n...->...", scale, g)
        noise = noise_multiplier * clip * torch.randn(total.shape, generator=generator)
        out.append((total + noise) / batch_size)
    return out


class _Noise:
    """Adds the method's noise to a (batch, actions) tensor of Q values at states ``s``."""

    def __init__(
        self, method: str, sigma: float, beta: float, n_actions: int, rng: np.random.Generator
    ):
        self.method, self.sigma, self.rng = method, sigma, rng
        self.paths = (
            FunctionalNoise(n_actions, beta, sigma, rng) if method == "functional" else None
        )

    def reset(self) -> None:
        if self.paths is not None:
            self.paths.reset()

    def values(self, s: np.ndarray, n_actions: int = 2) -> np.ndarray:
        """Noise at states ``s`` (shape ``(len(s), n_actions)``); zeros for noiseless methods."""
        if self.method == "functional" and self.sigma > 0:
            return self.paths(s)
        if self.method == "output" and self.sigma > 0:
            return self.sigma * self.rng.standard_normal((len(s), n_actions))
        return np.zeros((len(s), n_actions))


def train_dqn(
    method: str,
    sigma: float,
    rng: SeedLike,
    episodes: int = 100,
    beta: float = 1.0,
    resample_every: int | None = None,
    lr: float = 1e-2,
    gamma: float = 0.999,
    batch_size: int = 128,
    replay_size: int = 10_000,
    target_every: int = 10,
    clip: float = 1.0,
    warmup: int | None = None,
    progress: bool = False,
) -> tuple[pd.DataFrame, nn.Module, _Noise]:
    """Train one agent on the continuous line MDP; return per-episode returns, the net and its noise.

    Gradient steps start once the memory holds ``max(batch_size, warmup)`` transitions. The frame
    has columns ``episode, samples, return`` (``samples`` = transitions seen so far,
    50 per episode; ``return`` = undiscounted true reward of the training episode).
    """
    method = check_choice(method, "method", METHODS)
    sigma = check_nonnegative(sigma, "sigma")
    episodes = check_int(episodes, "episodes", minimum=1)
    beta = check_positive(beta, "beta")
    if resample_every is not None:
        resample_every = check_int(resample_every, "resample_every", minimum=1)
    gen = as_generator(rng)
    torch.manual_seed(int(gen.integers(2**31)))  # network initialisation
    tgen = torch_generator(gen)
    net = q_network()
    target = q_network()
    target.load_state_dict(net.state_dict())
    opt = torch.optim.RMSprop(net.parameters(), lr=lr)
    noise = _Noise(method, sigma, beta, 2, gen)
    env = BatchedLineEnv(1, gen)
    mem_s = np.zeros(replay_size)
    mem_a = np.zeros(replay_size, dtype=np.int64)
    mem_r = np.zeros(replay_size)
    mem_s2 = np.zeros(replay_size)
    mem_done = np.zeros(replay_size)
    n_mem, step, updates = 0, 0, 0
    rows = []
    for episode in tqdm(range(episodes), disable=not progress, desc=f"{method} sigma={sigma}"):
        s = env.reset()
        total = 0.0
        for _ in range(HORIZON):
            if resample_every is not None and updates % resample_every == 0:
                noise.reset()
            if gen.random() < epsilon_greedy_threshold(step):
                a = int(gen.integers(2))
            else:
                with torch.no_grad():
                    q = net(torch.tensor(s, dtype=torch.float32)[:, None]).numpy()
                a = int(np.argmax(q[0] + noise.values(s)[0]))
            s2, r, over = env.step(np.array([a]))
            total += float(r[0])
            r_obs = r[0] + (sigma * gen.standard_normal() if method == "input" else 0.0)
            i = n_mem % replay_size
            mem_s[i], mem_a[i], mem_r[i], mem_s2[i], mem_done[i] = (
                s[0],
                a,
                r_obs,
                s2[0],
                float(over),
            )
            n_mem += 1
            s = s2
            step += 1
            size = min(n_mem, replay_size)
            if size < max(batch_size, warmup or 0):
                continue
            if method == "dpsgd":
                idx = np.flatnonzero(gen.random(size) < batch_size / size)
                if len(idx) == 0:
                    continue
            else:
                idx = gen.integers(0, size, batch_size)
            bs, bs2 = mem_s[idx], mem_s2[idx]
            ts = torch.tensor(bs, dtype=torch.float32)[:, None]
            ta = torch.as_tensor(mem_a[idx])
            # one query for s and s' together: a single sorted batch on the same paths (Prop. 9)
            g_all = torch.as_tensor(noise.values(np.concatenate([bs, bs2])), dtype=torch.float32)
            g_s, g_s2 = g_all[: len(idx)], g_all[len(idx) :]
            with torch.no_grad():
                q_next = (
                    (target(torch.tensor(bs2, dtype=torch.float32)[:, None]) + g_s2).max(1).values
                )
                y = torch.tensor(mem_r[idx], dtype=torch.float32) + gamma * q_next * torch.tensor(
                    1.0 - mem_done[idx], dtype=torch.float32
                )
            opt.zero_grad()
            if method == "dpsgd":
                noisy = dpsgd_gradient(
                    per_sample_gradients(net, ts, ta, y), clip, sigma, batch_size, tgen
                )
                for p, g in zip(net.parameters(), noisy, strict=True):
                    p.grad = g
            else:
                q_pred = (net(ts) + g_s).gather(1, ta[:, None])[:, 0]
                nn.functional.smooth_l1_loss(q_pred, y).backward()
            opt.step()
            updates += 1
        if (episode + 1) % target_every == 0:
            target.load_state_dict(net.state_dict())
        rows.append({"episode": episode, "samples": (episode + 1) * HORIZON, "return": total})
    return pd.DataFrame(rows), net, noise
