"""The step-size choice of ono2020's private arms (:mod:`privrl.papers.ono2020.tuning`): the
chosen step has the most tuning successes within the paper's budget (ties to the mean score per
submission, then the smaller step), the highest mean AUC is kept as a sensitivity reading, the
evaluation's seeds are fresh (disjoint from the tuning's and every earlier record's), every arm
is evaluated at its chosen step on the paper's 20 trials, and the claims are decided on the arms
at the chosen steps and no others."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.sweep import seed_for
from privrl.chapter.validity import Tuning
from privrl.chapter.verdicts import bootstrap_interval
from privrl.core.algorithms.a3c import DEFAULT_CLIP, train_pgc_a3c
from privrl.papers.ono2020 import chapter, claims, page, plots, tuning
from privrl.papers.ono2020.profile import PAPER_CAP, REFERENCE, OnoProfile
from privrl.papers.ono2020.recorded import Recording
from privrl.papers.ono2020.reference import TUNING_SEED_OFFSET
from privrl.papers.ono2020.sources import TUNED_RUN
from privrl.papers.ono2020.state import OnoState, Recorded
from privrl.papers.ono2020.trials import algorithm_config, run_first_success

INF = math.inf
TINY = {
    "variant": REFERENCE,
    "mechanism": "prs",
    "epsilon": 2.0,
    "buffer_size": 100,
    "eta": 0.3,
    "n_submissions": 120,
    "trials_per_seed": 3,
}


def test_a_tuning_trials_score_is_its_mean_score_per_submission():
    frame = tuning.run_tuning_trials(dict(TINY), seed_for(5, 1))
    res = train_pgc_a3c(
        algorithm_config(TINY, stop_at_success=False), 3, np.random.default_rng(seed_for(5, 1))
    )
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
        run_first_success(config, seed_for(0, 2)).drop(columns="seconds"),
    )


def _tuning(
    aucs: dict[tuple[str, float, int, float], list[float]],
    wins: dict[tuple[str, float, int, float], int] | None = None,
) -> pd.DataFrame:
    """Tuning trials with the given AUCs; the first ``wins[arm, step]`` of them succeed."""
    wins = wins or {}
    rows = [
        {
            "mechanism": m,
            "epsilon": e,
            "buffer_size": b,
            "eta": step,
            "trial": i,
            "auc": x,
            "first_success": 100.0 if i < wins.get((m, e, b, step), 0) else INF,
        }
        for (m, e, b, step), xs in aucs.items()
        for i, x in enumerate(xs)
    ]
    return pd.DataFrame(rows)


def test_the_chosen_step_has_the_most_successes_then_the_highest_mean_auc():
    rng = np.random.default_rng(0)
    prs = {
        ("prs", 1.0, 100, s): list(mu + rng.normal(size=10))
        for s, mu in ((0.01, 20.0), (0.1, 60.0), (1.0, 59.0))
    }
    tie = {("laplace", 2.0, 1, s): [30.0] * 10 for s in (0.03, 0.3)}
    more = {("laplace", 5.0, 1, s): [mu] * 10 for s, mu in ((0.01, 50.0), (0.1, 40.0), (1.0, 45.0))}
    wins = {
        ("prs", 1.0, 100, 0.01): 2,
        ("prs", 1.0, 100, 0.1): 1,
        ("laplace", 5.0, 1, 0.1): 3,
        ("laplace", 5.0, 1, 1.0): 3,
    }
    scores = tuning.step_scores(_tuning({**prs, **tie, **more}, wins))
    # most successes wins even against a far higher mean AUC; the AUC criterion disagrees
    assert tuning.chosen_step(scores, ("prs", 1.0, 100)) == 0.01
    assert tuning.chosen_step(scores, ("prs", 1.0, 100), "auc") == 0.1
    # equal successes: the higher mean AUC; equal both: the smaller step
    assert tuning.chosen_step(scores, ("laplace", 5.0, 1)) == 1.0
    assert tuning.chosen_step(scores, ("laplace", 5.0, 1), "auc") == 0.01
    assert tuning.chosen_step(scores, ("laplace", 2.0, 1)) == 0.03
    assert tuning.chosen_step(scores, ("laplace", 2.0, 1), "auc") == 0.03
    assert (scores.groupby("arm")[["chosen", "chosen_auc"]].sum() == 1).all(axis=None)
    row = scores[(scores.arm == "prs ε=1 |B|=100") & (scores.step_size == 0.1)].iloc[0]
    x = np.array(prs[("prs", 1.0, 100, 0.1)])
    assert row.n_trials == 10 and row.successes == 1 and row.auc == pytest.approx(x.mean())
    assert (row.auc_lo, row.auc_hi) == pytest.approx(bootstrap_interval(np.mean, [x]))
    assert row.auc_lo < row.auc < row.auc_hi
    with pytest.raises(ValueError, match="no chosen step"):
        tuning.chosen_step(scores, ("prs", 5.0, 100))
    with pytest.raises(ValueError, match="criterion"):
        tuning.chosen_step(scores, ("prs", 1.0, 100), "median")


def test_tuning_runs_every_private_arm_at_every_step_at_the_papers_budget():
    profile = OnoProfile.paper()
    private = tuning.private_arms(profile)
    assert private == [("laplace", e, 1) for e in (1.0, 2.0, 5.0, 10.0)] + [
        ("prs", e, 100) for e in (1.0, 2.0, 5.0, 10.0)
    ]
    configs = tuning.tuning_configs(profile, private)
    assert len(configs) == 8 * len(profile.reference_steps)
    assert {c["trials_per_seed"] for c in configs} == {
        tuning.TUNING_TRIALS
    } and tuning.TUNING_TRIALS >= 10
    assert {c["n_submissions"] for c in configs} == {PAPER_CAP}
    assert all(
        algorithm_config(c, False).clip_value == DEFAULT_CLIP[c["mechanism"]] for c in configs
    )  # the paper's clip kept
    with pytest.raises(ValueError, match="trials must be >= 10"):
        tuning.tuning_configs(profile, private, trials=9)


def test_the_evaluation_seeds_are_fresh():
    """The evaluation's root is none of the tuning's, the earlier tuning's (reference and first
    tuned records) or the earlier evaluations' (root ``profile.seed``: the reference record, the
    paper record and the first tuned record), and its streams differ from all of theirs."""
    for profile in (OnoProfile.paper(), OnoProfile.quick(seed=3)):
        roots = tuning.seed_roots(profile)
        earlier = {profile.seed, profile.seed + TUNING_SEED_OFFSET}
        assert roots["evaluation"] not in earlier | {roots["tuning"]}
        assert roots["tuning"] not in earlier
        states = {}
        for name, root in [
            ("evaluation", roots["evaluation"]),
            ("tuning", roots["tuning"]),
            *(("earlier", r) for r in earlier),
        ]:
            for i in range(5):  # the first tuned record ran seed indices 0-4
                states.setdefault(tuple(seed_for(root, i).generate_state(4)), set()).add(name)
        assert all(len(names) == 1 for names in states.values())
        assert len(states) == 5 * (2 + len(earlier))


def test_evaluation_runs_each_arm_at_its_chosen_step_at_the_papers_budget():
    aucs = {
        ("prs", 1.0, 100, 0.3): [5.0] * 10,
        ("prs", 1.0, 100, 1.0): [1.0] * 10,
        ("laplace", 1.0, 1, 0.1): [3.0] * 10,
        ("laplace", 1.0, 1, 1.0): [1.0] * 10,
    }
    scores = tuning.step_scores(
        _tuning(aucs, {("prs", 1.0, 100, 1.0): 1, ("laplace", 1.0, 1, 0.1): 1})
    )
    arms = [("laplace", INF, 1), ("prs", 1.0, 100), ("laplace", 1.0, 1)]
    base, prs, lap = tuning.evaluation_configs(scores, arms)
    assert (prs["eta"], lap["eta"]) == (1.0, 0.1) and prs["n_submissions"] == PAPER_CAP
    assert {c["trials_per_seed"] for c in (base, prs, lap)} == {tuning.EVAL_TRIALS} == {20}
    assert base["eta"] == tuning.REFERENCE_BASELINE_STEP and base["clip"] == INF
    (other,) = tuning.sensitivity_configs(scores, arms)  # only where the criteria differ
    assert (other["mechanism"], other["eta"]) == ("prs", 0.3)


def test_the_recorder_tunes_and_evaluates_on_disjoint_seeds(tmp_path):
    out = tmp_path / "measurements" / "results"
    profile = OnoProfile.quick(epsilons=(1.0, INF), reference_steps=(0.1, 1.0))
    record = tuning.record_tuned(
        profile,
        Recording(cache_dir=tmp_path / "cache", directory=out),
        tuning_budget=60,
        budget=80,
        trials=4,
    )
    saved = json.loads((tmp_path / "measurements" / tuning.TUNED_RECORD_JSON).read_text())
    roots = tuning.seed_roots(profile)
    assert saved["profile"] == tuning.TUNED and record.parameters["tuning_trials"] == 10
    assert saved["parameters"]["tuning_root_seed"] == roots["tuning"]
    assert saved["parameters"]["evaluation_root_seed"] == roots["evaluation"]
    assert saved["produced_by"] == ["privrl.papers.ono2020.tuning"]
    read = tuning.recorded_tuned_run(out)
    assert list(read["tuning"].columns[:2]) == ["arm", "mechanism"]
    assert read["tuning"].groupby("step_size").size().to_dict() == {0.1: 20, 1.0: 20}
    scores, trials = read["scores"], read["trials"]
    for arm in tuning.private_arms(profile):
        chosen = tuning.evaluated_at(trials, scores)
        mine = chosen[(chosen.mechanism == arm[0]) & (chosen.epsilon == arm[1])]
        assert len(mine) == 4 and set(mine.step_size) == {tuning.chosen_step(scores, arm)}
        by_auc = tuning.evaluated_at(trials, scores, "auc")
        mine = by_auc[(by_auc.mechanism == arm[0]) & (by_auc.epsilon == arm[1])]
        assert len(mine) == 4 and set(mine.step_size) == {tuning.chosen_step(scores, arm, "auc")}
    assert len(trials) == 4 * (
        3 + len(tuning.sensitivity_configs(scores, tuning.private_arms(profile)))
    )
    # the evaluation's trials are not the tuning's: same arm and step, other streams
    arm, step = ("prs", 1.0, 100), tuning.chosen_step(scores, ("prs", 1.0, 100))
    evaluated = run_first_success(
        tuning._config(arm, step, 80, 4), seed_for(roots["evaluation"], 0)
    )
    recorded = trials[(trials.mechanism == "prs") & (trials.step_size == step)]
    np.testing.assert_array_equal(recorded.first_success, evaluated.first_success)
    assert tuning.recorded_tuned_run(tmp_path) is None
    fig = plots.plot_tuning_curves(scores)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert len(titles) == 2 and all("tuning successes" in t for t in titles)
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {
        "mean AUC with its 95% interval",
        "the chosen step (most tuning successes)",
        "the step of highest mean AUC (sensitivity)",
    }


def _trials(counts: dict[tuple[str, float], tuple[int, int]]) -> pd.DataFrame:
    rows = []
    for (mech, eps), (k, n) in counts.items():
        for i in range(n):
            rows.append(
                {
                    "variant": REFERENCE,
                    "mechanism": mech,
                    "epsilon": eps,
                    "trial": i,
                    "success": i < k,
                    "first_success": 1000.0 + i if i < k else INF,
                }
            )
    return pd.DataFrame(rows)


def _apart(trials: pd.DataFrame, rule: str = "most tuning successes") -> dict:
    """Every arm of ``trials`` tuned by ``rule`` on seed (1, 0), decided on seed (2, 0)."""
    return {
        (m, e): Tuning(f"{m} {e}", rule, frozenset({(1, 0)}), frozenset({(2, 0)}))
        for m, e in trials[["mechanism", "epsilon"]].drop_duplicates().itertuples(index=False)
    }


def test_the_claims_are_decided_on_the_recorded_arms_and_no_others():
    p = OnoProfile.quick()
    tuned = _trials(
        {
            ("laplace", INF): (20, 20),
            ("prs", 1.0): (60, 100),
            ("laplace", 5.0): (50, 60),
            ("prs", 5.0): (15, 60),
        }
    )
    state = OnoState(
        trials=_trials({("laplace", INF): (5, 5)}),
        curves=pd.DataFrame(),
        tuned_trials=tuned,
        recorded_tuned=Recorded({"git_commit": "abc123"}, PAPER_CAP, "recorded tuned arms"),
        tuned_tuning=_apart(tuned),
    )
    ctx = Context(p, Report("ono2020", p.profile, seed=p.seed, config=p.as_dict()), state=state)
    evidence = {ev.name: ev for ev in chapter.Ono2020Chapter().evidence(ctx)}
    ev = evidence["reference_tuned"]
    decided = {c.key: c for spec in claims.CLAIMS if (c := ev.decide(ctx, spec)) is not None}
    assert sorted(decided) == sorted(
        f"{k}{TUNED_RUN.suffix}"
        for k in (
            "baseline_learns",
            "prs_eps1_learns",
            "laplace_eps5_learns",
            "prs_eps5_learns",
            "median_fst_laplace_eps5",
            "median_fst_laplace_epsinf",
            "median_fst_prs_eps1",
            "median_fst_prs_eps5",
            "laplace_beats_prs_eps5",
        )
    )
    prs1 = decided["prs_eps1_learns_reference_tuned"]
    assert (prs1.verdict, prs1.n_trials, prs1.commit) == ("reproduced", 100, "abc123")
    assert prs1.statement.startswith(claims.TUNED_PREFIX)
    beats = decided["laplace_beats_prs_eps5_reference_tuned"]
    assert beats.verdict == "reproduced"  # 50/60 against 15/60, threshold 0.05
    assert decided["prs_eps5_learns_reference_tuned"].verdict == "not reproduced"  # 15/60 < 0.45


def test_the_sensitivity_reading_lists_the_claims_the_step_criterion_changes():
    p = OnoProfile.quick()
    ctx = Context(p, Report("ono2020", p.profile, seed=p.seed, config=p.as_dict()))
    base = {("laplace", INF): (20, 20), ("laplace", 5.0): (18, 20)}
    chosen = claims.TrialData(
        _trials({**base, ("prs", 1.0): (2, 20)}), pd.DataFrame(), PAPER_CAP, REFERENCE
    )
    other = claims.TrialData(
        _trials({**base, ("prs", 1.0): (15, 20)}), pd.DataFrame(), PAPER_CAP, REFERENCE
    )
    frame = claims.sensitivity(ctx, chosen, other)
    assert frame.key.tolist() == ["median_fst_prs_eps1", "prs_eps1_learns"]  # the claims' order
    ratio = frame.set_index("key").loc["prs_eps1_learns"]
    assert ratio.chosen.startswith("not reproduced: 0.1 [") and ratio.chosen.endswith("20 trials")
    assert ratio.other.startswith("reproduced: 0.75 [")  # 15/20 against half of 0.85
    table = page.sensitivity_table(frame)
    assert list(table.columns) == list(page.SENSITIVITY_COLUMNS.values())
    assert "not a verdict" in table.columns[2]
    assert claims.sensitivity(ctx, chosen, chosen).empty


def test_the_bottom_line_states_the_tuned_records_success_rates():
    """The front matter's bottom line is typed once from the tuned record: the share of trials
    in which PRS learns at epsilon = 1, 2 and 5 must be the record's, rounded to a percent."""
    from privrl.chapter.front import front_matter

    recorded = tuning.recorded_tuned_run()
    assert recorded is not None, "the tuned evaluation is recorded"
    trials = tuning.evaluated_at(recorded["trials"], recorded["scores"])
    prs = trials[trials.mechanism == "prs"].groupby("epsilon").success.mean()
    shares = (
        ", ".join(f"{100 * prs[eps]:.0f}%" for eps in (1.0, 2.0)) + f" and {100 * prs[5.0]:.0f}%"
    )
    line = " ".join(front_matter("ono2020").bottom_line.split())
    assert f"PRS learns in {shares} of trials at epsilon = 1, 2 and 5" in line


