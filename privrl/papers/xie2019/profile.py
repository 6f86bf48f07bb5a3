"""The profile of the Xie, Thomas and Miklau (2019) chapter: every knob of a run, and its constants.

:class:`XieProfile` defaults are the quick profile; ``XieProfile.PAPER_SCALE`` is the paper's scale
(Section 7: 100 trials per point, data sizes up to n = 4000 on the chain). The paper leaves the
experiment settings out (step sizes, iterations, clip bound, discount, data sizes, epsilons):
the chain's are those of the Balle chapter, the domains' are
:data:`privrl.papers.xie2019.domains.SETTINGS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from privrl.chapter.profile import Profile

#: The notebook's and the report's name.
PAPER = "xie2019"
#: The chain's data sizes n of the paper profile (Figure 1 a).
PAPER_SIZES = (10, 50, 100, 500, 1000, 1500, 2000, 2500, 3000, 4000)
#: Public seeds of the chain's step-size tuning: ``seed + CHAIN_TUNING_OFFSET`` (never a trial's).
CHAIN_TUNING_OFFSET = 10_000


@dataclass(frozen=True)
class XieProfile(Profile):
    """Every knob of the chapter; defaults are the quick profile, ``PAPER_SCALE`` the paper's scale.

    The chain settings are those of the Balle chapter (N = 40, stay 1/2, gamma = 0.99, 200-step
    cap, (epsilon, delta) = (0.1, 0.1), return bound 1); the domain GTD2 settings are
    :data:`privrl.papers.xie2019.domains.SETTINGS`.
    """

    n_trials: int = 5
    n_states: int = 40
    p_stay: float = 0.5
    gamma: float = 0.99
    max_steps: int = 200
    epsilon: float = 0.1
    delta: float = 0.1
    return_bound: float = 1.0
    lsl_c: float = 1.0
    lsl_power: float = 0.4
    clip_norm: float = 0.05
    mistune_factors: tuple[float, ...] = (0.2, 5.0)
    chain_sizes: tuple[int, ...] = (100, 1000)
    tune_trials: int = 1
    chain_iterations: int = 4000
    step_grid: tuple[float, ...] = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
    gate_step_grid: tuple[float, ...] = (3.0, 10.0, 30.0, 100.0)
    sensitivity_n: int = 1000
    schedule_iterations: tuple[int, ...] = (1000, 4000)
    schedule_trials: int = 5
    variance_transitions: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    domain_delta: float = 1e-5
    mc_n: tuple[int, ...] = (300,)
    mc_epsilons: tuple[float, ...] = (4.0,)
    lsw_grids: tuple[int, ...] = (5, 10, 20)
    hiv_n: tuple[int, ...] = (20,)
    hiv_epsilons: tuple[float, ...] = (4.0,)
    hiv_horizon: int = 40
    hiv_pool_size: int = 30
    hiv_heldout: int = 10
    hiv_random_patients: int = 3
    retrain_policies: bool = False

    PAPER_SCALE: ClassVar[dict[str, Any]] = {
        "n_trials": 100,
        "chain_sizes": PAPER_SIZES,
        "tune_trials": 10,
        "chain_iterations": 8000,
        "step_grid": (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
        "schedule_iterations": (2000, 8000, 32000),
        "schedule_trials": 20,
        "mc_n": (100, 300, 1000, 3000),
        "mc_epsilons": (0.5, 1.0, 4.0),
        "hiv_epsilons": (1.0, 4.0),
        "hiv_n": (50, 150),
        "hiv_horizon": 200,
        "hiv_pool_size": 300,
        "hiv_heldout": 100,
        "hiv_random_patients": 20,
    }

    def validate(self) -> None:
        positive = (
            "n_trials",
            "n_states",
            "max_steps",
            "tune_trials",
            "chain_iterations",
            "sensitivity_n",
            "schedule_trials",
            "hiv_horizon",
            "hiv_pool_size",
            "hiv_heldout",
            "hiv_random_patients",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("epsilon", "return_bound", "clip_norm", "lsl_c", "lsl_power"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("delta", "domain_delta", "p_stay"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must lie in (0, 1), got {getattr(self, name)}")
        if not 0 < self.gamma <= 1:
            raise ValueError(f"gamma must lie in (0, 1], got {self.gamma}")
        for name in (
            "mistune_factors",
            "step_grid",
            "gate_step_grid",
            "mc_epsilons",
            "hiv_epsilons",
        ):
            values = getattr(self, name)
            if not values or any(not (v > 0 and math.isfinite(v)) for v in values):
                raise ValueError(f"{name} must be non-empty positive numbers, got {values}")
        for name in (
            "chain_sizes",
            "schedule_iterations",
            "variance_transitions",
            "mc_n",
            "hiv_n",
            "lsw_grids",
        ):
            values = getattr(self, name)
            if not values or any(v < 1 for v in values):
                raise ValueError(f"{name} must be non-empty integers >= 1, got {values}")
        if max(self.hiv_n) > self.hiv_pool_size:
            raise ValueError(f"hiv_pool_size ({self.hiv_pool_size}) must be >= max(hiv_n)")
        if self.sensitivity_n not in self.chain_sizes:
            raise ValueError(f"sensitivity_n ({self.sensitivity_n}) must be one of chain_sizes")


def chain_config(profile: XieProfile) -> dict[str, Any]:
    """The plain dict the chain's run functions take (hashed by the sweep cache)."""
    keys = (
        "n_states",
        "p_stay",
        "gamma",
        "max_steps",
        "epsilon",
        "delta",
        "return_bound",
        "lsl_c",
        "lsl_power",
        "clip_norm",
        "mistune_factors",
        "step_grid",
        "gate_step_grid",
        "variance_transitions",
    )
    return {k: getattr(profile, k) for k in keys}


__all__ = ["CHAIN_TUNING_OFFSET", "PAPER", "PAPER_SIZES", "XieProfile", "chain_config"]
