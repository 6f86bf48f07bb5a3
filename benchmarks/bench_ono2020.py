"""Env steps per second of PGC-A3C training against gymnasium's vector CartPole (same run).

One command: ``.venv/bin/python benchmarks/bench_ono2020.py [--sb3]``. Every number is measured
in the same run, on the same machine, single process:

* PGC-A3C (privrl): Laplace mechanism, |B| = 1, 20 trials x 9 workers = 180 carts stepped as
  one numpy batch, each trial's waves out of step with the others', per-episode gradients in
  closed form without padding, noise and updates included (``train_pgc_a3c``), at epsilon = 1
  and at epsilon = inf, over the first 2,000 submissions (the exploration phase, alpha > 0),
  without early stop.
* Baseline: gymnasium's vectorised CartPole (``make_vec``, numpy vector entry point) with the
  same 180 environments stepping random actions, no learning.
* ``--sb3``: also stable-baselines3 A2C on ``CartPole-v1`` with its defaults.

Prints the ratios and writes ``benchmarks/results/ono2020.json``.

Times are CPU seconds of this process (``time.process_time``), on both sides: the machine is
shared, and CPU time is far less sensitive to other processes' load than wall time (both sides
are single-threaded numpy). The load average at the start is recorded.

Why PGC-A3C stays far below the vector environment on this set-up (measured, see the
``critical_path`` fields). The 9 asynchronous agents of a trial are simulated in waves that
start from the same parameters (the staleness model, ``privrl/core/algorithms/a3c.py``): a
trial's wave lasts as long as its longest episode, and its next wave can only start after
that. The trials' waves run out of step, so no trial waits for another's longest episode, but
a trial that learns early (episodes near 200 steps) needs about 200 sequential steps per wave,
and the run cannot be shorter than its chain of waves: ``critical_path_steps`` (the largest
sum, over a trial's waves, of the wave's longest episode) against ``lockstep_steps`` (the
same with all trials in step, as before). ``ceiling_over_vector`` is the ratio PGC-A3C would
reach if every step of its 180 carts cost one step of the vector environment and gradients,
noise and updates were free: ``env_steps / (critical_path_steps * 180)``. With ceilings near
0.2-0.3 on this set-up, 0.3x is out of reach of any simulation with this staleness model.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import gymnasium as gym
import numpy as np
from _timing import write_result

from privrl.core.algorithms.a3c import PGCA3CConfig, train_pgc_a3c

N_TRIALS, N_WORKERS = 20, 9


def bench_pgc(epsilon: float, n_submissions: int = 2000) -> dict[str, float]:
    """Env steps per CPU second of one batched PGC-A3C training, and its wave statistics."""
    cfg = PGCA3CConfig(
        mechanism="laplace", epsilon=epsilon, n_submissions=n_submissions, stop_at_success=False
    )
    start = time.process_time()
    res = train_pgc_a3c(cfg, N_TRIALS, 0)
    seconds = time.process_time() - start
    n_w = cfg.n_workers
    scores = np.pad(res.scores, ((0, 0), (0, -n_submissions % n_w)))
    wave_max = scores.reshape(N_TRIALS, -1, n_w).max(axis=2)
    critical = float(wave_max.sum(axis=1).max())
    return {
        "env_steps_per_s": res.env_steps / seconds,
        "env_steps": res.env_steps,
        "seconds": seconds,
        "critical_path_steps": critical,
        "lockstep_steps": float(wave_max.max(axis=0).sum()),
        "ceiling_over_vector": res.env_steps / (critical * N_TRIALS * n_w),
    }


def bench_sb3(total_timesteps: int = 20_000) -> float:
    import torch
    from stable_baselines3 import A2C

    torch.set_num_threads(1)
    model = A2C("MlpPolicy", "CartPole-v1", seed=0, device="cpu")
    start = time.process_time()
    model.learn(total_timesteps=total_timesteps)
    return total_timesteps / (time.process_time() - start)


def bench_vector(num_envs: int = N_TRIALS * N_WORKERS, iterations: int = 3000) -> float:
    envs = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 2, size=(iterations, num_envs))
    start = time.process_time()
    for t in range(iterations):
        envs.step(actions[t])
    elapsed = time.process_time() - start
    envs.close()
    return num_envs * iterations / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sb3", action="store_true", help="also time stable-baselines3 A2C")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    vec_before = bench_vector()
    eps1 = bench_pgc(1.0)
    epsinf = bench_pgc(math.inf)
    vec_after = bench_vector()
    vec = (vec_before + vec_after) / 2  # the machine's load may drift: average both sides
    out = {
        "timer": "process_time (CPU seconds of this process)",
        "load_average_1min_at_start": load,
        "cpus": os.cpu_count(),
        **{f"pgc_a3c_eps1_{k}": v for k, v in eps1.items()},
        **{f"pgc_a3c_epsinf_{k}": v for k, v in epsinf.items()},
        "gymnasium_vector_random_env_steps_per_s": vec,
        "gymnasium_vector_before_after": [vec_before, vec_after],
        "pgc_eps1_over_vector": eps1["env_steps_per_s"] / vec,
        "pgc_epsinf_over_vector": epsinf["env_steps_per_s"] / vec,
        "target_over_vector": 0.3,
        "num_envs": N_TRIALS * N_WORKERS,
    }
    if args.sb3:
        out["sb3_a2c_env_steps_per_s"] = bench_sb3()
        out["pgc_eps1_over_sb3"] = eps1["env_steps_per_s"] / out["sb3_a2c_env_steps_per_s"]
    write_result("ono2020.json", out)


if __name__ == "__main__":
    main()
