"""The Dirichlet mechanism's ledger event (Gohari et al. 2021, Theorem 1): it round-trips through
the ledger's JSON form, recomputes eq. (12), and moves with the budget and the noise."""

from __future__ import annotations

import dataclasses

import pytest

from privrl.core.accounting import dirichlet as acc
from privrl.core.accounting.events import event_from_dict, event_to_dict

EVENT = acc.DirichletMechanismEvent(k=5.0, m=6, eta=0.1, tau=1.84e-5, lipschitz=145.9, b=1.05e-4)


def test_event_round_trips_and_recomputes_theorem1():
    data = event_to_dict(EVENT)
    assert data["event"] == "DirichletMechanismEvent"
    again = event_from_dict(data)
    assert again == EVENT
    expected = acc.theorem1_epsilon(acc.Theorem1Mechanism(5.0, 6, 0.1, 1.84e-5), 145.9, 1.05e-4)
    assert again.epsilon(0.05) == expected == EVENT.epsilon(0.05)


def test_a_stated_product_l_b_gives_the_same_epsilon():
    product = dataclasses.replace(EVENT, lipschitz=EVENT.lipschitz * EVENT.b, b=1.0)
    assert product.epsilon(0.05) == EVENT.epsilon(0.05)


def test_more_budget_or_less_noise_changes_epsilon():
    base = EVENT.epsilon(0.05)
    # twice the adjacency radius b: observations further apart are protected, at a higher epsilon
    assert dataclasses.replace(EVENT, b=2 * EVENT.b).epsilon(0.05) > base
    # half the noise: Var x_i = pi_i (1 - pi_i) / (k + 1), so about twice the concentration k
    assert dataclasses.replace(EVENT, k=2 * EVENT.k).epsilon(0.05) > base


def test_event_refuses_a_delta_that_is_not_a_probability():
    with pytest.raises(ValueError, match="delta"):
        EVENT.epsilon(1.5)


def test_event_gives_no_guarantee_below_its_delta_bound():
    bound = EVENT.delta_bound
    assert bound == acc.theorem1_delta_bound(EVENT.mechanism) and 0.049 < bound <= 0.05
    assert EVENT.mechanism == acc.Theorem1Mechanism(5.0, 6, 0.1, 1.84e-5)
    assert EVENT.epsilon(bound) < float("inf")
    assert EVENT.epsilon(bound * 0.999) == float("inf")
    # the paper's tau found from a Monte Carlo quantile (1.88e-5) does not meet delta = 0.05
    assert dataclasses.replace(EVENT, tau=1.88e-5).epsilon(0.05) == float("inf")
