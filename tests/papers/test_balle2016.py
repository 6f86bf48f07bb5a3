"""The Balle et al. (2016) chapter: typed profile, claims decided from per-trial values through
their specs, the rate helpers and the result of ``chapter.run`` (checks, claims, ledger, errata)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.decided import Decided
from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.records import recorded_claims
from privrl.chapter.report import Report
from privrl.chapter.sentences import sentences_frame
from privrl.chapter.skeleton import Context
from privrl.chapter.verdicts import VERDICTS, Claim
from privrl.papers.balle2016 import chapter, plots, rate, runs
from privrl.papers.balle2016.claims import CLAIMS, ERRATA, Figure1Trials
from privrl.papers.balle2016.profile import METHODS, PAPER_BATCHES, BalleProfile

TINY = BalleProfile.quick(
    n_states=10,
    n_trials=6,
    batch_sizes=(20, 60),
    reg_batch_sizes=(20,),
    reg_n=2,
    n_pairs=50,
    mc_samples=500,
    n_arbitrary=100,
)


@pytest.mark.parametrize(
    "field, value",
    [
        ("epsilon", 0.0),
        ("epsilon", -1.0),
        ("delta", 0.0),
        ("delta", 1.0),
        ("gamma", 1.0),
        ("p_stay", 1.0),
        ("return_bound", 0.0),
        ("n_trials", 0),
        ("group", 0),
        ("batch_sizes", (10,)),
        ("reg_log10_min", 5.0),
        ("n_pairs", 10),
    ],
)
def test_profile_rejects_out_of_range_values_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        BalleProfile.quick(**{field: value})


def test_profile_parameters_unknown_names_types_and_paper_scale():
    with pytest.raises(ValueError, match="n_runs"):
        BalleProfile.from_parameters("quick", n_runs=3)  # the old name is rejected
    with pytest.raises(ValueError, match="n_trials"):
        BalleProfile.quick(n_trials="many")
    assert BalleProfile.quick(batch_sizes=[10, 20]).batch_sizes == (10, 20)
    paper = BalleProfile.from_parameters("paper", epsilon=None, n_trials=None)
    assert paper.batch_sizes == PAPER_BATCHES and paper.n_trials == 20
    assert paper.epsilon == 0.1 and paper.delta == 0.1
    with pytest.raises(ValueError, match="profile"):
        chapter.run({"epsilon": 0.1})


def _frame(values: dict[tuple[str, str, int], list[float]]) -> pd.DataFrame:
    rows = [
        dict(
            features=f,
            method=meth,
            m=m,
            seed=i,
            c=np.nan,
            default_c=True,
            rmse=v,
            excess_risk=v,
            sigma=v,
        )
        for (f, meth, m), vs in values.items()
        for i, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


def _decide(df: pd.DataFrame, profile: BalleProfile) -> dict:
    """Every claim of the chapter decided on ``df`` as Figure 1's table, by key."""
    ctx = Context(profile, Report("balle2016", profile.profile))
    ev = Evidence(LIVE, profile, data=Figure1Trials(df))
    return {spec.key: ev.decide(ctx, spec) for spec in CLAIMS}


def test_claim_and_erratum_specs_are_complete():
    keys = [spec.key for spec in CLAIMS]
    assert len(set(keys)) == len(keys) == 10
    assert all(spec.statement and spec.source.startswith("Section ") for spec in CLAIMS)
    errata = [e.key for e in ERRATA]
    assert len(set(errata)) == len(errata)
    assert {f"{k}_not_reproduced" for k in keys} <= set(errata)


