"""Xie, Thomas and Miklau (2019), GPOPE: the chapter's profile, its one entry point and verdicts.

:func:`run` executes a :class:`XieProfile` and returns an
:class:`~privrl.chapter.profile.ExperimentResult` whose report holds every check, claim,
ledger entry and erratum of the chapter:

* the chain (Figure 1; :mod:`privrl.papers.xie2019.chain`): step sizes tuned per ``n`` on
  public seeds, then GPOPE against DP-LSW, DP-LSL and LSTD on ``n_trials`` fresh datasets;
  Theorems 2 and 3 (constant vs diminishing steps); the gradient variance;
* Mountain Car on- and off-policy and HIV (Figures 2-4; :mod:`privrl.papers.xie2019.domains`):
  ``n_trials`` fresh datasets per point, GPOPE at each epsilon beside noiseless GTD2 and
  LSTD / WIS-LSTD on the same data;
* before any privacy verdict, the convergence gate in every domain: noiseless GTD2 (same clip,
  step, schedule and iterations, same data) reaches the reference's MSPBE up to
  :data:`~privrl.papers.xie2019.domains.GATE_FRACTION` of the zero estimate's;
* every GPOPE release is a ledger entry: replace-one trajectory, noise multiplier, T
  compositions, privrl's RDP accountant, cross-checked by dp-accounting's RDP accountant with
  its default orders.

The paper profile's points are written by :func:`write_paper_points` to
``book/measurements/results/xie2019-paper-points.csv`` and read back by :func:`read_paper_points`.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privrl.chapter.profile import ExperimentResult, Profile
from privrl.chapter.records import RESULTS, SOURCE_ROOT, recorded_file
from privrl.chapter.report import Report
from privrl.chapter.sweep import run_sweep
from privrl.chapter.verdicts import decide_difference, decide_threshold, untestable
from privrl.core.accounting.gaussian import gaussian_epsilon
from privrl.core.accounting.subsampled import (
    calibrate_noise_multiplier,
    dp_accounting_epsilon,
    gpope_epsilon,
    gpope_pld_supported,
    poisson_shortcut_epsilon,
    theorem1_sigma,
)
from privrl.core.algorithms.gtd import SaddlePointStats, gpope
from privrl.core.algorithms.lstd import transition_sums, wis_lstd
from privrl.core.envs.chain import sample_trajectories
from privrl.papers.xie2019 import chain, domains

PAPER = "xie2019"
PAPER_SIZES = (10, 50, 100, 500, 1000, 1500, 2000, 2500, 3000, 4000)
POINT_COLUMNS = ("domain", "method", "n", "epsilon", "trial", "mspbe")
POINT_DOMAINS = ("chain", "mountain_car_on", "mountain_car_off", "hiv")
POINT_METHODS = ("GPOPE", "DP-LSW", "DP-LSL", "LSTD", "WIS-LSTD", "GTD2")
PAPER_POINTS = RESULTS / "xie2019-paper-points.csv"
#: Public seeds of the chain's step-size tuning: ``seed + CHAIN_TUNING_OFFSET`` (never a trial's).
CHAIN_TUNING_OFFSET = 10_000
GPOPE_ACCOUNTANT = ("privrl RDP: sampling without replacement, Wang et al. 2019 Thm 27, orders = "
                    "dp-accounting defaults + coarse grid")
CROSS_CHECK = "dp-accounting RDP (default orders)"


@dataclass(frozen=True)
class XieProfile(Profile):
    """Every knob of the chapter; defaults are the quick profile, ``PAPER`` the paper's scale.

    The chain settings are those of the Balle chapter (N = 40, stay 1/2, gamma = 0.99, 200-step
    cap, (epsilon, delta) = (0.1, 0.1), return bound 1); the domain GTD2 settings are
    :data:`privrl.papers.xie2019.domains.SETTINGS`.
    """

    n_trials: int = 5
    n_states: int = 40
    p_stay: float = 0.5
    gamma: float = 0.99
    max_steps: int = 200
    epsilon: float = 0.1
    delta: float = 0.1
    return_bound: float = 1.0
    lsl_c: float = 1.0
    lsl_power: float = 0.4
    clip_norm: float = 0.05
    mistune_factors: tuple[float, ...] = (0.2, 5.0)
    chain_sizes: tuple[int, ...] = (100, 1000)
    tune_trials: int = 1
    chain_iterations: int = 4000
    step_grid: tuple[float, ...] = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
    gate_step_grid: tuple[float, ...] = (3.0, 10.0, 30.0, 100.0)
    sensitivity_n: int = 1000
    schedule_iterations: tuple[int, ...] = (1000, 4000)
    schedule_trials: int = 5
    variance_transitions: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    domain_delta: float = 1e-5
    mc_n: tuple[int, ...] = (300,)
    mc_epsilons: tuple[float, ...] = (4.0,)
    hiv_n: tuple[int, ...] = (20,)
    hiv_epsilons: tuple[float, ...] = (4.0,)
    hiv_horizon: int = 40
    hiv_pool_size: int = 30
    hiv_heldout: int = 10
    hiv_random_patients: int = 3
    retrain_policies: bool = False

    PAPER: ClassVar[dict[str, Any]] = {
        "n_trials": 100,
        "chain_sizes": PAPER_SIZES,
        "tune_trials": 10,
        "chain_iterations": 8000,
        "step_grid": (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
        "schedule_iterations": (2000, 8000, 32000),
        "schedule_trials": 20,
        "mc_n": (100, 300, 1000, 3000),
        "mc_epsilons": (0.5, 1.0, 4.0),
        "hiv_epsilons": (1.0, 4.0),
        "hiv_n": (50, 150),
        "hiv_horizon": 200,
        "hiv_pool_size": 300,
        "hiv_heldout": 100,
        "hiv_random_patients": 20,
    }

    def validate(self) -> None:
        positive = ("n_trials", "n_states", "max_steps", "tune_trials", "chain_iterations",
                    "sensitivity_n", "schedule_trials", "hiv_horizon",
                    "hiv_pool_size", "hiv_heldout", "hiv_random_patients")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("epsilon", "return_bound", "clip_norm", "lsl_c", "lsl_power"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("delta", "domain_delta", "p_stay"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must lie in (0, 1), got {getattr(self, name)}")
        if not 0 < self.gamma <= 1:
            raise ValueError(f"gamma must lie in (0, 1], got {self.gamma}")
        for name in ("mistune_factors", "step_grid", "gate_step_grid", "mc_epsilons",
                     "hiv_epsilons"):
            values = getattr(self, name)
            if not values or any(not (v > 0 and math.isfinite(v)) for v in values):
                raise ValueError(f"{name} must be non-empty positive numbers, got {values}")
        for name in ("chain_sizes", "schedule_iterations", "variance_transitions", "mc_n", "hiv_n"):
            values = getattr(self, name)
            if not values or any(v < 1 for v in values):
                raise ValueError(f"{name} must be non-empty integers >= 1, got {values}")
        if max(self.hiv_n) > self.hiv_pool_size:
            raise ValueError(f"hiv_pool_size ({self.hiv_pool_size}) must be >= max(hiv_n)")
        if self.sensitivity_n not in self.chain_sizes:
            raise ValueError(f"sensitivity_n ({self.sensitivity_n}) must be one of chain_sizes")


def chain_config(profile: XieProfile) -> dict[str, Any]:
    """The plain dict the chain's run functions take (hashed by the sweep cache)."""
    keys = ("n_states", "p_stay", "gamma", "max_steps", "epsilon", "delta", "return_bound", "lsl_c",
            "lsl_power", "clip_norm", "mistune_factors", "step_grid", "gate_step_grid",
            "variance_transitions")
    return {k: getattr(profile, k) for k in keys}


