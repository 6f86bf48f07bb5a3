"""The local-DP events of PGC (Ono and Takahashi 2020): they survive the ledger's JSON round trip,
give back the epsilon of the mechanism they describe, and move with its budget and noise."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.accounting.local import (
    BitFlipEvent,
    GridLaplaceReportEvent,
    LaplaceReportEvent,
    bit_flip_epsilon,
    grid_laplace_epsilon,
    laplace_epsilon,
    per_round_epsilon,
)
from privrl.core.mechanisms import discrete_laplace as dl


def _grid_event(
    sensitivity: float, epsilon: float, d: int, reports: int = 1, step: float = dl.DEFAULT_STEP
) -> GridLaplaceReportEvent:
    t = dl.grid_scale(sensitivity, epsilon, d, step)
    return GridLaplaceReportEvent(sensitivity, d, t.numerator, t.denominator, step, reports)


EVENTS = [
    LaplaceReportEvent(sensitivity=0.01, scale=0.01 / 2.0),
    LaplaceReportEvent(sensitivity=0.01, scale=0.01 / per_round_epsilon(1.0, 3), reports=3),
    BitFlipEvent(flip_probability=1.0 / (math.exp(2.5) + 1.0), bits=4),
    BitFlipEvent(flip_probability=0.25),
    _grid_event(0.01, 2.0, 112),
    _grid_event(0.01, 1.0 / 3, 112, reports=3),
]


@pytest.mark.parametrize("event", EVENTS)
def test_event_round_trips_through_json_and_recomputes_its_epsilon(event):
    again = event_from_dict(json.loads(json.dumps(event_to_dict(event))))
    assert again == event
    assert again.epsilon(0.0) == event.epsilon(0.0)


def test_events_give_the_mechanisms_epsilon():
    assert EVENTS[0].epsilon(0.0) == pytest.approx(2.0, rel=1e-12)
    assert EVENTS[1].epsilon(0.0) == pytest.approx(1.0, rel=1e-12)  # 3 rounds of 1/3
    assert EVENTS[2].epsilon(0.0) == pytest.approx(10.0, rel=1e-12)  # 4 signs of 2.5
    assert EVENTS[3].epsilon(0.0) == pytest.approx(math.log(3.0), rel=1e-12)


@pytest.mark.parametrize(
    "event, budget, noise",
    [
        (EVENTS[1], "reports", "scale"),
        (EVENTS[2], "bits", "flip_probability"),
    ],
)
def test_more_budget_or_less_noise_changes_the_epsilon(event, budget, noise):
    eps = event.epsilon(0.0)
    doubled = dataclasses.replace(event, **{budget: 2 * getattr(event, budget)})
    assert doubled.epsilon(0.0) == pytest.approx(2 * eps, rel=1e-12)
    halved = dataclasses.replace(event, **{noise: getattr(event, noise) / 2})
    assert halved.epsilon(0.0) > eps * (1 + 1e-6)


def test_bad_parameters_raise():
    with pytest.raises(ValueError):
        laplace_epsilon(1.0, 0.0)
    with pytest.raises(ValueError):
        bit_flip_epsilon(0.6)
    with pytest.raises(ValueError):
        LaplaceReportEvent(1.0, 1.0, reports=0).epsilon(0.0)


@pytest.mark.parametrize(
    "sensitivity, epsilon, d, step",
    [
        (0.01, 1.0, 112, 2.0**-30),
        (0.01, 1.0 / 3, 131, 2.0**-30),
        (1.0, 0.1, 3, 2.0**-10),
        (0.3, 7.0, 1, 2.0**-40),
        (5.0, 2.0, 50, 2.0**-3),
    ],
)
def test_grid_epsilon_is_discrete_laplaces_computed_independently(sensitivity, epsilon, d, step):
    """The accounting layer's exact epsilon equals the mechanism module's, bit for bit, and is at
    most the target the scale was calibrated to."""
    t = dl.grid_scale(sensitivity, epsilon, d, step)
    ours = grid_laplace_epsilon(sensitivity, d, t, step)
    assert ours == dl.grid_epsilon(sensitivity, d, t, step)
    assert ours <= epsilon


def test_grid_event_moves_with_its_scale_reports_and_sensitivity():
    """The grid event's epsilon is exact: L/t with L = floor(C/step) + d; halving the scale
    doubles it, three reports triple it, a sensitivity of 2C nearly doubles it."""
    event = _grid_event(0.01, 1.0, 112)
    L = math.floor(0.01 / dl.DEFAULT_STEP) + 112
    assert event.epsilon(0.0) == pytest.approx(
        L / (event.scale_numerator / event.scale_denominator), rel=1e-15
    )
    assert 1.0 - 1e-4 < event.epsilon(0.0) <= 1.0
    assert event.noise_scale == pytest.approx(0.01 * dl.noise_inflation(0.01, 1.0, 112), rel=1e-15)
    halved = dataclasses.replace(event, scale_denominator=2 * event.scale_denominator)
    assert halved.epsilon(0.0) == pytest.approx(2 * event.epsilon(0.0), rel=1e-12)
    assert dataclasses.replace(event, reports=3).epsilon(0.0) == pytest.approx(
        3 * event.epsilon(0.0), rel=1e-12
    )
    assert dataclasses.replace(event, sensitivity=0.02).epsilon(0.0) > 1.99


def test_grid_epsilon_rejects_bad_input():
    t = dl.grid_scale(0.01, 1.0, 112)
    for bad in (
        lambda: grid_laplace_epsilon(0.01, 112, t, 0.3),
        lambda: grid_laplace_epsilon(0.01, 112, 2.5, dl.DEFAULT_STEP),
        lambda: grid_laplace_epsilon(0.01, 0, t, dl.DEFAULT_STEP),
        lambda: grid_laplace_epsilon(-1.0, 112, t, dl.DEFAULT_STEP),
        lambda: GridLaplaceReportEvent(0.01, 112, 0, 1, dl.DEFAULT_STEP).epsilon(0.0),
    ):
        with pytest.raises(ValueError):
            bad()
