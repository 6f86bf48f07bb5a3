"""Benchmark for the Xie et al. (2019) chapter, in one run:

* GPOPE iterations per second against plain GTD2 on the same data (the time cost of privacy:
  clipping and noise), for the chain (tabular, d = 40) and Mountain Car (Fourier, d = 36), for a
  single run and for 100 vectorised trials;
* the time to calibrate the noise multiplier by bisection on the RDP accountant.

Run: ``.venv/bin/python benchmarks/bench_xie2019.py [--out benchmarks/results/xie2019.json]``.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from privrl.core.accounting.subsampled import calibrate_noise_multiplier
from privrl.core.algorithms.gtd import SaddlePointStats, gpope
from privrl.core.algorithms.lstd import FeatureTransitions
from privrl.core.envs import mountain_car as mc
from privrl.core.envs.chain import chain_mdp, sample_trajectories, tabular_features


def _rate(
    stats: SaddlePointStats, iterations: int, trials: int, private: bool, repeats: int = 3
) -> float:
    best = math.inf
    for r in range(repeats):
        t0 = time.perf_counter()
        if private:
            gpope(stats, iterations, 0.01, 0.05, 1.0, r, n_trials=trials)
        else:
            gpope(stats, iterations, 0.01, math.inf, 0.0, r, n_trials=trials)
        best = min(best, time.perf_counter() - t0)
    return iterations / best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None, help="write the JSON here as well as to stdout")
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()

    mdp = chain_mdp()
    Phi = tabular_features(40)
    Phi[mdp.absorbing] = 0
    traj = sample_trajectories(mdp, 1000, 0)
    chain_stats = SaddlePointStats.from_tabular(
        traj.observations, Phi, traj.rewards, traj.lengths, traj.terminated, 0.99
    )
    tr, _ = mc.collect(lambda s: np.full((len(s), 3), 1 / 3), 300, 1)
    mc_stats = SaddlePointStats.from_features(
        FeatureTransitions(
            mc.fourier_features(tr.observations), tr.rewards, tr.lengths, tr.terminated, 0.9
        )
    )
    results: dict[str, object] = {}
    for name, stats in (("chain_d40", chain_stats), ("mountain_car_d36", mc_stats)):
        for trials in (1, 100):
            plain = _rate(stats, args.iterations, trials, private=False)
            priv = _rate(stats, args.iterations, trials, private=True)
            results[f"{name}_trials{trials}"] = {
                "gtd2_iterations_per_s": plain,
                "gpope_iterations_per_s": priv,
                "gpope_over_gtd2_time_ratio": plain / priv,
            }
    timings = []
    for eps, n, T in ((0.1, 1000, 2000), (1.0, 1000, 5000), (1.0, 100, 20000)):
        t0 = time.perf_counter()
        z = calibrate_noise_multiplier(eps, 1e-5, n, T, rtol=1e-3)
        timings.append(
            {"epsilon": eps, "n": n, "T": T, "z": z, "seconds": time.perf_counter() - t0}
        )
    results["calibration"] = timings
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
