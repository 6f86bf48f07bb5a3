"""Events in dp-accounting's terms: each event's ``to_dp_event()`` composed by dp-accounting's own
RDP and PLD accountants gives back privrl's epsilon, or raises ``NotImplementedError``."""

import math

import dp_accounting
import pytest
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant

import privrl
from privrl.core.accounting.events import DEFAULT_RDP_ORDERS, NoGuarantee
from privrl.core.accounting.gaussian import GaussianEvent
from privrl.core.accounting.laplace import LaplaceReportEvent
from privrl.core.accounting.local import BitFlipEvent
from privrl.core.accounting.smooth_sensitivity import SmoothGaussianEvent
from privrl.core.accounting.subsampled import GpopeEvent, GridGpopeEvent

ADD = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE


def _rdp(event, delta, orders=DEFAULT_RDP_ORDERS):
    return RdpAccountant(list(orders), ADD).compose(event).get_epsilon(delta)


def _pld(event, delta):
    return PLDAccountant(ADD, value_discretization_interval=1e-4).compose(event).get_epsilon(delta)


def test_gaussian_releases_compose_as_dp_accounting_does():
    """privrl's Gaussian epsilon is the RDP accountant's on DEFAULT_RDP_ORDERS (matched to 1e-12);
    the PLD accountant is tighter, by at most 25% here."""
    runs = [
        privrl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=e, delta=1e-6, rng=i)
        for i, e in enumerate([0.5, 1.0, 2.0])
    ]
    total = privrl.compose(runs, delta=1e-5)
    dp_event = total.event.to_dp_event()
    assert isinstance(dp_event, dp_accounting.ComposedDpEvent)
    assert total.epsilon == pytest.approx(_rdp(dp_event, 1e-5), rel=1e-12)
    pld = _pld(dp_event, 1e-5)
    assert 0.75 * total.epsilon < pld < total.epsilon


def test_laplace_releases_are_discrete_laplace_events_of_their_epsilon():
    """Pure DP adds up: each DiscreteLaplaceDpEvent's loss L / t sums to privrl's epsilon (the
    accountants are too slow at L ~ 1e9 grid units for a unit test)."""
    runs = [
        privrl.laplace_mechanism(0.0, sensitivity=1.0, epsilon=e, rng=i)
        for i, e in enumerate([0.3, 0.5, 1.0])
    ]
    total = privrl.compose(runs, delta=0.0)
    events = total.event.to_dp_event().events
    assert math.fsum(e.sensitivity * e.noise_parameter for e in events) == pytest.approx(
        total.epsilon, rel=1e-9
    )


def test_continuous_events_match_both_accountants():
    gauss = GaussianEvent(sigma=3.0, sensitivity=1.0, compositions=4)  # exact (Balle-Wang)
    assert _pld(gauss.to_dp_event(), 1e-5) == pytest.approx(gauss.epsilon(1e-5), rel=0.01)
    assert _rdp(gauss.to_dp_event(), 1e-5) > gauss.epsilon(1e-5)
    laplace = LaplaceReportEvent(sensitivity=1.0, scale=2.0, reports=3)
    assert _pld(laplace.to_dp_event(), 1e-9) == pytest.approx(laplace.epsilon(0.0), rel=0.01)


def test_gpope_event_is_the_sampled_gaussian_under_replace_one():
    event = GpopeEvent(noise_multiplier=2.0, n=50, iterations=20)
    acc = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    assert acc.supports(event.to_dp_event())
    assert isinstance(event.to_dp_event(), dp_accounting.SelfComposedDpEvent)


@pytest.mark.parametrize(
    "event",
    [
        NoGuarantee("only each queried value is private"),
        BitFlipEvent(flip_probability=0.3, bits=2),
        SmoothGaussianEvent.__new__(SmoothGaussianEvent),
        GridGpopeEvent(noise_multiplier=2.0, n=50, iterations=20),
    ],
)
def test_events_without_a_dp_accounting_form_say_so(event):
    with pytest.raises(NotImplementedError, match=type(event).__name__):
        event.to_dp_event()


def test_a_composition_with_one_such_event_has_no_form():
    lsw_like = privrl.Release.from_event(0.0, BitFlipEvent(0.3), 0.0, relation="add/remove")
    gauss = privrl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=0)
    with pytest.raises(NotImplementedError):
        privrl.compose([gauss, lsw_like]).event.to_dp_event()
    assert math.isfinite(privrl.compose([gauss, lsw_like]).epsilon)


def test_the_api_pages_autodoc_directives_name_importable_objects():
    import importlib
    import pathlib
    import re

    book = pathlib.Path(__file__).resolve().parents[2] / "book" / "api"
    names = re.findall(
        r"\.\. auto(?:class|function|module):: (\S+)",
        "".join(p.read_text() for p in book.glob("*.md")),
    )
    assert "privrl.core.accounting.composed.ComposedEvent" in names
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            module, _, attribute = name.rpartition(".")
            assert hasattr(importlib.import_module(module), attribute), name
