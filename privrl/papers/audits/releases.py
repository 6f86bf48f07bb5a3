r"""One audit set-up per release of the book (:func:`privrl.core.audit.audit_release`), each with a
weakened variant.

One function per release, ``audit_<release>(size="quick"|"paper", seed=0, weakened=False) ->
AuditResult``. Each runs the library's own release code end to end on a neighbouring pair chosen
where the analysis says the worst case is, under the release's own neighbouring relation. The
weakened variant breaks the guarantee on purpose through an explicit parameter of the library
function (noise halved, clip removed, budget doubled or the restriction of the analysis dropped,
stated in :data:`WEAKENINGS`) and still *claims* the original epsilon: an audit with power finds a
lower bound above it.

Releases audited (claimed epsilon computed by the library's own accountant):

* ``gaussian``: the Gaussian mechanism (``privrl.core.mechanisms.gaussian``), reference;
* ``dp_lsw``, ``dp_lsl``: Balle et al. 2016, Algorithms 1-2, from trajectories to the released
  parameter (first-visit returns, LSW/LSL solve, smooth-sensitivity noise of Lemma 1),
  replace-one trajectory;
* ``gpope``: Xie et al. 2019, Algorithm 1, the released parameter after ``T`` noisy clipped
  primal-dual steps on ``n`` trajectories, replace-one trajectory (RDP accountant of
  ``privrl.core.accounting.subsampled``);
* ``gp_update``: Wang and Hegde 2019, one functional-noise release (Proposition 4, the mechanism
  Theorem 5 composes): a function plus an Ornstein-Uhlenbeck sample path read at a grid of states;
  ``input_perturbation``, ``dpsgd_step``: two of its baselines (reward noise with l2 sensitivity
  sqrt(T); one DP-SGD step of ``functional_q.dpsgd_gradient`` with a canary sample). End-to-end
  training runs of Algorithm 1 are too slow to repeat ``10^4`` times and are not audited;
* ``pgc_laplace``, ``pgc_bit_flip``, ``pgc_prs``: Ono and Takahashi 2020, one report of each local
  randomiser (Algorithm 2, eq. 4, Algorithm 3) at the per-report epsilon of a multi-round run
  (``epsilon / rounds``), with the exact worst-case log-likelihood ratio;
* ``dirichlet``: Gohari et al. 2021, one teacher release ``Dir_k(f(X))`` for two observations
  whose teacher outputs are ``L b`` apart at the worst-case vertex of the eta-restricted simplex
  (Theorem 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

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
from privrl.core.mechanisms import local
from privrl.core.mechanisms.dirichlet import dirichlet_log_density, dirichlet_mechanism
from privrl.core.mechanisms.gaussian import gaussian_mechanism
from privrl.core.mechanisms.gaussian_process import OUSamplePath, ou_kernel
from privrl.core.trajectories import Trajectories
from privrl.core.validation import check_choice

#: Runs per input and per half (selection, evaluation) of each audit, by profile name: ``large``
#: for releases drawn in one vectorised call, ``fast`` for the release code run in batches,
#: ``slow`` for a release drawn one run at a time.
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


def sample_size(size: str, kind: str = "fast") -> int:
    """Runs per input and per half of an audit of ``kind`` at ``size`` (:data:`SIZES`)."""
    check_choice(size, "size", tuple(SIZES))
    return SIZES[size][kind]


def _run(name: str, release: au.BatchRelease, x: Any, xp: Any, claimed: float, delta: float,
         seed: int, weakened: bool, **kw: Any) -> au.AuditResult:
    label = f"{name} ({WEAKENINGS[name]})" if weakened else name
    return au.audit_release(
        release, x, xp, claimed_epsilon=claimed, delta=delta, rng=seed, name=label, **kw
    )


# --------------------------------------------------------------------------- Gaussian (reference)
def audit_gaussian(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """Gaussian mechanism, sensitivity 1, analytic calibration at (1, 1e-5); inputs 0 and 1."""
    sens = 0.5 if weakened else 1.0  # halving the sensitivity passed halves sigma

    def release(value: float, n: int, rng: np.random.Generator) -> np.ndarray:
        return gaussian_mechanism(np.full((n, 1), value), sens, EPSILON, DELTA, rng)

    return _run("gaussian", release, 0.0, 1.0, EPSILON, DELTA, seed, weakened,
                n_samples=sample_size(size, "large"), score="linear")


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


def _ls_release(estimator: Callable[..., mc.PrivateEstimate], multiplier: float,
                **kw: Any) -> au.BatchRelease:
    """The estimator end to end; its smooth-sensitivity noise (Lemma 1) drawn for ``n`` releases
    at once through :class:`~privrl.core.audit.BatchedNormal`."""

    def release(traj: Trajectories, n: int, rng: np.random.Generator) -> np.ndarray:
        fv = mc.first_visit_returns(traj, 2, _LS_GAMMA)
        return estimator(fv, _LS_PHI, _LS_RHO, epsilon=EPSILON, delta=DELTA,
                         return_bound=_LS_FMAX, rng=au.BatchedNormal(rng, n),
                         noise_multiplier=multiplier, **kw).theta

    return release


def _ls_audit(name: str, estimator: Callable[..., mc.PrivateEstimate], size: str, seed: int,
              weakened: bool, **kw: Any) -> au.AuditResult:
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
    return _run(name, _ls_release(estimator, multiplier, **kw), x, xp, EPSILON, DELTA, seed,
                weakened, n_samples=sample_size(size), score="linear")


def audit_dp_lsw(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """DP-LSW (Algorithm 1) end to end on 10 one-step trajectories, one return replaced
    (0 -> F_max = 1)."""
    return _ls_audit("dp_lsw", mc.dp_lsw, size, seed, weakened)


def audit_dp_lsl(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """DP-LSL (Algorithm 2) end to end (lambda from the authors' schedule, c = 1), same pair as
    DP-LSW."""
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
    """GPOPE's (Algorithm 1) released theta after T = 2 steps on n = 2 trajectories (z = 2,
    G = 1); the neighbour replaces a reward-0 trajectory by one with reward 100 (clipped unless
    weakened)."""
    clip = 1e6 if weakened else _GP_CLIP
    z = _GP_Z * _GP_CLIP / clip  # the same noise std 2 G z in both variants
    claimed = gpope_epsilon(_GP_Z, _GP_N, _GP_T, DELTA)

    def release(stats: SaddlePointStats, n: int, rng: np.random.Generator) -> np.ndarray:
        return gpope(stats, _GP_T, _GP_STEP, clip, z, rng, n_trials=n).theta

    return _run("gpope", release, _gpope_stats(0.0), _gpope_stats(_GP_REWARD), claimed, DELTA,
                seed, weakened, n_samples=sample_size(size), score="linear")


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

    def release(shift: float, n: int, rng: np.random.Generator) -> np.ndarray:
        if size == "paper":
            return np.stack([shift + OUSamplePath(_OU_BETA, used, rng)(_OU_GRID) for _ in range(n)])
        return shift + rng.standard_normal((n, len(_OU_GRID))) @ factor.T

    def log_ratio(y: np.ndarray) -> np.ndarray:
        """exact log-likelihood ratio (Gaussian process, known covariance)"""
        return y @ direction

    kind = "slow" if size == "paper" else "large"
    return _run("gp_update", release, 0.0, c, eps, DELTA, seed, weakened,
                n_samples=sample_size(size, kind), score=log_ratio,
                exact_epsilon=gaussian_epsilon(used, DELTA, 1.0), batch_size=10_000)


def audit_input_perturbation(
    size: str = "quick", seed: int = 0, weakened: bool = False
) -> au.AuditResult:
    """Reward noise of the input-perturbation baseline on T = 10 rewards that all change by 1."""
    T = 10
    sigma = fn.input_perturbation_sigma(EPSILON, DELTA, T)
    used = sigma / 2 if weakened else sigma

    def release(rewards: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        return rewards + used * rng.standard_normal((n, T))

    return _run("input_perturbation", release, np.zeros(T), np.ones(T), EPSILON, DELTA, seed,
                weakened, n_samples=sample_size(size, "large"), score="linear",
                exact_epsilon=gaussian_epsilon(used, DELTA, math.sqrt(T)), batch_size=50_000)


def audit_dpsgd_step(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One DP-SGD step (``dpsgd_gradient``, clip 1, full batch of 4) with and without a canary
    sample whose gradient is 10 (clipped to 1); add/remove, RDP accountant. The step's noise is
    drawn for ``n`` releases at once (``n_releases``)."""
    z = fn.dpsgd_noise_multiplier(EPSILON, DELTA, 1.0, 1)
    used = z / 2 if weakened else z
    claimed = fn.dpsgd_epsilon(z, 1.0, 1, DELTA)

    def release(grads: torch.Tensor, n: int, rng: np.random.Generator) -> np.ndarray:
        gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        return dpsgd_gradient([grads], 1.0, used, 4, gen, n_releases=n)[0].numpy()

    base = torch.zeros((3, 1))
    canary = torch.cat([base, torch.full((1, 1), 10.0)])
    return _run("dpsgd_step", release, base, canary, claimed, DELTA, seed, weakened,
                n_samples=sample_size(size, "large"), score="linear",
                exact_epsilon=gaussian_epsilon(used, DELTA))


