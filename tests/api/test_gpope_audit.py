"""The api's GPOPE release, audited over its composed run as it runs on doubles (privrl.core.audit):
T = 10 grid steps on n trajectories, replace-one, every noisy step observed (the white-box
adversary of Nasr et al. 2021), the noise and event :func:`privrl.api.evaluation.gpope`'s own
(``grid_gpope_noise``), 200,000 runs per input and per half.

The canary: one-step trajectories with feature 1 and a terminal next state; the canary's reward
+-10^6 makes its clipped gradient (0, -+G) to 10^-5 relative, 2G apart between the two inputs; the
other trajectories carry the neighbour's canary (+G) in both. Scored by the log-likelihood ratio
of the dual coordinates under the continuous Gaussian of the grid's scale (any score gives a valid
lower bound). The audit's lower bound holds with probability >= 95% for a correct release; with
these fixed seeds the correct release's bound is below its claim and a weakened one (a quarter of
the noise variance at n = 1; a sixteenth at n = 2, where Theorem 9 is loose) is refuted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.api.evaluation import grid_gpope_noise
from privrl.core import audit as au
from privrl.core.algorithms.gtd import SaddlePointStats, gpope
from privrl.core.algorithms.lstd import FeatureTransitions

T, Z, CLIP, CANARY, DELTA, N = 10, 4.0, 1.0, 1e6, 1e-5, 200_000


def _stats(n: int, canary: float) -> SaddlePointStats:
    phi = np.zeros((n, 2, 1))
    phi[:, 0, 0] = 1.0
    rewards = np.full((n, 1), -CANARY)
    rewards[0, 0] = canary
    return SaddlePointStats.from_features(
        FeatureTransitions(phi, rewards, np.ones(n, dtype=int), np.ones(n, dtype=bool), 0.9)
    )


def _audit(n: int, noise_divisor: float) -> au.AuditResult:
    noise, event = grid_gpope_noise(Z, CLIP, 1, n, T)
    claimed = event.epsilon(DELTA)
    used = (
        noise
        if noise_divisor == 1
        else type(noise).of_scale(math.sqrt(noise.variance) / noise_divisor, noise.step)
    )
    q, sigma = 1.0 / n, used.sigma

    def release(stats: SaddlePointStats, k: int, rng: np.random.Generator) -> np.ndarray:
        run = gpope(stats, T, 1.0, CLIP, 0.0, rng, n_trials=k, record_steps=True, grid=used)
        return run.steps.reshape(k, -1)

    def log_ratio(y: np.ndarray) -> np.ndarray:
        """log-likelihood ratio of the dual coordinates (X: canary at -G w.p. q, else +G; X': +G)"""
        u = y.reshape(len(y), T, 2)[:, :, 1]
        near, far = -0.5 * ((u - CLIP) / sigma) ** 2, -0.5 * ((u + CLIP) / sigma) ** 2
        mixed = np.logaddexp(math.log(q) + far, math.log1p(-q) + near) if n > 1 else far
        return (near - mixed).sum(axis=1)

    return au.audit_release(
        release,
        _stats(n, CANARY),
        _stats(n, -CANARY),
        claimed_epsilon=claimed,
        delta=DELTA,
        n_samples=N,
        rng=5,
        score=log_ratio,
    )


@pytest.mark.parametrize(("n", "divisor"), [(1, 2.0), (2, 4.0)])
def test_the_grid_gpope_passes_its_audit_and_a_weakened_one_does_not(n, divisor):
    correct, weakened = _audit(n, 1.0), _audit(n, divisor)
    assert correct.epsilon_lower <= correct.claimed_epsilon, correct
    assert correct.epsilon_estimate > 0.3 * correct.claimed_epsilon / n  # the audit has power
    assert weakened.epsilon_lower > weakened.claimed_epsilon, weakened
