"""The xie2019 chapter package: profile validation, the settings' grid search, the convergence
gate statistic, the paper-points CSV writer, the ledger entries of GPOPE releases, and the claim
and erratum specs of the chapter."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import CrossCheck
from privrl.chapter.records import recorded_run, recorded_summary
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.verdicts import CheckFailed, Claim
from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.accounting.subsampled import (
    GpopeEvent,
    dp_accounting_epsilon,
    gpope_epsilon,
    gpope_pld_epsilon,
)
from privrl.papers.xie2019 import chapter, claims, domains, points, privacy
from privrl.papers.xie2019.points import FigureData
from privrl.papers.xie2019.profile import PAPER_SIZES, XieProfile
from privrl.papers.xie2019.sources import PAPER_RUN
from privrl.papers.xie2019.state import XieState

GRID = Path(__file__).resolve().parents[2] / "privrl" / "data" / "xie2019" / "gtd2_grid.csv"


def test_profiles_and_validation():
    quick, paper = XieProfile.quick(), XieProfile.paper()
    assert paper.n_trials == 100 and paper.chain_sizes == PAPER_SIZES
    assert quick.profile == "quick" and quick.n_trials >= 5
    with pytest.raises(ValueError, match="unknown parameter"):
        XieProfile.from_parameters("quick", n_runs=3)
    with pytest.raises(ValueError, match="epsilon"):
        XieProfile.quick(epsilon=-1.0)
    with pytest.raises(ValueError, match="mc_epsilons"):
        XieProfile.quick(mc_epsilons=())
    with pytest.raises(ValueError, match="hiv_pool_size"):
        XieProfile.quick(hiv_n=(500,))
    with pytest.raises(ValueError, match="sensitivity_n"):
        XieProfile.quick(sensitivity_n=7)
    assert XieProfile.from_parameters("quick", mc_n=[100, 200]).mc_n == (100, 200)


def test_committed_grid_search_gives_the_settings():
    # The committed grid (tune_domain on public seeds) and the documented rule reproduce SETTINGS.
    grid = pd.read_csv(GRID)
    assert set(grid.domain) == set(domains.DOMAINS)
    for domain, table in grid.groupby("domain"):
        pick = domains.choose_settings(table)
        s = domains.SETTINGS[domain]
        assert (pick.schedule, int(pick.iterations), pick.step_size) == (
            s.schedule,
            s.iterations,
            s.step_size,
        )


def test_choose_settings_rule():
    grid = pd.DataFrame(
        {
            "schedule": ["constant", "diminishing", "diminishing", "constant"],
            "iterations": [100, 100, 400, 400],
            "step_size": [1.0, 2.0, 1.0, 1.0],
            "gate": [0.004, 0.003, 0.0001, 0.0001],
        }
    )
    pick = domains.choose_settings(grid)
    assert (pick.schedule, pick.iterations, pick.step_size) == ("diminishing", 100, 2.0)
    with pytest.raises(ValueError, match="gate"):
        domains.choose_settings(grid.assign(gate=1.0))


def test_gate_statistic():
    t = pd.DataFrame(
        {
            "domain": "d",
            "n": 10,
            "seed": [0, 0, 0, 1, 1, 1],
            "method": ["LSTD", "zero", "GTD2"] * 2,
            "mspbe": [0.0, 1.0, 0.01, 0.0, 1.0, 0.03],
        }
    )
    g = domains.gate_excess(t).iloc[0]
    assert g.gate == pytest.approx(0.02) and g.GTD2 == pytest.approx(0.02)


def test_whitening_conditions_m():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(5, 11, 3))
    phi = np.concatenate([base, base[..., :1] * 1e3 + 1e-6 * rng.normal(size=(5, 11, 1))], axis=2)
    mask = np.ones((5, 10), dtype=bool)
    W = domains.whitening(phi, mask)
    cur = (phi[:, :-1] @ W)[mask]
    assert np.allclose(cur.T @ cur / len(cur), np.eye(W.shape[1]), atol=1e-8)


def _points_tables() -> dict[str, pd.DataFrame]:
    chain = pd.DataFrame(
        {
            "method": ["GPOPE", "DP-LSW", "LSTD", "GTD2", "zero", "GPOPE (step x5)"],
            "n": 10,
            "mspbe": [1.0, 2.0, 0.1, 0.2, 3.0, 4.0],
            "seed": 0,
            "epsilon": 0.1,
        }
    )
    tables = {"chain_compare": chain}
    for domain in domains.DOMAINS:
        ref = "LSTD" if domain == "mountain_car_on" else "WIS-LSTD"
        t = pd.DataFrame(
            {
                "domain": domain,
                "n": 20,
                "method": [ref, "zero", "GTD2", "GPOPE"],
                "epsilon": [np.nan, np.nan, np.nan, 1.0],
                "mspbe": [0.1, 1, 0.2, 0.5],
                "seed": 3,
            }
        )
        if domain == "hiv":
            t["relative_mspbe"] = t.mspbe * 10
        tables[domain] = t
    tables["mc_lsw"] = pd.DataFrame(
        {
            "domain": "mountain_car_on",
            "n": 20,
            "seed": 3,
            "method": ["LSTD", "LSW", "DP-LSW"],
            "grid": [0, 10, 10],
            "epsilon": [np.nan, np.nan, 1.0],
            "mspbe": [0.1, 1, 9],
        }
    )
    return tables


def test_paper_points_writer_round_trip(tmp_path):
    pts = points.paper_points(_points_tables())
    assert list(pts.columns) == list(points.POINT_COLUMNS)
    # zero and mis-tuned runs dropped; (DP-)LSW on a Mountain Car grid labelled by its grid
    assert set(pts.method) <= set(points.POINT_METHODS) | {"LSW 10x10", "DP-LSW 10x10"}
    assert pts[pts.method == "DP-LSW 10x10"].mspbe.item() == 9
    assert set(pts.domain) == set(points.POINT_DOMAINS)
    hiv = pts[pts.domain == "hiv"]
    assert hiv.mspbe.max() == pytest.approx(5.0)  # HIV stores the relative MSPBE (GPOPE 0.5 x 10)
    assert pts.query("domain == 'chain' and method == 'LSTD'").epsilon.isna().all()
    path = points.write_paper_points(pts, tmp_path / "points.csv")
    back = points.read_paper_points(path)
    pd.testing.assert_frame_equal(back, pts.reset_index(drop=True), check_dtype=False)
    with pytest.raises(ValueError, match="methods"):
        points.write_paper_points(pts.assign(method="LSW"), tmp_path / "bad.csv")
    with pytest.raises(ValueError, match="columns"):
        points.write_paper_points(pts.drop(columns="trial"), tmp_path / "bad.csv")
    summary = points.summarise_points(pts)
    assert summary["count"].min() >= 1


def test_release_ledger_entry_is_tight_and_raises_on_understatement():
    report = Report("xie2019", "quick")
    rel = privacy.GpopeBudget("chain", 1000, 2000, 0.1, 0.1, 0.05)
    row = privacy.release_row(rel)
    entry = report.ledger(privacy.ledger_entry(rel, row))
    assert entry.relation == "replace-one" and entry.unit == "trajectory"
    assert entry.compositions == 2000 and entry.epsilon <= 0.1
    # the event is the GPOPE run the epsilon was computed from; it survives JSON
    assert entry.event == GpopeEvent(row["noise_multiplier"], 1000, 2000)
    assert event_from_dict(event_to_dict(entry.event)).epsilon(0.1) == entry.epsilon
    # the cross-check is the tight PLD figure on the same z, which the RDP figure is never below
    # (vacuous at the chain's delta = 0.1, where that figure is 0; a delta of 1e-5 below);
    # dp-accounting's RDP on its default orders agrees within 1% here (the accounting_tight check)
    assert (
        entry.cross_check.kind == "upper bound" and entry.cross_check.method == privacy.CROSS_CHECK
    )
    assert row["epsilon_pld"] == 0 and entry.cross_check.vacuous
    tight = privacy.GpopeBudget("mountain_car", 300, 5000, 4.0, 1e-5, 0.05)
    tight_row = privacy.release_row(tight)
    tight_entry = report.ledger(privacy.ledger_entry(tight, tight_row))
    assert tight_entry.cross_check.epsilon == tight_row["epsilon_pld"] > 0
    assert tight_entry.cross_check_gap() < 0 and not tight_entry.cross_check.vacuous
    assert row["epsilon_dp_accounting"] == dp_accounting_epsilon(
        row["noise_multiplier"], 1000, 2000, 0.1
    )
    assert entry.epsilon == pytest.approx(row["epsilon_dp_accounting"], rel=0.01)
    # halving the noise multiplier must raise the epsilon above the target
    assert gpope_epsilon(row["noise_multiplier"] / 2, 1000, 2000, 0.1) > 0.1
    # beyond the paper: the tight PLD figure beside the RDP one, in the row and the entry's text
    assert row["epsilon_pld"] == gpope_pld_epsilon(row["noise_multiplier"], 1000, 2000, 0.1)
    assert row["epsilon_pld"] <= row["epsilon"]
    assert entry.accountant.endswith(f"{privacy.PLD_BESIDE} {row['epsilon_pld']:.4g}")
    # an entry whose event understates epsilon by more than 1% is refused (its epsilon is the
    # event's: none is stated beside it)
    weaker = GpopeEvent(2 * tight_row["noise_multiplier"], 300, 5000)
    with pytest.raises(CheckFailed):
        report.ledger(replace(tight_entry, event=weaker))
    with pytest.raises(ValueError, match="epsilon"):
        replace(entry, epsilon=0.9 * entry.epsilon)
    with pytest.raises(CheckFailed, match="upper bound"):
        report.ledger(
            replace(entry, cross_check=CrossCheck("upper bound", "x", 1.1 * entry.epsilon))
        )


def test_pld_figure_is_below_the_rdp_figure_at_a_domain_release():
    """Mountain Car's quick release (n = 300, T = 5000, epsilon 4 at delta 1e-5): the tight PLD
    figure is well below the paper's RDP accountant's, which stays the reported epsilon."""
    rel = privacy.GpopeBudget("mountain_car_on", 300, 5000, 4.0, 1e-5, 1.0)
    row = privacy.release_row(rel)
    assert row["epsilon"] <= 4.0
    assert 0.4 * row["epsilon"] < row["epsilon_pld"] < 0.7 * row["epsilon"]
    assert privacy.ledger_entry(rel, row).epsilon == row["epsilon"]


def test_releases_are_every_calibrated_run_in_the_ledgers_order():
    profile = XieProfile.quick()
    releases = privacy.all_releases(profile)
    assert [(r.domain, r.n) for r in releases[:2]] == [("chain", 100), ("chain", 1000)]
    assert [r.iterations for r in releases[2:4]] == list(profile.schedule_iterations)
    assert [r.domain for r in releases[4:]] == list(domains.DOMAINS)  # one (n, epsilon) each
    assert {r.delta for r in releases[4:]} == {profile.domain_delta}


def test_claim_statements_name_the_profiles_scale():
    quick, paper = (
        {s.key: s.says(p) for s in claims.CLAIMS} for p in (XieProfile.quick(), XieProfile.paper())
    )
    assert list(quick) == list(paper) == list(claims.LIVE_KEYS)
    text = paper
    assert "n = 3000, epsilon = 4," in text["works_off_policy_beyond"]
    assert text["works_off_policy_beyond"].startswith("Beyond the paper:")
    assert text["privacy_cost_vs_lstd_beyond"].startswith("Beyond the paper:")
    assert "factor of 2" in text["off_policy_like_on_policy"]
    sources = {s.key: s.source for s in claims.CLAIMS}
    assert "remarkably similar" in sources["off_policy_like_on_policy"]
    assert "(= 32000)" in text["diminishing_beats_constant"]
    assert "epsilon = 4)" in text["privacy_cost_shrinks_with_n"]
    assert "epsilon" not in quick["privacy_cost_shrinks_with_n"]
    assert all(source.strip() for source in sources.values())
    assert chapter.Xie2019Chapter.claims == claims.CLAIMS
    # every claim is decided on every evidence (this run's data and the record's), in the
    # paper's order: Section 6 (Theorems 2, 3), then Section 7 (Figures 1 a, 2 a, 2 b)
    assert all(s.on is None for s in claims.CLAIMS)
    paper_claims = [k for k in claims.LIVE_KEYS if "_beyond" not in k]
    assert paper_claims == [
        "privacy_cost_shrinks_with_n",
        "diminishing_beats_constant",
        "chain_order_of_magnitude",
        "mc_beats_output_perturbation",
        "off_policy_like_on_policy",
    ]


def test_recorded_paper_claims_match_the_paper_profiles_statements():
    """The recorded paper-profile run's claims carry the statements the paper profile's specs
    have."""
    recorded = recorded_summary("xie2019", "paper")
    if recorded is None:
        pytest.skip("no paper-profile run recorded")
    stated = {s.key: s.says(XieProfile.paper()) for s in claims.CLAIMS}
    got = {c["key"]: c["statement"] for c in recorded["summary"]["claims"]}
    assert {k: got[k] for k in stated} == stated


def test_evidence_is_this_runs_data_and_the_records(monkeypatch):
    """This run's data, and the recorded run's where the state holds it (check_figure2 reads it
    beside a run of another profile only), under the source's name and suffix."""
    state = XieState(points=pd.DataFrame({"n": [1]}), gate_caveat="live caveat")
    ctx = Context(XieProfile.paper(), Report("xie2019", "paper"), state=state)
    live = [ev for ev in chapter.Xie2019Chapter().evidence(ctx) if ev is not None]
    assert [ev.name for ev in live] == ["live"]
    assert live[0].data.points is state.points and live[0].data.gate_caveat == "live caveat"

    recorded = FigureData(pd.DataFrame({"n": [2]}), None, "record caveat")
    ctx = Context(
        XieProfile.quick(), Report("xie2019", "quick"), state=replace(state, recorded=recorded)
    )
    both = [ev for ev in chapter.Xie2019Chapter().evidence(ctx) if ev is not None]
    if recorded_run("xie2019", "paper") is None:
        pytest.skip("no paper-profile run recorded")
    paper = both[1]
    assert (paper.name, paper.suffix, paper.data) == (PAPER_RUN.name, PAPER_RUN.suffix, recorded)
    assert paper.profile == XieProfile.paper() and paper.recorded and paper.verdicts is None


