"""Inputs that would void a guarantee or give wrong numbers get a ValueError naming the argument
or a clipping warning, never a silent release or a traceback from inside numpy (issue 36)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from api_data import chain_data

import privrl
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.algorithms.gtd import SaddlePointStats


def _lsw(data, **kw):
    args = dict(
        n_states=5, gamma=0.9, features=np.eye(5), epsilon=1.0, delta=0.1, return_bound=1.0, rng=0
    )
    return privrl.dp_lsw(data, **{**args, **kw})


def _lsl(data, **kw):
    args = dict(
        n_states=5,
        gamma=0.9,
        features=np.eye(5),
        lam=1.0,
        epsilon=1.0,
        delta=0.1,
        return_bound=1.0,
        rng=0,
    )
    return privrl.dp_lsl(data, **{**args, **kw})


def test_returns_above_the_bound_are_clipped_with_a_warning():
    big = chain_data(30, 5, 12, seed=2, reward=5.0)
    with pytest.warns(
        privrl.ClippedDataWarning,
        match=r"returns \(return_bound, return_low\): values lie outside the bound \[0, 1\]",
    ):
        clipped = _lsw(big)
    # the release is the one of the returns clipped to [0, 1], clipped here by hand
    fv = mc.first_visit_returns(big, 5, 0.9)
    returns = np.clip(fv.returns, 0.0, 1.0)
    by_hand = mc.FirstVisitReturns(
        returns, fv.visited, fv.counts, returns.sum(axis=0) / np.maximum(fv.counts, 1)
    )
    budget = mc.SmoothGaussianBudget(1.0, 0.1, 1.0)
    expected = mc.dp_lsw(by_hand, np.eye(5), np.full(5, 0.2), budget, 0, exact=True).theta
    assert np.array_equal(clipped.value, expected)
    with pytest.raises(ValueError, match="return_bound"):
        _lsw(big, strict=True)
    with pytest.warns(privrl.ClippedDataWarning):
        privrl.dp_lsl(
            big,
            n_states=5,
            gamma=0.9,
            features=np.eye(5),
            lam=2.0,
            epsilon=1.0,
            delta=0.1,
            return_bound=1.0,
            rng=0,
        )


def test_returns_must_lie_in_an_interval_of_width_return_bound(chain):
    """The analysis bounds one trajectory's move of a return by F_max: returns in [-1, 1] span
    2 F_max and are clipped to [return_low, return_low + 1]; negative rewards need return_low."""
    negative = privrl.Trajectories(
        chain.observations, chain.actions, -chain.rewards, chain.lengths, chain.terminated
    )
    with pytest.warns(privrl.ClippedDataWarning, match=r"\[0, 1\]"):
        _lsw(negative)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = _lsw(negative, return_low=-1.0)
    assert r.parameters["return_low"] == -1.0 and r.parameters["return_bound"] == 1.0
    with pytest.raises(ValueError, match="return_low"):
        _lsw(chain, return_low=float("inf"))
    # an interval without 0 (an unvisited state's mean): refused, for both releases
    for release in (_lsw, _lsl):
        for low in (100.0, 1e-12, -1.5):
            with pytest.raises(ValueError, match=r"return_low must lie in \[-return_bound, 0\]"):
                release(chain, return_low=low)


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
        privrl.gpope(
            data,
            features=np.eye(5),
            gamma=0.9,
            epsilon=1.0,
            delta=1e-5,
            iterations=2,
            step_size=0.1,
            clip_norm=1.0,
            rng=0,
        )
    with pytest.raises(ValueError, match=r"states must lie in \[0, 5\)"):
        SaddlePointStats.from_tabular(
            obs, np.eye(5), chain.rewards, chain.lengths, chain.terminated, 0.9
        )


def test_features_with_too_few_rows(chain):
    with pytest.raises(ValueError, match=r"observations must lie in \[0, 3\)"):
        privrl.gpope(
            chain,
            features=np.eye(3),
            gamma=0.9,
            epsilon=1.0,
            delta=1e-5,
            iterations=2,
            step_size=0.1,
            clip_norm=1.0,
            rng=0,
        )
    with pytest.raises(ValueError, match="features must have n_states = 5 rows"):
        _lsw(chain, features=np.eye(4))
    with pytest.raises(ValueError, match="weights"):
        _lsw(chain, weights=np.ones(4))


def test_nan_rewards(chain):
    rewards = chain.rewards.copy()
    rewards[0, 0] = np.nan
    with pytest.raises(ValueError, match="rewards must be finite"):
        privrl.Trajectories(
            chain.observations, chain.actions, rewards, chain.lengths, chain.terminated
        )
    with pytest.raises(ValueError, match="rewards must contain only finite"):
        SaddlePointStats.from_tabular(
            chain.observations, np.eye(5), rewards, chain.lengths, chain.terminated, 0.9
        )


def test_lists_become_arrays_and_strings_are_refused(chain):
    as_lists = privrl.Trajectories(
        *(
            getattr(chain, f).tolist()
            for f in ("observations", "actions", "rewards", "lengths", "terminated")
        )
    )
    assert np.array_equal(_lsw(as_lists).value, _lsw(chain).value)
    listed = privrl.gaussian_mechanism([1.0, 2.0], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    assert listed.value.shape == (2,)
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        mc.SmoothGaussianBudget(epsilon="1", delta=0.1, return_bound=1.0)
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        privrl.laplace_mechanism(1.0, sensitivity=1.0, epsilon="1", rng=0)
    with pytest.raises(ValueError, match="value must be array-like"):
        privrl.gaussian_mechanism(["1", "2"], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    as_numbers = privrl.Trajectories(
        chain.observations,
        chain.actions,
        chain.rewards,
        chain.lengths,
        chain.terminated.astype(float),
    )
    assert as_numbers.terminated.dtype == bool
    assert np.array_equal(as_numbers.terminated, chain.terminated)
    with pytest.raises(ValueError, match="terminated must be a 1-d array of booleans"):
        privrl.Trajectories(
            chain.observations,
            chain.actions,
            chain.rewards,
            chain.lengths,
            np.full(chain.lengths.shape, 0.5),
        )
    with pytest.raises(ValueError, match="rewards must be numeric"):
        privrl.Trajectories(
            chain.observations,
            chain.actions,
            chain.rewards.astype(str),
            chain.lengths,
            chain.terminated,
        )
    with pytest.raises(ValueError, match="ragged"):
        privrl.Trajectories([[0, 1], [0]], [[0]], [[0.0]], [1], [True])


def test_mismatched_shapes_and_missing_targets(chain):
    with pytest.raises(ValueError, match="rho must have shape"):
        privrl.gpope(
            chain,
            features=np.eye(5),
            rho=np.ones((3, 3)),
            gamma=0.9,
            epsilon=1.0,
            delta=1e-5,
            iterations=2,
            step_size=0.1,
            clip_norm=1.0,
            rng=0,
        )
    with pytest.raises(ValueError, match="rho must be non-negative"):
        privrl.gpope(
            chain,
            features=np.eye(5),
            rho=-np.ones(chain.rewards.shape),
            gamma=0.9,
            epsilon=1.0,
            delta=1e-5,
            iterations=2,
            step_size=0.1,
            clip_norm=1.0,
            rng=0,
        )
    with pytest.raises(ValueError, match="epsilon, noise_multiplier"):
        privrl.gpope(
            chain,
            features=np.eye(5),
            gamma=0.9,
            delta=1e-5,
            iterations=2,
            step_size=0.1,
            clip_norm=1.0,
            rng=0,
        )
    with pytest.raises(ValueError, match="epsilon, sigma"):
        privrl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0, sigma=1.0, delta=1e-5, rng=0)
    with pytest.raises(ValueError, match="trajectories must be a privrl.Trajectories"):
        privrl.gpope(
            chain.observations,
            features=np.eye(5),
            gamma=0.9,
            epsilon=1.0,
            delta=1e-5,
            iterations=2,
            step_size=0.1,
            clip_norm=1.0,
            rng=0,
        )
    with pytest.raises(ValueError, match="policy: entries lie below eta"):
        privrl.dirichlet_teacher_answer(
            [0.99, 0.01], k=5.0, eta=0.05, tau=0.01, lipschitz=1.0, b=1.0, rng=0, strict=True
        )


def test_a_grid_too_fine_for_the_noise_names_step():
    with pytest.raises(ValueError, match="step: sigma 1 is more than 2"):
        privrl.gaussian_mechanism(1.0, sensitivity=1.0, sigma=1.0, step=2.0**-30, delta=1e-5, rng=0)
    with pytest.raises(ValueError, match="value: 400000 coordinates at noise multiplier"):
        privrl.gaussian_mechanism(
            np.zeros(400_000), sensitivity=1.0, epsilon=1e-3, delta=1e-5, rng=0
        )


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


def test_a_threshold_far_above_eta_is_no_guarantee():
    """At k = 1e5 and tau = 1/2 (far above eta) mpmath's incomplete beta did not converge (a
    NoConvergence turned into a ValueError naming tau); the series with a bounded tail
    evaluates eq. (6) there: delta is 1, no guarantee."""
    with pytest.raises(ValueError, match=r"k = 100000.0: Theorem 1 gives no guarantee"):
        privrl.dirichlet_teacher_answer(
            [0.5, 0.5], k=1e5, tau=0.5, eta=0.05, lipschitz=0.5, b=0.1, rng=0
        )


def _gpope(data, **kw):
    args = dict(
        features=np.eye(5),
        gamma=0.9,
        epsilon=1.0,
        delta=1e-5,
        iterations=20,
        step_size=0.1,
        clip_norm=1.0,
        rng=0,
    )
    return privrl.gpope(data, **{**args, **kw})


def test_gpope_on_huge_rewards_releases_in_every_seed(chain):
    """A finite reward of 1.7e308 overflows its trajectory's statistics: whether a release is
    made must not depend on whether that trajectory is sampled (an exception would tell)."""
    rewards = chain.rewards.copy()
    rewards[0, 0] = 1.7e308
    data = privrl.Trajectories(
        chain.observations, chain.actions, rewards, chain.lengths, chain.terminated
    )
    for seed in range(6):
        r = _gpope(data, features=100.0 * np.eye(5), rng=seed)
        assert np.all(np.isfinite(r.value))


def test_gpope_public_parameters_that_overflow_are_named(chain):
    with pytest.raises(ValueError, match="features: entries up to 1e\\+200 overflow"):
        _gpope(chain, features=np.eye(5) * 1e200)
    with pytest.raises(ValueError, match="step_size: the iterates could reach"):
        _gpope(chain, step_size=1e308)


def test_trajectories_are_read_only_copies(chain):
    arrays = {
        f: getattr(chain, f).copy()
        for f in ("observations", "actions", "rewards", "lengths", "terminated")
    }
    data = privrl.Trajectories(**arrays)
    arrays["rewards"][0, 0] = np.nan  # the caller's array, after validation
    arrays["observations"][0, 0] = -1
    assert np.array_equal(data.rewards, chain.rewards)
    assert np.array_equal(data.observations, chain.observations)
    for field in arrays:
        with pytest.raises(ValueError, match="read-only"):
            getattr(data, field)[0] = 0
    assert np.array_equal(_lsw(data).value, _lsw(chain).value)


def test_complex_input_is_refused_naming_the_argument(chain):
    with pytest.raises(ValueError, match="value must be real"):
        privrl.gaussian_mechanism([1 + 2j], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    with pytest.raises(ValueError, match="features must be real"):
        _lsw(chain, features=np.eye(5) * (1 + 1j))
    with pytest.raises(ValueError, match="features must be real"):
        _gpope(chain, features=np.eye(5) * (1 + 0j))


def test_grids_finer_than_doubles_name_step(chain):
    with pytest.raises(ValueError, match="step: a sensitivity of 1 is more than the largest"):
        privrl.gaussian_mechanism(
            [1.0], sensitivity=1, sigma=1e-310, step=2.0**-1050, delta=1e-5, rng=0
        )
    with pytest.raises(ValueError, match="step: a sensitivity of 1 is more than the largest"):
        privrl.gaussian_mechanism(
            [1.0], sensitivity=1, epsilon=1, step=2.0**-1070, delta=1e-5, rng=0
        )
    with pytest.raises(ValueError, match="step: a sensitivity of 2 is more than the largest"):
        _gpope(chain, step=2.0**-1074)


@pytest.mark.parametrize(
    "bad",
    [
        dict(step=2.0**-1074),
        dict(sensitivity=1e300),
        dict(epsilon=1e-300),
        dict(sensitivity=2.0**26),
    ],
)
def test_a_laplace_noise_scale_beyond_the_grid_names_step(bad):
    """Public parameters whose noise could leave the grid's exact range are refused before any
    draw (they raised an internal error with a 300-digit Fraction); 2^45 steps still pass."""
    args = dict(sensitivity=1.0, epsilon=1.0, rng=0, step=2.0**-20)
    with pytest.raises(ValueError, match=r"step: the noise scale is 2\^[\d.]+ steps of"):
        privrl.laplace_mechanism(1.0, **{**args, **bad})
    assert privrl.laplace_mechanism(1.0, **{**args, "sensitivity": 2.0**25 - 1}).epsilon <= 1.0


def test_a_numpy_float_step_is_a_step():
    as_numpy = privrl.laplace_mechanism(
        1.0, sensitivity=1.0, epsilon=1.0, rng=0, step=np.float32(0.5)
    )
    as_float = privrl.laplace_mechanism(1.0, sensitivity=1.0, epsilon=1.0, rng=0, step=0.5)
    assert as_numpy.value == as_float.value and as_numpy.epsilon == as_float.epsilon
    assert type(as_numpy.parameters["step"]) is float


@pytest.mark.parametrize("arg", ["lr", "lipschitz"])
def test_functional_q_learning_names_an_update_bound_beyond_doubles(arg):
    with pytest.raises(ValueError, match=rf"\({arg}\) = 1e\+300"):
        privrl.functional_q_learning(epsilon=1.0, delta=1e-3, episodes=3, rng=0, **{arg: 1e300})


def test_dp_lsw_features_too_small_for_its_noise_scale(chain):
    for scale in (1e-308, 0.0):  # the SVD does not converge; the noise scale would be 0
        with pytest.raises(ValueError, match=r"features \(phi\): DP-LSW's noise scale"):
            _lsw(chain, features=np.eye(5) * scale)
    with pytest.raises(ValueError, match=r"features \(phi\): DP-LSL needs"):
        _lsl(chain, features=np.eye(5) * 1e155)


def test_n_states_is_checked_against_the_features_before_any_allocation(chain):
    for release in (_lsw, _lsl):
        with pytest.raises(ValueError, match="features must have n_states = 1000000000000 rows"):
            release(chain, n_states=10**12)


def test_grid_limits_are_refused_before_any_draw_in_every_grid_release():
    """laplace_report had no cap on its noise scale (2^53.3 steps at epsilon 1e-7: some draws left
    the exact range); a step above 2^970 released infinities; lr = 5e-324 divided by zero."""
    with pytest.raises(ValueError, match=r"step: the noise scale is 2\^[\d.]+ steps of"):
        privrl.laplace_report([[0.0]], epsilon=1e-7, clip=1.0, rng=0)
    for release in (
        lambda: privrl.laplace_mechanism(0.0, sensitivity=1.0, epsilon=1.0, rng=0, step=2.0**1023),
        lambda: privrl.gaussian_mechanism(
            0.0, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0, step=2.0**1023
        ),
    ):
        with pytest.raises(ValueError, match=r"step must be at most 2\^970"):
            release()
    with pytest.raises(ValueError, match=r"alpha \(lr\) = 5e-324"):
        privrl.functional_q_learning(epsilon=1.0, delta=1e-3, episodes=3, rng=0, lr=5e-324)
    # a sigma below 2^-1054 made the default step 0 (ZeroDivisionError): now the smallest double
    with pytest.warns(privrl.ClippedDataWarning, match=r"x \(in grid steps\)"):  # 1 is 2^1074 steps
        r = privrl.gaussian_mechanism(1.0, sensitivity=1e-320, sigma=5e-324, delta=1e-5, rng=0)
    assert r.parameters["step"] == 5e-324


def test_a_policy_below_eta_is_projected_onto_the_restricted_simplex_or_refused():
    """Entries within 1e-6 below eta passed unchanged and the event understated delta (0.17 for
    0.42 at the entry used); now every row is in the eta-restricted simplex Theorem 1 assumes:
    projected (1-Lipschitz) with a warning, or refused with strict=True."""
    from scipy.optimize import minimize

    from privrl.core.mechanisms.dirichlet import project_to_restricted_simplex

    args = dict(k=1e5, tau=1e-9, eta=2e-6, lipschitz=0.5, b=0.1, rng=0)
    with pytest.warns(privrl.ClippedDataWarning, match=r"policy: entries lie below eta"):
        privrl.dirichlet_teacher_answer([1.01e-6, 1 - 1.01e-6], **args)
    with pytest.raises(ValueError, match="policy: entries lie below eta"):
        privrl.dirichlet_teacher_answer([1.01e-6, 1 - 1.01e-6], strict=True, **args)
    rng = np.random.default_rng(0)
    for m in (2, 3, 5):
        eta = 0.8 / m * rng.uniform()
        x = rng.dirichlet(np.ones(m) * 0.3)
        p = project_to_restricted_simplex(x[None, :], eta)[0]
        assert np.all(p >= eta) and abs(p.sum() - 1) < 1e-12
        brute = minimize(
            lambda y, x=x: ((y - x) ** 2).sum(),
            np.full(m, 1 / m),
            method="SLSQP",
            bounds=[(eta, 1)] * m,
            options={"ftol": 1e-14},
            constraints=[{"type": "eq", "fun": lambda y: y.sum() - 1}],
        )
        assert np.allclose(brute.x, p, atol=1e-6)


def test_answers_whose_composition_overflows_are_refused_naming_k():
    """Two rows at k = 2000 (eq. 12 gives 1641 per answer) raised an OverflowError inside
    advanced composition (e^epsilon), even with composition="basic". Advanced composition is
    now infinite there, refused naming k; basic composes to the sum."""
    args = dict(k=2000.0, tau=0.01, eta=0.05, lipschitz=0.5, b=0.1, rng=0)
    with pytest.raises(ValueError, match=r"k: its 2 answers compose to an infinite epsilon"):
        privrl.dirichlet_teacher_answer([[0.7, 0.3], [0.6, 0.4]], **args)
    one = privrl.dirichlet_teacher_answer([0.7, 0.3], **args)
    basic = privrl.dirichlet_teacher_answer([[0.7, 0.3], [0.6, 0.4]], composition="basic", **args)
    assert round(one.epsilon) == 1641 and basic.epsilon == pytest.approx(2 * one.epsilon)


def test_gpope_checks_the_feature_count_before_building_its_statistics(chain):
    """600,000 features asked for 5.2 TiB of (d, d) statistics before the count was checked."""
    with pytest.raises(ValueError, match="features: at most 524288 features"):
        _gpope(chain, features=np.ones((5, 600_000)))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: privrl.sign_report([[1.0, 2.0]], epsilon=1e-17, clip=1.0, rng=0),
            "epsilon: 1e-17 over d_hat = 1 signs",
        ),
        (
            lambda: privrl.laplace_report([[1.0]], epsilon=1.0, clip=5e-324, rng=0),
            "clip must be at",
        ),
        (
            lambda: privrl.gaussian_mechanism(
                1.0, sensitivity=1e308, epsilon=1.0, delta=1e-5, rng=0
            ),
            "sensitivity: the noise scale",
        ),
        (
            lambda: privrl.laplace_mechanism([], sensitivity=1.0, epsilon=1.0, rng=0),
            "value must hold at least one coordinate",
        ),
        (
            lambda: privrl.gaussian_mechanism([], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0),
            "value must hold at least one coordinate",
        ),
        (
            lambda: privrl.dirichlet_teacher_answer(
                [0.5, 0.5], k=5.0, tau=0.01, eta=1e-300, lipschitz=1.0, b=1.0, rng=0
            ),
            "eta = 1e-300",
        ),
        (
            lambda: privrl.dirichlet_teacher_answer(
                [0.5, 0.5], k=5e-324, tau=0.01, eta=0.05, lipschitz=1.0, b=1.0, rng=0
            ),
            "k, eta: the Dirichlet",
        ),
    ],
)
def test_edge_values_name_the_argument_a_user_gave(call, message):
    """These named an internal value (epsilons[0], bound, sigma, d, a, b) before."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_functional_q_learning_without_torch_names_the_extra(monkeypatch):
    """Without torch (its import made to fail), the error names the extra to install, not a bare
    ``No module named 'torch'``."""
    import sys

    import privrl.core.algorithms as algorithms

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, "privrl.core.algorithms.functional_q", raising=False)
    monkeypatch.delattr(algorithms, "functional_q", raising=False)
    with pytest.raises(
        ModuleNotFoundError, match=re.escape("install privrl[deep] for functional_q_learning")
    ):
        privrl.functional_q_learning(epsilon=1.0, delta=1e-3, episodes=3, rng=0)


