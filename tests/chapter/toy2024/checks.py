"""The toy chapter's checks: named functions ``check(ctx)``."""

from __future__ import annotations

import numpy as np

from privrl.chapter.skeleton import Context
from privrl.core.mechanisms.laplace import laplace_mechanism


def check_noise_scale(ctx: Context) -> None:
    """The Laplace noise of scale b has standard deviation sqrt(2) b: 20,000 draws at b = 1
    estimate it with a relative standard error of about 0.8%, so 4% is five of them."""
    draws = laplace_mechanism(np.zeros(20_000), 1.0, 1.0, ctx.rng)
    ctx.report.check(
        "noise_sd",
        "relative error of the Laplace noise's standard deviation",
        abs(draws.std() / np.sqrt(2) - 1),
        at_most=0.04,
    )


CHECKS = (check_noise_scale,)
