"""The run function of the sweep; it imports only ``privrl.core``, so the sweep cache's hash of
its code changes only with the maths it runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privrl.core.mechanisms.laplace import laplace_mechanism


def run_mean(config: dict[str, Any], seed: np.random.SeedSequence) -> pd.DataFrame:
    """One release of the mean of ``config["n"]`` uniform records at ``config["epsilon"]``
    (sensitivity 1/n under replace-one): its absolute error."""
    rng = np.random.default_rng(seed)
    n = int(config["n"])
    records = rng.uniform(0.0, 1.0, n)
    released = laplace_mechanism(records.mean(), 1.0 / n, config["epsilon"], rng)
    return pd.DataFrame({"abs_error": [float(abs(released[()] - records.mean()))]})
