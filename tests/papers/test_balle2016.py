"""The Balle et al. (2016) experiment module: typed profile, claims from per-trial values, the
rate helpers and the result of ``run`` (checks, claims, ledger, errata)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privrl.papers.balle2016 import chapter as exp

TINY = exp.BalleProfile.quick(
    n_states=10, n_trials=6, batch_sizes=(20, 60), reg_batch_sizes=(20,), reg_n=2,
    n_pairs=50, mc_samples=500, n_arbitrary=100,
)


@pytest.mark.parametrize(
    "field, value",
    [("epsilon", 0.0), ("epsilon", -1.0), ("delta", 0.0), ("delta", 1.0), ("gamma", 1.0),
     ("p_stay", 1.0), ("return_bound", 0.0), ("n_trials", 0), ("group", 0),
     ("batch_sizes", (10,)), ("reg_log10_min", 5.0), ("n_pairs", 10)],
)
def test_profile_rejects_out_of_range_values_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        exp.BalleProfile.quick(**{field: value})


def test_profile_parameters_unknown_names_types_and_paper_scale():
    with pytest.raises(ValueError, match="n_runs"):
        exp.BalleProfile.from_parameters("quick", n_runs=3)  # the old name is rejected
    with pytest.raises(ValueError, match="n_trials"):
        exp.BalleProfile.quick(n_trials="many")
    assert exp.BalleProfile.quick(batch_sizes=[10, 20]).batch_sizes == (10, 20)
    paper = exp.BalleProfile.from_parameters("paper", epsilon=None, n_trials=None)
    assert paper.batch_sizes == exp.PAPER_BATCHES and paper.n_trials == 20
    assert paper.epsilon == 0.1 and paper.delta == 0.1
    with pytest.raises(ValueError, match="profile"):
        exp.run({"epsilon": 0.1})


def _frame(values: dict[tuple[str, str, int], list[float]]) -> pd.DataFrame:
    rows = [dict(features=f, method=meth, m=m, seed=i, c=np.nan, default_c=True, rmse=v,
                 excess_risk=v, sigma=v)
            for (f, meth, m), vs in values.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows)


def test_claims_are_decided_from_per_trial_values():
    profile = exp.BalleProfile.quick(batch_sizes=(10, 100), n_trials=8)
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
    claims = {c.key: c for c in exp.decide_claims(_frame(values), profile)}
    assert claims["nonprivate_converge"].verdict == "reproduced"
    assert claims["dp_noise_decreases"].verdict == "reproduced"
    assert claims["lsw_faster"].verdict == "not reproduced"  # 0.5 against 0.5 at m = 100
    assert claims["dp_lsw_reaches_lsw"].verdict == "reproduced"  # ratio 1 at m = 100
    assert claims["dp_lsl_reaches_lsl"].verdict == "reproduced"  # ratio 1.8
    assert claims["dp_lsl_better_small"].verdict == "reproduced"  # 0.9 against 1 at m = 10
    assert claims["dp_lsw_better_large"].verdict == "reproduced"  # 0.5 against 0.9 at m = 100
    assert claims["aggregation_helps_dp_lsw"].verdict == "reproduced"
    assert claims["lsl_schedule"].verdict == "untestable"
    assert all(c.n_trials == 8 for c in claims.values())

    few = {k: v[:3] for k, v in values.items()}
    claims = exp.decide_claims(_frame(few), profile)
    assert {c.verdict for c in claims} == {"untestable"}
    assert "too few trials" in claims[0].reason


def test_per_trial_orders_by_seed_and_keeps_the_default_c():
    df = _frame({("tabular", "LSW", 10): [3.0, 1.0, 2.0]})
    df["seed"] = [2, 0, 1]
    df = pd.concat([df, df.assign(default_c=False, rmse=99.0)])
    assert exp.per_trial(df, "tabular", "LSW", 10).tolist() == [1.0, 2.0, 3.0]


def test_rate_onset_finds_where_the_slope_settles():
    m = np.geomspace(10, 1e6, 21)
    var = np.where(m < 1e4, 1.0 / m, 1e4 / m**2)  # slope -1, then -2 from 1e4
    rate = pd.DataFrame(dict(features="tabular", m=m.astype(np.int64), noise_var=var))
    assert exp.rate_onset(rate)["tabular"] == 10_000
    assert exp.log_slope(m, m**-2.0) == pytest.approx(-2.0)


def test_expected_counts_and_noise_rate_shrink_with_m():
    counts = exp.expected_counts(TINY, 900)
    assert counts[0] == 100 and counts[-2] == 900 and counts[-1] == 900
    rate = exp.noise_rate(TINY, np.array([100, 10_000]))
    for _, g in rate.groupby("features"):
        assert g["noise_var"].is_monotonic_decreasing


@pytest.fixture(scope="module")
def tiny_result():
    return exp.run(TINY, executor="serial")


def test_run_records_checks_claims_ledger_and_errata(tiny_result):
    report = tiny_result.report
    assert {c.key for c in report.checks} == {
        "simulation", "closed_forms", "smooth_bounds", "lemma1_a", "lemma1_b",
        "lsw_sensitivity_arbitrary", "lsl_sensitivity_arbitrary", "privacy_loss",
        "rate_m2_asymptotic"}
    assert all(c.passed for c in report.checks)
    assert len(report.claims) == 10
    assert {(e.release.split()[0], e.epsilon, e.delta) for e in report.entries} == {
        ("DP-LSW", 0.1, 0.1), ("DP-LSL", 0.1, 0.1)}
    assert len(report.entries) == 4
    keys = {e.key for e in report.errata}
    assert {"reward_placement", "equations_missing", "rate_m2_far_beyond_range"} <= keys
    assert all(f"{c.key}_not_reproduced" in keys for c in report.claims
               if c.verdict == "not reproduced")
    summary = report.summary()
    assert summary["checks"] and summary["claims"] and summary["ledger"] and summary["errata"]


def test_run_tables_are_tidy(tiny_result):
    fig = tiny_result.table("figure1")
    assert set(fig["method"]) == set(exp.METHODS)
    assert fig.groupby(["m", "features", "method", "c"], dropna=False)["seed"].nunique().eq(6).all()
    assert (fig["excess_risk"] >= -1e-9).all()
    assert len(tiny_result.table("privacy_loss")) == 4
    assert (tiny_result.table("privacy_loss")["delta_upper"] <= TINY.delta).all()


def test_mean_rmse_table_averages_trials_at_the_default_c():
    df = _frame({("aggregated", "DP-LSW", 10): [1.0, 3.0], ("aggregated", "DP-LSW", 20): [5.0, 7.0]})
    df = pd.concat([df, df.assign(default_c=False, rmse=100.0)])
    table = exp.mean_rmse_table(df)
    assert table.loc[("aggregated", "DP-LSW")].tolist() == [2.0, 6.0]
