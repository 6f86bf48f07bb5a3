r"""Privacy-preserving kickstarting (Gohari et al. 2021, section 4): a PPO student pulled towards a
teacher's policy released through the Dirichlet mechanism.

The student maximises (17) :math:`\tilde J(\theta) = J(\theta) - \mathbb{E}[\phi_\lambda(s,
\pi^t)]` with (16) :math:`\phi_\lambda(s, \pi^t) = \|\pi_\theta(s) - \pi^t(s)\|_2 \,
\mathbb{1}\{\|\pi_\theta(s) - \pi^t(s)\|_2 > \alpha_\lambda\}` and (15)
:math:`\alpha_\lambda = \lambda\, r(k, \beta)`, :math:`r` Lemma 1's radius as printed
(``radius="printed"``) or one that holds (``"union"``, ``"subgaussian"``, ``"mc"``;
:mod:`privrl.core.accounting.dirichlet`); PPO adds ``weight`` times the batch mean of
:math:`\phi_\lambda` to its policy loss. At roll-out :math:`t` the concentration is
:math:`k_t = k_0 c^t`; each visited state is a query answered with :math:`\mathrm{Dir}_{k_t}(f(s))`,
:math:`f(s) = (1 - m\eta)\,\mathrm{softmax}(\text{teacher}(s)) + \eta`, of Theorem 1's
:math:`(\varepsilon_t, \delta_t)`. Once :math:`k_t < k_{\min}` the budget is spent: uniform random
policies, (0, 0)-DP (``after_budget="random"``, Sections 4 and 5), or no answer
(``"silent"``). Baselines: ``private=False`` (Figure 2b, :math:`\lambda = 0`), ``lam=0`` with
``private=True`` (the unaware student, Figure 2d), plain PPO without ``aux``.
:meth:`Kickstarter.diagnostics`: the fraction of a roll-out's queries with a non-zero penalty.
"""

from __future__ import annotations

from typing import Literal, cast

import numpy as np
import torch
from torch import nn

from privrl.core.accounting.dirichlet import (
    RADII,
    Theorem1Mechanism,
    check_eta,
    lemma1_radius,
    theorem1_delta_bound,
    theorem1_epsilon,
)
from privrl.core.algorithms.ppo import ActorCritic
from privrl.core.mechanisms.dirichlet import dirichlet_mechanism
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import (
    check_choice,
    check_nonnegative,
    check_positive,
    check_probability,
)

#: What the teacher sends once its budget is spent (module docstring).
AFTER_BUDGET: tuple[str, ...] = ("random", "silent")


def kickstart_penalty(probs: torch.Tensor, targets: torch.Tensor, alpha: float) -> torch.Tensor:
    r"""Batch mean of :math:`\phi_\lambda` (eq. 16): the 2-norm distance where it exceeds
    ``alpha``, zero inside the ball."""
    dist = torch.linalg.vector_norm(probs - targets, dim=-1)
    return (dist * (dist > alpha)).mean()


class Kickstarter:
    """The teacher side (queries through the Dirichlet mechanism) and the student's penalty."""

    def __init__(
        self,
        teacher: ActorCritic,
        rng: SeedLike,
        private: bool = True,
        k0: float = 5.0,
        coefficient: float = 0.3,
        lam: float = 0.5,
        beta: float = 0.05,
        radius: Literal["printed", "union", "subgaussian", "mc"] = "printed",
        eta: float = 0.1,
        tau: float = 1e-3,
        lipschitz: float = 1.0,
        b: float = 0.01,
        k_min: float = 0.1,
        weight: float = 1.0,
        after_budget: Literal["random", "silent"] = "random",
    ) -> None:
        self.teacher = teacher
        self.m = int(cast(nn.Linear, teacher.pi[-1]).out_features)
        self.rng = as_generator(rng)
        self.private = bool(private)
        self.k0 = check_positive(k0, "k0")
        self.coefficient = check_probability(coefficient, "coefficient")
        self.lam = check_nonnegative(lam, "lam")
        self.beta = check_probability(beta, "beta", open_interval=True)
        self.radius = check_choice(radius, "radius", RADII)
        self.eta = check_eta(eta, self.m)
        self.tau = check_positive(tau, "tau")
        self.lipschitz = check_nonnegative(lipschitz, "lipschitz")
        self.b = check_nonnegative(b, "b")
        self.k_min = check_positive(k_min, "k_min")
        self.weight = check_nonnegative(weight, "weight")
        self.after_budget = check_choice(after_budget, "after_budget", AFTER_BUDGET)
        self.k = self.k0
        self.alpha = 0.0
        self.active = True

    def _radius(self, k: float) -> float:
        return lemma1_radius(self.radius, k, self.m, self.beta, self.eta)

    def start_epoch(self, epoch: int) -> dict[str, float]:
        """Set :math:`k_t = k_0 c^t`, the ball radius and the per-query privacy of this roll-out."""
        if not self.private:
            self.k, self.alpha, self.active = np.inf, 0.0, True
            return {"k": np.inf, "alpha": 0.0, "epsilon_query": np.inf, "delta_query": 1.0}
        self.k = self.k0 * self.coefficient**epoch
        self.active = self.k >= self.k_min
        k_eff = max(self.k, 1e-12)
        self.alpha = self.lam * self._radius(k_eff)
        if not self.active:
            return {"k": self.k, "alpha": self.alpha, "epsilon_query": 0.0, "delta_query": 0.0}
        mechanism = Theorem1Mechanism(self.k, self.m, self.eta, self.tau)
        eps = theorem1_epsilon(mechanism, self.lipschitz, self.b)
        dlt = theorem1_delta_bound(mechanism)
        return {"k": self.k, "alpha": self.alpha, "epsilon_query": eps, "delta_query": dlt}

    @property
    def silent(self) -> bool:
        """The budget is spent and the teacher sends nothing (``after_budget="silent"``)."""
        return self.private and not self.active and self.after_budget == "silent"

    def teacher_policy(self, obs: np.ndarray) -> np.ndarray:
        r""":math:`f(s) \in \Delta_{m,\eta}` (or the raw softmax when not private)."""
        with torch.no_grad():
            p = self.teacher.probs(torch.as_tensor(obs, dtype=torch.float32)).double().numpy()
        p /= p.sum(axis=-1, keepdims=True)
        if not self.private:
            return p
        return (1.0 - self.m * self.eta) * p + self.eta

    def targets(self, obs: np.ndarray) -> np.ndarray:
        """Answer one query per row of ``obs`` (zeros, ignored by :meth:`loss`, when silent)."""
        if self.silent:
            return np.zeros((len(obs), self.m))
        if not self.private:
            return self.teacher_policy(obs)
        if not self.active:  # budget spent: data-independent random policies
            return self.rng.dirichlet(np.ones(self.m), size=len(obs))
        return dirichlet_mechanism(self.teacher_policy(obs), self.k, self.rng, eta=self.eta)

    def loss(self, probs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """``weight`` times eq. (16)'s batch mean; zero (no demonstration) when silent."""
        if self.silent:
            return probs.sum() * 0.0
        return self.weight * kickstart_penalty(probs, targets.to(probs.dtype), self.alpha)

    def diagnostics(self, probs: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
        """``penalised_fraction``: the fraction of queries whose penalty (16) is non-zero
        (distance above the ball radius alpha; 0 when silent)."""
        if self.silent:
            return {"penalised_fraction": 0.0}
        dist = torch.linalg.vector_norm(probs.detach() - targets.to(probs.dtype), dim=-1)
        return {"penalised_fraction": float((dist > self.alpha).double().mean())}
