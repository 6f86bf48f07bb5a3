"""Wiring tests of PGC-A3C (Ono and Takahashi 2020): the scale and clip each call site passes.

Targets: ``a3c.randomise`` (per-round epsilon, clip C) and ``local.laplace_gradient_parts``
(L1 clip to C/2, noise C/epsilon; returns the clipped gradient and the noise), and
``train_pgc_a3c`` end to end with two rounds; then every call site from :class:`OnoProfile`
through the sweep configurations (:mod:`privrl.papers.ono2020.runs`) to the innermost mechanism
call (the discrete Laplace sampler's scale, the clip bound, PRS's per-sign budget), against values
computed from the paper's constants and :mod:`~privrl.core.mechanisms.discrete_laplace` alone.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.core.algorithms import a3c
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.mechanisms import local
from privrl.papers.ono2020.profile import OnoProfile
from privrl.papers.ono2020.runs import figure2_configs, table_configs
from privrl.papers.ono2020.trials import run_first_success, run_learning_curve


def _spy(monkeypatch, name):
    calls = []
    real = getattr(a3c, name)

    def spy(g, epsilon, clip, rng, **kw):
        calls.append(dict(epsilon=epsilon, clip=clip, **kw))
        return real(g, epsilon, clip, rng, **kw)

    monkeypatch.setattr(a3c, name, spy)
    return calls


@pytest.mark.parametrize(
    "mechanism, name", [("laplace", "laplace_gradient_parts"), ("prs", "projected_random_sign")]
)
def test_randomise_passes_epsilon_over_rounds_and_clip(monkeypatch, mechanism, name):
    calls = _spy(monkeypatch, name)
    cfg = a3c.PGCA3CConfig(mechanism=mechanism, epsilon=6.0, rounds=3, clip=0.7)
    a3c.randomise(np.ones((2, a3c.D)), cfg, np.random.default_rng(0))
    extra = {"d_hat": None} if mechanism == "prs" else {"inversion": True}
    assert calls == [dict(epsilon=2.0, clip=0.7, **extra)]


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
    cfg = a3c.PGCA3CConfig(
        mechanism="laplace",
        epsilon=4.0,
        rounds=2,
        n_submissions=4,
        n_workers=2,
        max_steps=20,
        stop_at_success=False,
    )
    a3c.train_pgc_a3c(cfg, n_trials=1, rng=0)
    assert calls and all(c["epsilon"] == 2.0 and c["clip"] == cfg.clip_value for c in calls)


# --- from OnoProfile to the mechanism call -----------------------------------------------------


def _spy_sampler(monkeypatch):
    """Record the discrete Laplace scale of every grid Laplace release (the innermost call, the
    inversion sampler PGC-A3C draws with)."""
    calls = []
    real = dl.sample_discrete_laplace_inversion

    def spy(scale, size, rng):
        calls.append((scale, tuple(size)))
        return real(scale, size, rng)

    monkeypatch.setattr(dl, "sample_discrete_laplace_inversion", spy)
    return calls


def _spy_sign_probability(monkeypatch):
    calls = []
    real = local.sign_probability

    def spy(u_bar, epsilon, d_hat, clip):
        calls.append(dict(epsilon=epsilon, d_hat=d_hat, clip=clip))
        return real(u_bar, epsilon, d_hat, clip)

    monkeypatch.setattr(local, "sign_probability", spy)
    return calls


def _spy_clip(monkeypatch):
    calls = []
    real = local.clip_l1

    def spy(g, bound):
        calls.append(bound)
        return real(g, bound)

    monkeypatch.setattr(local, "clip_l1", spy)
    return calls


PROFILE = OnoProfile.quick(n_submissions=9, trials_per_seed=1, n_trials=1)


@pytest.mark.parametrize(
    "config",
    [c for c in table_configs(PROFILE) if math.isfinite(c["epsilon"])],
    ids=lambda c: f"{c['variant']}-{c['mechanism']}-{c['epsilon']:g}",
)
def test_every_private_table_run_reaches_the_mechanism_at_the_profiles_epsilon(monkeypatch, config):
    """Tables 1-3 from OnoProfile to the mechanism: each Laplace release is clipped to C/2 = 0.005
    and drawn with the discrete Laplace scale of sensitivity C = 0.01 at the profile's epsilon over
    d = 112 coordinates (from discrete_laplace alone); each PRS release flips its signs at
    epsilon/d_hat with C = 1. Halving the noise, doubling the budget or passing another clip
    anywhere on the way changes a recorded value."""
    eps = config["epsilon"]
    assert eps in PROFILE.epsilons
    samples, clips = _spy_sampler(monkeypatch), _spy_clip(monkeypatch)
    signs = _spy_sign_probability(monkeypatch)
    run_first_success(config, np.random.SeedSequence(0))
    if config["mechanism"] == "laplace":
        expected = dl.grid_scale(0.01, eps, 112, dl.DEFAULT_STEP)
        assert samples and all(scale == expected and size[1] == 112 for scale, size in samples)
        assert clips and set(clips) == {0.005}
        assert not signs
    else:
        d_hat = max(1, min(112, math.floor(eps / 2.5)))
        assert signs and all(c == dict(epsilon=eps, d_hat=d_hat, clip=1.0) for c in signs)
        assert not samples


def test_figure2_runs_reach_the_mechanism_at_epsilon_1(monkeypatch):
    """Figure 2 (epsilon = 1, |B| in {1, 100}): the same scales at epsilon = 1."""
    samples, signs = _spy_sampler(monkeypatch), _spy_sign_probability(monkeypatch)
    for config in figure2_configs(PROFILE):
        run_learning_curve(
            {**config, "n_submissions": 9, "trials_per_seed": 1, "record_every": 9},
            np.random.SeedSequence(0),
        )
    assert {s for s, _ in samples} == {dl.grid_scale(0.01, 1.0, 112, dl.DEFAULT_STEP)}
    assert signs and all(c == dict(epsilon=1.0, d_hat=1, clip=1.0) for c in signs)


def test_a_multi_round_run_spends_epsilon_over_rounds_per_report(monkeypatch):
    """Section 3.2.1 from a sweep config: rounds = 3 at epsilon = 3 releases each report at the
    discrete Laplace scale of epsilon = 1 (composing at epsilon per report would be 3x less
    noise)."""
    samples = _spy_sampler(monkeypatch)
    config = {
        "variant": "paper",
        "mechanism": "laplace",
        "epsilon": 3.0,
        "buffer_size": 1,
        "rounds": 3,
        "n_submissions": 9,
        "trials_per_seed": 1,
    }
    run_first_success(config, np.random.SeedSequence(0))
    assert samples and {s for s, _ in samples} == {dl.grid_scale(0.01, 1.0, 112, dl.DEFAULT_STEP)}


def test_laplace_release_is_the_grid_release_exactly():
    """The submission a3c.randomise returns is the grid release, not the textbook float
    Laplace: every coordinate a multiple of 2^-30, equal to the sum of its two exact parts."""
    cfg = a3c.PGCA3CConfig(mechanism="laplace", epsilon=1.0)
    g = np.random.default_rng(3).normal(size=(50, a3c.D))
    out, clipped = a3c.randomise(g, cfg, np.random.default_rng(4))
    units = out / dl.DEFAULT_STEP
    np.testing.assert_array_equal(units, np.rint(units))
    np.testing.assert_array_equal(clipped / dl.DEFAULT_STEP, np.rint(clipped / dl.DEFAULT_STEP))