# ------------------------------------------------------------------------------ accounting


@dataclass(frozen=True)
class Release:
    """One calibrated GPOPE release: ``n`` trajectories, ``iterations`` steps, target (eps, delta)."""

    domain: str
    n: int
    iterations: int
    target_epsilon: float
    delta: float
    clip_norm: float

    @property
    def noise_multiplier(self) -> float:
        return calibrate_noise_multiplier(self.target_epsilon, self.delta, self.n,
                                          self.iterations, rtol=1e-2)


def record_release(report: Report, release: Release) -> dict[str, Any]:
    """Ledger entry of a GPOPE release (raises if the cross-check exceeds it by > 1%); returns
    the row of the chapter's privacy table."""
    z, n, T, dl = release.noise_multiplier, release.n, release.iterations, release.delta
    eps = gpope_epsilon(z, n, T, dl)
    cross = dp_accounting_epsilon(z, n, T, dl)
    report.ledger(
        release=f"GPOPE value-function weights, {release.domain}, n = {n}",
        mechanism="GPOPE (Algorithm 1): one trajectory sampled without replacement per step, "
                  "gradient clipped to G, Gaussian noise",
        relation="replace-one", unit="trajectory",
        noise=f"z = {z:.4g} (sigma = 2 G z = {2 * release.clip_norm * z:.4g})",
        epsilon=eps, delta=dl, compositions=T, accountant=GPOPE_ACCOUNTANT,
        cross_check=CROSS_CHECK, cross_check_epsilon=cross, audit="audits:gpope")
    return dict(domain=release.domain, n=n, iterations=T, target_epsilon=release.target_epsilon,
                delta=dl, noise_multiplier=z, epsilon=eps, epsilon_dp_accounting=cross,
                epsilon_poisson_shortcut=poisson_shortcut_epsilon(z, n, T, dl),
                theorem1_constant=z / theorem1_sigma(release.target_epsilon, dl, n, T))


