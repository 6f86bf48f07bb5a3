"""Tests of the Audits chapter (privrl.papers.audits): every release's audit set-up and its
weakened variant, and the chapter's run on the skeleton (checks only).

Quick size, fixed seeds; the audit method itself is tested in tests/core/test_audit.py.
"""

from __future__ import annotations

import inspect
import json
import math

import pandas as pd
import pytest

from privrl.chapter.profile import Profile
from privrl.papers import audits as package
from privrl.papers.audits import chapter, checks, plots, profile, releases, runs, tables
from privrl.papers.audits.profile import AuditsProfile
from privrl.papers.audits.releases import AUDITS, LEDGER_LINKS, UNDETECTABLE, WEAKENINGS


@pytest.fixture(scope="module")
def audited(chapter_output) -> dict[str, pd.Series]:
    """The audits chapter's quick run (every release and its weakened variant, the ``i``-th with
    seeds ``2 i`` and ``2 i + 1``), by release: read from the book built for this test session,
    so the suite does not run the audits twice."""
    table = pd.read_csv(chapter_output("audits") / "audits.results.csv")
    return {row.release: row for row in table.itertuples(index=False)}


@pytest.mark.parametrize("name", list(AUDITS))
def test_release_audit_and_its_weakened_variant(name, audited):
    """Quick size: no audited lower bound exceeds its claim; every weakened variant's does, but
    for those listed as undetectable (whose bound need not: it stays below their exact epsilon,
    where one is known)."""
    row = audited[name]
    assert row.epsilon_lower <= row.claimed_epsilon
    if name in UNDETECTABLE:
        assert math.isnan(row.weakened_exact_epsilon) or (
            row.weakened_lower <= row.weakened_exact_epsilon + 1e-9
        )
    else:
        assert row.weakened_lower > row.claimed_epsilon  # the weakened release keeps the claim
    assert row.weakening == WEAKENINGS[name]
    if not math.isnan(row.exact_epsilon):
        assert row.epsilon_lower <= row.exact_epsilon + 1e-9


def test_the_chapters_rows_are_the_audits_at_their_seeds(audited):
    """The table the tests read is the audits' own output: one release re-run at its seeds."""
    i = list(AUDITS).index("pgc_bit_flip")
    base, weak = (
        AUDITS["pgc_bit_flip"]("quick", 2 * i),
        AUDITS["pgc_bit_flip"]("quick", 2 * i + 1, weakened=True),
    )
    row = audited["pgc_bit_flip"]
    assert (row.epsilon_lower, row.weakened_lower) == (base.epsilon_lower, weak.epsilon_lower)
    assert weak.release == f"pgc_bit_flip ({WEAKENINGS['pgc_bit_flip']})"
    assert weak.claimed_epsilon == base.claimed_epsilon == row.claimed_epsilon


@pytest.mark.parametrize(
    "name, exact",
    [("pgc_laplace", 1.0), ("pgc_bit_flip", 1.0), ("pgc_laplace_rounds", 1.0), ("pgc_prs", 10.0)],
)
def test_local_reports_exact_ratio_equals_their_budget(name, exact, audited):
    """One report of a 2-round run of epsilon 2 is 1-LDP, the 3 reports of an agent at total
    epsilon 1 are 1-LDP together, a PRS report at epsilon 10 composes its 4 signs to 10: the
    exact worst-case ratio of each audited pair equals the budget (up to the grid's slack, below
    1e-6) and the claim is the ledger's event, the same number."""
    row = audited[name]
    assert row.exact_epsilon == pytest.approx(exact, rel=1e-6)
    assert row.claimed_epsilon == pytest.approx(exact, rel=1e-6)
    assert row.exact_epsilon <= row.claimed_epsilon + 1e-12


def test_dropping_one_composition_from_a_split_is_caught_for_the_local_reports():
    """Multi-round Laplace: 3 reports at epsilon / 2 each compose to 1.5; PRS at epsilon 10 with
    the budget spread over 3 of its 4 signs composes to 40 / 3 (exact ratios); both audits' lower
    bounds pass the claim (the audit of the whole composed report, every report / sign seen)."""
    rounds = AUDITS["pgc_laplace_rounds"]("quick", 1, weakened=True)
    assert rounds.exact_epsilon == pytest.approx(1.5, rel=1e-6)
    assert rounds.claimed_epsilon < rounds.epsilon_lower <= rounds.exact_epsilon
    prs = AUDITS["pgc_prs"]("quick", 1, weakened=True)
    assert prs.exact_epsilon == pytest.approx(40 / 3)
    assert prs.claimed_epsilon == pytest.approx(10.0)
    assert prs.claimed_epsilon < prs.epsilon_lower <= prs.exact_epsilon


