"""SSP-LSTD's core (privrl.core.algorithms.ssp_lstd): the noiseless limit is plain LSTD, the stated
replace-one sensitivity bounds every pair of trajectories found by brute force on small MDPs and
is attained within sqrt(2), the bounds are enforced, and the noise's standard deviation is z
times the stated sensitivity."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.algorithms import lstd
from privrl.core.algorithms import ssp_lstd as ssp
from privrl.core.mechanisms.discrete_gaussian import GridGaussian
from privrl.core.trajectories import Trajectories
from privrl.core.validation import ClippedDataWarning


def _chain(m: int, n_states: int, horizon: int, seed: int) -> Trajectories:
    """Walks on a chain (stay or advance, the last state absorbing and terminal), random rewards
    in [-1, 1]."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((m, horizon + 1), dtype=np.int64)
    lengths, terminated = np.full(m, horizon), np.zeros(m, dtype=bool)
    obs[:, 0] = rng.integers(0, n_states - 1, size=m)
    for i in range(m):
        for t in range(horizon):
            obs[i, t + 1] = min(obs[i, t] + int(rng.random() < 0.5), n_states - 1)
            if obs[i, t + 1] == n_states - 1:
                lengths[i], terminated[i] = t + 1, True
                break
    rewards = rng.uniform(-1.0, 1.0, size=(m, horizon))
    return Trajectories(obs, np.zeros((m, horizon), dtype=np.int64), rewards, lengths, terminated)


def _by_hand(traj: Trajectories, phi: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """A and b written transition by transition (every visit; terminal: next feature 0)."""
    d = phi.shape[1]
    A, b = np.zeros((d, d)), np.zeros(d)
    for i in range(traj.n_trajectories):
        for t in range(int(traj.lengths[i])):
            s, s2 = traj.observations[i, t], traj.observations[i, t + 1]
            last = t == traj.lengths[i] - 1 and traj.terminated[i]
            nxt = np.zeros(d) if last else phi[s2]
            A += np.outer(phi[s], phi[s] - gamma * nxt)
            b += phi[s] * traj.rewards[i, t]
    return A, b


def test_sensitivity_formula():
    """2 L sqrt(F^4 (1 + gamma)^2 + F^2 R^2), written out."""
    f, r, big_l, g = 1.5, 2.0, 7, 0.9
    expected = 2 * big_l * math.sqrt(f**4 * (1 + g) ** 2 + f**2 * r**2)
    assert ssp.ssp_sensitivity(f, r, big_l, g) == pytest.approx(expected, rel=1e-14)
    bounds = ssp.SSPBounds(f, r, big_l, g)
    assert bounds.exact_sensitivity == pytest.approx(expected, rel=1e-14)
    assert bounds.sensitivity == pytest.approx(expected * (1 + 2.0**-30), rel=1e-14)


def test_noiseless_limit_is_plain_lstd():
    """With noise of 2^-40 (one grid unit on a grid of 2^-40), the release is the ridge LSTD
    solution of A and b written transition by transition, solved by numpy's lstsq; and it is
    privrl's own LSTD (lstd.lstd, which averages over transitions: ridge lam / count)."""
    traj = _chain(40, 5, 10, seed=3)
    rng = np.random.default_rng(0)
    phi = rng.normal(size=(5, 3))
    phi /= np.linalg.norm(phi, axis=1, keepdims=True)
    gamma, lam = 0.9, 2.0
    bounds = ssp.SSPBounds(1.0, 1.0, 10, gamma)
    data = ssp.bounded_transitions(traj, phi, bounds, strict=True)
    est = ssp.ssp_lstd(data, bounds, GridGaussian(1, 1, 2.0**-40), lam, rng=1)
    A, b = _by_hand(traj, phi, gamma)
    np.testing.assert_allclose(est.A, A, atol=1e-9)
    np.testing.assert_allclose(est.b, b, atol=1e-9)
    expected = np.linalg.lstsq(A + lam * np.eye(3), b, rcond=None)[0]
    np.testing.assert_allclose(est.theta, expected, rtol=1e-8, atol=1e-10)
    count = int(traj.lengths.sum())
    np.testing.assert_allclose(est.theta, lstd.lstd(data, ridge=lam / count), rtol=1e-8)
    A_sum, b_sum = ssp.sufficient_statistics(data)
    np.testing.assert_allclose(A_sum, A, atol=1e-12)
    np.testing.assert_allclose(b_sum, b, atol=1e-12)


def _all_trajectories(n_states: int, max_length: int, reward: float) -> Trajectories:
    """Every trajectory of 1..max_length transitions over ``n_states`` states, rewards +-reward
    on each transition, terminated or not, padded to horizon max_length."""
    rows = []
    for length in range(1, max_length + 1):
        for states in itertools.product(range(n_states), repeat=length + 1):
            for signs in itertools.product((-1.0, 1.0), repeat=length):
                for term in (False, True):
                    rows.append((states, signs, length, term))
    m, h = len(rows), max_length
    obs, rew = np.zeros((m, h + 1), dtype=np.int64), np.zeros((m, h))
    lengths, terminated = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=bool)
    for i, (states, signs, length, term) in enumerate(rows):
        obs[i, : length + 1], rew[i, :length] = states, np.asarray(signs) * reward
        lengths[i], terminated[i] = length, term
    return Trajectories(obs, np.zeros((m, h), dtype=np.int64), rew, lengths, terminated)


