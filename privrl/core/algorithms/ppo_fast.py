r"""PPO of :mod:`privrl.core.algorithms.ppo`, the same maths in numpy, for small networks on one or
a few environments.

:func:`train_ppo_fast` takes :func:`~privrl.core.algorithms.ppo.train_ppo`'s steps in the same
order with the same random draws, so on the same seed it takes the same actions and logs the
same values to floating-point tolerance: the numpy generator draws the torch seed, then each
roll-out's reset seed; the networks are torch's initialised under that seed; actions follow
torch's ``multinomial(p, 1)`` (:math:`\arg\max_i p_i/q_i`, :math:`q \sim \mathrm{Exp}(1)`); the
environments and the update are PPO's (clipped surrogate, KL stop at ``1.5 * target_kl``, value
MSE, a hand-written backward pass, torch's Adam). An auxiliary term (:class:`FastAuxiliary`)
answers a roll-out's queries at once and returns its loss and gradient in the policy's
probabilities.

Checkpoints (``checkpoint=PATH``, every ``checkpoint_every`` roll-outs, atomic; needs
``reset_each_epoch=True``) hold everything the rest of the run depends on; a run started on an
existing PATH of the same run (else ``ValueError``) continues to the same log, bit for bit, but
``wall_time``."""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable
from typing import Any, Protocol, cast

import gymnasium as gym
import numpy as np
import pandas as pd
import torch
from gymnasium import spaces
from threadpoolctl import threadpool_limits

from privrl.core.algorithms.ppo import ActorCritic, PPOConfig, advantages_and_targets
from privrl.core.checkpoint import load_checkpoint, save_checkpoint
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_int


class FastAuxiliary(Protocol):
    """An auxiliary policy loss for :func:`train_ppo_fast` (kickstarting implements it)."""

    def start_epoch(self, epoch: int) -> dict[str, float]: ...

    def rollout_targets(self, obs: np.ndarray) -> np.ndarray:
        """Targets (T, n_envs, m) of a roll-out's observations (T, n_envs, d), in step order."""
        ...

    def loss_and_grad(
        self, probs: np.ndarray, targets: np.ndarray
    ) -> tuple[float, np.ndarray | None]:
        """The term and its gradient with respect to ``probs`` (None: no gradient)."""
        ...

    def diagnostics(self, probs: np.ndarray, targets: np.ndarray) -> dict[str, float]: ...

    def state(self) -> dict[str, Any]:
        """What the auxiliary's later roll-outs depend on beyond their index (for a checkpoint)."""
        ...

    def restore(self, state: dict[str, Any]) -> None:
        """Set the auxiliary back to a :meth:`state`."""
        ...


