"""The xie2019 experiment module: profile validation, the settings' grid search, the convergence
gate statistic, the paper-points CSV writer and the ledger entries of GPOPE releases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.report import Report
from privrl.chapter.verdicts import CheckFailed
from privrl.core.accounting.subsampled import dp_accounting_epsilon, gpope_epsilon
from privrl.papers.xie2019 import chapter as exp
from privrl.papers.xie2019 import domains

GRID = Path(__file__).resolve().parents[2] / "privrl" / "data" / "xie2019" / "gtd2_grid.csv"


def test_profiles_and_validation():
    quick, paper = exp.XieProfile.quick(), exp.XieProfile.paper()
    assert paper.n_trials == 100 and paper.chain_sizes == exp.PAPER_SIZES
    assert quick.profile == "quick" and quick.n_trials >= 5
    with pytest.raises(ValueError, match="unknown parameter"):
        exp.XieProfile.from_parameters("quick", n_runs=3)
    with pytest.raises(ValueError, match="epsilon"):
        exp.XieProfile.quick(epsilon=-1.0)
    with pytest.raises(ValueError, match="mc_epsilons"):
        exp.XieProfile.quick(mc_epsilons=())
    with pytest.raises(ValueError, match="hiv_pool_size"):
        exp.XieProfile.quick(hiv_n=(500,))
    with pytest.raises(ValueError, match="sensitivity_n"):
        exp.XieProfile.quick(sensitivity_n=7)
    assert exp.XieProfile.from_parameters("quick", mc_n=[100, 200]).mc_n == (100, 200)


def test_committed_grid_search_gives_the_settings():
    # The committed grid (tune_domain on public seeds) and the documented rule reproduce SETTINGS.
    grid = pd.read_csv(GRID)
    assert set(grid.domain) == set(domains.DOMAINS)
    for domain, table in grid.groupby("domain"):
        pick = domains.choose_settings(table)
        s = domains.SETTINGS[domain]
        assert (pick.schedule, int(pick.iterations), pick.step_size) == (
            s.schedule, s.iterations, s.step_size)


def test_choose_settings_rule():
    grid = pd.DataFrame({
        "schedule": ["constant", "diminishing", "diminishing", "constant"],
        "iterations": [100, 100, 400, 400], "step_size": [1.0, 2.0, 1.0, 1.0],
        "gate": [0.004, 0.003, 0.0001, 0.0001]})
    pick = domains.choose_settings(grid)
    assert (pick.schedule, pick.iterations, pick.step_size) == ("diminishing", 100, 2.0)
    with pytest.raises(ValueError, match="gate"):
        domains.choose_settings(grid.assign(gate=1.0))


def test_gate_statistic():
    t = pd.DataFrame({"domain": "d", "n": 10, "seed": [0, 0, 0, 1, 1, 1],
                      "method": ["LSTD", "zero", "GTD2"] * 2,
                      "mspbe": [0.0, 1.0, 0.01, 0.0, 1.0, 0.03]})
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
    chain = pd.DataFrame({"method": ["GPOPE", "DP-LSW", "LSTD", "GTD2", "zero", "GPOPE (step x5)"],
                          "n": 10, "mspbe": [1.0, 2.0, 0.1, 0.2, 3.0, 4.0], "seed": 0,
                          "epsilon": 0.1})
    tables = {"chain_compare": chain}
    for domain in domains.DOMAINS:
        ref = "LSTD" if domain == "mountain_car_on" else "WIS-LSTD"
        t = pd.DataFrame({"domain": domain, "n": 20, "method": [ref, "zero", "GTD2", "GPOPE"],
                          "epsilon": [np.nan, np.nan, np.nan, 1.0], "mspbe": [0.1, 1, 0.2, 0.5],
                          "seed": 3})
        if domain == "hiv":
            t["relative_mspbe"] = t.mspbe * 10
        tables[domain] = t
    return tables


def test_paper_points_writer_round_trip(tmp_path):
    points = exp.paper_points(_points_tables())
    assert list(points.columns) == list(exp.POINT_COLUMNS)
    assert set(points.method) <= set(exp.POINT_METHODS)  # zero and mis-tuned runs dropped
    assert set(points.domain) == set(exp.POINT_DOMAINS)
    hiv = points[points.domain == "hiv"]
    assert hiv.mspbe.max() == pytest.approx(5.0)  # HIV stores the relative MSPBE (GPOPE 0.5 x 10)
    assert points.query("domain == 'chain' and method == 'LSTD'").epsilon.isna().all()
    path = exp.write_paper_points(points, tmp_path / "points.csv")
    back = exp.read_paper_points(path)
    pd.testing.assert_frame_equal(back, points.reset_index(drop=True), check_dtype=False)
    with pytest.raises(ValueError, match="methods"):
        exp.write_paper_points(points.assign(method="LSW"), tmp_path / "bad.csv")
    with pytest.raises(ValueError, match="columns"):
        exp.write_paper_points(points.drop(columns="trial"), tmp_path / "bad.csv")
    summary = exp.summarise_points(points)
    assert summary["count"].min() >= 1


def test_release_ledger_entry_is_tight_and_raises_on_understatement():
    report = Report("xie2019", "quick")
    rel = exp.Release("chain", 1000, 2000, 0.1, 0.1, 0.05)
    row = exp.record_release(report, rel)
    entry = report.entries[0]
    assert entry.relation == "replace-one" and entry.unit == "trajectory"
    assert entry.compositions == 2000 and entry.epsilon <= 0.1
    assert entry.epsilon == pytest.approx(dp_accounting_epsilon(row["noise_multiplier"], 1000, 2000,
                                                                0.1), rel=0.01)
    # halving the noise multiplier must raise the epsilon above the target
    assert gpope_epsilon(row["noise_multiplier"] / 2, 1000, 2000, 0.1) > 0.1
    # a ledger entry that understated epsilon by more than 1% is refused
    with pytest.raises(CheckFailed):
        report.ledger(release="x", mechanism="GPOPE", relation="replace-one", unit="trajectory",
                      noise="z", epsilon=0.9 * entry.epsilon, delta=0.1, compositions=2000,
                      accountant="a", cross_check="dp-accounting", cross_check_epsilon=entry.epsilon)


def test_run_rejects_a_dict_profile():
    with pytest.raises(ValueError, match="XieProfile"):
        exp.run({"profile": "quick"})
