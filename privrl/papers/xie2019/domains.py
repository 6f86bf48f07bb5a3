"""Mountain Car and HIV for the Xie, Thomas and Miklau (2019) chapter: data, policies, one trial.

A *trial* (:func:`run_domain_trial`, one seed of :func:`privrl.chapter.sweep.run_sweep`) draws a fresh
dataset of ``n`` trajectories and runs, on the same data and the same trajectory draws:
LSTD (on-policy) or WIS-LSTD (off-policy), noiseless GTD2 (same clip, step, schedule and
iterations as GPOPE: the convergence gate) and GPOPE at every privacy level of the point.
The MSPBE of every estimate is measured on a fixed, large *public* held-out sample of the
behaviour policy (:func:`heldout_problem`, seeds disjoint from every trial's).

* ``mountain_car_on``: the learned epsilon-greedy Fourier-basis policy evaluated on its own data;
* ``mountain_car_off``: the same behaviour, the uniform random policy as target;
* ``hiv``: behaviour softmax of the fitted Q, target greedy w.r.t. it (the paper: softmax w.r.t.
  the optimal Q as behaviour, a Q-learning policy as target). Simulating HIV is slow (a stiff
  ODE per patient step), so each trial draws its ``n`` patients without replacement from a
  public pool simulated once (:func:`hiv_pool`) rather than simulating new ones.

The GTD2/GPOPE settings of each domain (:data:`SETTINGS`) were chosen by :func:`tune_domain`, a
grid search of noiseless GTD2 on public seeds (:data:`TUNING_SEED`); the grid and its result are
in ``privrl/data/xie2019/gtd2_grid.csv``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import asdict

import numpy as np
import pandas as pd

from privrl.core.algorithms.gtd import GPOPEResult, SaddlePointStats, gpope, mspbe
from privrl.core.algorithms.lstd import FeatureTransitions, lstd, sample_saddle_point, wis_lstd
from privrl.core.algorithms.q_learning import (
    epsilon_greedy,
    hiv_quadratic_features,
    load_hiv_weights,
    softmax_policy,
)
from privrl.core.envs import hiv
from privrl.core.evaluation_domains import (
    MC_BEHAVIOUR_EPSILON,
    MC_FOURIER_ORDER,
    MC_MAX_STEPS,
    MC_SETTINGS,
    DomainSettings,
    behaviour_transitions,
    mountain_car_episodes,
    mountain_car_features,
    mountain_car_policies,
)
from privrl.core.rng import as_generator
from privrl.core.validation import check_choice, check_int

DOMAINS: tuple[str, ...] = ("mountain_car_on", "mountain_car_off", "hiv")
#: Root seed of the public data: held-out samples, the HIV pool and the step-size grid search.
#: Private trials use the chapter's ``seed``; these seeds are never handed to a trial.
HELDOUT_SEED = 90_001
POOL_SEED = 90_002
TUNING_SEED = 90_003
#: Convergence gate: noiseless GTD2's MSPBE may exceed the reference's (LSTD / WIS-LSTD) by at
#: most this fraction of the zero estimate's MSPBE (it removes >= 99% of the error of predicting
#: V = 0 that the reference removes).
GATE_FRACTION = 0.01


SETTINGS: dict[str, DomainSettings] = {
    **MC_SETTINGS,
    "hiv": DomainSettings(
        gamma=0.9,
        step_size=0.2,
        schedule="diminishing",
        iterations=20_000,
        clip_norm=1.0,
        heldout=0,
        reward_scale=1e-5,
    ),
}
HIV_BEHAVIOUR_TEMPERATURE = 1.0


def _check_domain(domain: str) -> str:
    return str(check_choice(domain, "domain", DOMAINS))


def policies(
    domain: str,
) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """(behaviour, target) of a domain; each maps states (k, dim) to action probabilities.

    Mountain Car states are raw (position, velocity); HIV states are the scaled log10 state.
    """
    domain = _check_domain(domain)
    if domain.startswith("mountain_car"):
        return mountain_car_policies(domain)
    W = load_hiv_weights()

    def soft(x: np.ndarray) -> np.ndarray:
        return softmax_policy(hiv_quadratic_features(x) @ W, HIV_BEHAVIOUR_TEMPERATURE)

    def greedy(x: np.ndarray) -> np.ndarray:
        return epsilon_greedy(hiv_quadratic_features(x) @ W, 0.0)

    return soft, greedy


def whitening(phi: np.ndarray, mask: np.ndarray, rcond: float = 1e-8) -> np.ndarray:
    r"""A linear map :math:`W` with :math:`W^\top \hat M W = I` on the span of the features
    (eigen-directions of :math:`\hat M = E[\phi\phi^\top]` below ``rcond`` times the largest are
    dropped): the same linear value functions, but a conditioned saddle point for GTD2."""
    cur = phi[:, :-1][mask]
    lam, vec = np.linalg.eigh(cur.T @ cur / len(cur))
    keep = lam > rcond * lam.max()
    return vec[:, keep] / np.sqrt(lam[keep])


@functools.lru_cache(maxsize=4)
def hiv_feature_map(horizon: int, pool_size: int, heldout: int) -> np.ndarray:
    """:func:`whitening` of the quadratic HIV features on the public held-out patients. The
    quadratic features of the log state are nearly collinear along these trajectories
    (eigenvalues of M down to 1e-9 of the largest), so GTD2 on the raw features does not reach
    WIS-LSTD in any affordable number of iterations (the tuning grid shows it)."""
    pool, _ = hiv_pool(pool_size + heldout, horizon)
    part = pool.subset(np.arange(pool_size, pool_size + heldout))
    phi = hiv_quadratic_features(hiv.scaled_log_state(part.observations))
    return whitening(phi, part.mask())


def to_features(
    domain: str,
    traj,
    behaviour_probs: np.ndarray,
    settings: DomainSettings,
    feature_map: np.ndarray | None = None,
) -> FeatureTransitions:
    """Behaviour trajectories of ``domain`` in its features (HIV: mapped by ``feature_map``),
    with the target/behaviour ratios off-policy and the rewards scaled by ``settings``."""
    if domain.startswith("mountain_car"):
        return mountain_car_features(domain, traj, behaviour_probs, settings)
    _, target = policies(domain)
    states = hiv.scaled_log_state(traj.observations)
    phi = hiv_quadratic_features(states)
    if feature_map is not None:
        phi = phi @ feature_map
    return behaviour_transitions(traj, phi, states, target, behaviour_probs, settings)


@functools.lru_cache(maxsize=4)
def hiv_pool(size: int, horizon: int) -> tuple:
    """A public pool of ``size`` HIV patients of ``horizon`` steps under the behaviour policy
    (simulated once per process, seed :data:`POOL_SEED`): (trajectories, behaviour probs)."""
    behaviour, _ = policies("hiv")
    return hiv.collect_hiv(behaviour, check_int(size, "size", 1), POOL_SEED, horizon)


def collect(
    domain: str,
    n: int,
    rng: object,
    hiv_horizon: int = 200,
    hiv_pool_size: int = 0,
    hiv_heldout: int = 0,
) -> FeatureTransitions:
    """A dataset of ``n`` behaviour trajectories in feature space (with ratios off-policy).

    Mountain Car simulates ``n`` new episodes. HIV draws ``n`` of the first ``hiv_pool_size``
    patients of the pool (of ``hiv_pool_size + hiv_heldout``) without replacement.
    """
    domain = _check_domain(domain)
    n = check_int(n, "n", 1)
    gen = as_generator(rng)
    settings = SETTINGS[domain]
    if not domain.startswith("mountain_car"):
        if hiv_pool_size < n:
            raise ValueError(f"hiv_pool_size must be >= n = {n}, got {hiv_pool_size}")
        pool, pool_probs = hiv_pool(hiv_pool_size + hiv_heldout, hiv_horizon)
        pick = gen.choice(hiv_pool_size, size=n, replace=False)
        traj, probs = pool.subset(pick), pool_probs[pick]
        return to_features(
            domain, traj, probs, settings, hiv_feature_map(hiv_horizon, hiv_pool_size, hiv_heldout)
        )
    traj, probs = mountain_car_episodes(domain, n, gen)
    return to_features(domain, traj, probs, settings)


@functools.lru_cache(maxsize=8)
def heldout_problem(
    domain: str, hiv_horizon: int = 200, hiv_pool_size: int = 0, hiv_heldout: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, b, M) of the MSPBE, from the public held-out sample of the behaviour policy.

    Mountain Car: ``SETTINGS[domain].heldout`` fresh episodes (seed :data:`HELDOUT_SEED`). HIV:
    the last ``hiv_heldout`` patients of the pool, which trials never draw.
    """
    domain = _check_domain(domain)
    settings = SETTINGS[domain]
    if domain.startswith("mountain_car"):
        data = collect(domain, settings.heldout, HELDOUT_SEED)
    else:
        pool, probs = hiv_pool(
            hiv_pool_size + check_int(hiv_heldout, "hiv_heldout", 1), hiv_horizon
        )
        part = np.arange(hiv_pool_size, hiv_pool_size + hiv_heldout)
        data = to_features(
            domain,
            pool.subset(part),
            probs[part],
            settings,
            hiv_feature_map(hiv_horizon, hiv_pool_size, hiv_heldout),
        )
    return sample_saddle_point(data)