def test_gp_update_audits_theorem5_over_a_composed_run(audited):
    """U = 10 updates, each shifted by c with ||c||_H^2 = c^2 (beta/2 + 1) = C = 1 (Lemma 6); sigma
    from Theorem 5 for U = 10 at the chapter's (0.9, 5e-5) Gaussian part, so the claim is 0.9;
    the exact epsilon is one Gaussian of sensitivity sqrt(U C) = sqrt(10) (independent closed
    form), below the claim; with sigma halved it is above it and the audit finds that."""
    from privrl.core.accounting.gaussian import gaussian_epsilon

    fn = releases.fn
    args = (4, 0.5, 1, 1 / math.sqrt(2))
    assert fn.theorem5_beta(0.5, 1, 4) == 1.0 and fn.theorem5_C(0.5, 1, 1 / math.sqrt(2), 4) == (
        pytest.approx(1.0)
    )
    assert releases.gp_update_shift() ** 2 * 1.5 == pytest.approx(1.0)
    row = audited["gp_update"]
    sigma = fn.theorem5_sigma(0.9, 5e-5, 10, *args)
    assert sigma == pytest.approx(math.sqrt(2 * 10 * math.log(math.e + 0.9 / 5e-5)) / 0.9)
    assert row.claimed_epsilon == pytest.approx(0.9, rel=1e-5) and row.delta == 5e-5
    assert row.exact_epsilon == pytest.approx(gaussian_epsilon(sigma, 5e-5, math.sqrt(10)))
    assert row.epsilon_lower <= row.exact_epsilon < row.claimed_epsilon
    assert row.weakened_exact_epsilon == pytest.approx(
        gaussian_epsilon(sigma / 2, 5e-5, math.sqrt(10))
    )
    assert row.claimed_epsilon < row.weakened_lower <= row.weakened_exact_epsilon


def test_input_perturbation_audits_the_ledgers_event_over_t_rewards(audited):
    """T = 100 rewards each moved by 1 at the chapter's (0.9, 1e-4): the analytic calibration is
    exact, so the claim, the ledger's GaussianEvent and the exact epsilon agree at 0.9."""
    from privrl.core.accounting.gaussian import GaussianEvent

    row = audited["input_perturbation"]
    sigma = releases.fn.input_perturbation_sigma(0.9, 1e-4, 100)
    assert row.claimed_epsilon == pytest.approx(
        GaussianEvent(sigma, 1.0, 100).epsilon(1e-4), rel=1e-15
    )
    assert row.claimed_epsilon == pytest.approx(0.9, rel=1e-6)
    assert row.exact_epsilon == pytest.approx(0.9, rel=1e-6) and row.delta == 1e-4


def test_why_the_dirichlet_weakening_is_undetectable(audited):
    """The numbers UNDETECTABLE states: at k = 10 (the noise parameter halved) the largest privacy
    loss over pairs L b apart and outputs in the tau-restricted simplex is 2.66, and outputs
    outside it have probability <= 0.0041: within the claimed (4.46, 0.05)."""
    from privrl.core.accounting import dirichlet as dir_acc

    k, m, eta = releases._DIR_K, releases._DIR_M, releases._DIR_ETA
    tau = dir_acc.tau_for_delta_bound(releases._DIR_DELTA, k, m, eta)
    lb = dir_acc.lipschitz_b_for_epsilon(
        releases._DIR_EPS, dir_acc.Theorem1Mechanism(k, m, eta, tau)
    )
    weak_mechanism = dir_acc.Theorem1Mechanism(releases._DIR_K_WEAK, m, eta, tau)
    sup = dir_acc.theorem1_log_ratio_sup(weak_mechanism, lb, rng=0)
    assert sup == pytest.approx(2.66, abs=0.01) and sup < releases._DIR_EPS
    delta = dir_acc.theorem1_delta_bound(weak_mechanism)
    assert delta == pytest.approx(0.0041, abs=5e-5) and delta < releases._DIR_DELTA
    assert "2.66" in UNDETECTABLE["dirichlet"] and "0.0041" in UNDETECTABLE["dirichlet"]
    assert audited["dirichlet"].weakened_lower <= sup


