r"""Locally private gradient reports (Ono and Takahashi 2020, PGC): each agent randomises its own
gradient before submitting it, so a report is private against the server itself.

* :func:`laplace_report` (Algorithm 2): each gradient clipped to :math:`\ell_1` norm :math:`C/2`
  (eq. 19, so two reports' inputs are at most :math:`C` apart, eq. 20) plus Laplace noise of
  scale about :math:`C/\varepsilon` per coordinate (eq. 21), released on a power-of-two grid with
  exact discrete Laplace noise: exactly :math:`\varepsilon`-LDP on IEEE doubles (Lemma 2).
* :func:`sign_report` (Algorithm 3, PRS): a fresh sparse random projection to :math:`\hat d`
  coordinates, each clipped to :math:`[-C, C]` (eq. 23) and reported as a randomised sign with
  budget :math:`\varepsilon/\hat d` (the corrected eq. 24): :math:`\varepsilon`-LDP (Lemma 3).

Clipping is part of both mechanisms (their sensitivity is the clip's), not a data assumption,
so it is silent: how many reports it shortened is a statistic of the data, not released. Every
row of the input is one agent's report; the guarantee (pure LDP, ``delta = 0``) holds for each
row.
"""

from __future__ import annotations

import numpy as np

from privrl.api.release import Release, release_rng
from privrl.core.accounting.laplace import GridLaplaceReportEvent
from privrl.core.accounting.local import BitFlipEvent
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.mechanisms import local as loc
from privrl.core.rng import SeedLike
from privrl.core.validation import check_array, check_epsilon, check_int, check_positive


def _gradients(gradients: object) -> np.ndarray:
    g = check_array(gradients, "gradients", ndim=(1, 2))
    g = g[None, :] if g.ndim == 1 else g
    if 0 in g.shape:
        raise ValueError(f"gradients must hold at least one gradient of at least one coordinate, "
                         f"got shape {g.shape}")
    return g


def laplace_report(gradients: object, *, epsilon: float, clip: float,
                   rng: SeedLike | None = None,
                   step: float = dl.DEFAULT_STEP) -> Release:
    r"""Algorithm 2 on each row of ``gradients`` ((n, d), or one (d,) gradient): clip to
    :math:`\ell_1` norm ``clip / 2``, round to the grid ``step``, add exact discrete Laplace
    noise; each report exactly ``epsilon``-LDP (the exact epsilon :math:`L/t \le` ``epsilon``).

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
    value = loc.laplace_gradient_mechanism(g, epsilon, clip, release_rng(rng), step=step)
    t = loc.laplace_grid_scale(clip, epsilon, d, step)
    event = GridLaplaceReportEvent(sensitivity=clip, d=d, scale_numerator=t.numerator,
                                   scale_denominator=t.denominator, step=step)
    return Release.from_event(value, event, 0.0, noise_scale=event.noise_scale, clip=clip,
                              step=step)


def sign_report(gradients: object, *, epsilon: float, clip: float,
                rng: SeedLike | None = None,
                d_hat: int | None = None) -> Release:
    r"""Algorithm 3 (PRS) on each row of ``gradients``: ``M^T u_tilde`` with ``M`` a fresh
    (``d_hat``, d) sparse projection (eq. 5), ``u_tilde`` the randomised signs of
    ``clip(M g, -C, C)`` (corrected eq. 24, budget ``epsilon / d_hat`` each); each report
    ``epsilon``-LDP. ``d_hat`` defaults to :math:`\max(1, \min(d, \lfloor\varepsilon/2.5\rfloor))`.

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
    d = g.shape[1]
    d_hat = loc.default_projection_dim(epsilon, d) if d_hat is None else d_hat
    d_hat = check_int(d_hat, "d_hat", minimum=1)
    if d_hat > d:
        raise ValueError(f"d_hat must be at most the gradients' dimension d = {d} (the "
                         f"projection compresses), got {d_hat}")
    flip = loc.flip_floor(epsilon / d_hat)
    if flip >= 0.5:
        raise ValueError(f"epsilon: {epsilon:g} over d_hat = {d_hat} signs leaves each sign a "
                         "fair coin on doubles (no signal); give a larger epsilon")
    value = loc.projected_random_sign(g, epsilon, clip, release_rng(rng), d_hat=d_hat)
    return Release.from_event(value, BitFlipEvent(flip_probability=flip, bits=d_hat), 0.0,
                              d_hat=d_hat, flip_probability=flip, clip=clip)


__all__ = ["laplace_report", "sign_report"]
