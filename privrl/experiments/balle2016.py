"""Balle, Gomrokchi and Precup (2016): profiles, run functions and checks for Figure 1.

One run (:func:`run_batch`) samples ONE batch of ``m`` chain trajectories and evaluates every
algorithm on it (LSW, LSL, DP-LSW, DP-LSL; tabular and aggregated features; optionally a grid of
LSL regularisation constants), so all algorithms see the same batches as in the paper. Rows of
the tidy output: ``features, method, c, m, rmse, excess_risk, sigma`` (+ ``seed`` and the config
columns added by :func:`privrl.sweep.run_sweep`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from privrl.accounting.smooth_sensitivity import (
    lemma1_conditions,
    lsl_psi,
    lsl_smooth_bound,
    lsl_smooth_bound_bruteforce,
    lsw_phi,
    lsw_smooth_bound,
    lsw_smooth_bound_bruteforce,
    smooth_gaussian_constants,
)
from privrl.algorithms.monte_carlo import (
    dp_lsl,
    dp_lsl_sigma,
    dp_lsw,
    dp_lsw_sigma,
    first_visit_returns,
    lsl,
    lsl_loss,
    lsl_regularization,
    lsw,
    lsw_loss,
    weighted_rmse,
)
from privrl.envs.chain import aggregated_features, chain_mdp, sample_trajectories, tabular_features
from privrl.rng import SeedLike, as_generator
from privrl.sweep import run_sweep
from privrl.trajectories import Trajectories

PAPER_BATCHES = [10, 50, 100, 500, 1000, 1500, 2000, 2500, 3000, 4000]

_COMMON: dict[str, Any] = {
    "n_states": 40,
    "p_stay": 0.5,
    "start": "uniform",
    "gamma": 0.99,
    "max_steps": 200,
    "epsilon": 0.1,
    "delta": 0.1,
    "return_bound": 1.0,  # public: the chain pays at most one unit reward per trajectory
    "group": 2,
    "lsl_c": 1.0,
    "lsl_power": 0.4,
    "reg_log10_min": -2.0,
    "reg_log10_max": 4.0,
}

PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        **_COMMON,
        "batch_sizes": [10, 100, 500, 1000, 2000, 4000],
        "reg_batch_sizes": [100, 1000],
        "reg_n": 7,
        "n_runs": 8,
        "n_pairs": 1000,
        "mc_samples": 100_000,
        "n_arbitrary": 10_000,
    },
    "paper": {
        **_COMMON,
        "batch_sizes": PAPER_BATCHES,
        "reg_batch_sizes": [100, 1000],
        "reg_n": 13,
        "n_runs": 20,
        "n_pairs": 5000,
        "mc_samples": 1_000_000,
        "n_arbitrary": 200_000,
    },
}

_ENV_KEYS = ("n_states", "p_stay", "start", "gamma", "max_steps")
_RUN_KEYS = (*_ENV_KEYS, "epsilon", "delta", "return_bound", "group", "lsl_c", "lsl_power")


def feature_maps(n_states: int, group: int) -> dict[str, np.ndarray]:
    """The two representations of the paper: tabular (d = N) and aggregated (d = N / group)."""
    return {
        "tabular": tabular_features(n_states),
        "aggregated": aggregated_features(n_states, group),
    }


def _evaluate(
    fv, Phi, rho, V, c_values, cfg: dict[str, Any], noise: np.random.Generator, features: str
) -> list[dict[str, Any]]:
    eps, dl, F = cfg["epsilon"], cfg["delta"], cfg["return_bound"]
    m = fv.m
    rows = []
    theta = lsw(fv, Phi, rho)
    j0 = lsw_loss(fv, Phi, rho, theta)
    priv = dp_lsw(fv, Phi, rho, eps, dl, F, noise)
    for method, th, sigma in (("LSW", theta, 0.0), ("DP-LSW", priv.theta, priv.sigma)):
        rows.append(
            dict(
                features=features,
                method=method,
                c=np.nan,
                m=m,
                rmse=weighted_rmse(Phi, th, V, rho),
                excess_risk=lsw_loss(fv, Phi, rho, th) - j0,
                sigma=sigma,
            )
        )
    for c in c_values:
        lam = lsl_regularization(Phi, rho, m, c, cfg["lsl_power"])
        theta = lsl(fv, Phi, rho, lam)
        j0 = lsl_loss(fv, Phi, rho, lam, theta)
        priv = dp_lsl(fv, Phi, rho, lam, eps, dl, F, noise)
        for method, th, sigma in (("LSL", theta, 0.0), ("DP-LSL", priv.theta, priv.sigma)):
            rows.append(
                dict(
                    features=features,
                    method=method,
                    c=c,
                    m=m,
                    rmse=weighted_rmse(Phi, th, V, rho),
                    excess_risk=lsl_loss(fv, Phi, rho, lam, th) - j0,
                    sigma=sigma,
                )
            )
    return rows


def run_batch(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One seed at one batch size ``config['m']``: every algorithm on the same batch.

    ``config['reg_sweep']`` True adds LSL / DP-LSL at every c of the regularisation grid
    (``reg_n`` log-spaced values between ``10**reg_log10_min`` and ``10**reg_log10_max``).
    """
    data_ss, noise_ss = seed.spawn(2)
    mdp = chain_mdp(config["n_states"], config["p_stay"], config["start"])
    V = mdp.true_values(config["gamma"])
    rho = np.full(mdp.n_states, 1.0 / mdp.n_states)
    traj = sample_trajectories(mdp, config["m"], as_generator(data_ss), config["max_steps"])
    fv = first_visit_returns(traj, mdp.n_states, config["gamma"])
    noise = as_generator(noise_ss)
    c_values = [config["lsl_c"]]
    if config.get("reg_sweep", False):
        grid = np.logspace(config["reg_log10_min"], config["reg_log10_max"], config["reg_n"])
        c_values = sorted({*c_values, *grid.tolist()})
    rows = []
    for features, Phi in feature_maps(mdp.n_states, config["group"]).items():
        rows += _evaluate(fv, Phi, rho, V, c_values, config, noise, features)
    out = pd.DataFrame(rows)
    out["default_c"] = np.isnan(out["c"]) | np.isclose(out["c"], config["lsl_c"])
    return out


