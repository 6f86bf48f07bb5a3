"""Lemma 1's range: above ``lemma1_epsilon_limit(delta)`` two neighbours the lemma admits (equal
sigma, means sigma / alpha apart) are two Gaussians told apart beyond (epsilon, delta), so DP-LSW
and DP-LSL refuse such an epsilon; below it the same pair keeps the guarantee."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import privrl
from privrl.core.accounting.smooth_sensitivity import (
    lemma1_epsilon_limit,
    smooth_gaussian_constants,
)


def gaussian_pair_delta(epsilon: float, delta_target: float) -> mpmath.mpf:
    """Exact privacy profile at ``epsilon`` of N(0, s^2) against N(s / alpha, s^2), alpha Lemma
    1's at (epsilon, delta_target), in 60-digit arithmetic (independent of scipy)."""
    mpmath.mp.dps = 60
    alpha = 5 * mpmath.sqrt(2 * mpmath.log(2 / mpmath.mpf(delta_target))) / epsilon
    mu = 1 / alpha
    eps = mpmath.mpf(epsilon)
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


@pytest.mark.parametrize("delta, limit", [(1e-5, 1011.03), (1e-3, 640.74), (0.1, 269.28)])
def test_the_limit_is_where_the_admitted_gaussian_pair_breaks_the_guarantee(delta, limit):
    found = lemma1_epsilon_limit(delta)
    assert found == pytest.approx(limit, abs=0.01)
    assert gaussian_pair_delta(found * (1 - 1e-6), delta) < delta
    assert gaussian_pair_delta(found * (1 + 1e-6), delta) > delta
    assert gaussian_pair_delta(found / 2, delta) < delta * 1e-3


def test_constants_refuse_epsilon_at_the_limit_naming_it():
    limit = lemma1_epsilon_limit(1e-5)
    smooth_gaussian_constants(limit * (1 - 1e-9), 1e-5, 3)
    with pytest.raises(ValueError, match=r"epsilon must lie below 1011\.0\d* at delta = 1e-05"):
        smooth_gaussian_constants(limit, 1e-5, 3)


def _pair() -> tuple[privrl.Trajectories, privrl.Trajectories]:
    """201 one-step trajectories from state 0; one reward 0 against 1 (replace-one)."""
    obs = np.zeros((201, 2), dtype=int)
    obs[:, 1] = 1
    rewards = np.zeros((201, 1))
    other = rewards.copy()
    other[0, 0] = 1.0
    common = dict(
        observations=obs,
        actions=np.zeros((201, 1), int),
        lengths=np.ones(201, int),
        terminated=np.ones(201, bool),
    )
    return (
        privrl.Trajectories(rewards=rewards, **common),
        privrl.Trajectories(rewards=other, **common),
    )


@pytest.mark.parametrize("name", ["dp_lsw", "dp_lsl"])
def test_dp_lsw_and_dp_lsl_refuse_the_pair_at_epsilon_3000(name):
    """The stated (3000, 1e-5) would separate this pair with probability about 1 where the
    guarantee allows e^-532: refused; at 1,000 (inside the range) the release is made."""
    x, _ = _pair()
    kw = dict(n_states=2, gamma=0.9, features=np.eye(2), delta=1e-5, return_bound=1.0, rng=0)
    if name == "dp_lsl":
        kw["lam"] = 1.0
    release = getattr(privrl, name)
    with pytest.raises(ValueError, match="epsilon must lie below"):
        release(x, epsilon=3000.0, **kw)
    assert math.isclose(release(x, epsilon=1000.0, **kw).epsilon, 1000.0, rel_tol=1e-9)
