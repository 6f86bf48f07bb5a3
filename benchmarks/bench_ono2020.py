"""Env steps per second of PGC-A3C training against gymnasium's vector CartPole (same run).

One command: ``.venv/bin/python benchmarks/bench_ono2020.py [--sb3]``. Every number is measured
in the same run, on the same machine, single process:

* PGC-A3C (privrl): Laplace mechanism, |B| = 1, 20 trials x 9 workers, the waves of all trials
  simulated together, every episode played by the compiled (numba) rollout, per-episode
  gradients by the compiled loop, the exact discrete Laplace noise of a whole wave in one call of
  the compiled inversion sampler, updates included (``train_pgc_a3c``), at epsilon = 1 and at
  epsilon = inf, over the first 2,000 submissions (the exploration phase, alpha > 0, is the
  first 900), without early stop.
* Baseline: gymnasium's vectorised CartPole (``make_vec``, numpy vector entry point) with the
  same 180 environments stepping random actions, no learning.
* ``--sb3``: also stable-baselines3 A2C on ``CartPole-v1`` with its defaults.

Prints the ratios and writes ``benchmarks/results/ono2020.json``.

Times are CPU seconds of this process (``time.process_time``), on both sides: the machine is
shared, and CPU time is far less sensitive to other processes' load than wall time (both sides
are single-threaded). The load average at the start is recorded.

**Compile time is outside the timed part.** The compiled functions are cached on disk (numba
``cache=True``); a warm-up (a 20-trial, 450-submission training at each epsilon) loads them from
the cache, or compiles them when there is none, before any clock starts, and grows the process
to the timed runs' size (the first full-size training in a process otherwise takes about 0.1 CPU
s more, whichever epsilon comes first): ``warmup_wall_s`` is its wall time.

What the compiled path changes (measured, against the batched-numpy simulation this benchmark
timed before, 0.103x at epsilon = 1 and 0.096x at epsilon = inf): there, all carts stepped as
one numpy batch, ~39 us per step of the batch whatever the number of carts still running, and a
trial's wave lasted as long as its longest episode, so with only ~25 of 180 carts running on
average the rollout alone bounded the rate near 0.17x. Compiled, each episode is a loop of its
own and costs only its own steps (no waiting, no padding), and the gradient loop likewise;
``*_ns_per_step`` is the whole training's CPU time per env step. At epsilon = 1 each report
adds 112 exact discrete Laplace integers: ``sampler_ns_per_sample`` is the inversion sampler the
training uses (one 53-bit draw and one ``log`` per sample, all of a wave at once,
:func:`~privrl.core.mechanisms.discrete_laplace.sample_discrete_laplace_inversion`),
``cks_sampler_ns_per_sample`` the CKS sampler of the same law (about eight draws and as many
exact Bernoulli decisions per sample, one after the other), both measured in the same run on
the training's scale, a wave per call.

Measured (``benchmarks/results/ono2020.json``, load average 3.1 from other processes on the 2
cores): 0.44 CPU s for 0.86 M env steps at epsilon = 1, 0.61x the vector environment's rate
(0.58x and 0.59x in the two runs just before; 0.36x with the CKS sampler), and 0.39 CPU s for
1.06 M at epsilon = inf (0.86x); the inversion sampler takes 12 ns per sample, the CKS sampler
92 ns.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable
from fractions import Fraction

import gymnasium as gym
import numpy as np
from _timing import write_result

from privrl.core.algorithms.a3c import D, PGCA3CConfig, train_pgc_a3c
from privrl.core.mechanisms.discrete_laplace import (
    grid_scale,
    sample_discrete_laplace,
    sample_discrete_laplace_inversion,
)

N_TRIALS, N_WORKERS = 20, 9
Sampler = Callable[[Fraction, tuple[int, ...], np.random.Generator], np.ndarray]


def warm_up() -> float:
    """Load (or compile) every compiled function and grow the process to the timed runs' size
    before timing; returns the wall seconds."""
    start = time.perf_counter()
    for epsilon in (1.0, math.inf):
        cfg = PGCA3CConfig(epsilon=epsilon, n_submissions=450, stop_at_success=False)
        train_pgc_a3c(cfg, N_TRIALS, 0)
    return time.perf_counter() - start


def bench_pgc(epsilon: float, n_submissions: int = 2000) -> dict[str, float]:
    """Env steps per CPU second of one batched PGC-A3C training."""
    cfg = PGCA3CConfig(
        mechanism="laplace", epsilon=epsilon, n_submissions=n_submissions, stop_at_success=False
    )
    start = time.process_time()
    res = train_pgc_a3c(cfg, N_TRIALS, 0)
    seconds = time.process_time() - start
    return {
        "env_steps_per_s": res.env_steps / seconds,
        "env_steps": res.env_steps,
        "reports": N_TRIALS * n_submissions,
        "seconds": seconds,
        "ns_per_step": seconds / res.env_steps * 1e9,
    }


def bench_sampler(sample: Sampler, n_waves: int = 100) -> float:
    """CPU nanoseconds per exact discrete Laplace sample of ``sample`` at the training's scale
    (C = 0.01, epsilon = 1, d = 112), drawn a wave (180 reports) per call as in training."""
    scale = grid_scale(0.01, 1.0, D)
    gen = np.random.default_rng(0)
    start = time.process_time()
    for _ in range(n_waves):
        sample(scale, (N_TRIALS * N_WORKERS, D), gen)
    return (time.process_time() - start) / (n_waves * N_TRIALS * N_WORKERS * D) * 1e9


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
    warmup = warm_up()
    vec_before = bench_vector()
    eps1 = bench_pgc(1.0)
    epsinf = bench_pgc(math.inf)
    vec_after = bench_vector()
    vec = (vec_before + vec_after) / 2  # the machine's load may drift: average both sides
    out = {
        "timer": "process_time (CPU seconds of this process)",
        "load_average_1min_at_start": load,
        "cpus": os.cpu_count(),
        "compile": "outside the timed part: warm-up call first (numba cache=True)",
        "warmup_wall_s": warmup,
        **{f"pgc_a3c_eps1_{k}": v for k, v in eps1.items()},
        **{f"pgc_a3c_epsinf_{k}": v for k, v in epsinf.items()},
        "sampler_ns_per_sample": bench_sampler(sample_discrete_laplace_inversion),
        "cks_sampler_ns_per_sample": bench_sampler(sample_discrete_laplace),
        "gymnasium_vector_random_env_steps_per_s": vec,
        "gymnasium_vector_before_after": [vec_before, vec_after],
        "pgc_eps1_over_vector": eps1["env_steps_per_s"] / vec,
        "pgc_epsinf_over_vector": epsinf["env_steps_per_s"] / vec,
        "target_over_vector": 0.6,
        "num_envs": N_TRIALS * N_WORKERS,
    }
    if args.sb3:
        out["sb3_a2c_env_steps_per_s"] = bench_sb3()
        out["pgc_eps1_over_sb3"] = eps1["env_steps_per_s"] / out["sb3_a2c_env_steps_per_s"]
    write_result("ono2020.json", out)


if __name__ == "__main__":
    main()
