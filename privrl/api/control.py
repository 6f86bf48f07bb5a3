r"""Private control as releases: Wang and Hegde's functional-noise Q-learning (2019) and the
Dirichlet teacher of Gohari et al. (2021). The Q-learning run needs torch (the ``deep`` extra),
imported when it is called.

* :func:`functional_q_learning` (Algorithm 1): DQN on the continuous line MDP whose Q outputs are
  perturbed by Gaussian-process sample paths of amplitude :math:`\sigma` calibrated by Theorem 5
  for the :math:`U = T - B + 1` noisy updates of :math:`T` samples at batch size :math:`B`, with a
  union bound over every sample path drawn (Lemma 8). Neighbours: reward functions differing at
  one state (:mod:`privrl.core.accounting.functional_noise`).
* :func:`dirichlet_teacher_answer` (eq. 5, Theorem 1): a teacher's policy :math:`f(x) \in
  \Delta_{m,\eta}` answered as a sample of :math:`\mathrm{Dir}_k(f(x))`, its concentration
  calibrated to a target :math:`(\varepsilon, \delta)` (or given);
  :math:`(\varepsilon, \delta)` of eq. (12) and eq. (6) for observations ``b`` apart and an
  ``lipschitz``-Lipschitz teacher. Several queries (rows) compose as the chapter's budget does
  (:class:`~privrl.core.accounting.dirichlet.TeacherQueriesEvent`: advanced composition with the
  largest per-query epsilon).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

import numpy as np

from privrl.api.release import Release, release_rng
from privrl.core.accounting import dirichlet as dacc
from privrl.core.accounting import dirichlet_calibration as dcal
from privrl.core.accounting import functional_noise as fn
from privrl.core.mechanisms.dirichlet import (
    check_policy,
    dirichlet_mechanism,
    into_restricted_simplex,
)
from privrl.core.rng import SeedLike
from privrl.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
)

#: Tolerance of Theorem 5's inversion in the event of a sigma calibrated for its target.
THEOREM5_RTOL = 1e-12
#: The largest Dirichlet concentration answered: eq. (12)'s epsilon is above 1e4 there, no useful
#: guarantee, and eq. (6)'s series grow with k (beta_tail refuses past its term limit).
MAX_CONCENTRATION = 1e5


@dataclass(frozen=True)
class Algorithm1Noise:
    r"""The calibration of Algorithm 1 (Theorem 5, Lemma 8): the sample paths' amplitude
    ``sigma`` and kernel ``beta`` for the smallest integer RKHS bound ``k`` meeting the target,
    calibrated for ``calibrated_updates`` updates, the target delta split into Theorem 5's
    Gaussian part ``delta_gauss`` and the union bound ``delta_approx`` over the paths drawn,
    and ``event``: Theorem 5's guarantee for the updates the run makes."""

    sigma: float
    beta: float
    k: int
    delta_gauss: float
    delta_approx: float
    calibrated_updates: int
    event: fn.Theorem5Event


def algorithm1_noise(
    *,
    epsilon: float,
    delta: float,
    n_updates: int,
    batch_size: int,
    lr: float,
    lipschitz: float,
    n_paths: int,
    calibrated_updates: int | None = None,
) -> Algorithm1Noise:
    r"""The calibration :func:`functional_q_learning` releases with: ``n_updates`` noisy updates
    of ``batch_size`` at rate ``lr`` for an ``lipschitz``-Lipschitz loss, ``n_paths`` sample paths
    drawn, target ``(epsilon, delta)``
    (:func:`~privrl.core.accounting.functional_noise.calibrate_algorithm1`, half of ``delta`` to
    the Gaussian part). Its event's epsilon at ``delta`` is at most ``epsilon`` (Theorem 5
    inverted to :data:`THEOREM5_RTOL`).

    ``calibrated_updates`` (the paper's option, e.g. its :math:`T/B`): sigma calibrated for that
    many updates instead, the event still Theorem 5 for the ``n_updates`` made (inverted to the
    event's default tolerance), whose epsilon is then above the target when fewer updates were
    calibrated for."""
    exact = calibrated_updates is None
    calibrated = n_updates if calibrated_updates is None else calibrated_updates
    cal = fn.calibrate_algorithm1(epsilon, delta, calibrated, batch_size, lr, lipschitz, n_paths)
    rtol = THEOREM5_RTOL if exact else fn.Theorem5Event.rtol
    event = fn.Theorem5Event(
        cal["sigma"], n_updates, batch_size, lr, cal["k"], lipschitz, n_paths, rtol
    )
    return Algorithm1Noise(
        sigma=cal["sigma"],
        beta=cal["beta"],
        k=int(cal["k"]),
        delta_gauss=cal["delta_gauss"],
        delta_approx=cal["delta_approx"],
        calibrated_updates=calibrated,
        event=event,
    )


