"""Gohari et al. (2021): experiments of Figure 2 and the supplement's sweeps.

Profiles: ``quick`` (CartPole-v1, 6,000 interactions per run, 40 + 40 update iterations, 3 seeds, a (64, 64) teacher shipped in
``privrl/data/gohari2021/``) and ``paper`` (AirRaid RAM, 4 million interactions = 4,000 roll-outs of
1,000, 30 seeds, supplement sweeps; cluster scale: run it through :func:`privrl.sweep.run_sweep`
with ``scheduler=`` a Dask address).

Train the teachers (weights are committed; the command regenerates them)::

    python -m privrl.experiments.gohari2021 train-teacher --env cartpole --epochs 40
    python -m privrl.experiments.gohari2021 train-teacher --env airraid --epochs 600

A run (:func:`run_agent`) is PPO with a ``hidden`` x ``hidden`` student, optionally kickstarted
(``method``: ``ppo`` | ``kickstart`` (exact teacher, lambda 0) | ``private`` (Dirichlet mechanism)),
and returns one row per roll-out with the average return and the teacher's per-query privacy.
"""

from __future__ import annotations

import argparse
import functools
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from privrl.accounting.dirichlet import mlp_lipschitz_bound, teacher_budget
from privrl.algorithms.kickstarting import Kickstarter
from privrl.algorithms.ppo import ActorCritic, PPOConfig, train_ppo
from privrl.envs.atari import make_env
from privrl.rng import SeedLike, as_generator
from privrl.sweep import run_sweep

DATA = "gohari2021"

_COMMON = {
    "k0": 5.0,
    "lam": 0.5,
    "beta": 0.05,
    "eta": 0.1,
    "k_min": 0.1,
    "radius": "printed",
    "teacher_hidden": 64,
    "student_hidden": 32,
    "gamma": 0.99,
    "gae_lambda": 0.97,
    "train_pi_iters": 80,
    "train_v_iters": 80,
}

PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        **_COMMON,
        "env": "cartpole",
        "epochs": 12,
        "steps_per_epoch": 500,
        "n_envs": 4,
        "n_runs": 3,
        # tau: delta of eq. (6) is 0.05 at k0 = 5, m = 2, eta = 0.1 (tau_for_delta); b: adjacency
        "tau": 4.8e-4,
        "b": 0.01,
        "aware_coefficients": (0.1, 0.3),
        "unaware_coefficients": (0.3, 0.9),
        "supplement": False,
        "lambdas": (0.1, 0.5, 1.0, 2.0),
        "coefficients": (0.1, 0.3, 0.5, 0.7, 0.9),
        # cut from Spinning Up's 80 + 80 so that the chapter runs in CI's time budget
        "train_pi_iters": 40,
        "train_v_iters": 40,
    },
    "paper": {
        **_COMMON,
        "env": "airraid",
        "epochs": 4000,
        "steps_per_epoch": 1000,
        "n_envs": 4,
        "n_runs": 30,
        # tau: delta of eq. (6) is 0.05 at k0 = 5, m = 6, eta = 0.1; b with the certified L
        "tau": 1.86e-5,
        "b": 0.01,
        "aware_coefficients": (0.1, 0.3),
        "unaware_coefficients": (0.3, 0.9),
        "supplement": True,
        "lambdas": (0.1, 0.5, 1.0, 2.0),
        "coefficients": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    },
}

_RUN_KEYS = (
    "env", "epochs", "steps_per_epoch", "n_envs", "gamma", "gae_lambda", "train_pi_iters",
    "train_v_iters", "k0", "lam", "beta", "eta", "k_min", "radius", "tau", "b", "teacher_hidden",
)  # fmt: skip


def teacher_path(env: str) -> Path:
    """Where the committed teacher of ``env`` lives."""
    return Path(str(resources.files("privrl") / "data" / DATA / f"{env}_teacher.npz"))


