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
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from privrl.accounting.local import per_round_epsilon
from privrl.envs.cartpole import MAX_STEPS, TARGET_SCORE, BatchedCartPole, sample_gravities
from privrl.mechanisms.local import laplace_gradient_mechanism, projected_random_sign
from privrl.rng import SeedLike, as_generator
from privrl.validation import check_choice, check_epsilon, check_int, check_positive

N_OBS, N_HIDDEN, N_ACTIONS = 4, 16, 2
_SIZES = (N_HIDDEN * N_OBS, N_ACTIONS * N_HIDDEN, N_HIDDEN)
D = sum(_SIZES)  # 112
DEFAULT_CLIP = {"laplace": 0.01, "prs": 1.0}


@dataclass(frozen=True)
class PGCA3CConfig:
    """Hyper-parameters of PGC-A3C; defaults are the paper's (section 4)."""

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

    def __post_init__(self) -> None:
        check_choice(self.mechanism, "mechanism", ("laplace", "prs"))
        check_choice(self.action_selection, "action_selection", ("greedy", "sample"))
        check_epsilon(self.epsilon, allow_inf=True)
        check_int(self.buffer_size, "buffer_size", minimum=1)
        check_int(self.n_submissions, "n_submissions", minimum=1)
        if self.clip is not None:
            check_positive(self.clip, "clip")
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
    pre = np.einsum("ehs,ets->eth", wc, obs)
    h = np.maximum(pre, 0.0)
    logits = np.einsum("eah,eth->eta", wp, h)
    v = np.einsum("eh,eth->et", wv[:, 0], h)
    return pre, h, logits, v


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    m = logits.max(axis=-1, keepdims=True)
    return logits - m - np.log(np.exp(logits - m).sum(axis=-1, keepdims=True))


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
    """Empirical loss (eqs. 15-18) of each episode and its analytic gradient.

    ``theta`` (E, 112); ``obs`` (E, T+1, 4) with ``obs[e, lengths[e]]`` the last state;
    ``actions``, ``rewards`` (E, T) (entries at ``t >= lengths[e]`` ignored); ``terminated`` (E,)
    (if False the return is bootstrapped with ``V(s_T)``). Returns ``loss`` (E,) and
    ``grad`` (E, 112).
    """
    e_idx = np.arange(obs.shape[0])
    horizon = actions.shape[1]
    pre, h, logits, v = forward(theta, obs)
    v_last = np.where(terminated, 0.0, v[e_idx, lengths])
    mask = np.arange(horizon)[None, :] < lengths[:, None]
    r = np.where(mask, rewards, 0.0)
    target = np.empty((obs.shape[0], horizon))
    running = v_last.copy()
    for t in range(horizon - 1, -1, -1):
        running = np.where(t < lengths, r[:, t] + gamma * running, running)
        target[:, t] = running
    target = np.where(mask, target, 0.0)
    logp = _log_softmax(logits[:, :horizon])
    p = np.exp(logp)
    ent = -(p * logp).sum(axis=-1)
    vt = v[:, :horizon]
    adv = target - vt
    logp_a = np.take_along_axis(logp, actions[..., None].astype(np.int64), axis=-1)[..., 0]
    per_step = -logp_a * adv - beta * ent + lam * adv**2
    loss = np.where(mask, per_step, 0.0).sum(axis=1)

    onehot = np.eye(N_ACTIONS)[actions.astype(np.int64)]
    dz = -adv[..., None] * (onehot - p) + beta * p * (logp + ent[..., None])
    dz *= mask[..., None]
    dv = -2.0 * lam * adv * mask
    hh = h[:, :horizon]
    wc, wp, wv = unpack(theta)
    g_wp = np.einsum("eta,eth->eah", dz, hh)
    g_wv = np.einsum("et,eth->eh", dv, hh)
    dh = np.einsum("eta,eah->eth", dz, wp) + dv[..., None] * wv[:, 0][:, None, :]
    dpre = dh * (pre[:, :horizon] > 0)
    g_wc = np.einsum("eth,ets->ehs", dpre, obs[:, :horizon])
    grad = np.concatenate(
        [g_wc.reshape(len(e_idx), -1), g_wp.reshape(len(e_idx), -1), g_wv.reshape(len(e_idx), -1)],
        axis=1,
    )
    return loss, grad


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
    """
    n = theta.shape[0]
    wc, wp, _ = unpack(theta)
    env = BatchedCartPole(gravity, max_steps=max_steps)
    obs = np.zeros((n, max_steps + 1, N_OBS))
    actions = np.zeros((n, max_steps), dtype=np.int64)
    obs[:, 0] = env.reset(rng)
    explore = rng.random((n, max_steps)) < alpha[:, None]
    random_actions = rng.integers(0, N_ACTIONS, size=(n, max_steps))
    uniforms = rng.random((n, max_steps))
    t = 0
    while t < max_steps and not env.done.all():
        h = np.maximum(np.einsum("ehs,es->eh", wc, obs[:, t]), 0.0)
        logits = np.einsum("eah,eh->ea", wp, h)
        if sample:  # P(a = 1) = sigmoid(logit_1 - logit_0)
            policy = (uniforms[:, t] * (1.0 + np.exp(logits[:, 0] - logits[:, 1])) < 1.0).astype(
                np.int64
            )
        else:
            policy = (logits[:, 1] > logits[:, 0]).astype(np.int64)
        actions[:, t] = np.where(explore[:, t], random_actions[:, t], policy)
        obs[:, t + 1] = env.step(actions[:, t])[0]
        t += 1
    lengths = env.steps.copy()
    horizon = int(lengths.max())
    rewards = (np.arange(horizon)[None, :] < lengths[:, None]).astype(np.float64)
    return obs[:, : horizon + 1], actions[:, :horizon], rewards, lengths, env.terminated.copy()


def randomise(grads: np.ndarray, config: PGCA3CConfig, rng: np.random.Generator) -> np.ndarray:
    """Apply the configured mechanism with the per-submission budget ``epsilon / rounds``."""
    eps = per_round_epsilon(config.epsilon, config.rounds)
    if config.mechanism == "laplace":
        return laplace_gradient_mechanism(grads, eps, config.clip_value, rng)
    return projected_random_sign(grads, eps, config.clip_value, rng, d_hat=config.d_hat)


@dataclass
class TrainingResult:
    """Scores ``(n_trials, n_submissions)`` (NaN after a stopped trial) and first success times."""

    scores: np.ndarray
    first_success: np.ndarray
    env_steps: int


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


def train_pgc_a3c(
    config: PGCA3CConfig, n_trials: int, rng: SeedLike, progress: bool = False
) -> TrainingResult:
    """Run ``n_trials`` independent PGC-A3C trainings of ``config`` as one batch.

    Each trial has its own global parameters, buffer and agents (gravity drawn uniformly from
    {9.7, 9.8, 9.9} per agent; with ``rounds = T`` an agent submits ``T`` consecutive times with
    ``epsilon / T`` each). With ``stop_at_success`` a trial leaves the batch once its first success
    time (eq. 26) is known. Returns the per-submission scores and first success times.
    """
    n_trials = check_int(n_trials, "n_trials", minimum=1)
    gen = as_generator(rng)
    n_sub, n_w, cap = config.n_submissions, config.n_workers, config.buffer_size
    theta = init_parameters(n_trials, gen)
    scores = np.full((n_trials, n_sub), np.nan, dtype=np.float64)
    fst = np.full(n_trials, np.inf)
    active = np.arange(n_trials)
    buffer = np.zeros_like(theta)
    count = 0
    env_steps = 0
    n_agents = -(-n_sub // config.rounds)
    gravity_all = np.repeat(
        sample_gravities(n_trials * n_agents, gen).reshape(n_trials, n_agents),
        config.rounds,
        axis=1,
    )[:, :n_sub]
    bar = tqdm(total=n_sub, disable=not progress, desc=f"{config.mechanism} eps={config.epsilon}")
    start = 0
    while start < n_sub and active.size:
        stop = min(start + n_w, n_sub)
        w = stop - start
        subs = np.arange(start, stop)
        theta_e = np.repeat(theta[active], w, axis=0)
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
        _, grads = episode_loss_and_gradient(
            theta_e, obs, actions, rewards, lengths, term, config.gamma, config.lam, config.beta
        )
        noisy = randomise(grads, config, gen).reshape(active.size, w, D)
        scores[active[:, None], subs[None, :]] = lengths.reshape(active.size, w)
        for j in range(w):
            buffer[active] += noisy[:, j]
            count += 1
            if count >= cap:
                theta[active] -= config.eta * buffer[active] / count
                buffer[:] = 0.0
                count = 0
        lo = max(0, start - config.window + 1)
        if stop - lo >= config.window:
            found = first_success_time(scores[active, lo:stop], config.window, config.target)
            new = np.isfinite(found) & ~np.isfinite(fst[active])
            fst[active[new]] = found[new] + lo
            if config.stop_at_success:
                active = active[~np.isfinite(fst[active])]
        bar.update(w)
        start = stop
    bar.close()
    return TrainingResult(scores=scores, first_success=fst, env_steps=env_steps)
