"""Local randomisers for gradient submissions (Ono and Takahashi 2020, section 3.1).

Every function randomises each row of a batch ``g`` of shape ``(n, d)`` independently.

* :func:`laplace_gradient_mechanism` (Algorithm 2): L1 clipping to ``C/2`` (eq. 19; clipped
  gradients differ by at most ``C``, eq. 20), then Laplace noise of scale about ``C/epsilon``
  (eq. 21), by default on a power-of-two grid with exact discrete Laplace noise: epsilon-LDP on
  doubles with an exact epsilon at most the target (:func:`laplace_grid_scale`,
  ``GridLaplaceReportEvent``). ``floating_point=True`` is the textbook form, not private on real
  computers (Mironov 2012).
* :func:`bit_flip` (eq. 4): ``x in [-1, 1]`` reported ``+1`` with probability
  ``1/(e^eps + 1) + (x + 1)/2 (e^eps - 1)/(e^eps + 1)``, epsilon-LDP; on doubles that probability
  is realised exactly as ``ceil(p 2^53) 2^-53`` (:func:`realised_probability`) and clamped to
  ``[q, 1 - q]`` with ``(1 - q)/q <= e^eps`` (:func:`flip_floor`).
* :func:`projected_random_sign` (Algorithm 3, PRS): a fresh sparse projection ``M`` (eq. 5),
  ``u = M g`` clipped to ``[-C, C]`` (eq. 23), a bit flip of each ``u_bar_i / C`` at
  ``epsilon / d_hat`` (the corrected eq. 24, :func:`sign_probability`), output ``M^T u_tilde``:
  the ``d_hat`` signs compose to epsilon-LDP, ``M^T`` is post-processing.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np

from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import check_array, check_epsilon, check_int, check_positive

SQRT3 = math.sqrt(3.0)
#: numpy's ``Generator.random()`` returns ``k / RANDOM_RESOLUTION`` for ``k`` uniform on
#: ``{0, ..., 2^53 - 1}`` (the top 53 bits of a 64-bit draw), so ``random() < p`` has
#: probability ``ceil(p 2^53) / 2^53`` exactly.
RANDOM_RESOLUTION = 2**53


def _as_batch(g: object, name: str = "g") -> np.ndarray:
    arr = check_array(g, name, ndim=(1, 2))
    return arr[None, :] if arr.ndim == 1 else arr


def clip_l1(g: np.ndarray, bound: float) -> np.ndarray:
    """Eq. (19) with ``C/2 = bound``: each row ``g / max(1, ||g||_1 / bound)``."""
    bound = check_positive(bound, "bound")
    g = _as_batch(g)
    norms = np.abs(g).sum(axis=1, keepdims=True)
    return g / np.maximum(1.0, norms / bound)


def laplace_scale(clip: float, epsilon: float) -> float:
    """Per-coordinate Laplace scale ``b = C / epsilon`` of Algorithm 2 (eq. 21); 0 for inf."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    clip = check_positive(clip, "clip", allow_inf=True)
    return 0.0 if math.isinf(epsilon) else clip / epsilon


def laplace_grid_scale(
    clip: float, epsilon: float, d: int, step: float = dl.DEFAULT_STEP
) -> Fraction:
    """Discrete Laplace scale ``t`` (grid units) of Algorithm 2 released on the grid ``step``:
    :func:`~privrl.core.mechanisms.discrete_laplace.grid_scale` at the L1 sensitivity ``C`` of the
    clipped gradients (clip to ``C/2``, eqs. 19-20), so the exact epsilon is at most ``epsilon``."""
    return dl.grid_scale(clip, epsilon, d, step)


