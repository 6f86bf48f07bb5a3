"""AirRaid emulator paths for Gohari et al. (2021)'s runs: roll-outs of 1,000 interactions per
second of each path against the single-environment path the chapter uses, ratios from one run.

Every path keeps the paper's observation where it can: ``AirRaid-v0`` with RAM observations
(sticky actions 0.25, frame skip drawn from 2..4), scaled to [0, 1]
(:func:`privrl.core.envs.atari.make_airraid`), random actions, episodes cut at 1,000
interactions, and a fresh seeded reset at the start of every roll-out (the paper profile resets
every roll-out, as Spinning Up does). Paths:

* ``single``: the chapter's path (the chosen one), PPO's ``make_vec_env`` with one environment
  (a gymnasium ``SyncVectorEnv`` of one), 1,000 steps per roll-out, seeded resets without
  reloading the ROM (:class:`privrl.core.envs.atari.ReseedWithoutReload`);
* ``single_reload``: the same with ale-py's own seeded reset, which reloads the ROM (the
  chapter's path before; the ratio ``single`` / ``single_reload`` is the saving);
* ``sync_N`` / ``async_N``: gymnasium's ``SyncVectorEnv`` / ``AsyncVectorEnv`` of N copies,
  1,000 / N steps each (N environments per roll-out: not the paper's roll-out of one
  environment, whose episodes run up to 1,000 interactions), without reloads as ``single``;
* ``ale_vector_N``: ale-py's own multi-threaded ``AtariVectorEnv``, measured for reference only:
  it has **no RAM observations** (stacked image frames only; ``img_height`` and ``img_width``
  at their smallest useful 84 x 84, one frame, grayscale) and a **fixed** integer frame skip
  (3 here; the paper's is drawn from 2..4);
* ``reset_seeded`` / ``reset_unseeded``: one reset with and without a seed (a seeded reset
  reloads the ROM in ale-py, the cost a roll-out pays for reproducibility).

Two rates per path: roll-outs per **wall** second and per **CPU** second (this process and its
worker processes; what core-hours cost). The chapter's full roll-out (the c = 0.3 privacy-aware
student: policy, teacher query and Dirichlet draw per step, and the PPO update) is timed in CPU
seconds too, so the emulator's share of a roll-out (an upper bound on what any emulator path
can save) is stated. Best of ``REPEATS`` alternating measurements of each path. Writes
``benchmarks/results/gohari2021_airraid.json``.

Run: ``.venv/bin/python benchmarks/bench_gohari2021_airraid.py``
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
from _timing import write_result

from privrl.core.algorithms.ppo import make_vec_env
from privrl.core.envs.atari import make_airraid
from privrl.papers.gohari2021.profile import AWARE, GohariProfile
from privrl.papers.gohari2021.runs import figure2_configs
from privrl.papers.gohari2021.student import run_agent

STEPS, CAP, ROLLOUTS, REPEATS, N_ENVS = 1000, 1000, 3, 3, (2, 4)
SAME_STEP = gym.vector.AutoresetMode.SAME_STEP  # as PPO's make_vec_env
TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pids: list[int]) -> float:
    """CPU seconds of this process (all threads) and of the processes ``pids`` so far."""
    total = time.process_time()
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    return total


def _measure(env: gym.vector.VectorEnv, pids: list[int], seed: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``ROLLOUTS`` roll-outs of ``STEPS`` interactions (random actions,
    a seeded reset at the start of each)."""
    rng = np.random.default_rng(seed)
    n = env.num_envs
    w0, c0 = time.perf_counter(), _cpu(pids)
    for _ in range(ROLLOUTS):
        env.reset(seed=int(rng.integers(2**31)))
        for _ in range(STEPS // n):
            env.step(rng.integers(6, size=n))
    return time.perf_counter() - w0, _cpu(pids) - c0


def _capped() -> gym.Env:
    return gym.wrappers.TimeLimit(make_airraid(), CAP)


def _reloading() -> gym.Env:
    """The chapter's environment before :class:`~privrl.core.envs.atari.ReseedWithoutReload`."""
    import ale_py

    gym.register_envs(ale_py)
    env = gym.make("AirRaid-v0", obs_type="ram")
    space = gym.spaces.Box(0.0, 1.0, shape=env.observation_space.shape, dtype=np.float32)
    return gym.wrappers.TransformObservation(
        env, lambda o: np.asarray(o, dtype=np.float32) / 255.0, space
    )


def _ale_vector(n: int) -> gym.vector.VectorEnv:
    from ale_py.vector_env import AtariVectorEnv

    return AtariVectorEnv(
        "air_raid",
        n,
        num_threads=n,
        repeat_action_probability=0.25,
        frameskip=3,
        stack_num=1,
        grayscale=True,
        img_height=84,
        img_width=84,
        noop_max=0,
        reward_clipping=False,
        use_fire_reset=False,
        max_num_frames_per_episode=3 * CAP,
    )


def _paths() -> dict[str, Callable[[], tuple[gym.vector.VectorEnv, list[int]]]]:
    paths: dict[str, Callable[[], tuple[gym.vector.VectorEnv, list[int]]]] = {
        "single": lambda: (make_vec_env(make_airraid, 1, CAP), []),
        "single_reload": lambda: (make_vec_env(_reloading, 1, CAP), []),
    }
    for n in N_ENVS:
        paths[f"sync_{n}"] = lambda n=n: (
            gym.vector.SyncVectorEnv([_capped] * n, autoreset_mode=SAME_STEP),
            [],
        )

        def make_async(n: int = n) -> tuple[gym.vector.VectorEnv, list[int]]:
            env = gym.vector.AsyncVectorEnv([_capped] * n, autoreset_mode=SAME_STEP)
            return env, [p.pid for p in env.processes]

        paths[f"async_{n}"] = make_async
        paths[f"ale_vector_{n}"] = lambda n=n: (_ale_vector(n), [])
    return paths


def bench_reset(repeats: int = 5) -> dict[str, float]:
    """CPU seconds of one reset: ale-py's seeded reset (reloads the ROM), the chapter's seeded
    reset (:class:`~privrl.core.envs.atari.ReseedWithoutReload`) and an unseeded one."""
    out = {}
    for name, make, seed in (
        ("reset_seeded_reload_cpu_s", _reloading, 1),
        ("reset_seeded_chapter_cpu_s", make_airraid, 1),
        ("reset_unseeded_cpu_s", make_airraid, None),
    ):
        env = make()
        env.reset(seed=0)
        t0 = time.process_time()
        for _ in range(repeats):
            env.reset(seed=seed)
        out[name] = (time.process_time() - t0) / repeats
        env.close()
    return out


def bench_rollout(n_rollouts: int = 3) -> float:
    """CPU seconds per roll-out of the chapter's c = 0.3 privacy-aware student at paper settings
    (a run of ``n_rollouts + 1`` roll-outs minus a run of one: set-up costs cancel)."""
    config = {c["label"]: c for c in figure2_configs(GohariProfile.paper())}[AWARE]
    seed = np.random.SeedSequence(0)
    times = []
    for epochs in (1, n_rollouts + 1):
        t0 = time.process_time()
        run_agent({**config, "epochs": epochs}, seed)
        times.append(time.process_time() - t0)
    return (times[1] - times[0]) / n_rollouts


def main() -> dict:
    paths = _paths()
    envs = {name: make() for name, make in paths.items()}
    best = {name: (np.inf, np.inf) for name in envs}
    for r in range(REPEATS):
        for name, (env, pids) in envs.items():
            wall, cpu = _measure(env, pids, seed=r)
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    for env, _ in envs.values():
        env.close()
    rate = {
        name: {"rollouts_per_wall_s": ROLLOUTS / w, "rollouts_per_cpu_s": ROLLOUTS / c}
        for name, (w, c) in best.items()
    }
    base = rate["single_reload"]
    ratios = {
        name: {
            "wall": r["rollouts_per_wall_s"] / base["rollouts_per_wall_s"],
            "cpu": r["rollouts_per_cpu_s"] / base["rollouts_per_cpu_s"],
        }
        for name, r in rate.items()
    }
    emulator_cpu = 1.0 / rate["single"]["rollouts_per_cpu_s"]
    full_cpu = bench_rollout()
    out = {
        "env": "AirRaid-v0, RAM observations / 255, sticky actions 0.25, frame skip 2..4, cap 1,000",
        "interactions_per_rollout": STEPS,
        "rollouts_per_measurement": ROLLOUTS,
        "repeats": REPEATS,
        "cpus": os.cpu_count(),
        "load_average_1min_at_end": os.getloadavg()[0],
        "chosen_path": "single",
        "baseline_path": "single_reload",
        "rates": rate,
        "ratio_over_single_reload": ratios,
        "ratio_chosen_over_single_reload_wall": ratios["single"]["wall"],
        "ratio_chosen_over_single_reload_cpu": ratios["single"]["cpu"],
        "ale_vector_env": "image observations only (no RAM), fixed integer frame skip: not the paper's",
        **bench_reset(),
        "chapter_rollout_cpu_s": full_cpu,
        "emulator_cpu_s_per_rollout": emulator_cpu,
        "emulator_share_of_rollout": emulator_cpu / full_cpu,
        "max_speedup_from_a_free_emulator": full_cpu / (full_cpu - emulator_cpu),
    }
    return write_result("gohari2021_airraid.json", out)


if __name__ == "__main__":
    main()
