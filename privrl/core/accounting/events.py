"""Thin helpers on Google's ``dp-accounting``: epsilon of a ``DpEvent`` by RDP and by PLD.

Build events with the library's own types (``GaussianDpEvent``, ``PoissonSampledDpEvent``,
``SampledWithoutReplacementDpEvent``, ``SelfComposedDpEvent``, ...); these functions only choose
the accountant and the neighbouring relation and return a float.
"""

from __future__ import annotations

from collections.abc import Sequence

import dp_accounting
from dp_accounting import NeighboringRelation
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant

from privrl.core.validation import check_delta, check_positive

__all__ = ["NeighboringRelation", "DEFAULT_RDP_ORDERS", "rdp_epsilon", "pld_epsilon"]

#: Orders used by the RDP accountant: dense near 1, then geometric up to 4096.
DEFAULT_RDP_ORDERS: tuple[float, ...] = tuple(
    [1.0 + x / 20.0 for x in range(1, 100)] + [6.0 + x for x in range(0, 59)]
    + [float(2**k) for k in range(6, 13)]
)


def rdp_epsilon(
    event: dp_accounting.DpEvent,
    delta: float,
    neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
    orders: Sequence[float] = DEFAULT_RDP_ORDERS,
) -> float:
    """Epsilon of ``event`` at ``delta`` from the RDP accountant (Mironov 2017; conversion of
    Canonne, Kamath, Steinke 2020 as implemented by dp-accounting)."""
    delta = check_delta(delta)
    accountant = RdpAccountant(list(orders), neighboring_relation)
    if not accountant.supports(event):
        raise ValueError(f"event {event!r} is not supported by the RDP accountant under {neighboring_relation}")
    return float(accountant.compose(event).get_epsilon(delta))


def pld_epsilon(
    event: dp_accounting.DpEvent,
    delta: float,
    neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
    value_discretization_interval: float = 1e-3,
) -> float:
    """Epsilon of ``event`` at ``delta`` from the privacy-loss-distribution accountant
    (pessimistic discretisation: an upper bound that tightens as the interval shrinks)."""
    delta = check_delta(delta)
    interval = check_positive(value_discretization_interval, "value_discretization_interval")
    accountant = PLDAccountant(neighboring_relation, value_discretization_interval=interval)
    if not accountant.supports(event):
        raise ValueError(f"event {event!r} is not supported by the PLD accountant under {neighboring_relation}")
    return float(accountant.compose(event).get_epsilon(delta))
