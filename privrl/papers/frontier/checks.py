"""The Frontier chapter's numeric checks (each through ``ctx.report.check``, raising on failure).

Sweep checks, on this run's tables:

* :func:`check_calibration` - every GPOPE noise multiplier meets its target (epsilon, delta)
  under its accountant for its n and T, and is the smallest one to 2% (z / 1.02 breaks it);
  PLD's z never above RDP's (the PLD figure is the tighter);
* :func:`check_noise_used` - every GPOPE release of the map ran at the z calibrated for its
  (n, epsilon, accountant, iterations), every DP-LSW/DP-LSL release had positive noise, and
  every SSP-LSTD release ran at the api's multiplier for its (epsilon, delta)
  (:func:`~privrl.api.evaluation.ssp_lstd_noise`, one Gaussian release);
* :func:`check_scores` - every error of the map is finite and non-negative, and the replicates
  per point are the profile's;
* :func:`check_ssp_sensitivity` - SSP-LSTD's sensitivity against its derivation's extremal pair
  (tight to 1/sqrt(2)) and random trajectories within the bounds.
"""

from __future__ import annotations

import numpy as np

from privrl.api.evaluation import ssp_lstd_noise
from privrl.chapter.skeleton import Context
from privrl.core.algorithms import ssp_lstd as ssp
from privrl.core.algorithms.lstd import FeatureTransitions
from privrl.papers.frontier.privacy import FEATURE_DIMS, gpope_event
from privrl.papers.frontier.runs import SSP_DOMAINS
from privrl.papers.frontier.state import FrontierState
from privrl.papers.frontier.trials import ssp_bounds


def check_calibration(ctx: Context[FrontierState]) -> None:
    cal, delta = ctx.state.calibration, ctx.profile.delta
    over, loose = [], []
    for r in cal.itertuples():
        over.append(gpope_event(r.z, r.n, r.iterations, r.accountant).epsilon(delta) / r.epsilon)
        loose.append(
            gpope_event(r.z / 1.02, r.n, r.iterations, r.accountant).epsilon(delta) / r.epsilon
        )
    ctx.report.check(
        "gpope_meets_target",
        "largest epsilon / target over GPOPE's calibrated noise multipliers (PLD and RDP)",
        float(max(over)),
        at_most=1.0,
    )
    ctx.report.check(
        "gpope_noise_smallest",
        "smallest epsilon / target at z / 1.02: the calibrated z is the smallest to 2%",
        float(min(loose)),
        above=1.0,
    )
    wide = cal.pivot_table(index=["n", "epsilon", "iterations"], columns="accountant", values="z")
    ctx.report.check(
        "pld_noise_below_rdp",
        "largest z(PLD) / z(RDP) over (n, epsilon, iterations)",
        float((wide["PLD"] / wide["RDP"]).max()),
        at_most=1.0,
    )


def check_noise_used(ctx: Context[FrontierState]) -> None:
    points, cal = ctx.state.points, ctx.state.calibration
    gp = points[points.method == "GPOPE"].merge(
        cal, on=["n", "epsilon", "accountant", "iterations"], how="left"
    )
    ctx.report.check(
        "gpope_noise_as_calibrated",
        "largest |z used / z calibrated - 1| over "
        "every GPOPE release of the map (at its own iterations)",
        float(np.abs(gp.noise / gp.z - 1).max()),
        at_most=0.0,
    )
    smooth = points[points.method.isin(["DP-LSW", "DP-LSL"])]
    if len(smooth):
        ctx.report.check(
            "smooth_noise_positive",
            "smallest sigma_X of DP-LSW and DP-LSL",
            float(smooth.noise.min()),
            above=0.0,
        )
    ssp_rows = points[points.method == "SSP-LSTD"]
    if len(ssp_rows):
        z = {
            (domain, eps): ssp_lstd_noise(
                epsilon=eps,
                delta=ctx.profile.delta,
                bounds=ssp_bounds(ctx.profile.domain_config(domain)),
                d=FEATURE_DIMS[domain],
            ).noise_multiplier
            for domain, eps in set(zip(ssp_rows.domain, ssp_rows.epsilon, strict=True))
        }
        target = [z[key] for key in zip(ssp_rows.domain, ssp_rows.epsilon, strict=True)]
        ctx.report.check(
            "ssp_noise_as_calibrated",
            "largest |z used / z of one Gaussian "
            "release at (epsilon, delta) - 1| over every SSP-LSTD release",
            float(np.abs(ssp_rows.noise.to_numpy() / np.array(target) - 1).max()),
            at_most=0.0,
        )


