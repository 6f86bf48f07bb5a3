"""privrl.clip_values: the values of released weights clipped to a public range are
post-processing, so they keep the release's guarantee (same event, epsilon, delta, relation), lie
in the range, and never move away from true values that lie in it."""

from __future__ import annotations

import numpy as np
import pytest
from api_data import chain_data

import privrl

DATA = chain_data(60, 6, 12, seed=1)


def _weights() -> privrl.Release:
    return privrl.gpope(
        DATA,
        features=np.eye(6),
        gamma=0.9,
        epsilon=2.0,
        delta=1e-3,
        iterations=50,
        step_size=0.1,
        clip_norm=1.0,
        rng=3,
    )


def test_clipped_values_keep_the_guarantee_and_lie_in_the_range():
    weights = _weights()
    phi = np.random.default_rng(0).normal(size=(40, 6)) * 50  # values far outside [0, 1]
    values = privrl.clip_values(weights, phi, 0.0, 1.0)
    assert values.epsilon == weights.epsilon and values.delta == weights.delta
    assert values.event is weights.event and values.relation == weights.relation
    assert values.value.shape == (40,)
    assert values.value.min() >= 0.0 and values.value.max() <= 1.0
    assert (values.value == 0.0).any() and (values.value == 1.0).any()
    np.testing.assert_array_equal(values.value, np.clip(phi @ weights.value, 0.0, 1.0))
    assert values.parameters["low"] == 0.0 and values.parameters["high"] == 1.0
    assert all(values.parameters[k] == v for k, v in weights.parameters.items())


def test_clipping_never_moves_a_value_away_from_a_truth_in_the_range():
    weights = _weights()
    phi = np.random.default_rng(1).normal(size=(200, 6)) * 5
    truth = np.random.default_rng(2).uniform(-1.0, 1.0, size=200)
    clipped = privrl.clip_values(weights, phi, -1.0, 1.0).value
    assert np.all(np.abs(clipped - truth) <= np.abs(phi @ weights.value - truth) + 1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        dict(features=np.eye(5)),
        dict(features=np.full((2, 6), np.nan)),
        dict(low=1.0, high=0.0),
        dict(low=-np.inf),
    ],
)
def test_bad_input_is_refused_naming_it(bad):
    kw = dict(features=np.eye(6), low=0.0, high=1.0) | bad
    with pytest.raises(ValueError, match="features|low"):
        privrl.clip_values(_weights(), **kw)
    with pytest.raises(ValueError, match="release"):
        privrl.clip_values(np.zeros(6), np.eye(6), 0.0, 1.0)