def _diameter(points: np.ndarray) -> float:
    """The largest l2 distance between two rows of ``points``."""
    best = 0.0
    sq = np.einsum("ki,ki->k", points, points)
    for lo in range(0, len(points), 512):
        block = points[lo : lo + 512]
        d2 = sq[lo : lo + 512, None] + sq[None, :] - 2.0 * np.einsum("ai,bi->ab", block, points)
        best = max(best, float(d2.max()))
    return math.sqrt(max(best, 0.0))


@pytest.mark.parametrize("name", ["signed axes", "random unit rows"])
@pytest.mark.parametrize("gamma", [0.0, 0.9, 1.0])
def test_sensitivity_bounds_every_pair_and_is_attained_within_sqrt2(name, gamma):
    """Brute force: every trajectory of at most L = 3 transitions over 4 states with features at
    the norm bound F = 2 and rewards at +-R = 1.5 (4,672 trajectories); replacing one by
    another moves (vec A, b) by exactly the difference of their contributions, so the largest
    change over replace-one neighbours is the diameter of the set of contributions. It is at
    most the stated Delta and, for the features +-F e1, +-F e2, at least Delta / sqrt(2) (the
    alternating walks of the module text), so the bound is loose by at most sqrt(2) < 2."""
    f, r, big_l = 2.0, 1.5, 3
    if name == "signed axes":
        phi = f * np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    else:
        phi = np.random.default_rng(5).normal(size=(4, 3))
        phi *= f / np.linalg.norm(phi, axis=1, keepdims=True)
    bounds = ssp.SSPBounds(f, r, big_l, gamma)
    data = ssp.bounded_transitions(_all_trajectories(4, big_l, r), phi, bounds, strict=True)
    assert data.n == 4672
    largest = _diameter(ssp.trajectory_statistics(data, slice(None)))
    delta = bounds.exact_sensitivity
    assert largest <= delta * (1 + 1e-12)
    if name == "signed axes":
        assert largest >= delta / math.sqrt(2) * (1 - 1e-12)
    assert largest >= delta / 2


def test_the_alternating_walks_attain_delta_over_sqrt2_at_length_50():
    """The module text's construction at L = 50 (beyond brute force): two trajectories
    alternating between +-F e1 and +-F e2, rewards +-R in step with the sign of the state."""
    f, r, big_l, gamma = 1.0, 1.0, 50, 0.95
    phi = f * np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    walk = np.arange(big_l + 1) % 2
    obs = np.stack([walk, walk + 2])
    rew = np.stack([np.where(walk[:-1] == 0, r, -r)] * 2)
    traj = Trajectories(
        obs, np.zeros((2, big_l), dtype=np.int64), rew, np.full(2, big_l), np.zeros(2, dtype=bool)
    )
    bounds = ssp.SSPBounds(f, r, big_l, gamma)
    rows = ssp.trajectory_statistics(
        ssp.bounded_transitions(traj, phi, bounds, strict=True), slice(None)
    )
    change = float(np.linalg.norm(rows[0] - rows[1]))
    assert change == pytest.approx(bounds.exact_sensitivity / math.sqrt(2), rel=1e-12)


