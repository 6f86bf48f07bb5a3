"""Tests of the Audits chapter (privrl.papers.audits): every release's audit set-up and its
weakened variant, and the chapter's run on the skeleton (checks only).

Quick size, fixed seeds; the audit method itself is tested in tests/core/test_audit.py.
"""

from __future__ import annotations

import inspect
import math

import pytest

from privrl.chapter.profile import Profile
from privrl.papers import audits as package
from privrl.papers.audits import chapter, checks, plots, profile, releases, runs, tables
from privrl.papers.audits.profile import AuditsProfile
from privrl.papers.audits.releases import AUDITS, LEDGER_LINKS, UNDETECTABLE, WEAKENINGS


@pytest.mark.parametrize("name", list(AUDITS))
def test_release_audit_and_its_weakened_variant(name):
    """Quick size, seed 0: no audited lower bound exceeds its claim; every weakened variant's does,
    but for those listed as undetectable (whose bound need not: it stays below their exact
    epsilon, where one is known)."""
    base = AUDITS[name]("quick", 0)
    weak = AUDITS[name]("quick", 1, weakened=True)
    assert base.epsilon_lower <= base.claimed_epsilon
    if name in UNDETECTABLE:
        assert math.isnan(weak.exact_epsilon) or weak.epsilon_lower <= weak.exact_epsilon + 1e-9
    else:
        assert weak.epsilon_lower > weak.claimed_epsilon
    assert weak.claimed_epsilon == base.claimed_epsilon  # the weakened release keeps the claim
    assert weak.release == f"{name} ({WEAKENINGS[name]})"
    if not math.isnan(base.exact_epsilon):
        assert base.epsilon_lower <= base.exact_epsilon + 1e-9


@pytest.mark.parametrize(
    "name, exact",
    [("pgc_laplace", 1.0), ("pgc_bit_flip", 1.0), ("pgc_prs", 1.0)],
)
def test_local_reports_exact_ratio_equals_per_report_budget(name, exact):
    """Per-report epsilon of a 2-round run of epsilon 2 is 1, and so is the exact worst-case ratio."""
    assert AUDITS[name]("quick", 0).exact_epsilon == pytest.approx(exact)


def test_removing_the_laplace_clip_doubles_the_exact_ratio():
    """Inputs of L1 norm C are C apart after the clip to C/2 (eq. 20), 2C apart without it."""
    assert AUDITS["pgc_laplace"]("quick", 1, weakened=True).exact_epsilon == pytest.approx(2.0)


def test_clipping_in_l2_doubles_the_dense_pairs_exact_ratio_and_not_the_one_hot_pairs():
    """d = 4: the dense pair is C apart in L1 after the L1 clip, sqrt(4) C = 2C after an L2 clip;
    a one-hot pair is C apart after either clip (only the dense audit can catch the slip)."""
    import numpy as np

    from privrl.core.mechanisms.local import clip_l1

    dense = np.full(4, 10.0)
    one_hot = np.array([10.0, 0.0, 0.0, 0.0])
    exact = releases.pgc_laplace_exact_epsilon
    assert exact(dense, -dense, 1.0, 1.0, clip_l1, 4) == pytest.approx(1.0, rel=1e-6)
    assert exact(dense, -dense, 1.0, 1.0, releases.clip_l2, 4) == pytest.approx(2.0, rel=1e-6)
    assert exact(one_hot, -one_hot, 1.0, 1.0, releases.clip_l2, 4) == pytest.approx(1.0, rel=1e-6)
    assert AUDITS["pgc_laplace_dense"]("quick", 1, weakened=True).exact_epsilon == pytest.approx(
        2.0, rel=1e-6)


