"""The privacy ledger: every (epsilon, delta) the book reports, in one schema.

One :class:`LedgerEntry` per release a chapter makes: what is released, by which mechanism,
protecting which neighbouring relation (add/remove or replace-one, of a transition, trajectory,
user, report, ...), with which noise, at which (epsilon, delta), after how many compositions, by
which accountant, and its independent cross-check (a second accountant's epsilon, e.g.
``dp-accounting``, or an exact likelihood ratio). The book's *Privacy ledger* page is generated
from the entries the chapters record (:meth:`privrl.chapter.report.Report.ledger`).

Recording an entry is itself a check: a cross-check epsilon above the reported epsilon by more
than the stated relative tolerance means the book would understate the privacy loss, and raises.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from privrl.core.validation import check_choice, check_delta, check_epsilon, check_int

RELATIONS: tuple[str, ...] = ("add/remove", "replace-one")
UNITS: tuple[str, ...] = (
    "transition", "trajectory", "episode", "user", "report", "reward function", "observation",
    "record",
)


@dataclass(frozen=True)
class LedgerEntry:
    """One release's privacy guarantee and its evidence.

    ``noise`` states the noise parameter in words and numbers (``"sigma = 3.2"``); ``compositions``
    is the number of mechanism invocations composed into (epsilon, delta); ``cross_check`` names
    the independent computation and ``cross_check_epsilon`` is its value (``None`` only where no
    independent accountant applies, with the reason in ``cross_check``); ``audit`` names the
    empirical audit of this release (a key of the Audits chapter) once there is one.
    """

    paper: str
    release: str
    mechanism: str
    relation: str
    unit: str
    noise: str
    epsilon: float
    delta: float
    compositions: int
    accountant: str
    cross_check: str
    cross_check_epsilon: float | None = None
    audit: str = ""

    def __post_init__(self) -> None:
        for name in ("paper", "release", "mechanism", "noise", "accountant", "cross_check"):
            if not str(getattr(self, name)).strip():
                raise ValueError(f"ledger entry: {name} must not be empty")
        check_choice(self.relation, "relation", RELATIONS)
        check_choice(self.unit, "unit", UNITS)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon, "epsilon"))
        object.__setattr__(self, "delta", check_delta(self.delta, "delta", allow_zero=True))
        object.__setattr__(self, "compositions", check_int(self.compositions, "compositions", 1))
        if self.cross_check_epsilon is not None:
            object.__setattr__(self, "cross_check_epsilon",
                               check_epsilon(self.cross_check_epsilon, "cross_check_epsilon"))

    @property
    def relation_text(self) -> str:
        return f"{self.relation} {self.unit}"

    def cross_check_gap(self) -> float:
        """Relative excess of the cross-check over the reported epsilon (<= 0: reported is safe)."""
        if self.cross_check_epsilon is None:
            return -math.inf
        return (self.cross_check_epsilon - self.epsilon) / self.epsilon

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
