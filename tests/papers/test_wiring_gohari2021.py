"""Wiring tests of the Dirichlet teacher (Gohari et al. 2021): every query the Kickstarter sends
to the Dirichlet mechanism lies in the eta-restricted simplex Theorem 1 assumes."""

from __future__ import annotations

import numpy as np
import torch

from privrl.core.algorithms import kickstarting
from privrl.core.algorithms.ppo import ActorCritic


def test_teacher_queries_are_eta_restricted(monkeypatch):
    teacher = ActorCritic(3, 2, (4,))
    with torch.no_grad():  # a saturated teacher: softmax outputs within 1e-20 of a vertex
        teacher.pi[-1].bias.copy_(torch.tensor([60.0, -60.0]))
    seen = []
    real = kickstarting.dirichlet_mechanism

    def spy(policy, k, rng, eta=None):
        seen.append(np.asarray(policy))
        return real(policy, k, rng, eta=eta)

    monkeypatch.setattr(kickstarting, "dirichlet_mechanism", spy)
    ks = kickstarting.Kickstarter(teacher, rng=0, eta=0.1)
    ks.start_epoch(0)
    ks.targets(np.zeros((5, 3)))
    assert len(seen) == 1
    assert seen[0].min() >= 0.1 - 1e-12
    np.testing.assert_allclose(seen[0].sum(axis=1), 1.0)


def test_each_query_uses_the_schedules_k(monkeypatch):
    """The concentration the mechanism draws with is k0 c^t: a doubled k (half the noise) or a
    slower schedule on the way from the Kickstarter to the mechanism fails here."""
    teacher = ActorCritic(3, 2, (4,))
    ks_seen = []
    real = kickstarting.dirichlet_mechanism

    def spy(policy, k, rng, eta=None):
        ks_seen.append(k)
        return real(policy, k, rng, eta=eta)

    monkeypatch.setattr(kickstarting, "dirichlet_mechanism", spy)
    ks = kickstarting.Kickstarter(teacher, rng=0, k0=5.0, coefficient=0.3, eta=0.1, k_min=0.1)
    for epoch in range(3):
        row = ks.start_epoch(epoch)
        ks.targets(np.zeros((2, 3)))
        assert ks_seen[-1] == row["k"] == 5.0 * 0.3**epoch


def test_run_agent_hands_the_profile_to_the_kickstarter(monkeypatch):
    """Every privacy parameter of a private run reaches the Kickstarter unchanged (k0, schedule,
    eta, tau, b, the teacher's certified L, what the teacher sends after its budget)."""
    from privrl.papers.gohari2021 import runs, student
    from privrl.papers.gohari2021.profile import GohariProfile
    from privrl.papers.gohari2021.teacher import load_teacher, teacher_lipschitz

    profile = GohariProfile.quick()
    config = next(
        c for c in runs.figure2_configs(profile) if c["label"].endswith("silent after budget")
    )
    seen = {}

    def fake_train(env_fn, epochs, rng, ppo, aux):
        seen["aux"] = aux
        return None, None

    monkeypatch.setattr(student, "train_ppo", fake_train)
    student.run_agent(config, np.random.SeedSequence(0))
    aux = seen["aux"]
    teacher, _ = load_teacher(profile.env)
    assert (aux.k0, aux.coefficient, aux.eta, aux.tau, aux.b) == (
        profile.k0,
        0.3,
        profile.eta,
        profile.tau,
        profile.b,
    )
    assert aux.lipschitz == teacher_lipschitz(teacher, profile.eta)
    assert aux.private and aux.after_budget == "silent" and aux.lam == profile.lam
