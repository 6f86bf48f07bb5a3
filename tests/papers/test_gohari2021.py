"""The experiment module of Gohari et al. (2021): teachers, Lipschitz bounds, Figure 2's summaries,
and the paper profile's sweep on a Dask cluster (shortened)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from privrl.papers.gohari2021 import chapter as exp
from privrl.papers.gohari2021 import teacher as teach


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


def _ramp_runs(crossings: dict[str, list[float | None]], n_epochs: int = 20) -> pd.DataFrame:
    """Step curves: return 0, then 10 from roll-out ``c`` on (``None``: never, censored)."""
    rows = []
    for label, per_seed in crossings.items():
        for seed, c in enumerate(per_seed):
            for e in range(n_epochs):
                rows.append({"label": label, "seed": seed, "epoch": e, "env_steps": 100 * (e + 1),
                             "avg_return": 10.0 if c is not None and e >= c else 0.0,
                             "n_episodes": 1})  # fmt: skip
    return pd.DataFrame(rows)


def test_time_to_threshold_known_crossings_and_censoring():
    runs = _ramp_runs({"base": [4, 9, None], "fast": [1, 2, 3]})
    t = exp.time_to_threshold(runs, 5.0, window=1).set_index(["label", "seed"])
    assert t.loc[("base", 0), "steps"] == 500 and t.loc[("base", 1), "steps"] == 1000
    assert t.loc[("base", 2), "censored"] and t.loc[("base", 2), "steps"] == 2000  # the budget
    assert list(t.loc["fast", "steps"]) == [200, 300, 400] and not t.loc["fast", "censored"].any()
    # the rolling mean over 2 roll-outs reaches 7.5 one roll-out after the step: (0 + 10) / 2 < 7.5
    t2 = exp.time_to_threshold(runs, 7.5, window=2).set_index(["label", "seed"])
    assert t2.loc[("fast", 0), "steps"] == 300


def test_speedup_ratio_of_medians_with_censored_runs():
    runs = _ramp_runs({"base": [4, 9, None, 7, 5], "fast": [1, 2, 3, 1, 2]})
    t = exp.time_to_threshold(runs, 5.0, window=1)
    s = exp.speedup(t, "base", "fast")
    # medians: base (500, 1000, 2000 censored, 800, 600) -> 800; fast (200, 300, 400, 200, 300) -> 300
    assert s["ratio"] == pytest.approx(800 / 300)
    assert s["censored_baseline"] == 1 and s["censored_treated"] == 0 and s["n"] == 5
    assert s["lower"] <= s["ratio"] <= s["upper"]
    claim = exp.decide_speedup("k", "fast is faster", s)
    assert claim.verdict == "reproduced" and claim.interval[0] > 1
    slower = exp.decide_speedup("k", "base is faster", exp.speedup(t, "fast", "base"))
    assert slower.verdict == "not reproduced"
    few = exp.speedup(exp.time_to_threshold(_ramp_runs({"b": [4, 5], "f": [1, 2]}), 5.0, 1), "b", "f")
    assert exp.decide_speedup("k", "x", few).verdict == "untestable"
    never = _ramp_runs({"b": [None] * 5, "f": [None] * 5})
    none = exp.speedup(exp.time_to_threshold(never, 5.0, 1), "b", "f")
    assert exp.decide_speedup("k", "x", none).verdict == "untestable"


def test_thresholds_sit_between_random_and_teacher():
    levels = exp.thresholds(100.0, 500.0, (0.25, 0.5, 0.75))
    assert levels == {0.25: 200.0, 0.5: 300.0, 0.75: 400.0}
    with pytest.raises(ValueError, match="teacher"):
        exp.thresholds(500.0, 100.0, (0.5,))


def test_duplicate_configurations_run_once():
    paper = exp.GohariProfile.paper()
    configs = exp.figure2_configs(paper)
    unique, source = exp.unique_configs(configs)
    assert len(configs) - len(unique) == 3
    assert source["lambda = 0.5"] == "aware, c = 0.3" and source["c = 0.3"] == "aware, c = 0.3"
    assert source["c = 0.1"] == "aware, c = 0.1"
    # labels do not decide: a relabelled copy is a duplicate, a changed value is not
    twin = {**configs[0], "label": "twin"}
    other = {**configs[0], "label": "other", "hidden": 16}
    assert len(exp.unique_configs([configs[0], twin, other])[0]) == 2


def test_profiles_are_typed_and_the_paper_one_is_spinning_up():
    paper = exp.GohariProfile.paper()
    assert (paper.n_envs, paper.max_episode_steps, paper.reset_each_epoch, paper.value_targets) == (
        1, 1000, True, "rewards-to-go")
    ppo = paper.ppo_config(32)
    assert ppo.steps_per_epoch == 1000 and ppo.max_episode_steps == 1000
    with pytest.raises(ValueError, match="unknown parameter"):
        exp.GohariProfile.from_parameters("quick", n_runs=3)
    with pytest.raises(ValueError, match="lam"):
        exp.GohariProfile.quick(lam=-1.0)
    with pytest.raises(ValueError, match="radius_arms"):
        exp.GohariProfile.quick(radius_arms=("wrong",))
    assert exp.GohariProfile.from_parameters("quick", epochs=5.0).epochs == 5


def test_recorded_curves_writer_on_a_tiny_run(tmp_path):
    profile = exp.GohariProfile.quick(epochs=2, steps_per_epoch=100, n_trials=1, n_envs=2,
                                      train_pi_iters=2, train_v_iters=2, radius_arms=(),
                                      eval_episodes=2)  # fmt: skip
    csv, meta = exp.record_paper_curves(profile, tmp_path, executor="serial", progress=False,
                                        command="test")  # fmt: skip
    curves = pd.read_csv(csv)
    assert tuple(curves.columns) == exp.CURVES_COLUMNS
    assert set(curves["config"]) == {c["label"] for c in exp.figure2_configs(profile)}
    assert len(curves) == 7 * 2 and curves["env_steps"].max() == 200
    spent = curves.set_index("config")["epsilon_spent"]
    assert (spent["PPO (64, 64)"] == 0).all() and np.isinf(spent["kickstarting"]).all()
    aware = curves[curves.config == "aware, c = 0.3"].sort_values("rollout")["epsilon_spent"].to_numpy()
    assert 0 < aware[0] < aware[1]  # cumulative: 100 queries at k0, then 100 at 0.3 k0
    loaded = exp.load_paper_curves(tmp_path)
    assert loaded is not None and loaded[1]["command"] == "test" and 0.5 in map(float, loaded[1]["thresholds"])
    runs = exp.runs_from_curves(loaded[0])
    assert set(runs["panel"]) == {"a", "b", "c", "d"}
    bands = exp.band95(runs.assign(seed=0), 1)
    assert {"center", "lower", "upper"} <= set(bands.columns)
    from privrl.chapter.report import Report

    report = Report("gohari2021", "quick")
    out = exp.recorded_analysis(report, *loaded)
    assert out["speedup"]["q"].tolist().count(0.5) == 2
    # a record shorter than the design decides nothing
    assert {c.verdict for c in report.claims} == {"untestable"} and len(report.claims) == 3


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
    from privrl.core.accounting.dirichlet import theorem1_delta_mc, theorem1_epsilon

    cfg = exp.GohariProfile.paper()
    teacher, _ = exp.load_teacher("airraid")
    lipschitz = exp.teacher_lipschitz(teacher, cfg.eta)
    eps = theorem1_epsilon(cfg.k0, 6, cfg.eta, cfg.tau, lipschitz, cfg.b)
    dlt = theorem1_delta_mc(cfg.k0, 6, cfg.eta, cfg.tau, rng=0, n_samples=200_000)
    assert eps == pytest.approx(4.46, abs=0.01)
    assert dlt.estimate == pytest.approx(0.05, abs=0.003)  # 4 standard errors


@pytest.mark.slow
def test_paper_profile_sweep_on_a_dask_cluster_shortened():
    """The paper profile (AirRaid, private kickstarting from the committed teacher) cut to two
    short roll-outs: the same tidy table on a Dask LocalCluster as in-process."""
    distributed = pytest.importorskip("distributed")
    profile = exp.GohariProfile.paper(epochs=2, steps_per_epoch=200, n_trials=2)
    configs = [c for c in exp.figure2_configs(profile)
               if c["label"] in ("PPO (32, 32)", "aware, c = 0.3")]  # fmt: skip
    serial = exp.run_figure2(profile, configs, executor="serial")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = exp.run_figure2(profile, configs, executor=cluster.scheduler_address)
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
    from privrl.core.algorithms.ppo import ActorCritic

    agent = ActorCritic(3, 2, (4,))
    best = teach.BestCheckpoint(window=2)
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

    from privrl.core.algorithms.ppo import PPOConfig, train_ppo

    seen = []
    cfg = PPOConfig(hidden_sizes=(8,), steps_per_epoch=40, n_envs=2, train_pi_iters=2, train_v_iters=2)
    _, log = train_ppo(lambda: gym.make("CartPole-v1"), 3, 0, cfg,
                       callback=lambda agent, row: seen.append(row["epoch"]))  # fmt: skip
    assert seen == [0, 1, 2] == log["epoch"].tolist()
