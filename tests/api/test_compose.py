"""privrl.compose: several releases on the same data as one release, its epsilon the smaller of
basic composition (recomputed here as the sum) and dp-accounting's RDP accountant on the composed
events (recomputed here from their noise multipliers), never below either valid bound's minimum."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest

import privrl
from privrl.core.accounting.events import DpAccountingEvent


def _gaussians(k: int) -> list[privrl.Release]:
    return [
        privrl.gaussian_mechanism([1.0, 2.0], sensitivity=1.0, epsilon=0.5, delta=1e-6, rng=i)
        for i in range(k)
    ]


def test_gaussian_releases_compose_by_renyi_below_their_sum():
    runs = _gaussians(20)
    total = privrl.compose(runs, delta=1e-4)
    accountant = dp_accounting.rdp.RdpAccountant(
        [1 + x / 20 for x in range(1, 100)]
        + [6.0 + x for x in range(59)]
        + [float(2**k) for k in range(6, 13)]
    )
    for r in runs:
        accountant.compose(dp_accounting.GaussianDpEvent(r.parameters["noise_multiplier"]))
    renyi = accountant.get_epsilon(1e-4)
    assert total.epsilon == pytest.approx(renyi, rel=1e-9)
    assert total.parameters["basic_epsilon"] == pytest.approx(sum(r.epsilon for r in runs))
    assert total.epsilon < 0.5 * total.parameters["basic_epsilon"]
    assert total.value[3].tolist() == runs[3].value.tolist() and total.delta == 1e-4
    assert total.event.epsilon(total.delta) == total.epsilon


def test_unlike_events_compose_by_their_sum_at_the_sum_of_their_deltas(chain):
    laplace = privrl.laplace_mechanism(
        3.0, sensitivity=1.0, epsilon=0.5, rng=0, relation="replace-one trajectory"
    )
    gauss = privrl.gaussian_mechanism(
        [1.0, 2.0],
        sensitivity=1.0,
        epsilon=0.5,
        delta=1e-6,
        rng=0,
        relation="replace-one trajectory",
    )
    lsw = privrl.dp_lsw(
        chain,
        n_states=5,
        gamma=0.9,
        features=np.eye(5),
        epsilon=1.0,
        delta=0.01,
        return_bound=1.0,
        rng=1,
    )
    total = privrl.compose([laplace, gauss, lsw])
    assert total.delta == pytest.approx(1e-6 + 0.01)
    assert total.epsilon == pytest.approx(laplace.epsilon + gauss.epsilon + lsw.epsilon, rel=1e-12)
    with pytest.raises(ValueError, match=r"delta = 0.005 is below the releases' total delta"):
        privrl.compose([laplace, gauss, lsw], delta=0.005)


def test_releases_under_different_relations_are_refused_naming_them():
    replace_one = privrl.Release.from_event(
        0.0,
        DpAccountingEvent(dp_accounting.GaussianDpEvent(3.0), "rdp", "replace-one"),
        1e-6,
        relation="replace-one",
    )
    runs = [*_gaussians(5), replace_one]
    with pytest.raises(ValueError, match=r"releases\[0\]: add/remove.*releases\[5\]: replace-one"):
        privrl.compose(runs, delta=1e-4)


def test_a_delta_renyi_meets_below_the_sum_of_deltas_is_kept():
    runs = _gaussians(5)
    total = privrl.compose(runs, delta=1e-7)
    assert math.isfinite(total.epsilon)


def test_bad_input_names_the_argument():
    one = _gaussians(1)[0]
    with pytest.raises(ValueError, match="releases must be a sequence"):
        privrl.compose(one)
    with pytest.raises(ValueError, match=r"releases\[1\] must be a privrl.Release"):
        privrl.compose([one, (1.0, 0.5)])
    with pytest.raises(ValueError, match="at least one"):
        privrl.compose([])
    with pytest.raises(ValueError, match="delta"):
        privrl.compose([one], delta=1.5)


def test_a_release_cannot_state_a_guarantee_its_event_does_not_back():
    """epsilon is computed from the event, never given: the old positional form (value, epsilon,
    delta, event) is refused, a bad delta names delta, and the fields cannot be reassigned."""
    import dataclasses

    from privrl.core.accounting.gaussian import GaussianEvent

    event = GaussianEvent(sigma=1.0, sensitivity=1.0)
    r = privrl.Release(1.0, 1e-5, event, "add/remove")
    assert r.epsilon == event.epsilon(1e-5) > 4.0
    with pytest.raises(ValueError, match="event must be a privacy event"):
        privrl.Release(1.0, 0.001, 1e-5, event, "add/remove")
    with pytest.raises(TypeError):
        privrl.Release(1.0, delta=1e-5, event=event, relation="add/remove", epsilon=0.001)
    for bad in (float("nan"), 7.0, -1e-9):
        with pytest.raises(ValueError, match="delta"):
            privrl.Release(1.0, bad, event, "add/remove")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.epsilon = 0.001


def test_gaussian_mechanism_carries_the_relation_it_is_given():
    kw = dict(sensitivity=1.0, epsilon=1.0, delta=1e-6)
    add = privrl.gaussian_mechanism(1.0, rng=0, **kw)
    replace = privrl.gaussian_mechanism(1.0, rng=0, relation="replace-one", **kw)
    assert (add.event.relation, replace.event.relation) == ("add/remove", "replace-one")
    assert replace.epsilon == add.epsilon and replace.value == add.value
    with pytest.raises(ValueError, match="different neighbouring relations"):
        privrl.compose([add, replace])
    with pytest.raises(ValueError, match="relation must be one of"):
        privrl.gaussian_mechanism(1.0, rng=0, relation="swap", **kw)


def test_every_release_states_its_relation_and_compose_refuses_a_mix(chain):
    """Each api release carries the neighbouring relation its guarantee is under (a key of
    NEIGHBOURS); a relation the event contradicts is refused; trajectory releases compose with a
    mechanism only when the caller states the mechanism's sensitivity under the same relation."""
    from privrl.core.accounting.gaussian import GaussianEvent

    lsw = privrl.dp_lsw(
        chain,
        n_states=5,
        gamma=0.9,
        features=np.eye(5),
        epsilon=1.0,
        delta=0.01,
        return_bound=1.0,
        rng=1,
    )
    report = privrl.laplace_report(np.ones((2, 3)) / 10, epsilon=1.0, clip=1.0, rng=0)
    assert (lsw.relation, report.relation) == ("replace-one trajectory", "local report")
    assert all(r in privrl.NEIGHBOURS for r in (lsw.relation, report.relation))
    with pytest.raises(ValueError, match="different neighbouring relations"):
        privrl.compose([lsw, _gaussians(1)[0]])
    with pytest.raises(ValueError, match="relation must be one of"):
        privrl.Release(1.0, 1e-5, GaussianEvent(sigma=1.0, sensitivity=1.0), "neighbours")
    event = DpAccountingEvent(dp_accounting.GaussianDpEvent(3.0), "rdp", "replace-one")
    with pytest.raises(ValueError, match="is not the event's"):
        privrl.Release(1.0, 1e-5, event, "add/remove")