def save_agent(agent: ActorCritic, path: Path, **meta: Any) -> None:
    """Save the policy network (weights and biases) and metadata to a small ``.npz``."""
    arrays = {f"pi.{k}": v.numpy() for k, v in agent.pi.state_dict().items()}
    arrays |= {f"meta.{k}": np.asarray(v) for k, v in meta.items()}
    np.savez_compressed(path, **arrays)


def load_teacher(env: str) -> tuple[ActorCritic, dict[str, Any]]:
    """The committed teacher of ``env`` (policy network only) and its metadata."""
    path = teacher_path(env)
    if not path.exists():
        raise ValueError(
            f"no teacher for env {env!r} at {path}; train one with "
            f"`python -m privrl.experiments.gohari2021 train-teacher --env {env}`"
        )
    with np.load(path) as z:
        meta = {k[5:]: z[k].item() if z[k].ndim == 0 else z[k] for k in z.files if k[:5] == "meta."}
        state = {k[3:]: torch.as_tensor(z[k]) for k in z.files if k[:3] == "pi."}
    hidden = tuple(int(h) for h in np.atleast_1d(meta["hidden_sizes"]))
    agent = ActorCritic(int(meta["obs_dim"]), int(meta["n_actions"]), hidden)
    agent.pi.load_state_dict(state)
    return agent, meta


def teacher_lipschitz(teacher: ActorCritic, eta: float) -> float:
    r"""Certified L of :math:`f = (1 - m\eta)\,\mathrm{softmax}(\text{net}) + \eta`: tanh (1), softmax
    (1/2), product of spectral norms, times :math:`1 - m\eta`."""
    m = int(teacher.pi[-1].out_features)
    return (1.0 - m * eta) * mlp_lipschitz_bound(teacher.policy_weights())


def _ppo_config(config: dict[str, Any], hidden: int) -> PPOConfig:
    return PPOConfig(
        hidden_sizes=(int(hidden), int(hidden)),
        steps_per_epoch=int(config["steps_per_epoch"]),
        n_envs=int(config["n_envs"]),
        gamma=float(config["gamma"]),
        gae_lambda=float(config["gae_lambda"]),
        train_pi_iters=int(config["train_pi_iters"]),
        train_v_iters=int(config["train_v_iters"]),
    )


def run_agent(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One learning curve. ``config``: the profile's run keys plus ``method`` (``ppo``,
    ``kickstart``, ``private``), ``hidden`` (student width) and, for ``private``,
    ``coefficient``. Returns one row per roll-out."""
    rng = as_generator(seed)
    env_fn = functools.partial(make_env, config["env"])
    aux = None
    if config["method"] != "ppo":
        teacher, _ = load_teacher(config["env"])
        private = config["method"] == "private"
        aux = Kickstarter(
            teacher,
            rng,
            private=private,
            k0=config["k0"],
            coefficient=config.get("coefficient", 1.0),
            lam=config["lam"] if private else 0.0,
            beta=config["beta"],
            radius=config["radius"],
            eta=config["eta"],
            tau=config["tau"],
            lipschitz=teacher_lipschitz(teacher, config["eta"]),
            b=config["b"],
            k_min=config["k_min"],
        )
    _, log = train_ppo(
        env_fn, int(config["epochs"]), rng, _ppo_config(config, config["hidden"]), aux
    )
    return log


def figure2_configs(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Runs of Figure 2 (panels a-d) and, if ``config["supplement"]``, the supplement's sweeps."""
    base = {k: config[k] for k in _RUN_KEYS}
    s, t = config["student_hidden"], config["teacher_hidden"]
    runs = [
        {**base, "panel": "a", "method": "ppo", "hidden": t, "label": f"PPO ({t}, {t})"},
        {**base, "panel": "a", "method": "ppo", "hidden": s, "label": f"PPO ({s}, {s})"},
        {**base, "panel": "b", "method": "kickstart", "hidden": s, "label": "kickstarting"},
    ]
    for c in config["aware_coefficients"]:
        runs.append({**base, "panel": "c", "method": "private", "hidden": s, "coefficient": c,
                     "label": f"aware, c = {c}"})  # fmt: skip
    for c in config["unaware_coefficients"]:
        runs.append({**base, "panel": "d", "method": "private", "hidden": s, "coefficient": c,
                     "lam": 0.0, "label": f"unaware, c = {c}"})  # fmt: skip
    if config["supplement"]:
        for lam in config["lambdas"]:
            runs.append({**base, "panel": "lambda", "method": "private", "hidden": s,
                         "coefficient": 0.3, "lam": lam, "label": f"lambda = {lam}"})  # fmt: skip
        for c in config["coefficients"]:
            runs.append({**base, "panel": "coefficient", "method": "private", "hidden": s,
                         "coefficient": c, "label": f"c = {c}"})  # fmt: skip
    return runs