def _figure2_points(factor: float, trials: int = 20) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    on = np.exp(rng.normal(0, 0.05, trials))
    rows = []
    for domain, values in (("mountain_car_on", on), ("mountain_car_off", on * factor)):
        for t, v in enumerate(values):
            rows.append(dict(domain=domain, method="GPOPE", n=100, epsilon=4.0, trial=t, mspbe=v))
    return pd.DataFrame(rows)


def test_off_policy_claim_is_agreement_within_a_factor_of_two():
    from privrl.papers.xie2019 import figure2

    assert figure2.AGREEMENT_FACTOR == 2.0
    near = figure2.decide_off_on(_figure2_points(1.5), 0)
    assert near.verdict == "reproduced" and near.threshold == pytest.approx(1.0)
    assert near.value == pytest.approx(np.log2(1.5), abs=0.05)
    far = figure2.decide_off_on(_figure2_points(1 / 3), 0)
    assert far.verdict == "not reproduced" and far.threshold == pytest.approx(-1.0)
    assert "0 of 1" in far.evidence


def test_gate_against_the_best_estimator_and_its_caveat(monkeypatch):
    from privrl.papers.xie2019 import figure2

    monkeypatch.setattr(figure2, "zero_mspbe", lambda domain: 1.0)
    pts = pd.DataFrame(
        {
            "domain": "mountain_car_on",
            "n": [10, 10, 50, 50],
            "method": ["LSTD", "GTD2"] * 2,
            "epsilon": np.nan,
            "trial": 0,
            "mspbe": [0.01, 0.02, 0.001, 0.01],
        }
    )
    gates = figure2.gate_table(pts)
    last = gates[gates.n == 50].iloc[0]
    assert last.ratio == pytest.approx(10.0)
    assert last.gap_fraction == pytest.approx(0.009 / 0.999)
    assert "10x LSTD" in figure2.gate_caveat(gates, "here")
    assert figure2.gate_caveat(gates.assign(ratio=1.5), "here") == ""


