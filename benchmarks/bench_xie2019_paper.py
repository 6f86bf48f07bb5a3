"""Projected cost of the xie2019 paper profile: CPU seconds of one trial of each kind, measured
(process time, so other load on the machine does not inflate it), times the number of such
trials the paper profile runs, at the smallest and the largest n of each sweep (the projection
interpolates linearly in n between them).

Run: ``.venv/bin/python benchmarks/bench_xie2019_paper.py [--out benchmarks/results/xie2019-paper-projection.json]``.
The HIV pool (one simulation per worker process) is timed on a small pool and scaled linearly in
the number of patients.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from privrl.core.accounting.subsampled import calibrate_noise_multiplier
from privrl.papers.xie2019 import chain, domains, mc_lsw
from privrl.papers.xie2019.profile import XieProfile, chain_config


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def interpolate(sizes, cost_small: float, cost_large: float) -> float:
    """Sum over ``sizes`` of a cost linear in n through (min n, cost_small), (max n, cost_large)."""
    lo, hi = min(sizes), max(sizes)
    slope = 0.0 if hi == lo else (cost_large - cost_small) / (hi - lo)
    return float(sum(cost_small + slope * (n - lo) for n in sizes))


def measure(p: XieProfile) -> dict[str, float]:
    """CPU seconds of one trial of each kind at the paper profile's settings."""
    seed = np.random.SeedSequence(1)
    base = chain_config(p)
    cost: dict[str, float] = {}
    for n in (min(p.chain_sizes), max(p.chain_sizes)):
        cfg = {
            **base,
            "n": n,
            "iterations": p.chain_iterations,
            "z": 1.0,
            "step_size": 0.01,
            "gate_step": 30.0,
        }
        cost[f"chain_compare_n{n}"] = cpu(lambda cfg=cfg: chain.run_chain_compare(cfg, seed))
        cost[f"chain_steps_n{n}"] = cpu(lambda cfg=cfg: chain.run_chain_steps(cfg, seed))
    sched = {
        **base,
        "n": p.sensitivity_n,
        "z": 1.0,
        "step_size": 0.01,
        "iterations": max(p.schedule_iterations),
    }
    cost["schedules_Tmax"] = cpu(lambda: chain.run_schedules(sched, seed))
    hiv = dict(hiv_horizon=p.hiv_horizon, hiv_pool_size=p.hiv_pool_size, hiv_heldout=p.hiv_heldout)
    for domain in ("mountain_car_on", "mountain_car_off"):
        cost[f"{domain}_heldout"] = cpu(lambda d=domain: domains.heldout_problem(d))
        for n in (min(p.mc_n), max(p.mc_n)):
            noise = [(e, 1.0, 0.01) for e in p.mc_epsilons]
            cfg = {"domain": domain, "n": n, "noise": noise, **hiv}
            cost[f"{domain}_trial_n{n}"] = cpu(lambda cfg=cfg: domains.run_domain_trial(cfg, seed))
            tune = {**cfg, "noise": [(e, z) for e, z, _ in noise]}
            cost[f"{domain}_tuning_n{n}"] = cpu(lambda t=tune: domains.run_gpope_tuning(t, seed))
    for n in (min(p.mc_n), max(p.mc_n)):
        lsw = {"n": n, "grids": p.lsw_grids, "epsilons": p.mc_epsilons, "delta": p.domain_delta}
        cost[f"mc_lsw_trial_n{n}"] = cpu(lambda c=lsw: mc_lsw.run_lsw_trial(c, seed))
    small = 12
    cost["hiv_pool_per_patient"] = cpu(lambda: domains.hiv_pool(small, p.hiv_horizon)) / small
    cfg = {
        "domain": "hiv",
        "n": 10,
        "noise": [(e, 1.0, 0.1) for e in p.hiv_epsilons],
        "hiv_horizon": p.hiv_horizon,
        "hiv_pool_size": 10,
        "hiv_heldout": 2,
    }
    domains.hiv_pool(12, p.hiv_horizon)
    cost["hiv_trial"] = cpu(lambda: domains.run_domain_trial(cfg, seed))
    cost["calibration"] = cpu(lambda: calibrate_noise_multiplier(0.5, 1e-5, 3000, 5000, 1e-2))
    return cost


def project(p: XieProfile, cost: dict[str, float]) -> dict:
    """Measured costs times the trials of the paper profile."""
    trials, tune = p.n_trials, p.tune_trials
    n_calibrations = (
        len(p.chain_sizes)
        + len(p.schedule_iterations)
        + len(p.mc_n) * len(p.mc_epsilons)
        + len(p.hiv_n) * len(p.hiv_epsilons)
    )
    mc = {
        d: trials
        * interpolate(p.mc_n, cost[f"{d}_trial_n{min(p.mc_n)}"], cost[f"{d}_trial_n{max(p.mc_n)}"])
        + tune
        * interpolate(
            p.mc_n, cost[f"{d}_tuning_n{min(p.mc_n)}"], cost[f"{d}_tuning_n{max(p.mc_n)}"]
        )
        + 2 * cost[f"{d}_heldout"]
        for d in ("mountain_car_on", "mountain_car_off")
    }
    lo, hi = min(p.chain_sizes), max(p.chain_sizes)
    parts = {
        "chain_compare": trials
        * interpolate(p.chain_sizes, cost[f"chain_compare_n{lo}"], cost[f"chain_compare_n{hi}"]),
        "chain_tuning_and_sensitivity": tune
        * interpolate(p.chain_sizes, cost[f"chain_steps_n{lo}"], cost[f"chain_steps_n{hi}"])
        + trials
        * cost[
            f"chain_steps_n{p.sensitivity_n}"
            if p.sensitivity_n in (lo, hi)
            else f"chain_steps_n{hi}"
        ],
        "schedules": p.schedule_trials
        * cost["schedules_Tmax"]
        * sum(p.schedule_iterations)
        / max(p.schedule_iterations),
        **mc,
        "mc_lsw": trials
        * interpolate(
            p.mc_n, cost[f"mc_lsw_trial_n{min(p.mc_n)}"], cost[f"mc_lsw_trial_n{max(p.mc_n)}"]
        ),
        "hiv": 2 * (p.hiv_pool_size + p.hiv_heldout) * cost["hiv_pool_per_patient"]
        + (trials + tune) * len(p.hiv_n) * cost["hiv_trial"],
        "accounting": n_calibrations * cost["calibration"] * 1.5,
    }
    total = sum(parts.values())
    return {
        "measured_cpu_seconds": cost,
        "projected_cpu_seconds": parts,
        "projected_total_cpu_seconds": total,
        "projected_wall_minutes_on_2_cores": total / 120,
        "note": "process time of one trial of each kind (linear in n between the smallest and "
        "largest n); schedules scaled from the largest T by sum(T) / max(T); "
        "accounting x1.5 for the ledger's cross-checks; the HIV pool is simulated once "
        "per worker (2 workers)",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--from-json", default=None, help="reuse the measured costs of a record")
    args = parser.parse_args()
    p = XieProfile.paper()
    cost = (
        json.loads(Path(args.from_json).read_text())["measured_cpu_seconds"]
        if args.from_json
        else measure(p)
    )
    text = json.dumps(project(p, cost), indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