def test_pgc_laplace_on_raw_values_passes_on_the_grid_and_fails_in_floating_point():
    """Mironov 2012: the same audit (exact log-likelihood ratio of the raw released doubles, no
    rounding), at the same claimed epsilon 1, stays below the claim for the grid Laplace
    (discrete_laplace_mechanism, exact epsilon <= 1) and proves epsilon > 5 for numpy's
    floating-point Laplace added to the clipped gradient, from the low bits alone."""
    grid = releases.audit_pgc_laplace("quick", 0)
    floating = releases.audit_pgc_laplace("quick", 0, floating_point=True)
    assert grid.claimed_epsilon == floating.claimed_epsilon == 1.0
    assert grid.epsilon_lower <= grid.claimed_epsilon
    assert grid.epsilon_lower > 0.9  # near tight: the grid release's exact epsilon is 1
    assert floating.epsilon_lower > 5.0
    assert floating.release == "pgc_laplace_float"


def test_composed_gpope_and_dpsgd_audits_have_the_composed_runs_exact_epsilon():
    """Every step sees the canary: T = 10 Gaussian steps of multiplier z compose to one Gaussian of
    sigma z / sqrt(10), whose exact epsilon is below the RDP claim; halving z raises it above."""
    from privrl.core.accounting.gaussian import gaussian_epsilon

    gp = AUDITS["gpope"]("quick", 0)
    assert gp.exact_epsilon == pytest.approx(gaussian_epsilon(4.0 / math.sqrt(10), 1e-5))
    assert gp.exact_epsilon < gp.claimed_epsilon
    assert AUDITS["gpope"]("quick", 1, weakened=True).exact_epsilon > 2 * gp.claimed_epsilon
    sgd = AUDITS["dpsgd_run"]("quick", 0)
    z = releases.fn.dpsgd_noise_multiplier(1.0, 1e-5, 1.0, 10)
    assert sgd.exact_epsilon == pytest.approx(gaussian_epsilon(z / math.sqrt(10), 1e-5))
    assert sgd.exact_epsilon < sgd.claimed_epsilon == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("name, shift_bound", [("dp_lsw", 0.0066), ("dp_lsl", 0.007)])
def test_why_halving_the_smooth_sensitivity_noise_is_undetectable(name, shift_bound):
    """The numbers UNDETECTABLE states: the pair moves the estimate by < 0.007 sigma_X (DP-LSL's
    sigma_X by e^-beta), so with the noise halved the Gaussian shift's exact epsilon is 0.04."""
    import numpy as np

    from privrl.core.accounting.gaussian import gaussian_epsilon
    from privrl.core.algorithms import monte_carlo as mc

    x, xp = releases._ls_pair()
    kw = ({} if name == "dp_lsw" else
          {"lam": mc.lsl_regularization(releases._LS_PHI, releases._LS_RHO, releases._LS_M, 1.0)})
    est = mc.dp_lsw if name == "dp_lsw" else mc.dp_lsl
    out = [est(mc.first_visit_returns(t, releases._LS_STATES, releases._LS_GAMMA),
               releases._LS_PHI, releases._LS_RHO, budget=mc.SmoothGaussianBudget(1.0, 1e-5, 1.0),
               rng=0, **kw) for t in (x, xp)]
    shift = np.linalg.norm(out[0].theta_nonprivate - out[1].theta_nonprivate) / out[0].sigma
    assert 0.006 < shift < shift_bound
    assert out[1].sigma != out[0].sigma if name == "dp_lsl" else out[1].sigma == out[0].sigma
    assert gaussian_epsilon(0.5 / shift, 1e-5) < 0.05


def test_every_release_has_a_weakening_and_every_ledger_link_an_audit():
    assert list(WEAKENINGS) == list(AUDITS)
    assert set(UNDETECTABLE) <= set(AUDITS)
    linked = [name for names in LEDGER_LINKS.values() for name in names]
    assert set(linked) <= set(AUDITS) and len(linked) == len(set(linked))


def test_weakenings_go_through_library_parameters_not_patches():
    """Issue item: no ``unittest.mock`` in the chapter's code."""
    for module in (package, chapter, checks, plots, profile, releases, runs, tables):
        assert "mock" not in inspect.getsource(module), module.__name__


