"""Property-based tests (hypothesis) over the public API: every release's epsilon is the one its
event recomputes (and at most its target), no release uses data beyond an assumed bound without
clipping (with a warning) or an error, and no input gives anything but a release or a
ValueError (no traceback from inside numpy)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privrl
from privrl.core.accounting.subsampled import grid_gpope_epsilon
from privrl.core.algorithms import monte_carlo as mc

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EPS = st.floats(0.05, 5.0)
DELTA = st.floats(1e-8, 0.1)
SENS = st.floats(0.01, 10.0)


@FAST
@given(eps=EPS, delta=DELTA, sens=SENS, seed=st.integers(0, 2**31))
def test_gaussian_epsilon_is_its_events(eps, delta, sens, seed):
    r = privrl.gaussian_mechanism([0.0, 1.0], sensitivity=sens, epsilon=eps, delta=delta, rng=seed)
    assert r.epsilon == r.event.epsilon(r.delta) <= eps * (1 + 1e-9)


@FAST
@given(eps=EPS, sens=SENS, value=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=5))
def test_laplace_epsilon_is_its_events(eps, sens, value):
    r = privrl.laplace_mechanism(value, sensitivity=sens, epsilon=eps, rng=0)
    assert r.epsilon == r.event.epsilon(0.0) <= eps


@st.composite
def datasets(draw):
    m = draw(st.integers(1, 6))
    horizon = draw(st.integers(1, 5))
    n_states = draw(st.integers(2, 4))
    obs = np.array(
        draw(
            st.lists(
                st.lists(st.integers(0, n_states - 1), min_size=horizon + 1, max_size=horizon + 1),
                min_size=m,
                max_size=m,
            )
        )
    )
    rewards = np.array(
        draw(
            st.lists(
                st.lists(st.floats(-3, 3), min_size=horizon, max_size=horizon),
                min_size=m,
                max_size=m,
            )
        )
    )
    lengths = np.array(draw(st.lists(st.integers(1, horizon), min_size=m, max_size=m)))
    terminated = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    data = privrl.Trajectories(
        obs, np.zeros((m, horizon), dtype=np.int64), rewards, lengths, terminated
    )
    return data, n_states


@FAST
@given(
    data=datasets(),
    bound=st.floats(0.1, 5.0),
    share=st.floats(0.0, 1.0),
    gamma=st.floats(0.0, 1.0),
    eps=EPS,
    delta=DELTA,
)
def test_dp_lsw_never_releases_beyond_the_return_range(data, bound, share, gamma, eps, delta):
    traj, n_states = data
    low = -share * bound  # the interval holds 0 (the budget refuses any other)
    fv = mc.first_visit_returns(traj, n_states, gamma)
    seen = fv.returns[fv.visited]
    beyond = bool(np.any((seen < low) | (seen > low + bound)))
    args = dict(
        n_states=n_states,
        gamma=gamma,
        features=np.eye(n_states),
        epsilon=eps,
        delta=delta,
        return_bound=bound,
        return_low=low,
        rng=0,
    )
    try:
        strict = privrl.dp_lsw(traj, strict=True, **args)
        assert not beyond
        assert strict.epsilon == strict.event.epsilon(strict.delta)
    except ValueError as err:
        assert beyond and "return_bound" in str(err)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = privrl.dp_lsw(traj, **args)
    warned = any(issubclass(w.category, privrl.ClippedDataWarning) for w in caught)
    assert warned == beyond
    assert r.epsilon == r.event.epsilon(r.delta)


@settings(max_examples=10, deadline=None)
@given(
    data=datasets(),
    z=st.floats(0.5, 3.0),
    delta=st.floats(1e-6, 0.1),
    iterations=st.integers(1, 20),
)
def test_gpope_epsilon_is_its_events(data, z, delta, iterations):
    traj, n_states = data
    r = privrl.gpope(
        traj,
        features=np.eye(n_states),
        gamma=0.9,
        noise_multiplier=z,
        delta=delta,
        iterations=iterations,
        step_size=0.1,
        clip_norm=1.0,
        rng=0,
    )
    z_event = r.parameters["noise_multiplier"]  # the grid noise's: at least z, a hair above
    assert z * (1 - 1e-12) <= z_event <= z * (1 + 1e-3)
    expected = grid_gpope_epsilon(z_event, traj.n_trajectories, iterations, delta)
    assert r.epsilon == r.event.epsilon(r.delta) == expected


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=3),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=3),
    st.lists(st.lists(st.integers(-2, 2), max_size=3), max_size=3),
    st.just(np.empty((0, 2))),
    st.just([[1.0, 2.0], [3.0]]),
)


def _only_value_errors(call) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", privrl.ClippedDataWarning)
            call()
    except ValueError:
        pass


@settings(max_examples=150, deadline=None)
@given(junk=JUNK, which=st.sampled_from(["value", "sensitivity", "epsilon", "delta", "rng"]))
def test_mechanisms_raise_only_value_errors(junk, which):
    args = {"value": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "delta": 1e-5, "rng": 0}
    args[which] = junk
    _only_value_errors(lambda: privrl.gaussian_mechanism(**args))
    args.pop("delta")
    if which != "delta":
        _only_value_errors(lambda: privrl.laplace_mechanism(**args))


@settings(max_examples=150, deadline=None)
@given(junk=JUNK, which=st.sampled_from(["gradients", "epsilon", "clip", "rng"]))
def test_local_reports_raise_only_value_errors(junk, which):
    args = {"gradients": np.ones((2, 3)), "epsilon": 1.0, "clip": 1.0, "rng": 0}
    args[which] = junk
    _only_value_errors(lambda: privrl.laplace_report(**args))
    _only_value_errors(lambda: privrl.sign_report(**args))


@settings(max_examples=150, deadline=None)
@given(junk=JUNK, which=st.sampled_from(["policy", "k", "eta", "tau", "lipschitz", "b"]))
def test_teacher_answer_raises_only_value_errors(junk, which):
    args = {
        "policy": [0.6, 0.4],
        "k": 5.0,
        "eta": 0.05,
        "tau": 0.01,
        "lipschitz": 1.0,
        "b": 0.1,
        "rng": 0,
    }
    args[which] = junk
    _only_value_errors(lambda: privrl.dirichlet_teacher_answer(**args))


FIELDS = ("observations", "actions", "rewards", "lengths", "terminated")


@settings(max_examples=40, deadline=None)  # each example runs GPOPE's RDP accountant
@given(
    junk=JUNK,
    which=st.sampled_from(
        [*FIELDS, "features", "gamma", "n_states", "return_bound", "iterations", "clip_norm"]
    ),
)
def test_evaluators_raise_only_value_errors(junk, which):
    fields = {
        "observations": [[0, 1, 2], [1, 2, 2]],
        "actions": [[0, 0], [0, 0]],
        "rewards": [[0.0, 1.0], [1.0, 0.0]],
        "lengths": [2, 1],
        "terminated": [True, True],
    }
    rest = {
        "features": np.eye(3),
        "gamma": 0.9,
        "n_states": 3,
        "return_bound": 1.0,
        "iterations": 3,
        "clip_norm": 1.0,
    }
    if which in fields:
        fields[which] = junk
    else:
        rest[which] = junk

    def run() -> None:
        traj = privrl.Trajectories(**fields)
        privrl.dp_lsw(
            traj,
            n_states=rest["n_states"],
            gamma=rest["gamma"],
            features=rest["features"],
            epsilon=1.0,
            delta=0.1,
            return_bound=rest["return_bound"],
            rng=0,
        )
        privrl.gpope(
            traj,
            features=rest["features"],
            gamma=rest["gamma"],
            epsilon=1.0,
            delta=1e-3,
            iterations=rest["iterations"],
            step_size=0.1,
            clip_norm=rest["clip_norm"],
            rng=0,
        )

    _only_value_errors(run)
