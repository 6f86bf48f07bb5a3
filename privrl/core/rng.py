"""Random number generators: one way in, so every result is reproducible from a seed; and the
sampling utilities that both the mechanisms and the accountants draw with (:func:`sample_dirichlet`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # torch is imported only by code that asks for a torch generator
    import torch

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from an int seed, a SeedSequence or a Generator.

    ``None`` is refused: an unseeded run could not be reproduced.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return np.random.default_rng(int(seed))
    raise ValueError(
        f"rng must be a numpy Generator, SeedSequence or non-negative int seed, got {seed!r}"
    )


def sample_dirichlet(concentration: np.ndarray, rng: SeedLike) -> np.ndarray:
    r"""Draws of :math:`\mathrm{Dir}(\alpha)`, one per row of ``concentration`` (..., m), all
    :math:`\alpha_i > 0`.

    Draws :math:`G_i \sim \mathrm{Gamma}(\alpha_i)` and normalises, in log space
    (:math:`\log G = \log \mathrm{Gamma}(\alpha + 1) + \log U / \alpha`), so that very small
    :math:`\alpha` (a vanishing Dirichlet concentration, :math:`k \to 0`) neither underflows nor
    divides by 0. The Dirichlet mechanism (:func:`privrl.core.mechanisms.dirichlet.dirichlet_mechanism`,
    Gohari et al. 2021, eq. 5) and the Monte Carlo of its guarantee (eq. 6,
    :mod:`privrl.core.accounting.dirichlet`) both sample with it.
    """
    alpha = np.clip(np.asarray(concentration, dtype=float), 1e-300, None)
    rng = as_generator(rng)
    log_g = np.log(rng.standard_gamma(alpha + 1.0)) + np.log(rng.random(alpha.shape)) / alpha
    log_g -= log_g.max(axis=-1, keepdims=True)
    x = np.exp(log_g)
    return x / x.sum(axis=-1, keepdims=True)


def torch_generator(rng: SeedLike) -> torch.Generator:
    """A CPU :class:`torch.Generator` seeded deterministically from a numpy generator or seed."""
    import torch

    gen = torch.Generator()
    gen.manual_seed(int(as_generator(rng).integers(0, 2**63 - 1)))
    return gen
