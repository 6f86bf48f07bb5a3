"""Gohari et al. (2021): the chapter's typed profile and constants.

``quick`` (the defaults): CartPole-v1, 24 roll-outs of 500 interactions in 4 environments, 2
seeds, the (64, 64) teacher shipped in ``privrl/data/gohari2021/``, the runs on the numpy path
(``runner``) and no timing of paper-scale roll-outs (``measure_cost``): a run of about a minute
of CPU time. ``paper``
(:attr:`GohariProfile.PAPER_SCALE`): AirRaid RAM with Spinning Up's episode handling (roll-outs of
1,000 interactions of one environment, 1,000-step episode cap, reset per roll-out,
rewards-to-go value targets), 4,000 roll-outs, 30 seeds and the supplement's sweeps (Section 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from privrl.chapter.profile import Profile
from privrl.core.accounting import dirichlet as acc
from privrl.core.algorithms.kickstarting import AFTER_BUDGET
from privrl.core.algorithms.ppo import PPOConfig, PPOSchedule
from privrl.core.validation import check_choice, check_int

#: The notebook's (and the report's) name.
PAPER = "gohari2021"
#: Roll-outs of the faithful design that fits two cores; a shorter record decides no claim.
DESIGN_ROLLOUTS = 450
#: The labels of the equal-budget (c = 0.3) students the claims compare (Figure 2c, d).
AWARE, UNAWARE = "aware, c = 0.3", "unaware, c = 0.3"


@dataclass(frozen=True)
class GohariProfile(PPOSchedule, Profile):
    """Every knob of the chapter; defaults are the quick profile, ``PAPER_SCALE`` the paper's.

    ``n_trials`` seeds per configuration; ``epochs`` roll-outs per run of ``steps_per_epoch``
    interactions; PPO's episode handling, discount and updates (the fields of
    :class:`~privrl.core.algorithms.ppo.PPOSchedule`: ``n_envs``, ``max_episode_steps``,
    ``reset_each_epoch``, ``value_targets``, ``gamma``, ``gae_lambda``, ``train_pi_iters``,
    ``train_v_iters``; see :mod:`privrl.core.algorithms.ppo`); teacher query (``k0``, vanishing
    ``coefficient``s, ``k_min``, ``eta``, ``tau``, adjacency ``b``); the privacy-aware student
    (``lam``, ``beta``, ``radius`` of Lemma 1; ``radius_arms``: the c = 0.3 student again with
    these radii); what the teacher sends once its budget is spent (``after_budget``: ``random``
    policies, the paper's reading, or ``silent``; ``after_budget_arms``: the c = 0.3 aware student
    again under these readings); speed-up (``quantiles`` q of the thresholds, ``smoothing_window`` roll-outs,
    ``eval_episodes`` for the random and teacher returns); ``measure_cost``: time roll-outs at
    paper settings (else the cost of the paper profile is the recorded design's); ``runner``:
    the Figure 2 runs on ``torch`` (:func:`~privrl.papers.gohari2021.student.run_agent`) or on
    ``numpy`` (:func:`~privrl.papers.gohari2021.fast_student.run_agent_fast`: the same maths and
    draws, the same run to floating-point tolerance, about four times cheaper per CartPole
    roll-out); ``None`` is numpy in the quick profile and torch in the paper profile (the
    recorded design's), see :attr:`figure2_runner`.
    """

    env: Literal["cartpole", "airraid"] = "cartpole"
    n_trials: int = 2
    epochs: int = 24
    steps_per_epoch: int = 500
    teacher_hidden: int = 64
    student_hidden: int = 32
    k0: float = 5.0
    lam: float = 0.5
    beta: float = 0.05
    eta: float = 0.1
    k_min: float = 0.1
    radius: Literal["printed", "union", "subgaussian", "mc"] = "mc"
    radius_arms: tuple[str, ...] = ("printed", "union")
    after_budget: Literal["random", "silent"] = "random"
    after_budget_arms: tuple[str, ...] = ("silent",)
    # tau: the exact delta of eq. (6) is at most 0.05 at k0 = 5, m = 2, eta = 0.1
    # (tau_for_delta_bound gives 4.617e-4, rounded down); b: adjacency
    tau: float = 4.61e-4
    b: float = 0.01
    aware_coefficients: tuple[float, ...] = (0.1, 0.3)
    unaware_coefficients: tuple[float, ...] = (0.3, 0.9)
    supplement: bool = False
    lambdas: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0)
    coefficients: tuple[float, ...] = (0.1, 0.3, 0.5, 0.7, 0.9)
    quantiles: tuple[float, ...] = (0.25, 0.5, 0.75)
    smoothing_window: int = 3
    eval_episodes: int = 20
    measure_cost: bool = False
    runner: Literal["torch", "numpy"] | None = None

    PAPER_SCALE: ClassVar[dict[str, Any]] = {
        "env": "airraid",
        "n_trials": 30,
        "epochs": 4000,
        "steps_per_epoch": 1000,
        "n_envs": 1,
        "max_episode_steps": 1000,
        "reset_each_epoch": True,
        "value_targets": "rewards-to-go",
        # tau: the union bound on delta of eq. (6) is at most 0.05 at k0 = 5, m = 6, eta = 0.1
        # (tau_for_delta_bound gives 1.845e-5, rounded down); b: with the committed teacher's
        # certified L, Theorem 1 gives about the paper's epsilon = 4.46 at k0 (L * b = 0.0153)
        "tau": 1.84e-5,
        "b": 1.05e-4,
        "supplement": True,
        "coefficients": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
        "smoothing_window": 10,
        "eval_episodes": 30,
        "measure_cost": False,
    }

    def validate(self) -> None:
        for name in (
            "n_trials",
            "epochs",
            "steps_per_epoch",
            "n_envs",
            "teacher_hidden",
            "student_hidden",
            "smoothing_window",
            "eval_episodes",
        ):
            check_int(getattr(self, name), name, minimum=1)
        if self.steps_per_epoch % self.n_envs:
            raise ValueError("steps_per_epoch must be a multiple of n_envs")
        for name in ("k0", "k_min", "tau", "b"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not self.lam >= 0:
            raise ValueError(f"lam must be >= 0, got {self.lam}")
        for name in ("beta", "gamma", "gae_lambda"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must lie in (0, 1], got {getattr(self, name)}")
        for name in ("aware_coefficients", "unaware_coefficients", "coefficients", "quantiles"):
            if any(not 0 < c < 1 for c in getattr(self, name)):
                raise ValueError(f"{name} must lie in (0, 1), got {getattr(self, name)}")
        if 0.5 not in self.quantiles:
            raise ValueError(f"quantiles must contain the headline 0.5, got {self.quantiles}")
        if 0.3 not in self.aware_coefficients or 0.3 not in self.unaware_coefficients:
            raise ValueError(
                "aware_coefficients and unaware_coefficients must contain 0.3 "
                "(the paper's equal-budget comparison)"
            )
        for arm in self.radius_arms:
            check_choice(arm, "radius_arms", acc.RADII)
        check_choice(self.after_budget, "after_budget", AFTER_BUDGET)
        for arm in self.after_budget_arms:
            check_choice(arm, "after_budget_arms", AFTER_BUDGET)

    @property
    def figure2_runner(self) -> str:
        """The implementation the Figure 2 runs take: ``runner``, or by default ``numpy`` in the
        quick profile and ``torch`` in the paper profile."""
        if self.runner is not None:
            return self.runner
        return "numpy" if self.profile == "quick" else "torch"

    def ppo_config(self, hidden: int) -> PPOConfig:
        """PPO of a (hidden, hidden) agent with this profile's episode handling."""
        return PPOConfig(hidden_sizes=(hidden, hidden), **self.schedule())

    def baseline_labels(self) -> tuple[str, str]:
        """Labels of the teacher-sized and the student-sized plain PPO agents (Figure 2a)."""
        t, s = self.teacher_hidden, self.student_hidden
        return f"PPO ({t}, {t})", f"PPO ({s}, {s})"
