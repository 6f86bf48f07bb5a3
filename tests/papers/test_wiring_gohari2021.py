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
    ks = kickstarting.Kickstarter(teacher, rng=0, eta=0.1, delta_samples=100)
    ks.start_epoch(0)
    ks.targets(np.zeros((5, 3)))
    assert len(seen) == 1
    assert seen[0].min() >= 0.1 - 1e-12
    np.testing.assert_allclose(seen[0].sum(axis=1), 1.0)
