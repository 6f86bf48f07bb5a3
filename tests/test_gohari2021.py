"""The experiment module of Gohari et al. (2021): teachers, Lipschitz bounds, Figure 2's summaries,
and the paper profile's sweep on a Dask cluster (shortened)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from privrl.experiments import gohari2021 as exp


@pytest.fixture(scope="module")
def cartpole_teacher():
    return exp.load_teacher("cartpole")


def _f(teacher, eta, x):
    m = teacher.pi[-1].out_features
    with torch.no_grad():
        return (1 - m * eta) * torch.softmax(teacher.pi(torch.as_tensor(x)), -1) + eta


@pytest.mark.parametrize("env", ["cartpole", "airraid"])
def test_lipschitz_lower_bound_sits_between_slopes_and_certificate(env):
    teacher, meta = exp.load_teacher(env)
    eta = 0.1
    _, obs = exp.play(env, teacher, 1, rng=0)
    obs = obs[:: max(1, len(obs) // 300)]
    lower = exp.teacher_lipschitz_lower_bound(teacher, eta, obs)
    certified = exp.teacher_lipschitz(teacher, eta)
    assert 0 < lower <= certified
    # finite-difference slopes along random directions never exceed the largest Jacobian norm
    rng = np.random.default_rng(1)
    u = rng.normal(size=obs.shape).astype(np.float32)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    h = 1e-3
    slopes = np.linalg.norm(_f(teacher, eta, obs + h * u) - _f(teacher, eta, obs), axis=1) / h
    assert slopes.max() <= lower * 1.01


def test_lipschitz_lower_bound_rejects_wrong_shapes(cartpole_teacher):
    teacher, _ = cartpole_teacher
    with pytest.raises(ValueError, match="observations must have shape"):
        exp.teacher_lipschitz_lower_bound(teacher, 0.1, np.zeros((3, 5)))


def test_play_is_reproducible_and_the_cartpole_teacher_beats_random(cartpole_teacher):
    teacher, meta = cartpole_teacher
    r1, o1 = exp.play("cartpole", teacher, 3, rng=5)
    r2, o2 = exp.play("cartpole", teacher, 3, rng=5)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(o1, o2)
    rand, _ = exp.play("cartpole", None, 3, rng=5)
    assert r1.min() > 4 * rand.max()
    with pytest.raises(ValueError, match="n_episodes"):
        exp.play("cartpole", teacher, 0, rng=0)


def _synthetic_runs(final: dict[str, float], n_epochs: int = 30, n_seeds: int = 3) -> pd.DataFrame:
    """Curves that rise linearly to ``final`` + seed by 60% of the run, then stay flat
    (kickstarting rises twice as fast as the rest)."""
    rows = []
    for label, top in final.items():
        panel = {"PPO (64, 64)": "a", "PPO (32, 32)": "a", "kickstarting": "b"}.get(label, "c")
        rate = 2.0 if label == "kickstarting" else 1.0
        for seed in range(n_seeds):
            for e in range(n_epochs):
                ret = top * min(1.0, rate * (e + 1) / (0.6 * n_epochs)) + seed
                rows.append({"label": label, "panel": panel, "seed": seed, "epoch": e,
                             "env_steps": 100 * (e + 1), "avg_return": ret, "n_episodes": 1,
                             "method": "private" if "aware" in label else "ppo"})  # fmt: skip
    return pd.DataFrame(rows)


def test_figure2_claims_on_known_curves():
    final = {"PPO (64, 64)": 100.0, "PPO (32, 32)": 60.0, "kickstarting": 100.0,
             "aware, c = 0.3": 80.0, "unaware, c = 0.3": 40.0}  # fmt: skip
    out = exp.figure2_claims(_synthetic_runs(final), exp.PROFILES["quick"])
    assert out["final_median_return"]["PPO (32, 32)"] == pytest.approx(60.0 + 1.0)
    # threshold 0.5 * 101: PPO (64, 64) first reaches it after 900 steps, kickstarting after 500
    assert out["threshold"] == pytest.approx(50.5)
    assert out["speedup_kickstarting"] == pytest.approx(900 / 500)
    assert all(out["claims"].values())
    flipped = {**final, "aware, c = 0.3": 30.0}
    claims = exp.figure2_claims(_synthetic_runs(flipped), exp.PROFILES["quick"])["claims"]
    assert not claims["aware c=0.3 ends above unaware c=0.3"]
    assert not claims["aware c=0.3 ends above plain PPO (32, 32)"]


def test_curves_survive_the_summary_round_trip(tmp_path):
    import json

    from privrl.reporting import save_results

    runs = _synthetic_runs({"PPO (64, 64)": 100.0, "kickstarting": 50.0}, n_epochs=5)
    runs.loc[runs.epoch == 0, "avg_return"] = np.nan  # roll-outs that finish no episode
    curves = exp.figure2_curves(runs)
    _, path = save_results("demo", runs, {"curves": curves.to_dict("list")}, tmp_path)
    back = exp.curves_from_summary(json.loads(path.read_text()))
    pd.testing.assert_frame_equal(back, curves, check_dtype=False)


def test_figure2_curves_are_thinned_medians():
    runs = _synthetic_runs({"PPO (64, 64)": 100.0, "kickstarting": 50.0}, n_epochs=40)
    curves = exp.figure2_curves(runs, max_points=10)
    assert curves.groupby("label").size().max() <= 10
    row = curves[(curves.label == "PPO (64, 64)") & (curves.env_steps == 100)].iloc[0]
    expected = runs[(runs.label == "PPO (64, 64)") & (runs.env_steps == 100)].avg_return.median()
    assert row.center == pytest.approx(expected) and row.lower <= row.center <= row.upper


def test_airraid_teacher_is_the_paper_network():
    teacher, meta = exp.load_teacher("airraid")
    assert tuple(np.atleast_1d(meta["hidden_sizes"])) == (64, 64)
    assert (int(meta["obs_dim"]), int(meta["n_actions"])) == (128, 6)
    assert int(meta["epochs"]) * int(meta["steps_per_epoch"]) >= 1_000_000
    assert 0 <= int(meta["kept_epoch"]) < int(meta["epochs"])


def test_paper_profile_gives_the_papers_guarantee_with_the_committed_teacher():
    """(tau, b) of the paper profile and the teacher's certified L give Theorem 1's (4.46, 0.05)
    at k0 = 5 (fails if the teacher is retrained without recalibrating b)."""
    from privrl.accounting.dirichlet import theorem1_delta_mc, theorem1_epsilon

    cfg = exp.PROFILES["paper"]
    teacher, _ = exp.load_teacher("airraid")
    lipschitz = exp.teacher_lipschitz(teacher, cfg["eta"])
    eps = theorem1_epsilon(cfg["k0"], 6, cfg["eta"], cfg["tau"], lipschitz, cfg["b"])
    dlt = theorem1_delta_mc(cfg["k0"], 6, cfg["eta"], cfg["tau"], rng=0, n_samples=200_000)
    assert eps == pytest.approx(4.46, abs=0.01)
    assert dlt.estimate == pytest.approx(0.05, abs=0.003)  # 4 standard errors


@pytest.mark.slow
def test_paper_profile_sweep_on_a_dask_cluster_shortened(monkeypatch):
    """The paper profile (AirRaid, private kickstarting from the committed teacher) cut to two
    short roll-outs: the same tidy table on a Dask LocalCluster as in-process."""
    distributed = pytest.importorskip("distributed")
    config = {**exp.PROFILES["paper"], "epochs": 2, "steps_per_epoch": 200, "n_runs": 2}
    configs = [c for c in exp.figure2_configs(config)
               if c["label"] in ("PPO (32, 32)", "aware, c = 0.3")]  # fmt: skip
    serial = exp.run_figure2(config, root_seed=4, executor="serial", configs=configs)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = exp.run_figure2(config, root_seed=4, scheduler=cluster.scheduler_address,
                               configs=configs)  # fmt: skip
    assert set(dask["label"]) == {"PPO (32, 32)", "aware, c = 0.3"}
    assert dask["env_steps"].max() == 400 and dask["epsilon_query"].notna().any()
    pd.testing.assert_frame_equal(serial.drop(columns="wall_time"), dask.drop(columns="wall_time"))


def test_smoothed_returns_weight_episodes_and_skip_empty_rollouts():
    runs = pd.DataFrame({"label": "x", "seed": 0, "epoch": range(4),
                         "avg_return": [10.0, np.nan, 40.0, 20.0], "n_episodes": [1, 0, 3, 1]})  # fmt: skip
    got = exp.smoothed_returns(runs, 2)["avg_return"].to_numpy()
    np.testing.assert_allclose(got, [10.0, 10.0, 40.0, (120.0 + 20.0) / 4])
    assert exp.smoothed_returns(runs, 1) is runs
    with pytest.raises(ValueError, match="window"):
        exp.smoothed_returns(runs, 0)


def test_best_checkpoint_keeps_the_policy_of_the_best_window():
    from privrl.algorithms.ppo import ActorCritic

    agent = ActorCritic(3, 2, (4,))
    best = exp.BestCheckpoint(window=2)
    returns = [(10.0, 1), (np.nan, 0), (30.0, 2), (20.0, 1), (5.0, 1)]  # windows: 10, 30, 80/3, 12.5
    snapshots = []
    for epoch, (ret, n) in enumerate(returns):
        with torch.no_grad():
            agent.pi[0].weight.fill_(float(epoch))
        snapshots.append(agent.pi[0].weight.detach().clone())
        best(agent, {"epoch": epoch, "avg_return": ret, "n_episodes": n})
    assert best.best_epoch == 2 and best.best_return == pytest.approx(30.0)
    torch.testing.assert_close(best.state["0.weight"], snapshots[2])


def test_ppo_calls_back_once_per_epoch():
    import gymnasium as gym

    from privrl.algorithms.ppo import PPOConfig, train_ppo

    seen = []
    cfg = PPOConfig(hidden_sizes=(8,), steps_per_epoch=40, n_envs=2, train_pi_iters=2, train_v_iters=2)
    _, log = train_ppo(lambda: gym.make("CartPole-v1"), 3, 0, cfg,
                       callback=lambda agent, row: seen.append(row["epoch"]))  # fmt: skip
    assert seen == [0, 1, 2] == log["epoch"].tolist()