def functional_q_learning(
    *,
    epsilon: float,
    delta: float,
    episodes: int,
    rng: SeedLike | None = None,
    lr: float = 1e-2,
    batch_size: int = 128,
    lipschitz: float = 1.0,
) -> Release:
    r"""Algorithm 1 on the line MDP (an independent path per action and network, redrawn every
    episode), its noise calibrated by Theorem 5 to ``(epsilon, delta)`` for the
    :math:`U = 50\,\text{episodes} - \text{batch\_size} + 1` updates it makes.

    ``value`` is the trained Q network (a torch module); the event is ``Theorem5Event``;
    ``parameters``: ``gp_sigma``, ``gp_beta``, ``k``, ``n_updates``, ``n_paths``. ``epsilon`` must
    lie below ``theorem5_epsilon_limit(delta / 2)``, else ``ValueError``. The paths are drawn in
    floating point, as in the paper (the guarantee is the mathematics', not the doubles'). Needs
    torch: without it a ``ModuleNotFoundError`` says "install privrl[deep] for
    functional_q_learning".

    >>> import privrl
    >>> r = privrl.functional_q_learning(epsilon=1.0, delta=1e-3, episodes=3, rng=0)
    >>> r.epsilon <= 1.0, r.parameters["n_updates"]
    (True, 23)
    """
    fq = _functional_q()
    from privrl.core.envs.line import HORIZON

    delta = check_delta(delta)
    episodes = check_int(episodes, "episodes", minimum=1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    lr, lipschitz = check_positive(lr, "lr"), check_positive(lipschitz, "lipschitz")
    updates = episodes * HORIZON - batch_size + 1
    if updates < 1:
        raise ValueError(
            f"episodes: {episodes} episodes of {HORIZON} steps never fill a batch of "
            f"{batch_size}; give more episodes or a smaller batch_size"
        )
    n_paths = episodes * fq.FunctionalNoiseConfig(1.0).paths_per_draw
    noise = algorithm1_noise(
        epsilon=epsilon,
        delta=delta,
        n_updates=updates,
        batch_size=batch_size,
        lr=lr,
        lipschitz=lipschitz,
        n_paths=n_paths,
    )
    privacy = fq.FunctionalNoiseConfig(noise.sigma, noise.beta)
    run = fq.train_dqn(
        privacy, release_rng(rng), episodes=episodes, lr=lr, batch_size=batch_size, eval_episodes=1
    )  # its returns are not released
    if run.updates != updates:
        raise RuntimeError(f"the run made {run.updates} updates, the calibration assumed {updates}")
    return Release.from_event(
        run.net,
        noise.event,
        delta,
        relation="reward function",
        gp_sigma=noise.sigma,
        gp_beta=noise.beta,
        k=noise.k,
        n_updates=updates,
        n_paths=n_paths,
    )


def _functional_q() -> ModuleType:
    """:mod:`privrl.core.algorithms.functional_q`, imported when called: it needs torch, the
    ``deep`` extra, and without it the error says which extra to install."""
    try:
        from privrl.core.algorithms import functional_q
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] != "torch":
            raise
        raise ModuleNotFoundError(
            f"install privrl[deep] for functional_q_learning (it trains a torch network; {err})",
            name=err.name,
        ) from err
    return functional_q


def dirichlet_answer_event(
    k: float, *, m: int, eta: float, tau: float, lipschitz: float, b: float
) -> dacc.DirichletMechanismEvent:
    r"""The guarantee of one answer of :func:`dirichlet_teacher_answer`: a sample of
    :math:`\mathrm{Dir}_k(f(x))` over ``m`` actions on the :math:`\eta`-restricted simplex, for
    an ``lipschitz``-Lipschitz teacher and observations ``b`` apart (Theorem 1: eq. (12)'s epsilon
    at eq. (6)'s delta for threshold ``tau``). A ``ValueError`` names ``eta`` outside
    :math:`(0, 1/m)`, ``k`` outside (0, :data:`MAX_CONCENTRATION`]."""
    eta = dacc.check_eta(eta, m)
    if not 0 < k <= MAX_CONCENTRATION:
        raise ValueError(f"k must lie in (0, {MAX_CONCENTRATION:g}], got {k}")
    return dacc.DirichletMechanismEvent(float(k), m, eta, tau, lipschitz, b)


