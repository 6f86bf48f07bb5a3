r"""The one return type of :mod:`privrl.api`: a private value with the guarantee it carries.

A :class:`Release` holds the released ``value``, its ``(epsilon, delta)``, the privacy ``event``
the epsilon is computed from (the same events the book's privacy ledger stores, so
``release.event.epsilon(release.delta) == release.epsilon``), and the ``parameters`` that
produced it (noise scale, clip, iterations, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from privrl.core.accounting.events import PrivacyEvent
from privrl.core.validation import check_probability


@dataclass(frozen=True)
class Release:
    """A private release: ``value`` is ``(epsilon, delta)``-DP under the relation its function
    documents, with ``epsilon = event.epsilon(delta)``.

    >>> from privrl.core.accounting.gaussian import GaussianEvent
    >>> r = Release.from_event(0.5, GaussianEvent(sigma=2.0, sensitivity=1.0), 1e-5, sigma=2.0)
    >>> r.epsilon == r.event.epsilon(r.delta), r.parameters["sigma"]
    (True, 2.0)
    """

    value: Any
    epsilon: float
    delta: float
    event: PrivacyEvent
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.event, PrivacyEvent):
            raise ValueError(f"event must be a privacy event, got {type(self.event).__name__}")
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @classmethod
    def from_event(cls, value: Any, event: PrivacyEvent, delta: float,
                   **parameters: Any) -> Release:
        """The release of ``value`` whose epsilon at ``delta`` (in [0, 1]; at 1 nothing is
        guaranteed) is computed from ``event``."""
        delta = check_probability(delta, "delta")
        return cls(value, float(event.epsilon(delta)), delta, event, parameters)


__all__ = ["Release"]
