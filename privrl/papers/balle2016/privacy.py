"""The privacy argument of Section 4, checked numerically: the smooth bounds (Lemma 4 with Lemma 5
for DP-LSW, Lemma 9 for DP-LSL) against brute force, Lemma 1's conditions (a) and (b) on
neighbouring pairs, the local-sensitivity bounds (Lemma 2 / Corollary 3, Lemma 7 / Corollary 8) on
arbitrary datasets, and a Monte Carlo privacy loss at the worst pair found.

The equations of the available text are lost: the constants and bounds come from the authors'
code and Lemma 1's conditions are re-derived (see
:mod:`privrl.core.accounting.smooth_sensitivity`), which is why they are checked here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privrl.core.accounting.smooth_sensitivity import (
    gaussian_hockey_stick_mc,
    lemma1_conditions,
    lsl_psi,
    lsl_smooth_bound,
    lsl_smooth_bound_bruteforce,
    lsw_phi,
    lsw_smooth_bound,
    lsw_smooth_bound_bruteforce,
)
from privrl.core.algorithms.monte_carlo import (
    FirstVisitReturns,
    first_visit_returns,
    lsl,
    lsl_regularization,
    lsw,
)
from privrl.core.envs.chain import sample_trajectories
from privrl.core.rng import SeedLike, as_generator
from privrl.core.trajectories import Trajectories
from privrl.papers.balle2016.profile import BalleProfile

#: The smallest epsilon' (a fraction of epsilon) the privacy-loss scan tries.
SCAN_FLOOR = 1e-4


def smooth_bound_check(profile: BalleProfile, rng: SeedLike, n_cases: int = 200) -> pd.DataFrame:
    """Vectorised smooth bounds vs brute force, on random small signatures (enumeration of the
    whole k-neighbourhood, N = 3) and on real chain signatures (explicit loop over k)."""
    gen = as_generator(rng)
    rows = []
    for _ in range(n_cases):
        counts = gen.integers(0, 6, size=3)
        rho = gen.dirichlet(np.ones(3))
        beta = float(gen.uniform(0.05, 1.0))
        m = max(int(counts.max() + gen.integers(0, 3)), 1)
        lam = float(gen.uniform(1.0, 5.0))
        rows.append(
            dict(
                case="enumeration",
                bound="LSW",
                closed=lsw_smooth_bound(counts, rho, beta),
                brute=lsw_smooth_bound_bruteforce(counts, rho, beta, int(counts.max()) + 3),
            )
        )
        rows.append(
            dict(
                case="enumeration",
                bound="LSL",
                closed=lsl_smooth_bound(counts, m, rho, 1.0, lam, beta),
                brute=lsl_smooth_bound_bruteforce(counts, m, rho, 1.0, lam, beta),
            )
        )
    rho = profile.rho()
    for m in (10, 100, 1000):
        fv = profile.sample(m, gen)
        for d in {Phi.shape[1] for Phi in profile.features().values()}:
            beta = profile.noise(d).event.beta
            loop_w = max(
                math.exp(-k * beta) * float(lsw_phi(fv.counts, rho, k)[0]) for k in range(2 * m + 2)
            )
            loop_l = max(
                math.exp(-k * beta) * float(lsl_psi(fv.counts, m, rho, 1.0, 2.0, k)[0]) ** 2
                for k in range(m + 1)
            )
            rows.append(
                dict(
                    case=f"chain m={m} d={d}",
                    bound="LSW",
                    closed=lsw_smooth_bound(fv.counts, rho, beta),
                    brute=loop_w,
                )
            )
            rows.append(
                dict(
                    case=f"chain m={m} d={d}",
                    bound="LSL",
                    closed=lsl_smooth_bound(fv.counts, m, rho, 1.0, 2.0, beta),
                    brute=loop_l,
                )
            )
    out = pd.DataFrame(rows)
    out["rel_diff"] = np.abs(out["closed"] - out["brute"]) / out["brute"]
    return out


def _replacement_pool(profile: BalleProfile, gen: np.random.Generator, size: int) -> Trajectories:
    """Candidate replacement trajectories: fresh samples plus extreme ones (a trajectory stuck in
    state 0 until truncation, return 0; one from the goal straight to absorption, visiting two
    states; one from state 0 to absorption, visiting every state with the maximal returns)."""
    H, n = profile.max_steps, profile.n_states
    fresh = sample_trajectories(profile.mdp(), size, gen, H)
    obs = np.zeros((3, H + 1), dtype=np.int64)
    lengths = np.array([H, 1, n - 1])
    obs[1, :2] = [n - 2, n - 1]
    obs[2, :n] = np.arange(n)
    rewards = np.zeros((3, H))
    rewards[2, n - 3] = 1.0
    extreme = Trajectories(
        obs, np.zeros((3, H), dtype=np.int64), rewards, lengths, np.array([False, True, True])
    )
    return Trajectories(
        *(
            np.concatenate([getattr(fresh, f), getattr(extreme, f)])
            for f in ("observations", "actions", "rewards", "lengths", "terminated")
        )
    )


def _estimate(
    fv: FirstVisitReturns, Phi: np.ndarray, profile: BalleProfile, method: str
) -> tuple[np.ndarray, float]:
    """(non-private estimate, sigma_X) of ``method`` on ``fv`` with the profile's calibration."""
    rho, noise = profile.rho(), profile.noise(Phi.shape[1])
    if method == "DP-LSW":
        return lsw(fv, Phi, rho), noise.sigma(fv, Phi, rho)
    lam = lsl_regularization(Phi, rho, fv.m, profile.lsl_c, profile.lsl_power)
    return lsl(fv, Phi, rho, lam), noise.sigma(fv, Phi, rho, lam)