HIV_POLICIES: tuple[str, ...] = (
    "evaluated (greedy w.r.t. fitted Q)",
    "behaviour (softmax)",
    "uniform random",
    "no treatment",
    "both drugs always",
)


def _hiv_policy(name: str) -> tuple[Callable[[np.ndarray], np.ndarray], bool]:
    """(policy, stochastic) of one of :data:`HIV_POLICIES`."""
    behaviour, target = policies("hiv")
    fixed = {"no treatment": 0, "both drugs always": 3}
    if name in fixed:
        return (lambda x: np.eye(hiv.N_ACTIONS)[np.full(len(x), fixed[name])]), False
    if name == "uniform random":
        return (lambda x: np.full((len(x), hiv.N_ACTIONS), 1.0 / hiv.N_ACTIONS)), True
    return (target, False) if name == HIV_POLICIES[0] else (behaviour, True)


@functools.lru_cache(maxsize=16)
def hiv_policy_value(name: str, horizon: int, patients: int) -> tuple[float, float]:
    """(mean reward per step, mean discounted return) of an HIV policy from the unhealthy steady
    state; a deterministic policy needs one patient (the simulator is deterministic), a
    stochastic one ``patients`` (seed :data:`POOL_SEED` + 1)."""
    policy, stochastic = _hiv_policy(str(check_choice(name, "name", HIV_POLICIES)))
    traj, _ = hiv.collect_hiv(policy, patients if stochastic else 1, POOL_SEED + 1, horizon)
    disc = traj.rewards @ SETTINGS["hiv"].gamma ** np.arange(traj.rewards.shape[1])
    return float(traj.rewards.mean()), float(disc.mean())


