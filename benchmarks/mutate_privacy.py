"""Privacy mutation testing (dev tool): does weakening a mechanism or a call site fail the tests?

Each mutation halves a noise scale, loosens a clip, doubles a budget share or drops a composition
factor, in a copy of the repository, one at a time, and runs ``pytest -m "not slow" -x`` on the
test files that cover the mutated code. A mutation that no test notices *survives*: a gap in the
test suite (issue 13).

Usage (from the repository root; long: nice it)::

    nice -n 10 python benchmarks/mutate_privacy.py [--only NAME ...] [--out mutations.csv]

Prints one line per mutation (killed/survived, seconds, the first failing test) and writes a CSV.
A mutation whose text no longer matches the code (the code moved) is reported as ``stale``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ONO = [
    "tests/core/test_local_mechanisms.py",
    "tests/core/test_a3c.py",
    "tests/papers/test_wiring_ono2020.py",
]
GOHARI = [
    "tests/core/test_dirichlet.py",
    "tests/core/test_kickstarting.py",
    "tests/papers/test_wiring_gohari2021.py",
]
WANG = [
    "tests/core/test_functional_noise.py",
    "tests/core/test_functional_q.py",
    "tests/core/test_gaussian_process.py",
    "tests/papers/test_wiring_wang2019.py",
]
BALLE = [
    "tests/core/test_monte_carlo.py",
    "tests/core/test_smooth_sensitivity.py",
    "tests/papers/test_wiring_balle2016.py",
    "tests/papers/test_release_equivalence.py",
]
XIE = [
    "tests/core/test_gtd.py",
    "tests/core/test_subsampled_accounting.py",
    "tests/papers/test_wiring_xie2019.py",
]
CORE = [
    "tests/core/test_mechanisms.py",
    "tests/core/test_gaussian_accounting.py",
    "tests/core/test_calibration_safety.py",
]
AUDIT = ["tests/core/test_audit.py"]
API = ["tests/api/test_releases.py", "tests/api/test_gaussian_audit.py"]
DG = ["tests/core/test_discrete_gaussian.py"]
GRID_GPOPE = ["tests/core/test_grid_gpope_accounting.py"]
DIRICHLET_CAL = ["tests/core/test_dirichlet_calibration.py"]
COMPOSE = ["tests/api/test_compose.py"]
SSP = ["tests/core/test_ssp_lstd.py", "tests/api/test_ssp_lstd_api.py"]
FRONTIER = ["tests/papers/test_frontier.py"]


@dataclass(frozen=True)
class Mutation:
    name: str
    kind: str  # noise halved / clip loosened / budget doubled / composition dropped
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


M = Mutation
MUTATIONS: list[Mutation] = [
    M(
        "gaussian_mechanism_noise",
        "noise halved",
        "privrl/core/mechanisms/gaussian.py",
        "normal(0.0, sigma, size=value.shape)",
        "normal(0.0, sigma / 2, size=value.shape)",
        (*CORE, *AUDIT),
    ),
    M(
        "analytic_sigma",
        "noise halved",
        "privrl/core/accounting/gaussian.py",
        "return sensitivity * sigma",
        "return 0.5 * sensitivity * sigma",
        (*CORE, *AUDIT),
    ),
    M(
        "laplace_mechanism_noise",
        "noise halved",
        "privrl/core/mechanisms/laplace.py",
        "laplace(0.0, scale, size=value.shape)",
        "laplace(0.0, scale / 2, size=value.shape)",
        tuple(CORE),
    ),
    M(
        "pgc_laplace_clip",
        "clip loosened",
        "privrl/core/mechanisms/local.py",
        "else clip_l1(g, clip / 2.0)",
        "else clip_l1(g, clip)",
        (*ONO, *AUDIT),
    ),
    M(
        "pgc_laplace_noise",
        "noise halved",
        "privrl/core/mechanisms/local.py",
        "return 0.0 if math.isinf(epsilon) else clip / epsilon\n",
        "return 0.0 if math.isinf(epsilon) else clip / epsilon / 2\n",
        (*ONO, *AUDIT),
    ),
    M(
        "bit_flip_budget",
        "budget doubled",
        "privrl/core/mechanisms/local.py",
        "    e = math.exp(epsilon)\n",
        "    e = math.exp(2 * epsilon)\n",
        (*ONO, *AUDIT),
    ),
    M(
        "prs_per_sign_budget",
        "composition dropped",
        "privrl/core/mechanisms/local.py",
        "bit_flip_probability(np.asarray(u_bar, dtype=float) / clip, epsilon / d_hat)",
        "bit_flip_probability(np.asarray(u_bar, dtype=float) / clip, epsilon)",
        (*ONO, *AUDIT),
    ),
    M(
        "prs_clip",
        "clip loosened",
        "privrl/core/mechanisms/local.py",
        "return np.clip(projection(matrix, g), -clip, clip)",
        "return np.clip(projection(matrix, g), -2 * clip, 2 * clip)",
        (*ONO, *AUDIT),
    ),
    M(
        "bit_flip_clamp",
        "clip loosened",
        "privrl/core/mechanisms/local.py",
        "    q = flip_floor(epsilon)\n",
        "    q = 0.0\n",
        (*ONO, *AUDIT),
    ),
    M(
        "sign_report_flip",
        "budget doubled",
        "privrl/api/local.py",
        "flip = loc.flip_floor(epsilon / d_hat)",
        "flip = loc.flip_floor(2 * epsilon / d_hat)",
        ("tests/core/test_local_mechanisms.py", *API),
    ),
    M(
        "release_epsilon",
        "budget doubled",
        "privrl/api/release.py",
        "epsilon = float(self.event.epsilon(self.delta))\n",
        "epsilon = float(self.event.epsilon(self.delta)) / 2\n",
        ("tests/api/test_compose.py", *API),
    ),
    M(
        "lsw_return_low",
        "clip loosened",
        "privrl/core/algorithms/monte_carlo.py",
        "if not -self.return_bound <= self.return_low <= 0.0:",
        "if False:",
        ("tests/core/test_monte_carlo_sensitivity.py", "tests/api/test_api_bad_input.py", *BALLE),
    ),
    M(
        "lsw_return_range",
        "clip loosened",
        "privrl/core/algorithms/monte_carlo.py",
        "if Fraction(high) - Fraction(low) > Fraction(self.return_bound):",
        "if False:",
        ("tests/core/test_monte_carlo_sensitivity.py", *BALLE),
    ),
    M(
        "per_round_epsilon",
        "composition dropped",
        "privrl/core/accounting/local.py",
        "else epsilon / rounds",
        "else epsilon",
        (*ONO, *AUDIT),
    ),
    M(
        "a3c_randomise_rounds",
        "composition dropped",
        "privrl/core/algorithms/a3c.py",
        "eps = per_round_epsilon(config.epsilon, config.rounds)",
        "eps = config.epsilon",
        tuple(ONO),
    ),
    M(
        "grid_sampler_scale",
        "noise halved",
        "privrl/core/mechanisms/discrete_laplace.py",
        "_sample(scale.numerator, scale.denominator, out, gen)",
        "_sample(scale.numerator, 2 * scale.denominator, out, gen)",
        ("tests/core/test_discrete_laplace.py", *ONO, *AUDIT),
    ),
    M(
        "grid_sampler_geometric",
        "noise halved",
        "privrl/core/mechanisms/discrete_laplace.py",
        "y = v * q + (u + r * v) // den",
        "y = (v * q + (u + r * v) // den) // 2",
        ("tests/core/test_discrete_laplace.py", *ONO, *AUDIT),
    ),
    M(
        "grid_inversion_scale",
        "noise halved",
        "privrl/core/mechanisms/discrete_laplace.py",
        "float(scale), _MARGIN,",
        "float(scale) / 2, _MARGIN,",
        ("tests/core/test_discrete_laplace_inversion.py", *ONO),
    ),
    M(
        "kickstarter_eta",
        "clip loosened",
        "privrl/core/algorithms/kickstarting.py",
        "return (1.0 - self.m * self.eta) * p + self.eta",
        "return p",
        tuple(GOHARI),
    ),
    M(
        "dirichlet_eta_check",
        "clip loosened",
        "privrl/core/mechanisms/dirichlet.py",
        "if np.any(pi < eta):",
        "if np.any(pi < -1.0):",
        (*GOHARI, *AUDIT),
    ),
    M(
        "theorem1_lipschitz_term",
        "composition dropped",
        "privrl/core/accounting/dirichlet.py",
        "return math.sqrt(m) * lb * k * math.log(1.0 / tau)",
        "return lb * k * math.log(1.0 / tau)",
        (*GOHARI, *AUDIT),
    ),
    M(
        "dpsgd_gradient_noise",
        "noise halved",
        "privrl/core/algorithms/functional_q.py",
        "noise = noise_multiplier * clip * torch.randn",
        "noise = 0.5 * noise_multiplier * clip * torch.randn",
        (*WANG, *AUDIT),
    ),
    M(
        "dpsgd_gradient_clip",
        "clip loosened",
        "privrl/core/algorithms/functional_q.py",
        "torch.clamp(clip / (torch.sqrt(sq) + 1e-12), max=1.0)",
        "torch.clamp(2 * clip / (torch.sqrt(sq) + 1e-12), max=2.0)",
        (*WANG, *AUDIT),
    ),
    M(
        "train_dqn_functional_sigma",
        "noise halved",
        "privrl/core/algorithms/functional_q.py",
        "FunctionalNoise(n_actions, privacy.gp_beta, privacy.gp_sigma, rng)",
        "FunctionalNoise(n_actions, privacy.gp_beta, privacy.gp_sigma / 2, rng)",
        tuple(WANG),
    ),
    M(
        "train_dqn_output_sigma",
        "noise halved",
        "privrl/core/algorithms/functional_q.py",
        "return p.output_std * self.rng.standard_normal",
        "return 0.5 * p.output_std * self.rng.standard_normal",
        tuple(WANG),
    ),
    M(
        "train_dqn_input_sigma",
        "noise halved",
        "privrl/core/algorithms/functional_q.py",
        "r[0] + (reward_std * gen.standard_normal()",
        "r[0] + (0.5 * reward_std * gen.standard_normal()",
        tuple(WANG),
    ),
    M(
        "train_dqn_dpsgd_sigma",
        "noise halved",
        "privrl/core/algorithms/functional_q.py",
        "                    dp_cfg.noise_multiplier,\n",
        "                    dp_cfg.noise_multiplier / 2,\n",
        tuple(WANG),
    ),
    M(
        "theorem5_steps",
        "composition dropped",
        "privrl/core/accounting/functional_noise.py",
        "math.sqrt(2.0 * n_updates * math.log(math.e + epsilon / delta)",
        "math.sqrt(2.0 * 1 * math.log(math.e + epsilon / delta)",
        tuple(WANG),
    ),
    M(
        "theorem5_delta_split",
        "budget doubled",
        "privrl/core/accounting/functional_noise.py",
        "approximation_delta(n_paths, k, beta, sigma) <= delta - d_gauss",
        "approximation_delta(n_paths, k, beta, sigma) <= delta",
        tuple(WANG),
    ),
    M(
        "output_perturbation_sigma",
        "noise halved",
        "privrl/core/accounting/functional_noise.py",
        "* update_scale(alpha, k, B) * L / eps0",
        "* update_scale(alpha, k, B) * L / eps0 / 2",
        tuple(WANG),
    ),
    M(
        "input_perturbation_sensitivity",
        "noise halved",
        "privrl/core/accounting/functional_noise.py",
        "sensitivity=math.sqrt(n_samples))",
        "sensitivity=math.sqrt(n_samples) / 2)",
        (*WANG, *AUDIT),
    ),
    M(
        "growing_memory_block_rate",
        "budget doubled",
        "privrl/core/accounting/functional_noise.py",
        "blocks.append((B / min(lo, replay_size), hi - lo))",
        "blocks.append((B / min(hi, replay_size), hi - lo))",
        tuple(WANG),
    ),
    M(
        "wang_table_input_epsilon",
        "budget doubled",
        "privrl/papers/wang2019/calibration.py",
        "reward_std = fn.input_perturbation_sigma(eps, delta, T)",
        "reward_std = fn.input_perturbation_sigma(2 * eps, delta, T)",
        tuple(WANG),
    ),
    M(
        "wang_union_bound_paths",
        "composition dropped",
        "privrl/papers/wang2019/calibration.py",
        "return p.episodes * FunctionalNoiseConfig(1.0).paths_per_draw",
        "return p.episodes",
        tuple(WANG),
    ),
    M(
        "smooth_alpha",
        "noise halved",
        "privrl/core/accounting/smooth_sensitivity.py",
        "return 5.0 * math.sqrt(2.0 * log_term) / epsilon",
        "return 2.5 * math.sqrt(2.0 * log_term) / epsilon",
        (*BALLE, *AUDIT),
    ),
    M(
        "dp_lsw_sigma",
        "noise halved",
        "privrl/core/algorithms/monte_carlo.py",
        "return float(alpha * budget.return_bound * pinv_norm",
        "return float(0.5 * alpha * budget.return_bound * pinv_norm",
        (*BALLE, *AUDIT),
    ),
    M(
        "dp_lsl_sigma",
        "noise halved",
        "privrl/core/algorithms/monte_carlo.py",
        "return float(factor * np.sqrt(lsl_smooth_bound(",
        "return float(0.5 * factor * np.sqrt(lsl_smooth_bound(",
        (*BALLE, *AUDIT),
    ),
    M(
        "dp_lsl_release",
        "noise halved",
        "privrl/core/algorithms/monte_carlo.py",
        "    sigma = dp_lsl_sigma(fv.counts, fv.m, Phi, r, lam, budget)\n",
        "    sigma = dp_lsl_sigma(fv.counts, fv.m, Phi, r, lam, budget) / 2\n",
        (*BALLE, *AUDIT),
    ),
    M(
        "balle_experiment_epsilon",
        "budget doubled",
        "privrl/papers/balle2016/runs.py",
        "priv = dp_lsl(fv, Phi, rho, lam, budget, noise)",
        (
            "priv = dp_lsl(fv, Phi, rho, lam, type(budget)(2 * budget.epsilon, budget.delta,"
            " budget.return_bound), noise)"
        ),
        tuple(BALLE),
    ),
    M(
        "gpope_noise_std",
        "noise halved",
        "privrl/core/algorithms/gtd.py",
        "std = (2.0 * clip_norm * z)",
        "std = (1.0 * clip_norm * z)",
        (*XIE, *AUDIT),
    ),
    M(
        "gpope_clip",
        "clip loosened",
        "privrl/core/algorithms/gtd.py",
        "g[over] *= (clip_norm / norms[over])[:, None]",
        "g[over] *= (2 * clip_norm / norms[over])[:, None]",
        (*XIE, *AUDIT),
    ),
    M(
        "gpope_iterations",
        "composition dropped",
        "privrl/core/accounting/subsampled.py",
        "GaussianDpEvent(z))\n    return dp_accounting.SelfComposedDpEvent(step, iterations)\n\n\ndef gpope_pld_supported",
        "GaussianDpEvent(z))\n    return dp_accounting.SelfComposedDpEvent(step, max(1, iterations // 2))"
        "\n\n\ndef gpope_pld_supported",
        (*XIE, *AUDIT),
    ),
    # privrl.api: the call sites of the public releases
    M(
        "api_gaussian_noise",
        "noise halved",
        "privrl/api/mechanisms.py",
        "noisy = noise.add(value, release_rng(rng))",
        "noisy = dg.GridGaussian(max(1, noise.m // 4), noise.t, noise.step).add(value, release_rng(rng))",
        tuple(API),
    ),
    M(
        "api_gaussian_epsilon",
        "budget doubled",
        "privrl/api/mechanisms.py",
        "z = required_noise_multiplier(epsilon, delta)",
        "z = required_noise_multiplier(2 * epsilon, delta)",
        tuple(API),
    ),
    M(
        "grid_gaussian_variance",
        "noise halved",
        "privrl/core/mechanisms/discrete_gaussian.py",
        "m = math.ceil(target**2 / t)",
        "m = math.ceil(target**2 / (4 * t))",
        (*DG, *API),
    ),
    M(
        "grid_gaussian_acceptance",
        "noise halved",
        "privrl/core/mechanisms/discrete_gaussian.py",
        "denominator = 2 * m * t",
        "denominator = max(1, m * t // 2)",
        (*DG, *API),
    ),
    M(
        "grid_gaussian_sensitivity",
        "noise halved",
        "privrl/core/accounting/discrete_gaussian.py",
        "grid = Fraction(sensitivity) / Fraction(step) + sqrt_d_up",
        "grid = Fraction(sensitivity) / Fraction(2 * step) + sqrt_d_up",
        (*DG, *API),
    ),
    M(
        "api_laplace_noise",
        "noise halved",
        "privrl/api/mechanisms.py",
        "dl.discrete_laplace_mechanism(row, sensitivity, epsilon, release_rng(rng), step)",
        "dl.discrete_laplace_mechanism(row, sensitivity, 2 * epsilon, release_rng(rng), step)",
        tuple(API),
    ),
    M(
        "grid_noise_for_multiplier",
        "noise halved",
        "privrl/core/mechanisms/discrete_gaussian.py",
        "cls.of_scale(Fraction(z) * Fraction(grid_l2_sensitivity(sensitivity, d, step)),",
        "cls.of_scale(Fraction(z) * Fraction(grid_l2_sensitivity(sensitivity, d, step)) / 2,",
        (*DG, *API),
    ),
    M(
        "api_gpope_n",
        "budget doubled",
        "privrl/api/evaluation.py",
        "calibrate_grid_noise_multiplier(epsilon, delta, n, iterations)",
        "calibrate_grid_noise_multiplier(epsilon, delta, 2 * n, iterations)",
        tuple(API),
    ),
    M(
        "gpope_grid_clip",
        "clip loosened",
        "privrl/core/algorithms/gtd.py",
        "return 2.0 * clip_norm * CLIP_MARGIN",
        "return 1.0 * clip_norm * CLIP_MARGIN",
        (*XIE, *API),
    ),
    M(
        "gpope_clip_margin",
        "clip loosened",
        "privrl/core/algorithms/gtd.py",
        "CLIP_MARGIN = 1.0 + 2.0**-30",
        "CLIP_MARGIN = 1.0",
        (*XIE, *API),
    ),
    M(
        "gpope_grid_noise",
        "noise halved",
        "privrl/core/algorithms/gtd.py",
        "g = grid.add(g, gen)",
        "g = GridGaussian(max(1, grid.m // 4), grid.t, grid.step).add(g, gen)",
        (*XIE, *GRID_GPOPE),
    ),
    M(
        "grid_gpope_sampling",
        "budget doubled",
        "privrl/core/accounting/subsampled.py",
        "higher = j * math.log(q)",
        "higher = (j + 1) * math.log(q)",
        (*GRID_GPOPE, *XIE),
    ),
    M(
        "api_dp_lsw_epsilon",
        "budget doubled",
        "privrl/api/evaluation.py",
        "        fv, phi, rho, noise.budget, release_rng(rng), strict=strict, exact=True",
        "        fv, phi, rho, noise.budget, release_rng(rng), noise_multiplier=0.5,"
        " strict=strict, exact=True",
        tuple(API),
    ),
    M(
        "api_dp_lsl_epsilon",
        "noise halved",
        "privrl/api/evaluation.py",
        "        fv, phi, rho, lam, noise.budget, release_rng(rng), strict=strict, exact=True",
        "        fv, phi, rho, lam, noise.budget, release_rng(rng), noise_multiplier=0.5,"
        " strict=strict, exact=True",
        tuple(API),
    ),
    M(
        "exact_gaussian_scale",
        "noise halved",
        "privrl/core/mechanisms/exact_gaussian.py",
        "    s_n, s_d = sigma.as_integer_ratio()",
        "    s_n, s_d = (sigma / 2).as_integer_ratio()",
        ("tests/core/test_exact_gaussian.py", *API),
    ),
    M(
        "grid_centre_clamp",
        "clip loosened",
        "privrl/core/mechanisms/discrete_laplace.py",
        "CENTRE_LIMIT = 2**52\n",
        "CENTRE_LIMIT = 2**54\n",
        ("tests/core/test_discrete_laplace.py",),
    ),
    M(
        "dirichlet_policy_projection",
        "clip loosened",
        "privrl/core/mechanisms/dirichlet.py",
        "    low = np.any(rows < eta, axis=1)\n",
        "    low = np.any(rows < eta / 2, axis=1)\n",
        ("tests/core/test_dirichlet.py", "tests/api/test_api_bad_input.py"),
    ),
    M(
        "api_laplace_report_noise",
        "noise halved",
        "privrl/api/local.py",
        "loc.laplace_gradient_mechanism(g, epsilon, clip, release_rng(rng), step=step)",
        "loc.laplace_gradient_mechanism(g, 2 * epsilon, clip, release_rng(rng), step=step)",
        tuple(API),
    ),
    M(
        "api_sign_report_budget",
        "budget doubled",
        "privrl/api/local.py",
        "loc.projected_random_sign(g, epsilon, clip, gen, matrix=matrix)",
        "loc.projected_random_sign(g, 2 * epsilon, clip, gen, matrix=matrix)",
        tuple(API),
    ),
    M(
        "api_functional_noise",
        "noise halved",
        "privrl/api/control.py",
        "privacy = fq.FunctionalNoiseConfig(noise.sigma, noise.beta)",
        "privacy = fq.FunctionalNoiseConfig(noise.sigma / 2, noise.beta)",
        tuple(API),
    ),
    M(
        "api_dirichlet_k",
        "noise halved",
        "privrl/api/control.py",
        "value = dirichlet_mechanism(rows, ks, release_rng(rng), eta=eta)",
        "value = dirichlet_mechanism(rows, 4 * ks, release_rng(rng), eta=eta)",
        tuple(API),
    ),
    M(
        "api_dirichlet_target",
        "budget doubled",
        "privrl/api/control.py",
        "dcal.per_query_target(epsilon, delta, n, composition, delta_slack)",
        "dcal.per_query_target(2 * epsilon, delta, n, composition, delta_slack)",
        tuple(API),
    ),
    M(
        "dirichlet_calibrated_k",
        "noise halved",
        "privrl/core/accounting/dirichlet_calibration.py",
        "    return k, tau",
        "    return 2 * k, tau",
        (*DIRICHLET_CAL, *API),
    ),
    M(
        "dirichlet_basic_share",
        "budget doubled",
        "privrl/core/accounting/dirichlet_calibration.py",
        "return epsilon / n * _SHAVE, delta / n * _SHAVE",
        "return 2 * epsilon / n * _SHAVE, delta / n * _SHAVE",
        (*DIRICHLET_CAL, *API),
    ),
    M(
        "dirichlet_advanced_share",
        "budget doubled",
        "privrl/core/accounting/dirichlet_calibration.py",
        "advanced_composition(e, delta0, n, delta_slack)[0] <= epsilon,",
        "advanced_composition(e, delta0, n, delta_slack)[0] <= 2 * epsilon,",
        (*DIRICHLET_CAL, *API),
    ),
    M(
        "compose_basic_sum",
        "composition dropped",
        "privrl/core/accounting/composed.py",
        "return math.fsum(e.epsilon(d) for e, d in zip(self.events, self.deltas, strict=True))",
        "return max(e.epsilon(d) for e, d in zip(self.events, self.deltas, strict=True))",
        tuple(COMPOSE),
    ),
    M(
        "compose_renyi_events",
        "composition dropped",
        "privrl/core/accounting/composed.py",
        "ComposedDpEvent([e.dp_event for e in events])",
        "ComposedDpEvent([e.dp_event for e in events[:1]])",
        tuple(COMPOSE),
    ),
    M(
        "teacher_budget_mean",
        "composition dropped",
        "privrl/core/accounting/dirichlet.py",
        "e_max, d_max = float(eps[used].max()), float(dlt[used].max())",
        "e_max, d_max = float(eps[used].mean()), float(dlt[used].max())",
        (*API, *GOHARI),
    ),
    M(
        "ssp_lstd_noise",
        "noise halved",
        "privrl/core/algorithms/ssp_lstd.py",
        "return noise.add(np.asarray(grid).astype(float) * noise.step, rng)",
        "return GridGaussian(max(1, noise.m // 4), noise.t, noise.step).add("
        "np.asarray(grid).astype(float) * noise.step, rng)",
        tuple(SSP),
    ),
    M(
        "ssp_lstd_sensitivity",
        "noise halved",
        "privrl/core/algorithms/ssp_lstd.py",
        "return 2.0 * big_l * f * math.hypot(f * (1.0 + g), r)",
        "return 1.0 * big_l * f * math.hypot(f * (1.0 + g), r)",
        tuple(SSP),
    ),
    M(
        "ssp_lstd_feature_clip",
        "clip loosened",
        "privrl/core/algorithms/ssp_lstd.py",
        "over = norms > bound",
        "over = norms > 2 * bound",
        tuple(SSP),
    ),
    M(
        "api_ssp_lstd_noise",
        "noise halved",
        "privrl/api/evaluation.py",
        "est = ssp.ssp_lstd(data, bounds, noise, lam, release_rng(rng))",
        "est = ssp.ssp_lstd(data, bounds, GridGaussian(max(1, noise.m // 4), noise.t, noise.step),"
        " lam, release_rng(rng))",
        tuple(SSP),
    ),
    M(
        "api_ssp_lstd_epsilon",
        "budget doubled",
        "privrl/api/evaluation.py",
        "z = required_noise_multiplier(epsilon, delta)",
        "z = required_noise_multiplier(2 * epsilon, delta)",
        tuple(SSP),
    ),
    M(
        "frontier_ssp_noise",
        "budget doubled",
        "privrl/papers/frontier/trials.py",
        'ssp_lstd_noise(epsilon=eps, delta=config["delta"]',
        'ssp_lstd_noise(epsilon=2 * eps, delta=config["delta"]',
        tuple(FRONTIER),
    ),
    M(
        "frontier_ssp_bounds",
        "clip loosened",
        "privrl/papers/frontier/trials.py",
        'return ssp.SSPBounds(1.0, 1.0, int(config["max_steps"]), float(config["gamma"]))',
        'return ssp.SSPBounds(0.5, 1.0, int(config["max_steps"]), float(config["gamma"]))',
        tuple(FRONTIER),
    ),
    M(
        "xie_calibration_epsilon",
        "budget doubled",
        "privrl/papers/xie2019/privacy.py",
        "epsilon=self.target_epsilon,",
        "epsilon=2 * self.target_epsilon,",
        tuple(XIE),
    ),
]


def copy_repo(dest: Path) -> None:
    for name in ("privrl", "tests", "benchmarks", "book", "notebooks"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "_toc.yml", "_config.yml"):
        shutil.copy2(ROOT / name, dest / name)


def run_mutation(mut: Mutation, python: str) -> dict[str, str]:
    text = (ROOT / mut.path).read_text()
    count = text.count(mut.old)
    if count != 1:
        return dict(
            name=mut.name,
            kind=mut.kind,
            status="stale",
            seconds="0",
            detail=f"pattern found {count} times in {mut.path}",
        )
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        work = Path(tmp)
        copy_repo(work)
        (work / mut.path).write_text(text.replace(mut.old, mut.new))
        env = {**os.environ, "PYTHONPATH": str(work), "MPLBACKEND": "Agg"}
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                python,
                "-m",
                "pytest",
                "-q",
                "-x",
                "-m",
                "not slow",
                "-p",
                "no:cacheprovider",
                *mut.tests,
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - t0
    failed = re.findall(r"^FAILED (\S+)", proc.stdout, flags=re.M)
    status = "killed" if proc.returncode != 0 else "survived"
    if proc.returncode not in (0, 1):
        status, failed = "error", [proc.stdout.strip().splitlines()[-1:] or ["?"]][0]
    return dict(
        name=mut.name,
        kind=mut.kind,
        status=status,
        seconds=f"{seconds:.0f}",
        detail=failed[0] if failed else "",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="names of mutations to run")
    parser.add_argument("--out", default="mutations.csv")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--tests",
        nargs="*",
        default=None,
        help="run these test files for every mutation instead of its own list",
    )
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if args.only is None or m.name in args.only]
    if args.tests:
        chosen = [dataclasses.replace(m, tests=tuple(args.tests)) for m in chosen]
    rows = []
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["name", "kind", "status", "seconds", "detail"])
        writer.writeheader()
        for mut in chosen:
            row = run_mutation(mut, args.python)
            rows.append(row)
            writer.writerow(row)
            fh.flush()
            print(
                f"{row['status']:9s} {row['name']:32s} {row['seconds']:>5s}s  {row['detail']}",
                flush=True,
            )
    by_status = {s: [r["name"] for r in rows if r["status"] == s] for s in ("survived", "stale")}
    killed = sum(r["status"] == "killed" for r in rows)
    print(
        f"{killed} of {len(rows)} mutations killed; survived: {by_status['survived']}; "
        f"stale (not applied, nothing tested): {by_status['stale']}"
    )
    if killed < len(rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
