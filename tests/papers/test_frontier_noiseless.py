"""GPOPE without noise on the Frontier's datasets (:mod:`privrl.papers.frontier.noiseless`): the
run is Algorithm 1 at noise multiplier 0 on the replicate's data, reproducible from its seed, and
the table that sets it beside the map picks the best step and states optimisation's share."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.core.algorithms.gtd import gpope
from privrl.papers.frontier import noiseless, trials

CONFIG = {**trials.PROBE, "step_grid": (0.1, 1.0)}


def test_the_run_is_gpope_at_zero_noise_on_the_replicates_data():
    seed = np.random.SeedSequence(7)
    out = noiseless.run_noiseless(CONFIG, np.random.SeedSequence(7))
    assert list(out.columns) == ["domain", "n", "step_size", "mspbe", "rmse", "clipped", "seconds"]
    assert out[["n", "step_size"]].to_numpy().tolist() == [[5, 0.1], [5, 1.0], [10, 0.1], [10, 1.0]]
    # independently: the replicate's data from the same seed, GPOPE with zs = 0 in the same order
    stats, _, _, _, gen = trials.replicate_data({**CONFIG, "lsw_cells": 0}, 10, seed)
    problem = trials.target_problem(CONFIG)
    for n in (5, 10):
        res = gpope(trials.prefix(stats, n), CONFIG["iterations"], np.array([0.1, 1.0]),
                    CONFIG["clip_norm"], np.zeros(2), gen, n_trials=2, schedule="diminishing")
        mspbe, rmse = trials.errors(res.theta, problem)
        rows = out[out.n == n]
        np.testing.assert_array_equal(rows.mspbe.to_numpy(), mspbe)
        np.testing.assert_array_equal(rows.rmse.to_numpy(), rmse)
    again = noiseless.run_noiseless(CONFIG, np.random.SeedSequence(7))
    pd.testing.assert_frame_equal(out.drop(columns="seconds"), again.drop(columns="seconds"))


def _points() -> pd.DataFrame:
    """Two replicates of one domain at one n: reference 0.01, zero 1, GPOPE (PLD) 0.1 at
    epsilon 10 and 0.5 at epsilon 1 (geometric means over the replicates)."""
    rows = []
    for seed, f in enumerate((0.5, 2.0)):
        for method, acct, eps, err in (("reference", "none", np.nan, 0.01 * f),
                                       ("zero", "none", np.nan, 1.0 * f),
                                       ("GPOPE", "PLD", 1.0, 0.5 * f),
                                       ("GPOPE", "PLD", 10.0, 0.1 * f),
                                       ("GPOPE", "RDP", 10.0, 0.2 * f)):
            rows.append({"domain": "chain", "n": 100, "method": method, "accountant": acct,
                         "epsilon": eps, "rmse": err, "mspbe": err ** 2, "seed": seed})
    return pd.DataFrame(rows)


def test_the_share_is_the_fraction_of_gpopes_log_distance_kept_without_noise():
    free = pd.DataFrame({"domain": "chain", "n": 100, "step_size": [0.1, 0.1, 1.0, 1.0],
                         "rmse": [0.05, 0.2, 0.02, 1.0], "seed": [0, 1, 0, 1]})
    table = noiseless.optimisation_share(_points(), free)
    row = table.iloc[0]
    # the best step by geometric mean: 0.1 = sqrt(0.05 * 0.2) at step 0.1, 0.14 at step 1
    assert (row.domain, row.n, row.step) == ("chain", 100, 0.1)
    assert row["reference"] == pytest.approx(0.01) and row["zero"] == pytest.approx(1.0)
    assert row[noiseless.LABEL] == pytest.approx(0.1)
    assert row["GPOPE, epsilon = 1"] == pytest.approx(0.5)
    assert row["GPOPE, epsilon = 10"] == pytest.approx(0.1)
    # GPOPE at epsilon 10 is 1 decade above the reference, without noise also 1: all optimisation
    assert row["share"] == pytest.approx(1.0)
    lower = free.assign(rmse=free.rmse / 10)
    assert noiseless.optimisation_share(_points(), lower).iloc[0]["share"] == pytest.approx(0.0)
    assert math.isnan(noiseless.optimisation_share(
        _points().assign(rmse=lambda t: t.rmse.where(t.method != "reference", 1.0)), free)
        .iloc[0]["share"])  # GPOPE not above the reference: no share to state


def test_the_recorder_names_its_module_and_is_judged_by_its_results_version(tmp_path):
    from privrl.chapter.records import recorded_run
    from privrl.papers.frontier.profile import FrontierProfile
    from privrl.papers.frontier.record import main

    results = tmp_path / "book" / "measurements" / "results"
    profile = FrontierProfile.quick(domains=("chain",), sizes=(5, 10), n_datasets=2,
                                    iterations=20, step_grid=(0.1, 1.0))
    record = noiseless.record_noiseless(profile, cache_dir=tmp_path / "cache", directory=results,
                                        workers=1, progress=False, command="(test)")
    assert record.as_dict()["produced_by"] == [noiseless.MODULE]
    # its own run function's tag, and those of the map's run functions whose helpers it runs
    versions = record.as_dict()["results_versions"]
    assert versions[f"{noiseless.MODULE}.run_noiseless"] == "1"
    assert versions["privrl.papers.frontier.trials.run_frontier"] == "1"
    points = noiseless.recorded_noiseless(results)
    assert len(points) == 2 * 2 * 2 and set(points.seed) == {0, 1}
    run = recorded_run("frontier", noiseless.NOISELESS, root=tmp_path)
    # current on a clean tree (a tree with uncommitted changes leaves it unknown, as it should)
    expected = "unknown" if record.as_dict()["git_dirty"] else "current"
    assert run is not None and run.status == expected, run.stale_reason
    # the command line records through the package's module (never __main__)
    with pytest.raises(SystemExit):
        main(["--noiseless"])


def test_the_findings_state_each_domains_ranges_and_a_best_step_at_the_grids_edge():
    free = pd.DataFrame({"domain": "chain", "n": 100, "step_size": [0.1, 0.1, 1.0, 1.0],
                         "rmse": [0.05, 0.2, 0.02, 1.0], "seed": [0, 1, 0, 1]})
    share = noiseless.optimisation_share(_points(), free)
    text = noiseless.optimisation_findings(share, (0.1, 1.0))
    assert text == ("On the chain, GPOPE without noise stays at 0.1 (value RMSE) over "
                    "n = 100 to 100, where the non-private estimate reaches 0.01: 100% of private "
                    "GPOPE's log10 distance to it at the largest epsilon is there without noise.")
    assert noiseless.optimisation_findings(share, (0.01, 0.1)).endswith(
        "; its best step is the grid's largest (0.1) at every n.")
