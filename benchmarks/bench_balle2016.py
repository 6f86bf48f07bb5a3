"""Benchmark (Balle et al. 2016): the DP-LSW smooth bound and first-visit returns.

* Smooth bound: the breakpoint evaluation of :func:`lsw_smooth_bound` (O(N^2), independent of the
  counts) against the full range k = 0 .. max_s m_s evaluated with the same vectorised phi_k
  (O(N max_s m_s)), on chain signatures of growing batch size.
* First-visit returns: the vectorised :func:`first_visit_returns` against a per-trajectory Python
  loop (the obvious implementation), on chain batches.

Prints a table of ratios (baseline time / our time) and writes ``benchmarks/results/balle2016.json``.
Run: ``.venv/bin/python benchmarks/bench_balle2016.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _timing import best_of

from privrl.core.accounting.smooth_sensitivity import lsw_phi, lsw_smooth_bound
from privrl.core.algorithms.monte_carlo import first_visit_returns
from privrl.core.envs.chain import chain_mdp, sample_trajectories

GAMMA = 0.99
BETA = 0.1 / (4 * (40 + np.log(20)))


def full_range(counts: np.ndarray, rho: np.ndarray) -> float:
    k = np.arange(int(counts.max()) + 1)
    return float(np.max(np.exp(-BETA * k) * lsw_phi(counts, rho, k)))


def loop_first_visit(traj, n: int) -> np.ndarray:
    F = np.zeros((traj.n_trajectories, n))
    for i in range(traj.n_trajectories):
        L = int(traj.lengths[i])
        G, seen = 0.0, {}
        returns = np.empty(L)
        for t in range(L - 1, -1, -1):
            G = traj.rewards[i, t] + GAMMA * G
            returns[t] = G
        for t in range(L):
            s = int(traj.observations[i, t])
            if s not in seen:
                seen[s] = returns[t]
        for s, g in seen.items():
            F[i, s] = g
    return F


def main() -> dict:
    mdp = chain_mdp(40)
    rho = np.full(40, 1 / 40)
    rows = []
    for m in (1000, 10_000, 100_000):
        traj = sample_trajectories(mdp, m, 0)
        fv = first_visit_returns(traj, 40, GAMMA)
        counts = fv.counts
        assert np.isclose(lsw_smooth_bound(counts, rho, BETA), full_range(counts, rho), rtol=1e-12)
        t_fast = best_of(lambda c=counts: lsw_smooth_bound(c, rho, BETA), 20)
        t_full = best_of(lambda c=counts: full_range(c, rho), 3)
        row = {
            "m": m,
            "bound_breakpoints_s": t_fast,
            "bound_full_range_s": t_full,
            "bound_speedup": t_full / t_fast,
        }
        if m <= 10_000:
            t_vec = best_of(lambda tr=traj: first_visit_returns(tr, 40, GAMMA), 3)
            t_loop = best_of(lambda tr=traj: loop_first_visit(tr, 40), 1)
            assert np.allclose(loop_first_visit(traj, 40)[:, :39], fv.returns[:, :39])
            row.update(
                first_visit_vectorised_s=t_vec,
                first_visit_loop_s=t_loop,
                first_visit_speedup=t_loop / t_vec,
            )
        rows.append(row)
    for r in rows:
        print(
            "  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items())
        )
    out = Path(__file__).parent / "results" / "balle2016.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(json.dumps(rows))
    return {"rows": rows}


if __name__ == "__main__":
    main()
