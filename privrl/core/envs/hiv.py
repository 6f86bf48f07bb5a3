r"""HIV treatment simulator of Ernst et al. (2006) (model of Adams et al. 2004), as a gymnasium env.

State :math:`x = (T_1, T_2, T_1^*, T_2^*, V, E)`; action :math:`(\epsilon_1, \epsilon_2) \in
\{(0,0), (0.7,0), (0,0.3), (0.7,0.3)\}` (reverse-transcriptase and protease inhibitors):

.. math::

    \dot T_1 &= \lambda_1 - d_1 T_1 - (1-\epsilon_1) k_1 V T_1, \qquad
    \dot T_2 = \lambda_2 - d_2 T_2 - (1-f\epsilon_1) k_2 V T_2,\\
    \dot T_1^* &= (1-\epsilon_1) k_1 V T_1 - \delta T_1^* - m_1 E T_1^*, \qquad
    \dot T_2^* = (1-f\epsilon_1) k_2 V T_2 - \delta T_2^* - m_2 E T_2^*,\\
    \dot V &= (1-\epsilon_2) N_T \delta (T_1^* + T_2^*) - c V
             - [(1-\epsilon_1)\rho_1 k_1 T_1 + (1-f\epsilon_1)\rho_2 k_2 T_2] V,\\
    \dot E &= \lambda_E + \frac{b_E (T_1^*+T_2^*)}{T_1^*+T_2^*+K_b} E
             - \frac{d_E (T_1^*+T_2^*)}{T_1^*+T_2^*+K_d} E - \delta_E E .

Reward per 5-day step: :math:`-(0.1 V + 2\cdot 10^4 \epsilon_1^2 + 2\cdot 10^3 \epsilon_2^2 - 10^3 E)`
at the end of the step. Observation: :math:`\log_{10} x`. Episodes: 200 steps from the unhealthy
steady state (163573, 5, 11945, 46, 63919, 24). Each stiff step is integrated by LSODA
(:class:`HIVTreatmentEnv`) or, for many patients, BDF on the stacked state (:func:`batched_step`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from scipy.integrate import solve_ivp
from scipy.sparse import block_diag

from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_array, check_int

__all__ = [
    "PARAMS",
    "ACTIONS",
    "N_ACTIONS",
    "INITIAL_STATE",
    "HEALTHY_STATE",
    "hiv_derivatives",
    "hiv_reward",
    "HIVTreatmentEnv",
    "batched_step",
    "collect_hiv",
    "scaled_log_state",
]

PARAMS: dict[str, float] = dict(
    l1=1e4,
    d1=0.01,
    k1=8e-7,
    m1=1e-5,
    r1=1.0,
    l2=31.98,
    d2=0.01,
    k2=1e-4,
    m2=1e-5,
    r2=1.0,
    f=0.34,
    dl=0.7,
    NT=100.0,
    c=13.0,
    lE=1.0,
    bE=0.3,
    Kb=100.0,
    dE=0.25,
    Kd=500.0,
    dlE=0.1,
)
ACTIONS = np.array([[0.0, 0.0], [0.7, 0.0], [0.0, 0.3], [0.7, 0.3]])
N_ACTIONS = 4
#: Unhealthy steady state (initial state of the episodes; Adams et al. 2004, Ernst et al. 2006).
INITIAL_STATE = np.array([163573.0, 5.0, 11945.0, 46.0, 63919.0, 24.0])
#: Healthy steady state (Adams et al. 2004).
HEALTHY_STATE = np.array([967839.0, 621.0, 76.0, 6.0, 415.0, 353108.0])
STEP_DAYS = 5.0
HORIZON = 200


def hiv_derivatives(
    x: np.ndarray, eps1: np.ndarray | float, eps2: np.ndarray | float
) -> np.ndarray:
    """Right-hand side of the ODE for states ``x`` (..., 6) and drug efficacies (broadcast)."""
    p = PARAMS
    T1, T2, T1s, T2s, V, E = np.moveaxis(np.asarray(x, dtype=float), -1, 0)
    e1, e2 = np.asarray(eps1, dtype=float), np.asarray(eps2, dtype=float)
    inf1 = (1 - e1) * p["k1"] * V * T1
    inf2 = (1 - p["f"] * e1) * p["k2"] * V * T2
    Ts = T1s + T2s
    return np.stack(
        [
            p["l1"] - p["d1"] * T1 - inf1,
            p["l2"] - p["d2"] * T2 - inf2,
            inf1 - p["dl"] * T1s - p["m1"] * E * T1s,
            inf2 - p["dl"] * T2s - p["m2"] * E * T2s,
            (1 - e2) * p["NT"] * p["dl"] * Ts
            - p["c"] * V
            - ((1 - e1) * p["r1"] * p["k1"] * T1 + (1 - p["f"] * e1) * p["r2"] * p["k2"] * T2) * V,
            p["lE"]
            + p["bE"] * Ts / (Ts + p["Kb"]) * E
            - p["dE"] * Ts / (Ts + p["Kd"]) * E
            - p["dlE"] * E,
        ],
        axis=-1,
    )


def hiv_reward(x: np.ndarray, action: np.ndarray | int) -> np.ndarray:
    """Reward of reaching state ``x`` (..., 6) under ``action`` index (broadcast)."""
    e1, e2 = ACTIONS[np.asarray(action)].T
    x = np.asarray(x, dtype=float)
    return -(0.1 * x[..., 4] + 2e4 * e1**2 + 2e3 * e2**2 - 1e3 * x[..., 5])


def scaled_log_state(x: np.ndarray) -> np.ndarray:
    """log10 of the state, centred and scaled to roughly [-1, 1] for function approximation."""
    return (np.log10(np.maximum(np.asarray(x, dtype=float), 1e-12)) - 3.0) / 3.0


def _integrate_one(x: np.ndarray, action: int, method: str = "LSODA") -> np.ndarray:
    e1, e2 = ACTIONS[action]
    sol = solve_ivp(
        lambda _t, y: hiv_derivatives(y, e1, e2),
        (0.0, STEP_DAYS),
        x,
        method=method,
        rtol=1e-8,
        atol=1e-8,
    )
    if not sol.success:
        raise RuntimeError(f"HIV integration failed: {sol.message}")
    return sol.y[:, -1]


def batched_step(states: np.ndarray, actions: np.ndarray, rtol: float = 1e-6) -> np.ndarray:
    """Advance many patients by one 5-day step at once (BDF, block-diagonal Jacobian sparsity)."""
    states = check_array(states, "states", ndim=2)
    k = states.shape[0]
    e = ACTIONS[np.asarray(actions)]
    sparsity = block_diag([np.ones((6, 6))] * k, format="csr")

    def rhs(_t: float, y: np.ndarray) -> np.ndarray:
        return hiv_derivatives(y.reshape(k, 6), e[:, 0], e[:, 1]).ravel()

    sol = solve_ivp(
        rhs,
        (0.0, STEP_DAYS),
        states.ravel(),
        method="BDF",
        rtol=rtol,
        atol=1e-6,
        jac_sparsity=sparsity,
    )
    if not sol.success:
        raise RuntimeError(f"HIV integration failed: {sol.message}")
    return np.maximum(sol.y[:, -1].reshape(k, 6), 0.0)


def collect_hiv(
    policy: Callable[[np.ndarray], np.ndarray], m: int, rng: SeedLike, horizon: int = HORIZON
) -> tuple[Trajectories, np.ndarray]:
    """``m`` episodes of ``policy`` (scaled log state (k, 6) -> probabilities (k, 4)), batched.

    Observations are raw states (m, H+1, 6); apply :func:`scaled_log_state` for features.
    Returns the trajectories and the behaviour probabilities of the actions taken (m, H).
    """
    m = check_int(m, "m", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    gen = as_generator(rng)
    obs = np.zeros((m, H + 1, 6))
    obs[:, 0] = INITIAL_STATE
    actions = np.zeros((m, H), dtype=np.int64)
    probs = np.zeros((m, H))
    rewards = np.zeros((m, H))
    for t in range(H):
        p = policy(scaled_log_state(obs[:, t]))
        a = (gen.random(m)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(0, N_ACTIONS - 1)
        actions[:, t] = a
        probs[:, t] = p[np.arange(m), a]
        obs[:, t + 1] = batched_step(obs[:, t], a)
        rewards[:, t] = hiv_reward(obs[:, t + 1], a)
    traj = Trajectories(
        observations=obs,
        actions=actions,
        rewards=rewards,
        lengths=np.full(m, H),
        terminated=np.zeros(m, dtype=bool),
    )
    return traj, probs


class HIVTreatmentEnv(gymnasium.Env):
    """Gymnasium env ``privrl/HIVTreatment-v0``: observation log10 state (float64, 6), 4 actions,
    200 steps of 5 days (truncation), LSODA integration."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, horizon: int = HORIZON) -> None:
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.observation_space = spaces.Box(low=-12.0, high=12.0, shape=(6,), dtype=np.float64)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._x = INITIAL_STATE.copy()
        self._t = 0

    def _obs(self) -> np.ndarray:
        return np.clip(np.log10(np.maximum(self._x, 1e-12)), -12.0, 12.0)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._x = INITIAL_STATE.copy()
        self._t = 0
        return self._obs(), {}

    def step(self, action: int):
        if not self.action_space.contains(action):
            raise ValueError(f"action must be in 0..3, got {action!r}")
        self._x = np.maximum(_integrate_one(self._x, int(action)), 0.0)
        self._t += 1
        reward = float(hiv_reward(self._x, int(action)))
        return self._obs(), reward, False, self._t >= self.horizon, {"state": self._x.copy()}