def full_batch_table(zs=(1.0, 2.0, 4.0), Ts=(1, 10), delta: float = 1e-5) -> pd.DataFrame:
    """n = 1 (every step uses the only trajectory): the RDP epsilon against the exact privacy
    profile of the composed Gaussian (Balle and Wang 2018), which it must not undercut."""
    rows = [dict(z=z, T=T, eps_rdp=gpope_epsilon(z, 1, T, delta),
                 eps_exact=gaussian_epsilon(z / math.sqrt(T), delta)) for z in zs for T in Ts]
    out = pd.DataFrame(rows)
    out["ratio"] = out.eps_rdp / out.eps_exact
    return out


def noise_sd_check(profile: XieProfile, seed: int, z: float = 0.8, trials: int = 2000) -> float:
    """Empirical sd of one GPOPE step's noise on the chain (theta_1 minus its noiseless twin over
    ``trials`` parallel trials with the same draws), to compare with 2 G z."""
    cfg = chain_config(profile)
    prob = chain.chain_problem(cfg)
    traj = sample_trajectories(prob["mdp"], 50, seed)
    stats = SaddlePointStats.from_tabular(traj.observations, prob["Phi_td"], traj.rewards,
                                          traj.lengths, traj.terminated, profile.gamma)
    quiet = gpope(stats, 1, 1.0, profile.clip_norm, 0.0, seed, n_trials=trials)
    noisy = gpope(stats, 1, 1.0, profile.clip_norm, z, seed, n_trials=trials)
    noise = np.concatenate([quiet.theta - noisy.theta, quiet.w - noisy.w], axis=1)
    return float(noise.std())


# ----------------------------------------------------------------------------------- sweeps


def _sweep(func, configs, n_seeds: int, root_seed: int, desc: str, **sweep: Any) -> pd.DataFrame:
    return run_sweep(func, configs, n_seeds=n_seeds, root_seed=root_seed, desc=f"xie2019 {desc}",
                     **sweep)


def run_chain(profile: XieProfile, **sweep: Any) -> dict[str, pd.DataFrame]:
    """Figure 1 a, b: tune the step per n on public seeds, then compare on the private seeds."""
    base = chain_config(profile)
    sizes = sorted(set(profile.chain_sizes))
    cfgs = []
    T = profile.chain_iterations
    for n in sizes:
        rel = Release("chain", n, T, profile.epsilon, profile.delta, profile.clip_norm)
        cfgs.append({**base, "n": n, "iterations": T, "z": rel.noise_multiplier})
    tuning = _sweep(chain.run_chain_steps, cfgs, profile.tune_trials,
                    profile.seed + CHAIN_TUNING_OFFSET, "tune", **sweep)
    mean = tuning.groupby(["method", "n", "step_size"])["mspbe"].mean().reset_index()
    best = mean.loc[mean.groupby(["method", "n"])["mspbe"].idxmin()]
    best = best.pivot(index="n", columns="method", values="step_size")
    compare = _sweep(chain.run_chain_compare,
                     [{**c, "step_size": float(best.loc[c["n"], "GPOPE"]),
                       "gate_step": float(best.loc[c["n"], "GTD2"])} for c in cfgs],
                     profile.n_trials, profile.seed, "chain", **sweep)
    sensitivity = _sweep(chain.run_chain_steps, [c for c in cfgs if c["n"] == profile.sensitivity_n],
                         profile.n_trials, profile.seed, "steps", **sweep)
    return dict(tuning=tuning, best_steps=best.reset_index().rename_axis(columns=None),
                compare=compare, sensitivity=sensitivity[sensitivity.method == "GPOPE"])


