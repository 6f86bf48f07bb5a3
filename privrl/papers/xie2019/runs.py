"""The multi-seed experiments of the Xie, Thomas and Miklau (2019) chapter (Section 7).

Each function runs :func:`privrl.chapter.sweep.run_sweep` over the run functions of
:mod:`privrl.papers.xie2019.chain` and :mod:`privrl.papers.xie2019.domains` (one seed = one fresh
dataset), with the GPOPE noise calibrated here, in the parent, for each release
(:class:`~privrl.papers.xie2019.privacy.GpopeBudget`):

* :func:`run_chain` - Figure 1 a and b: the step size tuned per ``n`` on public seeds, then GPOPE
  against DP-LSW, DP-LSL and LSTD on ``n_trials`` fresh datasets;
* :func:`run_theorem23` - Theorems 2 and 3: constant against diminishing steps (and
  :func:`run_theorem23_alone`, with its step tuned without the rest of the chain);
* :func:`run_domain` - Figures 2-4: Mountain Car on- and off-policy and HIV;
* :func:`run_mc_lsw` - Figure 2 a's output perturbation V1: DP-LSW on a grid partition of
  on-policy Mountain Car (our reading, :mod:`privrl.papers.xie2019.mc_lsw`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from privrl.chapter.sweep import run_sweep
from privrl.papers.xie2019 import chain, domains, mc_lsw
from privrl.papers.xie2019.privacy import GpopeBudget, domain_releases
from privrl.papers.xie2019.profile import CHAIN_TUNING_OFFSET, XieProfile, chain_config


def _sweep(
    func: Callable[..., pd.DataFrame],
    configs: list[dict[str, Any]],
    n_seeds: int,
    root_seed: int,
    desc: str,
    **sweep: Any,
) -> pd.DataFrame:
    return run_sweep(
        func, configs, replicates=n_seeds, root_seed=root_seed, desc=f"xie2019 {desc}", **sweep
    )


def _chain_configs(profile: XieProfile, sizes: list[int]) -> list[dict[str, Any]]:
    """The chain's configuration at each ``n`` of ``sizes``, its noise calibrated for
    ``chain_iterations`` at the profile's budget."""
    base, T = chain_config(profile), profile.chain_iterations
    return [
        {
            **base,
            "n": n,
            "iterations": T,
            "z": GpopeBudget(
                "chain", n, T, profile.epsilon, profile.delta, profile.clip_norm
            ).noise.noise_multiplier,
        }
        for n in sizes
    ]


