"""Two numpy forms of PGC-A3C's per-episode gradients (eqs. 12, 15-18), kept as test references.

The library computes them in a compiled loop, episode by episode
(:func:`privrl.core.algorithms.a3c.flat_episode_gradients`). :func:`episode_gradients` pads every
episode to the longest and uses batched matrix products; :func:`numpy_flat_episode_gradients`
(the library's form before the compiled one) lays the episodes end to end, forms every step's
contribution with vector operations and sums them per episode (``np.add.reduceat``), with
:func:`flat_discounted_targets` for eq. (12). ``test_a3c.py`` checks both against torch autograd,
and the compiled form against both. :func:`pad` turns the rollout's flat episodes into the padded
arrays.
"""

from __future__ import annotations

import numpy as np

from privrl.core.algorithms.a3c import (
    _SIZES,
    N_ACTIONS,
    N_HIDDEN,
    N_OBS,
    D,
    EpisodeGradients,
    unpack,
)
from privrl.core.algorithms.a3c_rollout import Episodes


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    m = logits.max(axis=-1, keepdims=True)
    return logits - m - np.log(np.exp(logits - m).sum(axis=-1, keepdims=True))


def pad(ep: Episodes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The flat episodes as padded arrays: ``obs`` (E, T+1, 4) with each episode's last state at
    its length, ``actions`` (E, T), ``rewards`` (E, T) (1 per step), ``lengths``, ``terminated``;
    ``T`` the longest episode, zeros past an episode's end."""
    n_ep, horizon = ep.lengths.size, int(ep.lengths.max())
    obs = np.zeros((n_ep, horizon + 1, 4))
    actions = np.zeros((n_ep, horizon), dtype=np.int64)
    starts = np.cumsum(ep.lengths) - ep.lengths
    for e, (start, n) in enumerate(zip(starts, ep.lengths, strict=True)):
        obs[e, :n] = ep.obs[start : start + n]
        obs[e, n] = ep.last_obs[e]
        actions[e, :n] = ep.actions[start : start + n]
    rewards = (np.arange(horizon)[None, :] < ep.lengths[:, None]).astype(np.float64)
    return obs, actions, rewards, ep.lengths.copy(), ep.terminated.copy()


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


def numpy_flat_episode_gradients(
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
