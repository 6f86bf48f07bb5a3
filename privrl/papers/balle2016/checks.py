"""The chapter's named checks, run in this order before Figure 1's sweep (:data:`CHECKS`).

Each records its numbers through ``ctx.report.check`` (raising on failure) and its table in
the run's :class:`~privrl.papers.balle2016.state.BalleState`. The random checks draw from independent streams of one root seed, stream ``i``
for the ``i``-th of them (:func:`stream`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privrl.chapter.skeleton import Context
from privrl.papers.balle2016.privacy import (
    arbitrary_dataset_check,
    neighbour_check,
    privacy_loss_check,
    smooth_bound_check,
)
from privrl.papers.balle2016.profile import BalleProfile
from privrl.papers.balle2016.rate import log_slope, noise_rate, rate_onset
from privrl.papers.balle2016.simulation import closed_form_deviation, simulation_error
from privrl.papers.balle2016.state import BalleState

#: Batch sizes of the noise-rate curve (Theorem 11): 121 log-spaced values from 1e2 to 1e8.
RATE_BATCHES = np.unique(np.logspace(2, 8, 121).astype(np.int64))


def stream(profile: BalleProfile, index: int) -> np.random.SeedSequence:
    """The ``index``-th child of the checks' root seed ``[seed, 2016]`` (a child depends only on
    its index, not on how many are spawned)."""
    return np.random.SeedSequence([profile.seed, 2016]).spawn(index + 1)[index]


def check_simulation(ctx: Context[BalleState]) -> None:
    """The chain simulator against dynamic programming (Section 6)."""
    err = simulation_error(ctx.profile, stream(ctx.profile, 0))
    ctx.report.check(
        "simulation", "first-visit MC means of 20000 trajectories match exact V", err, below=0.02
    )


def check_closed_forms(ctx: Context[BalleState]) -> None:
    """The closed forms of LSW and LSL (Sections 2.2 and 3.2) against a direct least-squares solve."""
    dev = closed_form_deviation(ctx.profile, stream(ctx.profile, 1))
    ctx.report.check(
        "closed_forms",
        "LSW and LSL closed forms match a direct least-squares solve",
        dev,
        below=1e-8,
    )


def check_smooth_bounds(ctx: Context[BalleState]) -> None:
    """The smooth bounds of DP-LSW (Lemmas 4 and 5) and DP-LSL (Lemma 9) against brute force."""
    sb = smooth_bound_check(ctx.profile, stream(ctx.profile, 2))
    ctx.state.smooth_bounds = sb
    ctx.report.check(
        "smooth_bounds",
        "vectorised smooth bounds equal brute force (relative difference)",
        sb["rel_diff"].max(),
        below=1e-10,
    )


def check_lemma1(ctx: Context[BalleState]) -> None:
    """Lemma 1's conditions (a) and (b) on neighbouring pairs of chain batches."""
    nc = neighbour_check(ctx.profile, stream(ctx.profile, 3))
    ctx.state.neighbours = nc
    ctx.report.check(
        "lemma1_a",
        "Lemma 1 (a) on every neighbouring pair: alpha ||mu_X - mu_X'|| / sigma",
        nc["ratio_a"].max(),
        at_most=1.0,
    )
    ctx.report.check(
        "lemma1_b",
        "Lemma 1 (b) on every neighbouring pair: sigma ratio^2 / e^beta",
        nc["ratio_b"].max(),
        at_most=1.0 + 1e-12,
    )


def check_local_sensitivity(ctx: Context[BalleState]) -> None:
    """The local-sensitivity bounds of LSW (Lemma 2, Corollary 3) and LSL (Lemma 7, Corollary 8)
    on arbitrary datasets, not only chain-generated ones."""
    arb = arbitrary_dataset_check(ctx.profile.n_arbitrary, stream(ctx.profile, 4))
    ctx.state.arbitrary = arb
    ctx.report.check(
        "lsw_sensitivity_arbitrary",
        "LSW local-sensitivity bound on arbitrary datasets",
        arb["ratio_lsw"].max(),
        at_most=1.0 + 1e-9,
    )
    ctx.report.check(
        "lsl_sensitivity_arbitrary",
        "LSL local-sensitivity bound on arbitrary datasets",
        arb["ratio_lsl"].max(),
        at_most=1.0 + 1e-9,
    )


def check_privacy_loss(ctx: Context[BalleState]) -> None:
    """Monte Carlo privacy loss of every release at the worst neighbouring pair found (the
    ledger's empirical cross-check)."""
    loss = privacy_loss_check(ctx.profile, stream(ctx.profile, 5))
    ctx.state.privacy_loss = loss
    ctx.report.check(
        "privacy_loss",
        "Monte Carlo delta(epsilon) + 3 SE at the worst pair found, all four releases",
        loss["delta_upper"].max(),
        at_most=ctx.profile.delta,
    )


def check_rate(ctx: Context[BalleState]) -> None:
    """Theorem 11's m^-2 regime of DP-LSW's noise variance, reached for m >= 1e7: the tail slopes
    and where the regime starts, by features, kept and glued (``slope_tail_<features>``,
    ``rate_onset_<features>``, read by the erratum ``rate_m2_far_beyond_range``)."""
    rate = noise_rate(ctx.profile, RATE_BATCHES)
    ctx.state.noise_rate = rate
    tail = rate[rate["m"] >= 10**7]
    slopes = ctx.state.rate_slope_tail = {
        str(f): log_slope(g["m"].to_numpy(float), g["noise_var"].to_numpy())
        for f, g in tail.groupby("features")
    }
    ctx.report.check(
        "rate_m2_asymptotic",
        "DP-LSW noise variance slope for m >= 1e7 (largest |slope + 2|)",
        max(abs(s + 2) for s in slopes.values()),
        below=0.1,
    )
    ctx.state.rate_onset = rate_onset(rate)
    for feat, onset in ctx.state.rate_onset.items():
        ctx.glue(f"slope_tail_{feat}", slopes[feat])
        ctx.glue(f"rate_onset_{feat}", onset)


CHECKS: tuple[Callable[[Context[BalleState]], None], ...] = (
    check_simulation,
    check_closed_forms,
    check_smooth_bounds,
    check_lemma1,
    check_local_sensitivity,
    check_privacy_loss,
    check_rate,
)
