"""Gaussian and Laplace mechanisms: noise scale (statistical), validation, reproducibility."""

import numpy as np
import pytest
from scipy import stats

from privrl.core.accounting.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from privrl.core.mechanisms import gaussian_mechanism, laplace_mechanism


@pytest.mark.parametrize("calibration", ["analytic", "classic"])
def test_gaussian_noise_has_calibrated_scale(calibration):
    """200,000 draws: the sample std is within 1% of sigma (the std estimate has relative error
    ~1/sqrt(2n) = 0.16%, so a halved or doubled noise fails at any seed)."""
    eps, delta, sens = 0.5, 1e-5, 2.0
    sigma = (analytic_gaussian_sigma if calibration == "analytic" else classic_gaussian_sigma)(
        eps, delta, sens
    )
    out = gaussian_mechanism(np.zeros(200_000), sens, eps, delta, rng=0, calibration=calibration)
    assert out.std() == pytest.approx(sigma, rel=0.01)
    assert stats.kstest(out / sigma, "norm").pvalue > 1e-3


def test_laplace_noise_has_calibrated_scale():
    out = laplace_mechanism(np.zeros(200_000), 3.0, 0.5, rng=1)
    b = 3.0 / 0.5
    assert np.abs(out).mean() == pytest.approx(b, rel=0.01)  # E|Lap(b)| = b
    assert stats.kstest(out, "laplace", args=(0, b)).pvalue > 1e-3


def test_mechanisms_are_reproducible_and_shape_preserving():
    x = np.arange(6.0).reshape(2, 3)
    a = gaussian_mechanism(x, 1.0, 1.0, 1e-5, rng=7)
    assert a.shape == x.shape
    np.testing.assert_array_equal(a, gaussian_mechanism(x, 1.0, 1.0, 1e-5, rng=7))
    np.testing.assert_array_equal(
        laplace_mechanism(x, 1.0, 1.0, rng=3), laplace_mechanism(x, 1.0, 1.0, rng=3)
    )


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: gaussian_mechanism([1.0], 1.0, -1.0, 1e-5, rng=0), "epsilon"),
        (lambda: gaussian_mechanism([1.0], 1.0, 1.0, 2.0, rng=0), "delta"),
        (lambda: gaussian_mechanism([1.0], -1.0, 1.0, 1e-5, rng=0), "sensitivity"),
        (lambda: gaussian_mechanism([np.nan], 1.0, 1.0, 1e-5, rng=0), "value"),
        (lambda: gaussian_mechanism([1.0], 1.0, 1.0, 1e-5, rng=0, calibration="x"), "calibration"),
        (lambda: laplace_mechanism([1.0], 1.0, 0.0, rng=0), "epsilon"),
        (lambda: laplace_mechanism([1.0], 1.0, 1.0, rng=None), "rng"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()