# --------------------------------------------------------------------------- Ono and Takahashi 2020
_PGC_EPS, _PGC_CLIP, _PGC_D = 2.0, 1.0, 3


def pgc_laplace_exact_epsilon(g: np.ndarray, g_prime: np.ndarray, epsilon: float, clip: float,
                              clipped: bool = True) -> float:
    """Worst-case log-likelihood ratio of Algorithm 2 for the two inputs:
    ``epsilon ||gbar - gbar'||_1 / clip`` (attained by outputs beyond both inputs)."""
    a, b = (local.clip_l1(v, clip / 2) if clipped else np.atleast_2d(v) for v in (g, g_prime))
    return float(epsilon * np.abs(a - b).sum() / clip)


def audit_pgc_laplace(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One Laplace report (Algorithm 2) at epsilon / rounds; inputs +-C e_1 (L1 norm C, clipped to
    C/2, so the clipped inputs are C apart: the worst case of eq. 20). Weakened: ``clipped=False``
    (eq. 19 skipped, same noise scale)."""
    eps = per_round_epsilon(_PGC_EPS, ROUNDS)
    g = np.zeros(_PGC_D)
    g[0] = _PGC_CLIP
    scale = _PGC_CLIP / eps

    def release(grad: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        return local.laplace_gradient_mechanism(np.tile(grad, (n, 1)), eps, _PGC_CLIP, rng,
                                                clipped=not weakened)

    centre = g if weakened else local.clip_l1(g, _PGC_CLIP / 2)[0]

    def log_ratio(y: np.ndarray) -> np.ndarray:
        """exact log-likelihood ratio of the first coordinate (Laplace densities)"""
        return (np.abs(y[:, 0] + centre[0]) - np.abs(y[:, 0] - centre[0])) / scale

    exact = pgc_laplace_exact_epsilon(g, -g, eps, _PGC_CLIP, clipped=not weakened)
    return _run("pgc_laplace", release, g, -g, eps, 0.0, seed, weakened,
                n_samples=sample_size(size), score=log_ratio, exact_epsilon=exact)


def bit_flip_exact_epsilon(epsilon: float) -> float:
    """Worst-case log-likelihood ratio of eq. (4): ``P(+1 | x = 1) / P(+1 | x = -1)``."""
    p = local.bit_flip_probability(np.array([1.0, -1.0]), epsilon)
    return float(np.log(p[0] / p[1]))


def audit_pgc_bit_flip(size: str = "quick", seed: int = 0, weakened: bool = False) -> au.AuditResult:
    """One bit-flip report (eq. 4) at epsilon / rounds for x = +1 vs x = -1."""
    eps = per_round_epsilon(_PGC_EPS, ROUNDS)
    used = 2 * eps if weakened else eps

    def release(x: float, n: int, rng: np.random.Generator) -> np.ndarray:
        return local.bit_flip(np.full((n, 1), x), used, rng)

    return _run("pgc_bit_flip", release, 1.0, -1.0, eps, 0.0, seed, weakened,
                n_samples=sample_size(size), score=lambda y: -y[:, 0],
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

    def release(grad: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        return local.projected_random_sign(np.tile(grad, (n, 1)), used, _PGC_CLIP, rng, d_hat=1)

    return _run("pgc_prs", release, -g, g, eps, 0.0, seed, weakened,
                n_samples=sample_size(size), score=lambda y: y[:, 0],
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

    def release(policy: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        return dirichlet_mechanism(np.tile(policy, (n, 1)), _DIR_K, rng,
                                   eta=None if weakened else _DIR_ETA)

    def log_ratio(x: np.ndarray) -> np.ndarray:
        """exact log-likelihood ratio of the two Dirichlet densities (eq. 18)"""
        x = np.clip(x, 1e-300, None)
        x = x / x.sum(axis=1, keepdims=True)
        return dirichlet_log_density(x, pi_prime, _DIR_K) - dirichlet_log_density(x, pi, _DIR_K)

    return _run("dirichlet", release, pi, pi_prime, claimed, delta, seed, weakened,
                n_samples=sample_size(size), score=log_ratio)


#: Every audit set-up, in the book's order.
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

#: The audits of each chapter's releases: a chapter's ledger entry for such a release names its
#: audit as ``LedgerEntry(audit="audits:<name>")`` (issue 11, item 6).
LEDGER_LINKS: dict[str, tuple[str, ...]] = {
    "balle2016": ("dp_lsw", "dp_lsl"),
    "xie2019": ("gpope",),
    "wang2019": ("gp_update", "input_perturbation", "dpsgd_step"),
    "ono2020": ("pgc_laplace", "pgc_bit_flip", "pgc_prs"),
    "gohari2021": ("dirichlet",),
}
