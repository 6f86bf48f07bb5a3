"""Env steps per second of PGC-A3C training vs stable-baselines3 A2C and raw vector CartPole.

One command: ``.venv/bin/python benchmarks/bench_ono2020.py``. All three numbers are measured
in the same run, on the same machine, single process:

* PGC-A3C (privrl): Laplace mechanism, epsilon = 1, |B| = 1, 20 trials x 9 workers stepped as one
  numpy batch, analytic gradients, noise and updates included (``train_pgc_a3c``).
* stable-baselines3 A2C on ``CartPole-v1`` with its defaults (what a user would reach for).
* gymnasium's vectorised CartPole (``make_vec``, numpy vector entry point) stepping random actions
  with the same number of parallel environments as our batch, no learning: the ceiling.

Prints the ratios and writes ``benchmarks/results/ono2020.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch

from privrl.algorithms.a3c import PGCA3CConfig, train_pgc_a3c


def bench_pgc(n_trials: int = 20, n_submissions: int = 2000) -> float:
    cfg = PGCA3CConfig(
        mechanism="laplace", epsilon=1.0, n_submissions=n_submissions, stop_at_success=False
    )
    start = time.perf_counter()
    res = train_pgc_a3c(cfg, n_trials, 0)
    return res.env_steps / (time.perf_counter() - start)


def bench_sb3(total_timesteps: int = 20_000) -> float:
    from stable_baselines3 import A2C

    torch.set_num_threads(1)
    model = A2C("MlpPolicy", "CartPole-v1", seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=total_timesteps)
    return total_timesteps / (time.perf_counter() - start)


def bench_vector(num_envs: int = 180, iterations: int = 3000) -> float:
    envs = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, size=(iterations, num_envs))
    start = time.perf_counter()
    for t in range(iterations):
        envs.step(actions[t])
    elapsed = time.perf_counter() - start
    envs.close()
    return num_envs * iterations / elapsed


def main() -> None:
    pgc = bench_pgc()
    sb3 = bench_sb3()
    vec = bench_vector()
    out = {
        "pgc_a3c_env_steps_per_s": pgc,
        "sb3_a2c_env_steps_per_s": sb3,
        "gymnasium_vector_random_env_steps_per_s": vec,
        "pgc_over_sb3": pgc / sb3,
        "pgc_over_vector_ceiling": pgc / vec,
        "target_pgc_over_sb3": 5.0,
    }
    print(json.dumps(out, indent=2))
    path = Path(__file__).resolve().parent / "results" / "ono2020.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