def test_mc_grid_cells():
    from privrl.core.envs import mountain_car as mc
    from privrl.papers.xie2019 import mc_lsw

    states = np.array([mc.LOW, mc.HIGH, (mc.LOW + mc.HIGH) / 2])
    assert mc_lsw.cell_index(states, 4).tolist() == [0, 15, 10]
    assert mc_lsw.cell_features(4).shape == (16, (domains.MC_FOURIER_ORDER + 1) ** 2)


def test_not_reproduced_errata_follow_the_decided_claims():
    from privrl.papers.xie2019 import figure2
    from privrl.papers.xie2019.sources import PAPER_RUN, SOURCES

    specs = {e.key: e for e in claims.ERRATA}
    assert {f"{k}_not_reproduced" for k in claims.LIVE_KEYS} <= set(specs)
    ctx = Context(XieProfile.quick(), Report("xie2019", "quick", sources=SOURCES))
    spec = specs["off_policy_like_on_policy_not_reproduced"]
    assert not spec.applies(ctx)
    claim = Claim.of(
        figure2.decide_off_on(_figure2_points(3.0), 0),
        key="off_policy_like_on_policy",
        statement="s",
        profile="quick",
        commit="c",
    )
    ctx.claims["off_policy_like_on_policy"] = ctx.report.claim(claim)
    item = spec.make(ctx)
    assert spec.applies(ctx) and item.statement == claim.statement
    assert "quick profile, commit c): " in item.evidence
    # a record's verdict decides: reproduced there, no erratum beside this run's
    recorded = dataclasses.replace(
        claim, key=claim.key + PAPER_RUN.suffix, verdict="reproduced", profile="paper"
    )
    ctx.claims[recorded.key] = ctx.report.claim(recorded)
    assert not spec.applies(ctx)


