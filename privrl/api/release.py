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

#: The neighbouring relations a release's guarantee is stated under (:attr:`Release.relation`):
#: which two datasets it keeps the outputs of close.
NEIGHBOURS: Mapping[str, str] = MappingProxyType(
    {
        "add/remove": "one record added or removed (the caller's unit of data)",
        "replace-one": "one record replaced by another (the caller's unit of data)",
        "replace-one trajectory": "one trajectory of the batch replaced by any other",
        "local report": "any two inputs of one report (local differential privacy)",
        "reward function": "reward functions at most 1 apart in sup norm (Wang and Hegde, Theorem 5)",
        "teacher observation": "observations b apart, answered by an L-Lipschitz teacher (Gohari et "
        "al., Theorem 1)",
    }
)


@dataclass(frozen=True)
class Release:
    """A private release: ``value`` is ``(epsilon, delta)``-DP under ``relation`` (a key of
    :data:`NEIGHBOURS`). ``epsilon`` is not given but computed, ``event.epsilon(delta)``, so no release
    states a guarantee its event does not back; ``delta`` in [0, 1] (at 1 nothing is
    guaranteed). ``parameters`` is read-only and public: each entry is a function of the
    call's public arguments, never of the data (a statistic of the data without noise, such as
    a noise scale from a smooth bound or the fraction of inputs a clip shortened, would void
    the guarantee of anything published with it).

    >>> from privrl.core.accounting.gaussian import GaussianEvent
    >>> event = GaussianEvent(sigma=2.0, sensitivity=1.0)
    >>> r = Release.from_event(0.5, event, 1e-5, relation="add/remove", sigma=2.0)
    >>> r.epsilon == r.event.epsilon(r.delta), r.parameters["sigma"]
    (True, 2.0)
    """

    value: Any
    epsilon: float = field(init=False)
    delta: float
    event: PrivacyEvent
    relation: str
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.event, PrivacyEvent):
            raise ValueError(f"event must be a privacy event, got {type(self.event).__name__}")
        if self.relation not in NEIGHBOURS:
            raise ValueError(f"relation must be one of {sorted(NEIGHBOURS)}, got {self.relation!r}")
        event_relation = getattr(self.event, "relation", None)
        if isinstance(event_relation, str) and not self.relation.startswith(event_relation):
            raise ValueError(f"relation {self.relation!r} is not the event's {event_relation!r}")
        object.__setattr__(self, "delta", check_probability(self.delta, "delta"))
        epsilon = float(self.event.epsilon(self.delta))
        if not epsilon >= 0.0:  # NaN too
            raise ValueError(
                f"event: its epsilon at delta = {self.delta!r} is {epsilon!r}, not a "
                "non-negative number"
            )
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @classmethod
    def from_event(
        cls, value: Any, event: PrivacyEvent, delta: float, *, relation: str, **parameters: Any
    ) -> Release:
        """The release of ``value`` under ``relation`` whose epsilon at ``delta`` is computed
        from ``event``."""
        return cls(value, delta, event, relation, parameters)


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
        raise ValueError(
            f"releases must be a sequence of privrl.Release, got {type(releases).__name__}"
        )
    for i, release in enumerate(releases):
        if not isinstance(release, Release):
            raise ValueError(
                f"releases[{i}] must be a privrl.Release, got {type(release).__name__}"
            )
    if not releases:
        raise ValueError("releases: give at least one release")
    relations = {(i, r.relation) for i, r in enumerate(releases)}
    if len({relation for _, relation in relations}) > 1:
        named = ", ".join(f"releases[{i}]: {relation}" for i, relation in sorted(relations))
        raise ValueError(
            f"releases: their guarantees are under different neighbouring relations "
            f"({named}); no guarantee covers both"
        )
    event = ComposedEvent(tuple(r.event for r in releases), tuple(r.delta for r in releases))
    delta = (
        min(1.0, math.fsum(event.deltas)) if delta is None else check_probability(delta, "delta")
    )
    if not math.isfinite(event.epsilon(delta)) and delta < math.fsum(event.deltas):
        raise ValueError(
            f"delta = {delta!r} is below the releases' total delta "
            f"{math.fsum(event.deltas)!r} and no Renyi composition of these events "
            "meets it; give a delta of at least that sum"
        )
    return Release.from_event(
        tuple(r.value for r in releases),
        event,
        delta,
        relation=releases[0].relation,
        epsilons=tuple(r.epsilon for r in releases),
        deltas=event.deltas,
        basic_epsilon=event.basic_epsilon(delta),
    )


def clip_values(release: Release, features: Any, low: float, high: float) -> Release:
    r"""Post-processing of a release of value-function weights :math:`\theta`: the values
    :math:`V(s) = \phi(s)^\top\theta` of the states whose features are the rows of
    ``features`` (shape (K, d), public), each clipped to ``[low, high]`` (public: the value
    range the analysis assumes, e.g. :math:`[r_{min}, r_{max}]/(1-\gamma)` or the return bound
    the release's sensitivity used). It reads nothing but the release and public inputs, so it
    costs no privacy: the result carries the same ``event``, ``delta`` and ``relation`` (so the
    same ``epsilon``), and ``parameters`` the release's plus ``low``, ``high``. Clipping to a
    range that holds the true values never moves an estimate away from them.

    >>> import numpy as np
    >>> from privrl.core.accounting.gaussian import GaussianEvent
    >>> event = GaussianEvent(sigma=2.0, sensitivity=1.0)
    >>> weights = Release.from_event(np.array([3.0, -0.5]), event, 1e-5,
    ...                              relation="replace-one trajectory")
    >>> values = clip_values(weights, np.eye(2), 0.0, 1.0)
    >>> values.value.tolist(), values.epsilon == weights.epsilon
    ([1.0, 0.0], True)
    """
    if not isinstance(release, Release):
        raise ValueError(f"release must be a privrl.Release, got {type(release).__name__}")
    theta = np.asarray(release.value, dtype=float)
    if theta.ndim != 1:
        raise ValueError(
            f"release: its value must be a weight vector (1-d), got shape {theta.shape}"
        )
    phi = np.asarray(features, dtype=float)
    if phi.ndim != 2 or phi.shape[1] != theta.shape[0] or not np.isfinite(phi).all():
        raise ValueError(
            f"features must be a finite (K, {theta.shape[0]}) array, got shape {phi.shape}"
        )
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise ValueError(f"low and high must be finite with low <= high, got {low!r}, {high!r}")
    values = np.clip(phi @ theta, low, high)
    return Release.from_event(
        values,
        release.event,
        release.delta,
        relation=release.relation,
        **{**release.parameters, "low": low, "high": high},
    )


__all__ = ["NEIGHBOURS", "Release", "clip_values", "compose"]


def release_rng(rng: SeedLike | None) -> SeedLike:
    """The randomness of a release: fresh operating-system entropy
    (``numpy.random.SeedSequence()``) when ``rng`` is ``None``, the default of every release;
    else ``rng``, to reproduce a result. A seed others know voids the guarantee: whoever knows it
    regenerates the noise and subtracts it (``release(x, rng=0).value - release(0, rng=0).value``
    recovers ``x``)."""
    return np.random.SeedSequence() if rng is None else rng