def hiv_policy_values(horizon: int, patients: int) -> pd.DataFrame:
    """:func:`hiv_policy_value` of every policy of :data:`HIV_POLICIES` as a table."""
    rows = [
        dict(
            zip(
                ("mean_reward_per_step", "discounted_return"),
                hiv_policy_value(name, horizon, patients),
                strict=True,
            )
        )
        | {"policy": name}
        for name in HIV_POLICIES
    ]
    return pd.DataFrame(rows)[["policy", "mean_reward_per_step", "discounted_return"]]


def reference_solution(domain: str, data: FeatureTransitions) -> tuple[str, np.ndarray]:
    """LSTD on-policy, WIS-LSTD off-policy: the non-private reference and its method name."""
    if _check_domain(domain) == "mountain_car_on":
        return "LSTD", lstd(data)
    return "WIS-LSTD", wis_lstd(data)


#: GPOPE step sizes tried per (n, epsilon) on public seeds (the noiseless-tuned step of
#: :data:`SETTINGS` is far too large once noise of sd 2 G z enters every update).
GPOPE_STEP_GRID: tuple[float, ...] = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)


def _dataset_and_problem(config: dict, seed: np.random.SeedSequence):
    hiv_args = (config["hiv_horizon"], config["hiv_pool_size"], config["hiv_heldout"])
    data_ss, alg_ss = seed.spawn(2)
    data = collect(config["domain"], config["n"], data_ss, *hiv_args)
    return data, heldout_problem(config["domain"], *hiv_args), as_generator(alg_ss)


