import math

import numpy as np
import pytest

from privrl.core import validation as v
from privrl.core.rng import as_generator


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "x", None])
def test_epsilon_rejects(bad):
    with pytest.raises(ValueError, match="epsilon"):
        v.check_epsilon(bad)


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, math.nan])
def test_delta_rejects(bad):
    with pytest.raises(ValueError, match="delta"):
        v.check_delta(bad)


def test_delta_allow_zero():
    assert v.check_delta(0, allow_zero=True) == 0.0


def test_check_array_shape_and_finiteness():
    assert v.check_array([[1, 2]], "x", shape=(None, 2)).shape == (1, 2)
    with pytest.raises(ValueError, match="x must have shape"):
        v.check_array([1, 2, 3], "x", shape=(2,))
    with pytest.raises(ValueError, match="finite"):
        v.check_array([1.0, np.nan], "x")
    with pytest.raises(ValueError, match="ndim"):
        v.check_array(1.0, "x", ndim=1)


def test_complex_numbers_are_refused_not_truncated():
    for value in ([1 + 2j], np.eye(2) * (1 + 1j), np.complex64(1)):
        with pytest.raises(ValueError, match="x must be real, got complex"):
            v.check_array(value, "x")
    assert v.check_array([1 + 2j], "z", dtype=complex)[0] == 1 + 2j
    with pytest.raises(ValueError, match="s must be a real number, got the complex"):
        v.check_positive(np.complex128(1 + 2j), "s")


def test_check_int():
    assert v.check_int(3.0, "n") == 3
    with pytest.raises(ValueError, match="n must be an integer"):
        v.check_int(2.5, "n")
    with pytest.raises(ValueError, match="n must be >= 1"):
        v.check_int(0, "n", minimum=1)
    with pytest.raises(ValueError):
        v.check_int(True, "n")


def test_as_generator_reproducible_and_refuses_none():
    assert as_generator(5).random() == as_generator(5).random()
    with pytest.raises(ValueError, match="rng"):
        as_generator(None)
    with pytest.raises(ValueError, match="seed"):
        as_generator(-3)


def test_clipping_messages_name_the_public_bound_and_nothing_of_the_data():
    """The warning of two datasets clipped by different amounts, at different counts, is the
    same text: it names the argument and the public bound, never how many values or how far."""
    import warnings

    import numpy as np

    from privrl.core.mechanisms.dirichlet import into_restricted_simplex
    from privrl.core.validation import ClippedDataWarning, clip_to_bound

    def message(call) -> str:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        (w,) = caught
        assert issubclass(w.category, ClippedDataWarning)
        return str(w.message)

    small = message(lambda: clip_to_bound(np.array([0.5, 1.2]), "returns", 0.0, 1.0))
    large = message(lambda: clip_to_bound(np.array([9.75, -3.125, 7.5, 0.25]), "returns", 0.0, 1.0))
    assert (
        small
        == large
        == (
            "returns: values lie outside the bound [0, 1] the privacy analysis "
            "assumes; clipped to it"
        )
    )
    one = message(lambda: into_restricted_simplex(np.array([[0.99, 0.01]]), 0.05))
    two = message(lambda: into_restricted_simplex(np.array([[0.999, 0.001], [0.97, 0.03]]), 0.05))
    assert one == two and "0.05" in one and "0.01" not in one and "0.001" not in two
