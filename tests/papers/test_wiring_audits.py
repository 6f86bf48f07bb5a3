"""Wiring of the Audits chapter's set-ups: the audited release is the library's private release
(its explicit weakening parameters left at their defaults), and the weakened variant changes
exactly the parameter :data:`~privrl.papers.audits.releases.WEAKENINGS` names."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from privrl.core import audit as au
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.mechanisms import local
from privrl.papers.audits import releases


class Seen(Exception):
    """Raised by a spy once it has seen the first call (the audit need not run to the end)."""


def _first_call(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(args=args, kwargs=kwargs)
        raise Seen

    monkeypatch.setattr(owner, name, spy)
    return seen


@pytest.mark.parametrize("weakened", [False, True])
def test_pgc_laplace_audits_the_librarys_release(monkeypatch, weakened):
    """The audit runs the library's own Algorithm 2 (local.laplace_gradient_mechanism: the grid
    Laplace) at the per-report epsilon 2 / 2 rounds and C = 1, clipping unless weakened."""
    seen = _first_call(monkeypatch, local, "laplace_gradient_mechanism")
    with pytest.raises(Seen):
        releases.audit_pgc_laplace("quick", 0, weakened=weakened)
    rows, epsilon, clip, _ = seen["args"]
    assert (epsilon, clip) == (1.0, 1.0) and np.abs(rows).sum(axis=1) == pytest.approx(1.0)
    assert seen["kwargs"] == {"clipped": not weakened, "floating_point": False}


@pytest.mark.parametrize("weakened", [False, True])
def test_pgc_laplace_dense_clips_in_l1_unless_weakened(monkeypatch, weakened):
    """Dense rows +-10 (1, 1, 1, 1): clipped to L1 norm C/2 = 0.5, or to L2 norm 0.5 (weakened:
    L1 norm 1)."""
    seen = _first_call(monkeypatch, releases, "discrete_laplace_mechanism")
    with pytest.raises(Seen):
        releases.audit_pgc_laplace_dense("quick", 0, weakened=weakened)
    rows, sensitivity, epsilon, _ = seen["args"]
    assert (sensitivity, epsilon) == (1.0, 1.0)
    assert np.abs(rows).sum(axis=1) == pytest.approx(1.0 if weakened else 0.5)
    assert np.linalg.norm(rows, axis=1) == pytest.approx(0.5 if weakened else 0.25)


@pytest.mark.parametrize("name, n", [("gpope", 1), ("gpope_sampled", 2)])
@pytest.mark.parametrize("weakened, multiplier", [(False, 1.0), (True, 0.5)])
def test_gpope_runs_ten_clipped_steps_at_the_claimed_multiplier(
    monkeypatch, name, n, weakened, multiplier
):
    seen = _first_call(monkeypatch, releases, "gpope")
    with pytest.raises(Seen):
        releases.AUDITS[name]("quick", 0, weakened=weakened)
    stats, iterations, step, clip, z, _ = seen["args"]
    assert (stats.n, iterations, step, clip) == (n, 10, 1.0, 1.0)
    assert z == multiplier * 4.0
    assert seen["kwargs"]["record_steps"] is True
    monkeypatch.undo()
    assert releases.AUDITS[name]("quick", 0).claimed_epsilon == releases.gpope_epsilon(
        4.0, n, 10, 1e-5
    )


@pytest.mark.parametrize("name, rate", [("dpsgd_run", 1.0), ("dpsgd_poisson", 0.25)])
@pytest.mark.parametrize("weakened, multiplier", [(False, 1.0), (True, 0.5)])
def test_dpsgd_run_steps_use_the_run_calibrated_multiplier(
    monkeypatch, name, rate, weakened, multiplier
):
    seen = _first_call(monkeypatch, releases, "dpsgd_gradient")
    with pytest.raises(Seen):
        releases.AUDITS[name]("quick", 0, weakened=weakened)
    z = releases.fn.dpsgd_noise_multiplier(1.0, 1e-5, rate, 10)
    assert seen["args"][1:4] == (1.0, pytest.approx(multiplier * z), 4)


@pytest.mark.parametrize("weakened, multiplier", [(False, 1.0), (True, 0.5)])
def test_dpsgd_step_draws_n_releases_with_the_calibrated_multiplier(
    monkeypatch, weakened, multiplier
):
    seen = _first_call(monkeypatch, releases, "dpsgd_gradient")
    with pytest.raises(Seen):
        releases.audit_dpsgd_step("quick", 0, weakened=weakened)
    z = releases.fn.dpsgd_noise_multiplier(1.0, 1e-5, 1.0, 1)
    assert seen["args"][1:4] == (1.0, pytest.approx(multiplier * z), 4)
    batch = au.audit_release.__kwdefaults__["batch_size"]  # the first batch of the audit
    assert seen["kwargs"] == {"n_releases": min(batch, releases.sample_size("quick", "large"))}


@pytest.mark.parametrize("name", ["dp_lsw", "dp_lsl"])
def test_smooth_sensitivity_audits_draw_batched_noise_at_the_calibrated_sigma(monkeypatch, name):
    seen = _first_call(monkeypatch, mc, "smooth_gaussian_release")
    with pytest.raises(Seen):
        releases.AUDITS[name]("quick", 0)
    _, sigma, rng = seen["args"]
    assert isinstance(rng, au.BatchedNormal) and rng.n == releases.sample_size("quick")
    x, _ = releases._ls_pair()
    fv = mc.first_visit_returns(x, releases._LS_STATES, releases._LS_GAMMA)
    kw = {"lam": mc.lsl_regularization(releases._LS_PHI, releases._LS_RHO, releases._LS_M, 1.0)}
    estimator = mc.dp_lsw if name == "dp_lsw" else mc.dp_lsl
    monkeypatch.undo()
    private = estimator(
        fv,
        releases._LS_PHI,
        releases._LS_RHO,
        budget=mc.SmoothGaussianBudget(1.0, 1e-5, 1.0),
        rng=0,
        **(kw if name == "dp_lsl" else {}),
    )
    assert sigma == private.sigma


@pytest.mark.parametrize("weakened, per_report", [(False, 1 / 3), (True, 1 / 2)])
def test_pgc_laplace_rounds_reports_at_the_split_budget(monkeypatch, weakened, per_report):
    """The multi-round audit runs the library's Algorithm 2 with epsilon 1 split over 3 reports
    (weakened: over 2), C = 1, clipping."""
    seen = _first_call(monkeypatch, local, "laplace_gradient_mechanism")
    with pytest.raises(Seen):
        releases.audit_pgc_laplace_rounds("quick", 0, weakened=weakened)
    _, epsilon, clip, _ = seen["args"]
    assert (epsilon, clip) == (pytest.approx(per_report), 1.0) and seen["kwargs"] == {}


@pytest.mark.parametrize("weakened, epsilon", [(False, 10.0), (True, 40 / 3)])
def test_pgc_prs_runs_four_signs_at_the_ledgers_epsilon(monkeypatch, weakened, epsilon):
    """PRS at epsilon 10 (weakened: the budget of 3 signs spread as if over 4), C = 1, the fixed
    projection sqrt(3) I with d_hat = 4 rows."""
    seen = _first_call(monkeypatch, local, "projected_random_sign")
    with pytest.raises(Seen):
        releases.audit_pgc_prs("quick", 0, weakened=weakened)
    rows, eps, clip, _ = seen["args"]
    assert (eps, clip) == (pytest.approx(epsilon), 1.0) and rows.shape[1] == 4
    assert seen["kwargs"]["matrix"][0] == pytest.approx(np.sqrt(3.0) * np.eye(4))


@pytest.mark.parametrize("weakened, factor", [(False, 1.0), (True, 0.5)])
def test_gp_update_draws_paths_at_theorem5_sigma(monkeypatch, weakened, factor):
    """The OU covariance of every update's path has Theorem 5's sigma for U = 10 (halved when
    weakened) and bandwidth 1."""
    seen = _first_call(monkeypatch, releases, "ou_kernel")
    with pytest.raises(Seen):
        releases.audit_gp_update("quick", 0, weakened=weakened)
    _, _, beta, sigma = seen["args"]
    expected = releases.fn.theorem5_sigma(0.9, 5e-5, 10, 4, 0.5, 1, 1 / np.sqrt(2))
    assert beta == 1.0 and sigma == pytest.approx(factor * expected)


@pytest.mark.parametrize("weakened, k", [(False, 5.0), (True, 10.0)])
def test_dirichlet_samples_at_the_claimed_concentration(monkeypatch, weakened, k):
    seen = _first_call(monkeypatch, releases, "dirichlet_mechanism")
    with pytest.raises(Seen):
        releases.audit_dirichlet("quick", 0, weakened=weakened)
    assert seen["args"][1] == k and seen["kwargs"] == {"eta": 0.1}


@pytest.mark.parametrize("weakened, multiplier", [(False, 1.0), (True, 0.5)])
def test_ssp_lstd_adds_the_api_noise_to_the_exact_grid_sums(monkeypatch, weakened, multiplier):
    """The audit releases the library's noisy statistics (ssp_lstd.noisy_statistics) of the
    exact grid sums of the bounded trajectory, with the noise ssp_noise gives at the multiplier
    privrl.ssp_lstd uses for (1, 1e-5) (weakened: half of it), for the audited bounds, d = 2."""
    from privrl.core.accounting.discrete_gaussian import required_noise_multiplier
    from privrl.core.algorithms import ssp_lstd as ssp

    seen = _first_call(monkeypatch, releases.ssp, "noisy_statistics")
    with pytest.raises(Seen):
        releases.audit_ssp_lstd("quick", 0, weakened=weakened)
    monkeypatch.undo()
    grid, n, bounds, noise, _ = seen["args"]
    z = required_noise_multiplier(1.0, 1e-5)
    assert bounds == releases._SSP_BOUNDS and n == 1
    assert noise == ssp.ssp_noise(multiplier * z, bounds, 2)[0]
    x, _ = releases._ssp_pair()
    data = ssp.bounded_transitions(x, releases._SSP_FEATURES, bounds, strict=True)
    batch = min(
        au.audit_release.__kwdefaults__["batch_size"], releases.sample_size("quick", "large")
    )
    assert grid.shape == (batch, 6) and (grid == ssp.grid_statistics(data, noise.step)).all()