def test_why_the_sampled_gpope_weakening_is_undetectable(audited):
    """The numbers UNDETECTABLE states: the audited pair attains the PLD epsilon, 1.66 at z = 4
    (n = 2, T = 10), 3.96 with z halved, against the RDP claim 3.10."""
    row = audited["gpope_sampled"]
    assert row.claimed_epsilon == pytest.approx(3.10, abs=0.005)
    assert row.exact_epsilon == pytest.approx(1.66, abs=0.01)
    assert row.weakened_exact_epsilon == pytest.approx(3.96, abs=0.01)
    assert row.weakened_lower < row.claimed_epsilon < row.weakened_exact_epsilon
    for number in ("1.66", "3.10", "3.96"):
        assert number in UNDETECTABLE["gpope_sampled"]


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
        2.0, rel=1e-6
    )


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
    assert gp.exact_epsilon == pytest.approx(gaussian_epsilon(4.0 / math.sqrt(10), 1e-5), rel=2e-3)
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
    kw = (
        {}
        if name == "dp_lsw"
        else {"lam": mc.lsl_regularization(releases._LS_PHI, releases._LS_RHO, releases._LS_M, 1.0)}
    )
    est = mc.dp_lsw if name == "dp_lsw" else mc.dp_lsl
    out = [
        est(
            mc.first_visit_returns(t, releases._LS_STATES, releases._LS_GAMMA),
            releases._LS_PHI,
            releases._LS_RHO,
            budget=mc.SmoothGaussianBudget(1.0, 1e-5, 1.0),
            rng=0,
            **kw,
        )
        for t in (x, xp)
    ]
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
        "pgc_bit_flip_lower",
        "pgc_bit_flip_weakened",
        "pgc_bit_flip_exact",
        "gaussian_lower",
        "gaussian_weakened",
    ]
    assert all(c.passed for c in report.checks)
    assert not report.claims and not report.entries and not report.errata
    table = result.table("audits")
    assert list(table.release) == ["pgc_bit_flip", "gaussian"]
    assert table.epsilon_lower.iloc[1] == AUDITS["gaussian"]("quick", 2).epsilon_lower
    assert (
        table.weakened_lower.iloc[1] == AUDITS["gaussian"]("quick", 3, weakened=True).epsilon_lower
    )
    assert result.wall_time_s > 0 and result.state.seconds is not None
    assert result.state.audits is table


def test_tables_and_figure():
    table = runs.run_audits("quick", 0, ["pgc_bit_flip"])
    shown = tables.display_table(table)
    assert list(shown.release) == ["pgc_bit_flip"] and shown["runs per input"][0] == "2 x 50,000"
    assert (
        shown["lower bound / claim"][0]
        == f"{table.epsilon_lower[0] / table.claimed_epsilon[0]:.2f}"
    )
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
    assert [t.get_text() for t in ax.get_yticklabels()] == ["PGC, bit flip"]
    assert len(ax.get_legend().get_texts()) == 3
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


def test_recorded_table_lists_undetectable_releases_from_the_saved_audits():
    """A summary saved with ``audits`` (the notebook's ``report.save``) gives the recorded table
    every release, the one whose weakening is listed as undetectable included; an older summary
    falls back to the checks, which have no row for it."""
    table = pd.DataFrame(
        {
            "release": ["pgc_bit_flip", "dp_lsw"],
            "claimed_epsilon": [1.0, 0.1],
            "epsilon_lower": [0.95, 0.0],
            "weakening": ["flip halved", "noise standard deviation halved"],
            "weakened_lower": [1.4, 0.02],
        }
    )
    saved = tables.saved_audits(table)
    assert json.loads(json.dumps(saved)) == saved
    record = {
        "profile": "paper",
        "git_commit": "abc",
        "finished_at": "2026-11-25T00:00",
        "wall_time_s": 60.0,
        "cpus": 2,
    }
    shown = tables.recorded_table({"summary": {"audits": saved, "checks": []}, "record": record})
    assert list(shown.release) == ["pgc_bit_flip", "dp_lsw"]
    assert list(shown["weakening caught"]) == ["yes", "undetectable (listed)"]
    checks = [
        {"key": "pgc_bit_flip_lower", "bound": 1.0, "observed": 0.95},
        {"key": "pgc_bit_flip_weakened", "bound": 1.0, "observed": 1.4},
        {"key": "dp_lsw_lower", "bound": 0.1, "observed": 0.0},
    ]
    old = tables.recorded_table({"summary": {"checks": checks}, "record": record})
    assert list(old.release) == ["pgc_bit_flip"]