class MLP:
    r"""A tanh MLP :math:`x \mapsto W_L \tanh(\cdots\tanh(W_1 x + b_1)\cdots) + b_L` in float32
    with torch's layout (``W`` is (out, in)); parameters and gradients are views into one flat
    array each (so Adam updates them in one pass)."""

    def __init__(self, params: list[np.ndarray]) -> None:
        sizes = [p.size for p in params]
        self.flat = np.concatenate([p.ravel() for p in params]).astype(np.float32)
        self.grad = np.zeros_like(self.flat)
        ends = np.cumsum(sizes)
        spans = [(e - s, e, p.shape) for p, s, e in zip(params, sizes, ends, strict=True)]
        self.params = [self.flat[a:b].reshape(shape) for a, b, shape in spans]
        self.grads = [self.grad[a:b].reshape(shape) for a, b, shape in spans]

    @classmethod
    def from_torch(cls, net: torch.nn.Module) -> MLP:
        """The weights of a :func:`~privrl.core.algorithms.ppo.mlp` (copied)."""
        return cls([p.detach().numpy().copy() for p in net.parameters()])

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Outputs for the rows of ``x`` and the layer inputs (for :meth:`backward`)."""
        acts = [x]
        n = len(self.params) // 2
        for j in range(n):
            z = acts[-1] @ self.params[2 * j].T
            z += self.params[2 * j + 1]
            if j < n - 1:
                acts.append(np.tanh(z, out=z))
        return z, acts

    def backward(self, acts: list[np.ndarray], g_out: np.ndarray) -> np.ndarray:
        """Write the gradient of :math:`\\sum` ``g_out * output`` into :attr:`grad` (returned)."""
        g = g_out
        for j in range(len(self.params) // 2 - 1, -1, -1):
            np.matmul(g.T, acts[j], out=self.grads[2 * j])
            np.sum(g, axis=0, out=self.grads[2 * j + 1])
            if j > 0:
                g = (g @ self.params[2 * j]) * (1.0 - acts[j] * acts[j])
        return self.grad


class Adam:
    r"""torch's Adam on a flat float32 array (betas 0.9, 0.999, eps 1e-8, no weight decay):
    :math:`m \leftarrow \beta_1 m + (1-\beta_1) g`, :math:`v \leftarrow \beta_2 v + (1-\beta_2)
    g^2`, :math:`\theta \leftarrow \theta - \frac{lr}{1-\beta_1^t}\, m / (\sqrt{v} /
    \sqrt{1-\beta_2^t} + \epsilon)`."""

    def __init__(
        self,
        params: np.ndarray,
        lr: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params, self.lr, self.betas, self.eps = params, float(lr), betas, float(eps)
        self.m, self.v, self.t = np.zeros_like(params), np.zeros_like(params), 0

    def step(self, grad: np.ndarray) -> None:
        b1, b2 = self.betas
        self.t += 1
        self.m *= b1
        self.m += (1.0 - b1) * grad
        self.v *= b2
        self.v += (1.0 - b2) * grad * grad
        denom = np.sqrt(self.v)
        denom /= math.sqrt(1.0 - b2**self.t)
        denom += self.eps
        self.params -= (self.lr / (1.0 - b1**self.t)) * self.m / denom


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax (float32)."""
    z = logits - logits.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def surrogate_grad(
    logp: np.ndarray, old_logp: np.ndarray, adv: np.ndarray, clip: float
) -> tuple[float, np.ndarray]:
    r"""The clipped surrogate :math:`-\mathrm{mean}\min(r A, \mathrm{clip}(r, 1\pm\epsilon) A)`
    and its gradient with respect to :math:`\log\pi(a_t|s_t)`, torch's subgradients:
    ``minimum`` halves the gradient of a tie between its arguments, ``clamp`` passes it on
    :math:`[1-\epsilon, 1+\epsilon]`."""
    ratio = np.exp(logp - old_logp)
    inside = (ratio >= 1 - clip) & (ratio <= 1 + clip)
    plain, clipped = ratio * adv, np.clip(ratio, 1 - clip, 1 + clip) * adv
    weight = np.where(plain < clipped, 1.0, np.where(plain > clipped, inside, 0.5 * (1 + inside)))
    loss = -float(np.minimum(plain, clipped).mean())
    return loss, (-(weight * plain) / len(logp)).astype(np.float32)


