"""Composition theorems: orderings that must hold, and the exact optimal bound by brute force."""

import itertools
import math

import numpy as np
import pytest

from privrl.core.accounting.composition import (
    advanced_composition,
    basic_composition,
    kairouz_composition,
    optimal_composition_delta,
    optimal_composition_epsilon,
)


@pytest.mark.parametrize("eps,k", [(0.1, 10), (0.05, 200), (0.5, 30)])
def test_ordering(eps, k):
    d_slack = 1e-5
    opt = optimal_composition_epsilon(eps, 0.0, k, d_slack)
    kai, _ = kairouz_composition(eps, 0.0, k, d_slack)
    adv, _ = advanced_composition(eps, 0.0, k, d_slack)
    basic, _ = basic_composition(eps, 0.0, k)
    assert opt <= kai + 1e-12
    assert kai <= basic + 1e-12
    assert kai <= adv + 1e-12


def test_optimal_delta_by_brute_force():
    """k-fold randomized response is the worst case: enumerate its output distribution exactly."""
    eps, k = 0.3, 6
    p = math.exp(eps) / (1 + math.exp(eps))
    for eps_g in (0.0, 0.4, 0.9, 1.5):
        # hockey-stick divergence E_P[(1 - e^{eps_g} Q/P)_+] over all 2^k outcomes
        total = 0.0
        for bits in itertools.product([0, 1], repeat=k):
            ones = sum(bits)
            pp = p**ones * (1 - p) ** (k - ones)
            qq = (1 - p) ** ones * p ** (k - ones)
            total += max(0.0, pp - math.exp(eps_g) * qq)
        assert optimal_composition_delta(eps, 0.0, k, eps_g) == pytest.approx(total, abs=1e-12)


def test_optimal_epsilon_inverts_delta():
    e = optimal_composition_epsilon(0.2, 1e-7, 50, 1e-4)
    assert optimal_composition_delta(0.2, 1e-7, 50, e) == pytest.approx(1e-4, rel=1e-6)


def test_basic():
    assert basic_composition(0.5, 1e-6, 4) == (2.0, 4e-6)


def test_bad_inputs():
    with pytest.raises(ValueError, match="k"):
        basic_composition(1.0, 0.0, 0)
    with pytest.raises(ValueError, match="delta_slack"):
        advanced_composition(1.0, 0.0, 3, 0.0)
    with pytest.raises(ValueError, match="delta_total"):
        optimal_composition_epsilon(1.0, 0.1, 3, 0.2)
    assert np.isfinite(kairouz_composition(0.1, 0.0, 5, 0.5)[0])


def test_advanced_composition_past_the_largest_exponential_is_infinite():
    """e^epsilon beyond a double (epsilon above about 709.78) raised an OverflowError; the bound
    is then infinite (and finite just below)."""
    assert advanced_composition(700.0, 0.0, 2, 1e-5)[0] < math.inf
    assert advanced_composition(710.0, 0.0, 2, 1e-5) == (math.inf, 1e-5)