def _tune(
    profile: XieProfile, cfgs: list[dict[str, Any]], **sweep: Any
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The chain's step tuning on public seeds (``tune_trials`` of them, root seed offset by
    :data:`CHAIN_TUNING_OFFSET`) and the best step of each method per ``n`` (a pivot: index n,
    a column per method). A run's seed depends on its index only, so the tuning at one ``n``
    is the same alone as among all sizes."""
    tuning = _sweep(
        chain.run_chain_steps,
        cfgs,
        profile.tune_trials,
        profile.seed + CHAIN_TUNING_OFFSET,
        "tune",
        **sweep,
    )
    mean = tuning.groupby(["method", "n", "step_size"])["mspbe"].mean().reset_index()
    best = mean.loc[mean.groupby(["method", "n"])["mspbe"].idxmin()]
    return tuning, best.pivot(index="n", columns="method", values="step_size")


def run_chain(profile: XieProfile, **sweep: Any) -> dict[str, pd.DataFrame]:
    """Figure 1 a, b: tune the step per n on public seeds, then compare on the private seeds."""
    cfgs = _chain_configs(profile, sorted(set(profile.chain_sizes)))
    tuning, best = _tune(profile, cfgs, **sweep)
    compare = _sweep(
        chain.run_chain_compare,
        [
            {
                **c,
                "step_size": float(best.loc[c["n"], "GPOPE"]),
                "gate_step": float(best.loc[c["n"], "GTD2"]),
            }
            for c in cfgs
        ],
        profile.n_trials,
        profile.seed,
        "chain",
        **sweep,
    )
    sensitivity = _sweep(
        chain.run_chain_steps,
        [c for c in cfgs if c["n"] == profile.sensitivity_n],
        profile.n_trials,
        profile.seed,
        "steps",
        **sweep,
    )
    return dict(
        tuning=tuning,
        best_steps=best.reset_index().rename_axis(columns=None),
        compare=compare,
        sensitivity=sensitivity[sensitivity.method == "GPOPE"],
    )


def run_theorem23(profile: XieProfile, step_size: float, **sweep: Any) -> pd.DataFrame:
    """:func:`~privrl.papers.xie2019.chain.run_schedules` for every total T of the profile
    (noise calibrated for each T) at ``n = sensitivity_n``."""
    n, base = profile.sensitivity_n, chain_config(profile)
    cfgs = [
        {
            **base,
            "n": n,
            "iterations": T,
            "step_size": step_size,
            "z": GpopeBudget(
                "chain", n, T, profile.epsilon, profile.delta, profile.clip_norm
            ).noise.noise_multiplier,
        }
        for T in profile.schedule_iterations
    ]
    return _sweep(
        chain.run_schedules, cfgs, profile.schedule_trials, profile.seed, "schedules", **sweep
    )


def run_theorem23_alone(profile: XieProfile, **sweep: Any) -> pd.DataFrame:
    """:func:`run_theorem23` as the chapter's sweep runs it, without the rest of the chain: GPOPE's
    step tuned at ``n = sensitivity_n`` alone (:func:`_tune`), then the schedules at it."""
    _, best = _tune(profile, _chain_configs(profile, [profile.sensitivity_n]), **sweep)
    return run_theorem23(profile, float(best.loc[profile.sensitivity_n, "GPOPE"]), **sweep)


def run_domain(profile: XieProfile, domain: str, **sweep: Any) -> pd.DataFrame:
    """:func:`~privrl.papers.xie2019.domains.run_domain_trial` over the profile's sizes,
    ``n_trials`` fresh datasets each (noise calibrated here, in the parent)."""
    releases = domain_releases(profile, domain)
    cfgs = [
        {
            "domain": domain,
            "n": n,
            "noise": [(r.target_epsilon, r.noise.noise_multiplier) for r in releases if r.n == n],
            "hiv_horizon": profile.hiv_horizon,
            "hiv_pool_size": profile.hiv_pool_size,
            "hiv_heldout": profile.hiv_heldout,
        }
        for n in sorted({r.n for r in releases})
    ]
    tuning = _sweep(
        domains.run_gpope_tuning,
        cfgs,
        profile.tune_trials,
        domains.TUNING_SEED,
        f"{domain} tune",
        **sweep,
    )
    mean = tuning.groupby(["n", "epsilon", "step_size"])["mspbe"].mean().reset_index()
    best = mean.loc[mean.groupby(["n", "epsilon"])["mspbe"].idxmin()]
    step = {(r.n, r.epsilon): r.step_size for r in best.itertuples()}
    for c in cfgs:
        c["noise"] = [(e, z, float(step[(c["n"], e)])) for e, z in c["noise"]]
    return _sweep(domains.run_domain_trial, cfgs, profile.n_trials, profile.seed, domain, **sweep)


def run_mc_lsw(profile: XieProfile, **sweep: Any) -> pd.DataFrame:
    """:func:`~privrl.papers.xie2019.mc_lsw.run_lsw_trial` at every ``mc_n``, ``n_trials``
    datasets each (root seed ``seed``: the datasets of :func:`run_domain`'s on-policy trials),
    every grid of ``lsw_grids``, every epsilon of ``mc_epsilons`` at ``domain_delta``."""
    cfgs = [
        {
            "n": n,
            "grids": tuple(profile.lsw_grids),
            "epsilons": tuple(profile.mc_epsilons),
            "delta": profile.domain_delta,
        }
        for n in sorted(set(profile.mc_n))
    ]
    return _sweep(mc_lsw.run_lsw_trial, cfgs, profile.n_trials, profile.seed, "mc DP-LSW", **sweep)


__all__ = ["run_chain", "run_domain", "run_mc_lsw", "run_theorem23", "run_theorem23_alone"]
