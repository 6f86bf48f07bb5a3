r"""Privacy calibration of Q-learning with functional noise (Wang and Hegde 2019) and its baselines.

Theorem 5. With :math:`v = 4\alpha(k+1)/B`, bandwidth :math:`\beta = 1/v` and
:math:`C(\alpha, k, L, B) = (v^2 + v) L^2` (Lemma 6), Algorithm 1 with :math:`U` noisy updates is

.. math:: \big(\varepsilon,\; \delta + J e^{-(2k - 8.68\sqrt\beta\,\sigma)^2/2}\big)\text{-DP}
    \quad\text{if}\quad 2k > 8.68\sqrt\beta\,\sigma \;\text{ and }\;
    \sigma \ge \sqrt{2 U \ln(e + \varepsilon/\delta)\, C(\alpha, k, L, B)} / \varepsilon

for reward functions with :math:`\|r - r'\|_\infty \le 1`. :func:`calibrate_algorithm1` takes
``n_updates`` = the noisy updates performed (:math:`T/B` in the paper, :math:`T - B + 1` in the
authors' DQN) and ``n_paths`` = every sample path drawn (Lemma 8's union bound).
:func:`generic_sigma`: the :math:`T/B`-fold composition (Kairouz, Oh and Viswanath 2015) of
Proposition 4's mechanism. Baselines of Figure 2, at the same :math:`(\varepsilon, \delta)`:
output perturbation (sensitivity :math:`4\alpha L(k+1)/B` per update, Kairouz composition;
:class:`OutputPerturbationEvent`), input perturbation (every reward, :math:`\ell_2` sensitivity
:math:`\sqrt T`, analytic Gaussian mechanism; a
:class:`~privrl.core.accounting.gaussian.GaussianEvent`) and DP-SGD (Poisson rate
:math:`B / N_{\rm replay}`, RDP; :func:`dpsgd_steps_event`, per transition). Algorithm 1's
event is :class:`Theorem5Event`; calibrations err on the safe side.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

import dp_accounting
from absl import logging as absl_logging

from privrl.core.accounting.calibration import bisect_safe, calibrate_decreasing
from privrl.core.accounting.composition import kairouz_composition
from privrl.core.accounting.events import pld_epsilon, rdp_epsilon, register_event
from privrl.core.accounting.gaussian import (
    analytic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
)
from privrl.core.validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)

#: :func:`calibrate_algorithm1` searches the integers ``k`` below this.
MAX_K = 10**6
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
    """:math:`v = 4\\alpha(k+1)/B`, the sup-norm bound on the change of one update (proof of Thm 5);
    a ``ValueError`` names ``alpha`` (``lr``) when it underflows to 0 (the bandwidth is 1/v)."""
    v = (
        4.0
        * check_positive(alpha, "alpha")
        * (check_nonnegative(k, "k") + 1.0)
        / check_int(B, "B", 1)
    )
    if v == 0.0:
        raise ValueError(
            f"alpha (lr) = {alpha!r}: Theorem 5's update bound 4 alpha (k + 1) / B "
            "underflows to 0; choose a larger learning rate"
        )
    return v


def theorem5_beta(alpha: float, k: float, B: int) -> float:
    """Kernel bandwidth :math:`\\beta = 1/v = B / (4\\alpha(k+1))` chosen in the proof of Theorem 5."""
    return 1.0 / update_scale(alpha, k, B)


def theorem5_C(alpha: float, k: float, L: float, B: int) -> float:
    """:math:`C(\\alpha, k, L, B) = (v^2 + v) L^2`, the bound on :math:`\\|Q - Q'\\|^2_{\\mathcal H}`.

    A ``ValueError`` names the learning rate ``alpha`` (``lr``) and the Lipschitz constant ``L``
    (``lipschitz``) when it overflows a double: no finite noise would cover it."""
    v = update_scale(alpha, k, B)
    L = check_positive(L, "L")
    try:
        c = (v**2 + v) * L**2
    except OverflowError:
        c = math.inf
    if math.isinf(c):
        raise ValueError(
            f"alpha (lr) = {float(alpha):.4g}, L (lipschitz) = {L:.4g}: Theorem 5's bound "
            f"C = (v^2 + v) L^2 on one update overflows a double at k = {k:g}, "
            f"B = {B}; choose a smaller learning rate or Lipschitz constant"
        )
    return c


def theorem5_epsilon_limit(delta: float) -> float:
    r"""The epsilon above which Theorem 5's Gaussian part cannot hold at ``delta``.

    Its noise :math:`\sigma = \sqrt{2U\ln(e + \varepsilon/\delta)C}/\varepsilon` makes the
    :math:`U` updates one Gaussian mechanism of sensitivity :math:`\Delta = \sqrt{UC}` (Lemma 6 at
    equality, Proposition 4), so :math:`\Delta/\sigma = \mu = \varepsilon/\sqrt{2\ln(e +
    \varepsilon/\delta)}` whatever :math:`U` and :math:`C`; two neighbours at that distance have
    the exact privacy profile (Balle and Wang 2018; :func:`~privrl.core.accounting.gaussian.
    gaussian_delta`)

    .. math:: \delta(\varepsilon) = \Phi\Big(\frac{\mu}{2} - \frac{\varepsilon}{\mu}\Big)
              - e^{\varepsilon}\,\Phi\Big(-\frac{\mu}{2} - \frac{\varepsilon}{\mu}\Big),

    below ``delta`` for small epsilon and above it past the limit returned (about 13.6 at
    :math:`10^{-5}`, 13.0 at :math:`10^{-3}`, 12.8 at 0.1): there the theorem's statement is
    false, so :func:`calibrate_algorithm1` refuses it."""
    from scipy import optimize

    delta = check_delta(delta)

    def excess(eps: float) -> float:
        mu = eps / math.sqrt(2.0 * math.log(math.e + eps / delta))
        return gaussian_delta(1.0 / mu, eps) - delta

    lo, hi = 1.0, 2.0
    while excess(hi) <= 0.0:
        lo, hi = hi, 2.0 * hi
    return float(optimize.brentq(excess, lo, hi, xtol=1e-9, rtol=1e-12))


def theorem5_sigma(
    epsilon: float, delta: float, n_updates: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Theorem 5 for ``n_updates`` = :math:`U` noisy updates:
    :math:`\\sigma = \\sqrt{2 U \\ln(e + \\varepsilon/\\delta) C} / \\varepsilon` (paper: :math:`U = T/B`)."""
    epsilon, delta, n_updates, B, alpha, k, L = _common(epsilon, delta, n_updates, B, alpha, k, L)
    return (
        math.sqrt(2.0 * n_updates * math.log(math.e + epsilon / delta) * theorem5_C(alpha, k, L, B))
        / epsilon
    )