def test_run_rejects_a_dict_profile():
    with pytest.raises(ValueError, match="XieProfile"):
        chapter.run({"profile": "quick"})


def test_mc_dp_lsw_ledger_entries_meet_their_budget():
    lsw = pd.DataFrame(
        {
            "method": ["LSW", "DP-LSW", "DP-LSW", "DP-LSW"],
            "grid": [5, 5, 5, 10],
            "epsilon": [np.nan, 1.0, 1.0, 4.0],
            "sigma": [0.0, 2.0, 3.0, 1.0],
        }
    )
    profile = XieProfile.quick()
    entries = privacy.lsw_ledger_entries(profile, lsw)
    report = Report("xie2019", "quick")
    assert [e.epsilon for e in entries] == pytest.approx([1.0, 4.0])
    for e in entries:
        report.ledger(e)  # event gives back epsilon, cross-check not above it
        assert e.delta == profile.domain_delta and e.relation == "replace-one"
        assert e.event.d == (domains.MC_FOURIER_ORDER + 1) ** 2
    assert "2 releases" in entries[0].release


def test_an_untestable_privacy_cost_claim_still_carries_the_gates_caveat():
    """One Mountain Car n: untestable, and the convergence gates' caveat stays in its evidence."""
    pts = pd.DataFrame(
        {
            "domain": "mountain_car_on",
            "n": [300],
            "method": "GPOPE",
            "epsilon": 4.0,
            "trial": 0,
            "mspbe": 1.0,
        }
    )
    ev = Evidence(LIVE, XieProfile.quick(), data=FigureData(pts, None, "Caveat (this quick run)"))
    outcome = claims.decide_privacy_cost_shrinks(None, ev)
    assert outcome.verdict == "untestable" and outcome.evidence == "Caveat (this quick run)"