def test_enforced_bounds_keep_replace_one_within_delta():
    """Data beyond every bound (features of norm up to 3 F, rewards up to 5 R, lengths up to
    2 L), enforced: replacing any one trajectory of a dataset by any other moves the
    statistics the release rounds by at most Delta (each pair of a random sample, through
    Trajectories.replace and the summed statistics)."""
    f, r, big_l, gamma = 1.0, 1.0, 4, 0.9
    rng = np.random.default_rng(11)
    m, h, n_states = 30, 2 * big_l, 5
    phi = rng.normal(size=(n_states, 3)) * 1.5
    obs = rng.integers(0, n_states, size=(m, h + 1))
    traj = Trajectories(
        obs,
        np.zeros((m, h), dtype=np.int64),
        rng.uniform(-5, 5, size=(m, h)),
        rng.integers(1, h + 1, size=m),
        rng.random(m) < 0.5,
    )
    bounds = ssp.SSPBounds(f, r, big_l, gamma)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippedDataWarning)
        base = ssp.stack(*ssp.sufficient_statistics(ssp.bounded_transitions(traj, phi, bounds)))
        for i, j in rng.integers(0, m, size=(40, 2)):
            other = traj.replace(int(i), traj, int(j))
            moved = ssp.stack(
                *ssp.sufficient_statistics(ssp.bounded_transitions(other, phi, bounds))
            )
            assert np.linalg.norm(moved - base) <= bounds.exact_sensitivity * (1 + 1e-12)


def test_bounds_are_enforced_with_warnings_that_state_no_data():
    """Each bound warns naming itself only (no count, no value of the data) and clips; strict
    raises the same message."""
    traj = _chain(20, 5, 10, seed=4)
    big = Trajectories(
        traj.observations, traj.actions, traj.rewards * 7.0, traj.lengths, traj.terminated
    )
    bounds = ssp.SSPBounds(0.5, 1.0, 3, 0.9)
    with pytest.warns(ClippedDataWarning) as caught:
        data = ssp.bounded_transitions(big, 2.0 * np.eye(5), bounds)
    messages = " | ".join(str(w.message) for w in caught)
    assert "feature_bound = 0.5" in messages and "max_length = 3" in messages
    assert "[-1, 1]" in messages
    assert len(caught) == 3
    assert data.horizon == 3 and data.lengths.max() <= 3
    assert np.abs(data.rewards).max() <= 1.0
    assert np.linalg.norm(data.phi, axis=-1).max() <= 0.5 * (1 + 1e-15)
    assert not data.terminated[traj.lengths > 3].any()
    for kw in (
        {"features": 2.0 * np.eye(5), "traj": traj},
        {"features": 0.5 * np.eye(5), "traj": big},
    ):
        with pytest.raises(ValueError, match="the privacy analysis assumes"):
            ssp.bounded_transitions(
                kw["traj"], kw["features"], ssp.SSPBounds(0.5, 1.0, 10, 0.9), strict=True
            )
    with pytest.raises(ValueError, match="max_length = 3"):
        ssp.bounded_transitions(traj, 0.5 * np.eye(5), bounds, strict=True)


