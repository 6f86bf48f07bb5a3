"""Env steps per second of PGC-A3C training against gymnasium's vector CartPole (same run).

One command: ``.venv/bin/python benchmarks/bench_ono2020.py [--sb3]``. Every number is measured
in the same run, on the same machine, single process:

* PGC-A3C (privrl): Laplace mechanism, |B| = 1, 20 trials x 9 workers = 180 episodes per wave
  stepped as one numpy batch, gradients in closed form, noise and updates included
  (``train_pgc_a3c``), at epsilon = 1 and at epsilon = inf, over the first 2,000 submissions
  (the exploration phase, alpha > 0: the slowest part of training).
* Baseline: gymnasium's vectorised CartPole (``make_vec``, numpy vector entry point) with the
  same 180 environments stepping random actions, no learning.
* ``--sb3``: also stable-baselines3 A2C on ``CartPole-v1`` with its defaults.

Prints the ratios and writes ``benchmarks/results/ono2020.json``.

Why PGC-A3C stays near 0.1x of the vector environment (measured): the 9 asynchronous agents are
simulated in waves that start from the same parameters, so a wave of 180 episodes lasts as long
as its longest episode (about 190 steps on average early in training, against a mean episode of
about 25 steps), and a vector step of 180 random-policy carts costs about as much as one of our
batched steps. Only a different simulation of the asynchrony (each agent starts its next episode
with the current parameters as soon as its last one ends, submissions ordered by completion)
would keep every cart busy; that changes the staleness model, so it is not done here.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from privrl.core.algorithms.a3c import PGCA3CConfig, train_pgc_a3c

N_TRIALS, N_WORKERS = 20, 9


def bench_pgc(epsilon: float, n_submissions: int = 2000) -> tuple[float, int, float]:
    """(env steps per second, env steps, seconds) of one batched PGC-A3C training."""
    cfg = PGCA3CConfig(
        mechanism="laplace", epsilon=epsilon, n_submissions=n_submissions, stop_at_success=False
    )
    start = time.perf_counter()
    res = train_pgc_a3c(cfg, N_TRIALS, 0)
    seconds = time.perf_counter() - start
    return res.env_steps / seconds, res.env_steps, seconds


def bench_sb3(total_timesteps: int = 20_000) -> float:
    import torch
    from stable_baselines3 import A2C

    torch.set_num_threads(1)
    model = A2C("MlpPolicy", "CartPole-v1", seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=total_timesteps)
    return total_timesteps / (time.perf_counter() - start)


def bench_vector(num_envs: int = N_TRIALS * N_WORKERS, iterations: int = 3000) -> float:
    envs = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 2, size=(iterations, num_envs))
    start = time.perf_counter()
    for t in range(iterations):
        envs.step(actions[t])
    elapsed = time.perf_counter() - start
    envs.close()
    return num_envs * iterations / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sb3", action="store_true", help="also time stable-baselines3 A2C")
    args = parser.parse_args()
    vec_before = bench_vector()
    pgc_1, steps_1, sec_1 = bench_pgc(1.0)
    pgc_inf, steps_inf, sec_inf = bench_pgc(math.inf)
    vec_after = bench_vector()
    vec = (vec_before + vec_after) / 2  # the machine's load may drift: average both sides
    out = {
        "pgc_a3c_eps1_env_steps_per_s": pgc_1,
        "pgc_a3c_eps1_env_steps": steps_1,
        "pgc_a3c_eps1_seconds": sec_1,
        "pgc_a3c_epsinf_env_steps_per_s": pgc_inf,
        "gymnasium_vector_random_env_steps_per_s": vec,
        "gymnasium_vector_before_after": [vec_before, vec_after],
        "pgc_eps1_over_vector": pgc_1 / vec,
        "pgc_epsinf_over_vector": pgc_inf / vec,
        "target_over_vector": 0.3,
        "num_envs": N_TRIALS * N_WORKERS,
    }
    if args.sb3:
        out["sb3_a2c_env_steps_per_s"] = bench_sb3()
        out["pgc_eps1_over_sb3"] = pgc_1 / out["sb3_a2c_env_steps_per_s"]
    print(json.dumps(out, indent=2))
    path = Path(__file__).resolve().parent / "results" / "ono2020.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
