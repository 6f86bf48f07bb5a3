"""The ledger entry of an SSP-LSTD release (:func:`privrl.api.ssp_lstd`)."""

from __future__ import annotations

from typing import Any

from privrl.chapter.ledger import CrossCheck, LedgerEntry


def ssp_lstd_ledger_entry(release: Any, *, paper: str, name: str) -> LedgerEntry:
    """The ledger entry of one :func:`privrl.api.ssp_lstd` release (``release`` its
    :class:`~privrl.api.release.Release`): the grid Gaussian on :math:`(\\mathrm{vec}\\,A, b)`
    under replace-one trajectory, its event the release's own (dp-accounting's
    ``GaussianDpEvent`` by RDP), cross-checked by dp-accounting's RDP accountant on its own
    default orders (an independent choice of orders: the same order of magnitude, never
    below the true loss of the Rényi curve it composes); its audit the Audits chapter's
    ``ssp_lstd`` (:func:`privrl.papers.audits.releases.audit_ssp_lstd`)."""
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    p = release.parameters
    accountant = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    rdp = float(accountant.compose(release.event.to_dp_event()).get_epsilon(release.delta))
    return LedgerEntry(
        paper=paper,
        release=name,
        mechanism="SSP-LSTD: LSTD(0)'s (vec A, b) over every transition, rounded to a grid per "
        "trajectory, exact discrete Gaussian noise, ridge solve (post-processing)",
        relation="replace-one",
        unit="trajectory",
        noise=(
            f"sigma = {p['sigma']:.4g} (z = {p['noise_multiplier']:.4g}, sensitivity "
            f"2 L sqrt(F^4 (1 + gamma)^2 + F^2 R^2) = {p['sensitivity']:.4g} at F = "
            f"{p['feature_bound']:g}, R = {p['reward_bound']:g}, L = {p['max_length']})"
        ),
        delta=release.delta,
        compositions=1,
        accountant="dp-accounting RDP of GaussianDpEvent(sqrt(s) / G) (the discrete Gaussian's "
        "Renyi curve, Canonne, Kamath and Steinke 2020)",
        event=release.event,
        cross_check=CrossCheck(
            "upper bound", "dp-accounting's RDP accountant on its default orders", rdp
        ),
        audit="audits:ssp_lstd",
    )


__all__ = ["ssp_lstd_ledger_entry"]
