"""Wiring of the Audits chapter's set-ups: the audited release is the library's private release
(its explicit weakening parameters left at their defaults), and the weakened variant changes
exactly the parameter :data:`~privrl.papers.audits.releases.WEAKENINGS` names."""

from __future__ import annotations

from typing import Any

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
def test_pgc_laplace_clips_unless_weakened(monkeypatch, weakened):
    seen = _first_call(monkeypatch, local, "laplace_gradient_mechanism")
    with pytest.raises(Seen):
        releases.audit_pgc_laplace("quick", 0, weakened=weakened)
    assert seen["kwargs"] == {"clipped": not weakened}
    assert seen["args"][1:3] == (1.0, 1.0)  # per-report epsilon 2 / 2 rounds, clip C = 1


@pytest.mark.parametrize("weakened, multiplier", [(False, 1.0), (True, 0.5)])
def test_dpsgd_step_draws_n_releases_with_the_calibrated_multiplier(monkeypatch, weakened,
                                                                    multiplier):
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
    fv = mc.first_visit_returns(x, 2, releases._LS_GAMMA)
    kw = {"lam": mc.lsl_regularization(releases._LS_PHI, releases._LS_RHO, releases._LS_M, 1.0)}
    estimator = mc.dp_lsw if name == "dp_lsw" else mc.dp_lsl
    monkeypatch.undo()
    private = estimator(fv, releases._LS_PHI, releases._LS_RHO, epsilon=1.0, delta=1e-5,
                        return_bound=1.0, rng=0, **(kw if name == "dp_lsl" else {}))
    assert sigma == private.sigma
