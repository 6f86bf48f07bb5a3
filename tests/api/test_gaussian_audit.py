"""The api's Gaussian release, audited as it runs on doubles (privrl.core.audit): values 0 and 1
at sensitivity 1, (epsilon, delta) = (1, 1e-5), 200,000 releases per input and per half.

The audit's lower bound holds with probability >= 95% for a correct release; with this fixed
seed the correct release's bound is below its claim, and a release told half the sensitivity
(half the noise, true epsilon about 2.4) is refuted: its bound lies above the claim."""

from __future__ import annotations

import numpy as np

import privrl
from privrl.core import audit as au

EPSILON, DELTA, N = 1.0, 1e-5, 200_000


def _audit(sensitivity: float) -> au.AuditResult:
    def release(value: float, n: int, rng: np.random.Generator) -> np.ndarray:
        r = privrl.gaussian_mechanism(
            np.full((n, 1), value), sensitivity=sensitivity, epsilon=EPSILON, delta=DELTA, rng=rng
        )
        # the claim is per run: each row is one release of a 1-vector, whose grid sensitivity
        # is the same as the batch's per row (sqrt(d) of the batch only adds noise)
        return r.value

    return au.audit_release(
        release, 0.0, 1.0, claimed_epsilon=EPSILON, delta=DELTA, n_samples=N, rng=11, score="linear"
    )


def test_the_grid_gaussian_release_passes_its_audit_and_half_its_noise_does_not():
    correct, weakened = _audit(1.0), _audit(0.5)
    assert correct.epsilon_lower <= EPSILON, correct
    assert correct.epsilon_estimate > 0.3  # the test has power: it sees most of the budget
    assert weakened.epsilon_lower > EPSILON, weakened