def test_the_bottom_line_counts_the_tuned_private_verdicts(book_summary):
    """The bottom line's counts of the tuned private claims (finite epsilon) are the book's
    verdicts: how many are reproduced, not reproduced and inconclusive."""
    from collections import Counter

    from privrl.chapter.front import front_matter

    claims = book_summary("ono2020")["claims"]
    private = [
        c
        for c in claims
        if c["key"].endswith("_reference_tuned")
        and "baseline" not in c["key"]
        and "epsinf" not in c["key"]
    ]
    counts = Counter(c["verdict"] for c in private)
    assert counts["reproduced"] == 0, counts
    line = " ".join(front_matter("ono2020").bottom_line.split())
    assert (
        f"none of the {len(private)} private claims is reproduced ({counts['not reproduced']} "
        f"not reproduced, {counts['inconclusive']} inconclusive"
    ) in line


def test_a_tuned_arm_decided_on_seeds_its_tuning_saw_is_untestable():
    """Validity condition 3 on the tuned evidence: the same counts are decided while the arms'
    deciding seeds are fresh, and untestable, naming the condition, once an arm's deciding seed
    is one its tuning looked at or the arms compared were tuned by different rules."""
    p = OnoProfile.quick()
    ctx = Context(p, Report("ono2020", p.profile, seed=p.seed, config=p.as_dict()))
    trials = _trials(
        {("laplace", INF): (20, 20), ("laplace", 5.0): (50, 60), ("prs", 5.0): (15, 60)}
    )
    key = "laplace_beats_prs_eps5"
    spec = next(s for s in claims.CLAIMS if s.key == key)

    def decided(how: dict) -> claims.Outcome:
        data = claims.TrialData(trials, pd.DataFrame(), PAPER_CAP, REFERENCE, how)
        return spec.decide(ctx, claims.Evidence("reference_tuned", p, data=data))

    fresh = _apart(trials)
    assert decided(fresh).verdict == "reproduced"
    seen = Tuning(
        "prs 5", "most tuning successes", frozenset({(1, 0), (2, 0)}), frozenset({(2, 0)})
    )
    peeked = decided({**fresh, ("prs", 5.0): seen})
    assert peeked.verdict == "untestable" and peeked.reason.startswith(
        "invalid measurement (tuned apart from the deciding trials, by one rule): prs 5 is "
        "decided on 1 of 1 seeds that were looked at before"
    )
    other = decided({**fresh, ("prs", 5.0): _apart(trials, "highest mean AUC")[("prs", 5.0)]})
    assert other.verdict == "untestable" and "tuned by different rules" in other.reason


