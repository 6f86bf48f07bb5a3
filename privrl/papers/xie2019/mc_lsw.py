r"""DP-LSW on Mountain Car (Section 7, Figure 2 a: "compares with output perturbation V1"), on
**our reading** of how the paper applied it to continuous states.

DP-LSW (Balle et al. 2016, Algorithm 1) needs first-visit returns per state and per-state visit
counts, so it needs a finite state space; the paper does not say which partition it used. Ours:

* a uniform grid of ``k x k`` cells over (position, velocity) in ``[LOW, HIGH]``
  (:func:`cell_index`); the first visit to a cell is the first visit to a state;
* :math:`\rho` uniform over the :math:`k^2` cells;
* each cell's features: the Fourier basis (:data:`~privrl.papers.xie2019.domains.MC_FOURIER_ORDER`)
  at its centre (:func:`cell_features`), so the released weights are a value function in
  LSTD's and GPOPE's features, measured by the same held-out MSPBE;
* Balle's sensitivity and smooth bound :math:`\Psi_\beta(X)` on the cell counts
  (:func:`privrl.core.algorithms.monte_carlo.dp_lsw`), with the return bound
  :math:`F_{max} = 1 / (1 - \gamma)` (rewards -1 per step: every return lies in
  :math:`[-F_{max}, 0]`).

:func:`run_lsw_trial` is one seed of :func:`privrl.chapter.sweep.run_sweep`: the dataset of
:func:`privrl.papers.xie2019.domains.run_domain_trial` at the same seed (same spawn), so its rows
pair with GPOPE's by seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privrl.api.evaluation import smooth_gaussian_noise
from privrl.core.algorithms.gtd import mspbe
from privrl.core.algorithms.lstd import lstd
from privrl.core.algorithms.monte_carlo import (
    dp_lsw,
    first_visit_returns,
    lsw,
)
from privrl.core.envs import mountain_car as mc
from privrl.core.evaluation_domains import cell_features, cell_index, cell_trajectories
from privrl.core.rng import as_generator
from privrl.core.validation import check_int
from privrl.papers.xie2019 import domains

#: What the chapter's DP-LSW on Mountain Car is, in the evidence of the claims decided on it.
LSW_READING = (
    "DP-LSW on Mountain Car is our reading (the paper does not say): uniform grid "
    "cells as states, rho uniform over cells, Balle's smooth bound on the cell counts, "
    "F_max = 1/(1 - gamma)"
)
#: The domain DP-LSW is run on (the paper: on-policy Mountain Car only; DP-LSL not at all).
LSW_DOMAIN = "mountain_car_on"


def return_bound() -> float:
    """:math:`F_{max} = 1/(1-\\gamma)`: Mountain Car's rewards are -1 per step, so every return
    lies in :math:`[-F_{max}, 0]` (the budget's ``return_low`` is :math:`-F_{max}`)."""
    return 1.0 / (1.0 - domains.SETTINGS[LSW_DOMAIN].gamma)


def run_lsw_trial(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """One dataset of ``config['n']`` on-policy Mountain Car episodes (the same as GPOPE's at this
    seed): LSTD, and for every grid of ``config['grids']`` the non-private LSW and DP-LSW at every
    epsilon of ``config['epsilons']`` (delta ``config['delta']``), on the held-out MSPBE.

    Rows: ``domain, n, method (LSTD / LSW / DP-LSW), grid (cells per dimension, 0 for LSTD),
    epsilon (NaN when non-private), sigma (DP-LSW's noise sd), mspbe``."""
    n = check_int(config["n"], "n", minimum=1)
    data_ss, alg_ss = seed.spawn(2)
    behaviour, _ = domains.policies(LSW_DOMAIN)
    traj, probs = mc.collect(behaviour, n, as_generator(data_ss), domains.MC_MAX_STEPS)
    gen = as_generator(alg_ss)
    A, b, M = domains.heldout_problem(LSW_DOMAIN)
    settings = domains.SETTINGS[LSW_DOMAIN]
    features = domains.to_features(LSW_DOMAIN, traj, probs, settings)
    rows = [dict(method="LSTD", grid=0, epsilon=np.nan, sigma=0.0, theta=lstd(features))]
    for cells in config["grids"]:
        fv = first_visit_returns(cell_trajectories(traj, cells), cells * cells, settings.gamma)
        Phi = cell_features(cells)
        rho = np.full(cells * cells, 1.0 / (cells * cells))
        rows.append(
            dict(method="LSW", grid=cells, epsilon=np.nan, sigma=0.0, theta=lsw(fv, Phi, rho))
        )
        for eps in config["epsilons"]:
            budget = smooth_gaussian_noise(
                epsilon=eps,
                delta=config["delta"],
                return_bound=return_bound(),
                d=Phi.shape[1],
                return_low=-return_bound(),
            ).budget
            est = dp_lsw(fv, Phi, rho, budget, gen)
            rows.append(
                dict(method="DP-LSW", grid=cells, epsilon=eps, sigma=est.sigma, theta=est.theta)
            )
    out = pd.DataFrame(rows)
    out["mspbe"] = mspbe(np.vstack(out.pop("theta").to_list()), A, b, M)
    out.insert(0, "n", n)
    out.insert(0, "domain", LSW_DOMAIN)
    return out


__all__ = [
    "LSW_DOMAIN",
    "LSW_READING",
    "cell_features",
    "cell_index",
    "cell_trajectories",
    "return_bound",
    "run_lsw_trial",
]