def run_figure1(
    config: dict[str, Any],
    seed: int = 0,
    cache_dir: str | None = None,
    progress: bool = False,
    executor: Any = None,
) -> pd.DataFrame:
    """All four panels' data: one :func:`run_batch` per (batch size, seed) through run_sweep."""
    base = {k: config[k] for k in _RUN_KEYS}
    configs = [
        {
            **base,
            "m": m,
            "reg_sweep": m in config["reg_batch_sizes"],
            "reg_log10_min": config["reg_log10_min"],
            "reg_log10_max": config["reg_log10_max"],
            "reg_n": config["reg_n"],
        }
        for m in sorted(set(config["batch_sizes"]) | set(config["reg_batch_sizes"]))
    ]
    return run_sweep(
        run_batch,
        configs,
        n_seeds=config["n_runs"],
        root_seed=seed,
        cache_dir=cache_dir,
        executor=executor,
        progress=progress,
        desc="balle2016",
    )


# ----------------------------------------------------------------------------------- checks


def smooth_bound_check(config: dict[str, Any], rng: SeedLike, n_cases: int = 200) -> pd.DataFrame:
    """Vectorised smooth bounds vs brute force, on random small signatures (enumeration of the
    whole k-neighbourhood, N = 3) and on real chain signatures (explicit loop over k)."""
    gen = as_generator(rng)
    rows = []
    for _ in range(n_cases):
        counts = gen.integers(0, 6, size=3)
        rho = gen.dirichlet(np.ones(3))
        beta = float(gen.uniform(0.05, 1.0))
        m = int(counts.max() + gen.integers(0, 3))
        m = max(m, 1)
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
    mdp = chain_mdp(config["n_states"], config["p_stay"], config["start"])
    rho = np.full(mdp.n_states, 1.0 / mdp.n_states)
    for m in (10, 100, 1000):
        fv = first_visit_returns(sample_trajectories(mdp, m, gen), mdp.n_states, config["gamma"])
        for d in (mdp.n_states, mdp.n_states // config["group"]):
            _, beta = smooth_gaussian_constants(config["epsilon"], config["delta"], d)
            loop = max(
                math.exp(-k * beta) * float(lsw_phi(fv.counts, rho, k)[0]) for k in range(2 * m + 2)
            )
            rows.append(
                dict(
                    case=f"chain m={m} d={d}",
                    bound="LSW",
                    closed=lsw_smooth_bound(fv.counts, rho, beta),
                    brute=loop,
                )
            )
            loop = max(
                math.exp(-k * beta) * float(lsl_psi(fv.counts, m, rho, 1.0, 2.0, k)[0]) ** 2
                for k in range(m + 1)
            )
            rows.append(
                dict(
                    case=f"chain m={m} d={d}",
                    bound="LSL",
                    closed=lsl_smooth_bound(fv.counts, m, rho, 1.0, 2.0, beta),
                    brute=loop,
                )
            )
    out = pd.DataFrame(rows)
    out["rel_diff"] = np.abs(out["closed"] - out["brute"]) / out["brute"]
    return out


def _replacement_pool(
    mdp, config: dict[str, Any], gen: np.random.Generator, size: int
) -> Trajectories:
    """Candidate replacement trajectories: fresh samples plus extreme ones (a trajectory stuck in
    state 0 until truncation, return 0; one from the goal straight to absorption, visiting two
    states; one from state 0 to absorption, visiting every state with the maximal returns)."""
    H, n = config["max_steps"], mdp.n_states
    fresh = sample_trajectories(mdp, size, gen, H)
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
        observations=np.concatenate([fresh.observations, extreme.observations]),
        actions=np.concatenate([fresh.actions, extreme.actions]),
        rewards=np.concatenate([fresh.rewards, extreme.rewards]),
        lengths=np.concatenate([fresh.lengths, extreme.lengths]),
        terminated=np.concatenate([fresh.terminated, extreme.terminated]),
    )