def dirichlet_teacher_answer(
    policy: object,
    *,
    eta: float,
    lipschitz: float,
    b: float,
    rng: SeedLike | None = None,
    k: float | object | None = None,
    tau: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    composition: Literal["basic", "advanced"] = "advanced",
    delta_slack: float | None = None,
    strict: bool = False,
) -> Release:
    r"""Answer each row of ``policy`` (the teacher's action probabilities :math:`f(x)`, (m,) or
    (n, m)) with a sample of :math:`\mathrm{Dir}_k(f(x))` (eq. 5); neighbours are observations
    ``b`` apart of an ``lipschitz``-Lipschitz teacher. Rows with an entry below ``eta`` are
    projected onto :math:`\Delta_{m,\eta}` with a ``ClippedDataWarning`` (``strict``: raises).

    Give ``epsilon`` and ``delta`` (one concentration, the largest meeting them) or ``k`` (one, or
    one per row, up to :data:`MAX_CONCENTRATION`) and ``tau`` (eq. 6). One query: a
    ``DirichletMechanismEvent`` (eq. 12's epsilon at eq. 6's delta), several rows a
    ``TeacherQueriesEvent`` composed by ``composition`` (advanced with ``delta_slack``); drawn in
    floating point, as in the paper. ``parameters``: ``k``, ``tau``, ``eta``, ``lipschitz``,
    ``b`` and, for several rows, ``composition``.

    >>> import numpy as np, privrl
    >>> r = privrl.dirichlet_teacher_answer([0.7, 0.3], k=100.0, tau=0.01, eta=0.05,
    ...                                     lipschitz=0.5, b=0.1, rng=0)
    >>> r.value.shape, round(r.epsilon, 2), round(r.delta, 4)
    ((2,), 82.87, 0.0033)
    >>> r = privrl.dirichlet_teacher_answer([0.7, 0.3], epsilon=20.0, delta=1e-5,
    ...                                     eta=0.05, lipschitz=0.5, b=0.1, rng=0)
    >>> r.epsilon <= 20.0, r.delta, round(r.parameters["k"], 2)
    (True, 1e-05, 4.28)
    """
    pi = check_policy(policy)
    if pi.ndim > 2:
        raise ValueError(f"policy must have shape (m,) or (n, m), got {pi.shape}")
    eta = dacc.check_eta(eta, pi.shape[-1])
    pi = into_restricted_simplex(pi, eta, strict)
    rows = pi.reshape(-1, pi.shape[-1])
    n, m = rows.shape
    composition = check_choice(composition, "composition", ("basic", "advanced"))
    targeted = epsilon is not None or delta is not None
    if targeted:
        if k is not None or tau is not None:
            raise ValueError(
                "k, tau, epsilon, delta: give a target (epsilon, delta) or a "
                "concentration and threshold (k, tau), not both"
            )
        if epsilon is None or delta is None:
            raise ValueError("epsilon, delta: give both (the target the concentration meets)")
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        delta_slack = delta / 2 if delta_slack is None else delta_slack
        per_query = dcal.per_query_target(epsilon, delta, n, composition, delta_slack)
        k, tau = dcal.calibrate_concentration(*per_query, m, eta, lipschitz, b)
    elif k is None or tau is None:
        raise ValueError("k, tau: give both (or a target epsilon and delta instead)")
    delta_slack = 1e-5 if delta_slack is None else delta_slack
    k_given = check_array(k, "k", ndim=(0, 1))
    if k_given.ndim == 1 and k_given.shape[0] != n:
        raise ValueError(
            f"k must be one concentration or one per row of policy ({n}), got {k_given.shape[0]}"
        )
    ks = np.broadcast_to(k_given, rows.shape[:1])
    if np.any(ks <= 0) or np.any(ks > MAX_CONCENTRATION):
        raise ValueError(f"k must lie in (0, {MAX_CONCENTRATION:g}], got {k}")
    event: dacc.DirichletMechanismEvent | dacc.TeacherQueriesEvent
    k_out: float | np.ndarray
    if n == 1:
        event = dirichlet_answer_event(
            float(ks[0]), m=m, eta=eta, tau=tau, lipschitz=lipschitz, b=b
        )
        k_out = float(ks[0])
    else:
        event = dacc.TeacherQueriesEvent(
            tuple(float(x) for x in ks), m, eta, tau, lipschitz, b, composition, delta_slack
        )
        k_out = ks.copy()
    delta_bound = event.delta_bound
    if not delta_bound < 1:
        raise ValueError(
            f"k = {k}: Theorem 1 gives no guarantee at this concentration "
            f"(its delta, eq. 6 at tau = {tau:g}, is 1)"
            if n == 1
            else f"policy: its {n} answers compose to delta 1 ({composition} "
            "composition), no guarantee; answer fewer rows, or give a larger k or a "
            "smaller tau"
        )
    if not math.isfinite(event.epsilon(delta_bound)):
        raise ValueError(
            f"k: its {n} answers compose to an infinite epsilon ({composition} "
            "composition: e^epsilon of one answer is beyond a double); give a "
            "smaller k, composition='basic', or answer one row"
        )
    if (
        epsilon is not None
        and delta is not None
        and not (delta_bound <= delta and event.epsilon(delta) <= epsilon)
    ):
        raise RuntimeError(
            f"the Dirichlet calibration missed its target: ({event.epsilon(delta)!r}, "
            f"{delta_bound!r}) for ({epsilon!r}, {delta!r})"
        )
    value = dirichlet_mechanism(rows, ks, release_rng(rng), eta=eta)
    extra = {} if n == 1 else {"composition": composition}
    return Release.from_event(
        value.reshape(pi.shape),
        event,
        delta_bound if delta is None else delta,
        relation="teacher observation",
        k=k_out,
        tau=tau,
        eta=eta,
        lipschitz=lipschitz,
        b=b,
        **extra,
    )


__all__ = [
    "Algorithm1Noise",
    "algorithm1_noise",
    "dirichlet_answer_event",
    "dirichlet_teacher_answer",
    "functional_q_learning",
]
