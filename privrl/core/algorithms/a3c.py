"""PGC-A3C: locally private asynchronous advantage actor-critic (Ono and Takahashi 2020, Alg. 1).

An aggregator holds ``theta`` (d = 112); each agent copies it, plays one CartPole episode under
its private gravity ``psi_n``, randomises the gradient of its loss (eqs. 15-18) with an
epsilon-LDP mechanism (Laplace, Alg. 2, or PRS, Alg. 3) and submits it once; every
``buffer_size`` submissions ``theta <- theta - eta * mean(B)`` (eq. 22). Network (section 4):
``h = relu(theta_c s)`` (16 x 4, no bias), ``pi(.|s) = softmax(theta_p h)``, ``V(s) = theta_v h``;
flat ``[theta_c, theta_p, theta_v]``, Glorot-uniform initialisation (ours). Loss of an episode::

    L = sum_{t<T} [ -log pi(a_t|s_t) A_t  - beta H(pi(.|s_t))  + lambda (Vhat_t - V(s_t))^2 ]
    Vhat_t = sum_{j=t}^{T-1} gamma^{j-t} r_j + gamma^{T-t} V(s_T),   A_t = Vhat_t - V(s_t)

with ``A_t``, ``Vhat_t`` held constant, ``V(s_T) = 0`` at a fall and bootstrapped at the 200-step
cut (eq. 12's discounted form). Acting: greedy with probability ``1 - alpha``, else uniform,
``alpha = max(0, 0.5 - n/1800)`` at submission ``n``. Asynchrony in waves of ``W = n_workers``:
submission ``n`` misses the ``n mod W`` before it in its wave (``TrainingResult.staleness``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np
from tqdm import tqdm

from privrl.core.accounting.local import per_round_epsilon
from privrl.core.algorithms.a3c_rollout import N_ACTIONS, N_HIDDEN, N_OBS, rollout
from privrl.core.envs.cartpole import MAX_STEPS, TARGET_SCORE, sample_gravities
from privrl.core.mechanisms.local import laplace_gradient_parts, projected_random_sign
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_choice, check_epsilon, check_int, check_positive

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


_C, _P = _SIZES[0], _SIZES[0] + _SIZES[1]  # offsets of theta_p and theta_v in the flat vector


@numba.njit(cache=True)
def _forward(th: np.ndarray, s: np.ndarray, pre: np.ndarray) -> tuple[float, float, float]:
    """``pre = theta_c s`` (into ``pre``), and the logits ``theta_p h`` and value ``theta_v h`` of
    ``h = relu(pre)`` for one observation."""
    l0, l1, v = 0.0, 0.0, 0.0
    for i in range(N_HIDDEN):
        pre[i] = (
            th[4 * i] * s[0] + th[4 * i + 1] * s[1] + th[4 * i + 2] * s[2] + th[4 * i + 3] * s[3]
        )
        if pre[i] > 0.0:
            l0 += th[_C + i] * pre[i]
            l1 += th[_C + N_HIDDEN + i] * pre[i]
            v += th[_P + i] * pre[i]
    return l0, l1, v


@numba.njit(cache=True)
def _gradients(
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
    split: bool,
    loss: np.ndarray,
    actor: np.ndarray,
    critic: np.ndarray,
    entropy: np.ndarray,
) -> None:
    """Eqs. (12), (15)-(18) episode by episode (see :func:`flat_episode_gradients`): the actor's
    and the critic's gradients into ``actor`` and ``critic``, except the shared trunk's unless
    ``split`` (both parts then go into ``actor``'s)."""
    pre = np.empty(N_HIDDEN)
    target = np.empty(lengths.max())
    start = 0
    for e in range(lengths.size):
        th, n = theta[e], lengths[e]
        # eq. (12) backwards: Vhat_{L} = V(s_L) (0 if the pole fell), Vhat_t = r_t + gamma Vhat_{t+1}
        running = 0.0 if terminated[e] else _forward(th, last_obs[e], pre)[2]
        for t in range(n - 1, -1, -1):
            running = rewards[start + t] + gamma * running
            target[t] = running
        for t in range(n):
            s = obs[start + t]
            l0, l1, v = _forward(th, s, pre)
            m = max(l0, l1)
            log_norm = m + math.log(math.exp(l0 - m) + math.exp(l1 - m))
            lp0, lp1 = l0 - log_norm, l1 - log_norm
            p0, p1 = math.exp(lp0), math.exp(lp1)
            ent = -(p0 * lp0 + p1 * lp1)
            adv = target[t] - v  # a constant for differentiation (stop-gradient)
            a = actions[start + t]
            # d loss / d logits = -adv (onehot - p) + beta p (logp + H); d loss / d V = -2 lam adv
            dz0 = -adv * ((1.0 if a == 0 else 0.0) - p0) + beta * p0 * (lp0 + ent)
            dz1 = -adv * ((1.0 if a == 1 else 0.0) - p1) + beta * p1 * (lp1 + ent)
            dv = -2.0 * lam * adv
            loss[e] += -(lp1 if a == 1 else lp0) * adv - beta * ent + lam * adv * adv
            entropy[e] += ent
            for i in range(N_HIDDEN):
                if pre[i] <= 0.0:
                    continue
                actor[e, _C + i] += dz0 * pre[i]
                actor[e, _C + N_HIDDEN + i] += dz1 * pre[i]
                critic[e, _P + i] += dv * pre[i]
                dh_actor = dz0 * th[_C + i] + dz1 * th[_C + N_HIDDEN + i]
                dh_critic = dv * th[_P + i]
                if split:
                    for j in range(N_OBS):
                        actor[e, N_OBS * i + j] += dh_actor * s[j]
                        critic[e, N_OBS * i + j] += dh_critic * s[j]
                else:  # the trunk's gradient in ``actor`` only
                    for j in range(N_OBS):
                        actor[e, N_OBS * i + j] += (dh_actor + dh_critic) * s[j]
        entropy[e] /= n
        start += n


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
    ``s_L`` each episode ended in; ``lengths`` (E,) >= 1. Compiled (numba), episode by episode:
    the targets ``Vhat_t`` of eq. (12) by the backward recursion ``Vhat_t = r_t + gamma
    Vhat_{t+1}`` from ``Vhat_L = V(s_L)`` (0 if ``terminated``), then each step's contribution
    to the gradient of eqs. (15)-(18) added to its episode's sums: the cost is proportional to
    the number of steps. With ``split`` the actor and critic parts are returned too (else
    ``None``).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    n = actions.shape[0]
    if lengths.size == 0 or lengths.min() < 1 or lengths.sum() != n:
        raise ValueError("lengths must be >= 1 and sum to the number of steps")
    n_ep = lengths.size
    if (
        theta.shape != (n_ep, D)
        or obs.shape != (n, N_OBS)
        or last_obs.shape != (n_ep, N_OBS)
        or rewards.shape != (n,)
        or np.shape(terminated) != (n_ep,)
    ):
        raise ValueError(
            "theta (E, 112), obs (N, 4), last_obs (E, 4), rewards (N,) and "
            "terminated (E,) must fit lengths (E,) summing to N"
        )
    loss, entropy = np.zeros(n_ep), np.zeros(n_ep)
    actor, critic = np.zeros((n_ep, D)), np.zeros((n_ep, D))
    f64 = np.float64
    _gradients(
        np.ascontiguousarray(theta, f64),
        np.ascontiguousarray(obs, f64),
        np.ascontiguousarray(last_obs, f64),
        np.ascontiguousarray(actions, np.int64),
        np.ascontiguousarray(rewards, f64),
        lengths,
        np.ascontiguousarray(terminated, np.bool_),
        float(gamma),
        float(lam),
        float(beta),
        split,
        loss,
        actor,
        critic,
        entropy,
    )
    if not split:
        actor[:, _P:] = critic[:, _P:]  # theta_v's gradient: all of it the critic's
        return EpisodeGradients(loss, actor, None, None, entropy)
    return EpisodeGradients(loss, actor + critic, actor, critic, entropy)


def randomise(
    grads: np.ndarray, config: PGCA3CConfig, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray | None]:
    """Apply the configured mechanism with the per-submission budget ``epsilon / rounds``.

    Returns ``(report, clipped)``: the randomised submissions and, for Laplace, the clipped
    gradients the noise was added to (``None`` for PRS, whose clipping acts on ``M g``). The
    Laplace noise is drawn by the inversion sampler (one draw per coordinate; the exact law of
    the grid release).
    """
    eps = per_round_epsilon(config.epsilon, config.rounds)
    if config.mechanism == "laplace":
        clipped, noise = laplace_gradient_parts(grads, eps, config.clip_value, rng, inversion=True)
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


REPORT_STATISTICS = (
    "raw_norm",
    "clipped_norm",
    "noise_scale",
    "report_norm",
    "actor_share",
    "entropy",
    "majority_fraction",
    "update_norm",
)


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
        ``first[i] + 1``, ... in worker order (reports numbered ``n_submissions`` or more are not
        submitted); returns ``(len(rows), W)`` L1 norms of the applied updates (NaN
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

    Wave ``i`` of every running trial is simulated in one pass (module docstring): the workers
    copy their trial's parameters, all their episodes are played by the compiled rollout
    (:func:`~privrl.core.algorithms.a3c_rollout.rollout`, in the order trial, worker), their
    gradients computed on the episodes laid end to end, randomised in one call
    (:func:`randomise`), and each trial's reports submitted in worker order.
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
    received = np.zeros(n_trials, dtype=np.int64)  # submissions each aggregator has received
    trials = np.arange(n_trials)  # the running trials
    bar = tqdm(
        total=n_trials * n_sub,
        disable=not progress,
        desc=f"{config.mechanism} eps={config.epsilon}",
    )
    env_steps = 0
    with np.errstate(over="ignore", invalid="ignore"):  # divergence is handled per trial
        for first in range(0, n_sub, n_w):
            if trials.size == 0:
                break
            k, w = trials.size, min(n_w, n_sub - first)
            subs = np.arange(first, first + w)
            version = received[trials].copy()  # the workers copy theta now
            theta_e = np.repeat(agg.theta[trials], w, axis=0)
            alpha = np.maximum(0.0, config.alpha0 - subs / config.alpha_decay)
            ep = rollout(
                theta_e,
                gravity_all[trials][:, subs].reshape(-1),
                np.tile(alpha, k),
                gen,
                config.max_steps,
                config.action_selection == "sample",
            )
            eg = flat_episode_gradients(
                theta_e,
                ep.obs,
                ep.last_obs,
                ep.actions,
                np.ones(ep.actions.size),
                ep.lengths,
                ep.terminated,
                config.gamma,
                config.lam,
                config.beta,
                split=record_reports,
            )
            grad = eg.grad
            finite = np.isfinite(grad).reshape(k, w * D).all(axis=1)
            if not finite.all():  # a diverged trial (possible without clipping) leaves the batch
                grad[~np.repeat(finite, w)] = 0.0
                diverged[trials[~finite]] = True
            noisy, clipped = randomise(grad, config, gen)
            applied = agg.submit(trials, np.full(k, first), noisy.reshape(k, w, D))
            # report j of a wave reaches the aggregator after the wave's reports 0, ..., j - 1
            staleness[trials, first : first + w] = (received[trials] - version)[
                :, None
            ] + np.arange(w)
            received[trials] += w
            scores[trials, first : first + w] = ep.lengths.reshape(k, w)
            env_steps += int(ep.lengths.sum())
            if record_reports:
                ones = np.add.reduceat(ep.actions, np.cumsum(ep.lengths) - ep.lengths)
                cells = (np.repeat(trials, w), np.tile(subs, k))
                _record(stats, cells, eg, noisy, clipped, ones, ep.lengths, applied.reshape(-1))
            lo = max(0, first - config.window + 1)
            found = first_success_time(scores[trials, lo : first + w], config.window, config.target)
            new = np.isfinite(found) & ~np.isfinite(fst[trials])
            fst[trials[new]] = found[new] + lo
            leave = diverged[trials]
            if config.stop_at_success:
                leave |= np.isfinite(fst[trials])
            trials = trials[~leave]
            bar.update(k * w)
    bar.close()
    return TrainingResult(
        scores=scores,
        first_success=fst,
        env_steps=env_steps,
        reports=stats,
        diverged=diverged,
        staleness=staleness,
    )


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
