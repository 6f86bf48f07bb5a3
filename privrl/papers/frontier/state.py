"""The Frontier chapter's typed state: what its steps hand each other.

Its data-frame fields are the tables a run returns (this run's map,
:func:`~privrl.papers.frontier.runs.run_map`); :class:`ShownMap` is the map the prose and the
notebook read (the recorded paper-profile map when there is one, else this run's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class ShownMap:
    """The map the chapter shows and what it derives from it."""

    #: Every release of the map, one row per (domain, n, method, accountant, epsilon, seed).
    points: pd.DataFrame
    #: Whence the map: the recorded paper-profile run or this run.
    source: str
    #: The price of privacy per method (against its own noiseless version and the estimate).
    price: pd.DataFrame
    #: The winner of every (domain, n, epsilon) point, by the paired interval.
    winners: pd.DataFrame
    #: The error split into the noiseless floor and the noise on top (``privacy_cost``).
    cost: pd.DataFrame


@dataclass
class FrontierState:
    """This run's map, the recorded one beside it and the map shown."""

    #: GPOPE's noise multiplier per (n, epsilon, accountant, iterations), its cross-check.
    calibration: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: GPOPE's tuned (iterations, step) per domain, n, epsilon and accountant.
    steps: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: SSP-LSTD's tuned ridge per domain, n and epsilon.
    lams: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Every release of this run's map (the sweep's replicates).
    points: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: The recorded paper-profile map's tables by name, beside a run of another profile.
    recorded: dict[str, pd.DataFrame] | None = None
    #: Whence this run's noise multipliers (calibrated here, or read from the record).
    calibration_source: str = ""
    #: The map the prose reads (set by the chapter's last step).
    shown: ShownMap | None = None


__all__ = ["FrontierState", "ShownMap"]
