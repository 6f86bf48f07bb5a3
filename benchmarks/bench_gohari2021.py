"""PPO throughput: privrl's PPO against stable-baselines3's PPO on CartPole-v1, ratios from one run.

Same network (separate (64, 64) tanh MLPs for policy and value), same roll-out (4 environments x
500 steps = 2,000 interactions per update), same number of full-batch update iterations (80; SB3:
``n_epochs=80`` with ``batch_size`` = the roll-out), early stopping on KL disabled in both (so both
do the same work), one torch thread each. Prints environment steps per second (roll-out plus
update, wall time; the best of ``REPEATS`` alternating runs of each, so that a busy moment on the
machine does not decide the ratio) and the ratio; writes ``benchmarks/results/bench_gohari2021.json``.

Run: ``.venv/bin/python benchmarks/bench_gohari2021.py``
"""

from __future__ import annotations

import time

import gymnasium as gym
import torch
from _timing import write_result

from privrl.core.algorithms.ppo import PPOConfig, train_ppo

N_ENVS, N_STEPS, ITERS, EPOCHS, REPEATS = 4, 500, 80, 5, 3


def bench_privrl() -> float:
    cfg = PPOConfig(
        hidden_sizes=(64, 64),
        steps_per_epoch=N_ENVS * N_STEPS,
        n_envs=N_ENVS,
        train_pi_iters=ITERS,
        train_v_iters=ITERS,
        target_kl=1e9,
    )
    t0 = time.perf_counter()
    train_ppo(lambda: gym.make("CartPole-v1"), EPOCHS, 0, cfg)
    return EPOCHS * N_ENVS * N_STEPS / (time.perf_counter() - t0)


def bench_sb3() -> float:
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    env = make_vec_env("CartPole-v1", n_envs=N_ENVS, seed=0)
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=N_STEPS,
        batch_size=N_ENVS * N_STEPS,
        n_epochs=ITERS,
        gamma=0.99,
        gae_lambda=0.97,
        learning_rate=3e-4,
        target_kl=None,
        policy_kwargs={
            "net_arch": {"pi": [64, 64], "vf": [64, 64]},
            "activation_fn": torch.nn.Tanh,
        },
        seed=0,
        device="cpu",
        verbose=0,
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=EPOCHS * N_ENVS * N_STEPS)
    return EPOCHS * N_ENVS * N_STEPS / (time.perf_counter() - t0)


def main() -> dict:
    torch.set_num_threads(1)
    ours, sb3 = 0.0, 0.0
    for _ in range(REPEATS):
        ours = max(ours, bench_privrl())
        sb3 = max(sb3, bench_sb3())
    out = {
        "env": "CartPole-v1",
        "interactions": EPOCHS * N_ENVS * N_STEPS,
        "repeats": REPEATS,
        "privrl_steps_per_s": ours,
        "sb3_steps_per_s": sb3,
        "ratio_privrl_over_sb3": ours / sb3,
    }
    return write_result("bench_gohari2021.json", out)


if __name__ == "__main__":
    main()
