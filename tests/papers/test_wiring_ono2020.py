"""Wiring tests of PGC-A3C (Ono and Takahashi 2020): the scale and clip each call site passes.

Targets: ``a3c.randomise`` (per-round epsilon, clip C) and ``local.laplace_gradient_parts``
(L1 clip to C/2, noise C/epsilon; returns the clipped gradient and the noise), and
``train_pgc_a3c`` end to end with two rounds.
"""

from __future__ import annotations

import numpy as np
import pytest

from privrl.core.algorithms import a3c


def _spy(monkeypatch, name):
    calls = []
    real = getattr(a3c, name)

    def spy(g, epsilon, clip, rng, **kw):
        calls.append(dict(epsilon=epsilon, clip=clip, **kw))
        return real(g, epsilon, clip, rng, **kw)

    monkeypatch.setattr(a3c, name, spy)
    return calls


@pytest.mark.parametrize("mechanism, name", [("laplace", "laplace_gradient_parts"),
                                             ("prs", "projected_random_sign")])
def test_randomise_passes_epsilon_over_rounds_and_clip(monkeypatch, mechanism, name):
    calls = _spy(monkeypatch, name)
    cfg = a3c.PGCA3CConfig(mechanism=mechanism, epsilon=6.0, rounds=3, clip=0.7)
    a3c.randomise(np.ones((2, a3c.D)), cfg, np.random.default_rng(0))
    assert calls == [dict(epsilon=2.0, clip=0.7, **({"d_hat": None} if mechanism == "prs" else {}))]


def test_laplace_report_is_clipped_to_half_C_with_noise_C_over_per_round_epsilon():
    """A gradient of L1 norm 100 is reported around its clip to L1 norm C/2 = 0.5, with Laplace
    noise of scale C / (epsilon / rounds) = 1 (mean absolute deviation 1). 200,000 reports: the
    standard error of the mean is 0.003, of the mean absolute deviation 0.003."""
    cfg = a3c.PGCA3CConfig(mechanism="laplace", epsilon=2.0, rounds=2, clip=1.0)
    g = np.zeros((200_000, a3c.D))
    g[:, 0] = 100.0
    out, clipped = a3c.randomise(g, cfg, np.random.default_rng(1))
    assert out[:, 0].mean() == pytest.approx(0.5, abs=0.02)
    assert np.abs(out[:, 1:]).mean() == pytest.approx(1.0, abs=0.02)
    assert np.abs(out[:, 0] - 0.5).mean() == pytest.approx(1.0, abs=0.02)
    np.testing.assert_allclose(clipped[:, 0], 0.5)


def test_train_pgc_a3c_reports_at_epsilon_over_rounds(monkeypatch):
    calls = _spy(monkeypatch, "laplace_gradient_parts")
    cfg = a3c.PGCA3CConfig(mechanism="laplace", epsilon=4.0, rounds=2, n_submissions=4,
                           n_workers=2, max_steps=20, stop_at_success=False)
    a3c.train_pgc_a3c(cfg, n_trials=1, rng=0)
    assert calls and all(c["epsilon"] == 2.0 and c["clip"] == cfg.clip_value for c in calls)
