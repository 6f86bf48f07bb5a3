r"""The one return type of :mod:`privrl.api`: a private value with the guarantee it carries.

A :class:`Release` holds the released ``value``, its ``(epsilon, delta)``, the privacy ``event``
the epsilon is computed from (the same events the book's privacy ledger stores, so
``release.event.epsilon(release.delta) == release.epsilon``), and the ``parameters`` that
produced it (noise scale, clip, iterations, ...). :func:`compose` makes one release, with one
guarantee, of several made on the same data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from privrl.core.accounting.composed import ComposedEvent
from privrl.core.accounting.events import PrivacyEvent
from privrl.core.rng import SeedLike
from privrl.core.validation import check_probability


@dataclass(frozen=True)
class Release:
    """A private release: ``value`` is ``(epsilon, delta)``-DP under the relation its function
    documents. ``epsilon`` is not given but computed, ``event.epsilon(delta)``, so no release
    states a guarantee its event does not back; ``delta`` in [0, 1] (at 1 nothing is
    guaranteed). ``parameters`` is read-only and public: each entry is a function of the
    call's public arguments, never of the data (a statistic of the data without noise, such as
    a noise scale from a smooth bound or the fraction of inputs a clip shortened, would void
    the guarantee of anything published with it).

    >>> from privrl.core.accounting.gaussian import GaussianEvent
    >>> event = GaussianEvent(sigma=2.0, sensitivity=1.0)
    >>> r = Release.from_event(0.5, event, 1e-5, sigma=2.0)
    >>> r.epsilon == r.event.epsilon(r.delta), r.parameters["sigma"]
    (True, 2.0)
    """

    value: Any
    epsilon: float = field(init=False)
    delta: float
    event: PrivacyEvent
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.event, PrivacyEvent):
            raise ValueError(f"event must be a privacy event, got {type(self.event).__name__}")
        object.__setattr__(self, "delta", check_probability(self.delta, "delta"))
        epsilon = float(self.event.epsilon(self.delta))
        if not epsilon >= 0.0:  # NaN too
            raise ValueError(f"event: its epsilon at delta = {self.delta!r} is {epsilon!r}, not a "
                             "non-negative number")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @classmethod
    def from_event(cls, value: Any, event: PrivacyEvent, delta: float,
                   **parameters: Any) -> Release:
        """The release of ``value`` whose epsilon at ``delta`` is computed from ``event``."""
        return cls(value, delta, event, parameters)


def compose(releases: Sequence[Release], *, delta: float | None = None) -> Release:
    r"""One release of several made on the same data: ``value`` is the tuple of their values and
    the guarantee is :class:`~privrl.core.accounting.composed.ComposedEvent`'s at ``delta``
    (default: the sum of their deltas), the smaller of basic composition of the releases as made
    (:math:`\sum_i \varepsilon_i`, when ``delta`` covers :math:`\sum_i \delta_i`) and, when
    every event is a dp-accounting event under one relation, Rényi composition at ``delta``. It
    protects datasets that are neighbours under every release's relation. ``parameters``:
    ``epsilons``, ``deltas`` (of the releases), ``basic_epsilon``. Refuses (``ValueError``)
    releases whose events state different relations, and a ``delta`` below the sum of their
    deltas that no Rényi composition meets (the epsilon there would be infinite).

    >>> import privrl
    >>> runs = [privrl.gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0,
    ...                                   delta=1e-6, rng=i) for i in range(10)]
    >>> total = privrl.compose(runs, delta=1e-5)
    >>> round(total.parameters["basic_epsilon"], 2), round(total.epsilon, 2)
    (10.0, 3.15)
    """
    if isinstance(releases, Release) or not isinstance(releases, Sequence):
        raise ValueError("releases must be a sequence of privrl.Release, got "
                         f"{type(releases).__name__}")
    for i, release in enumerate(releases):
        if not isinstance(release, Release):
            raise ValueError(f"releases[{i}] must be a privrl.Release, got "
                             f"{type(release).__name__}")
    if not releases:
        raise ValueError("releases: give at least one release")
    relations = {(i, r.event.relation) for i, r in enumerate(releases)
                 if isinstance(getattr(r.event, "relation", None), str)}
    if len({relation for _, relation in relations}) > 1:
        named = ", ".join(f"releases[{i}]: {relation}" for i, relation in sorted(relations))
        raise ValueError(f"releases: their events are under different neighbouring relations "
                         f"({named}); no guarantee covers both")
    event = ComposedEvent(tuple(r.event for r in releases), tuple(r.delta for r in releases))
    delta = min(1.0, math.fsum(event.deltas)) if delta is None else check_probability(delta,
                                                                                     "delta")
    if not math.isfinite(event.epsilon(delta)) and delta < math.fsum(event.deltas):
        raise ValueError(f"delta = {delta!r} is below the releases' total delta "
                         f"{math.fsum(event.deltas)!r} and no Renyi composition of these events "
                         "meets it; give a delta of at least that sum")
    return Release.from_event(tuple(r.value for r in releases), event, delta,
                              epsilons=tuple(r.epsilon for r in releases), deltas=event.deltas,
                              basic_epsilon=event.basic_epsilon(delta))


__all__ = ["Release", "compose"]


def release_rng(rng: SeedLike | None) -> SeedLike:
    """The randomness of a release: fresh operating-system entropy
    (``numpy.random.SeedSequence()``) when ``rng`` is ``None``, the default of every release;
    else ``rng``, to reproduce a result. A seed others know voids the guarantee: whoever knows it
    regenerates the noise and subtracts it (``release(x, rng=0).value - release(0, rng=0).value``
    recovers ``x``)."""
    return np.random.SeedSequence() if rng is None else rng
