"""The Frontier chapter's numeric checks (each through ``ctx.report.check``, raising on failure).

Sweep checks, on this run's tables:

* :func:`check_calibration` - every GPOPE noise multiplier meets its target (epsilon, delta)
  under its accountant for its n and T, and is the smallest one to 2% (z / 1.02 breaks it);
  PLD's z never above RDP's (the PLD figure is the tighter);
* :func:`check_noise_used` - every GPOPE release of the map ran at the z calibrated for its
  (n, epsilon, accountant, iterations), and every DP-LSW/DP-LSL release had positive noise;
* :func:`check_scores` - every error of the map is finite and non-negative, and the replicates
  per point are the profile's.
"""

from __future__ import annotations

import numpy as np

from privrl.chapter.skeleton import Context
from privrl.core.accounting.gpope_pld import GpopePldEvent
from privrl.core.accounting.subsampled import GpopeEvent

EVENTS = {"PLD": GpopePldEvent, "RDP": GpopeEvent}


def check_calibration(ctx: Context) -> None:
    cal, delta = ctx.tables["calibration"], ctx.profile.delta
    over, loose = [], []
    for r in cal.itertuples():
        event = EVENTS[r.accountant]
        over.append(event(r.z, r.n, r.iterations).epsilon(delta) / r.epsilon)
        loose.append(event(r.z / 1.02, r.n, r.iterations).epsilon(delta) / r.epsilon)
    ctx.report.check("gpope_meets_target", "largest epsilon / target over GPOPE's calibrated "
                     "noise multipliers (PLD and RDP)", float(max(over)), at_most=1.0)
    ctx.report.check("gpope_noise_smallest", "smallest epsilon / target at z / 1.02: the "
                     "calibrated z is the smallest to 2%", float(min(loose)), above=1.0)
    wide = cal.pivot_table(index=["n", "epsilon", "iterations"], columns="accountant",
                           values="z")
    ctx.report.check("pld_noise_below_rdp", "largest z(PLD) / z(RDP) over (n, epsilon, "
                     "iterations)",
                     float((wide["PLD"] / wide["RDP"]).max()), at_most=1.0)


def check_noise_used(ctx: Context) -> None:
    points, cal = ctx.tables["points"], ctx.tables["calibration"]
    gp = points[points.method == "GPOPE"].merge(
        cal, on=["n", "epsilon", "accountant", "iterations"], how="left")
    ctx.report.check("gpope_noise_as_calibrated", "largest |z used / z calibrated - 1| over "
                     "every GPOPE release of the map (at its own iterations)", float(np.abs(gp.noise / gp.z - 1).max()),
                     at_most=0.0)
    smooth = points[points.method.isin(["DP-LSW", "DP-LSL"])]
    if len(smooth):
        ctx.report.check("smooth_noise_positive", "smallest sigma_X of DP-LSW and DP-LSL",
                         float(smooth.noise.min()), above=0.0)


def check_scores(ctx: Context) -> None:
    points = ctx.tables["points"]
    errors = points[["mspbe", "rmse", "rmse_clipped", "floor_mspbe", "floor_rmse"]].to_numpy(float)
    ctx.report.check("errors_finite", "every MSPBE and RMSE of the map (clipped, floors) is "
                     "finite and >= 0",
                     bool(np.isfinite(errors).all() and (errors >= 0).all()))
    per_point = points.groupby(["domain", "n", "method", "accountant", "epsilon"],
                               dropna=False).seed.nunique()
    ctx.report.check("replicates_per_point", "fewest replicates at a point of the map",
                     int(per_point.min()), at_least=ctx.profile.n_datasets)


SWEEP_CHECKS = (check_calibration, check_noise_used, check_scores)

__all__ = ["SWEEP_CHECKS", "check_calibration", "check_noise_used", "check_scores"]
