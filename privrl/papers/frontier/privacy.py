r"""The Frontier chapter's releases as ledger entries: one relation, one (epsilon, delta) per point.

Every method is calibrated to the point's (epsilon, delta) for neighbouring datasets that differ
in one trajectory (replace-one; Xie et al.'s Definition 1 and Balle et al.'s neighbouring batches
are both this relation, so no conversion is needed):

* GPOPE under PLD: :class:`~privrl.core.accounting.gpope_pld.GpopePldEvent`, cross-checked by
  the same pair's PLD at a finer discretisation (the RDP figure on the same z, an upper bound
  that needs no dominating-pair theorem, is stated beside it);
* GPOPE under RDP (Xie et al.'s analysis): :class:`~privrl.core.accounting.subsampled.GpopeEvent`,
  cross-checked by the PLD figure on the same z, which the RDP figure must not undercut;
* DP-LSW and DP-LSL: Lemma 1 of Balle et al. (smooth sensitivity,
  :class:`~privrl.core.accounting.smooth_sensitivity.SmoothGaussianEvent`, epsilon by
  construction; no independent cross-check applies:
  :data:`~privrl.chapter.ledger.LEMMA1_CROSS_CHECK` names what tests the release);
* SSP-LSTD: one grid Gaussian on :math:`(\mathrm{vec}\,A, b)` at the noise multiplier of one
  Gaussian release, its event dp-accounting's ``GaussianDpEvent``
  (:func:`~privrl.chapter.ssp_ledger.ssp_lstd_ledger_entry`, cross-checked by dp-accounting's RDP
  accountant on its own orders).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from privrl.api.evaluation import gpope_event as api_gpope_event
from privrl.api.evaluation import ssp_lstd_noise
from privrl.api.release import Release
from privrl.chapter.ledger import LEMMA1_CROSS_CHECK, CrossCheck, LedgerEntry
from privrl.chapter.ssp_ledger import ssp_lstd_ledger_entry
from privrl.core.accounting.gpope_pld import GpopePldEvent
from privrl.core.accounting.subsampled import (
    GPOPE_PLD_INTERVAL,
    GpopeEvent,
    GridGpopeEvent,
    gpope_epsilon,
)
from privrl.papers.frontier.profile import PAPER, FrontierProfile
from privrl.papers.frontier.trials import API_ACCOUNTANT, smooth_noise, ssp_bounds

#: Output dimension of DP-LSW/DP-LSL per domain: the chain's tabular features, Mountain Car's
#: order-5 Fourier basis in two dimensions.
FEATURE_DIMS: dict[str, int] = {"chain": 40, "mountain_car_on": 36}


def gpope_event(z: float, n: int, iterations: int, accountant: str) -> GpopeEvent | GpopePldEvent:
    """The guarantee of GPOPE at a noise multiplier ``z`` already calibrated (a calibration
    table's row) under ``accountant`` (``"PLD"`` or ``"RDP"``): the api's
    :func:`~privrl.api.evaluation.gpope_event` (``exact=False``), the event
    :func:`~privrl.api.evaluation.gpope_noise` returns at that ``z``."""
    event = api_gpope_event(
        z, n=n, iterations=iterations, exact=False, accountant=API_ACCOUNTANT[accountant]
    )
    assert not isinstance(event, GridGpopeEvent)
    return event


def gpope_entry(row: Any, delta: float, domains: tuple[str, ...], source: str) -> LedgerEntry:
    """The ledger entry of GPOPE at one calibration row (``n, epsilon, accountant, iterations,
    z, cross_epsilon``): its event under the row's accountant, cross-checked by the tighter
    figure the calibration stored (:data:`~privrl.papers.frontier.trials.CROSS_CHECKS`: a
    finer PLD for a PLD row; for an RDP row, the PLD figure its RDP figure must not undercut: a
    second RDP figure on other orders would only be a looser bound)."""
    z, n, T = float(row.z), int(row.n), int(row.iterations)
    pld = row.accountant == "PLD"
    event = gpope_event(z, n, T, str(row.accountant))
    cross = CrossCheck(
        "upper bound",
        f"the same pair's PLD at half the discretisation interval "
        f"({GPOPE_PLD_INTERVAL / 2:g}, pessimistic)"
        if pld
        else "the tight PLD figure on the same z (dominating pair "
        "of Zhu, Dong and Wang 2022, pessimistic), which a valid RDP figure "
        "is never below",
        float(row.cross_epsilon),
    )
    rdp = (
        f"; RDP on the same z (no dominating-pair theorem needed): "
        f"{gpope_epsilon(z, n, T, delta):.4g}"
        if pld
        else ""
    )
    return LedgerEntry(
        paper=PAPER,
        release=f"GPOPE value-function weights ({row.accountant}), n = {n}, "
        f"target epsilon {float(row.epsilon):g}, {source}: "
        f"{', '.join(domains)}",
        mechanism="GPOPE (Xie et al. 2019, Algorithm 1): one trajectory sampled without "
        "replacement per step, gradient clipped to G, Gaussian noise of sd 2 G z",
        relation="replace-one",
        unit="trajectory",
        noise=f"z = {z:.4g}",
        delta=delta,
        compositions=T,
        accountant=(
            "PLD (dp-accounting, pessimistic; dominating pair of Zhu, Dong and Wang 2022)" + rdp
            if pld
            else "privrl RDP, sampling without replacement"
        ),
        event=event,
        cross_check=cross,
        audit="audits:gpope",
    )


def smooth_entry(
    profile: FrontierProfile,
    method: str,
    domain: str,
    epsilon: float,
    sigmas: pd.Series,
    source: str,
) -> LedgerEntry:
    """The ledger entry of DP-LSW or DP-LSL on ``domain`` at ``epsilon``: the event of the
    calibration the map releases with (:func:`~privrl.papers.frontier.trials.smooth_noise`, Lemma
    1 for the domain's output dimension), its two conditions recomputed as the cross-check."""
    delta = profile.delta
    event = smooth_noise(profile.domain_config(domain), epsilon, FEATURE_DIMS[domain]).event
    return LedgerEntry(
        paper=PAPER,
        release=f"{method} value-function weights, {domain}, epsilon {epsilon:g}, "
        f"{source}: {len(sigmas)} releases",
        mechanism=f"{method} (Balle et al. 2016): least-squares fit plus Gaussian noise of "
        "smooth-sensitivity scale sigma_X",
        relation="replace-one",
        unit="trajectory",
        noise=(
            f"alpha = {event.alpha:.4g}, beta = {event.beta:.4g}; sigma_X from "
            f"{sigmas.min():.3g} to {sigmas.max():.3g}"
        ),
        delta=delta,
        compositions=1,
        accountant="Lemma 1 of Balle et al. 2016 (smooth sensitivity, by construction)",
        event=event,
        cross_check=LEMMA1_CROSS_CHECK,
        audit="audits:dp_lsw" if method == "DP-LSW" else "audits:dp_lsl",
    )


def ssp_entry(
    profile: FrontierProfile, domain: str, epsilon: float, releases: int, source: str
) -> LedgerEntry:
    """The ledger entry of SSP-LSTD on ``domain`` at ``epsilon`` (``releases`` of them, one per
    replicate and n): the noise the map draws and its event, the api's calibration
    (:func:`~privrl.api.evaluation.ssp_lstd_noise`: the multiplier of one Gaussian release at
    (epsilon, delta) for the domain's bounds)."""
    bounds = ssp_bounds(profile.domain_config(domain))
    calibrated = ssp_lstd_noise(
        epsilon=epsilon, delta=profile.delta, bounds=bounds, d=FEATURE_DIMS[domain]
    )
    noise, event = calibrated.noise, calibrated.event
    release = Release.from_event(
        None,
        event,
        profile.delta,
        relation="replace-one trajectory",
        sigma=noise.sigma,
        noise_multiplier=event.dp_event.noise_multiplier,
        sensitivity=bounds.sensitivity,
        feature_bound=bounds.feature_bound,
        reward_bound=bounds.reward_bound,
        max_length=bounds.max_length,
    )
    return ssp_lstd_ledger_entry(
        release,
        paper=PAPER,
        name=f"SSP-LSTD value-function weights, {domain}, epsilon "
        f"{epsilon:g}, {source}: {releases} releases",
    )


def ledger_entries(
    profile: FrontierProfile, calibration: pd.DataFrame, points: pd.DataFrame, source: str
) -> Iterator[LedgerEntry]:
    """Every release of a run (``source``: "this run" or "recorded paper-profile run"): GPOPE
    per calibration row whose (n, epsilon, accountant, iterations) a release of ``points`` used,
    naming the domains that used it (the tuned iterations may differ between domains; rows of
    iterations no tuning chose made no release), DP-LSW/DP-LSL per (domain, epsilon) of
    ``points``, SSP-LSTD per (domain, epsilon) of ``points``."""
    keys = ["n", "epsilon", "accountant", "iterations"]
    if "iterations" in points.columns:  # one entry per calibration a release used, and where
        used = (
            points.loc[points.method == "GPOPE", [*keys, "domain"]]
            .astype({"iterations": int})
            .drop_duplicates()
            .groupby(keys)
            .domain.agg(lambda d: tuple(sorted(d)))
            .reset_index()
        )
        calibration = calibration.merge(used, on=keys)
    for row in calibration.itertuples():
        domains = getattr(row, "domain", tuple(profile.domains))
        yield gpope_entry(row, profile.delta, domains, source)
    smooth = points[points.method.isin(["DP-LSW", "DP-LSL"])]
    for (method, domain, eps), part in smooth.groupby(["method", "domain", "epsilon"]):
        yield smooth_entry(profile, str(method), str(domain), float(eps), part.noise, source)
    for (domain, eps), part in points[points.method == "SSP-LSTD"].groupby(["domain", "epsilon"]):
        yield ssp_entry(profile, str(domain), float(eps), len(part), source)


__all__ = [
    "FEATURE_DIMS",
    "gpope_entry",
    "gpope_event",
    "ledger_entries",
    "smooth_entry",
    "ssp_entry",
]
