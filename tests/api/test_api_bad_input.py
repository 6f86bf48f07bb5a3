"""Inputs that would void a guarantee or give wrong numbers get a ValueError naming the argument
or a clipping warning, never a silent release or a traceback from inside numpy (issue 36)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from api_data import chain_data

import privrl
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.algorithms.gtd import SaddlePointStats


def _lsw(data, **kw):
    args = dict(n_states=5, gamma=0.9, features=np.eye(5), epsilon=1.0, delta=0.1,
                return_bound=1.0, rng=0)
    return privrl.dp_lsw(data, **{**args, **kw})


def test_returns_above_the_bound_are_clipped_with_a_warning():
    big = chain_data(30, 5, 12, seed=2, reward=5.0)
    with pytest.warns(privrl.PrivacyLeakWarning,
                      match=r"returns \(return_bound, return_low\).*by up to 4"):
        clipped = _lsw(big)
    # the release is the one of the returns clipped to [0, 1], clipped here by hand
    fv = mc.first_visit_returns(big, 5, 0.9)
    returns = np.clip(fv.returns, 0.0, 1.0)
    by_hand = mc.FirstVisitReturns(returns, fv.visited, fv.counts,
                                   returns.sum(axis=0) / np.maximum(fv.counts, 1))
    budget = mc.SmoothGaussianBudget(1.0, 0.1, 1.0)
    expected = mc.dp_lsw(by_hand, np.eye(5), np.full(5, 0.2), budget, 0).theta
    assert np.array_equal(clipped.value, expected)
    with pytest.raises(ValueError, match="return_bound"):
        _lsw(big, strict=True)
    with pytest.warns(privrl.PrivacyLeakWarning):
        privrl.dp_lsl(big, n_states=5, gamma=0.9, features=np.eye(5), lam=2.0, epsilon=1.0,
                      delta=0.1, return_bound=1.0, rng=0)


def test_returns_must_lie_in_an_interval_of_width_return_bound(chain):
    """The analysis bounds one trajectory's move of a return by F_max: returns in [-1, 1] span
    2 F_max and are clipped to [return_low, return_low + 1]; negative rewards need return_low."""
    negative = privrl.Trajectories(chain.observations, chain.actions, -chain.rewards,
                                   chain.lengths, chain.terminated)
    with pytest.warns(privrl.PrivacyLeakWarning, match=r"\[0, 1\]"):
        _lsw(negative)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = _lsw(negative, return_low=-1.0)
    assert r.parameters["return_low"] == -1.0 and r.parameters["return_bound"] == 1.0
    with pytest.raises(ValueError, match="return_low"):
        _lsw(chain, return_low=float("inf"))


def test_returns_within_the_bound_are_released_as_they_are(chain):
    fv = mc.first_visit_returns(chain, 5, 0.9)
    assert mc.bounded_returns(fv, mc.SmoothGaussianBudget(1.0, 0.1, 1.0)) is fv
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _lsw(chain)


@pytest.mark.parametrize("bad", [-1, 5, 7])
def test_state_indices_out_of_range(chain, bad):
    obs = chain.observations.copy()
    obs[0, 0] = bad
    data = privrl.Trajectories(obs, chain.actions, chain.rewards, chain.lengths, chain.terminated)
    with pytest.raises(ValueError, match=r"observations must lie in \[0, 5\)"):
        _lsw(data)
    with pytest.raises(ValueError, match=r"observations must lie in \[0, 5\)"):
        privrl.gpope(data, features=np.eye(5), gamma=0.9, epsilon=1.0, delta=1e-5,
                     iterations=2, step_size=0.1, clip_norm=1.0, rng=0)
    with pytest.raises(ValueError, match=r"states must lie in \[0, 5\)"):
        SaddlePointStats.from_tabular(obs, np.eye(5), chain.rewards, chain.lengths,
                                      chain.terminated, 0.9)


def test_features_with_too_few_rows(chain):
    with pytest.raises(ValueError, match=r"observations must lie in \[0, 3\)"):
        privrl.gpope(chain, features=np.eye(3), gamma=0.9, epsilon=1.0, delta=1e-5,
                     iterations=2, step_size=0.1, clip_norm=1.0, rng=0)
    with pytest.raises(ValueError, match="features must have n_states = 5 rows"):
        _lsw(chain, features=np.eye(4))
    with pytest.raises(ValueError, match="weights"):
        _lsw(chain, weights=np.ones(4))


def test_nan_rewards(chain):
    rewards = chain.rewards.copy()
    rewards[0, 0] = np.nan
    with pytest.raises(ValueError, match="rewards must be finite"):
        privrl.Trajectories(chain.observations, chain.actions, rewards, chain.lengths,
                            chain.terminated)
    with pytest.raises(ValueError, match="rewards must contain only finite"):
        SaddlePointStats.from_tabular(chain.observations, np.eye(5), rewards, chain.lengths,
                                      chain.terminated, 0.9)


def test_lists_become_arrays_and_strings_are_refused(chain):
    as_lists = privrl.Trajectories(*(getattr(chain, f).tolist() for f in
                                     ("observations", "actions", "rewards", "lengths",
                                      "terminated")))
    assert np.array_equal(_lsw(as_lists).value, _lsw(chain).value)
    listed = privrl.gaussian_mechanism([1.0, 2.0], sensitivity=1.0, epsilon=1.0, delta=1e-5,
                                       rng=0)
    assert listed.value.shape == (2,)
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        mc.SmoothGaussianBudget(epsilon="1", delta=0.1, return_bound=1.0)
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        privrl.laplace_mechanism(1.0, sensitivity=1.0, epsilon="1", rng=0)
    with pytest.raises(ValueError, match="value must be array-like"):
        privrl.gaussian_mechanism(["1", "2"], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    as_numbers = privrl.Trajectories(chain.observations, chain.actions, chain.rewards,
                                     chain.lengths, chain.terminated.astype(float))
    assert as_numbers.terminated.dtype == bool
    assert np.array_equal(as_numbers.terminated, chain.terminated)
    with pytest.raises(ValueError, match="terminated must be a 1-d array of booleans"):
        privrl.Trajectories(chain.observations, chain.actions, chain.rewards, chain.lengths,
                            np.full(chain.lengths.shape, 0.5))
    with pytest.raises(ValueError, match="rewards must be numeric"):
        privrl.Trajectories(chain.observations, chain.actions, chain.rewards.astype(str),
                            chain.lengths, chain.terminated)
    with pytest.raises(ValueError, match="ragged"):
        privrl.Trajectories([[0, 1], [0]], [[0]], [[0.0]], [1], [True])


def test_mismatched_shapes_and_missing_targets(chain):
    with pytest.raises(ValueError, match="rho must have shape"):
        privrl.gpope(chain, features=np.eye(5), rho=np.ones((3, 3)), gamma=0.9, epsilon=1.0,
                     delta=1e-5, iterations=2, step_size=0.1, clip_norm=1.0, rng=0)
    with pytest.raises(ValueError, match="rho must be non-negative"):
        privrl.gpope(chain, features=np.eye(5), rho=-np.ones(chain.rewards.shape), gamma=0.9,
                     epsilon=1.0, delta=1e-5, iterations=2, step_size=0.1, clip_norm=1.0, rng=0)
    with pytest.raises(ValueError, match="epsilon, noise_multiplier"):
        privrl.gpope(chain, features=np.eye(5), gamma=0.9, delta=1e-5, iterations=2,
                     step_size=0.1, clip_norm=1.0, rng=0)
    with pytest.raises(ValueError, match="epsilon, sigma"):
        privrl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0, sigma=1.0, delta=1e-5,
                                  rng=0)
    with pytest.raises(ValueError, match="trajectories must be a privrl.Trajectories"):
        privrl.gpope(chain.observations, features=np.eye(5), gamma=0.9, epsilon=1.0,
                     delta=1e-5, iterations=2, step_size=0.1, clip_norm=1.0, rng=0)
    with pytest.raises(ValueError, match="policy has entries below eta"):
        privrl.dirichlet_teacher_answer([0.99, 0.01], k=5.0, eta=0.05, tau=0.01,
                                        lipschitz=1.0, b=1.0, rng=0)


def test_a_grid_too_fine_for_the_noise_names_step():
    with pytest.raises(ValueError, match="step: sigma 1 is more than 2"):
        privrl.gaussian_mechanism(1.0, sensitivity=1.0, sigma=1.0, step=2.0**-30, delta=1e-5,
                                  rng=0)
    with pytest.raises(ValueError, match="value: 400000 coordinates at noise multiplier"):
        privrl.gaussian_mechanism(np.zeros(400_000), sensitivity=1.0, epsilon=1e-3, delta=1e-5,
                                  rng=0)


def test_the_teacher_answer_takes_a_target_or_a_concentration():
    args = dict(policy=[0.6, 0.4], eta=0.05, lipschitz=0.5, b=0.1, rng=0)
    with pytest.raises(ValueError, match="give a target"):
        privrl.dirichlet_teacher_answer(**args, k=5.0, tau=0.01, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="epsilon, delta: give both"):
        privrl.dirichlet_teacher_answer(**args, epsilon=20.0)
    with pytest.raises(ValueError, match="k, tau: give both"):
        privrl.dirichlet_teacher_answer(**args, k=5.0)
    with pytest.raises(ValueError, match=r"epsilon: .*the smallest is"):
        privrl.dirichlet_teacher_answer(**args, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="composition must be one of"):
        privrl.dirichlet_teacher_answer(**args, k=5.0, tau=0.01, composition="optimal")


def test_a_threshold_where_eq_6_cannot_be_evaluated_names_tau():
    """At k = 1e5 and tau = 1/2 (far above eta) mpmath's incomplete beta does not converge."""
    with pytest.raises(ValueError, match="tau: eq. \\(6\\)'s delta cannot be evaluated"):
        privrl.dirichlet_teacher_answer([0.5, 0.5], k=1e5, tau=0.5, eta=0.05, lipschitz=0.5,
                                        b=0.1, rng=0)