def test_caption_says_what_the_figure_draws():
    """The caption is generated from the drawn table: it claims "every dot left of its bar" and
    "every cross right of it" only when true, and names each exception (issue 35: the recorded
    run's crosses of DP-LSW, DP-LSL, sampled GPOPE and Dirichlet lie left of their bars)."""
    import pandas as pd

    rows = pd.DataFrame(
        {
            "release": ["gaussian", "dp_lsw", "gpope_sampled"],
            "claimed_epsilon": [1.0, 1.0, 3.1],
            "epsilon_lower": [0.7, 0.0, 1.2],
            "weakened_lower": [1.4, 0.01, 2.8],
        }
    )
    text = plots.audits_caption(rows, "the test")
    assert "3 releases of the test" in text
    assert "Every dot lies left of its bar" in text
    assert "Every cross" not in text and "1 crosses lie right" in text
    assert "DP-LSW and GPOPE (sampled trajectories) lie left of it" in text
    caught = rows.assign(weakened_lower=[1.4, 2.0, 4.0])
    assert "Every cross lies right of its bar" in plots.audits_caption(caught, "x")
    over = rows.assign(epsilon_lower=[1.2, 0.0, 1.2])
    text = plots.audits_caption(over, "x")
    assert "Every dot" not in text and "Dots right of their bar" in text
    assert "Gaussian mechanism" in text
    missed = rows.assign(release=["gaussian", "gp_update", "gpope"], weakened_lower=[1.4, 0.5, 1.0])
    assert "not caught and not listed: GP update and GPOPE" in plots.audits_caption(missed, "x")


def test_recorded_audits_read_the_saved_rows_for_the_figure():
    saved = [
        {
            "release": "gaussian",
            "claimed_epsilon": 1.0,
            "epsilon_lower": 0.7,
            "weakening": "noise standard deviation halved",
            "weakened_lower": 1.4,
        }
    ]
    frame = plots.recorded_audits({"summary": {"audits": saved}})
    assert list(frame.columns) == list(tables.SAVED_COLUMNS)
    assert frame.to_dict("records") == saved
    assert plots.recorded_audits(None) is None
    assert plots.recorded_audits({"summary": {"checks": []}}) is None


def test_ssp_lstd_audits_the_api_release_on_a_pair_near_its_sensitivity(audited):
    """SSP-LSTD (issue 53), quick size (2 x 500,000 runs per input and half): the claim is the
    epsilon of privrl.ssp_lstd's release at (1, 1e-5) on the audited bounds (F = 1, R = 10,
    L = 2, gamma = 0.9); the pair's exact grid sums differ by 2 L sqrt(gamma^2 F^4 + F^2 R^2),
    0.986 of Delta_2; the exact epsilon of that shift (0.90) is below the claim and, with the
    noise multiplier halved (1.94), above it, where the audit finds it (power: 1.45 at seed 33)."""
    import numpy as np

    import privrl
    from privrl.core.algorithms import ssp_lstd as ssp

    row = audited["ssp_lstd"]
    bounds, features = releases._SSP_BOUNDS, releases._SSP_FEATURES
    x, xp = releases._ssp_pair()
    api = privrl.ssp_lstd(
        x,
        features=features,
        gamma=0.9,
        epsilon=1.0,
        delta=1e-5,
        feature_bound=1.0,
        reward_bound=10.0,
        max_length=2,
        lam=1.0,
        rng=0,
        strict=True,
    )
    assert row.claimed_epsilon == pytest.approx(api.epsilon, rel=1e-12) and row.delta == 1e-5
    step = api.parameters["step"]
    shift = np.linalg.norm(releases._ssp_grid(xp, step) - releases._ssp_grid(x, step)) * step
    assert shift == pytest.approx(4.0 * math.sqrt(0.81 + 100.0), rel=1e-6)
    assert shift / bounds.exact_sensitivity == pytest.approx(0.986, abs=5e-4)
    assert shift <= ssp.ssp_sensitivity(1.0, 10.0, 2, 0.9)
    assert row.n_samples == 500_000
    assert row.epsilon_lower <= row.exact_epsilon < row.claimed_epsilon < row.weakened_exact_epsilon
    assert row.claimed_epsilon < row.weakened_lower <= row.weakened_exact_epsilon
