"""HIV treatment simulator (privrl.core.envs.hiv): equilibria, integration, gymnasium API."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from scipy.optimize import root

import privrl.core.envs  # noqa: F401  (registers the ids)
from privrl.core.envs.hiv import (
    HEALTHY_STATE,
    INITIAL_STATE,
    HIVTreatmentEnv,
    batched_step,
    hiv_derivatives,
    hiv_reward,
)


@pytest.mark.parametrize("published", [INITIAL_STATE, HEALTHY_STATE], ids=["unhealthy", "healthy"])
def test_published_steady_states(published):
    # Solve f(x) = 0 (no treatment) from the published point; the equilibrium must agree with the
    # published values to their rounding (they are printed as integers: 2% or 1 unit).
    sol = root(
        lambda y: hiv_derivatives(np.exp(y), 0.0, 0.0) / np.exp(y), np.log(published), method="hybr"
    )
    assert sol.success
    x = np.exp(sol.x)
    assert np.all(np.abs(x - published) <= np.maximum(0.02 * published, 1.0))


def test_env_step_matches_fine_euler():
    # Independent integrator: explicit Euler with dt = 5e-5 days over one 5-day step, all four
    # actions at once (Euler's global error is O(dt); 1e-3 relative is far above it here).
    dt, days = 5e-5, 5.0
    eff = np.array([[0, 0], [0.7, 0], [0, 0.3], [0.7, 0.3]])
    x = np.tile(INITIAL_STATE, (4, 1))
    for _ in range(int(round(days / dt))):
        x = x + dt * hiv_derivatives(x, eff[:, 0], eff[:, 1])
    for action in range(4):
        env = HIVTreatmentEnv()
        env.reset(seed=0)
        _, _, _, _, info = env.step(action)
        assert np.allclose(info["state"], x[action], rtol=1e-3)


def test_batched_step_matches_env():
    env = HIVTreatmentEnv()
    x = np.tile(INITIAL_STATE, (4, 1))
    y = batched_step(x, np.arange(4))
    for a in range(4):
        env.reset(seed=0)
        _, r, _, _, info = env.step(a)
        assert np.allclose(y[a], info["state"], rtol=1e-4)
        assert r == pytest.approx(float(hiv_reward(info["state"], a)))


def test_gymnasium_registration_and_checker():
    env = gymnasium.make("privrl/HIVTreatment-v0", horizon=3)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (6,)
    assert np.allclose(obs, np.log10(INITIAL_STATE))
    truncated = False
    steps = 0
    while not truncated:
        obs, _, terminated, truncated, _ = env.step(0)
        assert not terminated
        steps += 1
    assert steps == 3


def test_reward_formula():
    x = INITIAL_STATE
    assert hiv_reward(x, 3) == pytest.approx(-(0.1 * x[4] + 2e4 * 0.49 + 2e3 * 0.09 - 1e3 * x[5]))


def test_bad_action():
    env = HIVTreatmentEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(7)