def run_theorem23(profile: XieProfile, step_size: float, **sweep: Any) -> pd.DataFrame:
    """:func:`~privrl.papers.xie2019.chain.run_schedules` for every total T of the profile
    (noise calibrated for each T) at ``n = sensitivity_n``."""
    n, base = profile.sensitivity_n, chain_config(profile)
    cfgs = [{**base, "n": n, "iterations": T, "step_size": step_size,
             "z": Release("chain", n, T, profile.epsilon, profile.delta,
                          profile.clip_norm).noise_multiplier}
            for T in profile.schedule_iterations]
    return _sweep(chain.run_schedules, cfgs, profile.schedule_trials, profile.seed,
                  "schedules", **sweep)


def domain_releases(profile: XieProfile, domain: str) -> list[Release]:
    """The calibrated GPOPE releases of a domain: every (n, epsilon) of the profile."""
    key = "hiv" if domain == "hiv" else "mc"
    s = domains.SETTINGS[domain]
    return [Release(domain, n, s.iterations, eps, profile.domain_delta, s.clip_norm)
            for n in getattr(profile, f"{key}_n") for eps in getattr(profile, f"{key}_epsilons")]


def run_domain(profile: XieProfile, domain: str, **sweep: Any) -> pd.DataFrame:
    """:func:`~privrl.papers.xie2019.domains.run_domain_trial` over the profile's sizes,
    ``n_trials`` fresh datasets each (noise calibrated here, in the parent)."""
    releases = domain_releases(profile, domain)
    cfgs = [{"domain": domain, "n": n,
             "noise": [(r.target_epsilon, r.noise_multiplier) for r in releases if r.n == n],
             "hiv_horizon": profile.hiv_horizon, "hiv_pool_size": profile.hiv_pool_size,
             "hiv_heldout": profile.hiv_heldout}
            for n in sorted({r.n for r in releases})]
    tuning = _sweep(domains.run_gpope_tuning, cfgs, profile.tune_trials, domains.TUNING_SEED,
                    f"{domain} tune", **sweep)
    mean = tuning.groupby(["n", "epsilon", "step_size"])["mspbe"].mean().reset_index()
    best = mean.loc[mean.groupby(["n", "epsilon"])["mspbe"].idxmin()]
    step = {(r.n, r.epsilon): r.step_size for r in best.itertuples()}
    for c in cfgs:
        c["noise"] = [(e, z, float(step[(c["n"], e)])) for e, z in c["noise"]]
    return _sweep(domains.run_domain_trial, cfgs, profile.n_trials, profile.seed, domain,
                  **sweep)


# ------------------------------------------------------------------------- paper points CSV


