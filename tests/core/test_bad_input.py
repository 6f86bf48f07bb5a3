"""Property-based: public mechanism and accounting functions reject bad input with a ValueError
naming the parameter (never a silent answer or a traceback from deep inside numpy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrl.core.accounting import composition, gaussian, local, subsampled
from privrl.core.mechanisms import gaussian as gaussian_mech
from privrl.core.mechanisms import laplace
from privrl.core.mechanisms import local as local_mech

# function, valid keyword arguments, parameters for which +inf is a valid value
CASES = [
    (gaussian.analytic_gaussian_sigma, dict(epsilon=1.0, delta=1e-5, sensitivity=1.0), ()),
    (gaussian.classic_gaussian_sigma, dict(epsilon=0.5, delta=1e-5, sensitivity=1.0), ()),
    (gaussian.gaussian_delta, dict(sigma=2.0, epsilon=1.0, sensitivity=1.0), ()),
    (gaussian.gaussian_epsilon, dict(sigma=2.0, delta=1e-5, sensitivity=1.0), ()),
    (composition.basic_composition, dict(epsilon=0.1, delta=1e-6, k=10), ()),
    (composition.advanced_composition, dict(epsilon=0.1, delta=1e-6, k=10, delta_slack=1e-6), ()),
    (composition.kairouz_composition, dict(epsilon=0.1, delta=1e-6, k=10, delta_slack=1e-6), ()),
    (
        composition.optimal_composition_delta,
        dict(epsilon=0.1, delta=1e-6, k=5, epsilon_total=0.3),
        (),
    ),
    (local.per_round_epsilon, dict(epsilon=1.0, rounds=3), ("epsilon",)),
    (subsampled.gpope_epsilon, dict(noise_multiplier=2.0, n=100, iterations=50, delta=1e-5), ()),
    (subsampled.noise_std, dict(noise_multiplier=2.0, clip_norm=1.0), ()),
    (gaussian_mech.gaussian_noise_scale, dict(epsilon=1.0, delta=1e-5, sensitivity=1.0), ()),
    (laplace.laplace_noise_scale, dict(epsilon=1.0, sensitivity=1.0), ()),
    (laplace.laplace_mechanism, dict(value=np.ones(3), sensitivity=1.0, epsilon=1.0, rng=0), ()),
    (
        gaussian_mech.gaussian_mechanism,
        dict(value=np.ones(3), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0),
        (),
    ),
    (local_mech.clip_l1, dict(g=np.ones((2, 3)), bound=1.0), ()),
    (
        local_mech.laplace_gradient_mechanism,
        dict(g=np.ones((2, 3)), epsilon=1.0, clip=1.0, rng=0),
        ("epsilon",),
    ),
    (local_mech.bit_flip_probability, dict(x=np.zeros(3), epsilon=1.0), ("epsilon",)),
    (local_mech.default_projection_dim, dict(epsilon=1.0, d=10), ("epsilon",)),
]
BAD = [math.nan, math.inf, -math.inf, "x", None]
IDS = [f.__name__ for f, _, _ in CASES]


@pytest.mark.parametrize(("func", "valid", "inf_ok"), CASES, ids=IDS)
def test_valid_arguments_work(func, valid, inf_ok):
    func(**valid)


@pytest.mark.parametrize(("func", "valid", "inf_ok"), CASES, ids=IDS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_bad_scalars_and_arrays_raise_value_error_naming_the_parameter(func, valid, inf_ok, data):
    name = data.draw(st.sampled_from(sorted(k for k in valid if k != "rng")))
    if isinstance(valid[name], np.ndarray):
        good = valid[name]
        bad = data.draw(
            st.sampled_from(
                [
                    np.where(np.arange(good.size).reshape(good.shape) == 0, np.nan, good),
                    np.full(good.shape, np.inf),
                    "x",
                    None,
                ]
            )
        )
    else:
        bad = data.draw(st.sampled_from([b for b in BAD if not (b == math.inf and name in inf_ok)]))
    with pytest.raises(ValueError) as err:
        func(**{**valid, name: bad})
    assert name in str(err.value) or name.split("_")[0] in str(err.value), str(err.value)
