"""The explicit parameters that let the Audits chapter weaken a release default to the private
release: ``smooth_gaussian_release``'s noise source, ``dpsgd_gradient(n_releases=None)`` and
``laplace_gradient_mechanism(clipped=True)``."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from privrl.core.algorithms.functional_q import dpsgd_gradient
from privrl.core.audit import BatchedNormal
from privrl.core.mechanisms import local
from privrl.core.mechanisms.smooth_sensitivity import smooth_gaussian_release


def test_smooth_gaussian_release_draws_from_the_seeded_generator():
    value = np.array([1.0, -2.0])
    expected = value + np.random.default_rng(7).normal(0.0, 0.5, size=2)
    np.testing.assert_array_equal(smooth_gaussian_release(value, 0.5, 7), expected)
    np.testing.assert_array_equal(
        smooth_gaussian_release(value, 0.5, np.random.default_rng(7)), expected
    )
    with pytest.raises(ValueError, match="rng"):
        smooth_gaussian_release(value, 0.5, None)
    with pytest.raises(ValueError, match="rng"):
        smooth_gaussian_release(value, 0.5, "seed")


def test_smooth_gaussian_release_with_a_batched_sampler_makes_n_releases():
    value = np.array([1.0, -2.0])
    out = smooth_gaussian_release(value, 0.5, BatchedNormal(np.random.default_rng(7), 3))
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(out, value + np.random.default_rng(7).normal(0.0, 0.5, (3, 2)))


def test_dpsgd_gradient_defaults_to_one_release():
    grads = [torch.ones((4, 2, 3))]
    default = dpsgd_gradient(grads, 1.0, 2.0, 4, torch.Generator().manual_seed(5))[0]
    explicit = dpsgd_gradient(
        grads, 1.0, 2.0, 4, torch.Generator().manual_seed(5), n_releases=None
    )[0]
    assert default.shape == (2, 3)
    torch.testing.assert_close(default, explicit, rtol=0, atol=0)


def test_dpsgd_gradient_n_releases_adds_a_leading_axis_with_the_calibrated_noise():
    """The clipped sum of zero gradients is 0: the releases are noise of std
    z C / B = 2 * 1 / 4 around 0."""
    out = dpsgd_gradient(
        [torch.zeros((4, 1))], 1.0, 2.0, 4, torch.Generator().manual_seed(5), n_releases=20_000
    )[0]
    assert out.shape == (20_000, 1)
    assert float(out.std()) == pytest.approx(0.5, rel=0.03)


def test_laplace_gradient_mechanism_clips_by_default():
    g = np.array([[4.0, 0.0, 0.0]])
    np.testing.assert_array_equal(
        local.laplace_gradient_mechanism(g, math.inf, 1.0, 0), local.clip_l1(g, 0.5)
    )
    np.testing.assert_array_equal(
        local.laplace_gradient_mechanism(g, 2.0, 1.0, 3),
        local.laplace_gradient_mechanism(g, 2.0, 1.0, 3, clipped=True),
    )
    gbar, noise = local.laplace_gradient_parts(g, 2.0, 1.0, 3)
    np.testing.assert_array_equal(gbar, local.clip_l1(g, 0.5))
    assert noise.shape == g.shape


def test_laplace_gradient_mechanism_unclipped_keeps_the_noise_scale():
    """``clipped=False`` (the weakened release) skips eq. (19) only: same noise draws."""
    g = np.array([[4.0, 0.0, 0.0]])
    private = local.laplace_gradient_mechanism(g, 2.0, 1.0, 3)
    weakened = local.laplace_gradient_mechanism(g, 2.0, 1.0, 3, clipped=False)
    np.testing.assert_allclose(weakened - g, private - local.clip_l1(g, 0.5), atol=1e-12)