def test_feature_observations_are_clipped_per_observation():
    """Feature vectors as observations (features=None): each real one scaled to norm F."""
    rng = np.random.default_rng(2)
    obs = rng.normal(size=(6, 4, 2)) * 3.0
    traj = Trajectories(
        obs,
        np.zeros((6, 3), dtype=np.int64),
        rng.uniform(-1, 1, size=(6, 3)),
        np.full(6, 3),
        np.zeros(6, dtype=bool),
    )
    with pytest.warns(ClippedDataWarning, match="observations"):
        data = ssp.bounded_transitions(traj, None, ssp.SSPBounds(1.0, 1.0, 3, 0.5))
    np.testing.assert_allclose(np.linalg.norm(data.phi, axis=-1), 1.0, rtol=1e-12)


def test_noise_std_is_z_times_the_stated_sensitivity():
    """2,000 releases on one dataset (d = 2: 6 coordinates, 12,000 noise draws): the noise's
    standard deviation is z Delta, Delta = 2 L sqrt(F^4 (1 + gamma)^2 + F^2 R^2) written out,
    within 4% (the estimate's relative standard error is 1/sqrt(2 x 12,000) = 0.65%: a correct
    release fails with probability below 1e-8; half the noise, 50% off, fails always)."""
    traj = _chain(10, 4, 6, seed=8)
    phi = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0], [-0.8, 0.6]])
    f, r, big_l, gamma, z = 1.0, 1.0, 6, 0.9, 1.5
    bounds = ssp.SSPBounds(f, r, big_l, gamma)
    noise, event = ssp.ssp_noise(z, bounds, 2)
    data = ssp.bounded_transitions(traj, phi, bounds, strict=True)
    centre = ssp.grid_statistics(data, noise.step) * noise.step
    runs = [ssp.ssp_lstd(data, bounds, noise, 1.0, rng=seed) for seed in range(2000)]
    draws = np.array([ssp.stack(run.A, run.b) for run in runs])
    sd = float(np.sqrt(np.mean((draws - centre) ** 2)))
    delta = 2 * big_l * math.sqrt(f**4 * (1 + gamma) ** 2 + f**2 * r**2)
    assert sd == pytest.approx(z * delta, rel=0.04)
    assert abs(float(np.mean(draws - centre))) < 0.1 * z * delta


def test_event_is_a_replace_one_gaussian_of_the_calibrated_multiplier():
    """The event: GaussianDpEvent(sqrt(s) / G) under replace-one, at least z and within 1e-4
    of it, serialisable for a ledger entry."""
    bounds = ssp.SSPBounds(1.0, 2.0, 20, 0.99)
    noise, event = ssp.ssp_noise(3.0, bounds, 4)
    assert event.relation == "replace-one" and event.accountant == "rdp"
    z = event.to_dp_event().noise_multiplier
    assert 3.0 <= z <= 3.0 * (1 + 1e-4)
    assert noise.sigma == pytest.approx(z * bounds.sensitivity, rel=1e-4)
    assert event_from_dict(event_to_dict(event)) == event


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"feature_bound": 0.0}, "feature_bound"),
        ({"reward_bound": -1.0}, "reward_bound"),
        ({"max_length": 0}, "max_length"),
        ({"max_length": 2**21}, "max_length"),
        ({"gamma": 1.5}, "gamma"),
        ({"gamma": -0.1}, "gamma"),
        ({"feature_bound": 1e200}, "feature"),
    ],
)
def test_bounds_validation(kw, match):
    args = {"feature_bound": 1.0, "reward_bound": 1.0, "max_length": 5, "gamma": 0.9, **kw}
    with pytest.raises(ValueError, match=match):
        ssp.SSPBounds(**args)


@pytest.mark.parametrize("gamma", [0.0, 0.9, 1.0])
def test_the_extremal_pair_moves_the_statistics_by_delta_over_sqrt_2(gamma):
    """The derivation's extremal pair: the two walks' contributions differ by exactly
    Delta_2 / sqrt(2) (and each walk alone is within the bounds, so nothing is clipped)."""
    bounds = ssp.SSPBounds(1.5, 0.7, 9, gamma)
    one, other = (ssp.trajectory_statistics(x)[0] for x in ssp.extremal_pair(bounds, 3))
    assert np.isclose(
        np.linalg.norm(one - other), bounds.exact_sensitivity / np.sqrt(2), rtol=1e-12
    )
