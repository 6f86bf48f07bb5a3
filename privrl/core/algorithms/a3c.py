"""PGC-A3C: locally private asynchronous advantage actor-critic (Ono and Takahashi 2020, Alg. 1).

Setting. A central aggregator holds global parameters ``theta`` (d = 112). Each agent copies
``theta``, runs ONE CartPole episode under its private gravity ``psi_n``, computes the gradient of
its empirical loss (eqs. 15-18), randomises it with an epsilon-LDP mechanism (Laplace, Alg. 2, or
PRS, Alg. 3) and submits it once. The aggregator stores submissions in a buffer ``B`` and, when
``|B|`` reach ``buffer_size``, applies ``theta <- theta - eta * mean(B)`` (eq. 22).

Network (section 4): two bias-free ReLU layers sharing the trunk ``theta_c`` (16 x 4):
``h = relu(theta_c s)``, ``pi(.|s) = softmax(theta_p h)`` (``theta_p`` 2 x 16),
``V(s) = theta_v h`` (``theta_v`` 1 x 16). The flat parameter vector is
``[theta_c.ravel(), theta_p.ravel(), theta_v.ravel()]``. Initialisation: Glorot uniform (the
TensorFlow 1.14 default for dense layers; the paper does not state it).

Loss of an episode of length ``T`` (eqs. 15-18), with ``lambda`` and ``beta`` as in the paper::

    L = sum_{t<T} [ -log pi(a_t|s_t) A_t  - beta H(pi(.|s_t))  + lambda (Vhat_t - V(s_t))^2 ]
    Vhat_t = sum_{j=t}^{T-1} gamma^{j-t} r_j + gamma^{T-t} V(s_T),   A_t = Vhat_t - V(s_t)

As in A3C, the advantage ``A_t`` and the target ``Vhat_t`` are constants for differentiation
(stop-gradient). ``V(s_T) = 0`` when the pole fell (terminal state; the paper's R gives 0 there)
and is bootstrapped when the episode was cut at 200 steps. Eq. (18) prints ``V(s_T)`` without the
factor ``gamma^{T-t}`` that eq. (12) has; we use eq. (12)'s discounted form in both.

Acting: with probability ``1 - alpha`` the greedy action ``argmax_a pi(a|s)`` (Algorithm 1), else
a uniformly random action, ``alpha = max(0, 0.5 - n/1800)`` for submission ``n``.

Asynchrony (9 threads in the paper), simulated deterministically in *waves*: the ``W`` workers
start together from the same snapshot of ``theta``; their submissions reach the aggregator in
worker order, so worker ``j`` of a wave computed its gradient on parameters that miss up to
``j <= W - 1 = 8`` of the submissions received before it. Everything is batched: all workers of
all trials of a run step their carts together and their gradients are computed analytically in
numpy (checked against torch autograd in ``tests/test_a3c.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from privrl.core.accounting.local import per_round_epsilon
from privrl.core.envs.cartpole import (
    FORCE_MAG,
    MAX_STEPS,
    TARGET_SCORE,
    is_terminal,
    reset_states,
    sample_gravities,
    step_rows,
)
from privrl.core.mechanisms.local import laplace_gradient_parts, projected_random_sign
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_choice, check_epsilon, check_int, check_positive

N_OBS, N_HIDDEN, N_ACTIONS = 4, 16, 2
_SIZES = (N_HIDDEN * N_OBS, N_ACTIONS * N_HIDDEN, N_HIDDEN)
D = sum(_SIZES)  # 112
DEFAULT_CLIP = {"laplace": 0.01, "prs": 1.0}


@dataclass(frozen=True)
class PGCA3CConfig:
    """Hyper-parameters of PGC-A3C; defaults are the paper's (section 4).

    Not the paper's, for labelled deviations only: ``clip = inf`` (no clipping, only without
    noise), ``action_selection = "sample"`` (``a ~ pi`` as in A3C) and ``optimizer = "adam"``
    (the aggregator applies Adam with step size ``eta`` to the mean of the buffer instead of
    eq. (22)'s ``theta <- theta - eta * mean(B)``).
    """

    mechanism: str = "laplace"
    epsilon: float = 1.0
    buffer_size: int = 1
    n_submissions: int = 90_000
    clip: float | None = None
    d_hat: int | None = None
    gamma: float = 0.99
    eta: float = 0.5
    lam: float = 0.5
    beta: float = 0.01
    n_workers: int = 9
    rounds: int = 1
    alpha0: float = 0.5
    alpha_decay: float = 1800.0
    window: int = 10
    target: float = TARGET_SCORE
    max_steps: int = MAX_STEPS
    stop_at_success: bool = True
    action_selection: str = "greedy"
    optimizer: str = "sgd"

    def __post_init__(self) -> None:
        check_choice(self.mechanism, "mechanism", ("laplace", "prs"))
        check_choice(self.action_selection, "action_selection", ("greedy", "sample"))
        check_choice(self.optimizer, "optimizer", ("sgd", "adam"))
        check_epsilon(self.epsilon, allow_inf=True)
        check_int(self.buffer_size, "buffer_size", minimum=1)
        check_int(self.n_submissions, "n_submissions", minimum=1)
        if self.clip is not None:
            check_positive(self.clip, "clip", allow_inf=True)
            if math.isinf(self.clip) and not math.isinf(self.epsilon):
                raise ValueError("clip = inf (no clipping) is only allowed with epsilon = inf")
        if self.d_hat is not None:
            check_int(self.d_hat, "d_hat", minimum=1)
        if not 0 < self.gamma <= 1:
            raise ValueError(f"gamma must lie in (0, 1], got {self.gamma}")
        check_positive(self.eta, "eta")
        check_int(self.n_workers, "n_workers", minimum=1)
        check_int(self.rounds, "rounds", minimum=1)
        check_int(self.window, "window", minimum=1)
        check_int(self.max_steps, "max_steps", minimum=1)

    @property
    def clip_value(self) -> float:
        """``C``: 0.01 for Laplace, 1 for PRS unless set."""
        return DEFAULT_CLIP[self.mechanism] if self.clip is None else float(self.clip)


def unpack(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split flat parameters (..., 112) into ``theta_c`` (..,16,4), ``theta_p`` (..,2,16), ``theta_v`` (..,1,16)."""
    a, b = _SIZES[0], _SIZES[0] + _SIZES[1]
    lead = theta.shape[:-1]
    return (
        theta[..., :a].reshape(*lead, N_HIDDEN, N_OBS),
        theta[..., a:b].reshape(*lead, N_ACTIONS, N_HIDDEN),
        theta[..., b:].reshape(*lead, 1, N_HIDDEN),
    )


def init_parameters(n: int, rng: SeedLike) -> np.ndarray:
    """``n`` Glorot-uniform parameter vectors, shape ``(n, 112)``."""
    gen = as_generator(rng)
    parts = []
    for fan_out, fan_in in ((N_HIDDEN, N_OBS), (N_ACTIONS, N_HIDDEN), (1, N_HIDDEN)):
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        parts.append(gen.uniform(-limit, limit, size=(n, fan_out * fan_in)))
    return np.concatenate(parts, axis=1)


def forward(
    theta: np.ndarray, obs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Batched network: ``theta`` (E, 112), ``obs`` (E, T, 4) -> ``pre, h, logits, v``."""
    wc, wp, wv = unpack(theta)
    pre = obs @ wc.transpose(0, 2, 1)
    h = np.maximum(pre, 0.0)
    logits = h @ wp.transpose(0, 2, 1)
    v = (h @ wv.transpose(0, 2, 1))[..., 0]
    return pre, h, logits, v


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    m = logits.max(axis=-1, keepdims=True)
    return logits - m - np.log(np.exp(logits - m).sum(axis=-1, keepdims=True))


def discounted_targets(
    rewards: np.ndarray, lengths: np.ndarray, v_last: np.ndarray, gamma: float
) -> np.ndarray:
    """Eq. (12): ``Vhat_t = sum_{j=t}^{L-1} gamma^{j-t} r_j + gamma^{L-t} V(s_L)`` for ``t < L``.

    ``rewards`` (E, T) with entries at ``t >= L`` ignored, ``lengths`` (E,), ``v_last`` (E,);
    zero at ``t >= L``. Computed as ``gamma^{-t}`` times a reversed cumulative sum of
    ``gamma^j r_j`` (``gamma^{-T} <= 0.99^{-200} < 8``: no loss of precision).
    """
    horizon = rewards.shape[1]
    t = np.arange(horizon)
    mask = t[None, :] < lengths[:, None]
    power = gamma ** t.astype(np.float64)
    weighted = np.where(mask, rewards, 0.0) * power
    tail = np.cumsum(weighted[:, ::-1], axis=1)[:, ::-1] / power
    target = tail + gamma ** (lengths[:, None] - t[None, :]) * v_last[:, None]
    return np.where(mask, target, 0.0)


@dataclass
class EpisodeGradients:
    """Per-episode results of :func:`episode_gradients` (E episodes, 112 parameters).

    ``grad = actor + critic``: ``actor`` is the gradient of the policy and entropy terms,
    ``critic`` that of ``lambda sum (Vhat - V)^2`` (both flow into the shared trunk). ``entropy``
    is the mean of ``H(pi(.|s_t))`` over the episode.
    """

    loss: np.ndarray
    grad: np.ndarray
    actor: np.ndarray
    critic: np.ndarray
    entropy: np.ndarray


def episode_gradients(
    theta: np.ndarray,
    obs: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    lengths: np.ndarray,
    terminated: np.ndarray,
    gamma: float,
    lam: float,
    beta: float,
) -> EpisodeGradients:
    """Empirical loss (eqs. 15-18) of each episode and its analytic gradient, split actor/critic.

    ``theta`` (E, 112); ``obs`` (E, T+1, 4) with ``obs[e, lengths[e]]`` the last state;
    ``actions``, ``rewards`` (E, T) (entries at ``t >= lengths[e]`` ignored); ``terminated`` (E,)
    (if False the return is bootstrapped with ``V(s_T)``). All batched matrix products.
    """
    n, horizon = actions.shape
    e_idx = np.arange(n)
    pre, h, logits, v = forward(theta, obs)
    v_last = np.where(terminated, 0.0, v[e_idx, lengths])
    mask = np.arange(horizon)[None, :] < lengths[:, None]
    target = discounted_targets(rewards, lengths, v_last, gamma)
    logp = _log_softmax(logits[:, :horizon])
    p = np.exp(logp)
    ent = -(p * logp).sum(axis=-1)
    adv = np.where(mask, target - v[:, :horizon], 0.0)
    logp_a = np.take_along_axis(logp, actions[..., None], axis=-1)[..., 0]
    per_step = -logp_a * adv - beta * ent + lam * adv**2
    loss = np.where(mask, per_step, 0.0).sum(axis=1)

    onehot = np.eye(N_ACTIONS)[actions]
    dz = (-adv[..., None] * (onehot - p) + beta * p * (logp + ent[..., None])) * mask[..., None]
    dv = -2.0 * lam * adv
    hh = h[:, :horizon]
    live = pre[:, :horizon] > 0
    _, wp, wv = unpack(theta)
    obs_h = obs[:, :horizon]
    g_wp = dz.transpose(0, 2, 1) @ hh
    g_wv = dv[:, None, :] @ hh
    g_wc_actor = ((dz @ wp) * live).transpose(0, 2, 1) @ obs_h
    g_wc_critic = ((dv[..., None] * wv) * live).transpose(0, 2, 1) @ obs_h
    zeros_p, zeros_v = np.zeros((n, _SIZES[1])), np.zeros((n, _SIZES[2]))
    actor = np.concatenate([g_wc_actor.reshape(n, -1), g_wp.reshape(n, -1), zeros_v], axis=1)
    critic = np.concatenate([g_wc_critic.reshape(n, -1), zeros_p, g_wv.reshape(n, -1)], axis=1)
    mean_ent = np.where(mask, ent, 0.0).sum(axis=1) / np.maximum(lengths, 1)
    return EpisodeGradients(loss, actor + critic, actor, critic, mean_ent)


def episode_gradients_by_length(
    theta: np.ndarray,
    obs: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    lengths: np.ndarray,
    terminated: np.ndarray,
    gamma: float,
    lam: float,
    beta: float,
    n_groups: int = 4,
) -> EpisodeGradients:
    """:func:`episode_gradients` on groups of episodes of similar length, each cut to its own
    longest episode (same values; one long episode no longer pads all others to its length)."""
    order = np.argsort(lengths, kind="stable")
    parts = []
    for idx in np.array_split(order, min(n_groups, len(order))):
        horizon = int(lengths[idx].max())
        parts.append(
            episode_gradients(
                theta[idx], obs[idx, : horizon + 1], actions[idx, :horizon],
                rewards[idx, :horizon], lengths[idx], terminated[idx], gamma, lam, beta,
            )
        )  # fmt: skip
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    fields = ("loss", "grad", "actor", "critic", "entropy")
    joined = {f: np.concatenate([getattr(p, f) for p in parts])[inverse] for f in fields}
    return EpisodeGradients(**joined)


def episode_loss_and_gradient(
    theta: np.ndarray,
    obs: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    lengths: np.ndarray,
    terminated: np.ndarray,
    gamma: float,
    lam: float,
    beta: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``(loss (E,), grad (E, 112))`` of eqs. (15)-(18); see :func:`episode_gradients`."""
    out = episode_gradients(theta, obs, actions, rewards, lengths, terminated, gamma, lam, beta)
    return out.loss, out.grad


def rollout(
    theta: np.ndarray,
    gravity: np.ndarray,
    alpha: np.ndarray,
    rng: np.random.Generator,
    max_steps: int,
    sample: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One episode per row of ``theta`` (E, 112); w.p. ``alpha`` a uniform action, otherwise the
    greedy action ``argmax pi(.|s)`` (``sample=False``, Algorithm 1) or ``a ~ pi(.|s)``.

    Returns ``obs`` (E, T+1, 4) float64 of the float32 observations, ``actions`` (E, T),
    ``rewards`` (E, T), ``lengths`` (E,), ``terminated`` (E,), with ``T`` the longest episode.
    Carts step on after their episode ended (the physics stays finite for 200 steps); their
    later entries are never read, so the loop costs one pass of vector operations per step.
    """
    n = theta.shape[0]
    wc, wp, _ = unpack(theta)
    w_diff = wp[:, 1] - wp[:, 0]  # logit_1 - logit_0 = w_diff . h
    state = reset_states(n, rng).T.copy()
    obs = np.zeros((n, max_steps + 1, N_OBS), dtype=np.float32)
    obs[:, 0] = state.T
    explore = rng.random((n, max_steps)) < alpha[:, None]
    random_actions = rng.integers(0, N_ACTIONS, size=(n, max_steps))
    uniforms = rng.random((n, max_steps))
    actions = np.zeros((n, max_steps), dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)  # the carts still simulated; shrinks when most episodes have ended
    alive = np.ones(n, dtype=bool)
    grav = np.broadcast_to(np.asarray(gravity, dtype=np.float64), (n,))
    t = 0
    while t < max_steps and alive.any():
        if 4 * alive.sum() < rows.size:
            keep = np.flatnonzero(alive)
            rows, alive, state = rows[keep], alive[keep], state[:, keep]
            wc, w_diff, grav = wc[keep], w_diff[keep], grav[keep]
            explore, random_actions, uniforms = explore[keep], random_actions[keep], uniforms[keep]
        s = obs[rows, t].astype(np.float64)
        h = np.maximum(wc @ s[:, :, None], 0.0)[..., 0]
        diff = (w_diff * h).sum(axis=1)
        if sample:  # P(a = 1) = sigmoid(logit_1 - logit_0)
            policy = uniforms[:, t] * (1.0 + np.exp(-diff)) < 1.0
        else:
            policy = diff > 0.0
        act = np.where(explore[:, t], random_actions[:, t], policy)
        actions[rows, t] = act
        state = np.stack(step_rows(*state, np.where(act == 1, FORCE_MAG, -FORCE_MAG), grav))
        obs[rows, t + 1] = state.T
        lengths[rows] += alive
        alive &= ~is_terminal(state[0], state[2])
        t += 1
    alive_all = np.zeros(n, dtype=bool)
    alive_all[rows] = alive
    horizon = int(lengths.max())
    rewards = (np.arange(horizon)[None, :] < lengths[:, None]).astype(np.float64)
    return (
        obs[:, : horizon + 1].astype(np.float64),
        actions[:, :horizon],
        rewards,
        lengths,
        ~alive_all,
    )


def randomise(
    grads: np.ndarray, config: PGCA3CConfig, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray | None]:
    """Apply the configured mechanism with the per-submission budget ``epsilon / rounds``.

    Returns ``(report, clipped)``: the randomised submissions and, for Laplace, the clipped
    gradients the noise was added to (``None`` for PRS, whose clipping acts on ``M g``).
    """
    eps = per_round_epsilon(config.epsilon, config.rounds)
    if config.mechanism == "laplace":
        clipped, noise = laplace_gradient_parts(grads, eps, config.clip_value, rng)
        return clipped + noise, clipped
    return projected_random_sign(grads, eps, config.clip_value, rng, d_hat=config.d_hat), None


@dataclass
class TrainingResult:
    """Scores ``(n_trials, n_submissions)`` (NaN after a stopped trial) and first success times.

    ``reports`` (with ``record_reports=True``) maps a statistic to an array ``(n_trials,
    n_submissions)`` per report: ``raw_norm`` (L1 norm of the gradient), ``clipped_norm`` (L1
    norm after eq. (19), Laplace only), ``noise_scale`` (mean absolute noise per coordinate,
    Laplace only; its expectation is the Laplace scale ``C T / epsilon``), ``report_norm``
    (L1 norm of the submission), ``actor_share`` (``|g_actor|_1 / (|g_actor|_1 + |g_critic|_1)``),
    ``entropy`` (mean ``H(pi(.|s_t))`` over the episode), ``majority_fraction`` (fraction of
    the episode's steps taking its most frequent action) and ``update_norm`` (L1 norm of the
    parameter change applied after this submission; NaN where the buffer was not full).
    """

    scores: np.ndarray
    first_success: np.ndarray
    env_steps: int
    reports: dict[str, np.ndarray] = field(default_factory=dict)
    diverged: np.ndarray | None = None


REPORT_STATISTICS = (
    "raw_norm", "clipped_norm", "noise_scale", "report_norm", "actor_share", "entropy",
    "majority_fraction", "update_norm",
)  # fmt: skip


def first_success_time(scores: np.ndarray, window: int, target: float) -> np.ndarray:
    """Eq. (26): smallest 1-based ``n`` with ``mean(scores[n-1 : n-1+window]) >= target``, else inf."""
    k, n = scores.shape
    out = np.full(k, np.inf)
    if n < window:
        return out
    c = np.concatenate([np.zeros((k, 1)), np.nancumsum(scores, axis=1)], axis=1)
    mu = (c[:, window:] - c[:, :-window]) / window
    valid = ~np.isnan(scores)
    full = np.lib.stride_tricks.sliding_window_view(valid, window, axis=1).all(axis=2)
    hit = (mu >= target) & full
    any_hit = hit.any(axis=1)
    out[any_hit] = hit[any_hit].argmax(axis=1) + 1
    return out


class _Aggregator:
    """The central buffer and update rule of each trial (eq. 22, or Adam as a deviation)."""

    _B1, _B2, _EPS = 0.9, 0.999, 1e-8  # torch.optim.Adam defaults

    def __init__(self, theta: np.ndarray, config: PGCA3CConfig) -> None:
        self.theta = theta
        self.config = config
        self.buffer = np.zeros_like(theta)
        self.count = 0
        self.m = np.zeros_like(theta)
        self.v = np.zeros_like(theta)
        self.t = np.zeros(theta.shape[0])

    def _step(self, rows: np.ndarray, mean: np.ndarray) -> np.ndarray:
        eta = self.config.eta
        if self.config.optimizer == "sgd":
            delta = -eta * mean
        else:
            self.t[rows] += 1
            self.m[rows] = self._B1 * self.m[rows] + (1 - self._B1) * mean
            self.v[rows] = self._B2 * self.v[rows] + (1 - self._B2) * mean**2
            m_hat = self.m[rows] / (1 - self._B1 ** self.t[rows])[:, None]
            v_hat = self.v[rows] / (1 - self._B2 ** self.t[rows])[:, None]
            delta = -eta * m_hat / (np.sqrt(v_hat) + self._EPS)
        self.theta[rows] += delta
        return np.abs(delta).sum(axis=1)

    def submit(self, rows: np.ndarray, reports: np.ndarray) -> np.ndarray:
        """Submissions ``reports`` (len(rows), W, 112) in worker order; returns ``(len(rows), W)``
        L1 norms of the applied updates (NaN after submissions that did not fill the buffer)."""
        w = reports.shape[1]
        applied = np.full((rows.size, w), np.nan)
        cap = self.config.buffer_size
        if cap == 1 and self.config.optimizer == "sgd":  # W consecutive updates add up
            self.theta[rows] -= self.config.eta * reports.sum(axis=1)
            return self.config.eta * np.abs(reports).sum(axis=2)
        for j in range(w):
            self.buffer[rows] += reports[:, j]
            self.count += 1
            if self.count >= cap:
                applied[:, j] = self._step(rows, self.buffer[rows] / self.count)
                self.buffer[:] = 0.0
                self.count = 0
        return applied


def train_pgc_a3c(
    config: PGCA3CConfig,
    n_trials: int,
    rng: SeedLike,
    progress: bool = False,
    record_reports: bool = False,
) -> TrainingResult:
    """Run ``n_trials`` independent PGC-A3C trainings of ``config`` as one batch.

    Each trial has its own global parameters, buffer and agents (gravity drawn uniformly from
    {9.7, 9.8, 9.9} per agent; with ``rounds = T`` an agent submits ``T`` consecutive times with
    ``epsilon / T`` each). With ``stop_at_success`` a trial leaves the batch once its first success
    time (eq. 26) is known; a trial whose gradients overflow (possible only without clipping)
    leaves the batch as ``diverged``. Returns the per-submission scores and first success times,
    and with ``record_reports`` the per-report statistics of :class:`TrainingResult`.
    """
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    gen = as_generator(rng)
    n_sub, n_w = config.n_submissions, config.n_workers
    agg = _Aggregator(init_parameters(n_trials, gen), config)
    scores = np.full((n_trials, n_sub), np.nan, dtype=np.float64)
    stats = (
        {k: np.full((n_trials, n_sub), np.nan, dtype=np.float32) for k in REPORT_STATISTICS}
        if record_reports
        else {}
    )
    fst = np.full(n_trials, np.inf)
    diverged = np.zeros(n_trials, dtype=bool)
    active = np.arange(n_trials)
    env_steps = 0
    n_agents = -(-n_sub // config.rounds)
    gravity_all = np.repeat(
        sample_gravities(n_trials * n_agents, gen).reshape(n_trials, n_agents),
        config.rounds,
        axis=1,
    )[:, :n_sub]
    bar = tqdm(total=n_sub, disable=not progress, desc=f"{config.mechanism} eps={config.epsilon}")
    start = 0
    with np.errstate(over="ignore", invalid="ignore"):  # divergence is handled per trial
        while start < n_sub and active.size:
            stop = min(start + n_w, n_sub)
            w = stop - start
            subs = np.arange(start, stop)
            theta_e = np.repeat(agg.theta[active], w, axis=0)
            gravity = gravity_all[active][:, subs].reshape(-1)
            alpha = np.tile(np.maximum(0.0, config.alpha0 - subs / config.alpha_decay), active.size)
            obs, actions, rewards, lengths, term = rollout(
                theta_e,
                gravity,
                alpha,
                gen,
                config.max_steps,
                sample=config.action_selection == "sample",
            )
            env_steps += int(lengths.sum())
            eg = episode_gradients_by_length(
                theta_e, obs, actions, rewards, lengths, term, config.gamma, config.lam, config.beta
            )
            finite = np.isfinite(eg.grad).reshape(active.size, w * D).all(axis=1)
            if not finite.all():  # a diverged trial (possible without clipping) leaves the batch
                eg.grad[~np.repeat(finite, w)] = 0.0
                diverged[active[~finite]] = True
            noisy, clipped = randomise(eg.grad, config, gen)
            applied = agg.submit(active, noisy.reshape(active.size, w, D))
            cells = (active[:, None], subs[None, :])
            scores[cells] = lengths.reshape(active.size, w)
            if record_reports:
                _record(
                    stats, cells, (active.size, w), eg, noisy, clipped, actions, lengths, applied
                )
            lo = max(0, start - config.window + 1)
            if stop - lo >= config.window:
                found = first_success_time(scores[active, lo:stop], config.window, config.target)
                new = np.isfinite(found) & ~np.isfinite(fst[active])
                fst[active[new]] = found[new] + lo
                if config.stop_at_success:
                    active = active[~np.isfinite(fst[active])]
            active = active[~diverged[active]]
            bar.update(w)
            start = stop
    bar.close()
    return TrainingResult(
        scores=scores, first_success=fst, env_steps=env_steps, reports=stats, diverged=diverged
    )


def _record(
    stats: dict[str, np.ndarray],
    cells: tuple[np.ndarray, np.ndarray],
    shape: tuple[int, int],
    eg: EpisodeGradients,
    noisy: np.ndarray,
    clipped: np.ndarray | None,
    actions: np.ndarray,
    lengths: np.ndarray,
    applied: np.ndarray,
) -> None:
    """Store the per-report statistics of one wave (see :class:`TrainingResult`)."""
    a_norm, c_norm = np.abs(eg.actor).sum(axis=1), np.abs(eg.critic).sum(axis=1)
    mask = np.arange(actions.shape[1])[None, :] < lengths[:, None]
    ones = (actions * mask).sum(axis=1)
    values = {
        "raw_norm": np.abs(eg.grad).sum(axis=1),
        "report_norm": np.abs(noisy).sum(axis=1),
        "actor_share": a_norm / np.maximum(a_norm + c_norm, 1e-300),
        "entropy": eg.entropy,
        "majority_fraction": np.maximum(ones, lengths - ones) / lengths,
        "update_norm": applied.reshape(-1),
    }
    if clipped is not None:
        values["clipped_norm"] = np.abs(clipped).sum(axis=1)
        values["noise_scale"] = np.abs(noisy - clipped).mean(axis=1)
    for key, value in values.items():
        stats[key][cells] = value.reshape(shape)