def test_the_recorded_tuned_arms_are_decided_on_seeds_never_looked_at():
    """On the records: the reference set-up's arms were swept under root 10,007 and decided
    under root 0; the tuned record's private arms were tuned under 30,011 after the reference
    set-up's sweep and evaluation were seen, and decided under 20,011; its baseline stands at
    the reference set-up's step. Every arm passes condition 3."""
    from privrl.chapter.validity import tuned_apart

    p = OnoProfile.paper()
    ctx = Context(
        p, Report("ono2020", p.profile, seed=p.seed, config=p.as_dict()), state=OnoState()
    )
    chapter.Ono2020Chapter.load_recorded(ctx)
    reference, tuned = ctx.state.rec_reference_tuning, ctx.state.tuned_tuning
    assert reference is not None and tuned is not None
    assert {t.deciding for t in reference.values()} == {frozenset({(0, 0)})}
    assert {t.looked_at for t in reference.values()} == {frozenset({(TUNING_SEED_OFFSET, 0)})}
    roots = tuning.seed_roots(p)
    assert {t.deciding for t in tuned.values()} == {frozenset({(roots["evaluation"], 0)})}
    assert tuned[("prs", 1.0)].looked_at == {(0, 0), (TUNING_SEED_OFFSET, 0), (roots["tuning"], 0)}
    assert tuned[("laplace", INF)].rule == reference[("laplace", INF)].rule
    assert all(tuned_apart([t]) is None for t in [*reference.values(), *tuned.values()])
