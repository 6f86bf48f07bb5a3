r"""Privacy-preserving kickstarting (Gohari et al. 2021, eqs. 15-17) for
:func:`~privrl.core.algorithms.ppo_fast.train_ppo_fast`: the maths and the schedule of
:class:`~privrl.core.algorithms.kickstarting.Kickstarter` (whose docstring states them), with a
roll-out's queries answered at once and the penalty's gradient written out.

Queries (:meth:`FastKickstarter.rollout_targets`): the teacher's network is evaluated on every
visited state in one batch; the Dirichlet draws of eq. (5) stay one
:func:`~privrl.core.rng.sample_dirichlet` draw (gamma, then uniform) per step in step order on
the run's generator, as the per-step path draws them (nothing else draws from that generator
within a roll-out), and after the budget the random policies are one
``Generator.dirichlet(ones(m))`` call per step. Penalty (16), batch mean, weight ``weight``:
:math:`\phi = d\,\mathbb{1}\{d > \alpha\}`, :math:`d = \|\pi_\theta(s) - \pi^t(s)\|_2`, whose
gradient with respect to :math:`\pi_\theta(s)` is :math:`\mathbb{1}\{d > \alpha\}\,(\pi_\theta(s)
- \pi^t(s)) / d` (zero inside the ball).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privrl.core.algorithms.kickstarting import Kickstarter
from privrl.core.mechanisms.dirichlet import check_policy


class FastKickstarter(Kickstarter):
    """A :class:`~privrl.core.algorithms.kickstarting.Kickstarter` with the
    :class:`~privrl.core.algorithms.ppo_fast.FastAuxiliary` interface."""

    def state(self) -> dict[str, Any]:
        """The generator's bit-generator state: the rest (``k``, ``alpha``, ``active``) is set by
        :meth:`start_epoch` from the roll-out's index."""
        return {"rng": self.rng.bit_generator.state}

    def restore(self, state: dict[str, Any]) -> None:
        """Set the generator back to a :meth:`state`."""
        self.rng.bit_generator.state = state["rng"]

    def rollout_targets(self, obs: np.ndarray) -> np.ndarray:
        """Answers (T, n_envs, m) to the queries of a roll-out's observations (T, n_envs, d)
        (zeros, ignored by the loss, when silent)."""
        n_t, n_e = obs.shape[:2]
        if self.silent:
            return np.zeros((n_t, n_e, self.m))
        if self.private and not self.active:  # budget spent: data-independent random policies
            ones = np.ones(self.m)
            return np.stack([self.rng.dirichlet(ones, size=n_e) for _ in range(n_t)])
        f = self.teacher_policy(obs.reshape(n_t * n_e, -1)).reshape(n_t, n_e, self.m)
        if not self.private:
            return f
        alpha = np.clip(
            self.k * check_policy(f, self.eta), 1e-300, None
        )  # sample_dirichlet's draws, one call per step
        gamma, unif = np.empty_like(alpha), np.empty_like(alpha)
        for t in range(n_t):
            gamma[t] = self.rng.standard_gamma(alpha[t] + 1.0)
            unif[t] = self.rng.random(alpha[t].shape)
        log_g = np.log(gamma) + np.log(unif) / alpha
        log_g -= log_g.max(axis=-1, keepdims=True)
        x = np.exp(log_g)
        return x / x.sum(axis=-1, keepdims=True)

    def loss_and_grad(
        self, probs: np.ndarray, targets: np.ndarray
    ) -> tuple[float, np.ndarray | None]:
        """``weight`` times eq. (16)'s batch mean and its gradient with respect to ``probs``;
        zero and no gradient when silent."""
        if self.silent:
            return 0.0, None
        diff = probs - targets
        dist = np.sqrt((diff * diff).sum(axis=-1))
        out = dist > self.alpha
        loss = self.weight * float((dist * out).mean())
        scale = np.where(out, self.weight / (len(probs) * np.where(out, dist, 1.0)), 0.0)
        return loss, (diff * scale[:, None]).astype(np.float32)

    def diagnostics(self, probs: np.ndarray, targets: np.ndarray) -> dict[str, float]:  # type: ignore[override]
        """``penalised_fraction``: the fraction of queries whose penalty (16) is non-zero."""
        if self.silent:
            return {"penalised_fraction": 0.0}
        dist = np.sqrt(((probs - targets) ** 2).sum(axis=-1))
        return {"penalised_fraction": float((dist > self.alpha).mean())}
