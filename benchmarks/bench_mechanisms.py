"""The api's grid mechanisms against floating-point noise (same run): what exactness costs.

One command: ``.venv/bin/python benchmarks/bench_mechanisms.py``. For a vector of 10^6
coordinates, each side timed best of 5 (wall seconds, single process):

* ``privrl.gaussian_mechanism``: calibration (dp-accounting RDP, bisection), rounding to the grid
  and 10^6 exact discrete Gaussian integers (CKS 2020, Algorithm 3; compiled);
  baseline: ``value + rng.normal(0, sigma, size)`` at the same sigma (not private on doubles).
* ``privrl.laplace_mechanism``: rounding and 10^6 exact discrete Laplace integers (Algorithm 2);
  baseline: ``value + rng.laplace(0, b, size)`` at the same scale.

The compiled samplers are loaded (or compiled) by a warm-up call before any clock starts.
Prints the ratios (grid over floating point; target: at most 25x for the Gaussian, whose
exact sampler draws a discrete Laplace candidate and exact Bernoullis per try, a few tries per
sample) and writes ``benchmarks/results/mechanisms.json``.

Measured (load average 2.8 from the Gohari recorder's two processes on the 2 cores): Gaussian
0.23 s against 0.015 s (15.7x, 231 ns per coordinate), Laplace 0.13 s against 0.022 s (5.9x).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _timing import best_of, write_result

import privrl

D = 1_000_000
REPEATS = 5
GAUSSIAN_TARGET = 25.0


def main() -> dict:
    value = np.random.default_rng(0).normal(size=D)
    start = time.perf_counter()
    privrl.gaussian_mechanism(value[:10], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    privrl.laplace_mechanism(value[:10], sensitivity=1.0, epsilon=1.0, rng=0)
    warmup = time.perf_counter() - start
    g = privrl.gaussian_mechanism(value, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    lap = privrl.laplace_mechanism(value, sensitivity=1.0, epsilon=1.0, rng=0)
    sigma, b = g.parameters["sigma"], lap.parameters["noise_scale"]
    gen = np.random.default_rng(1)
    out = {
        "d": D,
        "load_average": os.getloadavg()[0],
        "warmup_wall_s": warmup,
        "gaussian_grid_s": best_of(
            lambda: privrl.gaussian_mechanism(
                value, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=gen
            ),
            REPEATS,
        ),
        "gaussian_float_s": best_of(lambda: value + gen.normal(0.0, sigma, size=D), REPEATS),
        "laplace_grid_s": best_of(
            lambda: privrl.laplace_mechanism(value, sensitivity=1.0, epsilon=1.0, rng=gen), REPEATS
        ),
        "laplace_float_s": best_of(lambda: value + gen.laplace(0.0, b, size=D), REPEATS),
    }
    out["gaussian_ratio"] = out["gaussian_grid_s"] / out["gaussian_float_s"]
    out["laplace_ratio"] = out["laplace_grid_s"] / out["laplace_float_s"]
    out["gaussian_ns_per_coordinate"] = out["gaussian_grid_s"] / D * 1e9
    out["gaussian_target_met"] = out["gaussian_ratio"] <= GAUSSIAN_TARGET
    print(
        f"Gaussian: grid {out['gaussian_grid_s']:.3f} s, floating point "
        f"{out['gaussian_float_s']:.3f} s: {out['gaussian_ratio']:.1f}x (target <= "
        f"{GAUSSIAN_TARGET:g}x)"
    )
    print(
        f"Laplace:  grid {out['laplace_grid_s']:.3f} s, floating point "
        f"{out['laplace_float_s']:.3f} s: {out['laplace_ratio']:.1f}x"
    )
    return write_result("mechanisms.json", out)


if __name__ == "__main__":
    main()
