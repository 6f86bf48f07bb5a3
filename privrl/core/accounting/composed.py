r"""Several private releases on the same data, composed into one guarantee.

:class:`ComposedEvent` holds the events of the releases and the delta each was made at. Its
epsilon at a total :math:`\delta` is the smaller of two valid bounds:

* **basic composition** of the releases as made (Dwork et al. 2006): :math:`\sum_i
  \varepsilon_i(\delta_i)` whenever :math:`\delta \ge \sum_i \delta_i`, any events at all;
* **Rényi composition** (Mironov 2017) when every event is a dp-accounting event under one
  neighbouring relation: dp-accounting's RDP accountant on their ``ComposedDpEvent`` at
  :math:`\delta` (Gaussian releases compose in :math:`\sqrt{k}`, not :math:`k`).

The guarantee protects pairs of datasets that are neighbours under every release's own relation
(each release's function documents it).
"""

from __future__ import annotations

import dataclasses
import math

import dp_accounting

from privrl.core.accounting.events import RELATIONS, DpAccountingEvent, PrivacyEvent, rdp_epsilon
from privrl.core.validation import check_probability


@dataclasses.dataclass(frozen=True)
class ComposedEvent:
    """The events of several releases on the same data and the delta each was made at."""

    events: tuple[PrivacyEvent, ...]
    deltas: tuple[float, ...]

    def __post_init__(self) -> None:
        events, deltas = tuple(self.events), tuple(self.deltas)
        if not events:
            raise ValueError("events: compose at least one release")
        if len(deltas) != len(events):
            raise ValueError(
                f"deltas must have one entry per event ({len(events)}), got {len(deltas)}"
            )
        for i, event in enumerate(events):
            if not isinstance(event, PrivacyEvent):
                raise ValueError(f"events[{i}] must be a privacy event, got {type(event).__name__}")
        object.__setattr__(self, "events", events)
        object.__setattr__(
            self,
            "deltas",
            tuple(check_probability(d, f"deltas[{i}]") for i, d in enumerate(deltas)),
        )

    def basic_epsilon(self, delta: float) -> float:
        r""":math:`\sum_i \varepsilon_i(\delta_i)` if ``delta`` covers :math:`\sum_i \delta_i`,
        else infinity."""
        if check_probability(delta, "delta") < math.fsum(self.deltas):
            return math.inf
        return math.fsum(e.epsilon(d) for e, d in zip(self.events, self.deltas, strict=True))

    def renyi_epsilon(self, delta: float) -> float:
        """dp-accounting's RDP epsilon of the composed events at ``delta`` when all are
        :class:`DpAccountingEvent` under one relation and the accountant supports them, else
        infinity."""
        delta = check_probability(delta, "delta")
        events = [e for e in self.events if isinstance(e, DpAccountingEvent)]
        relations = {e.relation for e in events}
        if not (len(events) == len(self.events) and len(relations) == 1 and 0 < delta < 1):
            return math.inf
        composed = dp_accounting.ComposedDpEvent([e.dp_event for e in events])
        try:
            return rdp_epsilon(composed, delta, RELATIONS[relations.pop()])
        except ValueError:  # an event the RDP accountant does not support
            return math.inf

    def to_dp_event(self) -> dp_accounting.DpEvent:
        """``ComposedDpEvent`` of the events' own forms (raises ``NotImplementedError`` as the
        first event without one does)."""
        return dp_accounting.ComposedDpEvent([e.to_dp_event() for e in self.events])

    def epsilon(self, delta: float) -> float:
        """The smaller of :meth:`basic_epsilon` and :meth:`renyi_epsilon` at ``delta``."""
        return min(self.basic_epsilon(delta), self.renyi_epsilon(delta))


__all__ = ["ComposedEvent"]
