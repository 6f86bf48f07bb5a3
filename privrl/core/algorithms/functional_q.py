r"""Deep Q-learning with functional noise (Wang and Hegde 2019, Algorithm 1) and its baselines.

The learner is the authors' DQN (``dpql.py``): MLP 1-16-16-2, RMSprop, replay memory 10,000,
batches of 128, :math:`\gamma = 0.999`, :math:`\epsilon`-greedy :math:`0.05 + 0.85 e^{-t/200}`,
a step per environment step, gradients clamped to :math:`[-1, 1]`, target copied every 10
episodes. Privacy is one config object per method:

* :class:`FunctionalNoiseConfig` (``gp_sigma``, ``gp_beta``): every Q output perturbed by one
  Gaussian-process path per action, :math:`\tilde Q(s, a) = Q_\theta(s, a) + \hat g_a(s)`
  (lines 11, 20), target :math:`y = r + \gamma \max_a (Q_{\theta^-}(s', a) + \hat g^-_a(s'))`
  (line 19); by default the target's own path, both redrawn every episode (the authors'
  protocol; :data:`EARLIER_READING`: one shared path redrawn every ``reset_every_updates``;
  ``path_reset="never"``: :math:`J = 1`);
* :class:`OutputPerturbation` (``output_std``): i.i.d. Gaussian noise on each Q output;
* :class:`InputPerturbation` (``reward_std``): :math:`r + N(0, \mathtt{reward\_std}^2)`;
* :class:`DPSGDConfig`: Poisson batches, per-sample clip, noise ``noise_multiplier * clip``;
* :class:`NoPrivacy`: plain DQN.

A run reports per episode the training return (acting on the noisy :math:`Q + g`, Figure 1) and
the evaluation return of the released function on fixed evaluation episodes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import ClassVar, Literal, cast

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm import tqdm

from privrl.core.envs.line import HORIZON, BatchedLineEnv
from privrl.core.mechanisms.gaussian_process import FunctionalNoise
from privrl.core.rng import SeedLike, as_generator, torch_generator
from privrl.core.validation import check_choice, check_int, check_nonnegative, check_positive


def q_network(hidden: int = 16, n_actions: int = 2) -> nn.Sequential:
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
    n_releases: int | None = None,
) -> list[torch.Tensor]:
    """DP-SGD step direction (Abadi et al. 2016): clip each sample's full gradient to ``clip``,
    sum, add :math:`N(0, (z \\cdot clip)^2)` per coordinate, divide by the expected batch size.

    ``n_releases`` (default ``None``: one release) draws the noise of that many independent
    releases of the same clipped sum in one call: each returned tensor gets a leading axis of
    that size (the Audits chapter repeats one step ``10^5`` times this way)."""
    n = grads[0].shape[0]
    sq = cast(torch.Tensor, sum(g.reshape(n, -1).pow(2).sum(1) for g in grads))
    scale = torch.clamp(clip / (torch.sqrt(sq) + 1e-12), max=1.0)
    batch = () if n_releases is None else (n_releases,)
    out = []
    for g in grads:
        total = torch.einsum("n,n...->...", scale, g)
        noise = noise_multiplier * clip * torch.randn((*batch, *total.shape), generator=generator)
        out.append((total + noise) / batch_size)
    return out


@dataclass(frozen=True)
class NoPrivacy:
    """Plain DQN (the non-private reference)."""

    method: ClassVar[str] = "none"


@dataclass(frozen=True)
class FunctionalNoiseConfig:
    """Algorithm 1's functional noise: amplitude ``gp_sigma``, kernel bandwidth ``gp_beta``.

    ``target_path``: ``"independent"`` (authors' code: the target network has its own path) or
    ``"shared"`` (one path for both networks). ``path_reset``: ``"episode"`` (authors' code: both
    paths redrawn at the start of every episode, :math:`J` = episodes), ``"updates"`` (every
    ``reset_every_updates`` gradient steps) or ``"never"`` (:math:`J = 1`).
    """

    gp_sigma: float
    gp_beta: float = 1.0
    target_path: Literal["independent", "shared"] = "independent"
    path_reset: Literal["episode", "updates", "never"] = "episode"
    reset_every_updates: int = 1
    method: ClassVar[str] = "functional"

    def __post_init__(self) -> None:
        object.__setattr__(self, "gp_sigma", check_nonnegative(self.gp_sigma, "gp_sigma"))
        object.__setattr__(self, "gp_beta", check_positive(self.gp_beta, "gp_beta"))
        check_choice(self.target_path, "target_path", ("independent", "shared"))
        check_choice(self.path_reset, "path_reset", ("episode", "updates", "never"))
        check_int(self.reset_every_updates, "reset_every_updates", minimum=1)

    @property
    def paths_per_draw(self) -> int:
        """Sample paths drawn at each reset: one per action, for each network with its own path."""
        return 2 * (2 if self.target_path == "independent" else 1)


def earlier_reading(
    gp_sigma: float, gp_beta: float = 1.0, resample: bool = True
) -> FunctionalNoiseConfig:
    """A reading of Algorithm 1 other than the authors' protocol: one path shared by the policy
    and target networks, redrawn every gradient step (``resample``) or never."""
    return FunctionalNoiseConfig(
        gp_sigma, gp_beta, target_path="shared", path_reset="updates" if resample else "never"
    )


@dataclass(frozen=True)
class _GaussianPerturbation:
    """A baseline that adds i.i.d. Gaussian noise of one standard deviation, its subclass's only
    field, checked non-negative."""

    def __post_init__(self) -> None:
        (std,) = fields(self)
        object.__setattr__(self, std.name, check_nonnegative(getattr(self, std.name), std.name))


@dataclass(frozen=True)
class OutputPerturbation(_GaussianPerturbation):
    """i.i.d. Gaussian noise of standard deviation ``output_std`` on every Q output."""

    output_std: float
    method: ClassVar[str] = "output"


@dataclass(frozen=True)
class InputPerturbation(_GaussianPerturbation):
    """Gaussian noise of standard deviation ``reward_std`` on every observed reward."""

    reward_std: float
    method: ClassVar[str] = "input"


@dataclass(frozen=True)
class DPSGDConfig:
    """DP-SGD: noise multiplier ``noise_multiplier``, clip norm ``clip``, first step once the
    replay memory holds ``warmup`` transitions. ``sampling="poisson"``: batches Poisson-sampled at
    rate ``batch_size / len(replay)`` (per-transition amplification; the rates are recorded);
    ``"fixed"``: ``batch_size`` transitions without replacement (for the reward-function relation,
    where subsampling gives no amplification)."""

    noise_multiplier: float
    clip: float = 1.0
    warmup: int = 128
    sampling: Literal["poisson", "fixed"] = "poisson"
    method: ClassVar[str] = "dpsgd"

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "noise_multiplier", check_nonnegative(self.noise_multiplier, "noise_multiplier")
        )
        object.__setattr__(self, "clip", check_positive(self.clip, "clip"))
        check_int(self.warmup, "warmup", minimum=1)
        check_choice(self.sampling, "sampling", ("poisson", "fixed"))


PrivacyConfig = (
    NoPrivacy | FunctionalNoiseConfig | OutputPerturbation | InputPerturbation | DPSGDConfig
)


class _QNoise:
    """The noise a method adds to a (batch, actions) array of Q values at states ``s``."""

    def __init__(self, privacy: PrivacyConfig, rng: np.random.Generator, n_actions: int = 2):
        self.privacy, self.rng, self.n_actions = privacy, rng, n_actions
        self.paths = (
            FunctionalNoise(n_actions, privacy.gp_beta, privacy.gp_sigma, rng)
            if isinstance(privacy, FunctionalNoiseConfig)
            else None
        )

    def reset(self) -> None:
        if self.paths is not None:
            self.paths.reset()

    def values(self, s: np.ndarray) -> np.ndarray:
        """Noise at states ``s`` (shape ``(len(s), n_actions)``); zeros for noiseless methods."""
        p = self.privacy
        if isinstance(p, FunctionalNoiseConfig) and p.gp_sigma > 0 and self.paths is not None:
            return self.paths(s)
        if isinstance(p, OutputPerturbation) and p.output_std > 0:
            return p.output_std * self.rng.standard_normal((len(s), self.n_actions))
        return np.zeros((len(s), self.n_actions))


@dataclass
class TrainingRun:
    """One training run: per-episode ``curve`` (``episode, samples, train_return, eval_return``,
    ``dp_steps``, ``max_sampling_rate``), the trained network, the noise objects and the record of
    what happened (gradient ``updates``, env steps at which the paths were redrawn, DP-SGD's
    Poisson sampling rate of every step taken)."""

    curve: pd.DataFrame
    net: nn.Module
    policy_noise: _QNoise
    target_noise: _QNoise
    updates: int
    path_resets: list[int] = field(default_factory=list)
    sampling_rates: np.ndarray = field(default_factory=lambda: np.empty(0))


def evaluate_release(
    net: nn.Module,
    privacy: PrivacyConfig,
    eval_seed: int,
    n_episodes: int,
    noise_rng: np.random.Generator,
) -> float:
    """Mean undiscounted return of the released function acting greedily on fixed episodes.

    The episodes are fixed by ``eval_seed`` (same start states and step noise every call). The
    release is :math:`Q_\\theta` plus a fresh sample of the release noise (a new path for
    Algorithm 1, i.i.d. noise for output perturbation; none for the other methods).
    """
    env = BatchedLineEnv(n_episodes, np.random.default_rng(eval_seed))
    release = _QNoise(privacy, noise_rng)
    s = env.reset()
    total = np.zeros(n_episodes)
    for _ in range(HORIZON):
        with torch.no_grad():
            q = net(torch.tensor(s, dtype=torch.float32)[:, None]).numpy()
        s, r, _ = env.step(np.argmax(q + release.values(s), axis=1))
        total += r
    return float(total.mean())


def train_dqn(
    privacy: PrivacyConfig,
    rng: SeedLike,
    episodes: int = 100,
    lr: float = 1e-2,
    gamma: float = 0.999,
    batch_size: int = 128,
    replay_size: int = 10_000,
    target_every: int = 10,
    eval_episodes: int = 10,
    progress: bool = False,
) -> TrainingRun:
    """Train one agent on the continuous line MDP (see the module docstring for the protocol).

    Gradient steps start once the memory holds ``batch_size`` transitions (DP-SGD: ``warmup``).
    """
    if not isinstance(
        privacy,
        NoPrivacy | FunctionalNoiseConfig | OutputPerturbation | InputPerturbation | DPSGDConfig,
    ):
        raise ValueError(f"privacy must be one of the method configs, got {privacy!r}")
    episodes = check_int(episodes, "episodes", minimum=1)
    lr = check_positive(lr, "lr")
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    replay_size = check_int(replay_size, "replay_size", minimum=batch_size)
    eval_episodes = check_int(eval_episodes, "eval_episodes", minimum=1)
    gen = as_generator(rng)
    torch.manual_seed(int(gen.integers(2**31)))  # network initialisation
    tgen = torch_generator(gen)
    eval_seed = int(gen.integers(2**63))
    policy_rng, target_rng, release_rng = gen.spawn(3)
    net, target = q_network(), q_network()
    target.load_state_dict(net.state_dict())
    opt = torch.optim.RMSprop(net.parameters(), lr=lr)
    policy_noise = _QNoise(privacy, policy_rng)
    fn_cfg = privacy if isinstance(privacy, FunctionalNoiseConfig) else None
    dp_cfg = privacy if isinstance(privacy, DPSGDConfig) else None
    functional = fn_cfg is not None
    shared = fn_cfg is not None and fn_cfg.target_path == "shared"
    target_noise = policy_noise if shared or not functional else _QNoise(privacy, target_rng)
    first_step = max(batch_size, dp_cfg.warmup) if dp_cfg is not None else batch_size
    reward_std = privacy.reward_std if isinstance(privacy, InputPerturbation) else 0.0
    env = BatchedLineEnv(1, gen)
    mem_s, mem_r, mem_s2, mem_done = (np.zeros(replay_size) for _ in range(4))
    mem_a = np.zeros(replay_size, dtype=np.int64)
    n_mem, step, updates = 0, 0, 0
    resets: list[int] = []
    rates: list[float] = []
    rows = []

    def reset_paths() -> None:
        if functional:
            policy_noise.reset()
            target_noise.reset()
            resets.append(step)

    for episode in tqdm(range(episodes), disable=not progress, desc=type(privacy).__name__):
        if fn_cfg is not None and fn_cfg.path_reset == "episode":
            reset_paths()
        s = env.reset()
        total, dp_steps, max_rate = 0.0, 0, 0.0
        for _ in range(HORIZON):
            if (
                fn_cfg is not None
                and fn_cfg.path_reset == "updates"
                and updates % fn_cfg.reset_every_updates == 0
            ):
                reset_paths()
            if gen.random() < epsilon_greedy_threshold(step):
                a = int(gen.integers(2))
            else:
                with torch.no_grad():
                    q = net(torch.tensor(s, dtype=torch.float32)[:, None]).numpy()
                a = int(np.argmax(q[0] + policy_noise.values(s)[0]))
            s2, r, over = env.step(np.array([a]))
            total += float(r[0])
            i = n_mem % replay_size
            mem_s[i], mem_a[i], mem_s2[i], mem_done[i] = s[0], a, s2[0], float(over)
            mem_r[i] = r[0] + (reward_std * gen.standard_normal() if reward_std > 0 else 0.0)
            n_mem += 1
            s = s2
            step += 1
            size = min(n_mem, replay_size)
            if size < first_step:
                continue
            if dp_cfg is not None and dp_cfg.sampling == "poisson":
                rates.append(batch_size / size)
                dp_steps += 1
                max_rate = max(max_rate, batch_size / size)
                idx = np.flatnonzero(gen.random(size) < batch_size / size)
                if len(idx) == 0:
                    continue
            else:
                idx = gen.choice(size, batch_size, replace=False)
            bs, bs2 = mem_s[idx], mem_s2[idx]
            ts = torch.tensor(bs, dtype=torch.float32)[:, None]
            ta = torch.as_tensor(mem_a[idx])
            if shared:  # one sorted batch for s and s' on the same paths (Prop. 9)
                g_all = policy_noise.values(np.concatenate([bs, bs2]))
                g_s, g_s2 = g_all[: len(idx)], g_all[len(idx) :]
            else:
                g_s, g_s2 = policy_noise.values(bs), target_noise.values(bs2)
            t_s = torch.as_tensor(g_s, dtype=torch.float32)
            t_s2 = torch.as_tensor(g_s2, dtype=torch.float32)
            with torch.no_grad():
                q_next = (
                    (target(torch.tensor(bs2, dtype=torch.float32)[:, None]) + t_s2).max(1).values
                )
                y = torch.tensor(mem_r[idx], dtype=torch.float32) + gamma * q_next * torch.tensor(
                    1.0 - mem_done[idx], dtype=torch.float32
                )
            opt.zero_grad()
            if dp_cfg is not None:
                noisy = dpsgd_gradient(
                    per_sample_gradients(net, ts, ta, y),
                    dp_cfg.clip,
                    dp_cfg.noise_multiplier,
                    batch_size,
                    tgen,
                )
                for p, g in zip(net.parameters(), noisy, strict=True):
                    p.grad = g
            else:
                q_pred = (net(ts) + t_s).gather(1, ta[:, None])[:, 0]
                nn.functional.smooth_l1_loss(q_pred, y).backward()
                for p in net.parameters():
                    cast(torch.Tensor, p.grad).clamp_(-1.0, 1.0)
            opt.step()
            updates += 1
        if episode % target_every == 0:
            target.load_state_dict(net.state_dict())
        rows.append(
            {
                "episode": episode,
                "samples": (episode + 1) * HORIZON,
                "train_return": total,
                "eval_return": evaluate_release(
                    net, privacy, eval_seed, eval_episodes, release_rng
                ),
                "dp_steps": dp_steps,
                "max_sampling_rate": max_rate,
            }
        )
    return TrainingRun(
        pd.DataFrame(rows), net, policy_noise, target_noise, updates, resets, np.array(rates)
    )
