"""GPOPE's PLD discretisation (``GPOPE_PLD_INTERVAL``) is fine enough for GPOPE's longest
runs: pessimistic rounding's excess grows with the number of compositions, so a coarse interval
calibrates more noise than the guarantee needs.

Reference: the noise multiplier calibrated at a 10x finer interval (1e-5: 275.23 at epsilon 0.1,
delta 1e-5, n = 10, 8,000 iterations; computed once, 19 s, by
``calibrate_decreasing(lambda z: gpope_pld_epsilon(z, 10, 8000, 1e-5, 1e-5), 0.1, lo=0.05, hi=1.0,
rtol=1e-3)``). At the former interval, 1e-3, the same calibration gives 603.9 (2.2x): this test
fails there.
"""

from __future__ import annotations

import pytest

from privrl.core.accounting.gpope_pld import calibrate_pld_noise_multiplier
from privrl.core.accounting.subsampled import GPOPE_PLD_INTERVAL, gpope_pld_epsilon

FINE_Z = 275.2297


def test_gpope_pld_noise_at_the_default_interval_is_within_one_percent_of_a_finer_one():
    z = calibrate_pld_noise_multiplier(0.1, 1e-5, 10, 8_000)
    assert z == pytest.approx(FINE_Z, rel=0.01)
    assert z >= FINE_Z * (1 - 1e-3)  # pessimistic: never below the finer interval's noise


def test_a_finer_interval_never_gives_a_larger_epsilon_on_the_same_pair():
    coarse = gpope_pld_epsilon(FINE_Z, 10, 8_000, 1e-5)
    fine = gpope_pld_epsilon(FINE_Z, 10, 8_000, 1e-5, GPOPE_PLD_INTERVAL / 2)
    assert fine <= coarse <= 0.1 * 1.01