def test_profile_rejects_unknown_releases_and_keeps_the_given_order():
    with pytest.raises(ValueError, match="unknown"):
        AuditsProfile.quick(releases=("gaussian", "no_such_release"))
    assert AuditsProfile.quick().names() == list(AUDITS)
    assert AuditsProfile.quick(releases=("pgc_prs", "gaussian")).names() == ["pgc_prs", "gaussian"]


def test_run_rejects_another_profile_type():
    with pytest.raises(ValueError, match="AuditsProfile"):
        chapter.run(Profile())


def test_run_makes_checks_only_with_the_seeds_of_run_audits():
    """Two releases: three checks for the one with an exact epsilon, in row order; no claims,
    ledger entries or errata; the i-th release audited with seeds 2 i and 2 i + 1."""
    result = chapter.run(AuditsProfile.quick(releases=("pgc_bit_flip", "gaussian")))
    report = result.report
    assert [c.key for c in report.checks] == [
        "pgc_bit_flip_lower", "pgc_bit_flip_weakened", "pgc_bit_flip_exact",
        "gaussian_lower", "gaussian_weakened",
    ]
    assert all(c.passed for c in report.checks)
    assert not report.claims and not report.entries and not report.errata
    table = result.table("audits")
    assert list(table.release) == ["pgc_bit_flip", "gaussian"]
    assert table.epsilon_lower.iloc[1] == AUDITS["gaussian"]("quick", 2).epsilon_lower
    assert table.weakened_lower.iloc[1] == AUDITS["gaussian"]("quick", 3, weakened=True).epsilon_lower
    assert "wall_time_s" in result.extra


def test_tables_and_figure():
    table = runs.run_audits("quick", 0, ["pgc_bit_flip"])
    shown = tables.display_table(table)
    assert list(shown.release) == ["pgc_bit_flip"] and shown["runs per input"][0] == "2 x 50,000"
    assert shown["lower bound / claim"][0] == f"{table.epsilon_lower[0] / table.claimed_epsilon[0]:.2f}"
    assert shown["weakening caught"][0] == "yes"
    assert tables.recorded_table(None) is None
    assert "No audit" in tables.undetectable_list(table)
    listed = tables.undetectable_list(runs.run_audits("quick", 0, ["dp_lsw"]))
    assert listed.startswith("* **dp_lsw** (noise standard deviation halved") and "24.7" in listed
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plots.plot_audits(table, ax)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["pgc_bit_flip"]
    plt.close(fig)


def test_dirichlet_pair_attains_the_supremum_of_the_privacy_loss():
    """The audited pair (vertex pi, pi' = pi + L b / sqrt(2) (1, -1)) reaches, at an output on the
    boundary of the tau-restricted simplex, the largest log-density ratio over all pairs L b
    apart (theorem1_log_ratio_sup, an independent numerical search): 1.40, far below eq. (12)'s
    4.46, which no pair attains."""
    import numpy as np

    from privrl.core.accounting import dirichlet as dir_acc
    from privrl.core.mechanisms.dirichlet import dirichlet_log_density

    k, m, eta = releases._DIR_K, releases._DIR_M, releases._DIR_ETA
    tau = dir_acc.tau_for_delta_bound(releases._DIR_DELTA, k, m, eta)
    mechanism = dir_acc.Theorem1Mechanism(k, m, eta, tau)
    assert dir_acc.theorem1_delta_bound(mechanism) <= releases._DIR_DELTA
    lb = dir_acc.lipschitz_b_for_epsilon(releases._DIR_EPS, mechanism)
    pi = dir_acc.vertex_policy(m, eta)
    pi_prime = pi + np.array([lb, -lb]) / math.sqrt(2.0)
    z = np.array([[tau, 1 - tau], [1 - tau, tau]])
    loss = np.abs(dirichlet_log_density(z, pi_prime, k) - dirichlet_log_density(z, pi, k)).max()
    sup = dir_acc.theorem1_log_ratio_sup(mechanism, lb, rng=0)
    assert loss == pytest.approx(sup, rel=1e-3)
    assert loss == pytest.approx(1.40, abs=0.01)
    assert AUDITS["dirichlet"]("quick", 0).epsilon_lower <= loss
