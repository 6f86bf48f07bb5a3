r"""Wang and Hegde (2019): the calibration table behind Figure 2 and the ledger.

Every Figure 2 method at each target :math:`(\varepsilon, \delta)` under its stated relation: its
noise, its event (:mod:`privrl.core.accounting`) and an independent cross-check:

* ``functional``: Algorithm 1 calibrated by Theorem 5 for the :math:`U = T - B + 1` noisy updates
  performed, the approximation term a union bound over every sample path drawn
  (:func:`n_paths_drawn`); ``functional (T/B)``: calibrated for the paper's :math:`T/B` updates,
  with the epsilon Theorem 5 then certifies for the :math:`U` updates performed;
* ``output``: pointwise Gaussian noise per update, Gaussian mechanism and Kairouz et al.'s
  composition over :math:`U` updates; ``input``: Gaussian noise on each of the :math:`T` rewards
  (:math:`\ell_2` sensitivity :math:`\sqrt T`), analytic Gaussian mechanism;
* ``dpsgd``: DP-SGD with Poisson batches from the growing replay memory (one transition,
  add/remove), RDP accountant with the rates bounded per doubling block; its cross-check, the
  epsilon of the steps each run took, is known only after the runs (:func:`with_steps_taken`);
* ``dpsgd (reward fn)``: DP-SGD calibrated for neighbouring reward functions (fixed batches, every
  clipped gradient may change, no amplification), analytic Gaussian over the composed steps.

A baseline's epsilon is its event's, at most its target (to the calibration's tolerance, on its
safe side); Theorem 5 is exact for the calibrated sigma.
"""

from __future__ import annotations

import math
from typing import Any

import dp_accounting
import pandas as pd

from privrl.api.control import Algorithm1Noise, algorithm1_noise
from privrl.chapter.ledger import CrossCheck
from privrl.core.accounting import functional_noise as fn
from privrl.core.accounting.events import DpAccountingEvent, pld_epsilon
from privrl.core.accounting.gaussian import GaussianEvent
from privrl.core.algorithms.functional_q import FunctionalNoiseConfig
from privrl.papers.wang2019.profile import WangProfile

REWARD_FUNCTION = "replace-one reward function"
#: The cross-check of a DP-SGD row: the epsilon of the steps the runs took, from their record.
STEPS_TAKEN = "dp-accounting RDP of the steps actually taken (run record)"


def n_paths_drawn(p: WangProfile) -> int:
    """Sample paths Algorithm 1 draws in a run (the union bound of Theorem 5 covers all of them):
    paths per draw (one per action, per network with its own path) times the number of draws."""
    if p.protocol == "authors":
        return p.episodes * FunctionalNoiseConfig(1.0).paths_per_draw
    # redrawn before every env step (also before the first update): at most T draws
    return p.n_samples * FunctionalNoiseConfig(1.0, target_path="shared").paths_per_draw


def _functional_row(
    p: WangProfile, name: str, noise: Algorithm1Noise, epsilon: float
) -> dict[str, Any]:
    """A Theorem 5 row: sigma calibrated for ``noise.calibrated_updates``, run for :math:`U`
    updates (``noise.event``)."""
    B, alpha, L, U, n_paths = p.batch_size, p.lr, p.lipschitz, p.n_updates, n_paths_drawn(p)
    return {
        "method": name,
        "relation": REWARD_FUNCTION,
        "mechanism": "Gaussian-process sample path on Q (Theorem 5)",
        "sensitivity": f"RKHS sqrt(C) = {math.sqrt(fn.theorem5_C(alpha, noise.k, L, B)):.3g} "
        "per update",
        "parameter": "gp_sigma",
        "value": noise.sigma,
        "gp_beta": noise.beta,
        "k": noise.k,
        "epsilon": epsilon,
        "delta": noise.delta_gauss + noise.delta_approx,
        "delta_gauss": noise.delta_gauss,
        "delta_approx": noise.delta_approx,
        "calibrated_updates": noise.calibrated_updates,
        "compositions": U,
        "n_paths": n_paths,
        "accountant": f"Theorem 5 for U = {U} updates, union bound over {n_paths} paths",
        "event": noise.event,
        "cross_check": CrossCheck(
            "upper bound",
            "exact Gaussian composition of U GP mechanisms (analytic; Gaussian part)",
            fn.gaussian_composition_epsilon(
                noise.sigma, noise.delta_gauss, U, B, alpha, noise.k, L
            ),
        ),
    }