def paper_points(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The tidy points of the paper's figures: ``domain, method, n, epsilon, trial, mspbe``
    (chain: at the profile's epsilon; non-private methods: epsilon NaN)."""
    parts = []
    cmp = tables["chain_compare"]
    cmp = cmp[cmp.method.isin(POINT_METHODS)]
    eps = cmp["epsilon"].where(cmp.method.isin(["GPOPE", "DP-LSW", "DP-LSL"]), np.nan)
    parts.append(pd.DataFrame({"domain": "chain", "method": cmp.method, "n": cmp.n,
                               "epsilon": eps, "trial": cmp.seed, "mspbe": cmp.mspbe}))
    for domain in domains.DOMAINS:
        t = tables[domain]
        t = t[t.method.isin(POINT_METHODS)]
        value = t["relative_mspbe"] if domain == "hiv" else t["mspbe"]
        parts.append(pd.DataFrame({"domain": domain, "method": t.method, "n": t.n,
                                   "epsilon": t.epsilon, "trial": t.seed, "mspbe": value}))
    return pd.concat(parts, ignore_index=True)[list(POINT_COLUMNS)]


def source_points_path() -> Path:
    """Where the recorded points live in the source tree this package was imported from."""
    return SOURCE_ROOT / PAPER_POINTS


def write_paper_points(points: pd.DataFrame, path: str | Path | None = None) -> Path:
    """Write the points table (validated columns and labels) as CSV, by default to
    :func:`source_points_path`; returns the path."""
    missing = [c for c in POINT_COLUMNS if c not in points.columns]
    if missing:
        raise ValueError(f"points: missing columns {missing}")
    bad_domain = sorted(set(points.domain) - set(POINT_DOMAINS))
    bad_method = sorted(set(points.method) - set(POINT_METHODS))
    if bad_domain or bad_method:
        raise ValueError(f"points: unknown domains {bad_domain} or methods {bad_method}")
    path = source_points_path() if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    points[list(POINT_COLUMNS)].to_csv(path, index=False)
    return path


def read_paper_points(path: str | Path | None = None) -> pd.DataFrame | None:
    """The recorded paper-profile points, or ``None`` if none were recorded. Looked up at
    ``path``, else in the book at or above the working directory, else beside the package."""
    found = Path(path) if path is not None else recorded_file(PAPER_POINTS.name)
    return pd.read_csv(found) if found is not None and found.exists() else None


def summarise_points(points: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of the MSPBE per (domain, method, n, epsilon), as plotted."""
    keys = ["domain", "method", "n", "epsilon"]
    out = points.groupby(keys, dropna=False)["mspbe"].agg(["mean", "std", "count"])
    return out.reset_index()


# ---------------------------------------------------------------------------------- the run


def run(profile: XieProfile, *, executor: Any = None, cache_dir: str | Path | None = None,
        progress: bool = False) -> ExperimentResult:
    """Run the whole chapter for ``profile``; checks raise, claims are decided, releases ledgered."""
    if not isinstance(profile, XieProfile):
        raise ValueError("profile must be a XieProfile (XieProfile.quick() / .paper())")
    if profile.retrain_policies:
        from privrl.core.algorithms.q_learning import train_and_save_all

        train_and_save_all(profile.seed)
    started = time.perf_counter()
    sweep = dict(executor=executor, cache_dir=cache_dir, progress=progress)
    report = Report(PAPER, profile.profile, profile.seed, profile.as_dict())
    timings: dict[str, float] = {}

    def timed(name: str, func, *args, **kw):
        t0 = time.perf_counter()
        out = func(*args, **kw)
        timings[name] = time.perf_counter() - t0
        return out

    check_mechanism(report, profile)
    check_wis_lstd(report, profile.seed)
    chain_tables = timed("chain", run_chain, profile, **sweep)
    chain_tables["compare"] = chain_tables["compare"].assign(epsilon=profile.epsilon)
    step_n = float(chain_tables["best_steps"].set_index("n").loc[profile.sensitivity_n, "GPOPE"])
    schedules = timed("schedules", run_theorem23, profile, step_n, **sweep)
    variance = chain.gradient_variance(chain_config(profile), np.random.default_rng(profile.seed))
    report.check("variance_decreases", "chain: the gradient's variance decreases with the "
                 "transitions used", bool(np.all(np.diff(variance.variance) < 0)))
    tables = {"chain_" + k: v for k, v in chain_tables.items()}
    tables.update(schedules=schedules, gradient_variance=variance, full_batch=full_batch_table())
    for domain in domains.DOMAINS:
        tables[domain] = timed(domain, run_domain, profile, domain, **sweep)
    tables["hiv_policies"] = domains.hiv_policy_values(profile.hiv_horizon,
                                                       profile.hiv_random_patients)
    tables["gates"] = convergence_gates(report, tables)
    tables["privacy"] = privacy_ledger(report, profile)
    tables["points"] = paper_points(tables)
    decide_claims(report, profile, tables)
    record_errata(report, tables)
    timings["total"] = time.perf_counter() - started
    return ExperimentResult(tables=tables, report=report,
                            extra={"seconds": timings, "profile": profile})


def check_mechanism(report: Report, profile: XieProfile) -> None:
    """The checks of the privacy analysis: noise scale, supported accountants, full batch."""
    sd = noise_sd_check(profile, profile.seed)
    target = 2 * profile.clip_norm * 0.8
    report.glue("noise_sd", sd)
    report.glue("noise_target", target)
    # 2000 trials x 80 coordinates: the sd estimate has relative sd 1/sqrt(2 * 160000) = 0.18%
    report.check("noise_sd", "GPOPE's noise sd is 2 G z (replace-one sensitivity 2G), "
                 "relative error", abs(sd / target - 1), at_most=0.03)
    report.check("pld_unsupported", "dp-accounting's PLD accountant does not support sampling "
                 "without replacement under replace-one (so RDP is used)", not gpope_pld_supported())
    fb = full_batch_table()
    report.glue("fullbatch_ratio_max", float(fb.ratio.max()))
    report.check("fullbatch_exact_below_rdp", "full batch: exact epsilon <= RDP epsilon (min ratio)",
                 float(fb.ratio.min()), at_least=1.0)
    report.check("fullbatch_rdp_close", "full batch: RDP epsilon within 1.2 x exact (max ratio)",
                 float(fb.ratio.max()), below=1.2)


def check_wis_lstd(report: Report, seed: int) -> None:
    """WIS-LSTD(0) solves the unnormalised importance-weighted system (the chapter's lemma)."""
    data = domains.collect("mountain_car_off", 200, seed)
    theta = wis_lstd(data)
    A, b, _, _ = transition_sums(data)
    resid = float(np.abs(A @ theta - b).max() / np.abs(b).max())
    report.check("wis_lstd_system", "WIS-LSTD(0) solves sum rho phi (phi - gamma phi')^T theta = "
                 "sum rho r phi (relative residual)", resid, at_most=1e-6)


def convergence_gates(report: Report, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The convergence gate in every domain, at every n (checks that raise)."""
    cmp = tables["chain_compare"].assign(domain="chain")
    rows = [domains.gate_excess(cmp[cmp.method.isin(["LSTD", "zero", "GTD2"])])]
    rows += [domains.gate_excess(tables[d]) for d in domains.DOMAINS]
    gates = pd.concat(rows, ignore_index=True)
    for r in gates.itertuples():
        report.check(f"gate_{r.domain}_n{r.n}",
                     f"{r.domain}, n = {r.n}: noiseless GTD2's excess MSPBE over the reference, "
                     f"as a fraction of the zero estimate's", float(r.gate),
                     at_most=domains.GATE_FRACTION)
    report.glue("gate_max", float(gates.gate.max()))
    report.glue("gate_ratio_max", float(gates.ratio.max()))
    return gates


def privacy_ledger(report: Report, profile: XieProfile) -> pd.DataFrame:
    """A ledger entry per GPOPE release of the run, and the checks on them."""
    releases = [Release("chain", n, profile.chain_iterations, profile.epsilon, profile.delta,
                        profile.clip_norm) for n in sorted(set(profile.chain_sizes))]
    releases += [Release("chain (Theorems 2-3)", profile.sensitivity_n, T, profile.epsilon,
                         profile.delta, profile.clip_norm) for T in profile.schedule_iterations]
    for domain in domains.DOMAINS:
        releases += domain_releases(profile, domain)
    table = pd.DataFrame([record_release(report, r) for r in releases])
    report.check("targets_met", "every GPOPE release meets its target epsilon (max eps / target)",
                 float((table.epsilon / table.target_epsilon).max()), at_most=1.0 + 1e-9)
    gap = float((table.epsilon / table.epsilon_dp_accounting - 1).abs().max())
    report.check("accounting_tight", "every GPOPE epsilon within 1% of dp-accounting's RDP "
                 "accountant with its default orders (max relative gap)", gap, at_most=0.01)
    small = table[table.delta < 1e-3]
    report.check("shortcut_understates", "the Poisson / add-remove shortcut claims less than the "
                 "replace-one accounting of the same noise (at delta = 1e-5)",
                 bool((small.epsilon_poisson_shortcut < small.epsilon).all()))
    report.glue("c_min", float(table.theorem1_constant.min()))
    report.glue("c_max", float(table.theorem1_constant.max()))
    report.glue("shortcut_factor", float((small.epsilon / small.epsilon_poisson_shortcut).min()))
    return table


def _at(table: pd.DataFrame, **where: Any) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    return table[mask]


def _paired(table: pd.DataFrame, a: dict, b: dict, column: str = "mspbe") -> tuple[np.ndarray, np.ndarray]:
    """Values of two methods on the same datasets (aligned by seed)."""
    x = _at(table, **a).set_index("seed")[column]
    y = _at(table, **b).set_index("seed")[column]
    common = x.index.intersection(y.index)
    return x.loc[common].to_numpy(), y.loc[common].to_numpy()


def decide_claims(report: Report, profile: XieProfile, tables: dict[str, pd.DataFrame]) -> None:
    """The paper's headline claims, re-decided three-state on this run's trials."""
    cmp = tables["chain_compare"]
    worst = None
    for n in sorted(cmp.n.unique()):
        for other in ("DP-LSW", "DP-LSL"):
            g, o = _paired(cmp, dict(method="GPOPE", n=n), dict(method=other, n=n))
            logratio = np.log10(o) - np.log10(g)
            if worst is None or logratio.mean() < worst[0].mean():
                worst = (logratio, n, other)
    logratio, n, other = worst
    report.claim(decide_threshold(
        "chain_order_of_magnitude", "Chain: GPOPE's MSPBE is an order of magnitude below DP-LSW's "
        "and DP-LSL's at every n (same (epsilon, delta))", logratio, 1.0, direction="greater",
        label=f"log10(MSPBE {other} / MSPBE GPOPE) at n = {n} (the weakest pair)",
        seed=profile.seed))
    report.claim(untestable(
        "mc_beats_output_perturbation", "Mountain Car on-policy: GPOPE improves on output "
        "perturbation (DP-LSW) by orders of magnitude",
        "not run: DP-LSW and DP-LSL release per-state first-visit estimates of a finite state "
        "space; the paper does not say how it applied DP-LSW to Mountain Car's continuous states",
        0))
    mc_on, mc_off = tables["mountain_car_on"], tables["mountain_car_off"]
    eps_max = max(profile.mc_epsilons)
    n_max = max(profile.mc_n)
    g, zero = _paired(mc_off, dict(method="GPOPE", n=n_max, epsilon=eps_max),
                      dict(method="zero", n=n_max))
    report.claim(decide_threshold(
        "works_off_policy", f"Mountain Car off-policy: GPOPE works (at n = {n_max}, epsilon = "
        f"{eps_max:g} it removes at least 90% of the zero estimate's MSPBE)", g / zero, 0.1,
        direction="less", label="MSPBE GPOPE / MSPBE zero", seed=profile.seed))
    sizes = sorted(profile.mc_n)
    if len(sizes) < 2:
        report.claim(untestable(
            "privacy_cost_shrinks_with_n", "The privacy cost (GPOPE's excess MSPBE over noiseless "
            "GTD2) shrinks as n grows", f"the {profile.profile} profile has one Mountain Car n "
            f"({sizes[0]})", profile.n_trials))
    else:
        excess = {}
        for n in (sizes[0], sizes[-1]):
            g, q = _paired(mc_on, dict(method="GPOPE", n=n, epsilon=eps_max),
                           dict(method="GTD2", n=n))
            excess[n] = g - q
        report.claim(decide_difference(
            "privacy_cost_shrinks_with_n", "The privacy cost (GPOPE's excess MSPBE over noiseless "
            f"GTD2, Mountain Car on-policy, epsilon = {eps_max:g}) shrinks as n grows",
            excess[sizes[-1]], excess[sizes[0]], direction="less", label_a=f"n = {sizes[-1]}",
            label_b=f"n = {sizes[0]}", seed=profile.seed))
    sched = tables["schedules"]
    T = max(profile.schedule_iterations)
    final = sched[(sched.iterations == T) & (sched.iteration == T)]
    d, c = _paired(final, dict(schedule="diminishing"), dict(schedule="constant"))
    report.claim(decide_difference(
        "diminishing_beats_constant", f"Theorems 2-3: at the largest T (= {T}) a diminishing step "
        "ends below a constant one (chain)", d, c, direction="less", label_a="diminishing",
        label_b="constant", seed=profile.seed))


def record_errata(report: Report, tables: dict[str, pd.DataFrame]) -> None:
    """The chapter's errata of the paper (with the numbers of this run as evidence)."""
    report.erratum(
        "theorem1_constants", "ambiguous",
        "Theorem 1 gives the noise scale only up to unspecified constants; the experiment "
        "settings (step sizes, iterations, clip bound, discount, data sizes, epsilons) are missing.",
        "GPOPE is accounted with dp-accounting (sampling without replacement, replace-one); "
        f"Theorem 1's form would need constants from {tables['privacy'].theorem1_constant.min():.3g}"
        f" to {tables['privacy'].theorem1_constant.max():.3g} across the chapter's runs.")
    sens = tables["chain_sensitivity"].groupby("step_size")["mspbe"].mean()
    within = sens[sens <= 2 * sens.min()].index
    report.glue("steps_within2_lo", float(within.min()))
    report.glue("steps_within2_hi", float(within.max()))
    report.erratum(
        "step_robustness", "unsupported",
        "Section 7: GPOPE's accuracy is 'stable for a very wide range of step sizes' (Figure 1 b).",
        f"On the chain at n = {int(tables['chain_sensitivity'].n.iloc[0])}, steps from "
        f"{within.min():g} to {within.max():g} (a factor {within.max() / within.min():g}) stay "
        "within a factor 2 of the best MSPBE; larger steps blow up with the noise.")
    report.erratum(
        "mc_output_perturbation", "ambiguous",
        "Section 7 compares GPOPE with output perturbation V1 (DP-LSW) on Mountain Car, and says "
        "V2 (DP-LSL) fails to guarantee privacy with continuous states.",
        "Both DP-LSW and DP-LSL are defined on a finite state space (first-visit returns per "
        "state, smooth sensitivity from per-state visit counts); how DP-LSW was applied to "
        "continuous states is not said, so the comparison is not rebuilt here.")
    report.erratum(
        "chain_zero_reference", "ambiguous",
        "Figure 1 a: GPOPE beats output perturbation by an order of magnitude on the chain.",
        "At (epsilon, delta) = (0.1, 0.1) both output-perturbation methods are far worse than "
        "predicting V = 0; the figure does not show that reference (the chapter does).")
    for claim in report.claims:
        if claim.verdict == "not reproduced":
            report.erratum(f"claim_{claim.key}", "not reproduced", claim.statement,
                           f"{claim.evidence_text()} ({report.profile} profile)")


# -------------------------------------------------------------------------------- figures

METHOD_LABELS = {"GPOPE": "GPOPE (gradient perturbation)", "DP-LSW": "DP-LSW (output pert. V1)",
                 "DP-LSL": "DP-LSL (output pert. V2)", "LSTD": "LSTD (non-private)",
                 "WIS-LSTD": "WIS-LSTD (non-private)", "GTD2": "GTD2 (noiseless)",
                 "zero": "zero estimate (no data)"}


def plot_points(ax, points: pd.DataFrame, domain: str, ylabel: str = "MSPBE") -> None:
    """Mean MSPBE against n (log-log), error bars one standard deviation (as the paper plots
    them), one line per method and epsilon, for one domain of a points table."""
    from privrl.chapter.plotting import band_plot

    t = points[points.domain == domain].copy()
    t["label"] = [METHOD_LABELS.get(m, m) + ("" if np.isnan(e) else f", epsilon = {e:g}")
                  for m, e in zip(t.method, t.epsilon, strict=True)]
    for label, g in t.groupby("label", sort=True):
        band_plot(ax, g, "n", "mspbe", err="std", label=label, marker="o")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("data size n (trajectories)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def plot_steps(ax, sensitivity: pd.DataFrame, zero_mspbe: float) -> None:
    """Figure 1 b: GPOPE's MSPBE against the step size (mean, one standard deviation)."""
    from privrl.chapter.plotting import band_plot

    band_plot(ax, sensitivity, "step_size", "mspbe", err="std", marker="o", label="GPOPE")
    ax.axhline(zero_mspbe, color="gray", ls="--", label="zero estimate")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("step size")
    ax.set_ylabel("MSPBE")
    ax.legend()


def plot_schedules(ax, schedules: pd.DataFrame) -> None:
    """MSPBE along GPOPE runs, constant and diminishing steps, for each total T."""
    from privrl.chapter.plotting import band_plot

    for (T, sched), g in schedules.groupby(["iterations", "schedule"]):
        band_plot(ax, g, "iteration", "mspbe", err="std", label=f"{sched} step, T = {T}",
                  ls="-" if sched == "constant" else "--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("MSPBE")
    ax.legend(fontsize=8)


def plot_variance(ax, variance: pd.DataFrame) -> float:
    """Gradient variance against transitions used, with the 1/k law; returns the log-log slope."""
    slope = float(np.polyfit(np.log(variance.transitions), np.log(variance.variance), 1)[0])
    ax.loglog(variance.transitions, variance.variance, "o-", label=f"measured (slope {slope:.2f})")
    ax.loglog(variance.transitions, variance.variance.iloc[0] / variance.transitions, "k--",
              label="1/k")
    ax.set_xlabel("transitions used per trajectory, k")
    ax.set_ylabel("total variance of the gradient")
    ax.legend()
    return slope


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m privrl.papers.xie2019.chapter")
    parser.add_argument("command", choices=["train-policies"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "train-policies":
        from privrl.core.algorithms.q_learning import train_and_save_all

        for path in train_and_save_all(args.seed):
            print(path)


if __name__ == "__main__":
    main()


__all__ = [
    "PAPER_POINTS", "PAPER_SIZES", "POINT_COLUMNS", "POINT_DOMAINS", "POINT_METHODS", "Release",
    "XieProfile", "chain_config", "check_wis_lstd", "domain_releases", "full_batch_table",
    "noise_sd_check", "paper_points", "source_points_path", "plot_points", "plot_schedules", "plot_steps",
    "plot_variance", "read_paper_points", "record_release", "run", "run_chain",
    "run_domain", "run_theorem23", "summarise_points", "write_paper_points",
]
