"""GPOPE without noise as the earlier record measured it (:mod:`privrl.papers.frontier.noiseless`,
now a reader of that record: the map carries every floor): the table that sets it beside the map
picks the best step and states optimisation's share."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.papers.frontier import noiseless


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