def privacy_table(p: WangProfile) -> pd.DataFrame:
    """Every Figure 2 method calibrated at each (epsilon, delta): mechanism, neighbouring relation,
    sensitivity under it, noise, accountant, compositions, event and cross-check; for DP-SGD also
    ``epsilon_pld``, beyond the paper: the tight PLD epsilon of its steps at their (nearly)
    per-step sampling rates (:func:`~privrl.core.accounting.functional_noise.growing_memory_fine_blocks`),
    beside the RDP figure the ledger and verdicts use (NaN on the other rows)."""
    T, B, alpha, L, delta = p.n_samples, p.batch_size, p.lr, p.lipschitz, p.delta
    U, n_paths, dp_steps = p.n_updates, n_paths_drawn(p), p.dpsgd_steps
    rows = []
    for eps in p.epsilons:
        cal, tb = (
            algorithm1_noise(
                epsilon=eps,
                delta=delta,
                n_updates=U,
                batch_size=B,
                lr=alpha,
                lipschitz=L,
                n_paths=n_paths,
                calibrated_updates=calibrated,
            )
            for calibrated in (None, p.paper_updates)
        )
        eps_tb = fn.theorem5_epsilon(tb.sigma, tb.delta_gauss, U, B, alpha, tb.k, L)
        functional = [
            _functional_row(p, "functional", cal, eps),
            _functional_row(p, "functional (T/B)", tb, eps_tb),
        ]
        baselines = []
        k = cal.k
        out_std = fn.output_perturbation_sigma(eps, delta, U, B, alpha, k, L)
        out_event = fn.OutputPerturbationEvent(out_std, fn.update_scale(alpha, k, B) * L, U)
        baselines.append(
            {
                "method": "output",
                "relation": REWARD_FUNCTION,
                "mechanism": "i.i.d. Gaussian on each Q value: covers one queried value per update, "
                "not the released function",
                "sensitivity": f"v L = {fn.update_scale(alpha, k, B) * L:.3g} per value per update",
                "parameter": "output_std",
                "value": out_std,
                "k": k,
                "compositions": U,
                "accountant": "classic Gaussian + Kairouz et al. composition",
                "event": out_event,
                "cross_check": CrossCheck(
                    "upper bound",
                    "dp-accounting RDP",
                    fn.output_perturbation_rdp_epsilon(out_std, delta, U, B, alpha, k, L),
                ),
            }
        )
        reward_std = fn.input_perturbation_sigma(eps, delta, T)
        baselines.append(
            {
                "method": "input",
                "relation": REWARD_FUNCTION,
                "mechanism": "Gaussian on every observed reward",
                "sensitivity": f"l2 sqrt(T) = {math.sqrt(T):.3g} (all rewards may change by 1)",
                "parameter": "reward_std",
                "value": reward_std,
                "compositions": 1,
                "accountant": "analytic Gaussian (Balle and Wang 2018)",
                "event": GaussianEvent(reward_std, 1.0, T),
                "cross_check": CrossCheck(
                    "upper bound",
                    "dp-accounting PLD of the Gaussian reward vector",
                    pld_epsilon(dp_accounting.GaussianDpEvent(reward_std / math.sqrt(T)), delta),
                ),
            }
        )
        z = fn.dpsgd_growing_memory_noise_multiplier(eps, delta, B, T, p.dpsgd_warmup)
        blocks = fn.growing_memory_blocks(B, T, p.dpsgd_warmup)
        baselines.append(
            {
                "method": "dpsgd",
                "relation": "add/remove transition",
                "mechanism": "DP-SGD, Poisson batches from the growing replay memory",
                "sensitivity": "clip c = 1 per transition",
                "parameter": "noise_multiplier",
                "value": z,
                "compositions": dp_steps,
                "accountant": "dp-accounting RDP, rates bounded per doubling block",
                "event": DpAccountingEvent(fn.dpsgd_steps_event(z, blocks), "rdp", "add/remove"),
                "epsilon_pld": fn.dpsgd_steps_pld_epsilon(
                    z, fn.growing_memory_fine_blocks(B, T, p.dpsgd_warmup), delta
                ),
                "cross_check": CrossCheck(
                    "upper bound", f"{STEPS_TAKEN}: known once the Figure 2 runs are done"
                ),
            }
        )
        z_rf = fn.dpsgd_reward_function_noise_multiplier(eps, delta, B, dp_steps)
        baselines.append(
            {
                "method": "dpsgd (reward fn)",
                "relation": REWARD_FUNCTION,
                "mechanism": "DP-SGD, fixed batches of B, no amplification (every reward may change)",
                "sensitivity": f"2 c B = {2 * B} per step",
                "parameter": "noise_multiplier",
                "value": z_rf,
                "compositions": dp_steps,
                "accountant": "analytic Gaussian over the composed steps",
                "event": GaussianEvent(z_rf, 2.0 * B, dp_steps),
                "cross_check": CrossCheck(
                    "upper bound",
                    "dp-accounting PLD of the composed Gaussian steps",
                    pld_epsilon(
                        dp_accounting.SelfComposedDpEvent(
                            dp_accounting.GaussianDpEvent(z_rf / (2 * B)), dp_steps
                        ),
                        delta,
                    ),
                ),
            }
        )
        for row in baselines:
            row.update(epsilon=row["event"].epsilon(delta), delta=delta)
        rows += [{"epsilon_target": eps, **row} for row in functional + baselines]
    columns = [
        "epsilon_target",
        "method",
        "relation",
        "mechanism",
        "sensitivity",
        "parameter",
        "value",
        "gp_beta",
        "k",
        "epsilon",
        "delta",
        "delta_gauss",
        "delta_approx",
        "calibrated_updates",
        "compositions",
        "n_paths",
        "accountant",
        "event",
        "cross_check",
        "epsilon_pld",
    ]
    return pd.DataFrame(rows).reindex(columns=columns)


def with_steps_taken(table: pd.DataFrame, epsilon_target: float, steps_epsilon: float) -> None:
    """Fill the cross-check of the DP-SGD row at ``epsilon_target`` with the epsilon of the steps
    the runs actually took (:func:`recorded_dpsgd_epsilon`, largest over seeds)."""
    rows = table.index[(table.method == "dpsgd") & (table.epsilon_target == epsilon_target)]
    for i in rows:
        table.at[i, "cross_check"] = CrossCheck("upper bound", STEPS_TAKEN, steps_epsilon)


def recorded_dpsgd_epsilon(curve: pd.DataFrame, noise_multiplier: float, delta: float) -> float:
    """Epsilon of the DP-SGD steps one run actually took, from its own record: each episode's
    steps charged that episode's largest Poisson sampling rate (an upper bound, RDP accountant)."""
    steps = curve[curve.dp_steps > 0]
    if steps.empty:
        raise ValueError("the run took no DP-SGD steps")
    pairs = [
        (float(q), int(n)) for q, n in zip(steps.max_sampling_rate, steps.dp_steps, strict=True)
    ]
    return fn.dpsgd_steps_epsilon(noise_multiplier, pairs, delta)
