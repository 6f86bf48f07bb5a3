r"""Locally private gradient reports (Ono and Takahashi 2020, PGC): each agent randomises its own
gradient before submitting it, so a report is private against the server itself.

* :func:`laplace_report` (Algorithm 2): each gradient clipped to :math:`\ell_1` norm :math:`C/2`
  (eq. 19, so two reports' inputs are at most :math:`C` apart, eq. 20) plus Laplace noise of
  scale about :math:`C/\varepsilon` per coordinate (eq. 21), released on a power-of-two grid with
  exact discrete Laplace noise: exactly :math:`\varepsilon`-LDP on IEEE doubles (Lemma 2).
* :func:`sign_report` (Algorithm 3, PRS): a fresh sparse random projection to :math:`\hat d`
  coordinates, each clipped to :math:`[-C, C]` (eq. 23) and reported as a randomised sign with
  budget :math:`\varepsilon/\hat d` (the corrected eq. 24): :math:`\varepsilon`-LDP (Lemma 3).

Clipping is part of both mechanisms (their sensitivity is the clip's): an input beyond the clip
is clipped with a :class:`~privrl.core.validation.ClippedDataWarning` naming ``clip``
(``strict=True``: a ``ValueError`` instead); how many reports it shortened is a statistic of the
data, neither in the message nor released. Every row of the input is one agent's report; the
guarantee (pure LDP, ``delta = 0``) holds for each row.
"""

from __future__ import annotations

import numpy as np

from privrl.api.mechanisms import grid_laplace_event
from privrl.api.release import Release, release_rng
from privrl.core.accounting.local import BitFlipEvent
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.mechanisms import local as loc
from privrl.core.rng import SeedLike, as_generator
from privrl.core.validation import (
    check_array,
    check_epsilon,
    check_int,
    check_positive,
    warn_or_refuse,
)


def _gradients(gradients: object) -> np.ndarray:
    g = check_array(gradients, "gradients", ndim=(1, 2))
    g = g[None, :] if g.ndim == 1 else g
    if 0 in g.shape:
        raise ValueError(
            f"gradients must hold at least one gradient of at least one coordinate, "
            f"got shape {g.shape}"
        )
    return g


def _clipped(beyond: np.ndarray, message: str, strict: bool) -> None:
    """The clip's warning (``strict``: a ``ValueError``) when any input lay ``beyond`` it."""
    if np.any(beyond):
        warn_or_refuse(message, "clipped to it", strict)


def laplace_report(
    gradients: object,
    *,
    epsilon: float,
    clip: float,
    rng: SeedLike | None = None,
    step: float = dl.DEFAULT_STEP,
    strict: bool = False,
) -> Release:
    r"""Algorithm 2 on each row of ``gradients`` ((n, d), or one (d,) gradient): clip to
    :math:`\ell_1` norm ``clip / 2``, round to the grid ``step``, add exact discrete Laplace
    noise; each report exactly ``epsilon``-LDP (the exact epsilon :math:`L/t \le` ``epsilon``).
    A gradient beyond the clip is clipped with a
    :class:`~privrl.core.validation.ClippedDataWarning` (``strict=True``: a ``ValueError``).

    Neighbours: any two inputs of one report (local). Valid range: every ``epsilon`` > 0.
    The event is :class:`~privrl.core.accounting.laplace.GridLaplaceReportEvent` (one report);
    ``parameters``: ``noise_scale``, ``clip``, ``step``.

    >>> import numpy as np, privrl
    >>> r = privrl.laplace_report(np.ones((4, 3)), epsilon=1.0, clip=1.0, rng=0)
    >>> r.epsilon <= 1.0, r.value.shape, r.parameters["clip"]
    (True, (4, 3), 1.0)
    """
    g = _gradients(gradients)
    epsilon = check_epsilon(epsilon)
    clip = check_positive(clip, "clip")
    if clip / 2 == 0.0:
        raise ValueError(f"clip must be at least 2^-1073 (its half is the L1 bound), got {clip!r}")
    d = g.shape[1]
    with np.errstate(over="ignore"):  # a norm beyond a double is beyond the clip
        norms = np.abs(g).sum(axis=1)
    _clipped(
        norms / (clip / 2) > 1.0,
        f"clip: gradients lie beyond the L1 norm clip / 2 = "
        f"{clip / 2:g} the privacy analysis assumes",
        strict,
    )
    value = loc.laplace_gradient_mechanism(g, epsilon, clip, release_rng(rng), step=step)
    event = grid_laplace_event(clip, epsilon, d, step)
    return Release.from_event(
        value,
        event,
        0.0,
        relation="local report",
        noise_scale=event.noise_scale,
        clip=clip,
        step=step,
    )