def neighbour_check(
    config: dict[str, Any], rng: SeedLike, m: int = 30, n_pairs: int | None = None
) -> pd.DataFrame:
    """Lemma 1's conditions (a) and (b) for DP-LSW and DP-LSL on random neighbouring pairs.

    Each pair replaces one trajectory of a fresh batch X of size ``m``: half the time a random one
    by a random fresh trajectory, otherwise adversarially (the trajectory giving the rarest
    visited state its first visit is swapped for an extreme one, which can empty that state).
    Returns, per pair and algorithm/features, ``ratio_a`` = alpha ||mu_X - mu_X'|| / sigma_X
    (condition (a) holds iff <= 1) and ``ratio_b`` = sigma_X^2 / (e^beta sigma_X'^2) (<= 1).
    """
    gen = as_generator(rng)
    n_pairs = n_pairs or config["n_pairs"]
    mdp = chain_mdp(config["n_states"], config["p_stay"], config["start"])
    n, gamma = mdp.n_states, config["gamma"]
    rho = np.full(n, 1.0 / n)
    eps, dl, F = config["epsilon"], config["delta"], config["return_bound"]
    maps = feature_maps(n, config["group"])
    rows = []
    n_batches = max(1, n_pairs // 50)
    for b in range(n_batches):
        X = sample_trajectories(mdp, m, gen, config["max_steps"])
        fvx = first_visit_returns(X, n, gamma)
        pool = _replacement_pool(mdp, config, gen, 47)
        cache = {}
        for feat, Phi in maps.items():
            lam = lsl_regularization(Phi, rho, m, config["lsl_c"], config["lsl_power"])
            cache[feat] = (
                lam,
                lsw(fvx, Phi, rho),
                lsl(fvx, Phi, rho, lam),
                dp_lsw_sigma(fvx.counts, Phi, rho, eps, dl, F),
                dp_lsl_sigma(fvx.counts, m, Phi, rho, lam, eps, dl, F),
            )
        for p in range(50):
            adversarial = p % 2 == 1
            if adversarial:
                counts = np.where(fvx.counts > 0, fvx.counts, m + 1)
                s = int(np.argmin(counts))
                i = int(np.flatnonzero(fvx.visited[:, s])[0])
                j = pool.n_trajectories - 1 - int(gen.integers(0, 3))
            else:
                i, j = int(gen.integers(0, m)), int(gen.integers(0, pool.n_trajectories))
            Y = X.replace(i, pool, j)
            fvy = first_visit_returns(Y, n, gamma)
            for feat, Phi in maps.items():
                lam, tx_w, tx_l, sx_w, sx_l = cache[feat]
                alpha, beta = smooth_gaussian_constants(eps, dl, Phi.shape[1])
                ty_w, ty_l = lsw(fvy, Phi, rho), lsl(fvy, Phi, rho, lam)
                sy_w = dp_lsw_sigma(fvy.counts, Phi, rho, eps, dl, F)
                sy_l = dp_lsl_sigma(fvy.counts, m, Phi, rho, lam, eps, dl, F)
                for alg, tx, ty, sx, sy in (
                    ("DP-LSW", tx_w, ty_w, sx_w, sy_w),
                    ("DP-LSL", tx_l, ty_l, sx_l, sy_l),
                ):
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
                            ratio_b=max(
                                sx**2 / (math.exp(beta) * sy**2), sy**2 / (math.exp(beta) * sx**2)
                            ),
                            cond_a=a and a2,
                            cond_b=bb and b2,
                        )
                    )
    return pd.DataFrame(rows)


