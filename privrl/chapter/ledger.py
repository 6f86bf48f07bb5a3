"""The privacy ledger: every (epsilon, delta) the book reports, in one schema, with its event.

One :class:`LedgerEntry` per release a chapter makes: what is released, by which mechanism,
protecting which neighbouring relation (add/remove or replace-one, of a transition, trajectory,
user, report, ...), with which noise, after how many compositions, by which accountant, the
**event** its epsilon is computed from (``event.epsilon(delta)``, the call
:class:`privrl.api.Release` makes: the book's number and a user's come from the same code), and a
:class:`CrossCheck` of one of two kinds, named apart:

* ``"upper bound"``: an independent computation that bounds epsilon from above (a second
  accountant, an exact likelihood ratio);
* ``"empirical"``: a value measured on chosen neighbouring pairs (Monte Carlo), which bounds the
  true epsilon from *below* for those pairs and is never presented as a bound on the mechanism.

Recording an entry is a check (:meth:`LedgerEntry.problems`): a cross-check above the epsilon by
more than the stated relative tolerance means the book would understate the privacy loss, and
raises. The *Privacy ledger* page is generated from the entries
(:meth:`privrl.chapter.report.Report.ledger`) and recomputes every epsilon from its event."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from privrl.core.accounting.events import NoGuarantee, PrivacyEvent, event_to_dict
from privrl.core.validation import check_choice, check_delta, check_epsilon, check_int

RELATIONS: tuple[str, ...] = ("add/remove", "replace-one")
UNITS: tuple[str, ...] = (
    "transition",
    "trajectory",
    "episode",
    "user",
    "report",
    "reward function",
    "observation",
    "record",
)
CROSS_CHECK_KINDS: tuple[str, ...] = ("upper bound", "empirical")
#: A delta from which a ledger entry must also state what the release is at delta = 0.
LARGE_DELTA = 0.05


@dataclass(frozen=True)
class CrossCheck:
    """An independent look at a ledger entry's epsilon: ``kind`` is ``"upper bound"`` or
    ``"empirical"`` (see the module docstring), ``method`` says how in words, ``epsilon`` is its
    value (``None`` only where no independent computation applies, with the reason in ``method``);
    ``vacuous`` says why the value says nothing, when it does not (e.g. a scan stopped at its
    floor)."""

    kind: str
    method: str
    epsilon: float | None = None
    vacuous: str = ""

    def __post_init__(self) -> None:
        check_choice(self.kind, "cross-check kind", CROSS_CHECK_KINDS)
        if not self.method.strip():
            raise ValueError("cross-check: method must not be empty")
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "cross-check epsilon"))


#: The cross-check of a smooth-sensitivity release (Lemma 1 of Balle et al. 2016) where no
#: independent figure applies: recomputing Lemma 1 from the event's (alpha, beta, d, delta) gives
#: back its epsilon by construction, so it is no check; what tests the release is named instead.
LEMMA1_CROSS_CHECK = CrossCheck(
    "upper bound",
    "none independent: recomputing Lemma 1 from (alpha, beta, d, delta) gives the "
    "calibrated epsilon back by construction; its conditions (a) and (b) are tested on "
    "neighbouring pairs in the balle2016 chapter and in tests/core/test_monte_carlo_sensitivity.py, "
    "and the release is audited in the Audits chapter",
)


@dataclass(frozen=True)
class LedgerEntry:
    """One release's privacy guarantee, the event it was computed from, and its evidence.

    ``noise`` states the noise parameter in words and numbers (``"sigma = 3.2"``); ``compositions``
    is the number of mechanism invocations composed into (epsilon, delta); ``epsilon`` is not
    given but computed, ``event.epsilon(delta)``; ``audit`` names the empirical audit of this release (a key of the
    Audits chapter) once there is one.

    A release with **no guarantee** under ``relation`` has ``epsilon = inf`` and the event
    :class:`~privrl.core.accounting.events.NoGuarantee`; ``private_under`` then names the relation
    (and what is private under it) where there is one. Where ``delta >= 0.05``, ``at_delta_zero``
    states what the release is with no delta at all (e.g. "(0, 0.0048)-DP by total variation"):
    a delta that large can make the epsilon meaningless.
    """

    paper: str
    release: str
    mechanism: str
    relation: str
    unit: str
    noise: str
    epsilon: float = field(init=False)
    delta: float
    compositions: int
    accountant: str
    event: PrivacyEvent
    cross_check: CrossCheck
    audit: str = ""
    private_under: str = ""
    at_delta_zero: str = ""

    def __post_init__(self) -> None:
        for name in ("paper", "release", "mechanism", "noise", "accountant"):
            if not str(getattr(self, name)).strip():
                raise ValueError(f"ledger entry: {name} must not be empty")
        check_choice(self.relation, "relation", RELATIONS)
        check_choice(self.unit, "unit", UNITS)
        object.__setattr__(self, "delta", check_delta(self.delta, "delta", allow_zero=True))
        object.__setattr__(self, "compositions", check_int(self.compositions, "compositions", 1))
        if not isinstance(self.event, PrivacyEvent):
            raise ValueError(
                f"ledger entry {self.release!r}: event must be a privacy event with "
                f"an epsilon(delta) method, got {self.event!r}"
            )
        epsilon = check_epsilon(self.recomputed_epsilon(), "epsilon", allow_inf=True)
        object.__setattr__(self, "epsilon", epsilon)
        if math.isinf(self.epsilon) != isinstance(self.event, NoGuarantee):
            raise ValueError(
                f"ledger entry {self.release!r}: epsilon = inf goes with a NoGuarantee "
                "event, and a NoGuarantee event with epsilon = inf"
            )
        if not isinstance(self.cross_check, CrossCheck):
            raise ValueError(f"ledger entry {self.release!r}: cross_check must be a CrossCheck")
        if self.delta >= LARGE_DELTA and self.guaranteed and not self.at_delta_zero.strip():
            raise ValueError(
                f"ledger entry {self.release!r}: delta = {self.delta:g} >= "
                f"{LARGE_DELTA:g}; state what the release is at delta = 0 "
                "(at_delta_zero)"
            )

    @property
    def guaranteed(self) -> bool:
        """False for a release with no guarantee under its relation."""
        return math.isfinite(self.epsilon)

    @property
    def relation_text(self) -> str:
        return f"{self.relation} {self.unit}"

    def recomputed_epsilon(self) -> float:
        """Epsilon at ``delta`` recomputed from the stored event."""
        return float(self.event.epsilon(self.delta))

    def cross_check_gap(self) -> float:
        """Relative excess of the cross-check over the reported epsilon (<= 0: reported is safe)."""
        if self.cross_check.epsilon is None or math.isnan(self.cross_check.epsilon):
            return -math.inf
        return (self.cross_check.epsilon - self.epsilon) / self.epsilon

    def problems(self, tolerance: float) -> list[str]:
        """What is wrong with this entry: its cross-check lies more than ``tolerance``
        (relative) above its epsilon. Empty when nothing is."""
        out: list[str] = []
        if not self.guaranteed:
            return out
        if not self.cross_check.vacuous and self.cross_check_gap() > tolerance:
            out.append(
                f"reports epsilon {self.epsilon:.6g} but its {self.cross_check.kind} "
                f"cross-check ({self.cross_check.method}) gives "
                f"{self.cross_check.epsilon:.6g}"
            )
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the event as :func:`~privrl.core.accounting.events.event_to_dict`, with the
        epsilon recomputed from it."""
        out = {k: v for k, v in asdict(self).items() if k not in ("event", "cross_check")}
        out["event"] = event_to_dict(self.event)
        out["recomputed_epsilon"] = self.recomputed_epsilon()
        out["cross_check"] = asdict(self.cross_check)
        return out