def theorem5_epsilon(
    sigma: float,
    delta: float,
    n_updates: int,
    B: int,
    alpha: float,
    k: float,
    L: float,
    rtol: float = 1e-6,
) -> float:
    """The smallest epsilon Theorem 5 certifies for noise ``sigma`` over ``n_updates`` updates
    (the inverse of :func:`theorem5_sigma` in epsilon; used to state what a calibration for
    fewer updates gives for the updates actually made). Bisection to relative tolerance ``rtol``
    on the safe side: the result is at least the exact inverse."""
    sigma = check_positive(sigma, "sigma")
    _, delta, n_updates, B, alpha, k, L = _common(1.0, delta, n_updates, B, alpha, k, L)
    C = theorem5_C(alpha, k, L, B)

    def gap(e: float) -> float:
        return sigma * e - math.sqrt(2.0 * n_updates * math.log(math.e + e / delta) * C)

    hi = 1.0
    while gap(hi) < 0:
        hi *= 2.0
    return bisect_safe(
        lambda e: gap(e) >= 0, 1e-12, hi, safe_end="hi", rtol=rtol, midpoint="arithmetic"
    )


def gaussian_composition_epsilon(
    sigma: float, delta: float, n_updates: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Independent cross-check of Theorem 5's Gaussian part: the exact epsilon of ``n_updates``
    Gaussian(-process) mechanisms, each of RKHS sensitivity :math:`\\sqrt C` and noise ``sigma``
    (Proposition 4 makes each one a Gaussian mechanism; composed, a Gaussian of sensitivity
    :math:`\\sqrt{U C}`), by the analytic formula of Balle and Wang (2018)."""
    sigma = check_positive(sigma, "sigma")
    _, delta, n_updates, B, alpha, k, L = _common(1.0, delta, n_updates, B, alpha, k, L)
    return gaussian_epsilon(sigma, delta, math.sqrt(n_updates * theorem5_C(alpha, k, L, B)))


def approximation_delta(n_paths: int, k: float, beta: float, sigma: float) -> float:
    """The extra delta of Theorem 5 (Lemma 8 and a union bound over ``n_paths`` sample paths):
    :math:`n_{\\rm paths}\\exp(-(2k - 8.68\\sqrt\\beta\\sigma)^2/2)`. The paper writes :math:`J`
    (resamplings); every resampling draws one path per action (and per network with its own path).

    Raises ``ValueError`` unless :math:`2k > 8.68\\sqrt\\beta\\,\\sigma` (the theorem's condition).
    """
    n_paths = check_int(n_paths, "n_paths", minimum=1)
    k = check_nonnegative(k, "k")
    beta = check_positive(beta, "beta")
    sigma = check_nonnegative(sigma, "sigma")
    gap = 2.0 * k - LEMMA8_CONSTANT * math.sqrt(beta) * sigma
    if gap <= 0:
        raise ValueError(
            f"Theorem 5 needs 2k > 8.68 sqrt(beta) sigma, got 2k = {2 * k:.4g} <= "
            f"{LEMMA8_CONSTANT * math.sqrt(beta) * sigma:.4g}; increase k"
        )
    return n_paths * math.exp(-(gap**2) / 2.0)


def calibrate_algorithm1(
    epsilon: float,
    delta: float,
    n_updates: int,
    B: int,
    alpha: float,
    L: float,
    n_paths: int,
    delta_share: float = 0.5,
) -> dict[str, float]:
    """Smallest integer ``k`` (and the resulting sigma, beta) giving total ``(epsilon, delta)``
    for ``n_updates`` noisy updates and ``n_paths`` sample paths drawn in the run.

    ``delta_share`` of ``delta`` goes to the Gaussian part of Theorem 5, the rest bounds the
    approximation term :math:`n_{\\rm paths} e^{-(2k - 8.68\\sqrt\\beta\\sigma)^2/2}`, so the total
    ``delta_gauss + delta_approx`` never exceeds ``delta``.

    Refuses an ``epsilon`` at or above :func:`theorem5_epsilon_limit` of the Gaussian part's
    delta, where the theorem is false. The theorem's condition holds when the gap :math:`g(k) = 2k - 8.68\\sqrt\\beta\\sigma =
    2k - c\\sqrt{4\\alpha(k+1)/B + 1}` reaches :math:`\\sqrt{2\\ln(n_{\\rm paths}/\\delta_{\\rm
    approx})}`; :math:`g` is convex in :math:`k`, so when neither :math:`k = 1` nor the last
    :math:`k` searched fits (below :data:`MAX_K`, and below the first :math:`k` whose :math:`C`
    overflows), none between does, and a ``ValueError`` naming ``lr`` and ``lipschitz`` comes
    at once rather than after a million trials.
    """
    epsilon, delta, n_updates, B, alpha, _, L = _common(epsilon, delta, n_updates, B, alpha, 0, L)
    n_paths = check_int(n_paths, "n_paths", minimum=1)
    if not 0 < delta_share < 1:
        raise ValueError(f"delta_share must lie in (0, 1), got {delta_share}")
    d_gauss = delta * delta_share
    if epsilon >= theorem5_epsilon_limit(d_gauss):
        raise ValueError(
            f"epsilon must lie below {theorem5_epsilon_limit(d_gauss):.6g} at the "
            f"Gaussian part's delta = {d_gauss:g}, where Theorem 5 can hold (got "
            f"{epsilon:g}): above it two neighbours at the theorem's sensitivity are "
            "told apart beyond (epsilon, delta)"
        )

    def fits(k: int) -> bool:
        sigma = theorem5_sigma(epsilon, d_gauss, n_updates, B, alpha, k, L)
        beta = theorem5_beta(alpha, k, B)
        return (
            2 * k > LEMMA8_CONSTANT * math.sqrt(beta) * sigma
            and approximation_delta(n_paths, k, beta, sigma) <= delta - d_gauss
        )

    def finite(k: int) -> bool:
        try:
            theorem5_C(alpha, k, L, B)
        except ValueError:
            return False
        return True

    far = MAX_K - 1  # the last k searched: below MAX_K, and below any k whose C overflows
    if not finite(far):
        lo, far = 0, far  # C grows with k: bisect for the last k whose C is a double
        while far - lo > 1:
            mid = (lo + far) // 2
            lo, far = (mid, far) if finite(mid) else (lo, mid)
        far = lo
    if far < 1:
        theorem5_C(alpha, 1, L, B)  # overflows already at k = 1: its error names lr, lipschitz
    if not fits(1) and not fits(far):  # the gap is convex in k
        raise ValueError(
            f"alpha (lr) = {alpha:.4g}, L (lipschitz) = {L:.4g}: no k below {MAX_K} "
            f"satisfies Theorem 5 at epsilon = {epsilon:g}, delta = {delta:g} for "
            f"{n_updates} updates of batch {B}; choose a smaller learning rate or "
            "Lipschitz constant, or a larger epsilon"
        )
    k = next(k for k in range(1, far + 1) if fits(k))  # fits(1) or fits(far): one does
    sigma = theorem5_sigma(epsilon, d_gauss, n_updates, B, alpha, k, L)
    beta = theorem5_beta(alpha, k, B)
    return {
        "k": k,
        "sigma": sigma,
        "beta": beta,
        "delta_gauss": d_gauss,
        "delta_approx": approximation_delta(n_paths, k, beta, sigma),
        "n_updates": n_updates,
        "n_paths": n_paths,
    }


def _smallest_noise(eps_of: Callable[[float], float], epsilon: float, rtol: float = 1e-6) -> float:
    """Smallest noise parameter ``z`` (to ``rtol``) with ``eps_of(z) <= epsilon``; never above it
    (:func:`~privrl.core.accounting.calibration.calibrate_decreasing`: bracket from [0.05, 1]
    doubled upwards, bisection in ``z``)."""
    return calibrate_decreasing(
        eps_of,
        epsilon,
        lo=0.05,
        hi=1.0,
        rtol=rtol,
        max_scale=1e9,
        growth=2.0,
        midpoint="arithmetic",
    )


def _delta_split(delta: float, steps: int) -> tuple[float, float]:
    """Per-step delta0 and the composition slack: half of ``delta`` is the slack of Kairouz et
    al.'s composition, the other half is spread over the ``steps`` so that
    :math:`1 - (1 - \\delta_0)^{steps}(1 - {\\rm slack}) = \\delta`."""
    slack = delta / 2
    return 1 - ((1 - delta) / (1 - slack)) ** (1 / steps), slack


def _per_step(epsilon: float, delta: float, steps: int) -> tuple[float, float]:
    """Per-step (eps0, delta0) whose Kairouz composition over ``steps`` gives (epsilon, delta).

    Half of ``delta`` is the composition slack, the other half is spread over the steps; ``eps0``
    is on the safe side (its composition is at most ``epsilon``).
    """
    delta0, slack = _delta_split(delta, steps)

    def fits(e: float) -> bool:
        return epsilon - kairouz_composition(e, delta0, steps, slack)[0] >= 0

    if not fits(1e-12):
        raise ValueError("the bracket does not contain a safe point")
    eps0 = bisect_safe(fits, 1e-12, epsilon, safe_end="lo", rtol=1e-6, midpoint="arithmetic")
    return eps0, delta0


def generic_sigma(
    epsilon: float, delta: float, n_updates: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Sigma from generic composition: per-update Proposition 4 + Kairouz et al. over ``n_updates``."""
    epsilon, delta, n_updates, B, alpha, k, L = _common(epsilon, delta, n_updates, B, alpha, k, L)
    eps0, delta0 = _per_step(epsilon, delta, n_updates)
    return math.sqrt(2.0 * math.log(1.25 / delta0)) * math.sqrt(theorem5_C(alpha, k, L, B)) / eps0


def output_perturbation_sigma(
    epsilon: float, delta: float, n_updates: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Pointwise Gaussian noise per update (Balle et al. 2016 style): sensitivity :math:`vL` of one
    Q value per update, classic Gaussian mechanism, Kairouz composition over ``n_updates``."""
    epsilon, delta, n_updates, B, alpha, k, L = _common(epsilon, delta, n_updates, B, alpha, k, L)
    eps0, delta0 = _per_step(epsilon, delta, n_updates)
    return math.sqrt(2.0 * math.log(1.25 / delta0)) * update_scale(alpha, k, B) * L / eps0


def output_perturbation_rdp_epsilon(
    output_std: float, delta: float, n_updates: int, B: int, alpha: float, k: float, L: float
) -> float:
    """Cross-check of :func:`output_perturbation_sigma`: RDP epsilon (dp-accounting) of
    ``n_updates`` Gaussian mechanisms of sensitivity :math:`vL` and noise ``output_std``."""
    output_std = check_positive(output_std, "output_std")
    _, delta, n_updates, B, alpha, k, L = _common(1.0, delta, n_updates, B, alpha, k, L)
    z = output_std / (update_scale(alpha, k, B) * L)
    return rdp_epsilon(
        dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(z), n_updates), delta
    )


def input_perturbation_sigma(epsilon: float, delta: float, n_samples: int) -> float:
    """Reward noise: analytic Gaussian mechanism with l2 sensitivity sqrt(T) (all T rewards may
    change by 1 under neighbouring reward functions)."""
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    return analytic_gaussian_sigma(epsilon, delta, sensitivity=math.sqrt(n_samples))


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
    """Smallest noise multiplier (to 1e-6 relative) whose RDP epsilon is at most ``epsilon``."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    return _smallest_noise(lambda z: dpsgd_epsilon(z, sampling_rate, steps, delta), epsilon)


def dpsgd_steps_event(
    noise_multiplier: float, rate_counts: Sequence[tuple[float, int]]
) -> dp_accounting.DpEvent:
    """DP-SGD steps given as ``(sampling rate, number of steps)`` pairs, as a dp-accounting event:
    each pair a Poisson-sampled Gaussian of noise multiplier ``noise_multiplier`` self-composed
    that many times, the pairs composed."""
    noise_multiplier = check_positive(noise_multiplier, "noise_multiplier")
    if not rate_counts:
        raise ValueError("rate_counts must not be empty")
    return dp_accounting.ComposedDpEvent(
        [
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(
                    check_probability(q, "sampling rate"),
                    dp_accounting.GaussianDpEvent(noise_multiplier),
                ),
                check_int(count, "count", minimum=1),
            )
            for q, count in rate_counts
        ]
    )


def dpsgd_steps_epsilon(
    noise_multiplier: float, rate_counts: Sequence[tuple[float, int]], delta: float
) -> float:
    """RDP epsilon of DP-SGD steps given as ``(sampling rate, number of steps)`` pairs
    (:func:`dpsgd_steps_event`)."""
    event = dpsgd_steps_event(noise_multiplier, rate_counts)
    delta = check_delta(delta)
    absl_logging.set_verbosity(absl_logging.ERROR)  # silence dp-accounting's per-order warnings
    return rdp_epsilon(event, delta)


def growing_memory_blocks(
    batch_size: int, n_samples: int, warmup: int, replay_size: int = 10_000
) -> list[tuple[float, int]]:
    """DP-SGD steps on a memory growing by one transition per step, in blocks charged their
    largest rate: the step at memory size :math:`n_t \\in [2^i w, 2^{i+1} w)` has rate
    :math:`B/\\min(n_t, N_{\\rm replay}) \\le B / \\min(2^i w, N_{\\rm replay})`
    (:func:`growing_memory_fine_blocks` with ``growth = 2``)."""
    return growing_memory_fine_blocks(batch_size, n_samples, warmup, replay_size, growth=2.0)


def growing_memory_fine_blocks(
    batch_size: int, n_samples: int, warmup: int, replay_size: int = 10_000, growth: float = 1.02
) -> list[tuple[float, int]]:
    r"""The DP-SGD steps of :func:`growing_memory_blocks` at (nearly) their per-step rates: blocks
    of memory sizes within a factor ``growth`` (at least one step each), each charged its largest
    rate :math:`B/\min(n_t, N_{\rm replay})`, so every step's rate is overstated by less than
    ``growth``. ``growth = 2`` gives :func:`growing_memory_blocks`' doubling blocks; ``growth``
    just above 1 gives one block per step (the exact per-step rates)."""
    B = check_int(batch_size, "batch_size", minimum=1)
    n_samples = check_int(n_samples, "n_samples", minimum=B)
    replay_size = check_int(replay_size, "replay_size", minimum=B)
    warmup = check_int(warmup, "warmup", minimum=B)
    growth = check_positive(growth, "growth")
    if not growth > 1.0:
        raise ValueError(f"growth must be > 1, got {growth}")
    if warmup > n_samples:
        raise ValueError(f"warmup ({warmup}) must not exceed n_samples ({n_samples})")
    blocks = []
    lo = warmup
    while lo <= n_samples:
        hi = min(max(lo + 1, math.floor(lo * growth)), n_samples + 1)
        blocks.append((B / min(lo, replay_size), hi - lo))
        lo = hi
    return blocks


def dpsgd_steps_pld_epsilon(
    noise_multiplier: float, rate_counts: Sequence[tuple[float, int]], delta: float
) -> float:
    """Tight epsilon of DP-SGD steps given as ``(sampling rate, number of steps)`` pairs
    (:func:`dpsgd_steps_event`) by dp-accounting's PLD accountant (Poisson subsampling,
    add/remove, pessimistic discretisation): beside the RDP figure of
    :func:`dpsgd_steps_epsilon`, never instead of it."""
    return pld_epsilon(dpsgd_steps_event(noise_multiplier, rate_counts), check_delta(delta))


def dpsgd_growing_memory_noise_multiplier(
    epsilon: float,
    delta: float,
    batch_size: int,
    n_samples: int,
    warmup: int,
    replay_size: int = 10_000,
) -> float:
    """Noise multiplier of DP-SGD on a replay memory that grows by one transition per step
    (:func:`growing_memory_blocks`), with steps from memory size ``warmup`` on: without a warm-up
    the first steps would sample at rate 1 and dominate the budget. The result is on the safe side.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    blocks = growing_memory_blocks(batch_size, n_samples, warmup, replay_size)
    return _smallest_noise(lambda z: dpsgd_steps_epsilon(z, blocks, delta), epsilon, rtol=1e-4)


def dpsgd_reward_function_noise_multiplier(
    epsilon: float, delta: float, batch_size: int, n_updates: int
) -> float:
    """DP-SGD noise multiplier that protects neighbouring *reward functions* (Algorithm 1's relation).

    Every reward may change, so every one of the ``batch_size`` clipped gradients of a fixed-size
    batch may move by :math:`2c`: the sum has sensitivity :math:`2cB` and subsampling gives no
    amplification. ``n_updates`` Gaussian steps of noise :math:`zc` compose to one Gaussian of
    sensitivity :math:`2cB\\sqrt U`, so :math:`z = 2B\\sqrt U\\,\\sigma_{\\rm an}(\\varepsilon, \\delta)`
    with the analytic Gaussian calibration for unit sensitivity (Balle and Wang 2018).
    """
    B = check_int(batch_size, "batch_size", minimum=1)
    n_updates = check_int(n_updates, "n_updates", minimum=1)
    return analytic_gaussian_sigma(epsilon, delta, sensitivity=2.0 * B * math.sqrt(n_updates))


# --- the guarantees as ledger events ------------------------------------------------------------


@register_event
@dataclass(frozen=True)
class Theorem5Event:
    r"""Algorithm 1's guarantee (Theorem 5): ``n_updates`` Gaussian-process releases of noise
    ``sigma`` with :math:`C(\alpha, k, L, B)` from ``lr``, ``k``, ``lipschitz``, ``batch_size``, and
    a union bound over ``n_paths`` sample paths (Lemma 8) in the approximation term.

    :meth:`epsilon` at a total ``delta`` takes off the approximation term
    :math:`n_{\rm paths} e^{-(2k - 8.68\sqrt\beta\sigma)^2/2}` (:func:`approximation_delta`,
    with Theorem 5's :math:`\beta`) and inverts Theorem 5's noise condition at the remaining
    Gaussian delta (:func:`theorem5_epsilon`, safe-side bisection to ``rtol``); infinite where
    that epsilon is at or above :func:`theorem5_epsilon_limit` (the theorem certifies nothing).
    """

    sigma: float
    n_updates: int
    batch_size: int
    lr: float
    k: float
    lipschitz: float
    n_paths: int
    rtol: float = 1e-6

    def epsilon(self, delta: float) -> float:
        beta = theorem5_beta(self.lr, self.k, self.batch_size)
        gaussian_delta = check_delta(delta) - approximation_delta(
            self.n_paths, self.k, beta, self.sigma
        )
        if not gaussian_delta > 0:
            raise ValueError(
                f"delta {delta:.3g} does not cover Theorem 5's approximation term "
                f"{delta - gaussian_delta:.3g} over {self.n_paths} paths"
            )
        epsilon = theorem5_epsilon(
            self.sigma,
            gaussian_delta,
            self.n_updates,
            self.batch_size,
            self.lr,
            self.k,
            self.lipschitz,
            rtol=self.rtol,
        )
        return epsilon if epsilon < theorem5_epsilon_limit(gaussian_delta) else math.inf

    def to_dp_event(self) -> NoReturn:
        """None: Theorem 5's functional-noise guarantee has no dp-accounting event; raises ``NotImplementedError``."""
        raise NotImplementedError(
            "Theorem5Event: Theorem 5's functional-noise guarantee has no dp-accounting event"
        )


@register_event
@dataclass(frozen=True)
class OutputPerturbationEvent:
    r"""Output perturbation as calibrated by :func:`output_perturbation_sigma`: ``n_updates``
    classic Gaussian mechanisms (Dwork and Roth 2014, Thm A.1) of noise ``output_std`` and
    sensitivity ``sensitivity`` (:math:`vL` per queried value per update), composed by Kairouz,
    Oh and Viswanath (2015).

    :meth:`epsilon` splits ``delta`` as the calibration does (half composition slack, half spread
    over the updates as :math:`\delta_0`), takes the per-update
    :math:`\varepsilon_0 = \sqrt{2\ln(1.25/\delta_0)}\,\Delta/\sigma` and composes it.
    """

    output_std: float
    sensitivity: float
    n_updates: int

    def epsilon(self, delta: float) -> float:
        std = check_positive(self.output_std, "output_std")
        sensitivity = check_positive(self.sensitivity, "sensitivity")
        steps = check_int(self.n_updates, "n_updates", minimum=1)
        delta0, slack = _delta_split(check_delta(delta), steps)
        eps0 = math.sqrt(2.0 * math.log(1.25 / delta0)) * sensitivity / std
        return kairouz_composition(eps0, delta0, steps, slack)[0]

    def to_dp_event(self) -> NoReturn:
        """None: output perturbation of a learned function has no dp-accounting event; raises ``NotImplementedError``."""
        raise NotImplementedError(
            "OutputPerturbationEvent: output perturbation of a learned function has no dp-accounting event"
        )