def sign_report(
    gradients: object,
    *,
    epsilon: float,
    clip: float,
    rng: SeedLike | None = None,
    d_hat: int | None = None,
    strict: bool = False,
) -> Release:
    r"""Algorithm 3 (PRS) on each row of ``gradients``: ``M^T u_tilde`` with ``M`` a fresh
    (``d_hat``, d) sparse projection (eq. 5), ``u_tilde`` the randomised signs of
    ``clip(M g, -C, C)`` (corrected eq. 24, budget ``epsilon / d_hat`` each); each report
    ``epsilon``-LDP; a projected coordinate beyond ``[-C, C]`` is clipped with a
    :class:`~privrl.core.validation.ClippedDataWarning` (``strict=True``: a ``ValueError``).
    ``d_hat`` defaults to :math:`\max(1, \min(d, \lfloor\varepsilon/2.5\rfloor))`. Neighbours:
    any two inputs of one report (local). Valid range: every ``epsilon`` > 0 (the flips are
    exact to :math:`2^{-53}`, so the release's epsilon is capped as below).

    The event is :class:`~privrl.core.accounting.local.BitFlipEvent` (``d_hat`` signs, each
    flipped with probability at least :math:`1/(e^{\varepsilon/\hat d} + 1)` rounded up to a
    multiple of :math:`2^{-53}`, as drawn: :func:`~privrl.core.mechanisms.local.flip_floor`; so
    the release's epsilon is at most ``epsilon``, and :math:`36.7 \hat d` at most, however large
    ``epsilon``); ``parameters``: ``d_hat`` (at most d), ``flip_probability``, ``clip``.

    >>> import numpy as np, privrl
    >>> r = privrl.sign_report(np.ones((4, 3)), epsilon=1.0, clip=1.0, rng=0)
    >>> round(r.epsilon, 12), r.parameters["d_hat"], r.value.shape
    (1.0, 1, (4, 3))
    """
    g = _gradients(gradients)
    epsilon = check_epsilon(epsilon)
    clip = check_positive(clip, "clip")
    event = sign_report_event(epsilon, g.shape[1], d_hat)
    d_hat, flip = event.bits, event.flip_probability
    gen = as_generator(release_rng(rng))
    # drawn first, as the mechanism does
    matrix = loc.random_projection(g.shape[0], d_hat, g.shape[1], gen)
    _clipped(
        np.abs(loc.projection(matrix, g)) > clip,
        f"clip: projected gradients lie beyond "
        f"[-clip, clip] = [{-clip:g}, {clip:g}], the range the privacy analysis assumes",
        strict,
    )
    value = loc.projected_random_sign(g, epsilon, clip, gen, matrix=matrix)
    return Release.from_event(
        value, event, 0.0, relation="local report", d_hat=d_hat, flip_probability=flip, clip=clip
    )


def sign_report_event(epsilon: float, d: int, d_hat: int | None = None) -> BitFlipEvent:
    r"""The calibration of :func:`sign_report` for gradients of ``d`` coordinates: ``d_hat``
    signs (default :math:`\max(1, \min(d, \lfloor\varepsilon/2.5\rfloor))`, at most ``d``),
    each flipped with probability :func:`~privrl.core.mechanisms.local.flip_floor` of
    :math:`\varepsilon/\hat d` (budget ``epsilon / d_hat`` each, the corrected eq. 24); a
    ``ValueError`` when a sign would be a fair coin on doubles."""
    epsilon = check_epsilon(epsilon)
    d_hat = loc.default_projection_dim(epsilon, d) if d_hat is None else d_hat
    d_hat = check_int(d_hat, "d_hat", minimum=1)
    if d_hat > d:
        raise ValueError(
            f"d_hat must be at most the gradients' dimension d = {d} (the "
            f"projection compresses), got {d_hat}"
        )
    flip = loc.flip_floor(epsilon / d_hat)
    if flip >= 0.5:
        raise ValueError(
            f"epsilon: {epsilon:g} over d_hat = {d_hat} signs leaves each sign a "
            "fair coin on doubles (no signal); give a larger epsilon"
        )
    return BitFlipEvent(flip_probability=flip, bits=d_hat)


__all__ = ["laplace_report", "sign_report", "sign_report_event"]
