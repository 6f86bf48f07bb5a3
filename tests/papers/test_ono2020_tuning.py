"""The step-size choice of ono2020's private arms by a continuous score
(:mod:`privrl.papers.ono2020.tuning`): the score is each trial's mean score per submission, the
chosen step the highest mean, the tuning seeds are not the evaluation's, the deciding arms are
evaluated at their chosen steps on the trials the claims named, and the claims are decided on the
arms the recording holds and no others."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.sweep import seed_for
from privrl.chapter.verdicts import bootstrap_interval
from privrl.core.algorithms.a3c import DEFAULT_CLIP, train_pgc_a3c
from privrl.papers.ono2020 import chapter, claims, plots, tuning
from privrl.papers.ono2020.profile import PAPER_CAP, REFERENCE, OnoProfile
from privrl.papers.ono2020.reference import TUNING_SEED_OFFSET
from privrl.papers.ono2020.trials import algorithm_config, run_first_success

INF = math.inf
TINY = {"variant": REFERENCE, "mechanism": "prs", "epsilon": 2.0, "buffer_size": 100,
        "eta": 0.3, "n_submissions": 120, "trials_per_seed": 3}


def test_a_tuning_trials_score_is_its_mean_score_per_submission():
    frame = tuning.run_tuning_trials(dict(TINY), seed_for(5, 1))
    res = train_pgc_a3c(algorithm_config(TINY, stop_at_success=False), 3,
                        np.random.default_rng(seed_for(5, 1)))
    assert res.scores.shape == (3, 120) and not np.isnan(res.scores).any()  # no early stop
    np.testing.assert_allclose(frame.auc, res.scores.sum(axis=1) / 120, rtol=1e-12)
    np.testing.assert_array_equal(frame.first_success, res.first_success)
    assert (frame.env_steps == res.scores.sum(axis=1)).all()
    doubled = tuning.run_tuning_trials({**TINY, "n_submissions": 240}, seed_for(5, 1))
    assert not np.allclose(doubled.auc, frame.auc)


def test_an_evaluation_batch_is_the_reference_records_run_function():
    config = {**TINY, "n_submissions": 200}
    pd.testing.assert_frame_equal(
        tuning.run_tuned_trials(config, seed_for(0, 2)).drop(columns="seconds"),
        run_first_success(config, seed_for(0, 2)).drop(columns="seconds"))


def _tuning(aucs: dict[tuple[str, float, int, float], list[float]]) -> pd.DataFrame:
    rows = [{"mechanism": m, "epsilon": e, "buffer_size": b, "eta": step, "trial": i, "auc": x}
            for (m, e, b, step), xs in aucs.items() for i, x in enumerate(xs)]
    return pd.DataFrame(rows)


def test_the_chosen_step_has_the_highest_mean_score_ties_to_the_smaller_step():
    rng = np.random.default_rng(0)
    prs = {("prs", 1.0, 100, s): list(mu + rng.normal(size=10))
           for s, mu in ((0.01, 20.0), (0.1, 60.0), (1.0, 59.0))}
    tie = {("laplace", 2.0, 1, s): [30.0] * 10 for s in (0.03, 0.3)}
    scores = tuning.step_scores(_tuning({**prs, **tie}))
    assert tuning.chosen_step(scores, ("prs", 1.0, 100)) == 0.1
    assert tuning.chosen_step(scores, ("laplace", 2.0, 1)) == 0.03
    assert scores.groupby("arm").chosen.sum().to_dict() == {"laplace ε=2 |B|=1": 1,
                                                            "prs ε=1 |B|=100": 1}
    row = scores[(scores.arm == "prs ε=1 |B|=100") & (scores.step_size == 0.1)].iloc[0]
    x = np.array(prs[("prs", 1.0, 100, 0.1)])
    assert row.n_trials == 10 and row.auc == pytest.approx(x.mean())
    assert (row.auc_lo, row.auc_hi) == pytest.approx(bootstrap_interval(np.mean, [x]))
    assert row.auc_lo < row.auc < row.auc_hi
    with pytest.raises(ValueError, match="no chosen step"):
        tuning.chosen_step(scores, ("prs", 5.0, 100))


def test_tuning_runs_every_private_arm_at_every_step_on_at_least_ten_trials():
    profile = OnoProfile.paper()
    private = tuning.private_arms(profile)
    assert private == [("laplace", e, 1) for e in (1.0, 2.0, 5.0, 10.0)] + [
        ("prs", e, 100) for e in (1.0, 2.0, 5.0, 10.0)]
    configs = tuning.tuning_configs(profile, private)
    assert len(configs) == 8 * len(profile.reference_steps)
    assert {c["trials_per_seed"] for c in configs} == {tuning.TUNING_TRIALS} and \
        tuning.TUNING_TRIALS >= 10
    assert {c["n_submissions"] for c in configs} == {PAPER_CAP // 3}
    assert all(algorithm_config(c, False).clip_value == DEFAULT_CLIP[c["mechanism"]]
               for c in configs)  # the paper's clip kept
    with pytest.raises(ValueError, match="trials must be >= 10"):
        tuning.tuning_configs(profile, private, trials=9)


def test_the_deciding_arms_get_the_trials_their_claims_named_plus_a_margin():
    named = {("prs", 1.0, 100): 76, ("prs", 2.0, 100): 39, ("prs", 5.0, 100): 45,
             ("laplace", 5.0, 1): 45, ("laplace", 1.0, 1): 48}
    for arm, trials in named.items():
        assert tuning.DECIDING_ARMS[arm] > trials
    assert ("laplace", INF, 1) in tuning.DECIDING_ARMS  # the private claims' guard


def test_evaluation_runs_each_arm_at_its_chosen_step_at_the_papers_budget():
    scores = tuning.step_scores(_tuning({("prs", 1.0, 100, 0.3): [5.0] * 10,
                                         ("prs", 1.0, 100, 1.0): [1.0] * 10}))
    batches = tuning.evaluation_configs(scores, {("prs", 1.0, 100): 60, ("laplace", INF, 1): 20})
    assert sorted(batches) == [1, 3]
    (prs,), (base,) = batches[3], batches[1]
    assert prs["eta"] == 0.3 and prs["n_submissions"] == PAPER_CAP
    assert prs["trials_per_seed"] == base["trials_per_seed"] == tuning.EVAL_BATCH
    assert base["eta"] == tuning.REFERENCE_BASELINE_STEP and base["clip"] == INF
    with pytest.raises(ValueError, match="multiple of 20"):
        tuning.evaluation_configs(scores, {("prs", 1.0, 100): 50})


def test_the_recorder_writes_the_tuning_and_the_evaluation_on_disjoint_seeds(tmp_path):
    out = tmp_path / "measurements" / "results"
    profile = OnoProfile.quick(reference_steps=(0.1, 1.0))
    evaluation = {("laplace", INF, 1): 20, ("prs", 1.0, 100): 40}
    record = tuning.record_tuned(profile, cache_dir=tmp_path / "cache", tune="deciding",
                                 tuning_budget=60, evaluation=evaluation, budget=80,
                                 directory=out, executor="serial", workers=1, progress=False)
    saved = json.loads((tmp_path / "measurements" / tuning.TUNED_RECORD_JSON).read_text())
    assert saved["profile"] == tuning.TUNED and record.parameters["tuning_trials"] == 10
    assert saved["parameters"]["tuning_root_seed"] == profile.seed + TUNING_SEED_OFFSET
    assert saved["produced_by"] == ["privrl.papers.ono2020.tuning"]
    read = tuning.recorded_tuned_run(out)
    assert list(read["tuning"].columns[:2]) == ["arm", "mechanism"]
    assert read["tuning"].groupby("step_size").size().to_dict() == {0.1: 10, 1.0: 10}
    assert read["trials"].groupby("mechanism").size().to_dict() == {"laplace": 20, "prs": 40}
    step = tuning.chosen_step(read["scores"], ("prs", 1.0, 100))
    assert set(read["trials"].query("mechanism == 'prs'").step_size) == {step}
    # the first tuning trials are not the evaluation's first trials at that step
    evaluated = run_first_success({**tuning._config(("prs", 1.0, 100), step, 60, 10)},
                                  seed_for(profile.seed + TUNING_SEED_OFFSET, 0))
    same_seed = run_first_success({**tuning._config(("prs", 1.0, 100), step, 60, 10)},
                                  seed_for(profile.seed, 0))
    assert not evaluated.drop(columns="seconds").equals(same_seed.drop(columns="seconds"))
    assert tuning.recorded_tuned_run(tmp_path) is None
    fig = plots.plot_tuning_curves(read["scores"])
    (panel,) = [ax for ax in fig.axes if ax.get_visible()]
    assert panel.get_legend() is None and f"chosen {step:g} (10 trials a step)" in panel.get_title()
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {
        "mean AUC with its 95% interval", "the chosen step (highest mean)"}


def _trials(counts: dict[tuple[str, float], tuple[int, int]]) -> pd.DataFrame:
    rows = []
    for (mech, eps), (k, n) in counts.items():
        for i in range(n):
            rows.append({"variant": REFERENCE, "mechanism": mech, "epsilon": eps,
                         "trial": i, "success": i < k,
                         "first_success": 1000.0 + i if i < k else INF})
    return pd.DataFrame(rows)


def test_the_claims_are_decided_on_the_recorded_arms_and_no_others():
    p = OnoProfile.quick()
    ctx = Context(p, Report("ono2020", p.profile, seed=p.seed, config=p.as_dict()))
    ctx.tables.update(trials=_trials({("laplace", INF): (5, 5)}), curves=pd.DataFrame(),
                      tuned_trials=_trials({("laplace", INF): (20, 20), ("prs", 1.0): (60, 100),
                                            ("laplace", 5.0): (50, 60), ("prs", 5.0): (15, 60)}))
    ctx.values.update(rec_tuned_commit="abc123", rec_tuned_budget=PAPER_CAP,
                      rec_tuned_source="recorded tuned arms")
    evidence = {ev.name: ev for ev in chapter.OnoChapter().evidence(ctx)}
    ev = evidence["reference_tuned"]
    decided = {c.key: c for spec in claims.CLAIMS if (c := ev.decide(ctx, spec)) is not None}
    assert sorted(decided) == sorted(f"{k}{claims.ON_TUNED}" for k in (
        "baseline_learns", "prs_eps1_learns", "laplace_eps5_learns", "prs_eps5_learns",
        "median_fst_laplace_eps5", "median_fst_laplace_epsinf", "median_fst_prs_eps1",
        "median_fst_prs_eps5", "laplace_beats_prs_eps5"))
    prs1 = decided["prs_eps1_learns_reference_tuned"]
    assert (prs1.verdict, prs1.n_trials, prs1.commit) == ("reproduced", 100, "abc123")
    assert prs1.statement.startswith(claims.TUNED_PREFIX)
    beats = decided["laplace_beats_prs_eps5_reference_tuned"]
    assert beats.verdict == "reproduced"  # 50/60 against 15/60, threshold 0.05
    assert decided["prs_eps5_learns_reference_tuned"].verdict == "not reproduced"  # 15/60 < 0.45


def test_the_bottom_line_states_the_tuned_records_success_rates():
    """The front matter's bottom line is typed once from the tuned record: the share of trials
    in which PRS learns at epsilon = 1, 2 and 5 must be the record's, rounded to a percent."""
    from privrl.chapter.front import front_matter

    recorded = tuning.recorded_tuned_run()
    assert recorded is not None, "the tuned evaluation is recorded"
    trials = recorded["trials"]
    prs = trials[trials.mechanism == "prs"].groupby("epsilon").success.mean()
    shares = ", ".join(f"{100 * prs[eps]:.0f}%" for eps in (1.0, 2.0)) + f" and {100 * prs[5.0]:.0f}%"
    line = " ".join(front_matter("ono2020").bottom_line.split())
    assert f"PRS learns in {shares} of trials at epsilon = 1, 2 and 5" in line
