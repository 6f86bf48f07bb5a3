"""PGC-A3C: the compiled analytic gradient equals torch autograd and the two numpy forms (padded,
and flat); the staleness model holds; runs are reproducible; inputs checked."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from a3c_reference import episode_gradients, numpy_flat_episode_gradients, pad

from privrl.core.algorithms import a3c


def _torch_loss(theta, obs, actions, rewards, length, terminated, gamma, lam, beta):
    """Independent autograd implementation of eqs. (15)-(18) for one episode."""
    th = torch.tensor(theta, requires_grad=True, dtype=torch.float64)
    wc = th[:64].reshape(16, 4)
    wp = th[64:96].reshape(2, 16)
    wv = th[96:].reshape(1, 16)
    s = torch.tensor(obs[: length + 1], dtype=torch.float64)
    h = torch.relu(s @ wc.T)
    logp = torch.log_softmax(h @ wp.T, dim=-1)
    v = (h @ wv.T)[:, 0]
    boot = 0.0 if terminated else v[length].detach()
    targets = []
    running = boot
    for t in range(length - 1, -1, -1):
        running = rewards[t] + gamma * running
        targets.append(running)
    target = torch.stack([torch.as_tensor(x, dtype=torch.float64) for x in targets[::-1]])
    adv = target - v[:length]
    ent = -(logp.exp() * logp).sum(-1)[:length]
    la = logp[torch.arange(length), torch.as_tensor(actions[:length])]
    loss = (-la * adv.detach() - beta * ent).sum() + lam * (adv**2).sum()
    loss.backward()
    return loss.item(), th.grad.numpy()


def test_analytic_gradient_equals_autograd():
    rng = np.random.default_rng(0)
    theta = a3c.init_parameters(6, rng) * 3
    alpha = np.array([0.0, 0.2, 0.5, 1.0, 0.3, 0.0])
    obs, actions, rewards, lengths, term = pad(a3c.rollout(theta, np.full(6, 9.8), alpha, rng, 40))
    rewards = rewards * rng.uniform(0.5, 1.5, size=rewards.shape)  # generic rewards
    assert not term.all() or lengths.max() < 40
    out = episode_gradients(theta, obs, actions, rewards, lengths, term, 0.99, 0.5, 0.01)
    loss, grad = out.loss, out.grad
    for e in range(6):
        tl, tg = _torch_loss(
            theta[e],
            obs[e],
            actions[e],
            rewards[e],
            int(lengths[e]),
            bool(term[e]),
            0.99,
            0.5,
            0.01,
        )
        assert loss[e] == pytest.approx(tl, rel=1e-10)
        np.testing.assert_allclose(grad[e], tg, rtol=1e-9, atol=1e-10)


def test_truncated_episode_bootstraps():
    """An episode cut by the time limit must use V(s_T); gradients differ from the terminal case."""
    rng = np.random.default_rng(1)
    theta = a3c.init_parameters(1, rng) * 3
    obs, actions, rewards, lengths, term = pad(
        a3c.rollout(theta, np.full(1, 9.8), np.ones(1), rng, 5)
    )
    g_term = episode_gradients(
        theta, obs, actions, rewards, lengths, np.ones(1, bool), 0.99, 0.5, 0.01
    ).grad
    g_trunc = episode_gradients(
        theta, obs, actions, rewards, lengths, np.zeros(1, bool), 0.99, 0.5, 0.01
    ).grad
    assert not np.allclose(g_term, g_trunc)


def test_first_success_time_matches_definition():
    scores = np.array([[10, 200, 200, 190, 200, 200, 200], [200, 10, 200, 200, 200, 10, 10]], float)
    fst = a3c.first_success_time(scores, 3, 195)
    # brute force of eq. (26)
    expected = []
    for row in scores:
        hits = [n + 1 for n in range(len(row) - 2) if row[n : n + 3].mean() >= 195]
        expected.append(hits[0] if hits else math.inf)
    assert list(fst) == expected


@pytest.mark.parametrize("mechanism,eps,buffer", [("laplace", 1.0, 1), ("prs", 2.0, 5)])
def test_same_seed_same_result(mechanism, eps, buffer):
    cfg = a3c.PGCA3CConfig(mechanism=mechanism, epsilon=eps, buffer_size=buffer, n_submissions=60)
    r1 = a3c.train_pgc_a3c(cfg, 3, 7)
    r2 = a3c.train_pgc_a3c(cfg, 3, 7)
    r3 = a3c.train_pgc_a3c(cfg, 3, 8)
    np.testing.assert_array_equal(r1.scores, r2.scores)
    assert not np.array_equal(r1.scores, r3.scores)


def test_buffer_of_one_applies_every_submission():
    """With eps = inf and |B| = 1 parameters change after every wave; with |B| > n they never do."""
    cfg = a3c.PGCA3CConfig(epsilon=math.inf, buffer_size=1000, n_submissions=18, n_workers=9)
    res = a3c.train_pgc_a3c(cfg, 1, 0)
    assert np.isfinite(res.scores).all() and res.env_steps == res.scores.sum()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"epsilon": 0.0},
        {"epsilon": -1.0},
        {"buffer_size": 0},
        {"clip": 0.0},
        {"d_hat": 0},
        {"mechanism": "gaussian"},
        {"rounds": 0},
    ],
)
def test_bad_config_raises(kwargs):
    with pytest.raises(ValueError):
        a3c.PGCA3CConfig(**kwargs)


def test_seeds_give_identical_tables():
    """The whole Tables 1-3 pipeline (through run_sweep) is a function of the seed."""
    from privrl.papers.ono2020 import chapter as exp

    profile = exp.OnoProfile.quick(
        seed=3,
        n_trials=2,
        trials_per_seed=1,
        epsilons=[1.0, math.inf],
        n_submissions=30,
        variants=["paper"],
    )
    a = exp.sweep_tables(profile, executor="serial")
    b = exp.sweep_tables(profile, executor="serial")
    cols = ["mechanism", "epsilon", "seed", "trial", "first_success", "env_steps"]
    np.testing.assert_array_equal(a[cols].to_numpy(), b[cols].to_numpy())
    ta, tb = exp.success_tables(a, 30), exp.success_tables(b, 30)
    pd.testing.assert_frame_equal(ta, tb)
    assert len(ta) == 3  # Laplace at 1 and inf, PRS at 1
    assert sorted(a.trial.unique()) == [0, 1]


def _flat(obs, actions, rewards, lengths):
    """The padded episodes laid end to end (an independent loop)."""
    o = np.concatenate([obs[e, :n] for e, n in enumerate(lengths)])
    a = np.concatenate([actions[e, :n] for e, n in enumerate(lengths)])
    r = np.concatenate([rewards[e, :n] for e, n in enumerate(lengths)])
    return o, obs[np.arange(len(lengths)), lengths], a, r


@pytest.mark.parametrize("split", [False, True])
def test_compiled_gradients_equal_autograd_and_both_numpy_forms(split):
    """No padding: each episode's loss and gradient equal torch autograd on that episode alone,
    the padded computation and the flat numpy one; the actor and critic parts add up to the
    gradient."""
    rng = np.random.default_rng(4)
    theta = a3c.init_parameters(7, rng) * 3
    alpha = np.array([0.0, 0.2, 0.5, 1.0, 0.3, 0.0, 0.9])
    obs, actions, rewards, lengths, term = pad(a3c.rollout(theta, np.full(7, 9.7), alpha, rng, 12))
    rewards = rewards * rng.uniform(0.5, 1.5, size=rewards.shape)
    assert lengths.min() < lengths.max() and term.any() and not term.all()
    o, last, a, r = _flat(obs, actions, rewards, lengths)
    args = (theta, o, last, a, r, lengths, term, 0.99, 0.5, 0.01)
    flat = a3c.flat_episode_gradients(*args, split=split)
    padded = episode_gradients(theta, obs, actions, rewards, lengths, term, 0.99, 0.5, 0.01)
    vector = numpy_flat_episode_gradients(*args, split=True)
    for ref in (padded, vector):
        np.testing.assert_allclose(flat.grad, ref.grad, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(flat.loss, ref.loss, rtol=1e-12)
        np.testing.assert_allclose(flat.entropy, ref.entropy, rtol=1e-12)
    for e in range(7):
        tl, tg = _torch_loss(
            theta[e],
            obs[e],
            actions[e],
            rewards[e],
            int(lengths[e]),
            bool(term[e]),
            0.99,
            0.5,
            0.01,
        )
        assert flat.loss[e] == pytest.approx(tl, rel=1e-10)
        np.testing.assert_allclose(flat.grad[e], tg, rtol=1e-9, atol=1e-10)
    if split:
        np.testing.assert_allclose(flat.actor, padded.actor, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(flat.critic, padded.critic, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(flat.actor + flat.critic, flat.grad)
    else:
        assert flat.actor is None and flat.critic is None


def test_compiled_gradients_equal_the_numpy_forms_on_rolled_out_episodes():
    """200-step episodes, some cut by the time limit (bootstrapped), some fallen."""
    rng = np.random.default_rng(2)
    theta = a3c.init_parameters(12, rng) * 3
    ep = a3c.rollout(theta, np.full(12, 9.8), np.full(12, 0.5), rng, 200)
    a = episode_gradients(theta, *pad(ep)[:3], ep.lengths, ep.terminated, 0.99, 0.5, 0.01)
    args = (
        theta,
        ep.obs,
        ep.last_obs,
        ep.actions,
        np.ones(ep.actions.size),
        ep.lengths,
        ep.terminated,
        0.99,
        0.5,
        0.01,
    )
    b = a3c.flat_episode_gradients(*args, split=True)
    c = numpy_flat_episode_gradients(*args, split=True)
    for f in ("loss", "grad", "actor", "critic", "entropy"):
        np.testing.assert_allclose(getattr(b, f), getattr(a, f), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(getattr(b, f), getattr(c, f), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.actor + a.critic, a.grad)


def test_flat_gradients_reject_lengths_that_do_not_fit():
    rng = np.random.default_rng(0)
    theta = a3c.init_parameters(2, rng)
    obs, last = np.zeros((5, 4)), np.zeros((2, 4))
    args = (np.zeros(5, dtype=int), np.ones(5))
    for lengths in ([2, 2], [5, 0]):
        with pytest.raises(ValueError, match="lengths"):
            a3c.flat_episode_gradients(
                theta, obs, last, *args, np.array(lengths), np.ones(2, bool), 0.99, 0.5, 0.01
            )
    # shapes that do not fit (the compiled loop would read past them): a clear error instead
    for bad in ({"theta": theta[:1]}, {"obs": obs[:, :3]}, {"last": last[:1]}):
        kw = {"theta": theta, "obs": obs, "last": last, **bad}
        with pytest.raises(ValueError, match="must fit"):
            a3c.flat_episode_gradients(
                kw["theta"],
                kw["obs"],
                kw["last"],
                *args,
                np.array([2, 3]),
                np.ones(2, bool),
                0.99,
                0.5,
                0.01,
            )


def test_staleness_of_every_submission_is_n_mod_w():
    """Submission n of every trial misses exactly n mod W submissions (counted from the
    simulation's events), a short last wave included; every submission is played once."""
    n_sub, w = 301, 9  # a short last wave
    cfg = a3c.PGCA3CConfig(epsilon=2.0, n_submissions=n_sub, stop_at_success=False)
    res = a3c.train_pgc_a3c(cfg, 6, 3)
    assert np.isfinite(res.scores).all() and res.env_steps == res.scores.sum()
    np.testing.assert_array_equal(res.staleness, np.tile(np.arange(n_sub) % w, (6, 1)))


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop"])
def test_buffer_updates_after_every_full_buffer_out_of_step(optimizer):
    """|B| = 4 with waves of 9 and trials out of step: each trial's parameters change after
    submissions 3, 7, 11, ... and only then."""
    cfg = a3c.PGCA3CConfig(
        epsilon=1.0, buffer_size=4, n_submissions=50, optimizer=optimizer, stop_at_success=False
    )
    res = a3c.train_pgc_a3c(cfg, 4, 1, record_reports=True)
    applied = ~np.isnan(res.reports["update_norm"])
    expected = (np.arange(50) + 1) % 4 == 0
    np.testing.assert_array_equal(applied, np.tile(expected, (4, 1)))
    assert (res.reports["update_norm"][applied] > 0).all()


@pytest.mark.parametrize("stop", [False, True])
def test_first_success_found_during_training_matches_eq26_on_the_scores(stop):
    """Trials out of step find their first success time (eq. 26) wave by wave; it equals eq. 26
    on the full score rows, and with early stop a trial plays no submission after that wave."""
    cfg = a3c.PGCA3CConfig(
        epsilon=math.inf, target=25.0, window=5, n_submissions=300, stop_at_success=stop
    )
    res = a3c.train_pgc_a3c(cfg, 6, 2)
    expected = a3c.first_success_time(res.scores, cfg.window, cfg.target)
    assert np.isfinite(expected).sum() >= 2 and not np.isfinite(expected).all()
    np.testing.assert_array_equal(res.first_success, expected)
    if stop:
        played = (~np.isnan(res.scores)).sum(axis=1)
        done = np.isfinite(expected)
        known = expected[done] + cfg.window - 1  # submissions played when the window is full
        np.testing.assert_array_equal(played[done], -(-known // 9) * 9)
        assert (played[~done] == 300).all()


@pytest.mark.parametrize("optimizer", ["adam", "rmsprop"])
def test_adaptive_aggregator_matches_torch(optimizer):
    """The aggregator's Adam and RMSProp steps equal torch.optim's (defaults; RMSProp alpha 0.99)
    on the mean of each full buffer, over a sequence of 12 reports with |B| = 3."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    cfg = a3c.PGCA3CConfig(
        epsilon=1.0, buffer_size=3, n_submissions=12, optimizer=optimizer, eta=0.01
    )
    theta = rng.normal(size=(1, a3c.D))
    reports = rng.normal(size=(12, a3c.D))
    agg = a3c._Aggregator(theta.copy(), cfg)
    for n in range(0, 12, 4):
        agg.submit(np.array([0]), np.array([n]), reports[None, n : n + 4])
    param = torch.nn.Parameter(torch.tensor(theta[0]))
    opt = (
        torch.optim.Adam([param], lr=0.01)
        if optimizer == "adam"
        else torch.optim.RMSprop([param], lr=0.01, alpha=0.99)
    )
    for k in range(4):
        param.grad = torch.tensor(reports[3 * k : 3 * k + 3].mean(axis=0))
        opt.step()
    np.testing.assert_allclose(agg.theta[0], param.detach().numpy(), rtol=1e-10, atol=1e-12)