def laplace_gradient_parts(
    g: np.ndarray,
    epsilon: float,
    clip: float,
    rng: SeedLike,
    clipped: bool = True,
    floating_point: bool = False,
    step: float = dl.DEFAULT_STEP,
    inversion: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2 in its two parts ``(gbar, noise)``; the submission is ``gbar + noise``
    (:func:`laplace_gradient_mechanism`).

    ``gbar`` is each row of ``g`` clipped to L1 norm ``clip/2`` (eq. 19). By default (the private
    release) ``gbar`` is then rounded to the grid ``step`` (a power of two) and ``noise`` is
    ``step`` times exact discrete Laplace integers of scale :func:`laplace_grid_scale` (eq. 21 on
    the grid): both parts are multiples of ``step``, so ``gbar + noise`` is computed exactly and
    is the grid release, epsilon-LDP on IEEE doubles with the exact epsilon of
    ``GridLaplaceReportEvent``. ``floating_point=True`` instead keeps ``gbar`` unrounded and draws
    ``noise`` as i.i.d. floating-point ``Laplace(clip/epsilon)``: the textbook mechanism, **not
    private on real computers** (Mironov 2012); kept for comparison only.

    ``epsilon = inf`` gives zero noise (and no rounding); ``clip = inf`` (no clipping) is allowed
    only then. ``clipped=False`` skips eq. (19) and keeps the noise scale of sensitivity ``clip``:
    that voids the guarantee (inputs of L1 norm ``C`` are ``2C`` apart); it is the Audits
    chapter's weakened release, nothing else. ``inversion`` draws the integers with
    :func:`~privrl.core.mechanisms.discrete_laplace.sample_discrete_laplace_inversion` (the same
    law, faster, another use of the random stream).
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    clip = check_positive(clip, "clip", allow_inf=True)
    if math.isinf(clip) and not math.isinf(epsilon):
        raise ValueError("clip = inf (no clipping) is only allowed with epsilon = inf")
    gbar = _as_batch(g) if math.isinf(clip) or not clipped else clip_l1(g, clip / 2.0)
    if math.isinf(epsilon):
        return gbar, np.zeros_like(gbar)
    gen = as_generator(rng)
    if floating_point:
        return gbar, gen.laplace(0.0, laplace_scale(clip, epsilon), size=gbar.shape)
    scale = dl.check_scale(laplace_grid_scale(clip, epsilon, gbar.shape[1], step), step)
    centre = dl.grid_centre(gbar, step)
    return centre * step, dl.bounded_noise(scale, gbar.shape, gen, inversion) * step


def laplace_gradient_mechanism(
    g: np.ndarray,
    epsilon: float,
    clip: float,
    rng: SeedLike,
    clipped: bool = True,
    floating_point: bool = False,
    step: float = dl.DEFAULT_STEP,
) -> np.ndarray:
    """Algorithm 2: clip each row to L1 norm ``clip/2`` (eq. 19), add Laplace noise of scale
    about ``clip/epsilon`` (eq. 21) -- by default on the grid ``step`` with exact discrete Laplace
    noise, epsilon-LDP on IEEE doubles; ``floating_point=True``: the textbook floating-point
    Laplace, not private on real computers (see :func:`laplace_gradient_parts`).

    epsilon-LDP for each row (Lemma 2): clipped rows are within L1 distance ``clip`` (eq. 20).
    ``epsilon = inf`` returns the clipped gradient without noise (the non-private limit used for
    the paper's baseline). ``clipped=False`` skips the clip and voids the guarantee.
    Returns an array of shape ``(n, d)``.
    """
    gbar, noise = laplace_gradient_parts(g, epsilon, clip, rng, clipped, floating_point, step)
    return gbar + noise


def realised_probability(p: np.ndarray) -> np.ndarray:
    """The probability, exactly, that ``Generator.random() < p`` for ``p`` in [0, 1]:
    ``ceil(p 2^53) / 2^53`` (a double, exact: :data:`RANDOM_RESOLUTION`)."""
    p = check_array(p, "p")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p must lie in [0, 1]")
    return np.ceil(p * RANDOM_RESOLUTION) / RANDOM_RESOLUTION


@functools.lru_cache(maxsize=1024)
def flip_floor(epsilon: float) -> float:
    """The smallest ``q = K / 2^53`` (``K >= 1``) with ``(1 - q) / q <= e^epsilon``: the clamp of
    :func:`bit_flip_probability`, and the least probability with which a sign drawn with budget
    ``epsilon`` is reported wrongly (:class:`~privrl.core.accounting.local.BitFlipEvent`'s
    ``flip_probability``). ``q = 1 / (e^epsilon + 1)`` rounded up to the grid, by mpmath at 50
    digits and checked there; ``2^-53`` from ``epsilon = log(2^53 - 1) = 36.7`` on."""
    epsilon = check_epsilon(epsilon)
    n = RANDOM_RESOLUTION
    with mpmath.workdps(50):
        bound = mpmath.exp(mpmath.mpf(epsilon))
        k = max(1, int(mpmath.ceil(n / (bound + 1))))
        if n - k > k * bound or (k > 1 and n - (k - 1) <= (k - 1) * bound):
            raise RuntimeError(f"flip_floor: K = {k} is not the least grid point at {epsilon!r}")
    return k / n


def bit_flip_probability(x: np.ndarray, epsilon: float) -> np.ndarray:
    """Probability that eq. (4) reports ``+1`` for ``x in [-1, 1]`` with budget ``epsilon``,
    clamped to ``[q, 1 - q]`` with ``q`` = :func:`flip_floor` (``epsilon`` finite): drawn as
    ``random() < p``, either sign has probability at least ``q`` (:func:`realised_probability`)
    and their ratio over inputs is at most ``(1 - q) / q <= e^epsilon``."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    x = check_array(x, "x")
    if np.any(np.abs(x) > 1):
        raise ValueError("x must lie in [-1, 1]; clip it first")
    if math.isinf(epsilon):
        return (x + 1.0) / 2.0
    if epsilon > 700:  # exp(epsilon) overflows a double near 709
        raise ValueError(f"epsilon must be at most 700 per sign, got {epsilon:g}")
    e = math.exp(epsilon)
    q = flip_floor(epsilon)
    return np.clip(1.0 / (e + 1.0) + (x + 1.0) / 2.0 * (e - 1.0) / (e + 1.0), q, 1.0 - q)


def bit_flip(x: np.ndarray, epsilon: float, rng: SeedLike) -> np.ndarray:
    """Eq. (4): report each entry of ``x in [-1, 1]`` as ``+1`` or ``-1``; epsilon-LDP per entry.

    ``E[output] = x (e^eps - 1)/(e^eps + 1) = x tanh(eps/2)``.
    """
    p = bit_flip_probability(x, epsilon)
    return np.where(as_generator(rng).random(p.shape) < p, 1.0, -1.0)


def default_projection_dim(epsilon: float, d: int) -> int:
    """``d_hat = max(1, min(d, floor(epsilon / 2.5)))`` (section 4, after Wang et al. 2019)."""
    epsilon = check_epsilon(epsilon, allow_inf=True)
    d = check_int(d, "d", minimum=1)
    if math.isinf(epsilon):
        return d
    return max(1, min(d, math.floor(epsilon / 2.5)))


def random_projection(n: int, d_hat: int, d: int, rng: SeedLike) -> np.ndarray:
    """``n`` sparse random matrices of eq. (5): entries ``-sqrt3, 0, +sqrt3`` w.p. 1/6, 2/3, 1/6.

    Shape ``(n, d_hat, d)``. Each entry has mean 0 and variance 1, so ``E[M^T M] = d_hat I``
    (Achlioptas 2001).
    """
    n = check_int(n, "n", minimum=0)
    d_hat = check_int(d_hat, "d_hat", minimum=1)
    d = check_int(d, "d", minimum=1)
    u = as_generator(rng).random((n, d_hat, d))
    return np.where(u < 1 / 6, -SQRT3, np.where(u < 5 / 6, 0.0, SQRT3))


def sign_probability(u_bar: np.ndarray, epsilon: float, d_hat: int, clip: float) -> np.ndarray:
    """Corrected eq. (24): ``P(u_tilde_i = +C | u_bar_i)`` with ``eps' = epsilon / d_hat``.

    ``1/(e^{eps'} + 1) + (u_bar_i + C)/(2C) (e^{eps'} - 1)/(e^{eps'} + 1)``, i.e. eq. (4) applied
    to ``u_bar_i / C``. (The paper prints ``epsilon/k`` in the first term and ``epsilon/d_hat`` in
    the second; with two different budgets the probabilities need not stay in ``[0, 1]`` nor the
    ratio below ``e^{eps'}``.)
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    d_hat = check_int(d_hat, "d_hat", minimum=1)
    clip = check_positive(clip, "clip")
    return bit_flip_probability(np.asarray(u_bar, dtype=float) / clip, epsilon / d_hat)


def projection(matrix: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``u = M g`` for each row (``matrix`` (n, d_hat, d), ``g`` (n, d)), an entry that
    overflows to NaN (inf - inf near the double range) counted as 0: a function of the row and
    its matrix alone."""
    u = np.einsum("nkd,nd->nk", matrix, g)
    return np.where(np.isnan(u), 0.0, u)


def clipped_projection(matrix: np.ndarray, g: np.ndarray, clip: float) -> np.ndarray:
    """``u_bar = clip(M g, -C, C)`` (eq. 23): what :func:`projected_random_sign` randomises,
    every entry in ``[-clip, clip]`` whatever ``g``."""
    return np.clip(projection(matrix, g), -clip, clip)


def projected_random_sign(
    g: np.ndarray,
    epsilon: float,
    clip: float,
    rng: SeedLike,
    d_hat: int | None = None,
    matrix: np.ndarray | None = None,
) -> np.ndarray:
    """Algorithm 3 (PRS) on each row of ``g`` (n, d); returns ``M^T u_tilde``, shape ``(n, d)``.

    ``M`` is drawn fresh per row from eq. (5) unless ``matrix`` (n, d_hat, d) is given;
    ``u = M g`` (an entry that overflows to NaN counts as 0: a function of the row alone, so the
    guarantee stands); ``u_bar = clip(u, -C, C)`` (eq. 23); ``u_tilde_i in {-C, +C}`` from the corrected
    eq. (24) with budget ``epsilon / d_hat`` per coordinate. epsilon-LDP per row (Lemma 3): the
    ``d_hat`` independent signs each have likelihood ratio at most ``e^{epsilon/d_hat}``.

    In expectation, ``E[u_tilde | M] = tanh(epsilon / (2 d_hat)) u_bar``; without active clipping,
    ``E[M^T u_tilde] = d_hat tanh(epsilon / (2 d_hat)) g`` (the shrinkage checked in the chapter).
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    clip = check_positive(clip, "clip")
    g = _as_batch(g)
    n, d = g.shape
    gen = as_generator(rng)
    if matrix is None:
        d_hat = default_projection_dim(epsilon, d) if d_hat is None else d_hat
        d_hat = check_int(d_hat, "d_hat", minimum=1)
        matrix = random_projection(n, d_hat, d, gen)
    else:
        matrix = check_array(matrix, "matrix", ndim=3)
        if matrix.shape[0] != n or matrix.shape[2] != d:
            raise ValueError(f"matrix must have shape ({n}, d_hat, {d}), got {matrix.shape}")
        d_hat = matrix.shape[1]
    u_bar = clipped_projection(matrix, g, clip)
    p = sign_probability(u_bar, epsilon, d_hat, clip)
    u_tilde = np.where(gen.random(p.shape) < p, clip, -clip)
    return np.einsum("nkd,nk->nd", matrix, u_tilde)


def laplace_worst_log_ratio(
    epsilon: float, clip: float, d: int, floating_point: bool = False, step: float = dl.DEFAULT_STEP
) -> float:
    """Exact worst-case log probability ratio of Algorithm 2 as implemented, by closed form, on
    antipodal inputs far outside the clip ball (one coordinate, and all ``d`` coordinates).

    For inputs ``g, g'`` the log ratio is at most ``||c - c'||_1 / b``, attained for outputs
    beyond both centres, with ``c`` the released centres and ``b`` the noise scale. Default (the
    grid release): ``c`` the clipped inputs rounded to the grid (:func:`clip_l1`, then rounding)
    in grid units and ``b`` :func:`laplace_grid_scale`; ``floating_point=True``: ``c`` the
    clipped inputs and ``b`` :func:`laplace_scale` (the real-number analysis of the textbook
    mechanism). A weakened clip or scale raises the value.
    """
    epsilon = check_epsilon(epsilon)
    clip = check_positive(clip, "clip")
    d = check_int(d, "d", minimum=1)
    big = 1e6 * clip
    inputs = np.zeros((2, d))
    inputs[0, 0] = big
    inputs[1] = big
    worst = 0.0
    for g in inputs:
        gbar = clip_l1(np.stack([g, -g]), clip / 2.0)
        if floating_point:
            distance = Fraction(float(np.abs(gbar[0] - gbar[1]).sum()))
            ratio = distance / Fraction(laplace_scale(clip, epsilon))
        else:
            centres = np.rint(gbar / step).astype(np.int64)
            distance = Fraction(int(np.abs(centres[0] - centres[1]).sum()))
            ratio = distance / laplace_grid_scale(clip, epsilon, d, step)
        worst = max(worst, float(ratio))
    return worst


def prs_worst_log_ratio(
    epsilon: float, d_hat: int, clip: float = 1.0, per_coordinate_epsilon: float | None = None
) -> float:
    """Exact worst-case log-likelihood ratio of PRS's sign vector given ``M``, by enumeration.

    Enumerates every pair of projected inputs with each coordinate at ``-C``, ``0`` or ``+C``
    after clipping (eq. 23; the sign probabilities are monotone in ``u_bar_i``, so the extremes
    are attained there) and every output sign pattern, using :func:`sign_probability` (budget
    ``epsilon / d_hat`` per sign). ``per_coordinate_epsilon`` replaces that budget (to show that
    a weakened mechanism exceeds ``epsilon``). ``3^d_hat`` inputs; ``d_hat <= 6``.
    """
    import itertools

    epsilon = check_epsilon(epsilon)
    d_hat = check_int(d_hat, "d_hat", minimum=1)
    if d_hat > 6:
        raise ValueError(f"d_hat must be <= 6 for the enumeration, got {d_hat}")
    levels = np.array(list(itertools.product([-clip, 0.0, clip], repeat=d_hat)))
    if per_coordinate_epsilon is None:
        p = sign_probability(levels, epsilon, d_hat, clip)
    else:
        p = bit_flip_probability(levels / clip, per_coordinate_epsilon)
    log_p, log_q = np.log(p), np.log1p(-p)
    # worst output: per coordinate the larger of the two sign log-ratios
    per_sign = np.maximum(
        log_p[:, None, :] - log_p[None, :, :], log_q[:, None, :] - log_q[None, :, :]
    )
    return float(per_sign.sum(axis=2).max())
