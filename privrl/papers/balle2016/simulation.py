"""Two checks that the simulator and the estimators compute what Section 6 and Section 3 say,
against independent computations: first-visit Monte Carlo means against the chain's exact values,
and the closed forms of LSW and LSL (Sections 2.2 and 3.2) against a direct least-squares solve."""

from __future__ import annotations

import math

import numpy as np

from privrl.core.algorithms.monte_carlo import lsl, lsl_regularization, lsw
from privrl.core.rng import SeedLike, as_generator
from privrl.papers.balle2016.profile import BalleProfile


def simulation_error(profile: BalleProfile, rng: SeedLike, m: int = 20_000) -> float:
    """Largest |first-visit MC mean - exact V_s| over states visited by more than 500 trajectories."""
    fv = profile.sample(m, as_generator(rng))
    V = profile.mdp().true_values(profile.gamma)
    seen = fv.counts > 500
    return float(np.abs(fv.means[seen] - V[seen]).max())


def closed_form_deviation(profile: BalleProfile, rng: SeedLike, m: int = 200) -> float:
    """Largest deviation of the LSW and LSL closed forms (aggregated features) from a direct
    least-squares solve: LSW as weighted regression on the means; LSL as one row per visited
    (trajectory, state) pair plus d ridge rows (eq. 7-8)."""
    fv = profile.sample(m, as_generator(rng))
    rho, Phi = profile.rho(), profile.features()["aggregated"]
    w = np.sqrt(rho)
    direct_w = np.linalg.lstsq(w[:, None] * Phi, w * fv.means, rcond=None)[0]
    lam = lsl_regularization(Phi, rho, fv.m, profile.lsl_c, profile.lsl_power)
    ii, ss = np.nonzero(fv.visited)
    d = Phi.shape[1]
    A = np.vstack(
        [np.sqrt(rho[ss] / fv.m)[:, None] * Phi[ss], math.sqrt(lam / (2 * fv.m)) * np.eye(d)]
    )
    b = np.concatenate([np.sqrt(rho[ss] / fv.m) * fv.returns[ii, ss], np.zeros(d)])
    direct_l = np.linalg.lstsq(A, b, rcond=None)[0]
    return float(
        max(
            np.abs(lsw(fv, Phi, rho) - direct_w).max(),
            np.abs(lsl(fv, Phi, rho, lam) - direct_l).max(),
        )
    )