def check_scores(ctx: Context[FrontierState]) -> None:
    points = ctx.state.points
    errors = points[["mspbe", "rmse", "rmse_clipped", "floor_mspbe", "floor_rmse"]].to_numpy(float)
    ctx.report.check(
        "errors_finite",
        "every MSPBE and RMSE of the map (clipped, floors) is finite and >= 0",
        bool(np.isfinite(errors).all() and (errors >= 0).all()),
    )
    per_point = points.groupby(
        ["domain", "n", "method", "accountant", "epsilon"], dropna=False
    ).seed.nunique()
    ctx.report.check(
        "replicates_per_point",
        "fewest replicates at a point of the map",
        int(per_point.min()),
        at_least=ctx.profile.n_datasets,
    )


def check_ssp_sensitivity(ctx: Context[FrontierState]) -> None:
    """SSP-LSTD's sensitivity (:func:`~privrl.core.algorithms.ssp_lstd.ssp_sensitivity`) checked
    against neighbours on each SSP domain's bounds: the extremal pair of the derivation moves
    :math:`(\\mathrm{vec}\\,A, b)` by :math:`\\Delta_2/\\sqrt 2` (the bound is tight to that
    factor), and no pair among 500 random trajectories within the bounds (features on the
    sphere of radius F, rewards in [-R, R], L transitions) moves it by more than
    :math:`\\Delta_2`."""
    rng = np.random.default_rng(0)
    tight, random = [], []
    for domain in ctx.profile.domains:
        if domain not in SSP_DOMAINS:
            continue
        bounds, d = ssp_bounds(ctx.profile.domain_config(domain)), FEATURE_DIMS[domain]
        one, other = (ssp.trajectory_statistics(x)[0] for x in ssp.extremal_pair(bounds, d))
        tight.append(float(np.linalg.norm(one - other)) / bounds.exact_sensitivity)
        phi = rng.normal(size=(500, bounds.max_length + 1, d))
        phi *= bounds.feature_bound / np.linalg.norm(phi, axis=2, keepdims=True)
        rewards = rng.uniform(
            -bounds.reward_bound, bounds.reward_bound, size=(500, bounds.max_length)
        )
        rows = ssp.trajectory_statistics(
            FeatureTransitions(
                phi, rewards, np.full(500, bounds.max_length), np.zeros(500, bool), bounds.gamma
            )
        )
        norms = np.linalg.norm(rows, axis=1)
        random.append(2 * float(norms.max()) / bounds.exact_sensitivity)  # >= any pair's move
    if tight:
        ctx.report.check(
            "ssp_sensitivity_tight",
            "smallest change of (vec A, b) / Delta_2 on "
            "the derivation's extremal pair (1 / sqrt(2) = 0.7071)",
            min(tight),
            at_least=1 / np.sqrt(2) - 1e-9,
        )
        ctx.report.check(
            "ssp_sensitivity_bound",
            "largest change of (vec A, b) / Delta_2 over "
            "the extremal pair and 500 random trajectories within the bounds "
            "(twice the largest contribution)",
            max(max(tight), max(random)),
            at_most=1.0,
        )


SWEEP_CHECKS = (check_calibration, check_noise_used, check_scores, check_ssp_sensitivity)

__all__ = [
    "SWEEP_CHECKS",
    "check_calibration",
    "check_noise_used",
    "check_scores",
    "check_ssp_sensitivity",
]
