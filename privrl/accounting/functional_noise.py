r"""Privacy calibration of Q-learning with functional noise (Wang and Hegde 2019) and its baselines.

Theorem 5. With :math:`v = 4\alpha(k+1)/B`, kernel bandwidth :math:`\beta = 1/v` and
:math:`C(\alpha, k, L, B) = (v^2 + v) L^2` (a bound on :math:`\|Q - Q'\|^2_{\mathcal H}` for one
update, Lemma 6), Algorithm 1 run for :math:`T/B` updates is

.. math:: \big(\varepsilon,\; \delta + J e^{-(2k - 8.68\sqrt\beta\,\sigma)^2/2}\big)\text{-DP}
    \quad\text{if}\quad 2k > 8.68\sqrt\beta\,\sigma \;\text{ and }\;
    \sigma \ge \sqrt{2 (T/B) \ln(e + \varepsilon/\delta)\, C(\alpha, k, L, B)} / \varepsilon

with respect to reward functions with :math:`\|r - r'\|_\infty \le 1`. The generic alternative the
paper improves on composes :math:`T/B` Gaussian-process mechanisms (Proposition 4, each
:math:`\sigma \ge \sqrt{2\ln(1.25/\delta_0)}\,\|f\|_{\mathcal H}/\varepsilon_0`) with the
composition theorem of Kairouz, Oh and Viswanath (2015); :func:`generic_sigma` solves for the
per-step :math:`(\varepsilon_0, \delta_0)` numerically.

Baselines of Figure 2, all at the same :math:`(\varepsilon, \delta)`:

* output perturbation (Balle, Gomrokchi, Precup 2016, applied to the Q function): i.i.d. Gaussian
  noise on each Q output, per-update sensitivity :math:`\Delta = 4\alpha L(k+1)/B` (the same
  update bound as Theorem 5), classic Gaussian mechanism per update, Kairouz composition over
  :math:`T/B` updates. Pointwise noise does not protect a function-valued release; as the paper
  says, it is shown for utility only.
* input perturbation (Venkitasubramaniam 2013): Gaussian noise on every observed reward. All
  :math:`T` rewards may change by up to 1, so the :math:`\ell_2` sensitivity of the reward
  vector is :math:`\sqrt T`; analytic Gaussian mechanism (Balle and Wang 2018).
* DP-SGD (Abadi et al. 2016): per-sample clipping to norm :math:`c` and Gaussian noise
  :math:`z c`; :math:`z` from the RDP accountant of dp-accounting with a Poisson-sampled Gaussian
  event (rate :math:`B / N_{\rm replay}`) composed over the number of gradient steps. This is a
  per-transition (record-level) guarantee, the one the method itself provides.
"""

from __future__ import annotations

import math

import dp_accounting
from absl import logging as absl_logging
from scipy.optimize import brentq

from privrl.accounting.composition import kairouz_composition
from privrl.accounting.events import rdp_epsilon
from privrl.accounting.gaussian import analytic_gaussian_sigma
from privrl.validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
)

#: The constant of Lemma 8 (expected supremum of the OU path on [0, 1], in units of sqrt(beta) sigma).
LEMMA8_CONSTANT = 8.68


def _common(epsilon, delta, T, B, alpha, k, L):
    return (
        check_epsilon(epsilon),
        check_delta(delta),
        check_int(T, "T", minimum=1),
        check_int(B, "B", minimum=1),
        check_positive(alpha, "alpha"),
        check_nonnegative(k, "k"),
        check_positive(L, "L"),
    )


def update_scale(alpha: float, k: float, B: int) -> float:
    """:math:`v = 4\\alpha(k+1)/B`, the sup-norm bound on the change of one update (proof of Thm 5)."""
    return (
        4.0
        * check_positive(alpha, "alpha")
        * (check_nonnegative(k, "k") + 1.0)
        / check_int(B, "B", 1)
    )


def theorem5_beta(alpha: float, k: float, B: int) -> float:
    """Kernel bandwidth :math:`\\beta = 1/v = B / (4\\alpha(k+1))` chosen in the proof of Theorem 5."""
    return 1.0 / update_scale(alpha, k, B)