def expected_counts(config: dict[str, Any], m: int) -> np.ndarray:
    """Expected first-visit counts m P(s visited): the chain never skips a state, so s is visited
    iff the start is <= s (truncation at 200 steps ignored; the absorbing state as N - 2)."""
    mdp = chain_mdp(config["n_states"], config["p_stay"], config["start"])
    p = np.cumsum(mdp.start)
    p[-1] = p[-2]
    return np.floor(m * p).astype(np.int64)


def noise_rate(config: dict[str, Any], batch_sizes: np.ndarray) -> pd.DataFrame:
    """DP noise variance d sigma^2 at the expected counts, for batch sizes far beyond the paper's."""
    n = config["n_states"]
    rho = np.full(n, 1.0 / n)
    rows = []
    for feat, Phi in feature_maps(n, config["group"]).items():
        for m in batch_sizes:
            counts = expected_counts(config, int(m))
            s = dp_lsw_sigma(
                counts, Phi, rho, config["epsilon"], config["delta"], config["return_bound"]
            )
            rows.append(
                dict(features=feat, m=int(m), method="DP-LSW", noise_var=Phi.shape[1] * s**2)
            )
    return pd.DataFrame(rows)


def log_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


# ----------------------------------------------------------------------------------- figure


def plot_figure1(df: pd.DataFrame, config: dict[str, Any]):
    """The four panels of the paper's Figure 1 (mean over runs, standard-error bands)."""
    from privrl.plotting import band_plot, new_figure

    fig, grid = new_figure(2, 2, width=5.2, height=3.8)
    axes = grid.reshape(1, 4)
    ax = axes[0, 0]
    d = df[df["method"].isin(["LSW", "LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(ax, g, "m", "rmse", label=f"{meth} ({feat})")
    ax.set(xscale="log", yscale="log", title="(1) non-private convergence", xlabel="batch size m")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    d = df[
        (df["features"] == "tabular") & df["m"].isin(config["reg_batch_sizes"]) & df["c"].notna()
    ]
    for (m, meth), g in d.groupby(["m", "method"]):
        band_plot(ax, g, "c", "rmse", label=f"{meth}, m={m}")
    flat = df[
        (df["features"] == "tabular") & df["m"].isin(config["reg_batch_sizes"]) & df["c"].isna()
    ]
    for (m, meth), g in flat.groupby(["m", "method"]):
        ax.axhline(
            g["rmse"].mean(),
            ls="--",
            lw=1,
            label=f"{meth}, m={m}",
            color="k" if meth == "LSW" else "grey",
        )
    ax.set(xscale="log", yscale="log", title="(2) RMSE vs regularisation (tabular)", xlabel="c")
    ax.legend(fontsize=6)
    ax = axes[0, 2]
    d = df[(df["features"] == "aggregated") & df["default_c"]]
    for meth, g in d.groupby("method"):
        band_plot(ax, g, "m", "rmse", label=meth)
    ax.set(
        xscale="log", yscale="log", title="(3) RMSE vs batch (aggregated)", xlabel="batch size m"
    )
    ax.legend(fontsize=7)
    ax = axes[0, 3]
    d = df[df["method"].isin(["DP-LSW", "DP-LSL"]) & df["default_c"]]
    for (feat, meth), g in d.groupby(["features", "method"]):
        band_plot(ax, g, "m", "excess_risk", label=f"{meth} ({feat})")
    ax.set(xscale="log", yscale="log", title="(4) excess empirical risk", xlabel="batch size m")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def privacy_loss_check(config: dict[str, Any], rng: SeedLike, m: int = 30) -> dict[str, float]:
    """Monte Carlo hockey-stick divergence of DP-LSW (tabular) on a worst-found neighbouring pair.

    Among adversarial and random replacements of one trajectory in a batch of size ``m``, pick the
    pair with the largest alpha ||mu_X - mu_X'|| / sigma_X, then estimate
    delta(epsilon) = E_P[(1 - e^{epsilon - L})_+] in both directions (P = output on X, Q on X').
    """
    gen = as_generator(rng)
    mdp = chain_mdp(config["n_states"], config["p_stay"], config["start"])
    n, gamma = mdp.n_states, config["gamma"]
    rho = np.full(n, 1.0 / n)
    Phi = tabular_features(n)
    eps, dl, F = config["epsilon"], config["delta"], config["return_bound"]
    X = sample_trajectories(mdp, m, gen, config["max_steps"])
    fvx = first_visit_returns(X, n, gamma)
    mu_x, s_x = lsw(fvx, Phi, rho), dp_lsw_sigma(fvx.counts, Phi, rho, eps, dl, F)
    pool = _replacement_pool(mdp, config, gen, 20)
    best = None
    for i in range(m):
        for j in range(pool.n_trajectories):
            fvy = first_visit_returns(X.replace(i, pool, j), n, gamma)
            mu_y = lsw(fvy, Phi, rho)
            s_y = dp_lsw_sigma(fvy.counts, Phi, rho, eps, dl, F)
            score = np.linalg.norm(mu_x - mu_y) / min(s_x, s_y)
            if best is None or score > best[0]:
                best = (score, mu_y, s_y)
    _, mu_y, s_y = best
    from privrl.accounting.smooth_sensitivity import gaussian_hockey_stick_mc

    n_mc = config["mc_samples"]
    d_xy, se_xy = gaussian_hockey_stick_mc(mu_x, s_x, mu_y, s_y, eps, n_mc, gen)
    d_yx, se_yx = gaussian_hockey_stick_mc(mu_y, s_y, mu_x, s_x, eps, n_mc, gen)
    alpha, _ = smooth_gaussian_constants(eps, dl, n)
    eps_emp = eps
    for e in np.geomspace(eps, eps * 1e-4, 41)[1:]:
        worst = max(
            gaussian_hockey_stick_mc(mu_x, s_x, mu_y, s_y, e, n_mc // 10, gen)[0],
            gaussian_hockey_stick_mc(mu_y, s_y, mu_x, s_x, e, n_mc // 10, gen)[0],
        )
        if worst > dl:
            break
        eps_emp = float(e)
    return dict(
        delta_xy=d_xy,
        se_xy=se_xy,
        delta_yx=d_yx,
        se_yx=se_yx,
        ratio_a=float(alpha * best[0]),
        sigma_ratio=float(s_x / s_y),
        epsilon_empirical=eps_emp,
    )


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
    from privrl.algorithms.monte_carlo import FirstVisitReturns

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
