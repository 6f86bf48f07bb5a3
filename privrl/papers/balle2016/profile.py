"""The chapter's typed profile (:class:`BalleProfile`) and constants of Balle, Gomrokchi and Precup
(2016), Section 6: the chain, the two representations and the batch sizes of Figure 1."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from privrl.api.evaluation import SmoothGaussianNoise, smooth_gaussian_noise
from privrl.chapter.profile import Profile
from privrl.core.algorithms.monte_carlo import FirstVisitReturns, first_visit_returns
from privrl.core.envs import chain
from privrl.core.envs.tabular import TabularMDP
from privrl.core.rng import SeedLike

PAPER = "balle2016"
METHODS = ("LSW", "LSL", "DP-LSW", "DP-LSL")
#: The batch sizes m of Figure 1 (Section 6).
PAPER_BATCHES = (10, 50, 100, 500, 1000, 1500, 2000, 2500, 3000, 4000)
#: "DP reaches the non-private accuracy" is read as: RMSE(private) <= this factor x RMSE(non-private).
SAME_ACCURACY_FACTOR = 2.0


@dataclass(frozen=True)
class BalleProfile(Profile):
    """Every knob of the chapter; defaults are the quick profile, ``PAPER_SCALE`` the paper's scale.

    Sources: [paper] Section 6, [code] the authors' repository, [ours] this chapter's choice.
    """

    n_states: int = 40
    """N, the chain's states, the last one absorbing [paper: 40]."""
    p_stay: float = 0.5
    """Probability of staying in a non-absorbing state, else advance [paper: 1/2]."""
    start: Literal["uniform", "first"] = "uniform"
    """Start-state distribution [paper: an initial distribution; ours: uniform]."""
    gamma: float = 0.99
    """Discount [paper]."""
    max_steps: int = 200
    """Truncation of a trajectory [code]."""
    epsilon: float = 0.1
    delta: float = 0.1
    """The privacy budget (epsilon, delta) of every DP-LSW and DP-LSL release [paper]."""
    return_bound: float = 1.0
    """Public bound F on every return: our chain pays at most one unit reward per trajectory
    [ours; the authors' code uses R_max / (1 - gamma) = 100]."""
    group: int = 2
    """Adjacent states aggregated into one feature [paper: pairs]."""
    lsl_c: float = 1.0
    lsl_power: float = 0.4
    """LSL schedule lambda = ||Phi||^2 ||rho||_inf + c m^p with c = ``lsl_c``, p = ``lsl_power`` [code]."""
    reg_log10_min: float = -2.0
    reg_log10_max: float = 4.0
    reg_n: int = 7
    """Figure 1 panel 2: ``reg_n`` log-spaced constants c in [10^min, 10^max] [code: 0.01 .. 1e4]."""
    reg_batch_sizes: tuple[int, ...] = (100, 1000)
    """Figure 1 panel 2: the two batch sizes of the regularisation sweep [paper: two; values ours]."""
    batch_sizes: tuple[int, ...] = (10, 100, 500, 1000, 2000, 4000)
    """Batch sizes m of Figure 1 [paper: :data:`PAPER_BATCHES`]."""
    n_trials: int = 8
    """Independent batches per batch size [paper: 20 runs]."""
    n_pairs: int = 1000
    mc_samples: int = 100_000
    n_arbitrary: int = 10_000
    """Sizes of the privacy checks: neighbouring pairs for Lemma 1, Monte Carlo samples of the
    privacy loss, arbitrary datasets for the local-sensitivity bounds."""

    PAPER_SCALE: ClassVar[dict[str, Any]] = {
        "batch_sizes": PAPER_BATCHES,
        "reg_n": 13,
        "n_trials": 20,
        "n_pairs": 5000,
        "mc_samples": 1_000_000,
        "n_arbitrary": 200_000,
    }

    def validate(self) -> None:
        def need(ok: bool, name: str, what: str) -> None:
            if not ok:
                raise ValueError(f"{name} must be {what}, got {getattr(self, name)!r}")

        # the chain
        need(self.n_states >= 3, "n_states", ">= 3")
        need(0 <= self.p_stay < 1, "p_stay", "in [0, 1)")
        need(0 < self.gamma < 1, "gamma", "in (0, 1)")
        need(self.max_steps >= 1, "max_steps", ">= 1")
        # the privacy budget
        need(self.epsilon > 0 and math.isfinite(self.epsilon), "epsilon", "finite and > 0")
        need(0 < self.delta < 1, "delta", "in (0, 1)")
        need(self.return_bound > 0 and math.isfinite(self.return_bound), "return_bound", "> 0")
        # the estimators
        need(1 <= self.group <= self.n_states, "group", "in [1, n_states]")
        need(self.lsl_c > 0, "lsl_c", "> 0")
        need(self.lsl_power >= 0, "lsl_power", ">= 0")
        # the sweep
        need(self.reg_log10_min < self.reg_log10_max, "reg_log10_min", "< reg_log10_max")
        need(
            len(self.batch_sizes) >= 2 and min(self.batch_sizes) >= 1,
            "batch_sizes",
            "at least two sizes, each >= 1",
        )
        need(min(self.reg_batch_sizes, default=1) >= 1, "reg_batch_sizes", "sizes >= 1")
        need(self.reg_n >= 1, "reg_n", ">= 1")
        need(self.n_trials >= 1, "n_trials", ">= 1")
        # the privacy checks
        need(self.n_pairs >= 50, "n_pairs", ">= 50 (pairs come in batches of 50)")
        need(self.mc_samples >= 100, "mc_samples", ">= 100")
        need(self.n_arbitrary >= 1, "n_arbitrary", ">= 1")

    # the chain and the two representations, built from the profile in one place
    def mdp(self) -> TabularMDP:
        return chain.chain_mdp(self.n_states, self.p_stay, self.start)

    def rho(self) -> np.ndarray:
        """Uniform regression weights rho_s = 1/N (the paper's RMSE over the state space)."""
        return np.full(self.n_states, 1.0 / self.n_states)

    def features(self) -> dict[str, np.ndarray]:
        """The paper's two representations: tabular (d = N) and aggregated (d = N / group)."""
        return {
            "tabular": chain.tabular_features(self.n_states),
            "aggregated": chain.aggregated_features(self.n_states, self.group),
        }

    def noise(self, d: int) -> SmoothGaussianNoise:
        """The calibration of every DP-LSW / DP-LSL release of the chapter in dimension ``d``:
        the api's (:func:`~privrl.api.evaluation.smooth_gaussian_noise`, that of
        :func:`privrl.dp_lsw`) at the profile's (epsilon, delta) and returns in
        ``[0, return_bound]``; the one place the chapter reads its privacy target."""
        return smooth_gaussian_noise(
            epsilon=self.epsilon, delta=self.delta, return_bound=self.return_bound, d=d
        )

    def sample(self, m: int, rng: SeedLike) -> FirstVisitReturns:
        """First-visit returns of a fresh batch of ``m`` chain trajectories."""
        traj = chain.sample_trajectories(self.mdp(), m, rng, self.max_steps)
        return first_visit_returns(traj, self.n_states, self.gamma)


#: The profile fields one trial of Figure 1 needs (:func:`privrl.papers.balle2016.runs.run_batch`).
TRIAL_KEYS = (
    "n_states",
    "p_stay",
    "start",
    "gamma",
    "max_steps",
    "epsilon",
    "delta",
    "return_bound",
    "group",
    "lsl_c",
    "lsl_power",
)
