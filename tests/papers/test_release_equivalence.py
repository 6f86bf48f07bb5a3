"""One model of a release: each chapter release, made through the api's calibration, has the noise
scale and epsilon the api's own release call gives for the chapter's arguments.

* balle2016: every DP-LSW / DP-LSL release of Figure 1's trial (``runs.run_batch``) has the
  sigma_X of :func:`privrl.api.evaluation.smooth_gaussian_noise` on the same batch, and every
  ledger entry the event (and epsilon) of :func:`privrl.dp_lsw` / :func:`privrl.dp_lsl` at the
  profile's target; noise halved at the sweep's call site is caught.
* ono2020: each ledger entry's event is the one :func:`privrl.laplace_report` /
  :func:`privrl.sign_report` return at the chapter's clip and dimension, and the report the
  chapter's mechanism draws is the api's draw.
* wang2019: each Algorithm 1 row of the calibration table (``functional`` and the paper's
  ``functional (T/B)``) has the sigma, kernel and event of :func:`privrl.api.control.algorithm1_noise`
  at the profile's arguments, and its ledger entry that event's epsilon; noise halved at the
  table's call site is caught.
* gohari2021: the teacher's answer and the paper's pair carry the event of
  :func:`privrl.api.control.dirichlet_answer_event` (the one-answer guarantee of
  :func:`privrl.dirichlet_teacher_answer`) at the chapter's k, eta, tau, L and b, and their ledger
  entries its epsilon; a concentration doubled at the teacher's call site is caught.
* xie2019: a GPOPE release's noise multiplier and event (privacy table row, ledger entry) are
  :func:`privrl.api.evaluation.gpope_noise`'s with the paper's floating-point noise
  (``exact=False``) at the release's target, n and T; noise halved at the call site is caught.
* audits: the claims of the grid Laplace rounds, PRS, Dirichlet and SSP-LSTD audits are the
  epsilons (and deltas) of the api's :func:`~privrl.api.mechanisms.grid_laplace_event`,
  :func:`~privrl.api.local.sign_report_event`, :func:`~privrl.api.control.dirichlet_answer_event`
  and :func:`~privrl.api.evaluation.ssp_lstd_noise` at the audits' arguments, and SSP-LSTD's
  audited noise is the builder's; its noise halved at the call site is caught. The one-report
  grid Laplace audits (sparse and dense) claim and score by the api's ``grid_laplace_event``;
  its noise halved at the call site is caught.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pandas as pd
import pytest

import privrl
from privrl.api.control import Algorithm1Noise, algorithm1_noise, dirichlet_answer_event
from privrl.api.evaluation import (
    GpopeNoise,
    SspNoise,
    gpope_noise,
    smooth_gaussian_noise,
    ssp_lstd_noise,
)
from privrl.api.local import sign_report_event
from privrl.api.mechanisms import grid_laplace_event
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.core.accounting import dirichlet as dacc
from privrl.core.accounting.local import per_round_epsilon
from privrl.core.algorithms import a3c
from privrl.core.algorithms import monte_carlo as mc
from privrl.core.envs.chain import sample_trajectories
from privrl.core.mechanisms import local as loc
from privrl.core.rng import as_generator
from privrl.papers.audits import releases as audits
from privrl.papers.balle2016 import chapter as balle_chapter
from privrl.papers.balle2016 import runs as balle_runs
from privrl.papers.balle2016.profile import TRIAL_KEYS, BalleProfile
from privrl.papers.balle2016.state import BalleState
from privrl.papers.gohari2021 import chapter as gohari_chapter
from privrl.papers.gohari2021 import checks as gohari_checks
from privrl.papers.gohari2021 import theory as gohari_theory
from privrl.papers.gohari2021.profile import GohariProfile
from privrl.papers.gohari2021.state import GohariState
from privrl.papers.gohari2021.teacher import load_teacher, teacher_lipschitz
from privrl.papers.ono2020 import chapter as ono_chapter
from privrl.papers.ono2020.profile import OnoProfile
from privrl.papers.wang2019 import calibration as wang_calibration
from privrl.papers.wang2019 import chapter as wang_chapter
from privrl.papers.wang2019.profile import WangProfile
from privrl.papers.wang2019.state import WangState
from privrl.papers.xie2019 import privacy as xie_privacy
from privrl.papers.xie2019.profile import XieProfile

BALLE = BalleProfile.quick(
    n_states=10, n_trials=2, batch_sizes=(20, 40), reg_batch_sizes=(), epsilon=0.5, delta=0.05
)
M = 40


def _balle_trial() -> tuple:
    """One Figure 1 trial at ``M`` (the chapter's path) and the batch it drew."""
    config = {
        **{k: getattr(BALLE, k) for k in TRIAL_KEYS},
        "m": M,
        "reg_sweep": False,
        "reg_log10_min": BALLE.reg_log10_min,
        "reg_log10_max": BALLE.reg_log10_max,
        "reg_n": BALLE.reg_n,
    }
    table = balle_runs.run_batch(config, np.random.SeedSequence(7))
    traj = sample_trajectories(
        BALLE.mdp(), M, as_generator(np.random.SeedSequence(7).spawn(2)[0]), BALLE.max_steps
    )
    return table, traj


def _api_sigmas(traj) -> dict[tuple[str, str], float]:
    """sigma_X by the api's calibration, called with the chapter's arguments."""
    fv = mc.first_visit_returns(traj, BALLE.n_states, BALLE.gamma)
    rho, out = BALLE.rho(), {}
    for feat, phi in BALLE.features().items():
        noise = smooth_gaussian_noise(
            epsilon=0.5, delta=0.05, return_bound=BALLE.return_bound, d=phi.shape[1]
        )
        lam = mc.lsl_regularization(phi, rho, M, BALLE.lsl_c, BALLE.lsl_power)
        out[(feat, "DP-LSW")] = noise.sigma(fv, phi, rho)
        out[(feat, "DP-LSL")] = noise.sigma(fv, phi, rho, lam)
    return out


def _sigmas_agree(table, traj) -> bool:
    expected = _api_sigmas(traj)
    private = table[table.method.isin(["DP-LSW", "DP-LSL"])]
    assert len(private) == len(expected) == 4
    return all(
        math.isclose(row.sigma, expected[(row.features, row.method)], rel_tol=1e-12)
        for row in private.itertuples()
    )


def test_balle_releases_have_the_apis_noise_scale():
    table, traj = _balle_trial()
    assert _sigmas_agree(table, traj)


def test_halving_balles_noise_at_the_call_site_is_caught(monkeypatch):
    for name in ("dp_lsw", "dp_lsl"):
        monkeypatch.setattr(
            balle_runs, name, functools.partial(getattr(mc, name), noise_multiplier=0.5)
        )
    table, traj = _balle_trial()
    assert not _sigmas_agree(table, traj)


def test_balle_ledger_entries_carry_the_apis_event_and_epsilon():
    table, traj = _balle_trial()
    loss = [
        {
            "method": meth,
            "features": feat,
            "pairs_searched": 1,
            "m": M,
            "delta_upper": 0.0,
            "epsilon_empirical": 0.25,
        }
        for feat in BALLE.features()
        for meth in ("DP-LSW", "DP-LSL")
    ]
    ctx = Context(
        BALLE,
        Report("balle2016", "quick"),
        state=BalleState(figure1=table, privacy_loss=pd.DataFrame(loss)),
    )
    entries = list(balle_chapter.Balle2016Chapter().releases(ctx))
    assert len(entries) == 4
    for entry, row in zip(entries, loss, strict=True):
        phi = BALLE.features()[row["features"]]
        call = (
            privrl.dp_lsw
            if row["method"] == "DP-LSW"
            else functools.partial(
                privrl.dp_lsl,
                lam=mc.lsl_regularization(phi, BALLE.rho(), M, BALLE.lsl_c, BALLE.lsl_power),
            )
        )
        release = call(
            traj,
            n_states=BALLE.n_states,
            gamma=BALLE.gamma,
            features=phi,
            epsilon=0.5,
            delta=0.05,
            return_bound=BALLE.return_bound,
            weights=BALLE.rho(),
            rng=0,
        )
        assert entry.event == release.event
        assert entry.epsilon == release.epsilon and entry.delta == release.delta
        assert entry.epsilon == pytest.approx(0.5, rel=1e-9)


def _ono_entries(epsilon: float) -> list:
    ctx = Context(OnoProfile.quick(epsilons=[epsilon]), Report("ono2020", "quick"))
    return list(ono_chapter.Ono2020Chapter().releases(ctx))


@pytest.mark.parametrize("epsilon", [1.0, 5.0, 10.0])
def test_ono_ledger_events_are_the_apis_reports(epsilon: float):
    laplace, prs, one_round, all_rounds = _ono_entries(epsilon)
    clip = a3c.DEFAULT_CLIP["laplace"]
    gradients = np.zeros((1, a3c.D))
    report = privrl.laplace_report(gradients, epsilon=epsilon, clip=clip, rng=0)
    assert laplace.event == report.event and laplace.epsilon == report.epsilon
    signs = privrl.sign_report(gradients, epsilon=epsilon, clip=a3c.DEFAULT_CLIP["prs"], rng=0)
    assert prs.event == signs.event and prs.epsilon == signs.epsilon
    rounds = ono_chapter.LEDGER_ROUNDS
    per_round = privrl.laplace_report(
        gradients, epsilon=per_round_epsilon(1.0, rounds), clip=clip, rng=0
    )
    assert one_round.event == per_round.event and one_round.epsilon == per_round.epsilon
    total = privrl.compose([per_round] * rounds)
    assert all_rounds.epsilon == pytest.approx(total.epsilon, rel=1e-12)


def test_ono_mechanism_draws_the_apis_report():
    """The chapter's mechanism (Algorithm 2 as PGC-A3C calls it) and the api's report draw the
    same report from the same seed: one noise scale."""
    clip, epsilon = a3c.DEFAULT_CLIP["laplace"], 2.0
    g = np.random.default_rng(1).normal(size=(3, a3c.D)) * 1e-5
    chapter = loc.laplace_gradient_mechanism(g, epsilon, clip, np.random.SeedSequence(5))
    api = privrl.laplace_report(g, epsilon=epsilon, clip=clip, rng=np.random.SeedSequence(5))
    np.testing.assert_array_equal(chapter, api.value)


WANG = WangProfile.quick()


def _wang_noise(epsilon: float, calibrated_updates: int | None) -> Algorithm1Noise:
    """Algorithm 1's calibration by the api, called with the chapter's arguments."""
    return algorithm1_noise(
        epsilon=epsilon,
        delta=WANG.delta,
        n_updates=WANG.n_updates,
        batch_size=WANG.batch_size,
        lr=WANG.lr,
        lipschitz=WANG.lipschitz,
        n_paths=wang_calibration.n_paths_drawn(WANG),
        calibrated_updates=calibrated_updates,
    )


def _wang_rows_agree(table: pd.DataFrame) -> bool:
    rows = table[table.method.str.startswith("functional")]
    assert len(rows) == 2 * len(WANG.epsilons)
    calibrated = {"functional": None, "functional (T/B)": WANG.paper_updates}
    agree = []
    for row in rows.itertuples():
        noise = _wang_noise(row.epsilon_target, calibrated[row.method])
        agree.append(
            row.value == noise.sigma
            and row.gp_beta == noise.beta
            and row.k == noise.k
            and row.event == noise.event
            and row.calibrated_updates == noise.calibrated_updates
        )
    return all(agree)


def test_wang_algorithm1_rows_have_the_apis_noise_and_event():
    assert _wang_rows_agree(wang_calibration.privacy_table(WANG))


def test_halving_wangs_noise_at_the_call_site_is_caught(monkeypatch):
    def halved(**kwargs) -> Algorithm1Noise:
        noise = algorithm1_noise(**kwargs)
        return dataclasses.replace(noise, sigma=noise.sigma / 2)

    monkeypatch.setattr(wang_calibration, "algorithm1_noise", halved)
    assert not _wang_rows_agree(wang_calibration.privacy_table(WANG))


def test_wang_ledger_entries_carry_the_apis_event_and_epsilon():
    table = wang_calibration.privacy_table(WANG)
    ctx = Context(WANG, Report("wang2019", "quick"), state=WangState(privacy=table))
    entries = list(wang_chapter.Wang2019Chapter().releases(ctx))
    calibrated = {"functional": None, "functional (T/B)": WANG.paper_updates}
    checked = 0
    for row, entry in zip(table.itertuples(), entries, strict=True):
        if row.method in calibrated:
            noise = _wang_noise(row.epsilon_target, calibrated[row.method])
            assert entry.event == noise.event
            assert entry.delta == noise.delta_gauss + noise.delta_approx <= WANG.delta
            assert entry.epsilon == noise.event.epsilon(entry.delta)
            checked += 1
            if calibrated[row.method] is None:
                assert entry.epsilon == pytest.approx(row.epsilon_target, rel=1e-9)
    assert checked == 2 * len(WANG.epsilons)


GOHARI = GohariProfile.quick()


def _gohari_context() -> Context[GohariState]:
    """The teacher's measured privacy (the chapter's step) and the paper's pair at its stated
    constants (tau, L b for epsilon 4.46 at k = 5, m = 6, eta = 0.1; solved in the chapter)."""
    ctx = Context(GOHARI, Report("gohari2021", "quick"), state=GohariState())
    gohari_checks.measure_teacher_privacy(ctx)
    mechanism = dacc.Theorem1Mechanism(5.0, 6, 0.1, 1.84e-5)
    lb = dacc.lipschitz_b_for_epsilon(4.46, mechanism)
    ctx.state.pair = gohari_theory.PaperPair(
        0.1,
        1.84e-5,
        lb,
        dacc.theorem1_epsilon(mechanism, lb, 1.0),
        dacc.theorem1_delta_bound(mechanism),
        0.049,
        0.0489,
        0.0495,
    )
    ctx.state.pair_sup_ratio = 4.0
    return ctx


def _gohari_api_events(ctx: Context[GohariState]) -> list:
    """The api's one-answer events at the chapter's arguments: the teacher's, the pair's."""
    teacher, meta = load_teacher(GOHARI.env)
    pair = ctx.state.pair
    return [
        dirichlet_answer_event(
            GOHARI.k0,
            m=int(meta["n_actions"]),
            eta=GOHARI.eta,
            tau=GOHARI.tau,
            lipschitz=teacher_lipschitz(teacher, GOHARI.eta),
            b=GOHARI.b,
        ),
        dirichlet_answer_event(
            gohari_theory.PAPER_K, m=6, eta=pair.eta, tau=pair.tau, lipschitz=pair.lb, b=1.0
        ),
    ]


def test_gohari_ledger_entries_carry_the_apis_dirichlet_events():
    ctx = _gohari_context()
    entries = list(gohari_chapter.Gohari2021Chapter().releases(ctx))
    expected = _gohari_api_events(ctx)
    assert len(entries) == len(expected) == 2
    for entry, event in zip(entries, expected, strict=True):
        assert entry.event == event
        assert entry.epsilon == event.epsilon(entry.delta)
    teacher = ctx.state.teacher
    assert teacher.d_q == expected[0].delta_bound
    assert teacher.eps_q == expected[0].epsilon(expected[0].delta_bound)


def test_less_noise_at_goharis_teacher_call_site_is_caught(monkeypatch):
    def doubled(k: float, **kwargs) -> dacc.DirichletMechanismEvent:
        return dirichlet_answer_event(2 * k, **kwargs)

    monkeypatch.setattr(gohari_checks, "dirichlet_answer_event", doubled)
    ctx = _gohari_context()
    entry = next(iter(gohari_chapter.Gohari2021Chapter().releases(ctx)))
    assert entry.event != _gohari_api_events(ctx)[0]


#: The quick profile's first GPOPE release (the chain at its smallest n).
XIE_BUDGET = xie_privacy.all_releases(XieProfile.quick())[0]


def _xie_api_noise() -> GpopeNoise:
    b = XIE_BUDGET
    return gpope_noise(
        epsilon=b.target_epsilon, delta=b.delta, n=b.n, iterations=b.iterations, exact=False
    )


def _xie_agrees(row: dict, entry) -> bool:
    noise = _xie_api_noise()
    return (
        row["noise_multiplier"] == noise.noise_multiplier
        and entry.event == noise.event
        and entry.epsilon == noise.event.epsilon(XIE_BUDGET.delta)
    )


def test_xie_gpope_release_has_the_apis_noise_and_event():
    row = xie_privacy.release_row(XIE_BUDGET)
    entry = xie_privacy.ledger_entry(XIE_BUDGET, row)
    assert _xie_agrees(row, entry)
    assert entry.epsilon <= XIE_BUDGET.target_epsilon


def test_halving_xies_noise_at_the_call_site_is_caught(monkeypatch):
    def halved(**kwargs) -> GpopeNoise:
        noise = gpope_noise(**kwargs)
        return dataclasses.replace(noise, noise_multiplier=noise.noise_multiplier / 2)

    monkeypatch.setattr(xie_privacy, "gpope_noise", halved)
    row = xie_privacy.release_row(XIE_BUDGET)
    assert not _xie_agrees(row, xie_privacy.ledger_entry(XIE_BUDGET, row))


class _Claimed(Exception):
    """Raised by the spy on an audit's run: its claim was seen (no sampling)."""


def _audit_claim(monkeypatch, audit) -> tuple[float, float]:
    """The (claimed epsilon, delta) ``audit`` hands to its run."""
    seen = {}

    def spy(name, release, x, xp, claimed, delta, *args, **kwargs):
        seen.update(claimed=claimed, delta=delta)
        raise _Claimed

    monkeypatch.setattr(audits, "_run", spy)
    with pytest.raises(_Claimed):
        audit("quick", 0)
    monkeypatch.undo()
    return seen["claimed"], seen["delta"]


def test_audit_claims_are_the_apis_events(monkeypatch):
    rounds = grid_laplace_event(
        audits._PGC_CLIP,
        per_round_epsilon(audits._PGC_ROUNDS_EPS, audits._PGC_ROUNDS),
        audits._PGC_D,
        reports=audits._PGC_ROUNDS,
    )
    assert _audit_claim(monkeypatch, audits.audit_pgc_laplace_rounds) == (rounds.epsilon(0.0), 0.0)
    prs = sign_report_event(audits._PRS_EPS, 112)
    assert _audit_claim(monkeypatch, audits.audit_pgc_prs) == (prs.epsilon(0.0), 0.0)
    tau = dacc.tau_for_delta_bound(audits._DIR_DELTA, audits._DIR_K, audits._DIR_M, audits._DIR_ETA)
    lb = dacc.lipschitz_b_for_epsilon(
        audits._DIR_EPS, dacc.Theorem1Mechanism(audits._DIR_K, audits._DIR_M, audits._DIR_ETA, tau)
    )
    answer = dirichlet_answer_event(
        audits._DIR_K, m=audits._DIR_M, eta=audits._DIR_ETA, tau=tau, lipschitz=lb, b=1.0
    )
    expected = (answer.epsilon(answer.delta_bound), answer.delta_bound)
    assert _audit_claim(monkeypatch, audits.audit_dirichlet) == expected
    ssp_event = _ssp_api_noise().event
    assert _audit_claim(monkeypatch, audits.audit_ssp_lstd) == (
        ssp_event.epsilon(audits.DELTA),
        audits.DELTA,
    )


def _ssp_api_noise() -> SspNoise:
    return ssp_lstd_noise(
        epsilon=audits.EPSILON,
        delta=audits.DELTA,
        bounds=audits._SSP_BOUNDS,
        d=audits._SSP_FEATURES.shape[1],
    )


def _ssp_audited_noise(monkeypatch):
    """The noise the SSP-LSTD audit adds (its first call of ``noisy_statistics``)."""
    seen = {}

    def spy(grid, n, bounds, noise, rng):
        seen["noise"] = noise
        raise _Claimed

    monkeypatch.setattr(audits.ssp, "noisy_statistics", spy)
    with pytest.raises(_Claimed):
        audits.audit_ssp_lstd("quick", 0)
    return seen["noise"]


def test_ssp_audit_adds_the_apis_noise(monkeypatch):
    assert _ssp_audited_noise(monkeypatch) == _ssp_api_noise().noise


def test_halving_the_ssp_audits_noise_at_the_call_site_is_caught(monkeypatch):
    def halved(**kwargs) -> SspNoise:
        calibration = ssp_lstd_noise(**kwargs)
        z = calibration.noise_multiplier / 2
        noise, event = audits.ssp.ssp_noise(z, kwargs["bounds"], kwargs["d"])
        return SspNoise(z, noise, event)

    monkeypatch.setattr(audits, "ssp_lstd_noise", halved)
    assert _ssp_audited_noise(monkeypatch) != _ssp_api_noise().noise


def _audited(monkeypatch, audit) -> dict:
    """The claim, delta and score ``audit`` hands to the auditor (``audit_release``)."""
    seen = {}

    def spy(release, x, xp, *, claimed_epsilon, delta, score, **kwargs):
        seen.update(claimed=claimed_epsilon, delta=delta, score=score)
        raise _Claimed

    monkeypatch.setattr(audits.au, "audit_release", spy)
    with pytest.raises(_Claimed):
        audit("quick", 0)
    monkeypatch.undo()
    return seen


#: The one-report grid Laplace audits: the audit, its dimension and its clipped canary.
_LAPLACE_AUDITS = {
    "pgc_laplace": (audits.audit_pgc_laplace, audits._PGC_D, np.eye(audits._PGC_D)[0] / 2),
    "pgc_laplace_dense": (
        audits.audit_pgc_laplace_dense,
        audits._PGC_DENSE_D,
        np.full(audits._PGC_DENSE_D, 1 / (2 * audits._PGC_DENSE_D)),
    ),
}


def _laplace_agrees(seen: dict, d: int, centre: np.ndarray) -> bool:
    """The audit claims the epsilon of the api's ``grid_laplace_event`` at the audits' clip, epsilon
    per report and ``d``, and scores by that event's noise scale."""
    event = grid_laplace_event(audits._PGC_CLIP, per_round_epsilon(audits._PGC_EPS, 2), d)
    y = np.random.default_rng(0).normal(size=(5, d))
    expected = ((np.abs(y + centre) - np.abs(y - centre)) / event.noise_scale).sum(axis=1)
    return (
        seen["claimed"] == event.epsilon(0.0)
        and seen["delta"] == 0.0
        and bool(np.array_equal(seen["score"](y), expected))
    )


@pytest.mark.parametrize("name", sorted(_LAPLACE_AUDITS))
def test_one_report_laplace_audits_claim_and_score_the_apis_event(monkeypatch, name):
    audit, d, centre = _LAPLACE_AUDITS[name]
    assert _laplace_agrees(_audited(monkeypatch, audit), d, centre)


@pytest.mark.parametrize("name", sorted(_LAPLACE_AUDITS))
def test_halving_a_laplace_audits_noise_at_the_call_site_is_caught(monkeypatch, name):
    audit, d, centre = _LAPLACE_AUDITS[name]

    def halved(sensitivity, epsilon, d):
        return grid_laplace_event(sensitivity, 2 * epsilon, d)

    monkeypatch.setattr(audits, "grid_laplace_event", halved)
    seen = _audited(monkeypatch, audit)
    assert not _laplace_agrees(seen, d, centre)
