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

Asynchrony (9 threads in the paper), simulated in *waves*. **The staleness model** (the same
since the first version; only the order in which the simulation handles events changed):

1. Each trial on its own: its submissions ``0, 1, 2, ...`` come in waves of ``W = n_workers``
   consecutive indices, wave ``i`` holding ``iW, ..., iW + W - 1`` (the last wave may be short).
2. The ``W`` workers of wave ``i`` all copy ``theta`` after the aggregator has received exactly
   the submissions ``0, ..., iW - 1`` (all earlier waves, none of this one), each runs one
   episode with the fresh randomness of its submission index (gravity, initial state,
   exploration), and their reports reach the aggregator in worker order. So submission ``n``
   was computed on parameters that miss exactly ``n mod W`` submissions received before it
   (its *staleness*; at most ``W - 1 = 8``), and wave ``i + 1`` starts only after wave ``i``
   has been received.
3. Trials do not interact: nothing of one trial depends on another's events.

The distribution of every trial's trajectory is therefore fixed by 1-3 and the per-submission
randomness, whatever the timing of other trials. The simulation uses that: the trials' waves
run *out of step* on one set of ``n_trials x W`` carts stepped as a numpy batch; a trial whose
wave has ended submits it (with the other trials waiting at that moment) and starts its next
wave, without waiting for the longest episode of all trials. ``TrainingResult.staleness``
records, per submission, how many submissions the aggregator received between the worker's
copy and its report, counted from the simulation's events (tested to be ``n mod W``). With
one trial the random draws come in the same order as in a wave-by-wave simulation, which
``tests/papers/test_ono2020.py`` replays with gymnasium and torch. With several trials the
order of draws, hence a seeded run's numbers, differ from the lock-step simulation used before
(same distribution). Per-episode gradients are computed on the episodes laid end to end
(:func:`flat_episode_gradients`), never padded to the longest; the padded form, a test
reference in ``tests/core/a3c_reference.py``, and torch autograd check it in
``tests/core/test_a3c.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from privrl.core.accounting.local import per_round_epsilon
from privrl.core.envs.cartpole import (
    FORCE_MAG,
    GRAVITIES,
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
    noise), ``action_selection = "sample"`` (``a ~ pi`` as in A3C) and ``optimizer = "adam"`` or
    ``"rmsprop"`` (the aggregator applies Adam or RMSProp with step size ``eta`` to the mean of
    the buffer instead of eq. (22)'s ``theta <- theta - eta * mean(B)``).
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
        check_choice(self.optimizer, "optimizer", ("sgd", "adam", "rmsprop"))
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


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    m = logits.max(axis=-1, keepdims=True)
    return logits - m - np.log(np.exp(logits - m).sum(axis=-1, keepdims=True))


@dataclass
class EpisodeGradients:
    """Per-episode results of :func:`flat_episode_gradients` (E episodes, 112 parameters).

    ``grad = actor + critic``: ``actor`` is the gradient of the policy and entropy terms,
    ``critic`` that of ``lambda sum (Vhat - V)^2`` (both flow into the shared trunk). ``entropy``
    is the mean of ``H(pi(.|s_t))`` over the episode.
    """

    loss: np.ndarray
    grad: np.ndarray
    actor: np.ndarray | None
    critic: np.ndarray | None
    entropy: np.ndarray


def flat_discounted_targets(
    rewards: np.ndarray, lengths: np.ndarray, v_last: np.ndarray, gamma: float
) -> np.ndarray:
    """Eq. (12) on episodes laid end to end: ``rewards`` (N,) with ``N = sum(lengths)``.

    Within each episode, ``gamma^{-t}`` times the reversed cumulative sum of ``gamma^t r_t``
    (``t`` counted from the episode's start), plus ``gamma^{L-t} V(s_L)``.
    """
    starts = np.cumsum(lengths) - lengths
    t = np.arange(rewards.size) - np.repeat(starts, lengths)
    power = gamma ** t.astype(np.float64)
    tail = np.cumsum((rewards * power)[::-1])[::-1]  # tail[i] = sum_{j >= i} over all episodes
    ends = np.cumsum(lengths)
    after = np.append(tail, 0.0)[ends]  # the sum of the episodes that follow episode e
    own = (tail - np.repeat(after, lengths)) / power
    return own + gamma ** (np.repeat(lengths, lengths) - t) * np.repeat(v_last, lengths)


def flat_episode_gradients(
    theta: np.ndarray,
    obs: np.ndarray,
    last_obs: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    lengths: np.ndarray,
    terminated: np.ndarray,
    gamma: float,
    lam: float,
    beta: float,
    split: bool = False,
) -> EpisodeGradients:
    """Empirical loss (eqs. 15-18) of each episode and its analytic gradient, on episodes laid
    end to end, with no padding.

    ``theta`` (E, 112) per episode; ``obs`` (N, 4), ``actions`` (N,), ``rewards`` (N,) the
    ``N = sum(lengths)`` steps of episode 0, then episode 1, ...; ``last_obs`` (E, 4) the state
    ``s_L`` each episode ended in; ``lengths`` (E,) >= 1. Every step's contribution to the
    gradient (eqs. 15-18) is formed once and summed per episode (``np.add.reduceat``): the cost
    is proportional to the number of steps, not to ``E`` times the longest episode. With
    ``split`` the actor and critic parts are returned too (else ``None``).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.size == 0 or lengths.min() < 1 or lengths.sum() != actions.shape[0]:
        raise ValueError("lengths must be >= 1 and sum to the number of steps")
    n, n_ep = actions.shape[0], lengths.size
    starts = np.cumsum(lengths) - lengths
    th = np.repeat(theta, lengths, axis=0)
    wc, wp, wv = th[:, : _SIZES[0]], th[:, _SIZES[0] : D - N_HIDDEN], th[:, D - N_HIDDEN :]
    pre = wc[:, 0::N_OBS] * obs[:, :1]  # theta_c s, theta_c stored row-major (16 x 4)
    for i in range(1, N_OBS):
        pre += wc[:, i::N_OBS] * obs[:, i : i + 1]
    h = np.maximum(pre, 0.0)
    logits = np.stack([(wp[:, :N_HIDDEN] * h).sum(axis=1), (wp[:, N_HIDDEN:] * h).sum(axis=1)], 1)
    v = (wv * h).sum(axis=1)
    wc_e, _, wv_e = unpack(theta)
    v_end = (wv_e[:, 0] * np.maximum((wc_e @ last_obs[:, :, None])[..., 0], 0.0)).sum(axis=1)
    v_last = np.where(terminated, 0.0, v_end)
    adv = flat_discounted_targets(rewards, lengths, v_last, gamma) - v
    logp = _log_softmax(logits)
    p = np.exp(logp)
    ent = -(p * logp).sum(axis=1)
    rows = np.arange(n)
    dz = (
        beta * p * (logp + ent[:, None])
    )  # d loss / d logits: -adv (onehot - p) + beta p (logp + H)
    dz[rows, actions] -= adv
    dz += adv[:, None] * p
    dv = -2.0 * lam * adv
    live = pre > 0
    dh_actor = (dz[:, :1] * wp[:, :N_HIDDEN] + dz[:, 1:] * wp[:, N_HIDDEN:]) * live
    dh_critic = (dv[:, None] * wv) * live
    # per-step contributions, columns: [theta_c (actor or both), theta_p, theta_v, loss, entropy,
    # theta_c (critic, with split)], summed per episode
    c, b = _SIZES[0], _SIZES[0] + _SIZES[1]
    steps = np.empty((n, D + 2 + (c if split else 0)))
    dh = dh_actor if split else dh_actor + dh_critic
    for i in range(N_OBS):
        np.multiply(dh, obs[:, i : i + 1], out=steps[:, i:c:N_OBS])
        if split:
            np.multiply(dh_critic, obs[:, i : i + 1], out=steps[:, D + 2 + i :: N_OBS])
    for k in range(N_ACTIONS):
        np.multiply(h, dz[:, k : k + 1], out=steps[:, c + k * N_HIDDEN : c + (k + 1) * N_HIDDEN])
    np.multiply(h, dv[:, None], out=steps[:, b:D])
    steps[:, D] = -logp[rows, actions] * adv - beta * ent + lam * adv**2
    steps[:, D + 1] = ent
    sums = np.add.reduceat(steps, starts, axis=0)
    loss, mean_ent = sums[:, D], sums[:, D + 1] / lengths
    if not split:
        return EpisodeGradients(loss, sums[:, :D], None, None, mean_ent)
    actor, critic = np.zeros((n_ep, D)), np.zeros((n_ep, D))
    actor[:, :b] = sums[:, :b]
    critic[:, :c] = sums[:, D + 2 :]
    critic[:, b:] = sums[:, b:D]
    return EpisodeGradients(loss, actor + critic, actor, critic, mean_ent)


class _Carts:
    """``n`` carts, each running one episode at a time with its own gravity and exploration
    rate; :meth:`start` begins new episodes on some carts while others run on. The carts come in
    groups of ``group`` consecutive carts that share their parameters (a trial's workers).

    All carts step together (one pass of vector operations per step: the cost of a step hardly
    depends on how many carts are running); a cart whose episode ended keeps stepping until it
    is restarted, and its later entries are never read. Per-step records are flat: step ``t``
    of cart ``c`` is row ``c * stride + t`` of ``obs`` (float32 observations, ``L + 1`` per
    episode), ``actions`` and ``forced`` (the exploration draws: the random action, or -1 where
    the policy acts).
    """

    _FORCES = np.array([-FORCE_MAG, FORCE_MAG])

    def __init__(self, n: int, max_steps: int, sample: bool, group: int = 1) -> None:
        if n % group:
            raise ValueError(f"{n} carts do not form groups of {group}")
        self.n, self.max_steps, self.group = n, max_steps, group
        self.stride = max_steps + 2
        self.base = np.arange(n) * self.stride
        self.idx = self.base.copy()  # row of each cart's current step
        self.state = tuple(np.zeros(n) for _ in range(4))
        self.s = np.zeros((n, N_OBS))  # current observation (float32 values)
        self.obs = np.zeros((n * self.stride, N_OBS), dtype=np.float32)
        self.actions = np.zeros(n * self.stride, dtype=np.int64)
        self.forced = np.full(n * self.stride, -1, dtype=np.int64)
        self.uniforms = np.zeros(n * self.stride) if sample else None
        self.alive = np.zeros(n, dtype=bool)
        self.terminated = np.zeros(n, dtype=bool)
        self.wc_t = np.zeros((n // group, N_OBS, N_HIDDEN))  # theta_c transposed, per group
        self.w_diff = np.zeros((n // group, N_HIDDEN, 1))
        self.gravity = np.full(n, GRAVITIES[0])

    @property
    def t(self) -> np.ndarray:
        """Steps taken in each cart's current episode (its length once it ended)."""
        return self.idx - self.base

    def start(
        self,
        carts: np.ndarray,
        theta: np.ndarray,
        gravity: np.ndarray,
        alpha: np.ndarray,
        rng: np.random.Generator,
    ) -> None:
        """New episodes on ``carts`` with parameters ``theta`` (k, 112; the same for carts of one
        group), ``gravity`` and ``alpha`` (k,). Draws, in this order: the initial states (k, 4), the exploration coins, the random
        actions and the sampling uniforms (each (k, max_steps))."""
        k, ms = carts.size, self.max_steps
        init = reset_states(k, rng)
        explore = rng.random((k, ms)) < alpha[:, None]
        random_actions = rng.integers(0, N_ACTIONS, size=(k, ms))
        uniforms = rng.random((k, ms))
        rows = (self.base[carts, None] + np.arange(ms)).reshape(-1)
        self.forced[rows] = np.where(explore, random_actions, -1).reshape(-1)
        if self.uniforms is not None:
            self.uniforms[rows] = uniforms.reshape(-1)
        for row, column in zip(self.state, init.T, strict=True):
            row[carts] = column
        obs0 = init.astype(np.float32)
        self.obs[self.base[carts]] = obs0
        self.s[carts] = obs0
        wc, wp, _ = unpack(theta)
        groups = carts // self.group
        self.wc_t[groups] = wc.transpose(0, 2, 1)
        self.w_diff[groups] = (wp[:, 1] - wp[:, 0])[:, :, None]  # logit_1 - logit_0 = w_diff . h
        self.gravity[carts] = gravity
        self.idx[carts] = self.base[carts]
        self.alive[carts] = True
        self.terminated[carts] = False

    def step(self) -> None:
        """One step of every cart: w.p. ``alpha`` the random action, else greedy (or sampled)."""
        idx = self.idx
        h = np.maximum(self.s.reshape(-1, self.group, N_OBS) @ self.wc_t, 0.0)
        diff = (h @ self.w_diff).reshape(-1)
        if self.uniforms is not None:  # P(a = 1) = sigmoid(logit_1 - logit_0)
            policy = self.uniforms[idx] * (1.0 + np.exp(-diff)) < 1.0
        else:
            policy = diff > 0.0
        forced = self.forced[idx]
        act = np.where(forced < 0, policy, forced)
        self.actions[idx] = act
        self.state = step_rows(*self.state, self._FORCES[act], self.gravity)
        s32 = np.array(self.state, dtype=np.float32).T
        self.obs[idx + 1] = s32
        self.s = s32.astype(np.float64)
        alive = self.alive
        self.idx = idx + alive
        ended = alive & is_terminal(self.state[0], self.state[2])
        self.terminated |= ended
        self.alive = (alive ^ ended) & (self.idx - self.base < self.max_steps)

    def keep(self, groups: np.ndarray) -> None:
        """Keep only the carts of ``groups`` (in this order), e.g. once most trials have left."""
        carts = (groups[:, None] * self.group + np.arange(self.group)).reshape(-1)
        rows = (self.base[carts, None] + np.arange(self.stride)).reshape(-1)
        t = self.t[carts]
        for name in ("obs", "actions", "forced", "uniforms"):
            if getattr(self, name) is not None:
                setattr(self, name, getattr(self, name)[rows])
        for name in ("s", "alive", "terminated", "gravity"):
            setattr(self, name, getattr(self, name)[carts])
        self.wc_t, self.w_diff = self.wc_t[groups], self.w_diff[groups]
        self.state = tuple(row[carts] for row in self.state)
        self.n = carts.size
        self.base = np.arange(self.n) * self.stride
        self.idx = self.base + t

    def episodes(self, carts: np.ndarray) -> tuple[np.ndarray, ...]:
        """The finished episodes of ``carts`` laid end to end: ``obs`` (N, 4) and ``actions``
        (N,) of their ``N = sum(lengths)`` steps, ``last_obs`` (k, 4), ``lengths``,
        ``terminated`` (k,)."""
        lengths = self.t[carts]
        rows = np.arange(int(lengths.sum())) + np.repeat(
            self.base[carts] - (np.cumsum(lengths) - lengths), lengths
        )
        return (
            self.obs[rows].astype(np.float64),
            self.obs[self.idx[carts]].astype(np.float64),
            self.actions[rows],
            lengths,
            self.terminated[carts],
        )


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
    ``rewards`` (E, T), ``lengths`` (E,), ``terminated`` (E,), with ``T`` the longest episode
    (padded: entries after an episode's end are not part of it).
    """
    n = theta.shape[0]
    carts = _Carts(n, max_steps, sample)
    grav = np.broadcast_to(np.asarray(gravity, dtype=np.float64), (n,))
    carts.start(np.arange(n), theta, grav, np.asarray(alpha, dtype=np.float64), rng)
    while carts.alive.any():
        carts.step()
    lengths = carts.t
    horizon = int(lengths.max())
    rewards = (np.arange(horizon)[None, :] < lengths[:, None]).astype(np.float64)
    stride = carts.stride
    return (
        carts.obs.reshape(n, stride, N_OBS)[:, : horizon + 1].astype(np.float64),
        carts.actions.reshape(n, stride)[:, :horizon],
        rewards,
        lengths,
        carts.terminated.copy(),
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
    ``staleness`` ``(n_trials, n_submissions)``: how many of the trial's submissions the
    aggregator received between the worker's copy of ``theta`` and its report, counted from the
    simulation's events (``n mod W`` for submission ``n`` under the staleness model; -1 where
    not played).
    """

    scores: np.ndarray
    first_success: np.ndarray
    env_steps: int
    reports: dict[str, np.ndarray] = field(default_factory=dict)
    diverged: np.ndarray | None = None
    staleness: np.ndarray | None = None


# A trial whose wave ended waits until three quarters of the running trials wait, or for at
# most _MAX_WAIT steps: a submission of waves costs about as much as 25 steps of the carts
# whatever their number, so waves are submitted in groups; the bound keeps the slowest trial
# (the end of the run) from waiting long. Measured in CPU time on the benchmark's set-ups.
_MAX_WAIT = 32

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
    """The central buffer and update rule of each trial (eq. 22, or Adam or RMSProp as a deviation).

    RMSProp is ``torch.optim.RMSprop`` with ``alpha = 0.99``, ``eps = 1e-8`` (mean square
    started at 0): ``v <- 0.99 v + 0.01 g^2``, ``theta <- theta - eta g / (sqrt(v) + eps)``, the
    decay of the A3C paper (Mnih et al. 2016); TensorFlow 1's ``RMSPropOptimizer`` starts ``v`` at
    1 and puts its ``eps`` inside the root, which differs only over the first few hundred updates.

    A trial's buffer holds ``n mod |B|`` reports after its first ``n`` submissions, so the
    buffer is full after submission ``n`` exactly when ``(n + 1) mod |B| = 0``.
    """

    _B1, _B2, _EPS = 0.9, 0.999, 1e-8  # torch.optim.Adam defaults
    _RHO = 0.99  # torch.optim.RMSprop's alpha

    def __init__(self, theta: np.ndarray, config: PGCA3CConfig) -> None:
        self.theta = theta
        self.config = config
        self.buffer = np.zeros_like(theta)
        self.m = np.zeros_like(theta)
        self.v = np.zeros_like(theta)
        self.t = np.zeros(theta.shape[0])

    def _step(self, rows: np.ndarray, mean: np.ndarray) -> np.ndarray:
        eta = self.config.eta
        if self.config.optimizer == "sgd":
            delta = -eta * mean
        elif self.config.optimizer == "rmsprop":
            self.v[rows] = self._RHO * self.v[rows] + (1 - self._RHO) * mean**2
            delta = -eta * mean / (np.sqrt(self.v[rows]) + self._EPS)
        else:
            self.t[rows] += 1
            self.m[rows] = self._B1 * self.m[rows] + (1 - self._B1) * mean
            self.v[rows] = self._B2 * self.v[rows] + (1 - self._B2) * mean**2
            m_hat = self.m[rows] / (1 - self._B1 ** self.t[rows])[:, None]
            v_hat = self.v[rows] / (1 - self._B2 ** self.t[rows])[:, None]
            delta = -eta * m_hat / (np.sqrt(v_hat) + self._EPS)
        self.theta[rows] += delta
        return np.abs(delta).sum(axis=1)

    def submit(self, rows: np.ndarray, first: np.ndarray, reports: np.ndarray) -> np.ndarray:
        """Trial ``rows[i]`` receives ``reports[i]`` (W, 112), submissions ``first[i]``,
        ``first[i] + 1``, ... in worker order (rows of zeros past the trial's last submission
        are not submitted); returns ``(len(rows), W)`` L1 norms of the applied updates (NaN
        after submissions that did not fill the buffer)."""
        w = reports.shape[1]
        n_sub, cap = self.config.n_submissions, self.config.buffer_size
        applied = np.full((rows.size, w), np.nan)
        if cap == 1 and self.config.optimizer == "sgd":  # W consecutive updates add up
            self.theta[rows] -= self.config.eta * reports.sum(axis=1)
            applied[:] = self.config.eta * np.abs(reports).sum(axis=2)
            return np.where(first[:, None] + np.arange(w) < n_sub, applied, np.nan)
        for j in range(w):
            sub = first + j
            here = sub < n_sub
            self.buffer[rows[here]] += reports[here, j]
            full = here & ((sub + 1) % cap == 0)
            if full.any():
                r = rows[full]
                applied[full, j] = self._step(r, self.buffer[r] / cap)
                self.buffer[r] = 0.0
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

    The waves of the trials run out of step (module docstring): each trial's W carts step
    together with every other trial's, and a trial whose wave has ended waits only until three
    quarters of the running trials are waiting, or at most ``_MAX_WAIT`` steps, when the waiting
    waves are submitted together and their trials start their next waves.
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
    staleness = np.full((n_trials, n_sub), -1, dtype=np.int64)
    fst = np.full(n_trials, np.inf)
    diverged = np.zeros(n_trials, dtype=bool)
    n_agents = -(-n_sub // config.rounds)
    gravity_all = np.repeat(
        sample_gravities(n_trials * n_agents, gen).reshape(n_trials, n_agents),
        config.rounds,
        axis=1,
    )[:, :n_sub]
    sim = _Simulation(config, agg, gravity_all, gen)
    bar = tqdm(total=n_trials * n_sub, disable=not progress,
               desc=f"{config.mechanism} eps={config.epsilon}")  # fmt: skip
    sim.launch(np.arange(n_trials))
    env_steps = 0
    with np.errstate(over="ignore", invalid="ignore"):  # divergence is handled per trial
        since = 0  # steps since waves were last submitted
        while sim.running.any():
            sim.carts.step()
            since += 1
            ended = sim.running & ~sim.carts.alive.reshape(-1, n_w).any(axis=1)
            n_ended = int(ended.sum())
            n_running = int(sim.running.sum())
            if n_ended == 0 or (4 * n_ended < 3 * n_running and since < _MAX_WAIT):
                continue
            since = 0
            slots = np.flatnonzero(ended)
            trials, first = sim.trial[slots], sim.first[slots]
            w = np.minimum(n_w, n_sub - first)
            carts = (slots[:, None] * n_w + np.arange(n_w)).reshape(-1)
            played = (np.arange(n_w)[None, :] < w[:, None]).reshape(-1)
            obs, last_obs, actions, lengths, term = sim.carts.episodes(carts[played])
            theta_e = np.repeat(sim.snapshot[slots], w, axis=0)
            eg = flat_episode_gradients(
                theta_e, obs, last_obs, actions, np.ones(actions.size), lengths, term,
                config.gamma, config.lam, config.beta, split=record_reports,
            )  # fmt: skip
            grad = np.zeros((carts.size, D))
            grad[played] = eg.grad
            finite = np.isfinite(grad).reshape(slots.size, n_w * D).all(axis=1)
            if not finite.all():  # a diverged trial (possible without clipping) leaves the batch
                grad[~np.repeat(finite, n_w)] = 0.0
                diverged[trials[~finite]] = True
            noisy, clipped = randomise(grad[played], config, gen)
            reports = np.zeros((carts.size, D))
            reports[played] = noisy
            received = sim.received[slots]
            applied = agg.submit(trials, first, reports.reshape(slots.size, n_w, D))
            sim.received[slots] += w
            cells = (np.repeat(trials, w), np.repeat(first, w) + _ranks(w))
            scores[cells] = lengths
            env_steps += int(lengths.sum())
            staleness[cells] = np.repeat(received - sim.version[slots], w) + _ranks(w)
            if record_reports:
                ones = np.add.reduceat(actions, np.cumsum(lengths) - lengths)
                _record(
                    stats, cells, eg, noisy, clipped, ones, lengths, applied.reshape(-1)[played]
                )
            stop = first + w
            cols = (first - config.window + 1)[:, None] + np.arange(n_w + config.window - 1)
            inside = (cols >= 0) & (cols < n_sub)
            block = np.where(inside, scores[trials[:, None], np.clip(cols, 0, n_sub - 1)], np.nan)
            found = first_success_time(block, config.window, config.target)
            new = np.isfinite(found) & ~np.isfinite(fst[trials])
            fst[trials[new]] = found[new] + cols[new, 0]
            leave = (stop >= n_sub) | diverged[trials]
            if config.stop_at_success:
                leave |= np.isfinite(fst[trials])
            sim.running[slots[leave]] = False
            sim.first[slots] = stop
            sim.launch(slots[~leave])
            if 2 * sim.running.sum() < sim.running.size:
                sim.compact()
            bar.update(int(w.sum()))
    bar.close()
    return TrainingResult(
        scores=scores, first_success=fst, env_steps=env_steps, reports=stats,
        diverged=diverged, staleness=staleness,
    )  # fmt: skip


def _ranks(w: np.ndarray) -> np.ndarray:
    """``0, 1, ..., w[0]-1, 0, 1, ..., w[1]-1, ...``: each report's worker in its wave."""
    return np.arange(int(w.sum())) - np.repeat(np.cumsum(w) - w, w)


class _Simulation:
    """The trials' waves on one set of carts: slot ``k`` (trial ``trial[k]``) owns carts
    ``k W, ..., k W + W - 1``; ``first[k]`` is the first submission of its current wave,
    ``snapshot[k]`` the parameters its workers copied, ``version[k]`` how many submissions the
    aggregator had received from the trial at that copy and ``received[k]`` how many now."""

    def __init__(
        self,
        config: PGCA3CConfig,
        agg: _Aggregator,
        gravity: np.ndarray,
        rng: np.random.Generator,
    ) -> None:
        n_trials = agg.theta.shape[0]
        self.config, self.agg, self.gravity, self.rng = config, agg, gravity, rng
        self.carts = _Carts(n_trials * config.n_workers, config.max_steps,
                            config.action_selection == "sample", group=config.n_workers)  # fmt: skip
        self.trial = np.arange(n_trials)
        self.first = np.zeros(n_trials, dtype=np.int64)
        self.snapshot = agg.theta.copy()
        self.version = np.zeros(n_trials, dtype=np.int64)
        self.received = np.zeros(n_trials, dtype=np.int64)
        self.running = np.ones(n_trials, dtype=bool)

    def launch(self, slots: np.ndarray) -> None:
        """Start the next wave of the trials in ``slots``: its workers copy the trial's current
        parameters and run one episode each (submissions ``first``, ..., ``first + w - 1``)."""
        cfg, n_w = self.config, self.config.n_workers
        first = self.first[slots]
        w = np.minimum(n_w, cfg.n_submissions - first)
        trials = self.trial[slots]
        self.snapshot[slots] = self.agg.theta[trials]
        self.version[slots] = self.received[slots]
        subs = np.repeat(first, w) + _ranks(w)
        carts = np.repeat(slots * n_w, w) + _ranks(w)
        alpha = np.maximum(0.0, cfg.alpha0 - subs / cfg.alpha_decay)
        theta = np.repeat(self.snapshot[slots], w, axis=0)
        self.carts.start(carts, theta, self.gravity[np.repeat(trials, w), subs], alpha, self.rng)

    def compact(self) -> None:
        """Drop the slots of trials that left the batch (their carts would step for nothing)."""
        keep = np.flatnonzero(self.running)
        self.carts.keep(keep)
        for name in ("trial", "first", "snapshot", "version", "received", "running"):
            setattr(self, name, getattr(self, name)[keep])


def _record(
    stats: dict[str, np.ndarray],
    cells: tuple[np.ndarray, np.ndarray],
    eg: EpisodeGradients,
    noisy: np.ndarray,
    clipped: np.ndarray | None,
    ones: np.ndarray,
    lengths: np.ndarray,
    applied: np.ndarray,
) -> None:
    """Store the per-report statistics of the submitted waves (see :class:`TrainingResult`);
    ``ones`` counts each episode's actions equal to 1, ``cells`` are (trial, submission)."""
    assert eg.actor is not None and eg.critic is not None  # computed with split=True
    a_norm, c_norm = np.abs(eg.actor).sum(axis=1), np.abs(eg.critic).sum(axis=1)
    values = {
        "raw_norm": np.abs(eg.grad).sum(axis=1),
        "report_norm": np.abs(noisy).sum(axis=1),
        "actor_share": a_norm / np.maximum(a_norm + c_norm, 1e-300),
        "entropy": eg.entropy,
        "majority_fraction": np.maximum(ones, lengths - ones) / lengths,
        "update_norm": applied,
    }
    if clipped is not None:
        values["clipped_norm"] = np.abs(clipped).sum(axis=1)
        values["noise_scale"] = np.abs(noisy - clipped).mean(axis=1)
    for key, value in values.items():
        stats[key][cells] = value
