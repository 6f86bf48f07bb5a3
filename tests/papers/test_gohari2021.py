"""The chapter package of Gohari et al. (2021): teachers, Lipschitz bounds, Figure 2's runs and
summaries, the recorded run's writer and reader, claims and errata on the skeleton, figures, and
the paper profile's sweep on a Dask cluster (shortened)."""

from __future__ import annotations

import copy
import json
import math
import types

import numpy as np
import pandas as pd
import pytest
import torch

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.paper_numbers import paper_number
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.verdicts import Claim
from privrl.core.accounting import dirichlet as acc
from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.algorithms.ppo import PPOConfig
from privrl.papers.gohari2021 import chapter, claims, plots, recorded, theory
from privrl.papers.gohari2021 import curves as cv
from privrl.papers.gohari2021 import runs as rn
from privrl.papers.gohari2021 import teacher as teach
from privrl.papers.gohari2021.profile import GohariProfile
from privrl.papers.gohari2021.state import BallLimits, GohariState, TeacherPrivacy


@pytest.fixture(scope="module")
def cartpole_teacher():
    return teach.load_teacher("cartpole")


def _f(teacher, eta, x):
    m = teacher.pi[-1].out_features
    with torch.no_grad():
        return (1 - m * eta) * torch.softmax(teacher.pi(torch.as_tensor(x)), -1) + eta


