"""Every release draws fresh operating-system entropy unless a seed is given: two calls without
``rng`` differ, two with the same seed agree, and a known seed lets anyone subtract the noise
(why the docs say a seed others know voids the guarantee)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from api_data import chain_data

import privrl

DATA = chain_data(60, 6, 12, seed=1)
GRADIENTS = np.full((3, 4), 0.1)
CALLS = {
    "dp_lsw": lambda **kw: privrl.dp_lsw(
        DATA,
        n_states=6,
        gamma=0.9,
        features=np.eye(6),
        epsilon=1.0,
        delta=0.1,
        return_bound=1.0,
        **kw,
    ),
    "dp_lsl": lambda **kw: privrl.dp_lsl(
        DATA,
        n_states=6,
        gamma=0.9,
        features=np.eye(6),
        lam=40.0,
        epsilon=1.0,
        delta=0.1,
        return_bound=1.0,
        **kw,
    ),
    "gpope": lambda **kw: privrl.gpope(
        DATA,
        features=np.eye(6),
        gamma=0.9,
        epsilon=2.0,
        delta=1e-3,
        iterations=50,
        step_size=0.1,
        clip_norm=1.0,
        **kw,
    ),
    "ssp_lstd": lambda **kw: privrl.ssp_lstd(
        DATA,
        features=np.eye(6),
        gamma=0.9,
        epsilon=1.0,
        delta=1e-5,
        feature_bound=1.0,
        reward_bound=1.0,
        max_length=12,
        lam=10.0,
        **kw,
    ),
    "laplace_report": lambda **kw: privrl.laplace_report(GRADIENTS, epsilon=1.0, clip=1.0, **kw),
    "sign_report": lambda **kw: privrl.sign_report(GRADIENTS, epsilon=5.0, clip=1.0, **kw),
    "laplace_mechanism": lambda **kw: privrl.laplace_mechanism(
        np.zeros(8), sensitivity=1.0, epsilon=1.0, **kw
    ),
    "gaussian_mechanism": lambda **kw: privrl.gaussian_mechanism(
        np.zeros(8), sensitivity=1.0, epsilon=1.0, delta=1e-5, **kw
    ),
    "dirichlet_teacher_answer": lambda **kw: privrl.dirichlet_teacher_answer(
        [0.7, 0.3], epsilon=20.0, delta=1e-5, eta=0.05, lipschitz=0.5, b=0.1, **kw
    ),
}


def test_every_release_defaults_rng_to_none():
    """The documented default of every release of the api is fresh entropy (``rng=None``)."""
    releases = [
        n
        for n in privrl.api.__all__
        if inspect.isfunction(getattr(privrl.api, n))
        and "rng" in inspect.signature(getattr(privrl.api, n)).parameters
    ]
    assert sorted(releases) == sorted([*CALLS, "functional_q_learning"])
    for name in releases:
        assert inspect.signature(getattr(privrl.api, name)).parameters["rng"].default is None


@pytest.mark.parametrize("name", list(CALLS))
def test_without_a_seed_two_calls_differ_and_with_one_they_agree(name):
    call = CALLS[name]
    a, b = np.asarray(call().value), np.asarray(call().value)
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(np.asarray(call(rng=7).value), np.asarray(call(rng=7).value))


def test_a_known_seed_lets_anyone_remove_the_noise():
    """``release(x, rng=0).value - release(0, rng=0).value`` recovers ``x``: with a seed the
    noise is a known function of it."""
    x = np.array([0.25, -3.0, 7.5])
    kw = dict(sensitivity=1.0, epsilon=1.0, delta=1e-5)
    seeded = (
        privrl.gaussian_mechanism(x, rng=0, **kw).value
        - privrl.gaussian_mechanism(np.zeros(3), rng=0, **kw).value
    )
    np.testing.assert_allclose(seeded, x, atol=1e-9)
    fresh = (
        privrl.gaussian_mechanism(x, **kw).value
        - privrl.gaussian_mechanism(np.zeros(3), **kw).value
    )
    assert np.max(np.abs(fresh - x)) > 1e-3