def theorem5_C(alpha: float, k: float, L: float, B: int) -> float:
    """:math:`C(\\alpha, k, L, B) = (v^2 + v) L^2`, the bound on :math:`\\|Q - Q'\\|^2_{\\mathcal H}`."""
    v = update_scale(alpha, k, B)
    return (v**2 + v) * check_positive(L, "L") ** 2


def theorem5_sigma(
    epsilon: float, delta: float, T: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Theorem 5: :math:`\\sigma = \\sqrt{2 (T/B) \\ln(e + \\varepsilon/\\delta) C} / \\varepsilon`."""
    epsilon, delta, T, B, alpha, k, L = _common(epsilon, delta, T, B, alpha, k, L)
    return (
        math.sqrt(2.0 * (T / B) * math.log(math.e + epsilon / delta) * theorem5_C(alpha, k, L, B))
        / epsilon
    )


def approximation_delta(J: int, k: float, beta: float, sigma: float) -> float:
    """The extra delta :math:`J\\exp(-(2k - 8.68\\sqrt\\beta\\sigma)^2/2)` of Theorem 5 (via Lemma 8).

    Raises ``ValueError`` unless :math:`2k > 8.68\\sqrt\\beta\\,\\sigma` (the theorem's condition).
    """
    J = check_int(J, "J", minimum=1)
    k = check_nonnegative(k, "k")
    beta = check_positive(beta, "beta")
    sigma = check_nonnegative(sigma, "sigma")
    gap = 2.0 * k - LEMMA8_CONSTANT * math.sqrt(beta) * sigma
    if gap <= 0:
        raise ValueError(
            f"Theorem 5 needs 2k > 8.68 sqrt(beta) sigma, got 2k = {2 * k:.4g} <= "
            f"{LEMMA8_CONSTANT * math.sqrt(beta) * sigma:.4g}; increase k"
        )
    return J * math.exp(-(gap**2) / 2.0)


def calibrate_algorithm1(
    epsilon: float,
    delta: float,
    T: int,
    B: int,
    alpha: float,
    L: float,
    J: int,
    delta_share: float = 0.5,
) -> dict[str, float]:
    """Smallest integer ``k`` (and the resulting sigma, beta) giving total ``(epsilon, delta)``.

    ``delta_share`` of ``delta`` goes to the Gaussian part of Theorem 5, the rest bounds the
    approximation term :math:`J e^{-(2k - 8.68\\sqrt\\beta\\sigma)^2/2}`.
    """
    epsilon, delta, T, B, alpha, _, L = _common(epsilon, delta, T, B, alpha, 0, L)
    if not 0 < delta_share < 1:
        raise ValueError(f"delta_share must lie in (0, 1), got {delta_share}")
    d_gauss = delta * delta_share
    for k in range(1, 10**6):
        sigma = theorem5_sigma(epsilon, d_gauss, T, B, alpha, k, L)
        beta = theorem5_beta(alpha, k, B)
        if 2 * k > LEMMA8_CONSTANT * math.sqrt(beta) * sigma:
            approx = approximation_delta(J, k, beta, sigma)
            if approx <= delta - d_gauss:
                return {
                    "k": k,
                    "sigma": sigma,
                    "beta": beta,
                    "delta_gauss": d_gauss,
                    "delta_approx": approx,
                }
    raise ValueError("no k up to 1e6 satisfies Theorem 5 for these parameters")


def _per_step(epsilon: float, delta: float, steps: int) -> tuple[float, float]:
    """Per-step (eps0, delta0) whose Kairouz composition over ``steps`` gives (epsilon, delta).

    Half of ``delta`` is the composition slack, the other half is spread over the steps.
    """
    slack = delta / 2
    delta0 = 1 - ((1 - delta) / (1 - slack)) ** (1 / steps)
    eps0 = brentq(
        lambda e: kairouz_composition(e, delta0, steps, slack)[0] - epsilon, 1e-12, epsilon
    )
    return eps0, delta0


def generic_sigma(
    epsilon: float, delta: float, T: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Sigma from generic composition: per-step Proposition 4 + Kairouz et al. over T/B steps."""
    epsilon, delta, T, B, alpha, k, L = _common(epsilon, delta, T, B, alpha, k, L)
    eps0, delta0 = _per_step(epsilon, delta, max(1, T // B))
    return math.sqrt(2.0 * math.log(1.25 / delta0)) * math.sqrt(theorem5_C(alpha, k, L, B)) / eps0


def output_perturbation_sigma(
    epsilon: float, delta: float, T: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Pointwise Gaussian noise per update (Balle et al. 2016 style), Kairouz composition over T/B."""
    epsilon, delta, T, B, alpha, k, L = _common(epsilon, delta, T, B, alpha, k, L)
    eps0, delta0 = _per_step(epsilon, delta, max(1, T // B))
    return math.sqrt(2.0 * math.log(1.25 / delta0)) * update_scale(alpha, k, B) * L / eps0


def input_perturbation_sigma(epsilon: float, delta: float, T: int) -> float:
    """Reward noise: analytic Gaussian mechanism with l2 sensitivity sqrt(T) (all rewards may change)."""
    T = check_int(T, "T", minimum=1)
    return analytic_gaussian_sigma(epsilon, delta, sensitivity=math.sqrt(T))


def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float) -> float:
    """RDP epsilon of DP-SGD: Poisson-sampled Gaussian, self-composed ``steps`` times."""
    noise_multiplier = check_positive(noise_multiplier, "noise_multiplier")
    steps = check_int(steps, "steps", minimum=1)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(
            sampling_rate, dp_accounting.GaussianDpEvent(noise_multiplier)
        ),
        steps,
    )
    return rdp_epsilon(event, delta)


def dpsgd_noise_multiplier(epsilon: float, delta: float, sampling_rate: float, steps: int) -> float:
    """Smallest noise multiplier (to 1e-4 relative) whose RDP epsilon is at most ``epsilon``."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    lo, hi = 0.05, 1.0
    while dpsgd_epsilon(hi, sampling_rate, steps, delta) > epsilon:
        lo, hi = hi, 2 * hi
    return brentq(
        lambda z: dpsgd_epsilon(z, sampling_rate, steps, delta) - epsilon, lo, hi, rtol=1e-4
    )


def dpsgd_growing_memory_noise_multiplier(
    epsilon: float,
    delta: float,
    batch_size: int,
    n_samples: int,
    warmup: int,
    replay_size: int = 10_000,
) -> float:
    """Noise multiplier of DP-SGD on a replay memory that grows by one transition per step.

    At step t the memory holds :math:`n_t = \\min(t, N_{\\rm replay})` transitions and the batch is
    Poisson-sampled at rate :math:`B / n_t`. For the accountant the steps are grouped in blocks
    :math:`n_t \\in [2^i w, 2^{i+1} w)` and charged the block's largest rate (an upper bound: RDP of
    the sampled Gaussian grows with the rate). Training starts once the memory holds ``warmup``
    (:math:`w`) transitions: without it the first steps would sample at rate 1 and dominate the
    budget.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    B = check_int(batch_size, "batch_size", minimum=1)
    n_samples = check_int(n_samples, "n_samples", minimum=B)
    replay_size = check_int(replay_size, "replay_size", minimum=B)
    warmup = check_int(warmup, "warmup", minimum=B)
    if warmup > n_samples:
        raise ValueError(f"warmup ({warmup}) must not exceed n_samples ({n_samples})")
    absl_logging.set_verbosity(absl_logging.ERROR)  # silence dp-accounting's per-order warnings
    blocks = []
    lo = warmup
    while lo <= n_samples:
        hi = min(2 * lo, n_samples + 1)
        blocks.append((B / min(lo, replay_size), hi - lo))
        lo = hi

    def eps_of(z: float) -> float:
        event = dp_accounting.ComposedDpEvent(
            [
                dp_accounting.SelfComposedDpEvent(
                    dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), count
                )
                for q, count in blocks
            ]
        )
        return rdp_epsilon(event, delta)

    lo_z, hi_z = 0.05, 1.0
    while eps_of(hi_z) > epsilon:
        lo_z, hi_z = hi_z, 2 * hi_z
    return brentq(lambda z: eps_of(z) - epsilon, lo_z, hi_z, rtol=1e-4)