def run_figure2(
    config: dict[str, Any],
    root_seed: int = 0,
    cache_dir: str | Path | None = None,
    executor: Any = None,
    scheduler: Any = None,
    progress: bool = False,
    configs: list[dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """All runs of :func:`figure2_configs` over ``n_runs`` seeds (tidy: one row per roll-out)."""
    return run_sweep(
        run_agent,
        configs if configs is not None else figure2_configs(config),
        n_seeds=int(config["n_runs"]),
        root_seed=root_seed,
        cache_dir=cache_dir,
        executor=executor,
        scheduler=scheduler,
        progress=progress,
        desc="gohari2021 runs",
    )


def privacy_spent(run: pd.DataFrame, steps_per_epoch: int, delta_slack: float = 1e-5) -> dict:
    """The teacher's total privacy over one run: every visited state is one query at that roll-out's
    per-query (epsilon, delta); basic and advanced composition (:func:`teacher_budget`)."""
    eps = np.repeat(run["epsilon_query"].to_numpy(float), steps_per_epoch)
    dlt = np.repeat(run["delta_query"].to_numpy(float), steps_per_epoch)
    return teacher_budget(eps, dlt, delta_slack)


def train_teacher(
    env: str, epochs: int, rng: SeedLike, hidden: int = 64, steps_per_epoch: int = 1000,
    progress: bool = True,
) -> pd.DataFrame:  # fmt: skip
    """Train a (hidden, hidden) PPO teacher on ``env`` and save it to :func:`teacher_path`."""
    cfg = {**PROFILES["quick"], "steps_per_epoch": steps_per_epoch}
    agent, log = train_ppo(
        functools.partial(make_env, env), epochs, rng, _ppo_config(cfg, hidden), progress=progress
    )
    probe = make_env(env)
    save_agent(
        agent,
        teacher_path(env),
        hidden_sizes=np.array([hidden, hidden]),
        obs_dim=int(math.prod(probe.observation_space.shape)),
        n_actions=int(probe.action_space.n),
        env=env,
        epochs=epochs,
        steps_per_epoch=steps_per_epoch,
        final_avg_return=float(log["avg_return"].tail(5).mean()),
    )
    return log


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m privrl.experiments.gohari2021")
    sub = parser.add_subparsers(dest="command", required=True)
    tt = sub.add_parser("train-teacher", help="train and save the (64, 64) PPO teacher")
    tt.add_argument("--env", choices=["cartpole", "airraid"], default="cartpole")
    tt.add_argument("--epochs", type=int, default=40)
    tt.add_argument("--steps-per-epoch", type=int, default=1000)
    tt.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    log = train_teacher(args.env, args.epochs, args.seed, steps_per_epoch=args.steps_per_epoch)
    print(log[["epoch", "env_steps", "avg_return", "wall_time"]].to_string(index=False))
    print(f"saved {teacher_path(args.env)}")


if __name__ == "__main__":
    main()
