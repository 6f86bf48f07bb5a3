r"""Audit set-ups of every release in the book (:mod:`privrl.core.audit`), each with a weakened variant.

One function per release, ``audit_<release>(size="quick"|"paper", seed=0, weakened=False) ->
AuditResult``. Each runs the library's own release code end to end on a neighbouring pair chosen
where the analysis says the worst case is, under the release's own neighbouring relation. The
weakened variant breaks the guarantee on purpose (noise halved, clip removed, budget doubled or the
restriction of the analysis dropped, stated in :data:`WEAKENINGS`) and still *claims* the
original epsilon: an audit with power finds a lower bound above it.

Releases audited (claimed epsilon in brackets is computed by the library's own accountant):

* ``gaussian``: the Gaussian mechanism (``privrl.core.mechanisms.gaussian``), reference;
* ``dp_lsw``, ``dp_lsl``: Balle et al. 2016, Algorithms 1-2, from trajectories to the released
  parameter (first-visit returns, LSW/LSL solve, smooth-sensitivity noise), replace-one trajectory;
* ``gpope``: Xie et al. 2019, Algorithm 1, the released parameter after ``T`` noisy clipped
  primal-dual steps on ``n`` trajectories, replace-one trajectory (RDP accountant of
  ``privrl.core.accounting.subsampled``);
* ``gp_update``: Wang and Hegde 2019, one functional-noise release (Proposition 4, the mechanism
  Theorem 5 composes): a function plus an Ornstein-Uhlenbeck sample path read at a grid of states;
  ``input_perturbation``, ``dpsgd_step``: two of its baselines (reward noise with l2 sensitivity
  sqrt(T); one DP-SGD step of ``functional_q.dpsgd_gradient`` with a canary sample). End-to-end
  training runs of Algorithm 1 are too slow to repeat ``10^4`` times and are not audited;
* ``pgc_laplace``, ``pgc_bit_flip``, ``pgc_prs``: Ono and Takahashi 2020, one report of each local
  randomiser at the per-report epsilon of a multi-round run (``epsilon / rounds``), with the exact
  worst-case log-likelihood ratio;
* ``dirichlet``: Gohari et al. 2021, one teacher release ``Dir_k(f(X))`` for two observations
  whose teacher outputs are ``L b`` apart at the worst-case vertex of the eta-restricted simplex
  (Theorem 1).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import torch

from privrl.chapter.profile import ExperimentResult, Profile
from privrl.chapter.report import Report
from privrl.core import audit as au
from privrl.core.accounting import dirichlet as dir_acc
from privrl.core.accounting import functional_noise as fn
from privrl.core.accounting.gaussian import gaussian_epsilon
from privrl.core.accounting.local import per_round_epsilon
from privrl.core.accounting.subsampled import gpope_epsilon
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.algorithms.functional_q import dpsgd_gradient
from privrl.core.algorithms.gtd import SaddlePointStats, gpope
from privrl.core.algorithms.lstd import FeatureTransitions
from privrl.core.mechanisms import local, smooth_sensitivity
from privrl.core.mechanisms.dirichlet import dirichlet_log_density, dirichlet_mechanism
from privrl.core.mechanisms.gaussian import gaussian_mechanism
from privrl.core.mechanisms.gaussian_process import OUSamplePath, ou_kernel
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_choice

#: Runs per input and per half (selection, evaluation) of each audit: quick and paper size.
SIZES: dict[str, dict[str, int]] = {
    "quick": {"large": 500_000, "fast": 50_000, "slow": 20_000},
    "paper": {"large": 2_000_000, "fast": 1_000_000, "slow": 100_000},
}

#: How each weakened variant breaks its release.
WEAKENINGS: dict[str, str] = {
    "gaussian": "noise standard deviation halved",
    "dp_lsw": "noise std set to the pair's shift of the estimate (multiplier about 1/35)",
    "dp_lsl": "noise std set to the pair's shift of the estimate (multiplier about 1/350)",
    "gpope": "gradient clip removed (clip norm 10^6, same noise standard deviation)",
    "gp_update": "noise scale sigma divided by 3 (halved: exact epsilon 1.43, too close to the claim)",
    "input_perturbation": "noise standard deviation halved",
    "dpsgd_step": "noise multiplier halved",
    "pgc_laplace": "L1 clip removed (eq. 19 skipped)",
    "pgc_bit_flip": "per-report budget doubled",
    "pgc_prs": "per-report budget doubled",
    "dirichlet": "eta restriction dropped (teacher outputs on the unrestricted simplex)",
}

EPSILON = 1.0
DELTA = 1e-5
ROUNDS = 2  # PGC-A3C multi-round run: each report is epsilon / rounds LDP


def _n(size: str, kind: str = "fast") -> int:
    check_choice(size, "size", tuple(SIZES))
    return SIZES[size][kind]


def _run(name: str, release, x, xp, claimed, delta, size, seed, weakened, **kw) -> au.AuditResult:
    label = f"{name} ({WEAKENINGS[name]})" if weakened else name
    return au.audit_release(
        release, x, xp, claimed_epsilon=claimed, delta=delta, rng=seed, name=label, **kw
    )


# --------------------------------------------------------------------------- Gaussian (reference)
def audit_gaussian(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """Gaussian mechanism, sensitivity 1, analytic calibration at (1, 1e-5); inputs 0 and 1."""
    sens = 0.5 if weakened else 1.0  # halving the sensitivity passed halves sigma

    def release(value, n, rng):
        return gaussian_mechanism(np.full((n, 1), value), sens, EPSILON, DELTA, rng)

    return _run("gaussian", release, 0.0, 1.0, EPSILON, DELTA, size, seed, weakened,
                n_samples=_n(size, "large"), score="linear")


# --------------------------------------------------------------------------- Balle et al. 2016
def _one_step_trajectories(rewards: np.ndarray) -> Trajectories:
    """m one-transition trajectories 0 -> 1 (terminal) with the given rewards."""
    m = len(rewards)
    return Trajectories(
        observations=np.tile([0, 1], (m, 1)),
        actions=np.zeros((m, 1), dtype=int),
        rewards=np.asarray(rewards, float)[:, None],
        lengths=np.ones(m, dtype=int),
        terminated=np.ones(m, dtype=bool),
    )


_LS_M, _LS_PHI, _LS_RHO, _LS_GAMMA, _LS_FMAX = 10, np.eye(2), np.array([0.5, 0.5]), 0.9, 1.0


def _ls_pair() -> tuple[Trajectories, Trajectories]:
    """Worst case for the first-visit mean of state 0: one return moves from 0 to F_max."""
    rewards = np.zeros(_LS_M)
    changed = rewards.copy()
    changed[0] = _LS_FMAX
    return _one_step_trajectories(rewards), _one_step_trajectories(changed)


class BatchedNormal:
    """Stands in for a numpy Generator inside a release that draws its noise with one ``normal``
    call: every draw of shape ``s`` comes back with shape ``(n, *s)``, so one run of the release
    code returns ``n`` independent releases (everything else is computed once, as it is
    deterministic)."""

    def __init__(self, gen: np.random.Generator, n: int) -> None:
        self.gen, self.n = gen, n

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = ()) -> np.ndarray:
        return self.gen.normal(loc, scale, size=(self.n, *np.atleast_1d(size).astype(int)))


@contextmanager
def _batched_smooth_release():
    """Within the block, ``smooth_gaussian_release`` accepts a :class:`BatchedNormal` as rng."""
    with mock.patch.object(smooth_sensitivity, "as_generator", lambda rng: rng):
        yield


def _ls_release(estimator: Callable[..., mc.PrivateEstimate], multiplier: float, **kw):
    def release(traj, n, rng):
        fv = mc.first_visit_returns(traj, 2, _LS_GAMMA)
        with _batched_smooth_release():
            return estimator(fv, _LS_PHI, _LS_RHO, epsilon=EPSILON, delta=DELTA,
                             return_bound=_LS_FMAX, rng=BatchedNormal(rng, n),
                             noise_multiplier=multiplier, **kw).theta

    return release


def _ls_audit(name, estimator, size, seed, weakened, **kw) -> au.AuditResult:
    x, xp = _ls_pair()
    multiplier = 1.0
    if weakened:  # noise standard deviation = the pair's actual shift of the estimate
        fx, fxp = (mc.first_visit_returns(t, 2, _LS_GAMMA) for t in (x, xp))
        est = estimator(fx, _LS_PHI, _LS_RHO, epsilon=EPSILON, delta=DELTA,
                        return_bound=_LS_FMAX, rng=0, **kw)
        shift = np.linalg.norm(est.theta_nonprivate - estimator(
            fxp, _LS_PHI, _LS_RHO, epsilon=EPSILON, delta=DELTA, return_bound=_LS_FMAX, rng=0,
            **kw).theta_nonprivate)
        multiplier = float(shift / est.sigma)
    return _run(name, _ls_release(estimator, multiplier, **kw), x, xp, EPSILON, DELTA, size, seed,
                weakened, n_samples=_n(size), score="linear")


def audit_dp_lsw(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """DP-LSW end to end on 10 one-step trajectories, one return replaced (0 -> F_max = 1)."""
    return _ls_audit("dp_lsw", mc.dp_lsw, size, seed, weakened)


def audit_dp_lsl(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """DP-LSL end to end (lambda from the authors' schedule, c = 1), same pair as DP-LSW."""
    lam = mc.lsl_regularization(_LS_PHI, _LS_RHO, _LS_M, 1.0)
    return _ls_audit("dp_lsl", mc.dp_lsl, size, seed, weakened, lam=lam)


# --------------------------------------------------------------------------- Xie et al. 2019
_GP_N, _GP_T, _GP_Z, _GP_CLIP, _GP_STEP, _GP_REWARD = 2, 2, 2.0, 1.0, 0.5, 100.0


def _gpope_stats(reward0: float) -> SaddlePointStats:
    phi = np.zeros((_GP_N, 2, 2))
    phi[:, 0, 0] = 1.0
    phi[:, 1, 1] = 1.0
    rewards = np.zeros((_GP_N, 1))
    rewards[0, 0] = reward0
    return SaddlePointStats.from_features(FeatureTransitions(
        phi, rewards, np.ones(_GP_N, dtype=int), np.ones(_GP_N, dtype=bool), 0.9
    ))


def audit_gpope(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """GPOPE's released theta after T = 2 steps on n = 2 trajectories (z = 2, G = 1); the
    neighbour replaces a reward-0 trajectory by one with reward 100 (clipped unless weakened)."""
    clip = 1e6 if weakened else _GP_CLIP
    z = _GP_Z * _GP_CLIP / clip  # the same noise std 2 G z in both variants
    claimed = gpope_epsilon(_GP_Z, _GP_N, _GP_T, DELTA)

    def release(stats, n, rng):
        return gpope(stats, _GP_T, _GP_STEP, clip, z, rng, n_trials=n).theta

    return _run("gpope", release, _gpope_stats(0.0), _gpope_stats(_GP_REWARD), claimed, DELTA,
                size, seed, weakened, n_samples=_n(size), score="linear")


# --------------------------------------------------------------------------- Wang and Hegde 2019
_OU_BETA, _OU_GRID = 1.0, np.linspace(0.0, 1.0, 9)


def audit_gp_update(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    r"""One Gaussian-process release (Proposition 4) at (0.9, 1e-5): ``f`` vs ``f + c`` with
    :math:`\|c\|_{\mathcal H} = 1`, read on 9 states; exact log-likelihood ratio as the score and
    the exact epsilon of the Gaussian shift (``c^T K^{-1} c = 1.499`` on this grid, so the pair is
    the worst case up to the grid). The paper size draws every release through ``OUSamplePath``
    (the sampler ``train_dqn`` uses, 0.5 ms a path); the quick size draws the same Gaussian vector
    from the Cholesky factor of ``ou_kernel`` in one batch."""
    eps = 0.9
    c = 1.0 / math.sqrt(_OU_BETA / 2.0 + 1.0)  # ||c||_H^2 = c^2 (beta/2 + 1) (Lemma 6)
    sigma = math.sqrt(2.0 * math.log(1.25 / DELTA)) / eps  # Proposition 4, ||f - f'||_H = 1
    used = sigma / 3 if weakened else sigma
    cov = ou_kernel(_OU_GRID, _OU_GRID, _OU_BETA, used)
    direction = np.linalg.solve(cov, np.full(len(_OU_GRID), c))
    factor = np.linalg.cholesky(cov)

    def release(shift, n, rng):
        if size == "paper":
            return np.stack([shift + OUSamplePath(_OU_BETA, used, rng)(_OU_GRID) for _ in range(n)])
        return shift + rng.standard_normal((n, len(_OU_GRID))) @ factor.T

    def log_ratio(y: np.ndarray) -> np.ndarray:
        """exact log-likelihood ratio (Gaussian process, known covariance)"""
        return y @ direction

    return _run("gp_update", release, 0.0, c, eps, DELTA, size, seed, weakened,
                n_samples=_n(size, "slow" if size == "paper" else "large"), score=log_ratio,
                exact_epsilon=gaussian_epsilon(used, DELTA, 1.0), batch_size=10_000)


def audit_input_perturbation(
    size: str = "quick", seed: int = 0, weakened: bool = False
) -> au.AuditResult:
    """Reward noise of the input-perturbation baseline on T = 10 rewards that all change by 1."""
    T = 10
    sigma = fn.input_perturbation_sigma(EPSILON, DELTA, T)
    used = sigma / 2 if weakened else sigma

    def release(rewards, n, rng):
        return rewards + used * rng.standard_normal((n, T))

    return _run("input_perturbation", release, np.zeros(T), np.ones(T), EPSILON, DELTA, size,
                seed, weakened, n_samples=_n(size, "large"), score="linear",
                exact_epsilon=gaussian_epsilon(used, DELTA, math.sqrt(T)), batch_size=50_000)


@contextmanager
def _batched_torch_noise(n: int, gen: torch.Generator):
    """Within the block, ``torch.randn(shape)`` returns shape ``(n, *shape)`` (n releases in one
    run of the release code, cf. :class:`BatchedNormal`)."""
    randn = torch.randn
    with mock.patch.object(torch, "randn", lambda shape, generator=None: randn((n, *shape),
                                                                              generator=gen)):
        yield


def audit_dpsgd_step(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One DP-SGD step (``dpsgd_gradient``, clip 1, full batch of 4) with and without a canary
    sample whose gradient is 10 (clipped to 1); add/remove, RDP accountant."""
    z = fn.dpsgd_noise_multiplier(EPSILON, DELTA, 1.0, 1)
    used = z / 2 if weakened else z
    claimed = fn.dpsgd_epsilon(z, 1.0, 1, DELTA)

    def release(grads, n, rng):
        gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        with _batched_torch_noise(n, gen):
            return dpsgd_gradient([grads], 1.0, used, 4, gen)[0].numpy()

    base = torch.zeros((3, 1))
    canary = torch.cat([base, torch.full((1, 1), 10.0)])
    return _run("dpsgd_step", release, base, canary, claimed, DELTA, size, seed, weakened,
                n_samples=_n(size, "large"), score="linear", exact_epsilon=gaussian_epsilon(used, DELTA))


# --------------------------------------------------------------------------- Ono and Takahashi 2020
_PGC_EPS, _PGC_CLIP, _PGC_D = 2.0, 1.0, 3


@contextmanager
def _without_l1_clip():
    """Within the block, ``local.clip_l1`` returns its input (the weakening of ``pgc_laplace``)."""
    with mock.patch.object(local, "clip_l1", lambda g, bound: local._as_batch(g)):
        yield


def pgc_laplace_exact_epsilon(g: np.ndarray, g_prime: np.ndarray, epsilon: float, clip: float,
                              clipped: bool = True) -> float:
    """Worst-case log-likelihood ratio of Algorithm 2 for the two inputs:
    ``epsilon ||gbar - gbar'||_1 / clip`` (attained by outputs beyond both inputs)."""
    a, b = (local.clip_l1(v, clip / 2) if clipped else np.atleast_2d(v) for v in (g, g_prime))
    return float(epsilon * np.abs(a - b).sum() / clip)


def audit_pgc_laplace(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One Laplace report (Algorithm 2) at epsilon / rounds; inputs +-C e_1 (L1 norm C, clipped to
    C/2, so the clipped inputs are C apart: the worst case of eq. 20)."""
    eps = per_round_epsilon(_PGC_EPS, ROUNDS)
    g = np.zeros(_PGC_D)
    g[0] = _PGC_CLIP
    scale = _PGC_CLIP / eps

    def release(grad, n, rng):
        batch = np.tile(grad, (n, 1))
        if weakened:
            with _without_l1_clip():
                return local.laplace_gradient_mechanism(batch, eps, _PGC_CLIP, rng)
        return local.laplace_gradient_mechanism(batch, eps, _PGC_CLIP, rng)

    centre = g if weakened else local.clip_l1(g, _PGC_CLIP / 2)[0]

    def log_ratio(y: np.ndarray) -> np.ndarray:
        """exact log-likelihood ratio of the first coordinate (Laplace densities)"""
        return (np.abs(y[:, 0] + centre[0]) - np.abs(y[:, 0] - centre[0])) / scale

    exact = pgc_laplace_exact_epsilon(g, -g, eps, _PGC_CLIP, clipped=not weakened)
    return _run("pgc_laplace", release, g, -g, eps, 0.0, size, seed, weakened,
                n_samples=_n(size), score=log_ratio, exact_epsilon=exact)


def bit_flip_exact_epsilon(epsilon: float) -> float:
    """Worst-case log-likelihood ratio of eq. (4): ``P(+1 | x = 1) / P(+1 | x = -1)``."""
    p = local.bit_flip_probability(np.array([1.0, -1.0]), epsilon)
    return float(np.log(p[0] / p[1]))


def audit_pgc_bit_flip(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One bit-flip report (eq. 4) at epsilon / rounds for x = +1 vs x = -1."""
    eps = per_round_epsilon(_PGC_EPS, ROUNDS)
    used = 2 * eps if weakened else eps

    def release(x, n, rng):
        return local.bit_flip(np.full((n, 1), x), used, rng)

    return _run("pgc_bit_flip", release, 1.0, -1.0, eps, 0.0, size, seed, weakened,
                n_samples=_n(size), score=lambda y: -y[:, 0],
                exact_epsilon=bit_flip_exact_epsilon(used))


def prs_exact_epsilon(epsilon: float, d_hat: int, clip: float) -> float:
    """Worst-case log-likelihood ratio of PRS: ``d_hat`` signs, each at most
    ``P(+C | u_bar = C) / P(+C | u_bar = -C)`` (corrected eq. 24)."""
    p = local.sign_probability(np.array([clip, -clip]), epsilon, d_hat, clip)
    return float(d_hat * np.log(p[0] / p[1]))


def audit_pgc_prs(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One PRS report (Algorithm 3, d = 3, d_hat = 1) at epsilon / rounds; inputs +-10 e_1 (clipped
    projections at +-C wherever the projection row hits coordinate 1)."""
    eps = per_round_epsilon(_PGC_EPS, ROUNDS)
    used = 2 * eps if weakened else eps
    g = np.zeros(_PGC_D)
    g[0] = 10.0

    def release(grad, n, rng):
        return local.projected_random_sign(np.tile(grad, (n, 1)), used, _PGC_CLIP, rng, d_hat=1)

    return _run("pgc_prs", release, -g, g, eps, 0.0, size, seed, weakened,
                n_samples=_n(size), score=lambda y: y[:, 0],
                exact_epsilon=prs_exact_epsilon(used, 1, _PGC_CLIP))


# --------------------------------------------------------------------------- Gohari et al. 2021
_DIR_K, _DIR_M, _DIR_ETA, _DIR_TAU, _DIR_EPS, _DIR_ETA_WEAK = 5.0, 2, 0.1, 4.8e-4, 4.46, 1e-3


def audit_dirichlet(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One teacher release ``Dir_k(pi)``: pi at the vertex of the eta-restricted simplex, pi' at
    2-norm distance L b towards the centre (L b from Theorem 1 at epsilon 4.46); exact
    log-likelihood ratio (eq. 18) as the score. Weakened: the same distance from a vertex with
    eta = 1e-3 while the claim keeps eta = 0.1."""
    lb = dir_acc.lipschitz_b_for_epsilon(_DIR_EPS, _DIR_K, _DIR_M, _DIR_ETA, _DIR_TAU)
    claimed = dir_acc.theorem1_epsilon(_DIR_K, _DIR_M, _DIR_ETA, _DIR_TAU, lb, 1.0)
    delta = dir_acc.theorem1_delta_integral(_DIR_K, _DIR_M, _DIR_ETA, _DIR_TAU)
    eta = _DIR_ETA_WEAK if weakened else _DIR_ETA
    pi = dir_acc.vertex_policy(_DIR_M, eta)
    step = lb / math.sqrt(2.0)  # moving mass t between the two actions moves pi by sqrt(2) t
    pi_prime = pi + np.array([step, -step])

    def release(policy, n, rng):
        return dirichlet_mechanism(np.tile(policy, (n, 1)), _DIR_K, rng,
                                   eta=None if weakened else _DIR_ETA)

    def log_ratio(x: np.ndarray) -> np.ndarray:
        """exact log-likelihood ratio of the two Dirichlet densities (eq. 18)"""
        x = np.clip(x, 1e-300, None)
        x = x / x.sum(axis=1, keepdims=True)
        return dirichlet_log_density(x, pi_prime, _DIR_K) - dirichlet_log_density(x, pi, _DIR_K)

    return _run("dirichlet", release, pi, pi_prime, claimed, delta, size, seed, weakened,
                n_samples=_n(size), score=log_ratio)


#: The audits of each chapter's releases: a chapter's ledger entry for such a release names its
#: audit as ``LedgerEntry(audit="audits:<name>")`` (issue 11, item 6).
LEDGER_LINKS: dict[str, tuple[str, ...]] = {
    "balle2016": ("dp_lsw", "dp_lsl"),
    "xie2019": ("gpope",),
    "wang2019": ("gp_update", "input_perturbation", "dpsgd_step"),
    "ono2020": ("pgc_laplace", "pgc_bit_flip", "pgc_prs"),
    "gohari2021": ("dirichlet",),
}

AUDITS: dict[str, Callable[..., au.AuditResult]] = {
    "gaussian": audit_gaussian,
    "dp_lsw": audit_dp_lsw,
    "dp_lsl": audit_dp_lsl,
    "gpope": audit_gpope,
    "gp_update": audit_gp_update,
    "input_perturbation": audit_input_perturbation,
    "dpsgd_step": audit_dpsgd_step,
    "pgc_laplace": audit_pgc_laplace,
    "pgc_bit_flip": audit_pgc_bit_flip,
    "pgc_prs": audit_pgc_prs,
    "dirichlet": audit_dirichlet,
}


def run_audits(size: str = "quick", seed: int = 0, names: list[str] | None = None) -> pd.DataFrame:
    """Every audit and its weakened variant: one row per release."""
    rows: list[dict[str, Any]] = []
    for i, name in enumerate(names or list(AUDITS)):
        base = AUDITS[name](size, seed + 2 * i)
        weak = AUDITS[name](size, seed + 2 * i + 1, weakened=True)
        rows.append(
            dict(
                release=name,
                claimed_epsilon=base.claimed_epsilon,
                delta=base.delta,
                epsilon_lower=base.epsilon_lower,
                epsilon_estimate=base.epsilon_estimate,
                epsilon_upper=base.epsilon_upper,
                exact_epsilon=base.exact_epsilon,
                n_samples=base.n_samples,
                statistic=base.statistic,
                weakening=WEAKENINGS[name],
                weakened_lower=weak.epsilon_lower,
                weakened_upper=weak.epsilon_upper,
                weakened_exact_epsilon=weak.exact_epsilon,
            )
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- chapter
@dataclass(frozen=True)
class AuditsProfile(Profile):
    """The Audits chapter: ``releases`` to audit (empty = all of :data:`AUDITS`). The profile
    sets the sample sizes (:data:`SIZES`)."""

    releases: tuple[str, ...] = ()

    def validate(self) -> None:
        unknown = sorted(set(self.releases) - set(AUDITS))
        if unknown:
            raise ValueError(f"releases: unknown {unknown}; known: {sorted(AUDITS)}")


def run(profile: AuditsProfile) -> ExperimentResult:
    """Run every audit and its weakened variant; record one check per claim and per weakening."""
    if not isinstance(profile, AuditsProfile):
        raise ValueError("profile must be an AuditsProfile (AuditsProfile.quick() or .paper())")
    started = time.perf_counter()
    table = run_audits(profile.profile, profile.seed, list(profile.releases) or None)
    report = Report("audits", profile.profile, seed=profile.seed, config=profile.as_dict())
    for row in table.itertuples():
        report.check(
            f"{row.release}_lower", f"{row.release}: audited lower bound at most the claimed epsilon",
            row.epsilon_lower, at_most=row.claimed_epsilon,
        )
        report.check(
            f"{row.release}_weakened", f"{row.release} with {row.weakening}: audited lower bound "
            "above the claimed epsilon (the audit has power)", row.weakened_lower,
            above=row.claimed_epsilon,
        )
        if not math.isnan(row.exact_epsilon):
            report.check(
                f"{row.release}_exact", f"{row.release}: audited lower bound at most the exact "
                "epsilon of the pair", row.epsilon_lower, at_most=row.exact_epsilon + 1e-9,
            )
    report.glue("n_releases", len(table))
    report.glue("max_ratio", float((table.epsilon_lower / table.claimed_epsilon).max()))
    report.glue("min_weakened_ratio", float((table.weakened_lower / table.claimed_epsilon).min()))
    report.glue("seconds", round(time.perf_counter() - started, 1))
    return ExperimentResult(tables={"audits": table}, report=report)


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """The chapter's table: release, claim, audited lower bound (interval), weakened bound."""
    return pd.DataFrame(
        {
            "release": table.release,
            "claimed (epsilon, delta)": [
                f"({e:.3g}, {d:.2g})" for e, d in zip(table.claimed_epsilon, table.delta, strict=True)
            ],
            "audited lower bound (interval)": [
                f"{lo:.3f} ({lo:.3f}, {hi:.3f})"
                for lo, hi in zip(table.epsilon_lower, table.epsilon_upper, strict=True)
            ],
            "exact epsilon of the pair": table.exact_epsilon.map(
                lambda v: "" if math.isnan(v) else f"{v:.3f}"),
            "weakening": table.weakening,
            "weakened lower bound": table.weakened_lower.map(lambda v: f"{v:.3f}"),
            "runs per input": table.n_samples.map(lambda n: f"2 x {n:,}"),
        }
    )


def plot_audits(table: pd.DataFrame, ax) -> None:
    """Claimed epsilon, audited lower bound with its interval, and the weakened variant's bound,
    one row per release (epsilon on a log axis, capped at 20)."""
    y = np.arange(len(table))[::-1]
    cap = lambda v: np.clip(np.asarray(v, float), 0.01, 20.0)  # noqa: E731
    lo, hi = cap(table.epsilon_lower), cap(table.epsilon_upper)
    ax.errorbar(lo, y + 0.15, xerr=[np.zeros_like(lo), hi - lo], fmt="o", capsize=2,
                label="audited lower bound (to the interval's upper end)")
    ax.scatter(cap(table.claimed_epsilon), y, marker="|", s=200, color="k", label="claimed epsilon")
    ax.scatter(cap(table.weakened_lower), y - 0.15, marker="x", color="C3",
               label="weakened variant's lower bound")
    ax.set_yticks(y, table.release)
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (log scale; 0 shown at 0.01, values above 20 at 20)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8)


def recorded_table(recorded: dict[str, Any] | None) -> pd.DataFrame | None:
    """The recorded run's claimed epsilon, audited lower bound and weakened bound per release (from
    its checks), with its profile, commit and wall time; ``None`` if nothing was recorded."""
    if recorded is None:
        return None
    checks = {c["key"]: c for c in recorded["summary"]["checks"]}
    rows = [
        {
            "release": name,
            "claimed epsilon": round(checks[f"{name}_lower"]["bound"], 3),
            "audited lower bound": round(checks[f"{name}_lower"]["observed"], 3),
            "weakened lower bound": round(checks[f"{name}_weakened"]["observed"], 3),
        }
        for name in AUDITS
        if f"{name}_lower" in checks and f"{name}_weakened" in checks
    ]
    run = recorded["record"]
    frame = pd.DataFrame(rows)
    frame.attrs["provenance"] = (
        f"{run['profile']} profile, commit {run['git_commit']}, {run['finished_at'][:10]}, "
        f"{run['wall_time_s'] / 60:.1f} min on {run['cpus']} cores"
    )
    return frame
