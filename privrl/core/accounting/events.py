"""Thin helpers on Google's ``dp-accounting`` (epsilon of a ``DpEvent`` by RDP and by PLD), and
privacy guarantees as events that a ledger entry stores and recomputes.

Build events with the library's own types (``GaussianDpEvent``, ``PoissonSampledDpEvent``,
``SampledWithoutReplacementDpEvent``, ``SelfComposedDpEvent``, ...); these functions only choose
the accountant and the neighbouring relation and return a float.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import attr
import dp_accounting
from dp_accounting import NeighboringRelation
from dp_accounting import dp_event as dp_event_module
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant

from privrl.core.validation import check_delta, check_positive

__all__ = [
    "DEFAULT_RDP_ORDERS",
    "DpAccountingEvent",
    "NeighboringRelation",
    "NoGuarantee",
    "PrivacyEvent",
    "event_from_dict",
    "event_to_dict",
    "pld_epsilon",
    "rdp_epsilon",
    "register_event",
]

#: Orders used by the RDP accountant: dense near 1, then geometric up to 4096.
DEFAULT_RDP_ORDERS: tuple[float, ...] = tuple(
    [1.0 + x / 20.0 for x in range(1, 100)]
    + [6.0 + x for x in range(0, 59)]
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
        raise ValueError(
            f"event {event!r} is not supported by the RDP accountant under {neighboring_relation}"
        )
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
        raise ValueError(
            f"event {event!r} is not supported by the PLD accountant under {neighboring_relation}"
        )
    return float(accountant.compose(event).get_epsilon(delta))


# --- guarantees as events -----------------------------------------------------------------------
#
# A ledger entry stores the event its (epsilon, delta) was computed from, so the ledger page and the
# test suite can recompute it. Standard mechanisms are dp-accounting's own ``DpEvent`` objects,
# wrapped with the accountant and neighbouring relation that turn them into an epsilon
# (:class:`DpAccountingEvent`); guarantees dp-accounting does not know (smooth sensitivity, the
# functional mechanism's Theorem 5, the Dirichlet mechanism, local mechanisms) are small frozen
# events of the module that accounts for them, registered with :func:`register_event`.

_EVENT_TYPES: dict[str, type] = {}
RELATIONS = {
    "add/remove": NeighboringRelation.ADD_OR_REMOVE_ONE,
    "replace-one": NeighboringRelation.REPLACE_ONE,
}


def register_event(cls: type) -> type:
    """Class decorator: make a frozen dataclass event serialisable (:func:`event_to_dict`)."""
    if not dataclasses.is_dataclass(cls) or not hasattr(cls, "epsilon"):
        raise TypeError(f"{cls.__name__}: an event is a dataclass with an epsilon(delta) method")
    _EVENT_TYPES[cls.__name__] = cls
    return cls


@runtime_checkable
class PrivacyEvent(Protocol):
    """What a ledger entry stores: an event that recomputes its epsilon at a given delta and
    states its dp-accounting form (``NotImplementedError`` where it has none)."""

    def epsilon(self, delta: float) -> float: ...

    def to_dp_event(self) -> dp_accounting.DpEvent: ...


def _dp_event_to_dict(event: dp_accounting.DpEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"dp_event": type(event).__name__}
    for key, value in attr.asdict(event, recurse=False).items():
        if isinstance(value, dp_accounting.DpEvent):
            out[key] = _dp_event_to_dict(value)
        elif (
            isinstance(value, list | tuple)
            and value
            and isinstance(value[0], dp_accounting.DpEvent)
        ):
            out[key] = [_dp_event_to_dict(v) for v in value]
        else:
            out[key] = value
    return out


def _dp_event_from_dict(data: dict[str, Any]) -> dp_accounting.DpEvent:
    fields = dict(data)
    cls = getattr(dp_event_module, fields.pop("dp_event"))
    for key, value in fields.items():
        if isinstance(value, dict) and "dp_event" in value:
            fields[key] = _dp_event_from_dict(value)
        elif (
            isinstance(value, list)
            and value
            and isinstance(value[0], dict)
            and "dp_event" in value[0]
        ):
            fields[key] = [_dp_event_from_dict(v) for v in value]
    return cls(**fields)


@register_event
@dataclasses.dataclass(frozen=True)
class DpAccountingEvent:
    """A dp-accounting ``DpEvent`` with the accountant (``"rdp"`` or ``"pld"``) and the
    neighbouring relation (``"add/remove"`` or ``"replace-one"``) that give its epsilon."""

    dp_event: dp_accounting.DpEvent
    accountant: str
    relation: str

    def __post_init__(self) -> None:
        if not isinstance(self.dp_event, dp_accounting.DpEvent):
            raise ValueError(f"dp_event must be a dp_accounting DpEvent, got {self.dp_event!r}")
        if self.accountant not in ("rdp", "pld"):
            raise ValueError(f"accountant must be 'rdp' or 'pld', got {self.accountant!r}")
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {sorted(RELATIONS)}, got {self.relation!r}")

    def epsilon(self, delta: float) -> float:
        account = rdp_epsilon if self.accountant == "rdp" else pld_epsilon
        return account(self.dp_event, delta, RELATIONS[self.relation])

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """The wrapped ``DpEvent`` itself."""
        return self.dp_event


@register_event
@dataclasses.dataclass(frozen=True)
class NoGuarantee:
    """A release with no finite guarantee under the ledger entry's relation: ``reason`` says why
    (e.g. "only each queried value is private; the released function is not"). Its epsilon is
    infinite at every delta."""

    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise ValueError("NoGuarantee: state why the release has no guarantee")

    def epsilon(self, delta: float) -> float:
        return math.inf

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """No ``DpEvent`` states an infinite loss: raises ``NotImplementedError`` with the reason."""
        raise NotImplementedError(f"NoGuarantee has no DpEvent form: {self.reason}")


def event_to_dict(event: PrivacyEvent) -> dict[str, Any]:
    """A JSON-ready description of ``event`` from which :func:`event_from_dict` rebuilds it."""
    name = type(event).__name__
    if _EVENT_TYPES.get(name) is not type(event) or not dataclasses.is_dataclass(event):
        raise ValueError(f"{name} is not a registered privacy event (use @register_event)")
    out: dict[str, Any] = {"event": name}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if isinstance(value, dp_accounting.DpEvent):
            value = _dp_event_to_dict(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def event_from_dict(data: dict[str, Any]) -> PrivacyEvent:
    """Rebuild an event written by :func:`event_to_dict` (modules defining events must be imported:
    :func:`load_event_modules`)."""
    load_event_modules()
    fields = dict(data)
    name = fields.pop("event", None)
    if name not in _EVENT_TYPES:
        raise ValueError(f"unknown privacy event {name!r}; known: {sorted(_EVENT_TYPES)}")
    cls = _EVENT_TYPES[name]
    for f in dataclasses.fields(cls):
        value = fields.get(f.name)
        if isinstance(value, dict) and "dp_event" in value:
            fields[f.name] = _dp_event_from_dict(value)
        elif isinstance(value, list):
            fields[f.name] = tuple(value)
    return cls(**fields)


#: The accounting modules that define events of their own.
EVENT_MODULES: tuple[str, ...] = (
    "privrl.core.accounting.smooth_sensitivity",
    "privrl.core.accounting.subsampled",
    "privrl.core.accounting.functional_noise",
    "privrl.core.accounting.gaussian",
    "privrl.core.accounting.laplace",
    "privrl.core.accounting.local",
    "privrl.core.accounting.dirichlet",
    "privrl.core.accounting.gpope_pld",
)


def load_event_modules() -> None:
    """Import every accounting module that registers events (idempotent)."""
    for module in EVENT_MODULES:
        importlib.import_module(module)
