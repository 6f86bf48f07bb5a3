"""Wiring tests of DP-LSW / DP-LSL (Balle et al. 2016): the noise each release adds and the
(epsilon, delta) the experiment passes.

Targets: ``monte_carlo.dp_lsw`` / ``dp_lsl`` (released minus non-private estimate has the spread
of Algorithm 1 / 2's sigma) and ``experiments.balle2016.run_figure1`` / ``run_batch`` (the
profile's epsilon, delta, F_max and the LSL regularisation reach the releases).
"""

from __future__ import annotations

import numpy as np
import pytest

from privrl.core.algorithms import monte_carlo as mc
from privrl.core.envs.chain import chain_mdp, sample_trajectories
from privrl.papers.balle2016 import chapter as balle2016


@pytest.fixture(scope="module")
def chain_fv():
    mdp = chain_mdp(6, 0.5, "uniform")
    traj = sample_trajectories(mdp, 30, np.random.default_rng(0), 50)
    return mc.first_visit_returns(traj, 6, 0.9), np.eye(6), np.full(6, 1 / 6)


@pytest.mark.parametrize("which", ["lsw", "lsl"])
def test_release_spread_is_the_algorithms_sigma(chain_fv, which):
    """1,000 releases x 6 coordinates: the empirical std is within 5% of sigma (se 0.9%)."""
    fv, Phi, rho = chain_fv
    eps, delta, F = 0.5, 1e-3, 1.0
    rng = np.random.default_rng(1)
    if which == "lsw":
        sigma = mc.dp_lsw_sigma(fv.counts, Phi, rho, eps, delta, F)
        draws = [mc.dp_lsw(fv, Phi, rho, eps, delta, F, rng) for _ in range(1000)]
    else:
        lam = mc.lsl_regularization(Phi, rho, fv.m, 1.0)
        sigma = mc.dp_lsl_sigma(fv.counts, fv.m, Phi, rho, lam, eps, delta, F)
        draws = [mc.dp_lsl(fv, Phi, rho, lam, eps, delta, F, rng) for _ in range(1000)]
    assert all(d.sigma == sigma for d in draws)
    noise = np.stack([d.theta - d.theta_nonprivate for d in draws])
    assert noise.std() == pytest.approx(sigma, rel=0.05)


def test_experiment_passes_the_profiles_budget(monkeypatch):
    seen = []
    for name in ("dp_lsw", "dp_lsl"):
        real = getattr(balle2016, name)

        def spy(fv, Phi, rho, *args, _real=real, _name=name, **kw):
            seen.append((_name, args[:-1] if _name == "dp_lsw" else args[1:-1],
                         args[0] if _name == "dp_lsl" else None, fv.m, Phi, rho))
            return _real(fv, Phi, rho, *args, **kw)

        monkeypatch.setattr(balle2016, name, spy)
    # the configs run_figure1 hands to run_sweep, from a profile with a non-default budget
    configs = []
    monkeypatch.setattr(balle2016, "run_sweep",
                        lambda func, cfgs, **kw: configs.extend(cfgs))
    profile = balle2016.BalleProfile.quick(epsilon=0.37, delta=0.013, return_bound=1.7,
                                           lsl_power=0.3, batch_sizes=(10, 20),
                                           reg_batch_sizes=())
    balle2016.run_figure1(profile)
    cfg = next(c for c in configs if c["m"] == 20)
    assert (cfg["epsilon"], cfg["delta"], cfg["return_bound"]) == (0.37, 0.013, 1.7)
    balle2016.run_batch(cfg, np.random.SeedSequence(0))
    budget = (cfg["epsilon"], cfg["delta"], cfg["return_bound"])
    assert {s[0] for s in seen} == {"dp_lsw", "dp_lsl"}
    for name, args, lam, m, Phi, rho in seen:
        assert tuple(args) == budget
        if name == "dp_lsl":
            assert lam == mc.lsl_regularization(Phi, rho, m, cfg["lsl_c"], cfg["lsl_power"])