def test_claims_are_decided_from_per_trial_values():
    profile = BalleProfile.quick(batch_sizes=(10, 100), n_trials=8)
    rng = np.random.default_rng(0)
    noise = lambda: list(1 + 0.01 * rng.standard_normal(8))  # noqa: E731
    values = {}
    for f in ("tabular", "aggregated"):
        for m in (10, 100):
            shrink = 1.0 if m == 10 else 0.5
            values[(f, "LSW", m)] = [0.5 * v for v in noise()]
            values[(f, "LSL", m)] = [shrink * v for v in noise()]
            values[(f, "DP-LSW", m)] = [(3.0 if f == "tabular" else shrink) * v for v in noise()]
            values[(f, "DP-LSL", m)] = [(2.0 if f == "tabular" else 0.9) * v for v in noise()]
    claims = _decide(_frame(values), profile)
    assert claims["nonprivate_converge"].verdict == "reproduced"
    assert claims["dp_noise_decreases"].verdict == "reproduced"
    assert claims["lsw_faster"].verdict == "inconclusive"  # 0.5 against 0.5 at m = 100
    assert claims["dp_lsw_reaches_lsw"].verdict == "reproduced"  # ratio 1 at m = 100
    assert claims["dp_lsl_reaches_lsl"].verdict == "reproduced"  # ratio 1.8
    assert claims["dp_lsl_better_small"].verdict == "reproduced"  # 0.9 against 1 at m = 10
    assert claims["dp_lsw_better_large"].verdict == "reproduced"  # 0.5 against 0.9 at m = 100
    assert claims["aggregation_helps_dp_lsw"].verdict == "reproduced"
    assert claims["lsl_schedule"].verdict == "untestable"
    assert all(c.n_trials == 8 for c in claims.values())

    few = {k: v[:3] for k, v in values.items()}
    claims = _decide(_frame(few), profile)
    assert {c.verdict for c in claims.values()} == {"untestable"}
    assert "too few trials" in claims["nonprivate_converge"].reason


def test_per_trial_orders_by_seed_and_keeps_the_default_c():
    df = _frame({("tabular", "LSW", 10): [3.0, 1.0, 2.0]})
    df["seed"] = [2, 0, 1]
    df = pd.concat([df, df.assign(default_c=False, rmse=99.0)])
    assert runs.per_trial(df, "tabular", "LSW", 10).tolist() == [1.0, 2.0, 3.0]


def test_rate_onset_finds_where_the_slope_settles():
    m = np.geomspace(10, 1e6, 21)
    var = np.where(m < 1e4, 1.0 / m, 1e4 / m**2)  # slope -1, then -2 from 1e4
    table = pd.DataFrame(dict(features="tabular", m=m.astype(np.int64), noise_var=var))
    assert rate.rate_onset(table)["tabular"] == 10_000
    assert rate.log_slope(m, m**-2.0) == pytest.approx(-2.0)


def test_expected_counts_and_noise_rate_shrink_with_m():
    counts = rate.expected_counts(TINY, 900)
    assert counts[0] == 100 and counts[-2] == 900 and counts[-1] == 900
    table = rate.noise_rate(TINY, np.array([100, 10_000]))
    for _, g in table.groupby("features"):
        assert g["noise_var"].is_monotonic_decreasing


@pytest.fixture(scope="module")
def tiny_result():
    return chapter.run(TINY, executor="serial")


def test_run_records_checks_claims_ledger_and_errata(tiny_result):
    report = tiny_result.report
    assert {c.key for c in report.checks} == {
        "simulation",
        "closed_forms",
        "smooth_bounds",
        "lemma1_a",
        "lemma1_b",
        "lsw_sensitivity_arbitrary",
        "lsl_sensitivity_arbitrary",
        "privacy_loss",
        "rate_m2_asymptotic",
    }
    assert all(c.passed for c in report.checks)
    live = [c for c in report.claims if c.profile == "quick"]
    assert len(live) == 10 and all(c.key.endswith("_paper") for c in report.claims[10:])
    assert {(e.release.split()[0], e.epsilon, e.delta) for e in report.entries} == {
        ("DP-LSW", 0.1, 0.1),
        ("DP-LSL", 0.1, 0.1),
    }
    assert len(report.entries) == 4
    keys = {e.key for e in report.errata}
    assert {"reward_placement", "equations_missing", "rate_m2_far_beyond_range"} <= keys
    # the errata follow the verdicts the book reports (the record's, beside this quick run) and
    # cite the numbers of the run that decided them
    decided = {d.key: d.claim for d in report.decided_claims()}
    not_reproduced = {k: c for k, c in decided.items() if c.verdict == "not reproduced"}
    assert {k for k in keys if k.endswith("_not_reproduced")} == {
        f"{k}_not_reproduced" for k in not_reproduced
    }
    for e in report.errata:
        if e.key.endswith("_not_reproduced"):
            claim = not_reproduced[e.key.removesuffix("_not_reproduced")]
            assert e.evidence.endswith(claim.evidence_text()) and claim.key in e.evidence
    assert {e.cross_check.kind for e in report.entries} == {"empirical"}
    assert all(e.recomputed_epsilon() == pytest.approx(e.epsilon, rel=1e-9) for e in report.entries)
    assert set(tiny_result.tables) == {
        "figure1",
        "smooth_bounds",
        "neighbours",
        "arbitrary",
        "privacy_loss",
        "noise_rate",
        "rmse",
    }
    numbers = tiny_result.state.numbers
    assert numbers["rate_onset_tabular"] > max(PAPER_BATCHES) and numbers["epsilon"] == 0.1
    summary = report.summary()
    assert summary["checks"] and summary["claims"] and summary["ledger"] and summary["errata"]


