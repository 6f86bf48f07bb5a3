"""GPOPE's releases in the Xie, Thomas and Miklau (2019) chapter: calibrated noise and their accounting.

Algorithm 1 (GPOPE) samples one of the ``n`` trajectories per step, clips the primal-dual gradient
to G and adds Gaussian noise. Theorem 1 gives the noise scale as
:math:`\\sigma \\propto \\sqrt{T \\log(1/\\delta)} / (n \\varepsilon)` only up to unspecified
constants, so every release here is calibrated instead with a tight accountant
(:mod:`privrl.core.accounting.subsampled`: sampling without replacement, replace-one trajectory,
RDP), compared with dp-accounting's RDP accountant on its default orders (the check
``accounting_tight``). :func:`release_row` also gives Theorem 1's constant that the calibrated
noise would need, what the common Poisson / add-remove shortcut would claim for it, and, beyond
the paper, the tight PLD figure beside the RDP one (``epsilon_pld``,
:func:`~privrl.core.accounting.subsampled.gpope_pld_epsilon`: attained by a GPOPE pair, and GPOPE's
epsilon exactly under the dominating pairs of Zhu, Dong and Wang 2022). The ledger entry states it
next to its accountant and is cross-checked by it (:data:`CROSS_CHECK`: a valid RDP figure is
never below the tight one; a second RDP figure on other orders would only be a looser bound, which
the ledger's check would read as a contradiction); the RDP figure stays the one reported and
decided with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privrl.api.evaluation import GpopeNoise, gpope_noise, smooth_gaussian_noise
from privrl.chapter.ledger import LARGE_DELTA, LEMMA1_CROSS_CHECK, CrossCheck, LedgerEntry
from privrl.core.accounting.gaussian import gaussian_epsilon
from privrl.core.accounting.subsampled import (
    dp_accounting_epsilon,
    gpope_epsilon,
    gpope_pld_epsilon,
    gpope_tv_upper,
    poisson_shortcut_epsilon,
    theorem1_sigma,
)
from privrl.core.algorithms.gtd import SaddlePointStats, gpope
from privrl.core.envs.chain import sample_trajectories
from privrl.papers.xie2019 import chain, domains, mc_lsw
from privrl.papers.xie2019.profile import PAPER, XieProfile, chain_config

GPOPE_ACCOUNTANT = (
    "privrl RDP: sampling without replacement, Wang et al. 2019 Thm 27, orders = "
    "dp-accounting defaults + coarse grid"
)
CROSS_CHECK = (
    "the tight PLD figure on the same z (dp-accounting, pessimistic; dominating pair of "
    "Zhu, Dong and Wang 2022), which a valid RDP figure is never below"
)
PLD_BESIDE = (
    "beyond the paper, tight PLD (dp-accounting, Poisson remove/add pair at rate 1/n "
    "that a GPOPE pair attains; Zhu, Dong, Wang 2022): epsilon ="
)


@dataclass(frozen=True)
class GpopeBudget:
    """The target of one GPOPE run of the chapter: ``n`` trajectories, ``iterations`` steps,
    clip norm G, target (``target_epsilon``, ``delta``)."""

    domain: str
    n: int
    iterations: int
    target_epsilon: float
    delta: float
    clip_norm: float

    @property
    def noise(self) -> GpopeNoise:
        """Its noise by the api's calibration of the paper's floating-point Gaussian
        (:func:`~privrl.api.evaluation.gpope_noise`, ``exact=False``, RDP)."""
        return gpope_noise(
            epsilon=self.target_epsilon,
            delta=self.delta,
            n=self.n,
            iterations=self.iterations,
            exact=False,
        )


def domain_releases(profile: XieProfile, domain: str) -> list[GpopeBudget]:
    """The calibrated GPOPE releases of a domain: every (n, epsilon) of the profile."""
    key = "hiv" if domain == "hiv" else "mc"
    s = domains.SETTINGS[domain]
    return [
        GpopeBudget(domain, n, s.iterations, eps, profile.domain_delta, s.clip_norm)
        for n in getattr(profile, f"{key}_n")
        for eps in getattr(profile, f"{key}_epsilons")
    ]


def all_releases(profile: XieProfile) -> list[GpopeBudget]:
    """Every GPOPE release of a run, in the ledger's order: the chain's sizes (Figure 1 a), the
    chain's totals T (Theorems 2-3), then each domain's (n, epsilon) points (Figures 2-4)."""
    releases = [
        GpopeBudget(
            "chain", n, profile.chain_iterations, profile.epsilon, profile.delta, profile.clip_norm
        )
        for n in sorted(set(profile.chain_sizes))
    ]
    releases += [
        GpopeBudget(
            "chain (Theorems 2-3)",
            profile.sensitivity_n,
            T,
            profile.epsilon,
            profile.delta,
            profile.clip_norm,
        )
        for T in profile.schedule_iterations
    ]
    for domain in domains.DOMAINS:
        releases += domain_releases(profile, domain)
    return releases


def release_row(release: GpopeBudget) -> dict[str, Any]:
    """The row of the chapter's privacy table for a release: its calibrated noise multiplier z
    and ``event`` (:attr:`GpopeBudget.noise`), its epsilon, dp-accounting's (the cross-check), the
    tight PLD figure (beyond the paper), the Poisson shortcut's, and the constant Theorem 1's form
    would need for z."""
    noise = release.noise
    z, n, T, dl = noise.noise_multiplier, release.n, release.iterations, release.delta
    return dict(
        domain=release.domain,
        n=n,
        iterations=T,
        target_epsilon=release.target_epsilon,
        delta=dl,
        noise_multiplier=z,
        epsilon=gpope_epsilon(z, n, T, dl),
        epsilon_dp_accounting=dp_accounting_epsilon(z, n, T, dl),
        epsilon_pld=gpope_pld_epsilon(z, n, T, dl),
        epsilon_poisson_shortcut=poisson_shortcut_epsilon(z, n, T, dl),
        theorem1_constant=z / theorem1_sigma(release.target_epsilon, dl, n, T),
        event=noise.event,
    )


def privacy_table(profile: XieProfile) -> pd.DataFrame:
    """:func:`release_row` of every release of :func:`all_releases`, in that order."""
    return pd.DataFrame([release_row(r) for r in all_releases(profile)])


def pld_cross_check(epsilon_pld: float) -> CrossCheck:
    """:data:`CROSS_CHECK` at the tight PLD figure ``epsilon_pld``; where that figure is 0 (a
    delta large enough to cover the whole privacy loss, e.g. the chain's 0.1), vacuous: every
    reported epsilon is above it."""
    if epsilon_pld > 0:
        return CrossCheck("upper bound", CROSS_CHECK, epsilon_pld)
    return CrossCheck(
        "upper bound",
        CROSS_CHECK,
        None,
        vacuous="the tight PLD figure is 0 at this delta: every epsilon is above it",
    )


def ledger_entry(release: GpopeBudget, row: Mapping[str, Any]) -> LedgerEntry:
    """The ledger entry of a release whose :func:`release_row` is ``row``: its event is the
    row's (:attr:`GpopeBudget.noise`, the api's), its cross-check the tight PLD figure on the same
    z (:data:`CROSS_CHECK`, ``row["epsilon_pld"]``), which its accountant text also states
    (beyond the paper)."""
    event = row["event"]
    z, n, T = event.noise_multiplier, event.n, event.iterations
    if (n, T) != (release.n, release.iterations):
        raise ValueError(
            f"row: its event is of n = {n}, T = {T}; the release's n = {release.n}, "
            f"T = {release.iterations}"
        )
    at_zero = ""
    if float(row["delta"]) >= LARGE_DELTA:
        tv = gpope_tv_upper(z, n, T)
        side = "below" if tv < float(row["delta"]) else "above"
        at_zero = (
            f"(0, {tv:.3g})-DP by total variation (the smaller of Pinsker on KL <= "
            "T/(2 n z^2) and dp-accounting's RDP delta at epsilon = 0), "
            f"{side} delta = {float(row['delta']):g}"
        )
    return LedgerEntry(
        paper=PAPER,
        release=f"GPOPE value-function weights, {release.domain}, n = {n}",
        mechanism="GPOPE (Algorithm 1): one trajectory sampled without replacement per step, "
        "gradient clipped to G, Gaussian noise",
        relation="replace-one",
        unit="trajectory",
        noise=f"z = {z:.4g} (sigma = 2 G z = {2 * release.clip_norm * z:.4g})",
        delta=float(row["delta"]),
        compositions=T,
        accountant=f"{GPOPE_ACCOUNTANT}; {PLD_BESIDE} {float(row['epsilon_pld']):.4g}",
        event=event,
        cross_check=pld_cross_check(float(row["epsilon_pld"])),
        audit="audits:gpope",
        at_delta_zero=at_zero,
    )


def lsw_ledger_entries(profile: XieProfile, lsw: pd.DataFrame) -> list[LedgerEntry]:
    """One entry per (grid, epsilon) of DP-LSW on Mountain Car (table of
    :func:`~privrl.papers.xie2019.mc_lsw.run_lsw_trial`): Lemma 1's smooth-sensitivity Gaussian
    (:class:`SmoothGaussianEvent`, epsilon by construction; no independent cross-check applies,
    :data:`~privrl.chapter.ledger.LEMMA1_CROSS_CHECK` names what tests the release)."""
    entries = []
    d = (domains.MC_FOURIER_ORDER + 1) ** 2
    dl = profile.domain_delta
    dp = lsw[lsw.method == "DP-LSW"]
    for (grid, eps), part in dp.groupby(["grid", "epsilon"]):
        event = smooth_gaussian_noise(
            epsilon=float(eps),
            delta=dl,
            d=d,
            return_bound=mc_lsw.return_bound(),
            return_low=-mc_lsw.return_bound(),
        ).event
        entries.append(
            LedgerEntry(
                paper=PAPER,
                release=f"DP-LSW value-function weights, Mountain Car on-policy, grid "
                f"{grid}x{grid} (our reading): {len(part)} releases",
                mechanism="DP-LSW (Balle et al. 2016, Algorithm 1) on grid cells: LSW + Gaussian "
                "noise of smooth-sensitivity scale sigma_X",
                relation="replace-one",
                unit="trajectory",
                noise=(
                    f"alpha = {event.alpha:.4g}, beta = {event.beta:.4g}, F = "
                    f"{mc_lsw.return_bound():g}; sigma_X from {part.sigma.min():.3g} to "
                    f"{part.sigma.max():.3g}"
                ),
                delta=dl,
                compositions=1,
                accountant="Lemma 1 of Balle et al. 2016 (smooth sensitivity, by construction)",
                event=event,
                cross_check=LEMMA1_CROSS_CHECK,
                audit="audits:dp_lsw",
            )
        )
    return entries


def full_batch_table(
    zs: tuple[float, ...] = (1.0, 2.0, 4.0), Ts: tuple[int, ...] = (1, 10), delta: float = 1e-5
) -> pd.DataFrame:
    """n = 1 (every step uses the only trajectory): the RDP epsilon against the exact privacy
    profile of the composed Gaussian (Balle and Wang 2018), which it must not undercut."""
    rows = [
        dict(
            z=z,
            T=T,
            eps_rdp=gpope_epsilon(z, 1, T, delta),
            eps_exact=gaussian_epsilon(z / math.sqrt(T), delta),
        )
        for z in zs
        for T in Ts
    ]
    out = pd.DataFrame(rows)
    out["ratio"] = out.eps_rdp / out.eps_exact
    return out


def noise_sd_check(profile: XieProfile, seed: int, z: float = 0.8, trials: int = 2000) -> float:
    """Empirical sd of one GPOPE step's noise on the chain (theta_1 minus its noiseless twin over
    ``trials`` parallel trials with the same draws), to compare with 2 G z."""
    cfg = chain_config(profile)
    prob = chain.chain_problem(cfg)
    traj = sample_trajectories(prob["mdp"], 50, seed)
    stats = SaddlePointStats.from_trajectories(traj, profile.gamma, prob["Phi_td"])
    quiet = gpope(stats, 1, 1.0, profile.clip_norm, 0.0, seed, n_trials=trials)
    noisy = gpope(stats, 1, 1.0, profile.clip_norm, z, seed, n_trials=trials)
    noise = np.concatenate([quiet.theta - noisy.theta, quiet.w - noisy.w], axis=1)
    return float(noise.std())


__all__ = [
    "CROSS_CHECK",
    "GPOPE_ACCOUNTANT",
    "GpopeBudget",
    "PLD_BESIDE",
    "all_releases",
    "domain_releases",
    "full_batch_table",
    "ledger_entry",
    "lsw_ledger_entries",
    "noise_sd_check",
    "pld_cross_check",
    "privacy_table",
    "release_row",
]
