r"""Policies for the Xie et al. (2019) experiments, learned by Q-learning as in the paper.

* Mountain Car: linear Q-learning on the order-5 Fourier basis (Konidaris et al. 2011), batched
  over parallel cars, with per-feature step sizes :math:`\alpha/\|c\|` (``alpha`` for ``c = 0``).
  Update :math:`W_{:,a} \mathrel{+}= \alpha_c\,\delta\,\phi(s)`,
  :math:`\delta = r + \gamma\max_{a'} \phi(s')^\top W_{:,a'} - \phi(s)^\top W_{:,a}` (0 bootstrap at
  the goal).
* HIV: fitted Q iteration (Ernst et al. 2005/2006) with a linear model on quadratic features of
  the log10 state, from batches of random-action episodes.

Trained weights are stored in ``privrl/data/xie2019/*.npz`` (small); ``train_and_save_all``
retrains them (``python -m privrl.papers.xie2019.chapter train-policies``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from privrl.core.envs import mountain_car as mc
from privrl.core.envs.hiv import N_ACTIONS, collect_hiv, scaled_log_state
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_int, check_positive, check_probability

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "xie2019"
MC_FILE = DATA_DIR / "mountain_car_q.npz"
HIV_FILE = DATA_DIR / "hiv_q.npz"

__all__ = [
    "train_mountain_car",
    "epsilon_greedy",
    "softmax_policy",
    "load_mountain_car_weights",
    "train_hiv_fqi",
    "hiv_quadratic_features",
    "load_hiv_weights",
    "train_and_save_all",
]


def epsilon_greedy(q: np.ndarray, epsilon: float) -> np.ndarray:
    """Action probabilities (k, A) of the epsilon-greedy policy for action values ``q`` (k, A)."""
    epsilon = check_probability(epsilon, "epsilon")
    k, n_actions = q.shape
    probs = np.full((k, n_actions), epsilon / n_actions)
    probs[np.arange(k), np.argmax(q, axis=1)] += 1.0 - epsilon
    return probs


def softmax_policy(q: np.ndarray, temperature: float) -> np.ndarray:
    """Boltzmann probabilities (k, A) of ``q / temperature``."""
    temperature = check_positive(temperature, "temperature")
    z = (q - q.max(axis=1, keepdims=True)) / temperature
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train_mountain_car(
    rng: SeedLike,
    steps: int = 40_000,
    n_envs: int = 32,
    alpha: float = 0.2,
    gamma: float = 1.0,
    epsilon: float = 0.05,
    order: int = 5,
) -> np.ndarray:
    """Batched linear Q-learning; returns weights ``W`` of shape ((order+1)^2, 3)."""
    steps = check_int(steps, "steps", minimum=1)
    n_envs = check_int(n_envs, "n_envs", minimum=1)
    alpha = check_positive(alpha, "alpha")
    gen = as_generator(rng)
    coeffs = np.array([[i, j] for i in range(order + 1) for j in range(order + 1)], dtype=float)
    norms = np.linalg.norm(coeffs, axis=1)
    lr = alpha / np.where(norms == 0, 1.0, norms)
    W = np.zeros(((order + 1) ** 2, mc.N_ACTIONS))
    s = mc.reset_states(n_envs, gen)
    t_ep = np.zeros(n_envs, dtype=int)
    for _ in range(steps):
        f = mc.fourier_features(s, order)
        q = f @ W
        p = epsilon_greedy(q, epsilon)
        a = (
            (gen.random(n_envs)[:, None] > np.cumsum(p, axis=1))
            .sum(axis=1)
            .clip(0, mc.N_ACTIONS - 1)
        )
        s2, done = mc.batched_step(s, a)
        t_ep += 1
        target = -1.0 + gamma * np.where(
            done, 0.0, (mc.fourier_features(s2, order) @ W).max(axis=1)
        )
        td = target - q[np.arange(n_envs), a]
        for act in range(mc.N_ACTIONS):
            sel = a == act
            if sel.any():
                W[:, act] += lr * (td[sel, None] * f[sel]).sum(axis=0) / n_envs
        reset = done | (t_ep >= 200)
        s = np.where(reset[:, None], mc.reset_states(n_envs, gen), s2)
        t_ep[reset] = 0
    return W


def load_mountain_car_weights() -> np.ndarray:
    """The stored Mountain Car Q weights (36, 3)."""
    return np.load(MC_FILE)["W"]


# ------------------------------------------------------------------------------------ HIV


def hiv_quadratic_features(x: np.ndarray) -> np.ndarray:
    """[1, x, upper-triangular x_i x_j] of the (scaled) log10 state x (..., 6): 28 features."""
    x = np.asarray(x, dtype=float)
    iu = np.triu_indices(x.shape[-1])
    quad = (x[..., :, None] * x[..., None, :])[..., iu[0], iu[1]]
    return np.concatenate([np.ones(x.shape[:-1] + (1,)), x, quad], axis=-1)


def train_hiv_fqi(
    rng: SeedLike,
    n_episodes: int = 30,
    iterations: int = 30,
    gamma: float = 0.98,
    ridge: float = 1e-3,
) -> np.ndarray:
    """Fitted Q iteration with one linear model per action on :func:`hiv_quadratic_features`
    of the scaled log10 state, from ``n_episodes`` random-action episodes. Returns W (28, 4)."""
    gen = as_generator(rng)
    traj = collect_hiv(lambda x: np.full((len(x), N_ACTIONS), 1.0 / N_ACTIONS), n_episodes, gen)[0]
    mask = traj.mask()
    X = hiv_quadratic_features(scaled_log_state(traj.observations[:, :-1][mask]))
    X2 = hiv_quadratic_features(scaled_log_state(traj.observations[:, 1:][mask]))
    a = traj.actions[mask]
    r = traj.rewards[mask] / 1e5  # reward scale of the simulator is ~1e4..1e6 per step
    W = np.zeros((X.shape[1], N_ACTIONS))
    for _ in range(iterations):
        target = r + gamma * (X2 @ W).max(axis=1)
        for act in range(N_ACTIONS):
            sel = a == act
            Xa = X[sel]
            W[:, act] = np.linalg.solve(Xa.T @ Xa + ridge * np.eye(X.shape[1]), Xa.T @ target[sel])
    return W


def load_hiv_weights() -> np.ndarray:
    """The stored HIV fitted-Q weights (28, 4)."""
    return np.load(HIV_FILE)["W"]


def train_and_save_all(seed: int = 0) -> list[Path]:
    """Retrain both policies and overwrite the stored weights."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    ss_mc, ss_hiv = np.random.SeedSequence(seed).spawn(2)
    np.savez(MC_FILE, W=train_mountain_car(ss_mc))
    np.savez(HIV_FILE, W=train_hiv_fqi(ss_hiv))
    return [MC_FILE, HIV_FILE]
