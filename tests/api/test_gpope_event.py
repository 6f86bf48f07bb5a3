"""``gpope_event``: the guarantee of GPOPE at a stored noise multiplier is the event
``gpope_noise`` returns at that multiplier, for each noise and accountant; bad input is refused
by name."""

from __future__ import annotations

import pytest

from privrl.api.evaluation import gpope_event, gpope_noise

CASES = [(True, "rdp"), (False, "rdp"), (False, "pld")]


@pytest.mark.parametrize(("exact", "accountant"), CASES)
def test_the_event_at_a_calibrated_multiplier_is_the_calibrations(exact, accountant):
    noise = gpope_noise(
        epsilon=2.0, delta=1e-5, n=12, iterations=20, exact=exact, accountant=accountant
    )
    event = gpope_event(
        noise.noise_multiplier, n=12, iterations=20, exact=exact, accountant=accountant
    )
    assert event == noise.event and event.epsilon(1e-5) <= 2.0
    halved = gpope_event(
        noise.noise_multiplier / 2, n=12, iterations=20, exact=exact, accountant=accountant
    )
    assert halved.epsilon(1e-5) > 2.0


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"noise_multiplier": 0.0}, "noise_multiplier"),
        ({"noise_multiplier": float("nan")}, "noise_multiplier"),
        ({"n": 0}, "n"),
        ({"iterations": 0}, "iterations"),
        ({"accountant": "pld"}, "accountant"),
        ({"accountant": "moments", "exact": False}, "accountant"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, name):
    args = {"noise_multiplier": 3.0, "n": 10, "iterations": 5, **kwargs}
    z = args.pop("noise_multiplier")
    with pytest.raises(ValueError, match=name):
        gpope_event(z, **args)
