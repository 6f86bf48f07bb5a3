"""Benchmark (Wang and Hegde 2019, Proposition 9): sample-path sampler vs dense GP sampling.

Both answer the same N random-order queries of a path of the kernel exp(-beta |x - y|). Dense
sampling factorises the N x N covariance (Cholesky, O(N^3)); the sample path sorts the batch and
runs the Ornstein-Uhlenbeck recursion (O(N log N)), or, in the "incremental" variant, answers the
queries in batches of 128 as Algorithm 1 does. Prints a table and writes
``benchmarks/results/wang2019.json``. Run: ``.venv/bin/python benchmarks/bench_wang2019.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from _timing import best_of

from privrl.core.mechanisms.gaussian_process import OUSamplePath, dense_gp_sample

BETA, SIGMA = 1.0, 1.0
SIZES = [1000, 2000, 5000, 10_000, 30_000, 100_000]
DENSE_MAX = 4000


def main() -> dict:
    rng = np.random.default_rng(0)
    rows = []
    for n in SIZES:
        x = rng.uniform(0, 1, n)
        path = OUSamplePath(BETA, SIGMA, rng)

        def batch(path=path, x=x):
            path.reset()
            path(x)

        def incremental(path=path, x=x, n=n):
            path.reset()
            for chunk in np.array_split(x, max(1, n // 128)):
                path(chunk)

        row = {
            "n": n,
            "path_batch_s": best_of(batch, 5),
            "path_incremental_s": best_of(incremental, 2),
        }
        if n <= DENSE_MAX:
            row["dense_cholesky_s"] = best_of(lambda x=x: dense_gp_sample(x, BETA, SIGMA, rng), 2)
            row["speedup_batch"] = row["dense_cholesky_s"] / row["path_batch_s"]
            row["speedup_incremental"] = row["dense_cholesky_s"] / row["path_incremental_s"]
        rows.append(row)
    base = rows[0]
    for row in rows:
        nlogn = row["n"] * math.log(row["n"]) / (base["n"] * math.log(base["n"]))
        row["batch_growth_over_nlogn"] = row["path_batch_s"] / base["path_batch_s"] / nlogn
        row["incremental_growth_over_nlogn"] = (
            row["path_incremental_s"] / base["path_incremental_s"] / nlogn
        )
    at2000 = next(r for r in rows if r["n"] == 2000)
    result = {
        "benchmark": "wang2019 sample path vs dense Cholesky",
        "rows": rows,
        "speedup_at_2000": at2000["speedup_batch"],
        "speedup_incremental_at_2000": at2000["speedup_incremental"],
        "target_speedup_at_2000": 100.0,
        "max_growth_over_nlogn_batch": max(r["batch_growth_over_nlogn"] for r in rows),
        "max_growth_over_nlogn_incremental": max(r["incremental_growth_over_nlogn"] for r in rows),
    }
    header = f"{'N':>7} {'batch s':>9} {'incr. s':>9} {'dense s':>9} {'speedup':>8} {'t/NlogN (rel)':>14}"
    print(header)
    for r in rows:
        dense = f"{r['dense_cholesky_s']:9.4f}" if "dense_cholesky_s" in r else f"{'-':>9}"
        speed = f"{r['speedup_batch']:8.0f}" if "speedup_batch" in r else f"{'-':>8}"
        print(
            f"{r['n']:>7} {r['path_batch_s']:9.5f} {r['path_incremental_s']:9.4f} {dense} {speed} "
            f"{r['batch_growth_over_nlogn']:14.2f}"
        )
    print(
        f"speed-up at N=2000: {result['speedup_at_2000']:.0f}x (target >= 100x); "
        f"max time/(N log N) relative to N=1000: batch {result['max_growth_over_nlogn_batch']:.2f}, "
        f"incremental {result['max_growth_over_nlogn_incremental']:.2f} (<= ~1 means no worse than N log N)"
    )
    out = Path(__file__).parent / "results" / "wang2019.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
