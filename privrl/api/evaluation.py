r"""Private policy evaluation as releases: GPOPE (Xie, Thomas, Miklau 2019), DP-LSW, DP-LSL
(Balle, Gomrokchi, Precup 2016) and SSP-LSTD, each taking one
:class:`~privrl.core.trajectories.Trajectories`.

* :func:`gpope`: GTD2's primal-dual gradient (eq. 4.1) on one trajectory drawn per iteration,
  clipped to :math:`\ell_2` norm :math:`G`, on a grid, plus exact discrete Gaussian noise of scale
  about :math:`2Gz`; accounted under replace-one by Theorem 9 of Wang, Balle and
  Kasiviswanathan 2019 (:class:`~privrl.core.accounting.subsampled.GridGpopeEvent`), :math:`z`
  calibrated to the target epsilon from the data's :math:`n` and :math:`T` (or given).
* :func:`dp_lsw`, :func:`dp_lsl`: the least-squares fits of first-visit returns (eqs. 3, 7-8)
  plus :math:`N(0, \sigma_X^2 I)`, :math:`\sigma_X` from a smooth bound (Lemma 1, Algorithms
  1-2), each coordinate the double nearest to the real sum. Returns are clipped to
  :math:`[F_{low}, F_{low} + F_{max}]` (``return_low``, ``return_bound``) with a
  :class:`~privrl.core.validation.ClippedDataWarning` (``strict=True``: a ``ValueError``).
* :func:`ssp_lstd`: LSTD(0)'s :math:`(\mathrm{vec}\,A, b)` with exact discrete Gaussian noise on
  a grid for sensitivity :math:`2L\sqrt{F^4(1+\gamma)^2 + F^2R^2}`, solved with a public ridge
  :math:`\lambda` (:mod:`privrl.core.algorithms.ssp_lstd`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from privrl.api.release import Release, release_rng
from privrl.core.accounting.discrete_gaussian import required_noise_multiplier
from privrl.core.accounting.events import DpAccountingEvent
from privrl.core.accounting.gpope_pld import GpopePldEvent, calibrate_pld_noise_multiplier
from privrl.core.accounting.smooth_sensitivity import SmoothGaussianEvent
from privrl.core.accounting.subsampled import (
    GpopeEvent,
    GridGpopeEvent,
    calibrate_grid_noise_multiplier,
    calibrate_noise_multiplier,
)
from privrl.core.algorithms import gtd, monte_carlo
from privrl.core.algorithms import ssp_lstd as ssp
from privrl.core.mechanisms.discrete_gaussian import GridGaussian
from privrl.core.rng import SeedLike
from privrl.core.trajectories import Trajectories
from privrl.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    warn_or_refuse,
)


def _check_trajectories(trajectories: object) -> Trajectories:
    if not isinstance(trajectories, Trajectories):
        raise ValueError(
            f"trajectories must be a privrl.Trajectories, got {type(trajectories).__name__}"
        )
    return trajectories


def gpope(
    trajectories: Trajectories,
    *,
    gamma: float,
    delta: float,
    iterations: int,
    step_size: float,
    clip_norm: float,
    rng: SeedLike | None = None,
    features: object | None = None,
    rho: object | None = None,
    epsilon: float | None = None,
    noise_multiplier: float | None = None,
    step: float | None = None,
    strict: bool = False,
) -> Release:
    r"""GPOPE (Algorithm 1): GTD2 weights after ``iterations`` noisy steps, private on doubles.

    ``trajectories``: integer states with ``features`` (N, d), or feature vectors (m, H + 1, d) as
    observations; ``rho`` (m, H) importance ratios (``None``: on-policy). Give ``epsilon`` (``z``
    calibrated for this ``n`` and ``iterations``) or ``noise_multiplier``. Each gradient is clipped
    to ``clip_norm`` :math:`G` (a ``ClippedDataWarning``; ``strict=True``: ``ValueError``), rounded
    to the grid ``step`` and gets exact discrete Gaussian noise; neighbours lie at most :math:`G_Z =
    2G(1 + 2^{-30})/\text{step} + \sqrt{2d}` grid units apart, accounted by Wang, Balle and
    Kasiviswanathan 2019, Theorem 9 (``GridGpopeEvent``). Parameters under which the arithmetic
    could overflow are refused. ``parameters``: ``noise_multiplier``, ``noise_std`` (:math:`\ge
    2Gz`), ``step``, ``clip_norm``, ``iterations``, ``n``, ``step_size``.

    >>> import numpy as np, privrl
    >>> data = privrl.Trajectories(observations=np.array([[0, 1, 2], [1, 2, 2]]),
    ...     actions=np.zeros((2, 2), int), rewards=np.array([[0.0, 1.0], [1.0, 0.0]]),
    ...     lengths=np.array([2, 1]), terminated=np.array([True, True]))
    >>> r = privrl.gpope(data, features=np.eye(3), gamma=0.9, epsilon=2.0, delta=1e-3,
    ...                  iterations=50, step_size=0.1, clip_norm=1.0, rng=0)
    >>> r.epsilon <= 2.0, r.value.shape, r.parameters["n"]
    (True, (3,), 2)
    """
    traj = _check_trajectories(trajectories)
    delta = check_delta(delta)
    iterations = check_int(iterations, "iterations", minimum=1)
    clip_norm = check_positive(clip_norm, "clip_norm")
    step_size = check_positive(step_size, "step_size")
    if (epsilon is None) == (noise_multiplier is None):
        raise ValueError("epsilon, noise_multiplier: give exactly one")
    rho = None if rho is None else check_array(rho, "rho")
    if rho is not None and np.any(rho < 0):
        raise ValueError("rho must be non-negative: importance ratios pi(a|s) / mu(a|s)")
    phi = None if features is None else check_array(features, "features", ndim=2)
    reach = _feature_reach(phi)
    n = traj.n_trajectories
    if epsilon is not None:
        z = gpope_noise(epsilon=epsilon, delta=delta, n=n, iterations=iterations).noise_multiplier
    else:
        z = check_positive(noise_multiplier, "noise_multiplier")
    if phi is None and traj.observations.ndim != 3:
        raise ValueError(
            "features: give the (N, d) features of integer states, or "
            "observations of shape (m, H + 1, d)"
        )
    dim = phi.shape[1] if phi is not None else int(traj.observations.shape[-1])
    noise, event = grid_gpope_noise(z, clip_norm, dim, n, iterations, step)  # before any (d, d)
    if epsilon is not None and event.epsilon(delta) > epsilon:  # s >= (z G_Z)^2 exactly
        raise RuntimeError(
            f"the GPOPE calibration missed its target: epsilon "
            f"{event.epsilon(delta)!r} > {epsilon!r}"
        )
    _check_iterate_bound(
        iterations * step_size * (clip_norm * gtd.CLIP_MARGIN + NOISE_TAIL * noise.sigma), reach
    )
    stats = gtd.SaddlePointStats.from_trajectories(traj, gamma, phi, rho)
    run = gtd.gpope(stats, iterations, step_size, clip_norm, 0.0, release_rng(rng), grid=noise)
    if run.clipped_fraction > 0:
        warn_or_refuse(
            f"clip_norm: gradients lie beyond the L2 norm clip_norm = {clip_norm:g} "
            "the privacy analysis assumes",
            "clipped to it",
            strict,
            stacklevel=2,
        )
    return Release.from_event(
        run.theta[0],
        event,
        delta,
        relation="replace-one trajectory",
        noise_multiplier=event.noise_multiplier,
        noise_std=noise.sigma,
        step=noise.step,
        clip_norm=clip_norm,
        iterations=iterations,
        n=n,
        step_size=step_size,
    )


#: Relative tolerance of the floating-point GPOPE calibrations (``exact=False``).
FLOAT_GPOPE_RTOL = 1e-2


@dataclass(frozen=True)
class GpopeNoise:
    """The calibration of GPOPE's noise: the noise multiplier :math:`z` (noise standard deviation
    :math:`2Gz` for clip norm :math:`G`) and ``event``, the guarantee of the run at :math:`z`."""

    noise_multiplier: float
    event: GridGpopeEvent | GpopeEvent | GpopePldEvent


def gpope_noise(
    *,
    epsilon: float,
    delta: float,
    n: int,
    iterations: int,
    exact: bool = True,
    accountant: Literal["rdp", "pld"] = "rdp",
) -> GpopeNoise:
    r"""The smallest noise multiplier :math:`z` whose GPOPE run of ``iterations`` steps on ``n``
    trajectories (replace-one) is ``(epsilon, delta)``-DP, never above the target.

    ``exact=True`` (:func:`gpope`'s): grid noise, Theorem 9's bound
    (:func:`~privrl.core.accounting.subsampled.calibrate_grid_noise_multiplier`,
    :class:`~privrl.core.accounting.subsampled.GridGpopeEvent`; the grid noise built for
    :math:`z` has a multiplier at least :math:`z`). ``exact=False``: the paper's floating-point
    Gaussian, to :data:`FLOAT_GPOPE_RTOL`, by privrl's RDP accountant for sampling without
    replacement (``accountant="rdp"``:
    :class:`~privrl.core.accounting.subsampled.GpopeEvent`) or the tight PLD accountant
    (``"pld"``: :class:`~privrl.core.accounting.gpope_pld.GpopePldEvent`). A ``ValueError``
    names ``accountant`` when it is ``"pld"`` with ``exact=True`` (no PLD bound for the grid)."""
    accountant = _gpope_accountant(accountant, exact)
    if exact:
        z = calibrate_grid_noise_multiplier(epsilon, delta, n, iterations)
    elif accountant == "pld":
        z = calibrate_pld_noise_multiplier(epsilon, delta, n, iterations, rtol=FLOAT_GPOPE_RTOL)
    else:
        z = calibrate_noise_multiplier(epsilon, delta, n, iterations, rtol=FLOAT_GPOPE_RTOL)
    return GpopeNoise(
        z, gpope_event(z, n=n, iterations=iterations, exact=exact, accountant=accountant)
    )


def _gpope_accountant(accountant: str, exact: bool) -> Literal["rdp", "pld"]:
    """``accountant`` checked: ``"rdp"`` or ``"pld"``, and ``"rdp"`` for the grid noise."""
    checked: Literal["rdp", "pld"] = check_choice(accountant, "accountant", ("rdp", "pld"))
    if exact and checked != "rdp":
        raise ValueError(
            "accountant: the grid noise (exact=True) is accounted by RDP only; give "
            "accountant='rdp' or exact=False"
        )
    return checked


def gpope_event(
    noise_multiplier: float,
    *,
    n: int,
    iterations: int,
    exact: bool = True,
    accountant: Literal["rdp", "pld"] = "rdp",
) -> GridGpopeEvent | GpopeEvent | GpopePldEvent:
    """The guarantee of a GPOPE run of ``iterations`` steps on ``n`` trajectories (replace-one)
    at a given ``noise_multiplier`` :math:`z`, under the accountant :func:`gpope_noise` uses for
    the same ``exact`` and ``accountant`` (the event it returns at that :math:`z`): for a
    :math:`z` calibrated earlier and stored. ``ValueError`` names a non-positive
    ``noise_multiplier``, ``n`` or ``iterations`` below 1, or the PLD with the grid noise."""
    z = check_positive(noise_multiplier, "noise_multiplier")
    n, iterations = check_int(n, "n", minimum=1), check_int(iterations, "iterations", minimum=1)
    accountant = _gpope_accountant(accountant, exact)
    if exact:
        return GridGpopeEvent(z, n, iterations)
    return (GpopePldEvent if accountant == "pld" else GpopeEvent)(z, n, iterations)


#: Standard deviations of grid noise per coordinate and step that :func:`gpope`'s bound on its
#: iterates allows for (a larger draw has probability below e^-2048).
NOISE_TAIL = 64.0


def _feature_reach(phi: np.ndarray | None) -> float:
    r""":math:`3d\max|\phi|^2`, a bound on the row sums of GPOPE's gradient matrix (on-policy)
    from the public ``features``; 1 without them (feature observations are data, not public).
    A ``ValueError`` names ``features`` when it overflows a double: GPOPE's statistics would
    overflow whatever the data."""
    if phi is None:
        return 1.0
    peak = float(np.max(np.abs(phi), initial=0.0))
    reach = 3.0 * phi.shape[1] * peak * peak
    if not math.isfinite(reach):
        raise ValueError(
            f"features: entries up to {peak:.4g} overflow GPOPE's products of "
            "features (3 d max|features|^2 is not a double); rescale them"
        )
    return reach


def _check_iterate_bound(iterate_bound: float, reach: float) -> None:
    """Refuse a ``step_size`` with which GPOPE's iterates or their gradients could overflow a
    double whatever the data: ``iterate_bound`` (iterations x step_size x (clip bound +
    :data:`NOISE_TAIL` noise standard deviations)) bounds every coordinate of the iterates,
    and ``reach`` (:func:`_feature_reach`) times it the gradients."""
    if not math.isfinite(iterate_bound * max(reach, 1.0)):
        raise ValueError(
            f"step_size: the iterates could reach {iterate_bound:.4g} (iterations x "
            f"step_size x the clipped gradient and its noise) and their gradients "
            f"{reach:.4g} times that, beyond a double; choose a smaller step_size"
        )


def grid_gpope_noise(
    z: float, clip_norm: float, dim: int, n: int, iterations: int, step: float | None = None
) -> tuple[GridGaussian, GridGpopeEvent]:
    """The grid noise :func:`gpope` adds to each clipped gradient (``2 dim`` coordinates for
    ``dim`` features) at noise multiplier at least ``z``, and the event of ``iterations`` such
    steps on ``n`` trajectories: :meth:`GridGaussian.for_multiplier` at the clipped gradient's
    sensitivity on doubles (:func:`~privrl.core.algorithms.gtd.grid_gradient_sensitivity`)."""
    sensitivity = gtd.grid_gradient_sensitivity(clip_norm, dim, "features")
    noise = GridGaussian.for_multiplier(z, sensitivity, 2 * dim, step, "features")
    event = GridGpopeEvent(noise.noise_multiplier(sensitivity, 2 * dim), n, iterations)
    return noise, event


def _first_visit(
    traj: Trajectories, n_states: int, gamma: float, features: object, weights: object | None
) -> tuple[monte_carlo.FirstVisitReturns, np.ndarray, np.ndarray]:
    """The first-visit returns, ``features`` and ``weights`` of DP-LSW and DP-LSL, checked: the
    features (one row per state) before anything of size ``n_states`` is allocated."""
    n_states = check_int(n_states, "n_states", minimum=1)
    phi = check_array(features, "features", ndim=2)
    if phi.shape[0] != n_states:
        raise ValueError(
            f"features must have n_states = {n_states} rows (one per state), got {phi.shape[0]}"
        )
    rho = np.full(n_states, 1.0 / n_states) if weights is None else weights
    rho = check_array(rho, "weights", shape=(n_states,))
    fv = monte_carlo.first_visit_returns(_check_trajectories(traj), n_states, gamma)
    return fv, phi, rho


@dataclass(frozen=True)
class SmoothGaussianNoise:
    r"""The calibration of DP-LSW and DP-LSL (Lemma 1, Algorithms 1-2): ``budget`` (the target
    :math:`(\varepsilon, \delta)` and the return interval, validated) and ``event`` (Lemma 1's
    :math:`(\alpha, \beta)` in dimension :math:`d`). The noise scale of a release is
    :math:`\sigma_X = \alpha \cdot` (a smooth bound of the data), :meth:`sigma`."""

    budget: monte_carlo.SmoothGaussianBudget
    event: SmoothGaussianEvent

    def sigma(
        self,
        fv: monte_carlo.FirstVisitReturns,
        phi: np.ndarray,
        rho: np.ndarray,
        lam: float | None = None,
    ) -> float:
        r""":math:`\sigma_X` of DP-LSW on ``fv`` (``lam=None``), else of DP-LSL at ``lam``."""
        if lam is None:
            return monte_carlo.dp_lsw_sigma(fv.counts, phi, rho, self.budget)
        return monte_carlo.dp_lsl_sigma(fv.counts, fv.m, phi, rho, lam, self.budget)


def smooth_gaussian_noise(
    *, epsilon: float, delta: float, return_bound: float, d: int, return_low: float = 0.0
) -> SmoothGaussianNoise:
    """The calibration :func:`dp_lsw` and :func:`dp_lsl` release with, for output dimension
    ``d``, returns in ``[return_low, return_low + return_bound]`` and target
    ``(epsilon, delta)``: its event's epsilon at ``delta`` is ``epsilon`` (Lemma 1 inverted)."""
    budget = monte_carlo.SmoothGaussianBudget(epsilon, delta, return_bound, return_low)
    return SmoothGaussianNoise(
        budget, SmoothGaussianEvent.calibrated(budget.epsilon, budget.delta, d)
    )


def _smooth_release(
    est: monte_carlo.PrivateEstimate, noise: SmoothGaussianNoise, **extra: float
) -> Release:
    budget, event = noise.budget, noise.event
    return Release.from_event(
        est.theta,
        event,
        budget.delta,
        relation="replace-one trajectory",
        alpha=event.alpha,
        beta=event.beta,
        return_bound=budget.return_bound,
        return_low=budget.return_low,
        **extra,
    )


def dp_lsw(
    trajectories: Trajectories,
    *,
    n_states: int,
    gamma: float,
    features: object,
    epsilon: float,
    delta: float,
    return_bound: float,
    rng: SeedLike | None = None,
    return_low: float = 0.0,
    weights: object | None = None,
    strict: bool = False,
) -> Release:
    r"""DP-LSW (Algorithm 1): the :math:`\rho`-weighted least-squares fit of the mean first-visit
    returns, :math:`(\Gamma^{1/2}\Phi)^+\Gamma^{1/2}\bar F_X` (eq. 3), plus :math:`N(0, \sigma_X^2
    I)`, :math:`\sigma_X = \alpha F_{max}\|(\Gamma^{1/2}\Phi)^+\|_2\sqrt{\Psi_\beta(X)}` (Lemma 1).

    ``trajectories``: integer states in ``[0, n_states)``; ``features`` :math:`\Phi` (N, d);
    ``weights`` :math:`\rho` (N,) (default uniform); returns outside ``[return_low, return_low +
    return_bound]`` are clipped with a warning (``strict=True`` raises). Replace-one trajectory;
    ``epsilon`` below ``lemma1_epsilon_limit(delta)``, else ``ValueError``. Event:
    ``SmoothGaussianEvent``; ``parameters``: ``alpha``, ``beta``, ``return_bound``, ``return_low``
    (not :math:`\sigma_X`, a function of the data). The noise is exact and each coordinate rounded
    to the nearest double (``rounded_gaussian``): private on doubles.

    >>> import numpy as np, privrl
    >>> data = privrl.Trajectories(observations=np.array([[0, 1, 2], [1, 2, 2]]),
    ...     actions=np.zeros((2, 2), int), rewards=np.array([[0.0, 1.0], [1.0, 0.0]]),
    ...     lengths=np.array([2, 1]), terminated=np.array([True, True]))
    >>> r = privrl.dp_lsw(data, n_states=3, gamma=0.9, features=np.eye(3), epsilon=1.0,
    ...                   delta=0.1, return_bound=1.0, rng=0)
    >>> round(r.epsilon, 12), r.value.shape
    (1.0, (3,))
    """
    fv, phi, rho = _first_visit(trajectories, n_states, gamma, features, weights)
    noise = smooth_gaussian_noise(
        epsilon=epsilon,
        delta=delta,
        return_bound=return_bound,
        d=phi.shape[1],
        return_low=return_low,
    )
    est = monte_carlo.dp_lsw(
        fv, phi, rho, noise.budget, release_rng(rng), strict=strict, exact=True
    )
    return _smooth_release(est, noise)


def dp_lsl(
    trajectories: Trajectories,
    *,
    n_states: int,
    gamma: float,
    features: object,
    lam: float,
    epsilon: float,
    delta: float,
    return_bound: float,
    rng: SeedLike | None = None,
    return_low: float = 0.0,
    weights: object | None = None,
    strict: bool = False,
) -> Release:
    r"""DP-LSL (Algorithm 2): the ridge fit :math:`(\Phi^\top\Gamma_X\Phi +
    \frac{\lambda}{2m}I)^{-1}\Phi^\top\Gamma_X\bar F_X` (eqs. 7-8) plus :math:`N(0,\sigma_X^2 I)`,
    :math:`\sigma_X = \frac{2\alpha F_{max}\|\Phi\|}{\lambda - \|\rho\|_\infty\|\Phi\|^2}
    \sqrt{\Psi^\lambda_\beta(X)}`; needs ``lam`` :math:`> \|\rho\|_\infty\|\Phi\|^2`.

    Arguments, clipping, neighbours, valid range, event, ``parameters`` and the correctly rounded
    noise as :func:`dp_lsw`
    (plus ``lam``).

    >>> import numpy as np, privrl
    >>> data = privrl.Trajectories(observations=np.array([[0, 1, 2], [1, 2, 2]]),
    ...     actions=np.zeros((2, 2), int), rewards=np.array([[0.0, 1.0], [1.0, 0.0]]),
    ...     lengths=np.array([2, 1]), terminated=np.array([True, True]))
    >>> r = privrl.dp_lsl(data, n_states=3, gamma=0.9, features=np.eye(3), lam=2.0,
    ...                   epsilon=1.0, delta=0.1, return_bound=1.0, rng=0)
    >>> round(r.epsilon, 12), r.parameters["lam"]
    (1.0, 2.0)
    """
    fv, phi, rho = _first_visit(trajectories, n_states, gamma, features, weights)
    noise = smooth_gaussian_noise(
        epsilon=epsilon,
        delta=delta,
        return_bound=return_bound,
        d=phi.shape[1],
        return_low=return_low,
    )
    lam = check_positive(lam, "lam")
    est = monte_carlo.dp_lsl(
        fv, phi, rho, lam, noise.budget, release_rng(rng), strict=strict, exact=True
    )
    return _smooth_release(est, noise, lam=lam)


#: The largest target epsilon of SSP-LSTD (as :data:`privrl.api.mechanisms.MAX_GAUSSIAN_EPSILON`).
MAX_SSP_EPSILON = 700.0


@dataclass(frozen=True)
class SspNoise:
    """The calibration of SSP-LSTD: the Gaussian mechanism's noise multiplier ``z`` for the target,
    the grid noise built for it (multiplier at least ``z``) and ``event``, that noise's guarantee
    (:func:`~privrl.core.algorithms.ssp_lstd.ssp_noise`)."""

    noise_multiplier: float
    noise: GridGaussian
    event: DpAccountingEvent


def ssp_lstd_noise(*, epsilon: float, delta: float, bounds: ssp.SSPBounds, d: int) -> SspNoise:
    """The calibration :func:`ssp_lstd` releases with for ``d`` features within ``bounds``: the
    noise multiplier the Gaussian mechanism needs for ``(epsilon, delta)``
    (:func:`~privrl.core.accounting.discrete_gaussian.required_noise_multiplier`, as
    :func:`~privrl.api.mechanisms.gaussian_mechanism`); its event's epsilon at ``delta`` is at most
    ``epsilon`` (a ``RuntimeError`` otherwise). ``epsilon`` at most :data:`MAX_SSP_EPSILON`."""
    delta, epsilon = check_delta(delta), check_epsilon(epsilon)
    if epsilon > MAX_SSP_EPSILON:
        raise ValueError(f"epsilon must be at most {MAX_SSP_EPSILON:g} for SSP-LSTD, got {epsilon}")
    z = required_noise_multiplier(epsilon, delta)
    noise, event = ssp.ssp_noise(z, bounds, d)
    if event.epsilon(delta) > epsilon:  # s >= (z G)^2 exactly
        raise RuntimeError(
            f"the SSP-LSTD calibration missed its target: epsilon "
            f"{event.epsilon(delta)!r} > {epsilon!r}"
        )
    return SspNoise(z, noise, event)


def ssp_lstd(
    trajectories: Trajectories,
    *,
    gamma: float,
    epsilon: float,
    delta: float,
    feature_bound: float,
    reward_bound: float,
    max_length: int,
    lam: float,
    features: object | None = None,
    rng: SeedLike | None = None,
    strict: bool = False,
) -> Release:
    r"""SSP-LSTD: :math:`\hat\theta = (\tilde A + \lambda I)^{-1}\tilde b`, LSTD(0) on the sums
    :math:`A = \sum\phi(s)(\phi(s) - \gamma\phi(s'))^\top`, :math:`b = \sum\phi(s)r` (every
    transition) with exact discrete Gaussian noise on a grid for ``(epsilon, delta)`` (``epsilon``
    <= 700) at the replace-one sensitivity :math:`\Delta_2 = 2L\sqrt{F^4(1+\gamma)^2 + F^2R^2}`.

    Data as :func:`gpope`; :math:`F` (``feature_bound``), :math:`R` (``reward_bound``), :math:`L`
    (``max_length`` <= 2^20) are enforced with a ``ClippedDataWarning`` (``strict``: raises);
    ``lam`` > 0 in :math:`A`'s units, chosen on public data; ``gamma`` in [0, 1]. Event:
    ``GaussianDpEvent(sqrt(s) / G)``; ``parameters``: ``sigma``, ``noise_multiplier``,
    ``sensitivity``, ``step``, the bounds, ``n``.

    >>> import numpy as np, privrl
    >>> data = privrl.Trajectories(observations=np.array([[0, 1, 2], [1, 2, 2]]),
    ...     actions=np.zeros((2, 2), int), rewards=np.array([[0.0, 1.0], [1.0, 0.0]]),
    ...     lengths=np.array([2, 1]), terminated=np.array([True, True]))
    >>> r = privrl.ssp_lstd(data, features=np.eye(3), gamma=0.9, epsilon=1.0,
    ...     delta=1e-5, feature_bound=1.0, reward_bound=1.0, max_length=2, lam=1.0,
    ...     rng=0)
    >>> r.epsilon <= 1.0, r.value.shape, round(r.parameters["sensitivity"], 4)
    (True, (3,), 8.5884)
    """
    traj = _check_trajectories(trajectories)
    delta = check_delta(delta)
    epsilon = check_epsilon(epsilon)
    if epsilon > MAX_SSP_EPSILON:
        raise ValueError(f"epsilon must be at most {MAX_SSP_EPSILON:g} for SSP-LSTD, got {epsilon}")
    lam = check_positive(lam, "lam")
    bounds = ssp.SSPBounds(feature_bound, reward_bound, max_length, gamma)
    phi = None if features is None else check_array(features, "features", ndim=2)
    if phi is None and traj.observations.ndim != 3:
        raise ValueError(
            "features: give the (N, d) features of integer states, or "
            "observations of shape (m, H + 1, d)"
        )
    d = phi.shape[1] if phi is not None else int(traj.observations.shape[-1])
    calibration = ssp_lstd_noise(epsilon=epsilon, delta=delta, bounds=bounds, d=d)
    noise, event = calibration.noise, calibration.event
    data = ssp.bounded_transitions(traj, phi, bounds, strict=strict)
    est = ssp.ssp_lstd(data, bounds, noise, lam, release_rng(rng))
    return Release.from_event(
        est.theta,
        event,
        delta,
        relation="replace-one trajectory",
        sigma=noise.sigma,
        noise_multiplier=event.dp_event.noise_multiplier,
        sensitivity=bounds.sensitivity,
        step=noise.step,
        feature_bound=bounds.feature_bound,
        reward_bound=bounds.reward_bound,
        max_length=bounds.max_length,
        lam=lam,
        n=traj.n_trajectories,
    )


__all__ = [
    "GpopeNoise",
    "SmoothGaussianNoise",
    "SspNoise",
    "dp_lsl",
    "dp_lsw",
    "gpope",
    "gpope_event",
    "gpope_noise",
    "grid_gpope_noise",
    "smooth_gaussian_noise",
    "ssp_lstd",
    "ssp_lstd_noise",
]
