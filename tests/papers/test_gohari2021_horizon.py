"""The recorder of gohari2021 at the paper's horizon, on a tiny configuration (3 roll-outs of 50
interactions, one seed): the deciding arms, the design record's columns, the run record, and a
resumed recording that reuses its cache."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.papers.gohari2021.claims import CLAIMS, on_record
from privrl.papers.gohari2021.horizon import (
    RECORD_JSON,
    horizon_configs,
    horizon_labels,
    horizon_profile,
    record_horizon,
)
from privrl.papers.gohari2021.recorded import (
    CURVES_COLUMNS,
    HORIZON,
    load_paper_curves,
    recorded_analysis,
)

#: Roll-outs of 50 interactions; the reference returns on 2 full episodes each (the paper's cap).
TINY = {"n_trials": 1, "epochs": 3, "steps_per_epoch": 50, "eval_episodes": 2}


def test_the_arms_are_the_deciding_ones_at_paper_settings():
    profile = horizon_profile(n_trials=5, epochs=4000)
    configs = horizon_configs(profile)
    assert [c["label"] for c in configs] == [
        "PPO (32, 32)",
        "PPO (64, 64)",
        "aware, c = 0.3",
        "aware, c = 0.3, teacher silent after budget",
        "aware, c = 0.3, union radius",
    ]
    assert [c["hidden"] for c in configs] == [32, 64, 32, 32, 32]
    aware = configs[2:]
    assert all(c["method"] == "private" and c["coefficient"] == 0.3 for c in aware)
    assert [(c["radius"], c["after_budget"]) for c in aware] == [
        ("mc", "random"),
        ("mc", "silent"),
        ("union", "random"),
    ]
    for c in configs:
        assert (c["env"], c["epochs"], c["steps_per_epoch"], c["n_envs"]) == (
            "airraid",
            4000,
            1000,
            1,
        )
        assert (c["max_episode_steps"], c["reset_each_epoch"], c["value_targets"]) == (
            1000,
            True,
            "rewards-to-go",
        )
        assert (c["train_pi_iters"], c["train_v_iters"]) == (80, 80)


def test_a_profile_without_an_arm_is_refused():
    with pytest.raises(ValueError, match="radius_arms"):
        horizon_configs(horizon_profile(radius_arms=("printed",)))


def test_record_writes_the_curves_and_the_run_record_and_resumes(tmp_path):
    profile = horizon_profile(**TINY)
    out = tmp_path / "measurements" / "results"
    cache = tmp_path / "cache"
    csv, rec = record_horizon(
        profile,
        out,
        cache_dir=cache,
        executor="serial",
        progress=False,
        command="horizon record (test)",
    )
    curves = pd.read_csv(csv)
    assert (
        csv.name == "gohari2021-horizon-curves.csv"
        and rec == tmp_path / "measurements" / RECORD_JSON
    )
    assert tuple(curves.columns) == CURVES_COLUMNS
    assert sorted(set(curves["config"])) == sorted(horizon_labels(profile))
    assert len(curves) == 5 * 3 and set(curves["rollout"]) == {0, 1, 2}
    aware = curves[curves["config"] == "aware, c = 0.3"]
    assert aware["queries"].tolist() == [50, 100, 150]  # k_t >= k_min in roll-outs 0-2
    record = json.loads(rec.read_text())
    assert record["profile"] == "horizon" and record["notebook"] == "gohari2021"
    assert record["produced_by"] == ["privrl.papers.gohari2021.fast_student"]
    assert record["parameters"]["epochs"] == 3 and record["command"] == "horizon record (test)"
    assert {"random", "teacher"} <= set(record["references"])
    assert len(list(cache.rglob("*.pkl"))) == 5
    # the chapter reads it back as the horizon record: 3 roll-outs, shorter than the design, so
    # its headline claims are untestable and the others not decided
    ev = on_record(recorded_analysis(*load_paper_curves(out, name=HORIZON)))
    ctx = Context(profile, Report("gohari2021", "paper"))
    decided = {c.key: c for c in (ev.decide(ctx, spec) for spec in CLAIMS) if c is not None}
    assert set(decided) == {"speedup_aware_horizon", "budget_respected_horizon"}
    assert decided["speedup_aware_horizon"].verdict == "untestable"
    assert decided["budget_respected_horizon"].profile == HORIZON
    # a second sitting with the same cache runs nothing again and writes the same table
    stamps = {p: p.stat().st_mtime_ns for p in cache.rglob("*.pkl")}
    csv2, _ = record_horizon(
        profile, tmp_path / "again" / "results", cache_dir=cache, executor="serial", progress=False
    )
    pd.testing.assert_frame_equal(pd.read_csv(csv2), curves)
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.pkl")} == stamps
