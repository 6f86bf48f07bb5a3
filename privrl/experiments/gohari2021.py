"""Gohari et al. (2021): experiments of Figure 2 and the supplement's sweeps.

Profiles: ``quick`` (CartPole-v1, 12,000 interactions per run, Spinning Up's 80 + 80 update iterations, 3 seeds, a (64, 64) teacher shipped in
``privrl/data/gohari2021/``) and ``paper`` (AirRaid RAM, 4 million interactions = 4,000 roll-outs of
1,000, 30 seeds, supplement sweeps; cluster scale: run it through :func:`privrl.sweep.run_sweep`
with ``scheduler=`` a Dask address).

Train the teachers (weights are committed; the command regenerates them)::

    python -m privrl.experiments.gohari2021 train-teacher --env cartpole --epochs 40
    python -m privrl.experiments.gohari2021 train-teacher --env airraid --epochs 2500

A run (:func:`run_agent`) is PPO with a ``hidden`` x ``hidden`` student, optionally kickstarted
(``method``: ``ppo`` | ``kickstart`` (exact teacher, lambda 0) | ``private`` (Dirichlet mechanism)),
and returns one row per roll-out with the average return and the teacher's per-query privacy.
"""

from __future__ import annotations

import argparse
import functools
import math
from collections import deque
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
from privrl.plotting import new_figure, plot_bands, summarise
from privrl.rng import SeedLike, as_generator
from privrl.sweep import run_sweep
from privrl.validation import check_choice, check_int

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
    "n_envs": 4,
    "aware_coefficients": (0.1, 0.3),
    "unaware_coefficients": (0.3, 0.9),
    "lambdas": (0.1, 0.5, 1.0, 2.0),
}

PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        **_COMMON,
        "env": "cartpole",
        "epochs": 24,
        "steps_per_epoch": 500,
        "n_runs": 3,
        # tau: delta of eq. (6) is 0.05 at k0 = 5, m = 2, eta = 0.1 (tau_for_delta); b: adjacency
        "tau": 4.8e-4,
        "b": 0.01,
        "supplement": False,
        "coefficients": (0.1, 0.3, 0.5, 0.7, 0.9),
    },
    "paper": {
        **_COMMON,
        "env": "airraid",
        "epochs": 4000,
        "steps_per_epoch": 1000,
        "n_runs": 30,
        # tau: delta of eq. (6) is 0.05 at k0 = 5, m = 6, eta = 0.1; b: with the committed
        # teacher's certified L, Theorem 1 gives the paper's epsilon = 4.46 at k0 (L * b = 0.0153)
        "tau": 1.88e-5,
        "b": 1.05e-4,
        "supplement": True,
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


def teacher_lipschitz_lower_bound(
    teacher: ActorCritic, eta: float, observations: np.ndarray
) -> float:
    r"""Largest spectral norm of the Jacobian of :math:`f = (1 - m\eta)\,\mathrm{softmax}(\text{net})
    + \eta` over ``observations`` (n, d): a *lower* bound on the Lipschitz constant (no local slope
    exceeds it), to show how loose the certified bound of :func:`teacher_lipschitz` is."""
    x = torch.as_tensor(np.asarray(observations, dtype=np.float32))
    if x.ndim != 2 or x.shape[1] != teacher.pi[0].in_features or len(x) == 0:
        raise ValueError(
            f"observations must have shape (n, {teacher.pi[0].in_features}), got {tuple(x.shape)}"
        )
    m = int(teacher.pi[-1].out_features)

    def f(obs: torch.Tensor) -> torch.Tensor:
        return (1.0 - m * eta) * torch.softmax(teacher.pi(obs), dim=-1) + eta

    jac = torch.func.vmap(torch.func.jacrev(f))(x)
    return float(torch.linalg.matrix_norm(jac.detach(), ord=2).max())


def play(
    env: str, agent: ActorCritic | None, n_episodes: int, rng: SeedLike
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n_episodes`` full episodes of ``env`` with the agent's stochastic policy (``None``:
    uniformly random actions). Returns the episodes' returns and every observation seen."""
    n_episodes = check_int(n_episodes, "n_episodes", minimum=1)
    rng = as_generator(rng)
    e = make_env(env)
    returns, seen = [], []
    for _ in range(n_episodes):
        obs, _ = e.reset(seed=int(rng.integers(2**31)))
        total, done = 0.0, False
        while not done:
            seen.append(np.asarray(obs, dtype=np.float32).ravel())
            if agent is None:
                action = int(rng.integers(e.action_space.n))
            else:
                with torch.no_grad():
                    p = agent.probs(torch.as_tensor(seen[-1])).numpy().astype(float)
                action = int(rng.choice(len(p), p=p / p.sum()))
            obs, reward, term, trunc, _ = e.step(action)
            total += float(reward)
            done = term or trunc
        returns.append(total)
    e.close()
    return np.asarray(returns), np.stack(seen)


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


def with_union_radius(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``configs`` plus the privacy-aware c = 0.3 student with the union-bound radius of Lemma 1
    (the corrected radius, see the chapter's erratum) as panel ``radius``."""
    aware = next(c for c in configs if c["panel"] == "c" and c["coefficient"] == 0.3)
    union = {**aware, "panel": "radius", "radius": "union", "label": "aware, c = 0.3, union radius"}
    return [*configs, union]


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


PANELS = (
    ("a", "(a) teacher vs student size"),
    ("b", "(b) kickstarting, no privacy"),
    ("c", "(c) privacy-aware"),
    ("d", "(d) privacy-unaware"),
    ("radius", "aware c = 0.3: printed vs union radius"),
)


def teacher_spent(runs: pd.DataFrame, steps_per_epoch: int) -> dict[str, dict | None]:
    """Per label: the teacher's total privacy (:func:`privacy_spent`), the largest over seeds;
    ``None`` for runs without the Dirichlet mechanism."""
    out: dict[str, dict | None] = {}
    for label, sub in runs.groupby("label", sort=False):
        if sub["method"].iloc[0] != "private":
            out[str(label)] = None
            continue
        totals = [privacy_spent(g, steps_per_epoch) for _, g in sub.groupby("seed")]
        out[str(label)] = {k: max(t[k] for t in totals) for k in totals[0]}
    return out


CURVE_COLUMNS = ("panel", "label", "env_steps", "center", "lower", "upper", "count")


def smoothed_returns(runs: pd.DataFrame, window: int) -> pd.DataFrame:
    """``runs`` with ``avg_return`` replaced, per run (label, seed), by the average return of the
    episodes finished in the last ``window`` roll-outs (episode-weighted; NaN if none finished)."""
    window = check_int(window, "window", minimum=1)
    if window == 1:
        return runs
    runs = runs.sort_values(["label", "seed", "epoch"])
    total = runs["avg_return"].fillna(0.0) * runs["n_episodes"]
    keys = [runs["label"], runs["seed"]]

    def rolling_sum(x: pd.Series) -> pd.Series:
        return x.groupby(keys).transform(lambda c: c.rolling(window, min_periods=1).sum())

    episodes = rolling_sum(runs["n_episodes"])
    return runs.assign(avg_return=rolling_sum(total) / episodes.where(episodes > 0))


def figure2_curves(
    runs: pd.DataFrame, max_points: int = 250, window: int | None = None
) -> pd.DataFrame:
    """Point-wise median and 15-85% band of the average return over seeds, per panel and label,
    thinned to at most ``max_points`` roll-outs per curve (small enough to record). Each run's
    returns are first averaged over ``window`` roll-outs (:func:`smoothed_returns`; default one
    hundredth of the run, so 1 in the quick profile: with roll-outs of 1,000 interactions most
    AirRaid roll-outs finish no episode or one)."""
    if window is None:
        window = max(1, (int(runs["epoch"].max()) + 1) // 100)
    curves = summarise(
        smoothed_returns(runs, window), "env_steps", "avg_return", by=["panel", "label"],
        err="quantile", center="median",
    )  # fmt: skip
    steps = np.sort(curves["env_steps"].unique())
    keep = steps[:: max(1, math.ceil(len(steps) / max_points))]
    return curves[curves["env_steps"].isin(keep)][list(CURVE_COLUMNS)].reset_index(drop=True)


def curves_from_summary(summary: dict[str, Any]) -> pd.DataFrame:
    """The Figure 2 curves stored in a run's summary (``summary["curves"]``, column lists as
    :func:`privrl.reporting.save_results` writes them: non-finite numbers become strings)."""
    curves = pd.DataFrame(summary["curves"])[list(CURVE_COLUMNS)]
    for col in CURVE_COLUMNS[2:]:
        curves[col] = pd.to_numeric(curves[col], errors="coerce")
    return curves


def panel_labels(curves: pd.DataFrame, panel: str, student_label: str) -> list[str]:
    """The curves drawn in ``panel``: its own, with the student-sized plain PPO in (b)-(d), and
    the printed-radius student beside the union-radius one."""
    own = list(curves.loc[curves["panel"] == panel, "label"].unique())
    if panel in ("b", "c", "d"):
        return [student_label, *own]
    if panel == "radius":
        return ["aware, c = 0.3", *own]
    return own


def figure2_titles(
    budget: dict[str, dict | None],
    curves: pd.DataFrame,
    lam: float,
    panels: tuple[tuple[str, str], ...] = PANELS,
) -> dict[str, str]:
    """Panel titles (``panels``: (panel, text) pairs, Figure 2's by default) stating the
    teacher's total privacy spent (basic composition)."""
    titles = {}
    for panel, text in panels:
        if panel == "c":
            text += f", lambda = {lam}"
        own = curves.loc[curves["panel"] == panel, "label"].unique()
        spent = [(lab, budget[lab]) for lab in own if budget.get(lab)]
        if not spent:
            extra = "teacher: no privacy (epsilon = inf)" if panel == "b" else "no teacher"
        else:
            extra = "teacher spent (eps, delta): " + "; ".join(
                f"{lab.split(', ')[-1] if ', ' in lab else lab}: "
                f"({b['basic_epsilon']:.0f}, {b['basic_delta']:.2f})"
                for lab, b in spent
            )
        titles[panel] = f"{text}\n{extra}"
    return titles


def plot_figure2(curves: pd.DataFrame, titles: dict[str, str], student_hidden: int):
    """Figure 2 (a)-(d) and the radius comparison from :func:`figure2_curves` (live or recorded)."""
    student = f"PPO ({student_hidden}, {student_hidden})"
    fig, axes = new_figure(2, 3, width=4.6, height=3.6)
    for ax, (panel, _) in zip(axes.flat, PANELS, strict=False):
        labels = panel_labels(curves, panel, student)
        sub = curves[curves["label"].isin(labels)]
        sub = sub.assign(label=pd.Categorical(sub["label"], labels, ordered=True)).sort_values(
            ["label", "env_steps"]
        )
        plot_bands(ax, sub, "env_steps", hue="label")
        ax.set(ylabel="average return", title=titles[panel])
        ax.title.set_fontsize(7)
        ax.legend(fontsize=6)
    axes.flat[-1].axis("off")
    fig.tight_layout()
    return fig


def figure2_claims(runs: pd.DataFrame, config: dict[str, Any]) -> dict[str, Any]:
    """The paper's claims, checked on the runs: final return (median over seeds of each run's mean
    over its last tenth of roll-outs, at least three), and the kickstarting speed-up (env steps the
    smoothed median curve of the teacher-sized PPO needs to reach half its best, over the steps the
    kickstarted student needs)."""
    s, t = config["student_hidden"], config["teacher_hidden"]
    big, small = f"PPO ({t}, {t})", f"PPO ({s}, {s})"
    n_epochs = int(runs["epoch"].max()) + 1
    last = runs[runs["epoch"] >= n_epochs - max(3, n_epochs // 10)]
    final = last.groupby(["label", "seed"])["avg_return"].mean().groupby("label").median()
    window = max(1, n_epochs // 50)
    med = (
        runs.groupby(["label", "env_steps"])["avg_return"].median()
        .groupby(level="label", group_keys=False)
        .apply(lambda c: c.rolling(window, min_periods=1).mean())
        .reset_index()
    )  # fmt: skip
    threshold = 0.5 * float(med.loc[med["label"] == big, "avg_return"].max())

    def first_reach(label: str) -> float:
        g = med[(med["label"] == label) & (med["avg_return"] >= threshold)]
        return float(g["env_steps"].min()) if len(g) else float("inf")

    speedup = first_reach(big) / first_reach("kickstarting")
    checks = {
        f"kickstarting reaches the threshold faster than {big}": speedup > 1,
        "aware c=0.3 ends above unaware c=0.3": final["aware, c = 0.3"] > final["unaware, c = 0.3"],
        f"unaware c=0.3 (budget spent) ends below plain {small}": final["unaware, c = 0.3"]
        < final[small],
        f"aware c=0.3 ends above plain {small}": final["aware, c = 0.3"] > final[small],
        f"{small} ends below {big}": final[small] < final[big],
    }
    return {
        "final_median_return": {str(k): float(v) for k, v in final.items()},
        "threshold": threshold,
        "speedup_kickstarting": speedup,
        "claims": {k: bool(v) for k, v in checks.items()},
    }


class BestCheckpoint:
    """PPO callback keeping the policy whose average return over the episodes finished in the last
    ``window`` roll-outs is the highest so far (from roll-out ``window`` on)."""

    def __init__(self, window: int = 100) -> None:
        self.window = check_int(window, "window", minimum=1)
        self.recent: deque[tuple[float, int]] = deque(maxlen=self.window)
        self.best_return = -math.inf
        self.best_epoch = -1
        self.state: dict[str, torch.Tensor] | None = None

    def __call__(self, agent: ActorCritic, row: dict[str, Any]) -> None:
        n = int(row["n_episodes"])
        self.recent.append((float(row["avg_return"]) * n if n else 0.0, n))
        episodes = sum(c for _, c in self.recent)
        if len(self.recent) < self.window or episodes == 0:
            return
        mean = sum(t for t, _ in self.recent) / episodes
        if mean > self.best_return:
            self.best_return, self.best_epoch = mean, int(row["epoch"])
            self.state = {k: v.detach().clone() for k, v in agent.pi.state_dict().items()}


def train_teacher(
    env: str, epochs: int, rng: SeedLike, hidden: int = 64, steps_per_epoch: int = 1000,
    keep: str = "best", window: int = 100, progress: bool = True,
) -> pd.DataFrame:  # fmt: skip
    """Train a (hidden, hidden) PPO teacher on ``env`` and save it to :func:`teacher_path`.

    ``keep="best"`` saves the policy of the best ``window``-roll-out average return seen in
    training (:class:`BestCheckpoint`; PPO with Spinning Up's constant learning rates can fall off
    after its peak), ``"last"`` the final one. The learning curve is saved with it."""
    check_choice(keep, "keep", ("best", "last"))
    cfg = {**PROFILES["quick"], "steps_per_epoch": steps_per_epoch}
    best = BestCheckpoint(window)
    agent, log = train_ppo(
        functools.partial(make_env, env), epochs, rng, _ppo_config(cfg, hidden),
        progress=progress, callback=best,
    )  # fmt: skip
    kept_epoch = epochs - 1
    if keep == "best" and best.state is not None:
        agent.pi.load_state_dict(best.state)
        kept_epoch = best.best_epoch
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
        keep=keep,
        kept_epoch=kept_epoch,
        kept_window_return=best.best_return if keep == "best" else math.nan,
        train_seconds=float(log["wall_time"].iloc[-1]),
        final_avg_return=float(log["avg_return"].tail(window).mean()),
        curve_env_steps=log["env_steps"].to_numpy(np.int64),
        curve_avg_return=log["avg_return"].to_numpy(np.float32),
        curve_n_episodes=log["n_episodes"].to_numpy(np.int32),
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
    tt.add_argument("--keep", choices=["best", "last"], default="best",
                    help="save the best checkpoint (100-roll-out average return) or the last")  # fmt: skip
    args = parser.parse_args(argv)
    log = train_teacher(
        args.env, args.epochs, args.seed, steps_per_epoch=args.steps_per_epoch, keep=args.keep
    )
    print(log[["epoch", "env_steps", "avg_return", "wall_time"]].to_string(index=False))
    print(f"saved {teacher_path(args.env)}")


if __name__ == "__main__":
    main()