def neighbour_check(profile: BalleProfile, rng: SeedLike, m: int = 30) -> pd.DataFrame:
    """Lemma 1's conditions (a) and (b) for DP-LSW and DP-LSL on ``profile.n_pairs`` neighbouring pairs.

    Each pair replaces one trajectory of a fresh batch X of size ``m``: half the time a random one
    by a random fresh trajectory, otherwise adversarially (the trajectory giving the rarest
    visited state its first visit is swapped for an extreme one, which can empty that state).
    Returns, per pair and algorithm/features, ``ratio_a`` = alpha ||mu_X - mu_X'|| / min(sigma_X,
    sigma_X') (condition (a) in both directions iff <= 1) and ``ratio_b`` = max(sigma_X^2 /
    sigma_X'^2, sigma_X'^2 / sigma_X^2) / e^beta (condition (b) iff <= 1).
    """
    gen = as_generator(rng)
    maps = profile.features()
    rows = []
    for b in range(profile.n_pairs // 50):
        X = sample_trajectories(profile.mdp(), m, gen, profile.max_steps)
        fvx = first_visit_returns(X, profile.n_states, profile.gamma)
        pool = _replacement_pool(profile, gen, 47)
        at_x = {
            (f, a): _estimate(fvx, Phi, profile, a)
            for f, Phi in maps.items()
            for a in ("DP-LSW", "DP-LSL")
        }
        for p in range(50):
            adversarial = p % 2 == 1
            if adversarial:
                s = int(np.argmin(np.where(fvx.counts > 0, fvx.counts, m + 1)))
                i = int(np.flatnonzero(fvx.visited[:, s])[0])
                j = pool.n_trajectories - 1 - int(gen.integers(0, 3))
            else:
                i, j = int(gen.integers(0, m)), int(gen.integers(0, pool.n_trajectories))
            fvy = first_visit_returns(X.replace(i, pool, j), profile.n_states, profile.gamma)
            for (feat, alg), (tx, sx) in at_x.items():
                event = profile.noise(maps[feat].shape[1]).event
                alpha, beta = event.alpha, event.beta
                ty, sy = _estimate(fvy, maps[feat], profile, alg)
                a, bb = lemma1_conditions(tx, ty, sx, sy, alpha, beta)
                a2, b2 = lemma1_conditions(ty, tx, sy, sx, alpha, beta)
                rows.append(
                    dict(
                        batch=b,
                        pair=p,
                        kind="adversarial" if adversarial else "random",
                        features=feat,
                        method=alg,
                        emptied=bool(np.any((fvx.counts > 0) & (fvy.counts == 0))),
                        ratio_a=alpha * np.linalg.norm(tx - ty) / min(sx, sy),
                        ratio_b=max(sx**2, sy**2) / (math.exp(beta) * min(sx, sy) ** 2),
                        cond_a=a and a2,
                        cond_b=bb and b2,
                    )
                )
    return pd.DataFrame(rows)


def arbitrary_dataset_check(n_trials: int, rng: SeedLike) -> pd.DataFrame:
    """Local-sensitivity bounds on arbitrary neighbouring datasets (not only chain-generated).

    The DP guarantee must hold for every pair of datasets, including visit patterns and returns in
    ``[0, F_max]`` (F_max = 1) that no chain produces. Each trial draws N <= 3 states, m <= 4
    trajectories, random features (identity or dense positive), weights, lambda from just above
    ``||rho||_inf ||Phi||^2`` to 1000 times it, random visits and returns (binary or uniform), and
    replaces one trajectory. Returns per trial ``ratio_lsw`` = ||Delta theta|| / (F_max
    ||(Gamma^1/2 Phi)^+|| sqrt(phi_0(X))) and ``ratio_lsl`` = ||Delta theta^lambda|| /
    (2 F_max ||Phi|| psi_0(X) / (lambda - ||rho||_inf ||Phi||^2)); both bounds hold iff <= 1.
    """
    gen = as_generator(rng)

    def make(F: np.ndarray, vis: np.ndarray) -> FirstVisitReturns:
        F = F * vis
        c = vis.sum(0)
        return FirstVisitReturns(F, vis, c, F.sum(0) / np.maximum(c, 1))

    def draw_returns(shape: tuple[int, ...]) -> np.ndarray:
        if gen.random() < 0.5:
            return (gen.random(shape) < 0.5).astype(float)
        return gen.random(shape)

    rows = []
    for _ in range(n_trials):
        n, m = int(gen.integers(1, 4)), int(gen.integers(1, 5))
        Phi = np.eye(n) if gen.random() < 0.5 else gen.uniform(0, 1, (n, n))
        rho = gen.dirichlet(np.ones(n)) if gen.random() < 0.5 else np.full(n, 1.0 / n)
        norm = float(np.linalg.norm(Phi, 2))
        floor = rho.max() * norm**2
        lam = floor * (1 + 10 ** gen.uniform(-2, 3))
        vis = gen.random((m, n)) < gen.uniform(0.2, 1)
        F = draw_returns((m, n))
        X = make(F, vis)
        i = int(gen.integers(m))
        vis2, F2 = vis.copy(), F.copy()
        vis2[i] = gen.random(n) < gen.uniform(0, 1)
        F2[i] = draw_returns((n,))
        Y = make(F2, vis2)
        pinv_norm = np.linalg.norm(np.linalg.pinv(np.sqrt(rho)[:, None] * Phi), 2)
        b_lsw = pinv_norm * math.sqrt(float(lsw_phi(X.counts, rho, 0)[0]))
        b_lsl = 2 * norm / (lam - floor) * float(lsl_psi(X.counts, m, rho, norm, lam, 0)[0])
        rows.append(
            dict(
                n=n,
                m=m,
                lam_over_floor=lam / floor,
                ratio_lsw=np.linalg.norm(lsw(X, Phi, rho) - lsw(Y, Phi, rho)) / b_lsw,
                ratio_lsl=np.linalg.norm(lsl(X, Phi, rho, lam) - lsl(Y, Phi, rho, lam)) / b_lsl,
            )
        )
    return pd.DataFrame(rows)


def _worst_delta(
    pair: tuple, epsilon: float, n: int, gen: np.random.Generator
) -> tuple[float, float]:
    """Monte Carlo delta(epsilon) of the pair's two Gaussian outputs, the larger direction (and SE)."""
    mu_x, s_x, mu_y, s_y = pair
    return max(
        gaussian_hockey_stick_mc(mu_x, s_x, mu_y, s_y, epsilon, n, gen),
        gaussian_hockey_stick_mc(mu_y, s_y, mu_x, s_x, epsilon, n, gen),
    )


def privacy_loss_check(profile: BalleProfile, rng: SeedLike, m: int = 30) -> pd.DataFrame:
    """Monte Carlo hockey-stick divergence of each release on the worst neighbouring pair found.

    All single replacements of one trajectory of a batch of size ``m`` by a pool of fresh and
    extreme trajectories are formed once; for each release (DP-LSW, DP-LSL x tabular, aggregated)
    the pair with the largest alpha ||mu_X - mu_X'|| / min(sigma_X, sigma_X') is kept and
    delta(epsilon) = E_P[(1 - e^{epsilon - L})_+] estimated in both directions (P = output on X,
    Q on X') with ``profile.mc_samples`` samples. ``epsilon_empirical`` is the smallest epsilon'
    on a geometric grid down to 1e-4 epsilon at which the estimated delta(epsilon') of both
    directions is still <= delta: the pair's empirical privacy loss (a property of this pair, not
    an upper bound for the mechanism). One row per release.
    """
    gen = as_generator(rng)
    eps, dl = profile.epsilon, profile.delta
    X = sample_trajectories(profile.mdp(), m, gen, profile.max_steps)
    fvx = first_visit_returns(X, profile.n_states, profile.gamma)
    pool = _replacement_pool(profile, gen, 20)
    neighbours = [
        first_visit_returns(X.replace(i, pool, j), profile.n_states, profile.gamma)
        for i in range(m)
        for j in range(pool.n_trajectories)
    ]
    rows = []
    for features, Phi in profile.features().items():
        alpha = profile.noise(Phi.shape[1]).event.alpha
        for method in ("DP-LSW", "DP-LSL"):
            mu_x, s_x = _estimate(fvx, Phi, profile, method)
            at_y = [_estimate(fvy, Phi, profile, method) for fvy in neighbours]
            scores = [float(np.linalg.norm(mu_x - mu_y) / min(s_x, s_y)) for mu_y, s_y in at_y]
            mu_y, s_y = at_y[int(np.argmax(scores))]
            pair = (mu_x, s_x, mu_y, s_y)
            delta_at_eps, se = _worst_delta(pair, eps, profile.mc_samples, gen)
            eps_emp = eps
            for e in np.geomspace(eps, eps * SCAN_FLOOR, 41)[1:]:
                if _worst_delta(pair, float(e), max(profile.mc_samples // 10, 100), gen)[0] > dl:
                    break
                eps_emp = float(e)
            rows.append(
                dict(
                    method=method,
                    features=features,
                    m=m,
                    pairs_searched=len(neighbours),
                    ratio_a=alpha * max(scores),
                    sigma_ratio=s_x / s_y,
                    delta_mc=delta_at_eps,
                    delta_se=se,
                    delta_upper=delta_at_eps + 3 * se,
                    epsilon_empirical=eps_emp,
                )
            )
    return pd.DataFrame(rows)
