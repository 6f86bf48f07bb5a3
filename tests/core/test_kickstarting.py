"""Kickstarting with the Dirichlet mechanism (Gohari et al. 2021, eqs. 15-17)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

from privrl.core.accounting.dirichlet import lemma1_printed_radius, lemma1_union_radius
from privrl.core.algorithms.kickstarting import Kickstarter, kickstart_penalty
from privrl.core.algorithms.ppo import ActorCritic, PPOConfig, train_ppo
from privrl.core.envs.atari import make_env


def test_penalty_zero_inside_ball():
    probs = torch.tensor([[0.5, 0.5], [0.3, 0.7]], requires_grad=True)
    targets = torch.tensor([[0.55, 0.45], [0.25, 0.75]])  # distances 0.0707 < alpha
    loss = kickstart_penalty(probs, targets, alpha=0.1)
    loss.backward()
    assert float(loss.detach()) == 0.0 and torch.all(probs.grad == 0)


def test_penalty_gradient_points_to_teacher_outside():
    probs = torch.tensor([[0.9, 0.05, 0.05]], requires_grad=True)
    targets = torch.tensor([[0.1, 0.6, 0.3]])
    loss = kickstart_penalty(probs, targets, alpha=0.2)
    loss.backward()
    d = targets - probs.detach()
    assert float(loss.detach()) == pytest.approx(float(torch.linalg.vector_norm(d)))
    cos = torch.nn.functional.cosine_similarity(-probs.grad, d)
    assert float(cos) == pytest.approx(1.0)


def _teacher(seed=0):
    torch.manual_seed(seed)
    return ActorCritic(4, 2, (8, 8))


def test_schedule_radius_and_budget():
    ks = Kickstarter(_teacher(), 0, k0=5.0, coefficient=0.3, lam=0.5, k_min=0.5, tau=1e-3)
    row0 = ks.start_epoch(0)
    assert row0["k"] == 5.0 and row0["alpha"] == pytest.approx(0.5 * lemma1_printed_radius(5, 0.05))
    assert row0["epsilon_query"] > 0 and 0 < row0["delta_query"] < 1
    assert ks.start_epoch(1)["k"] == pytest.approx(1.5)
    spent = ks.start_epoch(2)  # k = 0.45 < k_min
    assert spent["epsilon_query"] == 0.0 and not ks.active
    obs = np.zeros((20000, 4), dtype=np.float32)  # same state: answers must not depend on it
    t = ks.targets(obs)
    assert np.allclose(t.sum(1), 1) and abs(t[:, 0].mean() - 0.5) < 0.01 and t[:, 0].std() > 0.25
    union = Kickstarter(_teacher(), 0, radius="union", lam=1.0)
    union.start_epoch(0)
    assert union.alpha == pytest.approx(lemma1_union_radius(5, 2, 0.05))


def test_private_answers_are_noisy_and_unbiased():
    ks = Kickstarter(_teacher(), 0, k0=5.0, eta=0.1)
    ks.start_epoch(0)
    obs = np.tile(np.array([[0.1, -0.2, 0.05, 0.3]], dtype=np.float32), (40000, 1))
    f = ks.teacher_policy(obs[:1])[0]
    assert np.all(f >= 0.1 - 1e-12)
    t = ks.targets(obs)
    assert np.all(np.abs(t.mean(0) - f) < 0.005)
    assert np.allclose(t.var(0), f * (1 - f) / 6, rtol=0.05)
    exact = Kickstarter(_teacher(), 0, private=False)
    exact.start_epoch(3)
    np.testing.assert_allclose(exact.targets(obs[:1])[0], exact.teacher_policy(obs[:1])[0])


def test_kickstarted_ppo_runs_and_logs_privacy():
    teacher = _teacher()
    aux = Kickstarter(teacher, 1, coefficient=0.5, tau=1e-3, lipschitz=2.0, b=0.01)
    cfg = PPOConfig(
        hidden_sizes=(8, 8), steps_per_epoch=200, n_envs=2, train_pi_iters=3, train_v_iters=3
    )
    _, log = train_ppo(functools.partial(make_env, "cartpole"), 3, 0, cfg, aux)
    assert list(log["k"]) == pytest.approx([5.0, 2.5, 1.25])
    assert (log["epsilon_query"] > 0).all() and (log["aux_loss"] >= 0).all()


@pytest.mark.parametrize(
    "kw", [{"coefficient": 1.5}, {"radius": "other"}, {"eta": 0.5}, {"k0": 0.0}, {"lam": -1.0}]
)
def test_bad_inputs_raise(kw):
    with pytest.raises(ValueError):
        Kickstarter(_teacher(), 0, **kw)


def test_figure2_run_function_through_sweep():
    from privrl.papers.gohari2021 import runs as exp

    profile = exp.GohariProfile.quick(
        epochs=2, steps_per_epoch=200, n_envs=2, train_pi_iters=3, train_v_iters=3, n_trials=1
    )
    configs = [c for c in exp.figure2_configs(profile) if c["panel"] in ("b", "c")][:2]
    runs = exp.run_figure2(profile, configs, executor="serial")
    assert set(runs["label"]) == {"kickstarting", "aware, c = 0.1"}
    assert len(runs) == 2 * 2 and runs["avg_return"].notna().all()
    private = runs[runs.label == "aware, c = 0.1"]
    spent = exp.privacy_spent(private, profile.steps_per_epoch)
    assert spent["n_queries"] == 200 * 2  # k: 5, 0.5 (both >= k_min = 0.1)
    assert spent["basic_epsilon"] == pytest.approx(200 * private["epsilon_query"].sum())


def _extreme_teacher():
    """A teacher whose softmax puts almost all mass on action 0 (logit gap 40): unrestricted, its
    policy has entries far below eta."""
    teacher = _teacher()
    with torch.no_grad():
        teacher.pi[-1].weight.zero_()
        teacher.pi[-1].bias.copy_(torch.tensor([20.0, -20.0]))
    return teacher


def test_teacher_policy_is_restricted_to_the_eta_simplex():
    # Theorem 1 needs f(s) in Delta_{m,eta}: f = (1 - m eta) softmax + eta. Without the restriction
    # the answers' mean would be the raw softmax (about (1, 0)), here it must be (0.9, 0.1).
    eta = 0.1
    ks = Kickstarter(_extreme_teacher(), 0, k0=5.0, eta=eta)
    ks.start_epoch(0)
    obs = np.zeros((40000, 4), dtype=np.float32)
    f = ks.teacher_policy(obs[:1])[0]
    np.testing.assert_allclose(f, [1 - eta, eta], atol=1e-9)
    t = ks.targets(obs)
    # mean of Dir_k(f) is f; standard error sqrt(0.09 / 6 / 40000) = 6e-4, tolerance 5 s.e.
    assert np.all(np.abs(t.mean(0) - f) < 3e-3)


def test_unrestricted_teacher_policy_is_rejected_by_the_mechanism():
    eta = 0.1
    ks = Kickstarter(_extreme_teacher(), 0, k0=5.0, eta=eta)
    ks.start_epoch(0)
    raw = Kickstarter(_extreme_teacher(), 0, private=False).teacher_policy(
        np.zeros((3, 4), np.float32)
    )
    ks.teacher_policy = lambda obs: raw  # the restriction removed
    with pytest.raises(ValueError, match="eta-restricted simplex"):
        ks.targets(np.zeros((3, 4), dtype=np.float32))


def test_silent_teacher_sends_nothing_after_its_budget():
    ks = Kickstarter(
        _teacher(), 0, k0=5.0, coefficient=0.3, k_min=0.5, tau=1e-3, after_budget="silent"
    )
    ks.start_epoch(0)
    obs = np.zeros((50, 4), dtype=np.float32)
    informed = ks.targets(obs)
    probs = torch.full((50, 2), 0.5, requires_grad=True)
    assert np.allclose(informed.sum(1), 1) and not ks.silent
    spent = ks.start_epoch(2)  # k = 0.45 < k_min
    assert ks.silent and spent["epsilon_query"] == 0.0 and spent["delta_query"] == 0.0
    assert np.all(ks.targets(obs) == 0)
    loss = ks.loss(probs, torch.as_tensor(informed))
    loss.backward()
    assert float(loss.detach()) == 0.0 and torch.all(probs.grad == 0)
    assert ks.diagnostics(probs, torch.as_tensor(informed)) == {"penalised_fraction": 0.0}
    with pytest.raises(ValueError, match="after_budget"):
        Kickstarter(_teacher(), 0, after_budget="nothing")


def test_penalised_fraction_counts_answers_outside_the_ball():
    ks = Kickstarter(_teacher(), 0, lam=1.0, radius="printed")
    ks.start_epoch(0)  # alpha = printed radius at k = 5: 0.5 * ... about 0.5
    probs = torch.tensor([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0], [0.0, 1.0]])
    targets = torch.tensor([[0.5, 0.5], [0.45, 0.55], [0.0, 1.0], [0.0, 1.0]])
    # distances 0, 0.07, 1.41, 0 against alpha = 0.5: one of four penalised
    assert ks.alpha == pytest.approx(lemma1_printed_radius(5, 0.05))
    assert ks.diagnostics(probs, targets)["penalised_fraction"] == 0.25


def test_ppo_logs_entropy_and_the_penalty_share_of_the_gradient():
    cfg = PPOConfig(
        hidden_sizes=(8, 8), steps_per_epoch=200, n_envs=2, train_pi_iters=3, train_v_iters=3
    )
    env = functools.partial(make_env, "cartpole")
    _, plain = train_ppo(env, 2, 0, cfg)
    assert "aux_grad_share" not in plain and (plain["entropy"] > 0.6).all()  # near log 2 = 0.69
    assert (plain["entropy"] <= np.log(2) + 1e-6).all()
    strong = Kickstarter(_teacher(), 1, private=False, weight=100.0)
    _, log = train_ppo(env, 2, 0, cfg, strong)
    assert (log["aux_grad_share"] > 0.5).all() and (log["penalised_fraction"] == 1.0).all()
    off = Kickstarter(_teacher(), 1, lam=100.0)  # a ball that covers the simplex: never penalised
    _, log = train_ppo(env, 2, 0, cfg, off)
    assert (log["aux_grad_share"] == 0).all() and (log["penalised_fraction"] == 0).all()
