"""The Frontier chapter's typed profile: the quick slice as defaults, the recorded map in ``PAPER_SCALE``.

The map (``PAPER_SCALE``): three domains, epsilon 0.1 .. 10 and n 10 .. 10,000 on log grids, 30 fresh
datasets per point, one delta. The quick profile is a small slice of it (two domains, two of its
epsilons, two of its sizes, the two smallest values of its ``iterations_grid``, 3 datasets) that
runs in CI (the noise multipliers read from the recorded map,
:meth:`~privrl.papers.frontier.chapter.FrontierChapter.sweep`): it says so on the page and
decides nothing.

GPOPE's grids were fixed by a probe (the tuning at the paper settings on one public dataset, seed
:data:`TUNING_SEED`) to bracket every interior optimum it found: ``step_grid`` 0.001 .. 300 on a
~3x log grid and ``iterations_grid`` (125, 500, 2,000, 8,000), whose largest is the **compute
cap** (the error still falls beyond it, and bracketing it would cost many times the map's CPU).
Wherever GPOPE learns, its error on the map is the error within the cap, declared as such: an edge
is declared where the cell is at the cap or where GPOPE learns nothing (within 5% of the zero
estimate's MSPBE, the tuning's own spread); any other edge fails the record's test
(:func:`~privrl.papers.frontier.runs.edges`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privrl.chapter.profile import Profile

PAPER = "frontier"
DOMAINS: tuple[str, ...] = ("chain", "mountain_car_on", "mountain_car_off")
#: Root seed of the public datasets GPOPE's step is tuned on (never a replicate's seed).
TUNING_SEED = 90_103


@dataclass(frozen=True)
class FrontierProfile(Profile):
    """``n_datasets`` replicates of every domain of ``domains``; each a dataset of
    ``max(sizes)`` trajectories whose prefixes give the other sizes; every method at every
    epsilon of ``epsilons`` at one ``delta``. GPOPE: diminishing schedule, its iterations and step
    tuned *together* per (domain, n, epsilon, accountant) over ``iterations_grid`` x
    ``step_grid`` on ``tune_datasets`` public datasets (its noise calibrated for each iterations
    value: more iterations cost privacy), and GPOPE without noise tuned the same way (its
    converged floor; the largest of ``iterations_grid`` is its compute cap). Chain: Balle's (N, stay, gamma, cap, return bound, DP-LSL's lambda schedule)
    with GPOPE's clip ``chain_clip_norm``; Mountain Car: Xie's settings, the full data
    ``target_episodes`` public episodes, DP-LSW on ``lsw_cells`` x ``lsw_cells`` grid cells.
    SSP-LSTD (on-policy domains): its ridge tuned per (domain, n, epsilon) over ``lam_grid`` on
    the same public datasets."""

    domains: tuple[str, ...] = ("chain", "mountain_car_on")
    sizes: tuple[int, ...] = (10, 100)
    epsilons: tuple[float, ...] = (1.0, 10.0)
    delta: float = 1e-5
    n_datasets: int = 3
    tune_datasets: int = 1
    iterations_grid: tuple[int, ...] = (125, 500)
    step_grid: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0)
    n_states: int = 40
    p_stay: float = 0.5
    gamma: float = 0.99
    max_steps: int = 200
    return_bound: float = 1.0
    lsl_c: float = 1.0
    lsl_power: float = 0.4
    chain_clip_norm: float = 0.05
    target_episodes: int = 2_000
    lsw_cells: int = 10
    lam_grid: tuple[float, ...] = (1.0, 100.0, 1e4, 1e6, 1e8)
    PAPER_SCALE = {
        "domains": DOMAINS,
        "sizes": (10, 100, 1_000, 10_000),
        "epsilons": (0.1, 0.3, 1.0, 3.0, 10.0),
        "n_datasets": 30,
        "tune_datasets": 3,
        "iterations_grid": (125, 500, 2_000, 8_000),
        "step_grid": (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0),
        "target_episodes": 20_000,
        "lam_grid": tuple(c * 10.0**e for e in range(-1, 9) for c in (1.0, 3.0)),
    }

    def validate(self) -> None:
        unknown = sorted(set(self.domains) - set(DOMAINS))
        if not self.domains or unknown:
            raise ValueError(f"domains must be some of {list(DOMAINS)}, got {self.domains}")
        for name in ("sizes", "epsilons", "step_grid", "iterations_grid", "lam_grid"):
            values = getattr(self, name)
            if not values or min(values) <= 0 or len(set(values)) != len(values):
                raise ValueError(f"{name} must be distinct positive values, got {values}")
        if any(int(t) != t for t in self.iterations_grid):
            raise ValueError(f"iterations_grid must be integers, got {self.iterations_grid}")
        for name in (
            "n_datasets",
            "tune_datasets",
            "n_states",
            "max_steps",
            "target_episodes",
            "lsw_cells",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0 < self.delta < 1 / max(self.sizes):
            raise ValueError(f"delta must lie in (0, 1/max(sizes)), got {self.delta}")
        for name in ("return_bound", "lsl_c", "chain_clip_norm"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not 0 < self.p_stay < 1 or not 0 < self.gamma < 1:
            raise ValueError(
                f"p_stay and gamma must lie in (0, 1), got {self.p_stay}, {self.gamma}"
            )

    def domain_config(self, domain: str) -> dict[str, Any]:
        """The plain dict the run functions take for ``domain``, without GPOPE's noise."""
        base = {
            "domain": domain,
            "sizes": tuple(sorted(self.sizes)),
            "epsilons": tuple(self.epsilons),
            "delta": self.delta,
            "iterations_grid": tuple(sorted(self.iterations_grid)),
            "schedule": "diminishing",
            "step_grid": tuple(sorted(self.step_grid)),
        }
        if domain == "chain":
            return {
                **base,
                "n_states": self.n_states,
                "p_stay": self.p_stay,
                "gamma": self.gamma,
                "max_steps": self.max_steps,
                "return_bound": self.return_bound,
                "lsl_c": self.lsl_c,
                "lsl_power": self.lsl_power,
                "clip_norm": self.chain_clip_norm,
                "lsw_cells": 0,
                "target_episodes": 0,
            }
        return {
            **base,
            "clip_norm": 1.0,
            "target_episodes": self.target_episodes,
            "lsw_cells": self.lsw_cells if domain == "mountain_car_on" else 0,
        }


__all__ = ["DOMAINS", "FrontierProfile", "PAPER", "TUNING_SEED"]