def logits_grad(g_logp_all: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Backward of log-softmax: gradient at the logits from the gradient at the log-probs."""
    return g_logp_all - probs * g_logp_all.sum(axis=-1, keepdims=True)


class _Env:
    """One environment stepped as a ``SAME_STEP`` vector-env copy (see module docstring)."""

    def __init__(self, env_fn: Callable[[], gym.Env], max_episode_steps: int | None) -> None:
        env = env_fn()
        self.env = gym.wrappers.TimeLimit(env, max_episode_steps) if max_episode_steps else env

    def reset(self, seed: int) -> np.ndarray:
        return np.asarray(self.env.reset(seed=seed)[0], dtype=np.float32).ravel()

    def state(self) -> Any:
        """What a seeded reset leaves of the past: an ale-py emulator's state with its generator
        (the sticky actions' draws, which a seeded reset after the first does not reseed,
        :class:`~privrl.core.envs.atari.ReseedWithoutReload`); ``None`` for other environments."""
        clone = getattr(self.env.unwrapped, "clone_state", None)
        return clone(include_rng=True) if clone is not None else None

    def restore(self, state: Any) -> None:
        """Set the environment back to a :meth:`state`."""
        if state is not None:
            self.env.unwrapped.restore_state(state)  # type: ignore[attr-defined]


def train_ppo_fast(
    env_fn: Callable[[], gym.Env],
    epochs: int,
    rng: SeedLike,
    config: PPOConfig,
    aux: FastAuxiliary | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: int = 25,
    run_id: Any = None,
) -> tuple[tuple[MLP, MLP], pd.DataFrame]:
    """:func:`~privrl.core.algorithms.ppo.train_ppo` (its log, same columns) on the numpy path;
    returns the policy and value :class:`MLP` and the log. Runs numpy's BLAS on one thread (on
    these small matrices more threads cost more CPU time than they save) and sets torch to one
    thread (the network initialisation and the action draws are torch's). ``checkpoint``: a file
    to save the run to every ``checkpoint_every`` roll-outs and to resume it from (module
    docstring); ``run_id``: what else identifies the run (e.g. its configuration and seed),
    stored in the file and checked on resuming."""
    epochs = check_int(epochs, "epochs", minimum=1)
    checkpoint_every = check_int(checkpoint_every, "checkpoint_every", minimum=1)
    if checkpoint is not None and not config.reset_each_epoch:
        raise ValueError(
            "checkpoint needs config.reset_each_epoch=True (the seeded reset of "
            "every roll-out is what restores the environments)"
        )
    rng = as_generator(rng)
    identity = None
    if checkpoint is not None:
        identity = {
            "run_id": run_id,
            "ppo": dataclasses.asdict(config),
            "epochs": epochs,
            "rng": rng.bit_generator.state,
        }
    with threadpool_limits(limits=1, user_api="blas"):
        return _train(env_fn, epochs, rng, config, aux, checkpoint, checkpoint_every, identity)


def _train(
    env_fn: Callable[[], gym.Env],
    epochs: int,
    rng: np.random.Generator,
    config: PPOConfig,
    aux: FastAuxiliary | None,
    checkpoint: str | os.PathLike[str] | None,
    every: int,
    identity: dict[str, Any] | None,
) -> tuple[tuple[MLP, MLP], pd.DataFrame]:
    """The body of :func:`train_ppo_fast`."""
    torch.set_num_threads(1)
    torch_gen_seed = int(rng.integers(2**62))
    torch.manual_seed(torch_gen_seed)
    envs = [_Env(env_fn, config.max_episode_steps) for _ in range(config.n_envs)]
    space = envs[0].env.observation_space
    obs_dim = int(np.prod(cast(tuple[int, ...], space.shape)))
    n_actions = int(cast(spaces.Discrete, envs[0].env.action_space).n)
    agent = ActorCritic(obs_dim, n_actions, config.hidden_sizes)
    pi, v = MLP.from_torch(agent.pi), MLP.from_torch(agent.v)
    pi_opt, v_opt = Adam(pi.flat, config.pi_lr), Adam(v.flat, config.vf_lr)
    gen = torch.Generator().manual_seed(torch_gen_seed)
    n_e, n_t = config.n_envs, config.steps_per_epoch // config.n_envs
    obs_buf = np.zeros((n_t, n_e, obs_dim), dtype=np.float32)
    act_buf = np.zeros((n_t, n_e), dtype=np.int64)
    rew_buf, logp_buf, done_buf = (np.zeros((n_t, n_e), dtype=np.float32) for _ in range(3))

    def reset_all() -> np.ndarray:
        seed = int(rng.integers(2**31))
        return np.stack([e.reset(seed + i) for i, e in enumerate(envs)])

    def state() -> dict[str, Any]:
        """What the rest of the run depends on, after roll-out ``epoch``."""
        return {
            "pi": pi.flat.copy(),
            "v": v.flat.copy(),
            "adam": [(o.m.copy(), o.v.copy(), o.t) for o in (pi_opt, v_opt)],
            "rng": rng.bit_generator.state,
            "torch": gen.get_state().numpy().copy(),
            "aux": aux.state() if aux is not None else None,
            "epoch": epoch + 1,
            "steps": steps,
            "rows": list(rows),
            "elapsed": time.perf_counter() - t0,
            "envs": [e.state() for e in envs],
        }

    obs = reset_all()
    ep_ret = np.zeros(n_e)
    rows, elapsed, steps, start = [], 0.0, 0, 0
    saved = (
        load_checkpoint(checkpoint, identity)
        if checkpoint is not None and identity is not None
        else None
    )
    if saved is not None:  # every roll-out starts with a seeded reset (reset_each_epoch)
        pi.flat[:], v.flat[:] = saved["pi"], saved["v"]
        for opt, (m, v2, t) in zip((pi_opt, v_opt), saved["adam"], strict=True):
            opt.m[:], opt.v[:], opt.t = m, v2, t
        rng.bit_generator.state = saved["rng"]
        gen.set_state(torch.from_numpy(saved["torch"]))
        if aux is not None:
            aux.restore(saved["aux"])
        for e, env_state in zip(envs, saved["envs"], strict=True):
            e.restore(env_state)
        start, steps, rows, elapsed = (
            saved["epoch"],
            saved["steps"],
            saved["rows"],
            saved["elapsed"],
        )
    t0 = time.perf_counter() - elapsed
    n_layers = len(pi.params) // 2
    for epoch in range(start, epochs):
        info_row = aux.start_epoch(epoch) if aux is not None else {}
        if config.reset_each_epoch and epoch > 0:
            obs = reset_all()
            ep_ret[:] = 0.0
        finished: list[float] = []
        cuts: list[tuple[int, int, np.ndarray]] = []
        q = torch.empty((n_t, n_e, n_actions)).exponential_(1, generator=gen).numpy()
        weights = [(pi.params[2 * j].T.copy(), pi.params[2 * j + 1]) for j in range(n_layers)]
        for t in range(n_t):
            z = obs
            for j, (w, b) in enumerate(weights):
                z = z @ w
                z += b
                if j < n_layers - 1:
                    np.tanh(z, out=z)
            logp_all = log_softmax(z)
            action = np.argmax(np.exp(logp_all) / q[t], axis=-1)
            obs_buf[t], act_buf[t] = obs, action
            logp_buf[t] = logp_all[np.arange(n_e), action]
            obs = obs.copy()
            for i, e in enumerate(envs):
                o, reward, term, trunc, _ = e.env.step(action[i])
                rew_buf[t, i] = reward
                ep_ret[i] += rew_buf[t, i]
                done_buf[t, i] = term or trunc
                if term or trunc:
                    if trunc and not term:  # bootstrapped after the roll-out
                        cuts.append((t, i, np.asarray(o, dtype=np.float32).ravel()))
                    finished.append(float(ep_ret[i]))
                    ep_ret[i] = 0.0
                    o, _ = e.env.reset()
                obs[i] = np.asarray(o, dtype=np.float32).ravel()
        steps += config.steps_per_epoch
        # V(s_t), V(s_final) of the cut episodes and V(s_T) at the roll-out policy, one batch
        finals = [c[2][None] for c in cuts]
        values = v.forward(np.concatenate([obs_buf.reshape(-1, obs_dim), *finals, obs]))[0][:, 0]
        val_buf = values[: n_t * n_e].reshape(n_t, n_e)
        for j, (t, i, _) in enumerate(cuts):
            rew_buf[t, i] += config.gamma * values[n_t * n_e + j]
        last_v = values[-n_e:]
        adv, ret = advantages_and_targets(
            rew_buf,
            val_buf,
            done_buf,
            last_v,
            config.gamma,
            config.gae_lambda,
            config.value_targets,
        )
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        b_obs, b_act = obs_buf.reshape(-1, obs_dim), act_buf.reshape(-1)
        b_adv, b_ret, b_logp = adv.reshape(-1), ret.reshape(-1), logp_buf.reshape(-1)
        b_tgt = (
            aux.rollout_targets(obs_buf).astype(np.float32).reshape(-1, n_actions)
            if aux is not None
            else None
        )
        update = _update(
            pi, v, pi_opt, v_opt, config, aux, b_obs, b_act, b_adv, b_ret, b_logp, b_tgt
        )
        rows.append(
            {
                "epoch": epoch,
                "env_steps": steps,
                "avg_return": float(np.mean(finished)) if finished else np.nan,
                "n_episodes": len(finished),
                **update,
                "wall_time": time.perf_counter() - t0,
                **info_row,
            }
        )
        if (
            checkpoint is not None
            and identity is not None
            and (epoch + 1) % every == 0
            and epoch + 1 < epochs
        ):
            save_checkpoint(checkpoint, identity, state())
    for e in envs:
        e.env.close()
    return (pi, v), pd.DataFrame(rows)


def _update(
    pi: MLP,
    v: MLP,
    pi_opt: Adam,
    v_opt: Adam,
    config: PPOConfig,
    aux: FastAuxiliary | None,
    b_obs: np.ndarray,
    b_act: np.ndarray,
    b_adv: np.ndarray,
    b_ret: np.ndarray,
    b_logp: np.ndarray,
    b_tgt: np.ndarray | None,
) -> dict[str, Any]:
    """PPO's update loop of :func:`~privrl.core.algorithms.ppo.train_ppo` (policy and value
    steps interleaved, the policy stopping on KL); returns the log's update columns."""
    n = len(b_obs)
    rows = np.arange(n)
    kl, pi_iters, aux_loss, loss_v = 0.0, 0, 0.0, np.nan
    pi_on = config.train_pi_iters > 0
    diag: dict[str, float] = {"entropy": np.nan}
    for it in range(max(config.train_pi_iters, config.train_v_iters)):
        pi_on = pi_on and it < config.train_pi_iters
        v_on = it < config.train_v_iters
        if pi_on:
            logits, acts = pi.forward(b_obs)
            logp_all = log_softmax(logits)
            logp = logp_all[rows, b_act]
            kl = float((b_logp - logp).mean())
            pi_on = kl <= 1.5 * config.target_kl
        if pi_on:
            probs = np.exp(logp_all)
            _, g_logp = surrogate_grad(logp, b_logp, b_adv, config.clip_ratio)
            g_all = np.zeros_like(logp_all)
            g_all[rows, b_act] = g_logp
            if it == 0:
                diag["entropy"] = float(-(probs * logp_all).sum(-1).mean())
            g_aux = None
            if aux is not None and b_tgt is not None:
                aux_loss, g_probs = aux.loss_and_grad(probs, b_tgt)
                if g_probs is not None:
                    g_aux = g_probs * probs
            if it == 0 and aux is not None and b_tgt is not None:
                diag |= _aux_diagnostics(aux, pi, acts, probs, b_tgt, g_all, g_aux)
            if g_aux is not None:
                g_all += g_aux
            pi.backward(acts, logits_grad(g_all, probs))
            pi_opt.step(pi.grad)
            pi_iters += 1
        if v_on:
            values, v_acts = v.forward(b_obs)
            err = values[:, 0] - b_ret
            loss_v = float((err * err).mean())
            v.backward(v_acts, (2.0 / n * err)[:, None].astype(np.float32))
            v_opt.step(v.grad)
        if not (pi_on or v_on):
            break
    return {
        "kl": kl,
        "pi_iters": pi_iters,
        "loss_v": loss_v if config.train_v_iters else np.nan,
        "aux_loss": aux_loss,
        **diag,
    }


def _aux_diagnostics(
    aux: FastAuxiliary,
    pi: MLP,
    acts: list[np.ndarray],
    probs: np.ndarray,
    targets: np.ndarray,
    g_clip: np.ndarray,
    g_aux: np.ndarray | None,
) -> dict[str, float]:
    """The auxiliary term's share of the policy-gradient norm and its own ``diagnostics``
    (as :mod:`~privrl.core.algorithms.ppo` logs them)."""

    def norm(g: np.ndarray | None) -> float:
        if g is None:
            return 0.0
        return float(np.sqrt(np.sum(pi.backward(acts, logits_grad(g, probs)) ** 2)))

    a, c = norm(g_aux), norm(g_clip)
    return {"aux_grad_share": a / (a + c) if a + c > 0 else 0.0, **aux.diagnostics(probs, targets)}
