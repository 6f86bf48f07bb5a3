"""privrl.ssp_lstd: the release's contract (validation naming the argument, clipping warns and
strict raises, fresh entropy unless seeded, epsilon from its event), its noise at the call site
(a statistical test on the released value that half the noise fails), its wiring to the core,
and its event composed by dp-accounting's own accountants."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from api_data import chain_data
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant

import privrl
from privrl.chapter.ssp_ledger import ssp_lstd_ledger_entry
from privrl.core.accounting.discrete_gaussian import required_noise_multiplier
from privrl.core.algorithms import ssp_lstd as ssp

REPLACE = dp_accounting.NeighboringRelation.REPLACE_ONE
ADD = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
ARGS = dict(
    features=np.eye(5),
    gamma=0.9,
    epsilon=1.0,
    delta=1e-5,
    feature_bound=1.0,
    reward_bound=1.0,
    max_length=12,
    lam=10.0,
)


def _release(data: privrl.Trajectories, **kw) -> privrl.Release:
    return privrl.ssp_lstd(data, **{**ARGS, **kw})


def test_contract(chain):
    r = _release(chain, rng=0)
    assert isinstance(r, privrl.Release) and r.value.shape == (5,)
    assert r.epsilon == r.event.epsilon(r.delta) <= 1.0
    assert r.epsilon > 0.99  # the calibration spends the budget
    assert r.event.relation == "replace-one"
    p = r.parameters
    delta2 = 2 * 12 * math.sqrt(1.9**2 + 1.0)
    assert p["sensitivity"] == pytest.approx(delta2 * (1 + 2.0**-30), rel=1e-14)
    assert p["sigma"] == pytest.approx(required_noise_multiplier(1.0, 1e-5) * delta2, rel=1e-4)
    assert p["noise_multiplier"] == r.event.to_dp_event().noise_multiplier
    assert (p["feature_bound"], p["reward_bound"], p["max_length"], p["lam"], p["n"]) == (
        1.0,
        1.0,
        12,
        10.0,
        60,
    )


def test_release_is_the_cores_run_at_the_same_seed(chain):
    """The api adds the core's noise for (epsilon, delta) and nothing else: same seed, same
    value as ssp.ssp_lstd with ssp.ssp_noise at the Gaussian mechanism's noise multiplier."""
    bounds = ssp.SSPBounds(1.0, 1.0, 12, 0.9)
    noise, _ = ssp.ssp_noise(required_noise_multiplier(1.0, 1e-5), bounds, 5)
    data = ssp.bounded_transitions(chain, np.eye(5), bounds, strict=True)
    core = ssp.ssp_lstd(data, bounds, noise, 10.0, rng=5)
    np.testing.assert_array_equal(_release(chain, rng=5).value, core.theta)


def _one_step(m: int, seed: int) -> privrl.Trajectories:
    """``m`` one-transition trajectories from states 0, 1, 2 in turn to the terminal state 3,
    reward 0: A = diag(counts) (gamma = 0), b = 0."""
    starts = np.arange(m) % 3
    obs = np.stack([starts, np.full(m, 3)], axis=1)
    return privrl.Trajectories(
        obs,
        np.zeros((m, 1), dtype=np.int64),
        np.zeros((m, 1)),
        np.ones(m, dtype=np.int64),
        np.ones(m, dtype=bool),
    )


def test_released_values_carry_the_calibrated_noise():
    """400 releases of a fixed dataset whose A = diag(3,000) and b = 0: theta_j is the noise on
    b_j over 3,000 + lam, up to a relative 1 / 250 (A's own noise; sigma = 11.5). Its standard
    deviation is z Delta / (3,000 + lam), Delta = 2 L sqrt(F^4 + F^2 R^2) = 2 sqrt(2) written
    out and z the Gaussian mechanism's for (1, 1e-5), within 10% (1,200 draws: the estimate's
    relative standard error is 2%, so a correct release fails with probability below 1e-6;
    half the noise anywhere up to the call site, 50% off, fails always)."""
    m, lam = 9000, 1.0
    data = _one_step(m, 0)
    features = np.vstack([np.eye(3), np.zeros((1, 3))])
    thetas = np.array(
        [
            privrl.ssp_lstd(
                data,
                features=features,
                gamma=0.0,
                epsilon=1.0,
                delta=1e-5,
                feature_bound=1.0,
                reward_bound=1.0,
                max_length=1,
                lam=lam,
                rng=seed,
            ).value
            for seed in range(400)
        ]
    )
    sigma = required_noise_multiplier(1.0, 1e-5) * 2.0 * math.sqrt(2.0)
    scaled = thetas * (m / 3 + lam) / sigma
    assert float(np.sqrt(np.mean(scaled**2))) == pytest.approx(1.0, rel=0.10)
    assert abs(float(scaled.mean())) < 0.15


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": 701.0}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"gamma": 1.5}, "gamma"),
        ({"gamma": -0.5}, "gamma"),
        ({"lam": 0.0}, "lam"),
        ({"lam": -1.0}, "lam"),
        ({"feature_bound": 0.0}, "feature_bound"),
        ({"reward_bound": 0.0}, "reward_bound"),
        ({"max_length": 0}, "max_length"),
        ({"max_length": 2.5}, "max_length"),
        ({"features": np.eye(3)}, "observations"),
        ({"features": np.ones(5)}, "features"),
        ({"features": None}, "features"),
        ({"features": [["a"] * 5] * 5}, "features"),
    ],
)
def test_bad_arguments_are_named(chain, kw, match):
    with pytest.raises(ValueError, match=match):
        _release(chain, **kw)


