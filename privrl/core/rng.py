"""Random number generators: one way in, so every result is reproducible from a seed."""

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


def torch_generator(rng: SeedLike) -> torch.Generator:
    """A CPU :class:`torch.Generator` seeded deterministically from a numpy generator or seed."""
    import torch

    gen = torch.Generator()
    gen.manual_seed(int(as_generator(rng).integers(0, 2**63 - 1)))
    return gen
