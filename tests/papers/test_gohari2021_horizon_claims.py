"""gohari2021's claims on the record at the paper's horizon (keys ``*_horizon``): read back from a
results folder as the horizon recorder writes it, decided on the arms that record ran (plain PPO
(32, 32) and (64, 64), the aware student with random answers, with a silent teacher and with the
union radius), not decided on the arms it did not run (kickstarting, the unaware student), named
and scaled as that record, and deciding over the 450-roll-out design."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.decided import decided_claims
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.verdicts import Claim
from privrl.papers.gohari2021 import claims
from privrl.papers.gohari2021.horizon import UNION, horizon_labels, horizon_profile
from privrl.papers.gohari2021.profile import AWARE, GohariProfile
from privrl.papers.gohari2021.recorded import (
    BASE_COLUMNS,
    HORIZON,
    load_paper_curves,
    recorded_analysis,
)
from privrl.papers.gohari2021.runs import after_budget_label
from privrl.papers.gohari2021.sources import SOURCES

SILENT = after_budget_label("silent")
#: Random play and the teacher: X_0.5 = 500; random play's spread as the recorder measures it
#: (standard error over 30 episodes: a mean of 10 random episodes stays below about 270).
REFERENCES = {"random": 200.0, "random_se": 10.0, "episodes": 30, "teacher": 800.0}
EPOCHS, SEEDS, STEPS = 500, 5, 1000
#: Roll-out at which each arm's curve reaches the teacher's level, and its level at the end.
ARMS = {
    "PPO (32, 32)": (300, 700.0),
    "PPO (64, 64)": (400, 800.0),
    AWARE: (100, 900.0),
    SILENT: (100, 900.0),
    UNION: (100, 600.0),
}


def _curves(arms: dict[str, tuple[int, float]], rng: np.random.Generator) -> pd.DataFrame:
    """Tidy curves in the recorder's columns: each arm climbs linearly from random play to
    ``level`` by roll-out ``reach``, then stays there, with noise of sd 10 per roll-out."""
    rows = []
    e = np.arange(EPOCHS)
    for label, (reach, level) in arms.items():
        for seed in range(SEEDS):
            mean = (
                np.minimum(e / reach, 1.0) * (level - REFERENCES["random"]) + REFERENCES["random"]
            )
            ret = mean + 10 * rng.standard_normal(EPOCHS)
            private = label != "PPO (32, 32)" and label != "PPO (64, 64)"
            queries = np.cumsum(np.where(e < 50, STEPS, 0)) if private else np.zeros(EPOCHS)
            allowed = np.cumsum(np.where(e < 50, STEPS, 0)) if private else np.full(EPOCHS, np.inf)
            rows.append(
                pd.DataFrame(
                    {
                        "config": label,
                        "seed": seed,
                        "rollout": e,
                        "env_steps": (e + 1) * STEPS,
                        "avg_return": ret,
                        "epsilon_spent": 0.0,
                        "queries": queries,
                        "queries_allowed": allowed,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


@pytest.fixture
def horizon(tmp_path):
    """A horizon record in a results folder as the recorder writes it (curves and run record)."""
    profile = horizon_profile(n_trials=SEEDS, epochs=EPOCHS)
    results = tmp_path / "measurements" / "results"
    results.mkdir(parents=True)
    _curves(ARMS, np.random.default_rng(0)).to_csv(
        results / "gohari2021-horizon-curves.csv", index=False
    )
    record = {
        "notebook": "gohari2021",
        "profile": HORIZON,
        "parameters": profile.as_dict(),
        "git_commit": "abc1234",
        "references": REFERENCES,
        "thresholds": {"0.5": 500.0},
        "run_core_seconds": 1.0,
        "wall_time_s": 1.0,
    }
    (tmp_path / "measurements" / "gohari2021-horizon.json").write_text(json.dumps(record))
    return recorded_analysis(*load_paper_curves(results, name=HORIZON))


def _decide(rec) -> dict[str, Claim]:
    ev = claims.on_record(rec)
    ctx = Context(GohariProfile.quick(), Report("gohari2021", "quick"))
    decided = {}
    for spec in claims.CLAIMS:
        claim = ev.decide(ctx, spec)
        if claim is not None:
            decided[claim.key] = claim
    return decided


def test_the_horizon_record_is_read_named_and_scaled_as_itself(horizon):
    assert horizon.name == HORIZON and horizon.labels == set(ARMS)
    assert set(horizon.speedup["treated"]) == {AWARE}  # no kickstarting arm in the record
    assert "recorded AirRaid run at the paper's horizon" in horizon.source
    assert horizon.scale == f"5 of the paper's 30 seeds, {EPOCHS} of its 4,000 roll-outs"
    ev = claims.on_record(horizon)
    assert ev.suffix == "_horizon" and ev.record == HORIZON and ev.scale == horizon.scale


def test_claims_on_the_arms_it_ran_are_decided_and_the_others_are_not(horizon):
    decided = _decide(horizon)
    assert set(decided) == {
        f"{k}_horizon"
        for k in (
            "small_ppo_below_teacher_sized",
            "speedup_aware",
            "aware_beats_small_ppo",
            "random_answers_harmless",
            "budget_respected",
            "aware_beats_small_ppo_union_beyond",
            "random_answers_harmless_union_beyond",
        )
    }
    assert decided["small_ppo_below_teacher_sized_horizon"].verdict == "reproduced"  # 700, 800
    # aware: X_0.5 at roll-out ~50 against PPO (64, 64)'s ~200: 4 times, above the paper's half
    assert decided["speedup_aware_horizon"].verdict == "reproduced"
    assert decided["speedup_aware_horizon"].value == pytest.approx(4.0, rel=0.15)
    assert decided["aware_beats_small_ppo_horizon"].verdict == "reproduced"  # 900 against 700
    assert decided["aware_beats_small_ppo_union_beyond_horizon"].verdict == "not reproduced"
    assert decided["random_answers_harmless_horizon"].verdict == "inconclusive"  # 900 and 900
    assert decided["budget_respected_horizon"].verdict == "reproduced"
    for claim in decided.values():
        assert claim.profile == HORIZON and claim.commit == "abc1234"
        assert claim.scale == horizon.scale
        # seeds per arm; the budget counts every private run (3 arms x 5 seeds)
        assert claim.n_trials == (3 * SEEDS if claim.key.startswith("budget") else SEEDS)


def test_the_horizon_decides_over_the_design_where_both_decide(horizon):
    design = Claim(
        verdict="inconclusive",
        statistic="",
        value=None,
        interval=None,
        n_trials=10,
        reason="",
        key="aware_beats_small_ppo_airraid",
        statement="",
        profile="design",
        commit="def5678",
    )
    unaware = Claim(
        verdict="not reproduced",
        statistic="",
        value=None,
        interval=None,
        n_trials=10,
        reason="",
        key="aware_beats_unaware_airraid",
        statement="",
        profile="design",
        commit="def5678",
    )
    rows = {
        d.key: d for d in decided_claims([design, unaware, *_decide(horizon).values()], SOURCES)
    }
    assert rows["aware_beats_small_ppo"].claim.key == "aware_beats_small_ppo_horizon"
    assert rows["aware_beats_unaware"].claim.key == "aware_beats_unaware_airraid"


def test_a_horizon_record_without_its_arms_or_with_a_wrong_name_is_refused(tmp_path, horizon):
    assert load_paper_curves(tmp_path / "nothing", name=HORIZON) is None
    with pytest.raises(ValueError, match="name must be one of"):
        load_paper_curves(tmp_path, name="paper")
    assert set(BASE_COLUMNS) <= set(
        pd.read_csv(tmp_path / "measurements" / "results" / "gohari2021-horizon-curves.csv").columns
    )
    assert horizon_labels(horizon.profile) == tuple(ARMS)


def test_the_bottom_line_names_the_scale_of_the_record_that_decides_result_ii():
    """Result (ii) is decided on the record at the paper's horizon once it is in the book, on
    the design before: the front matter's bottom line (typed once) must name that record's
    scale, so a landed horizon record cannot leave the design's words standing."""
    from privrl.chapter.front import front_matter

    line = " ".join(front_matter("gohari2021").bottom_line.split())
    deciding = load_paper_curves(name=HORIZON) or load_paper_curves()
    assert deciding is not None, "the design is recorded"
    assert recorded_analysis(*deciding).scale in line


def test_random_play_reaches_the_records_lowest_threshold_only():
    """Validity condition 1 on the recorded thresholds (random play 503 +- 230 over 30 episodes,
    10 episodes in a window of 10 roll-outs): a mean of 10 random episodes exceeds 788.5 with
    probability 0.001, so X_0.5 = 885 (the speed-up claims' threshold) and X_0.75 = 1,076 pass
    and X_0.25 = 694 does not (no claim is decided on it)."""
    for name in (None, HORIZON):
        rec = recorded_analysis(
            *(load_paper_curves() if name is None else load_paper_curves(name=name))
        )
        refs, levels = rec.record["references"], rec.record["thresholds"]
        assert claims.fewest_episodes(rec.profile) == 10
        passed = {
            q: claims.random_play_condition(x, refs, rec.profile) is None for q, x in levels.items()
        }
        assert passed == {"0.25": False, "0.5": True, "0.75": True}
