"""The padded form of PGC-A3C's per-episode gradients (eqs. 12, 15-18), kept as a test reference.

The library computes them on episodes laid end to end
(:func:`privrl.core.algorithms.a3c.flat_episode_gradients`); this form pads every episode to the
longest and uses batched matrix products. ``test_a3c.py`` checks it against torch autograd, and
the flat form against it.
"""

from __future__ import annotations

import numpy as np

from privrl.core.algorithms.a3c import _SIZES, N_ACTIONS, EpisodeGradients, _log_softmax, unpack


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
