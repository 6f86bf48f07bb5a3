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
    LaplaceReportEvent,
    bit_flip_epsilon,
    laplace_epsilon,
    per_round_epsilon,
)

EVENTS = [
    LaplaceReportEvent(sensitivity=0.01, scale=0.01 / 2.0),
    LaplaceReportEvent(sensitivity=0.01, scale=0.01 / per_round_epsilon(1.0, 3), reports=3),
    BitFlipEvent(flip_probability=1.0 / (math.exp(2.5) + 1.0), bits=4),
    BitFlipEvent(flip_probability=0.25),
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


@pytest.mark.parametrize("event, budget, noise", [
    (EVENTS[1], "reports", "scale"), (EVENTS[2], "bits", "flip_probability"),
])
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