@pytest.mark.parametrize("env", ["cartpole", "airraid"])
def test_lipschitz_lower_bound_sits_between_slopes_and_certificate(env):
    teacher, meta = teach.load_teacher(env)
    eta = 0.1
    _, obs = teach.play(env, teacher, 1, rng=0)
    obs = obs[:: max(1, len(obs) // 300)]
    lower = teach.teacher_lipschitz_lower_bound(teacher, eta, obs)
    certified = teach.teacher_lipschitz(teacher, eta)
    assert 0 < lower <= certified
    # finite-difference slopes along random directions never exceed the largest Jacobian norm
    rng = np.random.default_rng(1)
    u = rng.normal(size=obs.shape).astype(np.float32)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    h = 1e-3
    slopes = np.linalg.norm(_f(teacher, eta, obs + h * u) - _f(teacher, eta, obs), axis=1) / h
    assert slopes.max() <= lower * 1.01


def test_lipschitz_lower_bound_is_the_largest_norm_of_autograds_jacobian(cartpole_teacher):
    teacher, _ = cartpole_teacher
    eta, m = 0.1, int(teacher.pi[-1].out_features)
    obs = np.random.default_rng(2).normal(size=(40, teacher.pi[0].in_features))
    x = torch.as_tensor(obs, dtype=torch.float64)
    net = copy.deepcopy(teacher.pi).double()
    jac = torch.func.vmap(
        torch.func.jacrev(lambda o: (1.0 - m * eta) * torch.softmax(net(o), dim=-1) + eta)
    )(x)
    expected = float(torch.linalg.matrix_norm(jac, ord=2).max())
    assert teach.teacher_lipschitz_lower_bound(teacher, eta, obs) == pytest.approx(
        expected, rel=1e-12
    )


def test_lipschitz_lower_bound_rejects_wrong_shapes(cartpole_teacher):
    teacher, _ = cartpole_teacher
    with pytest.raises(ValueError, match="observations must have shape"):
        teach.teacher_lipschitz_lower_bound(teacher, 0.1, np.zeros((3, 5)))


def test_play_is_reproducible_and_the_cartpole_teacher_beats_random(cartpole_teacher):
    teacher, meta = cartpole_teacher
    r1, o1 = teach.play("cartpole", teacher, 3, rng=5)
    r2, o2 = teach.play("cartpole", teacher, 3, rng=5)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(o1, o2)
    rand, _ = teach.play("cartpole", None, 3, rng=5)
    assert r1.min() > 4 * rand.max()
    with pytest.raises(ValueError, match="n_episodes"):
        teach.play("cartpole", teacher, 0, rng=0)


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
                rows.append(
                    {
                        "label": label,
                        "panel": panel,
                        "seed": seed,
                        "epoch": e,
                        "env_steps": 100 * (e + 1),
                        "avg_return": ret,
                        "n_episodes": 1,
                        "method": "private" if "aware" in label else "ppo",
                    }
                )
    return pd.DataFrame(rows)


def _ramp_runs(crossings: dict[str, list[float | None]], n_epochs: int = 20) -> pd.DataFrame:
    """Step curves: return 0, then 10 from roll-out ``c`` on (``None``: never, censored)."""
    rows = []
    for label, per_seed in crossings.items():
        for seed, c in enumerate(per_seed):
            for e in range(n_epochs):
                rows.append(
                    {
                        "label": label,
                        "seed": seed,
                        "epoch": e,
                        "env_steps": 100 * (e + 1),
                        "avg_return": 10.0 if c is not None and e >= c else 0.0,
                        "n_episodes": 1,
                    }
                )
    return pd.DataFrame(rows)


def test_time_to_threshold_known_crossings_and_censoring():
    runs = _ramp_runs({"base": [4, 9, None], "fast": [1, 2, 3]})
    t = cv.time_to_threshold(runs, 5.0, window=1).set_index(["label", "seed"])
    assert t.loc[("base", 0), "steps"] == 500 and t.loc[("base", 1), "steps"] == 1000
    assert t.loc[("base", 2), "censored"] and t.loc[("base", 2), "steps"] == 2000  # the budget
    assert list(t.loc["fast", "steps"]) == [200, 300, 400] and not t.loc["fast", "censored"].any()
    # the rolling mean over 2 roll-outs reaches 7.5 one roll-out after the step: (0 + 10) / 2 < 7.5
    t2 = cv.time_to_threshold(runs, 7.5, window=2).set_index(["label", "seed"])
    assert t2.loc[("fast", 0), "steps"] == 300


def test_time_to_converge_needs_full_windows_and_staying_above():
    """A first roll-out above the threshold is not convergence: a partial window (the first
    roll-outs) does not count, and a run that drops below again converges only from the last
    crossing on; a run ending below is censored."""
    rows = []
    for seed, returns in enumerate(
        [[9, 0, 0, 0, 9, 9, 9, 9], [0, 0, 9, 9, 0, 9, 9, 9], [9, 9, 9, 9, 9, 9, 9, 0]]
    ):
        for e, r in enumerate(returns):
            rows.append(
                {
                    "label": "a",
                    "seed": seed,
                    "epoch": e,
                    "env_steps": 100 * (e + 1),
                    "avg_return": float(r),
                    "n_episodes": 1,
                }
            )
    t = cv.time_to_threshold(pd.DataFrame(rows), 5.0, window=2).set_index("seed")
    # seed 0: windows (9,0) (0,0) (0,0) (0,9) (9,9)...: means reach 9 from roll-out 5 on
    assert t.loc[0, "steps"] == 600 and not t.loc[0, "censored"]
    # seed 1: (0,0) (0,9)=4.5 (9,9) (9,0)=4.5 (0,9)=4.5 (9,9): from roll-out 6 on
    assert t.loc[1, "steps"] == 700 and not t.loc[1, "censored"]
    # seed 2 ends at (9, 0) = 4.5: below, censored at the budget
    assert t.loc[2, "censored"] and t.loc[2, "steps"] == 800


def test_speedup_is_the_hodges_lehmann_ratio_with_an_exact_rank_interval():
    import itertools

    runs = _ramp_runs({"base": [4, 9, None, 7, 5], "fast": [1, 2, 3, 1, 2]})
    t = cv.time_to_threshold(runs, 5.0, window=1)
    s = cv.speedup(t, "base", "fast")
    base, fast = [500, 1000, 2000, 800, 600], [200, 300, 400, 200, 300]
    logs = sorted(math.log(a / b) for a, b in itertools.product(base, fast))
    assert s["ratio"] == pytest.approx(math.exp(logs[12]))  # the median of 25 differences
    # 5 against 5: the 3rd smallest / largest difference (P(U <= 2) = 4/252 <= 0.025); the
    # censored base time (2,000 or more) has no upper bound, so 5 differences are infinite
    assert s["lower"] == pytest.approx(math.exp(logs[2]))
    assert s["upper"] == math.inf
    assert s["censored_baseline"] == 1 and s["censored_treated"] == 0 and s["n"] == 5
    claim = claims.decide_speedup(s)
    assert claim.verdict == "reproduced" and claim.interval[0] > 1
    slower = claims.decide_speedup(cv.speedup(t, "fast", "base"))
    assert slower.verdict == "not reproduced"
    few = cv.speedup(cv.time_to_threshold(_ramp_runs({"b": [4, 5], "f": [1, 2]}), 5.0, 1), "b", "f")
    assert claims.decide_speedup(few).verdict == "untestable"
    never = _ramp_runs({"b": [None] * 5, "f": [None] * 5})
    none = cv.speedup(cv.time_to_threshold(never, 5.0, 1), "b", "f")
    assert claims.decide_speedup(none).verdict == "untestable"


def test_a_student_that_never_converges_is_not_faster():
    """Censoring widens the rank interval without bound; the necessary condition (a share of
    the student's runs converged within budget / threshold at least the baseline's within the
    budget) still decides: 0 of 10 against 6 of 10 is not reproduced."""
    runs = _ramp_runs({"base": [4, 9, 7, 5, 6, 8, None, None, None, None], "aware": [None] * 10})
    t = cv.time_to_threshold(runs, 5.0, window=1)
    s = cv.speedup(t, "base", "aware")
    assert s["upper"] == math.inf and s["lower"] == 0.0
    claim = claims.decide_speedup(s, 2.0, times=t)
    assert claim.verdict == "not reproduced" and "0/10 against 6/10" in claim.reason
    # the same counts where the student converges early enough leave the rank interval to decide
    quick = _ramp_runs(
        {
            "base": [4, 9, 7, 5, 6, 8, None, None, None, None],
            "aware": [1, 1, 2, 2, 1, 1, 2, 2, 1, 1],
        }
    )
    tq = cv.time_to_threshold(quick, 5.0, window=1)
    assert (
        claims.decide_speedup(cv.speedup(tq, "base", "aware"), 2.0, times=tq).verdict
        == "reproduced"
    )


@pytest.mark.parametrize("random_mean, verdict", [(0.0, "reproduced"), (4.0, "untestable")])
def test_a_speedup_to_a_threshold_random_play_reaches_is_untestable(random_mean, verdict):
    """Validity condition 1 on the speed-up claim: kickstarting converges to X_0.5 = 5 in 1-3
    roll-outs against 4-9 for PPO (64, 64), reproduced while random play (sd 1, 30 episodes;
    the quick profile has no episode cap, so a window may average a single episode) stays far
    below 5; with random play at 4 a single random episode reaches 5 and the claim says
    untestable, naming the condition."""
    runs = _ramp_runs(
        {
            "PPO (64, 64)": [4, 9, 7, 5, 6, 8, 4, 9, 7, 5],
            "kickstarting": [1, 2, 3, 1, 2, 1, 2, 3, 1, 2],
        }
    )
    profile = GohariProfile.quick(smoothing_window=1)
    assert claims.fewest_episodes(profile) == 1
    _, speed = cv.speedup_table(runs, {0.5: 5.0}, 1, "PPO (64, 64)", ("kickstarting",))
    references = {"random": random_mean, "random_se": 1 / math.sqrt(30), "episodes": 30}
    spec = next(s for s in claims.CLAIMS if s.key == "speedup_kickstarting")
    ev = Evidence(LIVE, profile, data=claims.Runs(runs, speed, None, references))
    claim = ev.decide(_context(profile), spec)
    assert claim.verdict == verdict
    if verdict == "untestable":
        assert claim.reason.startswith(
            "invalid measurement (threshold beyond random play): "
            "random play reaches the threshold 5"
        )
    with pytest.raises(ValueError, match="random play"):
        Evidence(LIVE, profile, data=claims.Runs(runs, speed, None)).decide(_context(profile), spec)


def test_a_smoothing_window_averages_at_least_its_steps_over_the_episode_cap():
    paper = GohariProfile.paper()
    assert claims.fewest_episodes(paper) == 10  # 10 roll-outs of 1,000 steps, episodes <= 1,000
    assert (
        claims.fewest_episodes(
            GohariProfile.paper(smoothing_window=1, n_envs=2, steps_per_epoch=3000)
        )
        == 2
    )


def test_speedup_claims_go_through_the_one_rule_at_the_papers_magnitude():
    result = {
        "baseline": "b",
        "treated": "t",
        "n": 10,
        "censored_baseline": 0,
        "censored_treated": 0,
    }
    at = lambda ratio, lo, hi, **kw: claims.decide_speedup(  # noqa: E731
        {**result, "ratio": ratio, "lower": lo, "upper": hi}, **kw
    )
    assert at(1.5, 1.2, 1.9).verdict == "reproduced"  # "faster": threshold 1, no effect
    # "roughly 4 times", decided at half: 1.5x faster is not the paper's magnitude
    half = claims.PAPER_SPEEDUP * claims.SPEEDUP_FRACTION
    assert half == 2.0
    assert at(1.5, 1.2, 1.9, threshold=half).verdict == "not reproduced"
    assert at(2.5, 1.6, 3.9, threshold=half).verdict == "inconclusive"
    assert at(2.5, 1.6, 3.9, threshold=half).trials_to_decide is not None
    assert at(3.5, 2.1, 5.0, threshold=half).verdict == "reproduced"
    assert at(1.0, 0.8, 1.2).verdict == "inconclusive"  # containing 1 is not a refutation
    aware = next(c for c in claims.CLAIMS if c.key == "speedup_aware")
    assert "roughly 4 times" in aware.source and "at least 2 times" in aware.statement


def _runs_with_queries(answered: dict[str, list[float]], method: str = "private") -> pd.DataFrame:
    """A runs table of one seed per label whose teacher answered ``answered[label][t]`` queries
    from its data in roll-out t (c = 0.3: the quick schedule answers 4 roll-outs)."""
    return pd.DataFrame(
        [
            {
                "label": label,
                "seed": 0,
                "epoch": t,
                "method": method,
                "coefficient": 0.3,
                "teacher_queries": q,
            }
            for label, per in answered.items()
            for t, q in enumerate(per)
        ]
    )


def _on_runs(spec, runs: pd.DataFrame, profile: GohariProfile):
    """``spec`` decided on this run's ``runs`` (no speed-up table)."""
    live = Evidence(LIVE, profile, data=claims.Runs(runs, None, rn.query_table(runs, profile)))
    return live.decide(_context(profile), spec)


def _on_record(ctx, rec):
    """Every claim decided on the recorded AirRaid run ``rec``, by key (``None``: not decided)."""
    return {s.key + "_airraid": claims.on_record(rec).decide(ctx, s) for s in claims.CLAIMS}


def test_budget_claim_is_decided_on_the_exact_excess_count():
    spec = next(c for c in claims.CLAIMS if c.key == "budget_respected")
    quick = GohariProfile.quick(steps_per_epoch=500)  # k0 = 5, c = 0.3, k_min = 0.1: 4 roll-outs

    def decide(answered, method="private"):
        return _on_runs(spec, _runs_with_queries(answered, method), quick)

    exact = decide({"a": [500] * 4 + [0] * 2, "b": [500, 500, 0, 0, 0, 0]})
    assert exact.verdict == "reproduced" and exact.value == 0 and exact.threshold == 0.5
    assert exact.n_trials == 2 and "2000" in exact.evidence
    assert (
        decide({"a": [500] * 4 + [1, 0], "b": [0] * 6}).verdict == "not reproduced"
    )  # one too many
    late = decide(
        {"a": [500] * 3 + [0, 500, 0]}
    )  # as many in all, but one roll-out after the budget
    assert late.verdict == "not reproduced" and late.value == 500
    # plain PPO and kickstarting without privacy have no budget: no private run, untestable
    assert decide({"k": [500] * 6}, method="kickstart").verdict == "untestable"
    with pytest.raises(ValueError, match="teacher_queries"):
        rn.query_table(_runs_with_queries({"a": [500, np.nan]}), quick)


def test_the_teacher_counts_every_query_it_answers_from_its_data():
    """run_agent logs the queries the teacher's network answered per roll-out: every interaction
    of the 4 informed roll-outs, none after (random answers, or a silent teacher), every one for
    kickstarting; a lower k_min (one roll-out more) is caught by the budget claim."""
    quick = GohariProfile.quick(
        epochs=6, steps_per_epoch=40, n_envs=2, train_pi_iters=1, train_v_iters=1
    )
    configs = {c["label"]: c for c in rn.figure2_configs(quick)}
    seed = np.random.SeedSequence(0)
    for label in ("aware, c = 0.3", "aware, c = 0.3, teacher silent after budget"):
        log = rn.run_agent(configs[label], seed)
        assert log["teacher_queries"].tolist() == [40] * 4 + [0] * 2
    assert rn.run_agent(configs["kickstarting"], seed)["teacher_queries"].tolist() == [40] * 6
    assert "teacher_queries" not in rn.run_agent(configs["PPO (32, 32)"], seed)
    leaky = rn.run_agent({**configs["aware, c = 0.3"], "k_min": 0.04}, seed)  # 5 * 0.3^4 >= 0.04
    assert leaky["teacher_queries"].tolist() == [40] * 5 + [0]
    spec = next(c for c in claims.CLAIMS if c.key == "budget_respected")
    runs = leaky.assign(label="aware, c = 0.3", seed=0, method="private", coefficient=0.3)
    claim = _on_runs(spec, runs, quick)
    assert claim.verdict == "not reproduced" and claim.value == 40


def test_thresholds_sit_between_random_and_teacher():
    levels = cv.thresholds(100.0, 500.0, (0.25, 0.5, 0.75))
    assert levels == {0.25: 200.0, 0.5: 300.0, 0.75: 400.0}
    with pytest.raises(ValueError, match="teacher"):
        cv.thresholds(500.0, 100.0, (0.5,))


def test_duplicate_configurations_run_once():
    paper = GohariProfile.paper()
    configs = rn.figure2_configs(paper)
    unique, source = rn.unique_configs(configs)
    assert len(configs) - len(unique) == 3
    assert source["lambda = 0.5"] == "aware, c = 0.3" and source["c = 0.3"] == "aware, c = 0.3"
    assert source["c = 0.1"] == "aware, c = 0.1"
    # labels do not decide: a relabelled copy is a duplicate, a changed value is not
    twin = {**configs[0], "label": "twin"}
    other = {**configs[0], "label": "other", "hidden": 16}
    assert len(rn.unique_configs([configs[0], twin, other])[0]) == 2


def test_profiles_are_typed_and_the_paper_one_is_spinning_up():
    paper = GohariProfile.paper()
    assert (paper.n_envs, paper.max_episode_steps, paper.reset_each_epoch, paper.value_targets) == (
        1,
        1000,
        True,
        "rewards-to-go",
    )
    ppo = paper.ppo_config(32)
    assert ppo.steps_per_epoch == 1000 and ppo.max_episode_steps == 1000
    quick = GohariProfile.quick(gamma=0.9, train_pi_iters=5)
    assert quick.ppo_config(16) == PPOConfig(
        hidden_sizes=(16, 16),
        steps_per_epoch=500,
        n_envs=4,
        gamma=0.9,
        gae_lambda=0.97,
        train_pi_iters=5,
        train_v_iters=80,
        max_episode_steps=None,
        reset_each_epoch=False,
        value_targets="gae",
    )
    with pytest.raises(ValueError, match="unknown parameter"):
        GohariProfile.from_parameters("quick", n_runs=3)
    with pytest.raises(ValueError, match="lam"):
        GohariProfile.quick(lam=-1.0)
    with pytest.raises(ValueError, match="radius_arms"):
        GohariProfile.quick(radius_arms=("wrong",))
    assert GohariProfile.from_parameters("quick", epochs=5.0).epochs == 5


def _context(profile: GohariProfile, **state) -> Context[GohariState]:
    return Context(profile, Report("gohari2021", profile.profile), state=GohariState(**state))


def test_recorded_curves_writer_on_a_tiny_run(tmp_path):
    profile = GohariProfile.quick(
        epochs=2,
        steps_per_epoch=100,
        n_trials=1,
        n_envs=2,
        train_pi_iters=2,
        train_v_iters=2,
        radius_arms=(),
        after_budget_arms=(),
        eval_episodes=2,
    )
    results = tmp_path / "measurements" / "results"
    csv, meta = recorded.record_paper_curves(
        profile, results, executor="serial", progress=False, command="test"
    )
    # the curves in the results folder, the run record in the measurements folder above it
    assert (
        csv == results / recorded.CURVES_CSV
        and meta == tmp_path / "measurements" / "gohari2021-design.json"
    )
    assert not csv.with_suffix(".json").exists()
    table = pd.read_csv(csv)
    assert tuple(table.columns) == recorded.CURVES_COLUMNS
    # the teacher's queries against its allowance, cumulative per roll-out (100 per informed roll-out)
    queries = table.set_index(["config", "rollout"])[["queries", "queries_allowed"]]
    assert queries.loc[("aware, c = 0.3", 1)].tolist() == [200, 200]
    assert queries.loc[("PPO (64, 64)", 1)].tolist() == [0, 0]
    assert queries.loc[("kickstarting", 1), "queries"] == 200
    assert np.isinf(queries.loc[("kickstarting", 1), "queries_allowed"])
    assert set(table["config"]) == {c["label"] for c in rn.figure2_configs(profile)}
    assert len(table) == 7 * 2 and table["env_steps"].max() == 200
    spent = table.set_index("config")["epsilon_spent"]
    assert (spent["PPO (64, 64)"] == 0).all() and np.isinf(spent["kickstarting"]).all()
    aware = (
        table[table.config == "aware, c = 0.3"].sort_values("rollout")["epsilon_spent"].to_numpy()
    )
    assert 0 < aware[0] < aware[1]  # cumulative: 100 queries at k0, then 100 at 0.3 k0
    # the diagnostics as the runs logged them: entropy for every run, the penalty's activity and
    # share of the gradient only where there is a penalty
    assert table["entropy"].between(0, np.log(2)).all()
    diag = table.set_index("config")
    assert diag.loc["PPO (32, 32)", "penalised_fraction"].isna().all()
    assert diag.loc["aware, c = 0.3", "penalised_fraction"].between(0, 1).all()
    assert diag.loc["aware, c = 0.3", "aux_grad_share"].between(0, 1).all()
    # the run record is the one RunRecord schema, the recorder's fields at its top level
    written = json.loads(meta.read_text())
    assert {
        "notebook",
        "profile",
        "parameters",
        "git_commit",
        "git_dirty",
        "wall_time_s",
        "versions",
    } <= set(written)
    assert written["notebook"] == "gohari2021" and written["parameters"]["epochs"] == 2
    assert written["profile"] == "design"
    assert written["scale"] == "1 of the paper's 30 seeds, 2 of its 4,000 roll-outs"
    assert written["command"] == "test" and written["files"] == [f"results/{csv.name}"]
    assert written["produced_by"] == ["privrl.papers.gohari2021.runs"]
    loaded = recorded.load_paper_curves(results)
    assert (
        loaded is not None and loaded[1] == written and 0.5 in map(float, loaded[1]["thresholds"])
    )
    assert recorded.load_paper_curves(tmp_path / "nothing") is None
    runs = recorded.runs_from_curves(loaded[0])
    assert set(runs["panel"]) == {"a", "b", "c", "d"}
    bands = cv.band95(runs.assign(seed=0), 1)
    assert {"center", "lower", "upper"} <= set(bands.columns)
    rec = recorded.recorded_analysis(*loaded)
    assert rec.speedup["q"].tolist().count(0.5) == 2 and rec.commit == written["git_commit"]
    # the record's diagnostics, for the configurations the chapter compares
    assert rec.diagnostic_labels == ["PPO (32, 32)", "aware, c = 0.3", "unaware, c = 0.3"]
    assert rec.diagnostics_summary().loc[("aware, c = 0.3", "teacher informed"), "entropy"] > 0
    no_diag = recorded.recorded_analysis(
        loaded[0].drop(columns=list(recorded.DIAGNOSTIC_COLUMNS)), loaded[1]
    )
    assert no_diag.diagnostics is None and no_diag.diagnostics_summary() is None
    # a record shorter than the design decides nothing: the headline claims are untestable
    ctx = _context(profile, recorded=rec)
    decided = _on_record(ctx, rec)
    made = {k: c for k, c in decided.items() if c is not None}
    assert set(made) == {
        "speedup_kickstarting_airraid",
        "speedup_aware_airraid",
        "aware_beats_unaware_airraid",
        "budget_respected_airraid",
    }
    spec = {s.key + "_airraid": s for s in claims.CLAIMS}
    for key, claim in made.items():
        assert claim.statement == spec[key].statement
        # stamped with the record's profile, not the typed profile its parameters are read into
        assert (
            claim.profile == "design"
            and claim.commit == rec.commit
            and rec.source in claim.evidence
        )
        assert claim.source.endswith(
            "(on the recorded AirRaid design: 1 of the paper's 30 seeds, 2 of its 4,000 roll-outs)"
        )
        # the budget is decided on the record's queries whatever its length
        assert claim.verdict == (
            "reproduced" if key == "budget_respected_airraid" else "untestable"
        )
    assert made["budget_respected_airraid"].n_trials == 4  # the four private configurations
    # a record without the queries columns: the budget claim says why it cannot be decided
    old = recorded.recorded_analysis(
        loaded[0].drop(columns=list(recorded.QUERY_COLUMNS)), loaded[1]
    )
    claim = _on_record(_context(profile, recorded=old), old)["budget_respected_airraid"]
    assert claim.verdict == "untestable" and "no queries / queries_allowed columns" in claim.reason


def test_a_record_written_by_hand_is_completed_from_the_recorders_output(tmp_path):
    """The book's record of the first recorded run (restamped, without the recorder's fields)
    is completed from the recorder's output beside the curves; the book's keys win."""
    results = tmp_path / "results"
    results.mkdir()
    pd.DataFrame(columns=list(recorded.BASE_COLUMNS)).to_csv(
        results / recorded.CURVES_CSV, index=False
    )
    legacy = {
        "profile": {"epochs": 450},
        "commit": "old",
        "wall_seconds": 3.0,
        "references": {"random": 1.0},
        "thresholds": {"0.5": 2.0},
        "run_core_seconds": 9.0,
    }
    (results / "gohari2021-design-curves.json").write_text(json.dumps(legacy))
    (tmp_path / recorded.RECORD_JSON).write_text(
        json.dumps({"parameters": {"epochs": 450}, "git_commit": "restamped", "wall_time_s": 3.0})
    )
    _, record = recorded.load_paper_curves(results)
    assert record["git_commit"] == "restamped" and record["run_core_seconds"] == 9.0
    assert record["references"] == {"random": 1.0}
    (tmp_path / recorded.RECORD_JSON).unlink()
    (results / "gohari2021-design-curves.json").write_text(json.dumps({"commit": "x"}))
    with pytest.raises(ValueError, match="lacks"):
        recorded.load_paper_curves(results)


def test_the_committed_record_of_the_old_schema_is_read_in_the_new_one():
    loaded = recorded.load_paper_curves()
    if loaded is None:
        pytest.skip("no recorded AirRaid run in this tree")
    _, record = loaded
    assert {"parameters", "git_commit", "wall_time_s", "references", "thresholds"} <= set(record)
    rec = recorded.recorded_analysis(*loaded)
    assert rec.profile.profile == "paper" and rec.profile.epochs >= 450
    ctx = _context(GohariProfile.quick(), recorded=rec)
    decided = _on_record(ctx, rec)["speedup_kickstarting_airraid"]
    # the committed record is the design (10 of 30 seeds, 450 of 4,000 roll-outs), named so
    assert record["profile"] == rec.name == "design"
    assert record["scale"] == rec.scale == "10 of the paper's 30 seeds, 450 of its 4,000 roll-outs"
    assert decided.profile == "design" and decided.commit == record["git_commit"]
    assert rec.scale in decided.source and "not the paper's scale" in decided.evidence
    assert decided.evidence.startswith(rec.source)


def test_claims_and_errata_are_declared_once_with_their_sources():
    keys = [s.key for s in claims.CLAIMS]
    # 11 claims (each decided on this run and on the recorded AirRaid run); 3 again beyond the
    # paper, on arm (c)
    assert len(keys) == len(set(keys)) == 14
    beyond = [s for s in claims.CLAIMS if "_union_beyond" in s.key]
    assert len(beyond) == 3 and all(s.statement.startswith(claims.BEYOND) for s in beyond)
    assert all(not s.statement.startswith(claims.BEYOND) for s in claims.CLAIMS if s not in beyond)
    assert all(s.source.strip() for s in claims.CLAIMS)
    assert (
        chapter.Gohari2021Chapter.claims is claims.CLAIMS
        and chapter.Gohari2021Chapter.errata is claims.ERRATA
    )
    values = {
        "lemma_tail": 0.1,
        "delta_small_k": 1.0,
        "air_b": 1e-4,
        "air_L": 145.9,
        "air_L_low": 38.8,
        "air_b_raw": 0.1,
    }
    ctx = _context(
        GohariProfile.quick(),
        composed_delta=1.0,
        queries=12000.0,
        ball_limits=BallLimits(0.61, 2, 6, {"mc": 0.52, "union": 1.05}, {"mc": 0.9, "union": 2.03}),
        penalised_after={"aware": 0.7},
    )
    ctx.values.update(values)
    made = [e.make(ctx) for e in claims.ERRATA]
    assert [e.key for e in made] == [
        "unstated_parameters",
        "no_k_floor",
        "lemma1_radius",
        "small_k_privacy",
        "airraid_adjacency",
        "composed_budget",
        "random_answers_pull",
        "after_budget_reading",
    ]
    assert "12000 queries" in made[5].evidence and "0.61 < 1.41" in made[6].evidence
    assert (
        "0.70 (Monte Carlo radius)." in made[6].evidence
        and "union radius" not in made[6].evidence[-30:]
    )
    assert "random policies" in made[7].statement and "disallow queries" in made[7].statement
    assert "tends to 2.03" in made[7].evidence and "recorded AirRaid design" not in made[7].evidence
    assert (
        "and to 1.05 for this run's m = 2" in made[7].evidence
        and "(0.90 and 2.03 at AirRaid's m = 6)" in made[6].evidence
    )
    # with a recorded run's finding and verdict, the reading's evidence quotes both
    ctx.state.recorded_finding = "After the c = 0.3 budget (...): numbers."
    ctx.state.recorded = types.SimpleNamespace(  # type: ignore[assignment]
        source="recorded AirRaid design (1 of 30 seeds), commit abc"
    )
    ctx.claims["random_answers_harmless_airraid"] = Claim(
        "not reproduced",
        "median difference",
        -250.0,
        (-400.0, -100.0),
        10,
        "r",
        key="random_answers_harmless_airraid",
        statement="s",
    )
    evidence = claims.ERRATA[7].make(ctx).evidence
    assert (
        "On the recorded AirRaid design (1 of 30 seeds), commit abc: After the c = 0.3 budget "
        "(...): numbers."
    ) in evidence
    assert evidence.endswith(
        "is not reproduced (median difference -250, 95% interval [-400, -100])."
    )
    # and, with the record at the paper's horizon, that record's verdict after it
    ctx.state.horizon = types.SimpleNamespace(  # type: ignore[assignment]
        source="recorded AirRaid run at the paper's horizon"
    )
    ctx.claims["random_answers_harmless_horizon"] = Claim(
        "inconclusive",
        "median difference",
        -20.4,
        (-150.0, 90.6),
        5,
        "r",
        key="random_answers_harmless_horizon",
        statement="s",
    )
    evidence = claims.ERRATA[7].make(ctx).evidence
    assert evidence.endswith(
        "[-400, -100]). On the recorded AirRaid run at the paper's horizon: "
        "random_answers_harmless_horizon is inconclusive (median difference "
        "-20, 95% interval [-150, 91])."
    )


def test_releases_carry_theorem1_events_and_empirical_cross_checks():
    profile = GohariProfile.quick()
    event = acc.DirichletMechanismEvent(profile.k0, 2, profile.eta, profile.tau, 7.44, profile.b)
    mechanism = acc.Theorem1Mechanism(5.0, 6, 0.1, 1.84e-5)
    lb = acc.lipschitz_b_for_epsilon(4.46, mechanism)
    bound = acc.theorem1_delta_bound(mechanism)
    pair = theory.PaperPair(
        0.1, 1.84e-5, lb, acc.theorem1_epsilon(mechanism, lb, 1.0), bound, 0.049, 0.0489, 0.0495
    )
    ctx = _context(
        profile,
        pair=pair,
        teacher=TeacherPrivacy(
            L=7.44,
            m=2,
            eps_q=event.epsilon(0.05),
            d_q=event.delta_bound,
            d_q_mc=0.0499,
            d_q_mc_upper=0.0505,
            sup_ratio=2.7,
            event=event,
        ),
        pair_sup_ratio=0.8,
    )
    entries = list(chapter.Gohari2021Chapter().releases(ctx))
    for entry in entries:
        ctx.report.ledger(entry)  # raises unless the event gives back the epsilon
        assert entry.cross_check.kind == "empirical" and entry.cross_check.epsilon < entry.epsilon
    assert entries[1].epsilon == pytest.approx(4.46, abs=1e-12)
    assert event_from_dict(event_to_dict(entries[1].event)).epsilon(0.05) == entries[1].epsilon
    # the ledger records the rigorous bound, never the Monte Carlo estimate (which is in the text)
    assert entries[0].delta == event.delta_bound <= 0.05 and entries[1].delta == bound <= 0.05
    assert "0.0499" in entries[0].noise and "0.0489" in entries[1].noise


def test_figure2_draws_only_the_panels_with_curves():
    import matplotlib

    matplotlib.use("Agg")
    labels = {
        "PPO (64, 64)": "a",
        "PPO (32, 32)": "a",
        "kickstarting": "b",
        "aware, c = 0.3": "c",
        "unaware, c = 0.3": "d",
    }
    runs = _synthetic_runs(dict.fromkeys(labels, 50.0), n_epochs=10).assign(
        panel=lambda d: d["label"].map(labels)
    )
    bands = cv.band95(runs, 1)
    fig = plots.plot_figure2(bands, {}, 32)
    drawn = [ax for ax in fig.axes if ax.axison]
    assert len(fig.axes) == 4 and len(drawn) == 4 and all(ax.lines for ax in drawn)
    # titled in words (the paper's panels), each legend under its panel, outside the data
    assert [ax.get_title() for ax in drawn] == [text for _, text in plots.PANELS[:4]]
    for ax in drawn:
        box = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
        assert box.y1 < ax.get_window_extent().y0
    # one colour per configuration in every panel: the student-sized PPO drawn alike in (b)-(d)
    ppo = {
        line.get_color()
        for ax in drawn[1:]
        for line in ax.lines
        if line.get_label() == "PPO (32, 32)"
    }
    assert ppo == {plots.COLOURS["PPO (32, 32)"]}
    with_radius = pd.concat(
        [
            bands,
            bands[bands.label == "aware, c = 0.3"].assign(
                panel="radius", label="aware, c = 0.3, union radius"
            ),
        ]
    )
    assert sum(ax.axison for ax in plots.plot_figure2(with_radius, {}, 32).axes) == 5


def test_figure2_curves_are_thinned_medians():
    runs = _synthetic_runs({"PPO (64, 64)": 100.0, "kickstarting": 50.0}, n_epochs=40)
    curves = cv.figure2_curves(runs, max_points=10)
    assert curves.groupby("label").size().max() <= 10
    row = curves[(curves.label == "PPO (64, 64)") & (curves.env_steps == 100)].iloc[0]
    expected = runs[(runs.label == "PPO (64, 64)") & (runs.env_steps == 100)].avg_return.median()
    assert row.center == pytest.approx(expected) and row.lower <= row.center <= row.upper


def test_airraid_teacher_is_the_paper_network():
    teacher, meta = teach.load_teacher("airraid")
    assert tuple(np.atleast_1d(meta["hidden_sizes"])) == (64, 64)
    assert (int(meta["obs_dim"]), int(meta["n_actions"])) == (128, 6)
    assert int(meta["epochs"]) * int(meta["steps_per_epoch"]) >= 1_000_000
    assert 0 <= int(meta["kept_epoch"]) < int(meta["epochs"])


def test_paper_profile_gives_the_papers_guarantee_with_the_committed_teacher():
    """(tau, b) of the paper profile and the teacher's certified L give Theorem 1's (4.46, 0.05)
    at k0 = 5 (fails if the teacher is retrained without recalibrating b)."""
    from privrl.core.accounting.dirichlet import (
        Theorem1Mechanism,
        theorem1_delta_bound,
        theorem1_epsilon,
    )

    cfg = GohariProfile.paper()
    teacher, _ = teach.load_teacher("airraid")
    lipschitz = teach.teacher_lipschitz(teacher, cfg.eta)
    mechanism = Theorem1Mechanism(cfg.k0, 6, cfg.eta, cfg.tau)
    eps = theorem1_epsilon(mechanism, lipschitz, cfg.b)
    assert eps == pytest.approx(4.46, abs=0.01)
    assert 0.0499 < theorem1_delta_bound(mechanism) <= 0.05  # rigorous, tight
    quick = GohariProfile.quick()  # CartPole: m = 2, the bound is exact
    assert (
        0.0499 < theorem1_delta_bound(Theorem1Mechanism(quick.k0, 2, quick.eta, quick.tau)) <= 0.05
    )


@pytest.mark.slow
def test_paper_profile_sweep_on_a_dask_cluster_shortened():
    """The paper profile (AirRaid, private kickstarting from the committed teacher) cut to two
    short roll-outs: the same tidy table on a Dask LocalCluster as in-process."""
    distributed = pytest.importorskip("distributed")
    profile = GohariProfile.paper(epochs=2, steps_per_epoch=200, n_trials=2)
    configs = [
        c for c in rn.figure2_configs(profile) if c["label"] in ("PPO (32, 32)", "aware, c = 0.3")
    ]
    serial = rn.run_figure2(profile, configs, executor="serial")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = rn.run_figure2(profile, configs, executor=cluster.scheduler_address)
    assert set(dask["label"]) == {"PPO (32, 32)", "aware, c = 0.3"}
    assert dask["env_steps"].max() == 400 and dask["epsilon_query"].notna().any()
    pd.testing.assert_frame_equal(serial.drop(columns="wall_time"), dask.drop(columns="wall_time"))


@pytest.mark.slow
def test_the_paper_profile_chapter_runs_on_a_dask_cluster_at_a_tiny_budget():
    """``privrl run gohari2021 --profile paper --scheduler ADDRESS``'s chapter run: every paper
    configuration (the supplement's sweeps included) on a Dask LocalCluster, two roll-outs of
    100 interactions, one seed; every check passes, and the runs were the cluster's tasks."""
    distributed = pytest.importorskip("distributed")
    profile = GohariProfile.paper(epochs=2, steps_per_epoch=100, n_trials=1, eval_episodes=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        result = chapter.run(profile, executor=cluster.scheduler_address)
        finished = cluster.scheduler.task_prefixes["execute"].state_counts["memory"]
    unique, _ = rn.unique_configs(rn.figure2_configs(profile))
    assert finished == len(unique) == 20  # every distinct configuration's run was a cluster task
    runs = result.tables["runs"]
    assert set(runs["label"]) == {c["label"] for c in rn.figure2_configs(profile)}
    assert runs["env_steps"].max() == 200 and result.report.checks
    assert {c.key: c for c in result.report.claims}["budget_respected"].verdict == "reproduced"
    # the steps handed each other typed values; the tables are the state's data-frame fields
    state = result.state
    assert isinstance(state, GohariState) and state.teacher is not None
    assert state.ball_limits is not None and set(state.ball_limits.at_m) == {"mc", "union"}
    assert result.tables["runs"] is state.runs and result.wall_time_s > 0


def test_privrl_run_hands_a_scheduler_address_to_the_notebook(monkeypatch):
    """``privrl run NAME --scheduler tcp://HOST:8786`` runs the notebook with
    ``executor=tcp://HOST:8786``, which the sweep sends to the Dask cluster; a value that is no
    address, or both ``--scheduler`` and ``-p executor=``, is an error."""
    from privrl.chapter import sweep
    from privrl.pipeline import cli

    seen = {}

    def fake_run(name, output, profile, params, root):
        seen.update(name=name, profile=profile, params=params)
        raise RuntimeError("stop here")

    monkeypatch.setattr(cli, "run_notebook", fake_run)
    argv = [
        "run",
        "gohari2021",
        "--profile",
        "paper",
        "--scheduler",
        "tcp://host:8786",
        "-p",
        "n_trials=30",
    ]
    assert cli.main(argv) == 1
    assert seen == {
        "name": "gohari2021",
        "profile": "paper",
        "params": {"n_trials": 30, "executor": "tcp://host:8786"},
    }
    with pytest.raises(ValueError, match="scheduler address"):
        cli.with_scheduler({}, "host:8786")
    with pytest.raises(ValueError, match="not both"):
        cli.with_scheduler({"executor": "serial"}, "tcp://host:8786")
    assert cli.with_scheduler({"seed": 1}, None) == {"seed": 1}
    # the sweep reads an address given as the executor as the Dask scheduler
    clients = []

    class FakeClient:
        def __init__(self, address):
            clients.append(address)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def get_executor(self):
            return None  # in-process, as "serial"

    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(distributed, "Client", FakeClient)
    quick = GohariProfile.quick(
        epochs=1, steps_per_epoch=20, n_envs=2, n_trials=1, train_pi_iters=1, train_v_iters=1
    )
    config = next(c for c in rn.figure2_configs(quick) if c["label"] == "PPO (32, 32)")
    out = rn.run_figure2(quick, [config], executor="tcp://host:8786")
    assert clients == ["tcp://host:8786"] and len(out) == 1
    with pytest.raises(ValueError, match="scheduler address"):
        sweep.run_sweep(rn.run_agent, [config], 1, executor="nowhere", progress=False)


def test_rollout_cost_is_measured_in_cpu_seconds_of_the_step_rate():
    quick = GohariProfile.quick(steps_per_epoch=200, n_envs=2, train_pi_iters=2, train_v_iters=2)
    cost = rn.measure_rollout_cost(quick, n_rollouts=2)
    assert cost["config"].tolist() == ["aware, c = 0.3", "PPO (64, 64)"]
    assert (cost["seconds per roll-out"] > 0).all()
    np.testing.assert_allclose(cost["interactions per second"] * cost["seconds per roll-out"], 200)


def test_smoothed_returns_weight_episodes_and_skip_empty_rollouts():
    runs = pd.DataFrame(
        {
            "label": "x",
            "seed": 0,
            "epoch": range(4),
            "avg_return": [10.0, np.nan, 40.0, 20.0],
            "n_episodes": [1, 0, 3, 1],
        }
    )
    got = cv.smoothed_returns(runs, 2)["avg_return"].to_numpy()
    np.testing.assert_allclose(got, [10.0, 10.0, 40.0, (120.0 + 20.0) / 4])
    assert cv.smoothed_returns(runs, 1) is runs
    with pytest.raises(ValueError, match="window"):
        cv.smoothed_returns(runs, 0)


def test_best_checkpoint_keeps_the_policy_of_the_best_window():
    from privrl.core.algorithms.ppo import ActorCritic

    agent = ActorCritic(3, 2, (4,))
    best = teach.BestCheckpoint(window=2)
    returns = [
        (10.0, 1),
        (np.nan, 0),
        (30.0, 2),
        (20.0, 1),
        (5.0, 1),
    ]  # windows: 10, 30, 80/3, 12.5
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
    cfg = PPOConfig(
        hidden_sizes=(8,), steps_per_epoch=40, n_envs=2, train_pi_iters=2, train_v_iters=2
    )
    _, log = train_ppo(
        lambda: gym.make("CartPole-v1"),
        3,
        0,
        cfg,
        callback=lambda agent, row: seen.append(row["epoch"]),
    )
    assert seen == [0, 1, 2] == log["epoch"].tolist()


def test_deciding_arms_are_in_the_quick_profile_and_selectable():
    quick = GohariProfile.quick()
    labels = {c["label"]: c for c in rn.figure2_configs(quick)}
    silent = labels[rn.after_budget_label("silent")]
    assert (
        silent["after_budget"] == "silent"
        and silent["coefficient"] == 0.3
        and silent["lam"] == quick.lam
    )
    assert labels["aware, c = 0.3, union radius"]["radius"] == "union"
    assert labels["aware, c = 0.3"]["after_budget"] == "random"  # arm (a): the paper's reading
    assert (
        labels["unaware, c = 0.3"]["after_budget"] == "random"
    )  # Figure 2(d) needs random answers
    bare = GohariProfile.quick(radius_arms=(), after_budget_arms=())
    assert len(rn.figure2_configs(bare)) == len(labels) - 3
    with pytest.raises(ValueError, match="after_budget_arms"):
        GohariProfile.quick(after_budget_arms=("quiet",))


def test_diagnostics_summary_splits_informed_and_spent_rollouts():
    from privrl.papers.gohari2021 import diagnostics as dg

    quick = GohariProfile.quick()
    first = dg.first_spent_rollout(quick)
    assert (
        first == rn.informed_rollouts(quick.k0, 0.3, quick.k_min) == 4
    )  # 5 * 0.3^3 = 0.135 >= 0.1
    rows = []
    for label, before, after in (("aware, c = 0.3", 0.2, 0.8), ("PPO (32, 32)", np.nan, np.nan)):
        for seed in range(3):
            for epoch in range(10):
                frac = before if epoch < first else after
                rows.append(
                    {
                        "label": label,
                        "seed": seed,
                        "epoch": epoch,
                        "penalised_fraction": frac,
                        "aux_grad_share": frac / 2,
                        "entropy": 0.6,
                    }
                )
    runs = pd.DataFrame(rows)
    labels = dg.diagnostic_labels(quick, runs)
    assert labels == ["PPO (32, 32)", "aware, c = 0.3"]
    summary = dg.diagnostics_summary(dg.diagnostics_table(runs, labels), first)
    assert summary.loc[
        ("aware, c = 0.3", "teacher informed"), "penalised_fraction"
    ] == pytest.approx(0.2)
    assert summary.loc[("aware, c = 0.3", "budget spent"), "aux_grad_share"] == pytest.approx(0.4)
    assert np.isnan(summary.loc[("PPO (32, 32)", "budget spent"), "penalised_fraction"])
    assert summary.loc[("PPO (32, 32)", "budget spent"), "entropy"] == pytest.approx(0.6)
    import matplotlib

    matplotlib.use("Agg")
    fig = plots.plot_diagnostics(dg.diagnostics_table(runs, labels), labels, first)
    assert len(fig.axes) == 3
    # one colour per label in every panel, even where plain PPO has no penalty to draw, the
    # label's colour in every figure of the chapter; one legend, under the panels
    want = [plots.COLOURS[label] for label in labels]
    assert all([line.get_color() for line in ax.lines[:2]] == want for ax in fig.axes)
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)


def test_speedup_and_theorem1_figures_mark_the_papers_numbers():
    """The paper's "roughly 4 times" is a dashed black level on the speed-up figure and its
    (4.46, 0.05) at k = 5 hollow black diamonds on Theorem 1 over k, read from its data file."""
    import matplotlib

    matplotlib.use("Agg")
    stated = paper_number("gohari2021", "aware_speedup").value
    speed = pd.DataFrame(
        {
            "q": [0.5, 0.5],
            "treated": ["kickstarting", "aware, c = 0.3"],
            "ratio": [3.0, 1.5],
            "lower": [2.0, 0.5],
            "upper": [9.0, 4.0],
        }
    )
    (ax,) = plots.plot_speedup(speed, stated).axes
    (level,) = [line for line in ax.lines if line.get_label().startswith("paper")]
    assert level.get_ydata()[0] == stated == 4 and level.get_linestyle() == "--"
    grid = pd.DataFrame(
        {
            "k": [1.0, 5.0, 10.0],
            "epsilon": [3.0, 4.46, 6.0],
            "delta": [0.3, 0.05, 0.01],
            "delta (lower bound)": [0.2, 0.04, 0.01],
        }
    )
    pair = tuple(
        paper_number("gohari2021", key).value for key in ("k0", "initial_epsilon", "initial_delta")
    )
    fig = plots.plot_k_grid(grid, 2.0, 0.1, pair)
    marks = [
        (line.get_xdata()[0], line.get_ydata()[0])
        for ax in fig.axes
        for line in ax.lines
        if line.get_label().startswith("paper")
    ]
    assert marks == [(5.0, 4.46), (5.0, 0.05)]


def test_after_budget_finding_states_each_arms_penalty_entropy_and_final_return():
    from privrl.papers.gohari2021 import diagnostics as dg

    quick = GohariProfile.quick()
    first = dg.first_spent_rollout(quick)
    arms = {  # label: (penalised fraction after the budget, final return of seed i = value + i)
        "PPO (32, 32)": (np.nan, 100.0),
        "aware, c = 0.3": (0.8, 40.0),
        "aware, c = 0.3, union radius": (0.06, 90.0),
        "aware, c = 0.3, teacher silent after budget": (0.0, 95.0),
    }
    rows = [
        {
            "label": label,
            "seed": seed,
            "epoch": epoch,
            "avg_return": ret + seed,
            "penalised_fraction": frac if epoch >= first else 0.5,
            "aux_grad_share": frac / 2 if epoch >= first else 0.1,
            "entropy": 0.3,
        }
        for label, (frac, ret) in arms.items()
        for seed in range(3)
        for epoch in range(10)
    ]
    runs = pd.DataFrame(rows)
    labels = dg.diagnostic_labels(quick, runs)
    summary = dg.diagnostics_summary(dg.diagnostics_table(runs, labels), first)
    text = dg.after_budget_finding(runs, summary, quick)
    assert "roll-outs 4 to 9" in text and "over 3 seeds" in text
    assert (
        "(a) random answers, Monte Carlo radius: penalty active on 80% of the answers, 40%" in text
    )
    assert "(c) union radius: penalty active on 6% of the answers, 3%" in text
    assert "uniform play 0.69" in text and "PPO 0.30" in text  # log 2 for CartPole's two actions
    # median final returns (seeds 0, 1, 2 add 0, 1, 2): the silent arm named, without a penalty
    assert "plain PPO (32, 32) 101; (a) random answers, Monte Carlo radius 41" in text
    assert "(b) teacher silent 96" in text and "(b) teacher silent: penalty" not in text
    # a run that ends before the budget is spent has nothing to say
    early = runs[runs["epoch"] < first]
    summary = dg.diagnostics_summary(dg.diagnostics_table(early, labels), first)
    assert dg.after_budget_finding(early, summary, quick) == ""


def _live(runs: pd.DataFrame) -> claims.Evidence:
    """The quick profile's live evidence over ``runs`` (no speed-up table, no queries)."""
    return claims.Evidence(
        "live", GohariProfile.quick(), data=claims.Runs(runs, pd.DataFrame(), None)
    )


def _final_runs(returns: dict[str, list[float]], epochs: int = 10) -> pd.DataFrame:
    """Runs whose every roll-out of seed ``i`` of ``label`` returns ``returns[label][i]``."""
    return pd.DataFrame(
        [
            {"label": label, "seed": i, "epoch": e, "avg_return": r}
            for label, values in returns.items()
            for i, r in enumerate(values)
            for e in range(epochs)
        ]
    )


@pytest.mark.parametrize(
    "shift, verdict", [(+100.0, "reproduced"), (-100.0, "not reproduced"), (0.0, "inconclusive")]
)
def test_random_answers_harmless_compares_the_aware_student_with_a_silent_teacher(shift, verdict):
    """Section 4's 'without harming the student's performance': the aware student's median final
    return (random answers after the budget) minus the same student's with a silent teacher,
    against 0; nothing when the run has no silent arm."""
    spec = {s.key: s for s in claims.CLAIMS}["random_answers_harmless"]
    rng = np.random.default_rng(0)
    silent = list(600 + 10 * rng.standard_normal(10))
    aware = [r + shift + 10 * rng.standard_normal() for r in silent]
    ctx = _context(GohariProfile.quick())
    ev = _live(_final_runs({claims.AWARE: aware, rn.after_budget_label("silent"): silent}))
    claim = spec.decide(ctx, ev)
    assert claim.verdict == verdict and claim.n_trials == 10
    assert spec.decide(ctx, _live(_final_runs({claims.AWARE: aware}))) is None


@pytest.mark.parametrize("shift, verdict", [(+100.0, "reproduced"), (-100.0, "not reproduced")])
def test_the_beyond_rows_decide_the_union_radius_arm_not_the_default_student(shift, verdict):
    """Beyond the paper, the aware claims again on arm (c) (union radius): decided on that arm,
    whatever the default aware student does; nothing when the run lacks arm (c) or the arm it is
    compared with."""
    specs = {s.key: s for s in claims.CLAIMS}
    rng = np.random.default_rng(1)
    base = list(600 + 10 * rng.standard_normal(10))
    union = [r + shift + 10 * rng.standard_normal() for r in base]
    silent = rn.after_budget_label("silent")
    runs = _final_runs(
        {
            f"{claims.AWARE}, union radius": union,
            claims.AWARE: [0.0] * 10,
            claims.UNAWARE: base,
            "PPO (32, 32)": base,
            silent: base,
        }
    )
    ctx = _context(GohariProfile.quick())
    keys = ("aware_beats_unaware", "aware_beats_small_ppo", "random_answers_harmless")
    for key in keys:
        claim = specs[f"{key}_union_beyond"].decide(ctx, _live(runs))
        assert claim.verdict == verdict and claim.n_trials == 10, key
        assert "union radius" in claim.statistic
    no_union = _live(runs[runs["label"] != f"{claims.AWARE}, union radius"])
    assert all(specs[f"{k}_union_beyond"].decide(ctx, no_union) is None for k in keys)
    no_silent = _live(runs[runs["label"] != silent])
    assert specs["random_answers_harmless_union_beyond"].decide(ctx, no_silent) is None


def test_the_union_arm_label_is_the_one_the_runs_give_it():
    from privrl.papers.gohari2021 import diagnostics as dg

    labels = {c["label"] for c in rn.figure2_configs(GohariProfile.quick(radius_arms=("union",)))}
    assert dg.UNION in labels


def test_a_threshold_random_play_reaches_is_refused_in_the_speedup_table_and_figure():
    """Validity condition 1 on the committed horizon record: X_0.25 (694) is within random
    play's reach (a mean of 10 of its episodes exceeds 788.5 with probability 0.001), so its
    rows decide nothing: the table says refused without a ratio, the figure draws no ratio there
    and shades it."""
    from privrl.chapter.records import SOURCE_ROOT

    record = json.loads((SOURCE_ROOT / "book/measurements/gohari2021-horizon.json").read_text())
    curves = pd.read_csv(SOURCE_ROOT / "book/measurements/results/gohari2021-horizon-curves.csv")
    analysis = recorded.recorded_analysis(curves, record)
    refused = plots.refused_thresholds(analysis.speedup, record["references"], analysis.profile)
    assert refused == {0.25}
    shown = plots.speedup_display(analysis.speedup, refused)
    at = shown[shown["threshold q"] == 0.25]
    assert set(at["speed-up"]) == {plots.REFUSED} and set(at["95% interval"]) == {"none"}
    assert (shown[shown["threshold q"] != 0.25]["speed-up"] != plots.REFUSED).all()
    (ax,) = plots.plot_speedup(analysis.speedup, 4.0, refused).axes
    drawn = {
        round(float(x), 2)
        for line in ax.lines
        for x in line.get_xdata()
        if line.get_label() != "no speed-up" and len(line.get_xdata()) < 10
    }
    assert 0.25 not in drawn and 0.5 in drawn
