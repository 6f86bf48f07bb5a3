"""Wang and Hegde (2019): the chapter's typed profile and the constants of its checks.

Privacy bookkeeping: ``T`` = samples (episodes x 50), ``B`` = 128, ``alpha`` = the learning rate,
``L`` = 1. The DQN makes :math:`U = T - B + 1` noisy updates (one per sample once the memory
holds a batch); the paper's count is :math:`T/B` (Theorem 5). Under the authors' protocol the paths
are redrawn at every episode start (:math:`J` = episodes), two per network (one per action).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from privrl.chapter.profile import Profile
from privrl.core.envs.line import HORIZON

PAPER = "wang2019"
#: The recorded paper-profile curves (in ``book/measurements/results/``).
CURVES_CSV = "wang2019-paper-curves.csv"
CURVE_COLUMNS = (
    "method",
    "sigma",
    "resample",
    "seed",
    "episode",
    "samples",
    "train_return",
    "eval_return",
    "epsilon",
)
#: Episodes at the end of a run over which final returns are averaged.
FINAL_EPISODES = 10
#: The target epsilon of the paper's Figure 2 claims ("on the higher privacy regime epsilon = 0.45").
CLAIM_EPSILON = 0.45
#: Amplitudes below this converge "with limited sub-optimality" (Section 4) ...
SMALL_SIGMA = 0.4
#: ... read as: at least this fraction of the non-private final return.
SMALL_SIGMA_FRACTION = 0.9

# --- constants of the numeric checks --------------------------------------------------------

#: Bridge moments (Appendix A): stored points, their values, the query point and its distances
#: to them (0.45 - 0.2, 0.6 - 0.45), beta and sigma.
BRIDGE_POINTS = (0.2, 0.6)
BRIDGE_VALUES = (0.4, -1.1)
BRIDGE_QUERY = 0.45
BRIDGE_DISTANCES = (0.25, 0.15)
BRIDGE_BETA, BRIDGE_SIGMA = 3.0, 1.3
#: Covariance of sample paths queried in random orders: kernel bandwidth and amplitude, the
#: query points, and the largest standardised deviation sampling noise gives for 36 entries.
COV_BETA, COV_SIGMA = 2.0, 1.0
COV_POINTS = (0.0, 0.05, 0.2, 0.21, 0.5, 0.77, 0.9, 1.0)
COV_MAX_Z = 4.5
#: Lemma 8: the bandwidths whose path maxima are simulated, and the tail offsets u.
LEMMA8_BETAS = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
LEMMA8_OFFSETS = (0.0, 0.5, 1.0, 2.0)
#: Lemma 6: the kernel section K(., x) whose RKHS norm is 1, on a grid of this size ...
SECTION_BETA, SECTION_POINT, SECTION_GRID = 5.0, 0.3, 20001
#: ... and the network differences: networks trained with seeds seed + i, for a few episodes,
#: compared at Theorem 5's beta of the quick profile.
LEMMA6_NETS, LEMMA6_EPISODES, LEMMA6_BETA = 3, 6, 22.9
#: Proposition 10's simulation: noise amplitude, bandwidth and discount.
PROP10_SIGMA, PROP10_BETA, PROP10_GAMMA = 0.2, 1.0, 0.9
#: Episodes of the move-to-the-centre policy (the reference return), and the fraction of it the
#: non-private DQN's released function must reach.
ORACLE_EPISODES = 2000
NONPRIVATE_FRACTION = 0.8


@dataclass(frozen=True)
class WangProfile(Profile):
    """Every knob of the chapter; defaults are the quick profile, ``PAPER_SCALE`` the paper's scale.

    ``gp_sigmas``/``gp_beta``: Figure 1's path amplitudes and bandwidth (the authors' code fixes
    beta = 1). ``protocol``: ``"authors"`` (independent target-network path, paths redrawn at
    every episode start) or ``"earlier"`` (one shared path redrawn every gradient step).
    ``epsilons``: Figure 2's budgets (the quick profile: only :data:`CLAIM_EPSILON`, the one its
    claims are decided at; the paper's: 0.9 and 0.45).
    """

    n_trials: int = 2
    episodes: int = 12
    gp_sigmas: tuple[float, ...] = (0.0, 1.0)
    gp_beta: float = 1.0
    protocol: Literal["authors", "earlier"] = "authors"
    lr: float = 0.01
    batch_size: int = 128
    lipschitz: float = 1.0
    dpsgd_warmup: int = 500
    epsilons: tuple[float, ...] = (CLAIM_EPSILON,)
    delta: float = 1e-4
    eval_episodes: int = 10
    cov_paths: int = 3000
    lemma8_paths: int = 300
    lemma8_grid: int = 2000
    prop10_reps: int = 20
    prop10_sizes: tuple[int, ...] = (4, 16, 64, 256)
    scaling_sizes: tuple[int, ...] = (1000, 4000, 16000, 64000)
    PAPER_SCALE: ClassVar[dict[str, Any]] = {
        "n_trials": 10,
        "episodes": 100,
        "gp_sigmas": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        "dpsgd_warmup": 1000,
        "epsilons": (0.9, CLAIM_EPSILON),
        "cov_paths": 20000,
        "lemma8_paths": 2000,
        "lemma8_grid": 10000,
        "prop10_reps": 200,
        "scaling_sizes": (1000, 3000, 10000, 30000, 100000),
    }

    def validate(self) -> None:
        for name in (
            "n_trials",
            "episodes",
            "batch_size",
            "eval_episodes",
            "cov_paths",
            "lemma8_paths",
            "lemma8_grid",
            "prop10_reps",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("gp_beta", "lr", "lipschitz"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if any(s < 0 for s in self.gp_sigmas) or not self.gp_sigmas:
            raise ValueError(f"gp_sigmas must be non-empty and >= 0, got {self.gp_sigmas}")
        if not self.epsilons or any(not e > 0 for e in self.epsilons):
            raise ValueError(f"epsilons must be non-empty and > 0, got {self.epsilons}")
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must lie in (0, 1), got {self.delta}")
        if not self.batch_size <= self.dpsgd_warmup <= self.n_samples:
            raise ValueError(
                f"dpsgd_warmup must lie in [batch_size, episodes * {HORIZON}], "
                f"got {self.dpsgd_warmup}"
            )

    @property
    def n_samples(self) -> int:
        """T: transitions seen in a run (50 per episode)."""
        return self.episodes * HORIZON

    @property
    def n_updates(self) -> int:
        """U: noisy gradient updates the DQN performs (one per sample once a batch is stored)."""
        return self.n_samples - self.batch_size + 1

    @property
    def paper_updates(self) -> int:
        """The paper's count T/B (at least 1)."""
        return max(1, self.n_samples // self.batch_size)

    @property
    def dpsgd_steps(self) -> int:
        """DP-SGD steps of a run: one per sample from the warm-up on."""
        return self.n_samples - self.dpsgd_warmup + 1

    def common(self) -> dict[str, Any]:
        """Training knobs shared by every run's sweep configuration."""
        return {
            "episodes": self.episodes,
            "lr": self.lr,
            "batch_size": self.batch_size,
            "eval_episodes": self.eval_episodes,
        }