def test_data_must_be_trajectories(chain):
    with pytest.raises(ValueError, match="trajectories"):
        privrl.ssp_lstd(chain.observations, **ARGS)


def test_clipping_warns_without_data_and_strict_raises():
    """Rewards of 1e6 (clipped to 1), features of norm 2 (scaled to 1), trajectories of 12
    transitions at max_length 4 (truncated): one warning each, naming the bound only; strict
    raises instead. The guarantee is the same as on data inside the bounds."""
    data = chain_data(60, 5, 12, seed=1, reward=1e6)
    with pytest.warns(privrl.ClippedDataWarning) as caught:
        r = _release(data, features=2.0 * np.eye(5), max_length=4, rng=0)
    assert len(caught) == 3
    for w in caught:
        assert "1e+06" not in str(w.message) and "1000000" not in str(w.message)
        assert "the privacy analysis assumes" in str(w.message)
    with pytest.warns(privrl.ClippedDataWarning, match="max_length"):
        inside = _release(chain_data(60, 5, 12, seed=1), max_length=4, rng=0)
    assert r.event == inside.event and dict(r.parameters) == dict(inside.parameters)
    for kw in ({"features": 2.0 * np.eye(5)}, {"max_length": 4}):
        with pytest.raises(ValueError, match="the privacy analysis assumes"):
            _release(chain_data(60, 5, 12, seed=1), strict=True, **kw)
    with pytest.raises(ValueError, match="rewards"):
        _release(data, strict=True)


def test_fresh_entropy_unless_seeded(chain):
    assert not np.array_equal(_release(chain).value, _release(chain).value)
    np.testing.assert_array_equal(_release(chain, rng=3).value, _release(chain, rng=3).value)


def test_feature_observations(chain):
    """Feature vectors as observations (features=None), as gpope takes them: the same release
    as the feature matrix indexed by the states."""
    obs = np.eye(5)[chain.observations]
    as_features = privrl.Trajectories(
        obs, chain.actions, chain.rewards, chain.lengths, chain.terminated
    )
    np.testing.assert_array_equal(
        _release(as_features, features=None, rng=2).value, _release(chain, rng=2).value
    )


def test_event_composes_in_dp_accountings_accountants(chain):
    """One release: dp-accounting's RDP accountant (its own default orders, replace-one) gives
    privrl's epsilon within 1%. Its PLD accountant treats the event as a continuous Gaussian,
    tighter than the Renyi curve the discrete Gaussian is proven to meet (by 6% to 12% in noise),
    so it lies below privrl's epsilon, within 20%; it is asked under ADD_OR_REMOVE_ONE because
    its REPLACE_ONE reads a Gaussian's multiplier as relative to an add/remove sensitivity and
    doubles the sensitivity, whereas this multiplier is relative to the replace-one Delta
    already (there it gives about twice the epsilon: safe, loose). Five releases composed:
    privrl.compose's epsilon is the RDP accountant's of the composed DpEvent within 1%."""
    r = _release(chain, rng=0)
    rdp = RdpAccountant(neighboring_relation=REPLACE).compose(r.event.to_dp_event())
    assert rdp.get_epsilon(1e-5) == pytest.approx(r.epsilon, rel=0.01)
    pld = (
        PLDAccountant(ADD, value_discretization_interval=1e-4)
        .compose(r.event.to_dp_event())
        .get_epsilon(1e-5)
    )
    assert 0.8 * r.epsilon < pld <= r.epsilon
    runs = [_release(chain, rng=i) for i in range(5)]
    total = privrl.compose(runs, delta=1e-4)
    composed = RdpAccountant(neighboring_relation=REPLACE).compose(total.event.to_dp_event())
    assert composed.get_epsilon(1e-4) == pytest.approx(total.epsilon, rel=0.01)
    assert total.epsilon < total.parameters["basic_epsilon"]


def test_ledger_entry(chain):
    """The ledger entry of a release recomputes its epsilon from the event, its cross-check
    (dp-accounting's RDP on its default orders) is within 1%, and it names its audit."""
    r = _release(chain, rng=0)
    entry = ssp_lstd_ledger_entry(r, paper="frontier", name="SSP-LSTD weights, chain")
    assert entry.problems(tolerance=0.01) == []
    assert entry.relation == "replace-one" and entry.unit == "trajectory"
    assert entry.as_dict()["event"]["relation"] == "replace-one"
    assert entry.audit == "audits:ssp_lstd"