def test_the_schedules_figure_draws_the_runs_that_decided_the_recorded_claim():
    """The recorded Theorems 2-3 table, which the figure beside the verdict draws, decides
    "a diminishing step ends below a constant one" again to the record's verdict, statistic,
    interval and trials, to the last bit; the run record names the file."""
    from privrl.chapter.records import recorded_claims, recorded_run
    from privrl.papers.xie2019 import plots

    exhibit = plots.EXHIBITS["fig-xie2019-schedules-record"]
    data = exhibit.read()
    recorded = {c.key: c for c in recorded_claims("xie2019", suffix=exhibit.suffix)}
    if data is None or not recorded:
        pytest.skip("no recorded paper-profile run with its schedules")
    profile = XieProfile.paper()
    ctx = Context(profile, Report("xie2019", "paper"), state=XieState(schedules=data["schedules"]))
    ev = Evidence(LIVE, profile, data=FigureData(pd.DataFrame(), data["schedules"]))
    again = claims.decide_diminishing_beats_constant(ctx, ev)
    claim = recorded["diminishing_beats_constant" + exhibit.suffix]
    assert (again.verdict, again.value, again.interval, again.n_trials) == (
        claim.verdict,
        claim.value,
        claim.interval,
        claim.n_trials,
    )
    assert (
        data["schedules"]
        .groupby(["iterations", "schedule"])["seed"]
        .nunique()
        .eq(profile.schedule_trials)
        .all()
    )
    assert points.PAPER_SCHEDULES in recorded_run("xie2019").record["files"]


def test_the_record_decided_again_gives_its_recorded_verdicts():
    """Every claim decided again on the recorded paper-profile run's points and runs of Theorems
    2-3 (the evidence the record's source decides on) gives the verdict, value, interval and
    trials the run recorded, to the last bit."""
    recorded = recorded_summary("xie2019", "paper")
    pts, schedules = points.read_paper_points(), points.read_paper_schedules()
    if recorded is None or pts is None or schedules is None:
        pytest.skip("no paper-profile run recorded with its points and schedules")
    profile = XieProfile.paper()
    ctx = Context(profile, Report("xie2019", "paper"), state=XieState())
    ev = Evidence(PAPER_RUN.name, profile, data=FigureData(pts, schedules))
    want = {c["key"]: c for c in recorded["summary"]["claims"]}
    for spec in claims.CLAIMS:
        got = spec.decide(ctx, ev)
        claim = want[spec.key]
        assert (got.verdict, got.value, list(got.interval), got.n_trials) == (
            claim["verdict"],
            claim["value"],
            claim["interval"],
            claim["n_trials"],
        ), spec.key