def test_run_tables_are_tidy(tiny_result):
    fig = tiny_result.table("figure1")
    assert set(fig["method"]) == set(METHODS)
    assert fig.groupby(["m", "features", "method", "c"], dropna=False)["seed"].nunique().eq(6).all()
    assert (fig["excess_risk"] >= -1e-9).all()
    assert len(tiny_result.table("privacy_loss")) == 4
    assert (tiny_result.table("privacy_loss")["delta_upper"] <= TINY.delta).all()


def test_mean_rmse_table_averages_trials_at_the_default_c():
    df = _frame(
        {("aggregated", "DP-LSW", 10): [1.0, 3.0], ("aggregated", "DP-LSW", 20): [5.0, 7.0]}
    )
    df = pd.concat([df, df.assign(default_c=False, rmse=100.0)])
    table = runs.mean_rmse_table(df)
    assert table.loc[("aggregated", "DP-LSW")].tolist() == [2.0, 6.0]


def test_figure1_sentences_stand_beside_their_verdicts():
    """Every sentence of Section 6 on Figure 1 is quoted from the paper's numbers file and
    shown with the decided verdicts of existing claims (never typed)."""
    from privrl.papers.balle2016 import plots

    keys = [s.key for s in CLAIMS]
    assert {k for ks in plots.FIGURE1_SENTENCES.values() for k in ks} <= set(keys)
    decided = [
        Decided(k, Claim(VERDICTS[i % 4], "", None, None, 1, "", key=k + "_paper", statement="s"))
        for i, k in enumerate(keys)
    ]
    table = sentences_frame("balle2016", plots.FIGURE1_SENTENCES, decided)
    assert len(table) == len(plots.FIGURE1_SENTENCES)
    row = list(plots.FIGURE1_SENTENCES).index("fig1_noise_decreases")
    verdict = VERDICTS[keys.index("dp_noise_decreases") % 4]
    assert table.verdict[row] == f"dp_noise_decreases: {verdict}"
    assert "noise introduced by the DP mechanism decreases" in table["the paper says"][row]
    with pytest.raises(ValueError, match="lsl_schedule"):
        sentences_frame(
            "balle2016", plots.FIGURE1_SENTENCES, [d for d in decided if d.key != "lsl_schedule"]
        )


def test_the_decided_figure_draws_the_table_that_decided_the_recorded_claims():
    """The record's per-trial table, which the figure beside the verdicts draws, decides every
    claim again to the record's verdict, statistic, interval and trials, to the last bit."""
    exhibit = plots.EXHIBITS["fig-balle2016-decided"]
    data = exhibit.read()
    recorded = recorded_claims("balle2016", suffix=exhibit.suffix)
    if data is None or not recorded:
        pytest.skip("no recorded paper-profile run")
    again = _decide(data["figure1"], BalleProfile.paper())
    assert data["figure1"].groupby("m")["seed"].nunique().eq(20).all()
    for claim in recorded:
        key = claim.key.removesuffix(exhibit.suffix)
        got = again[key]
        assert (got.verdict, got.value, got.interval, got.n_trials) == (
            claim.verdict,
            claim.value,
            claim.interval,
            claim.n_trials,
        ), key