def _gpope_trials(
    data: FeatureTransitions,
    settings: DomainSettings,
    steps: np.ndarray,
    z: np.ndarray,
    gen: np.random.Generator,
) -> GPOPEResult:
    """GPOPE on ``data`` at the domain's iterations, clip and step schedule: one parallel trial
    per pair of ``steps`` and noise multipliers ``z`` (0: noiseless GTD2)."""
    return gpope(
        SaddlePointStats.from_features(data),
        settings.iterations,
        steps,
        settings.clip_norm,
        z,
        gen,
        n_trials=len(z),
        schedule=settings.schedule,
    )


def run_gpope_tuning(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """GPOPE at every (epsilon, z) of ``config['noise']`` and every step of
    :data:`GPOPE_STEP_GRID` on one (public) dataset, as parallel trials of one call.
    Rows: ``domain, n, epsilon, step_size, mspbe``."""
    settings = SETTINGS[config["domain"]]
    data, (A, b, M), gen = _dataset_and_problem(config, seed)
    grid = [(eps, z, step) for eps, z in config["noise"] for step in GPOPE_STEP_GRID]
    eps, z, steps = (np.array(v, dtype=float) for v in zip(*grid, strict=True))
    res = _gpope_trials(data, settings, steps, z, gen)
    return pd.DataFrame(
        {
            "domain": config["domain"],
            "n": config["n"],
            "epsilon": eps,
            "step_size": steps,
            "mspbe": mspbe(res.theta, A, b, M),
        }
    )


def run_domain_trial(config: dict, seed: np.random.SeedSequence) -> pd.DataFrame:
    """One trial of one domain at one ``n``: a fresh dataset; the reference, noiseless GTD2
    (step of :data:`SETTINGS`) and GPOPE for every ``(epsilon, z, step)`` of ``config['noise']``
    (step tuned on public seeds by :func:`run_gpope_tuning`), on the same trajectory draws.

    Rows: ``method`` (LSTD / WIS-LSTD, zero, GTD2, GPOPE), ``epsilon`` (NaN for non-private),
    ``step_size``, ``mspbe``, ``clipped`` and, for HIV, ``relative_mspbe`` (MSPBE divided by the
    squared mean reward per step of the evaluated policy, the paper's normalisation).
    """
    domain, n = config["domain"], config["n"]
    settings = SETTINGS[domain]
    data, (A, b, M), gen = _dataset_and_problem(config, seed)
    ref_name, ref = reference_solution(domain, data)
    eps = [e for e, _, _ in config["noise"]]
    z = np.array([0.0] + [zz for _, zz, _ in config["noise"]])
    steps = np.array([settings.step_size] + [st for _, _, st in config["noise"]])
    res = _gpope_trials(data, settings, steps, z, gen)
    out = pd.DataFrame(
        {
            "domain": domain,
            "n": n,
            "method": [ref_name, "zero", "GTD2"] + ["GPOPE"] * len(eps),
            "epsilon": [np.nan, np.nan, np.nan, *eps],
            "step_size": [np.nan, np.nan, *steps],
            "mspbe": mspbe(np.vstack([ref, np.zeros_like(ref), res.theta]), A, b, M),
            "clipped": res.clipped_fraction,
        }
    )
    if domain == "hiv":
        rate, _ = hiv_policy_value(HIV_POLICIES[0], config["hiv_horizon"], 1)
        out["relative_mspbe"] = out["mspbe"] / (rate * settings.reward_scale) ** 2
    return out


def gate_excess(table: pd.DataFrame) -> pd.DataFrame:
    """Per (domain, n): mean MSPBE of the reference, the zero estimate and noiseless GTD2, the
    ratio GTD2 / reference and the gate statistic (GTD2 - reference) / (zero - reference)."""
    base = table[table.method.isin(["LSTD", "WIS-LSTD", "zero", "GTD2"])].copy()
    base["role"] = base.method.replace({"LSTD": "reference", "WIS-LSTD": "reference"})
    mean = base.groupby(["domain", "n", "role"])["mspbe"].mean().unstack("role")
    mean["ratio"] = mean["GTD2"] / mean["reference"]
    mean["gate"] = (mean["GTD2"] - mean["reference"]) / (mean["zero"] - mean["reference"])
    return mean.reset_index()


def tune_domain(
    domain: str,
    n: int,
    step_grid: Sequence[float],
    schedules: Sequence[str] = ("constant", "diminishing"),
    iterations: Sequence[int] = (5_000, 20_000),
    n_seeds: int = 2,
    hiv_args: tuple[int, int, int] = (200, 0, 0),
) -> pd.DataFrame:
    """Grid search of noiseless GTD2 (clip as in :data:`SETTINGS`) on public seeds.

    For every (schedule, iterations, step) and each of ``n_seeds`` public datasets (children of
    :data:`TUNING_SEED`): the held-out MSPBE of GTD2 and of the reference. Returns one row per
    grid point with the means and the gate statistic of :func:`gate_excess`.
    """
    settings = SETTINGS[_check_domain(domain)]
    steps = np.asarray(step_grid, dtype=float)
    rows = []
    for i, ss in enumerate(
        np.random.SeedSequence(TUNING_SEED).spawn(check_int(n_seeds, "n_seeds", 1))
    ):
        data_ss, alg_ss = ss.spawn(2)
        data = collect(domain, n, data_ss, *hiv_args)
        A, b, M = heldout_problem(domain, *hiv_args)
        _, ref = reference_solution(domain, data)
        stats = SaddlePointStats.from_features(data)
        for schedule in schedules:
            for T in iterations:
                res = gpope(
                    stats,
                    T,
                    steps,
                    settings.clip_norm,
                    0.0,
                    as_generator(alg_ss),
                    n_trials=len(steps),
                    schedule=schedule,
                )
                for step, err in zip(steps, mspbe(res.theta, A, b, M), strict=True):
                    rows.append(
                        dict(
                            schedule=schedule,
                            iterations=T,
                            step_size=step,
                            seed=i,
                            gtd2=float(err),
                            reference=float(mspbe(ref, A, b, M)),
                            zero=float(mspbe(0 * ref, A, b, M)),
                        )
                    )
    grid = pd.DataFrame(rows).groupby(["schedule", "iterations", "step_size"]).mean().reset_index()
    grid["gate"] = (grid.gtd2 - grid.reference) / (grid.zero - grid.reference)
    grid.insert(0, "domain", domain)
    grid.insert(1, "n", n)
    return grid.drop(columns="seed")


def choose_settings(grid: pd.DataFrame) -> pd.Series:
    """The rule that picked :data:`SETTINGS` from a :func:`tune_domain` grid (worst gate over the
    grid's ``n``): the fewest iterations at which some (schedule, step) passes half the gate (a
    margin for new datasets; the noise GPOPE needs grows as sqrt(T)); there the diminishing
    schedule if one passes (Theorem 3: no noise floor; the grid search is noiseless and cannot
    see it), and the smallest gate statistic."""
    worst = grid.groupby(["schedule", "iterations", "step_size"])["gate"].max().reset_index()
    ok = worst[worst.gate <= GATE_FRACTION / 2]
    if ok.empty:
        raise ValueError("no grid point passes the convergence gate: widen the grid")
    cheapest = ok[ok.iterations == ok.iterations.min()]
    if (cheapest.schedule == "diminishing").any():
        cheapest = cheapest[cheapest.schedule == "diminishing"]
    return cheapest.sort_values(["gate", "step_size"]).iloc[0]


def settings_table() -> pd.DataFrame:
    """:data:`SETTINGS` as a table for the chapter."""
    return pd.DataFrame([{"domain": d, **asdict(s)} for d, s in SETTINGS.items()])


__all__ = [
    "DOMAINS",
    "DomainSettings",
    "MC_BEHAVIOUR_EPSILON",
    "MC_FOURIER_ORDER",
    "MC_MAX_STEPS",
    "GATE_FRACTION",
    "HELDOUT_SEED",
    "POOL_SEED",
    "SETTINGS",
    "TUNING_SEED",
    "choose_settings",
    "collect",
    "gate_excess",
    "heldout_problem",
    "hiv_pool",
    "HIV_POLICIES",
    "hiv_feature_map",
    "whitening",
    "hiv_policy_value",
    "hiv_policy_values",
    "GPOPE_STEP_GRID",
    "run_gpope_tuning",
    "policies",
    "reference_solution",
    "run_domain_trial",
    "settings_table",
    "to_features",
    "tune_domain",
]