def _no_warning(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


def test_every_release_that_clips_warns_and_strict_raises(chain):
    """GPOPE's gradients and the local reports' inputs beyond their clip: a ClippedDataWarning
    whose message holds the public clip and nothing of the data (the same text for any data
    beyond it), or with strict=True a ValueError naming the argument; within it, silence."""

    def gp(clip_norm, **kw):
        return privrl.gpope(
            chain,
            features=np.eye(5),
            gamma=0.9,
            noise_multiplier=1.0,
            delta=1e-5,
            iterations=5,
            step_size=0.1,
            clip_norm=clip_norm,
            rng=0,
            **kw,
        )

    cases = [  # (call with a clip, a clip that clips, one that does not, expected message)
        (
            gp,
            1e-3,
            1e6,
            "clip_norm: gradients lie beyond the L2 norm clip_norm = 0.001 the "
            "privacy analysis assumes",
        ),
        (
            lambda c, **kw: privrl.laplace_report(
                np.ones((4, 3)), epsilon=1.0, clip=c, rng=0, **kw
            ),
            1.0,
            6.0,
            "clip: gradients lie beyond the L1 norm clip / 2 = 0.5 the privacy analysis assumes",
        ),
        (
            lambda c, **kw: privrl.sign_report(np.ones((4, 3)), epsilon=1.0, clip=c, rng=0, **kw),
            1.0,
            100.0,
            "clip: projected gradients lie beyond [-clip, clip] = [-1, 1], the range "
            "the privacy analysis assumes",
        ),
    ]
    for call, clips, fits, message in cases:
        with pytest.warns(privrl.ClippedDataWarning) as caught:
            call(clips)
        assert [str(w.message) for w in caught] == [f"{message}; clipped to it"]
        with pytest.raises(ValueError, match=re.escape(message)):
            call(clips, strict=True)
        _no_warning(lambda call=call, fits=fits: call(fits, strict=True))


def test_a_clipped_report_is_the_report_of_the_clipped_input():
    """The warning changes nothing released: the same seed gives the same report as before."""
    g = np.array([[3.0, -1.0], [0.1, 0.1]])
    with pytest.warns(privrl.ClippedDataWarning):
        r = privrl.laplace_report(g, epsilon=1.0, clip=1.0, rng=3)
    clipped = g / np.maximum(1.0, np.abs(g).sum(axis=1, keepdims=True) / 0.5)
    assert np.array_equal(
        r.value,
        _no_warning(lambda: privrl.laplace_report(clipped, epsilon=1.0, clip=1.0, rng=3)).value,
    )
    with pytest.warns(privrl.ClippedDataWarning):
        s = privrl.sign_report(g * 100, epsilon=1.0, clip=1.0, rng=3)
    from privrl.core.mechanisms import local as loc

    assert np.array_equal(s.value, loc.projected_random_sign(g * 100, 1.0, 1.0, 3, d_hat=1))
