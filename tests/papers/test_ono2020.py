"""Ono 2020: an independent minimal PGC-A3C agrees with the batched one report by report; the
training pipeline's clip, noise scale and per-round budget are wired as stated; profiles,
claims and the ledger behave.

The reference below is written from the paper alone (Algorithms 1-2, eqs. 15-22): one agent at
a time, gymnasium's own ``CartPoleEnv`` with the agent's gravity, torch autograd for the loss,
its own L1 clip and Laplace noise. It draws its random numbers from the same generator in the
same order as :func:`privrl.core.algorithms.a3c.train_pgc_a3c` (initial parameters, gravities,
then per wave, worker after worker, the initial state and per step the exploration coin and the
random action when it explores, then the wave's noise), so on fixed seeds every report must
agree: an implementation error in the compiled code cannot masquerade as a property of the
paper.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
import torch

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.report import Report
from privrl.chapter.skeleton import Context
from privrl.chapter.verdicts import CheckFailed
from privrl.core.accounting.events import event_from_dict, event_to_dict
from privrl.core.algorithms import a3c
from privrl.core.mechanisms import discrete_laplace as dl
from privrl.core.mechanisms import local as loc
from privrl.papers.ono2020 import chapter, claims, recorded
from privrl.papers.ono2020.profile import PAPER_CAP, OnoProfile
from privrl.papers.ono2020.sources import PAPER_RUN
from privrl.papers.ono2020.state import OnoState, Recorded

GRAVITIES = np.array([9.7, 9.8, 9.9])


def _reference_gradient(theta, states, actions, terminated, gamma=0.99, lam=0.5, beta=0.01):
    """Eqs. (15)-(18) with torch autograd for one episode (rewards 1 per step)."""
    th = torch.tensor(theta, dtype=torch.float64, requires_grad=True)
    wc, wp, wv = th[:64].reshape(16, 4), th[64:96].reshape(2, 16), th[96:].reshape(1, 16)
    s = torch.tensor(np.array(states), dtype=torch.float64)
    h = torch.relu(s @ wc.T)
    logp = torch.log_softmax(h @ wp.T, dim=-1)
    v = (h @ wv.T)[:, 0]
    length = len(actions)
    running = torch.tensor(0.0, dtype=torch.float64) if terminated else v[length].detach()
    targets = []
    for _ in range(length):
        running = 1.0 + gamma * running
        targets.append(running)
    target = torch.stack(targets[::-1])
    adv = target - v[:length]
    ent = -(logp.exp() * logp).sum(-1)[:length]
    la = logp[torch.arange(length), torch.tensor(actions)]
    loss = (-la * adv.detach() - beta * ent).sum() + lam * (adv**2).sum()
    loss.backward()
    return th.grad.numpy()


def reference_pgc_a3c(epsilon, clip, n_submissions, n_workers, seed, max_steps=200):
    """Minimal PGC-A3C (Laplace, |B| = 1, greedy acting), one trial; per-report statistics."""
    gen = np.random.default_rng(seed)
    parts = []
    for fan_out, fan_in in ((16, 4), (2, 16), (1, 16)):
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        parts.append(gen.uniform(-limit, limit, size=(1, fan_out * fan_in)))
    theta = np.concatenate(parts, axis=1)[0]
    gravity = gen.choice(GRAVITIES, size=n_submissions)
    out = {"score": [], "raw_norm": [], "clipped_norm": [], "noise_scale": []}
    for start in range(0, n_submissions, n_workers):
        subs = np.arange(start, min(start + n_workers, n_submissions))
        snapshot = theta.copy()
        grads = []
        for n in subs:
            alpha = max(0.0, 0.5 - n / 1800)
            env = gym.make("CartPole-v1").unwrapped
            env.reset(seed=0)
            env.gravity = float(gravity[n])
            init = gen.uniform(-0.05, 0.05, size=4)
            env.state = init.copy()
            states, actions = [np.array(init, dtype=np.float32)], []
            terminated = False
            for _ in range(max_steps):
                if alpha > 0 and gen.random() < alpha:
                    a = int(gen.integers(0, 2))
                else:
                    s = torch.tensor(states[-1], dtype=torch.float64)
                    th = torch.tensor(snapshot)
                    h = torch.relu(th[:64].reshape(16, 4) @ s)
                    a = int(torch.argmax(th[64:96].reshape(2, 16) @ h))
                obs, _, terminated, _, _ = env.step(a)
                states.append(obs)
                actions.append(a)
                if terminated:
                    break
            grads.append(_reference_gradient(snapshot, states, actions, terminated))
            out["score"].append(len(actions))
        grads = np.array(grads)
        # eq. (21) as released on IEEE doubles: exact discrete Laplace integers of the grid scale
        # for sensitivity C (discrete_laplace, tested on its own), times the grid step
        scale = dl.grid_scale(clip, epsilon, grads.shape[1], dl.DEFAULT_STEP)
        noise = dl.sample_discrete_laplace_inversion(scale, grads.shape, gen) * dl.DEFAULT_STEP
        for g, z in zip(grads, noise, strict=True):
            norm = np.abs(g).sum()
            clipped = g / max(1.0, norm / (clip / 2))
            clipped = np.rint(clipped / dl.DEFAULT_STEP) * dl.DEFAULT_STEP  # the grid
            out["raw_norm"].append(norm)
            out["clipped_norm"].append(np.abs(clipped).sum())
            out["noise_scale"].append(np.abs(z).mean())
            theta = theta - 0.5 * (clipped + z)
    return {k: np.array(v) for k, v in out.items()}


def test_reference_implementation_agrees_report_by_report():
    """Same seed: scores, raw and clipped gradient norms and noise agree for every report."""
    n_sub, n_workers = 45, 9
    ref = reference_pgc_a3c(1.0, 0.01, n_sub, n_workers, seed=11)
    cfg = a3c.PGCA3CConfig(
        epsilon=1.0, n_submissions=n_sub, n_workers=n_workers, stop_at_success=False
    )
    res = a3c.train_pgc_a3c(cfg, 1, 11, record_reports=True)
    np.testing.assert_array_equal(res.scores[0], ref["score"])
    for key in ("raw_norm", "clipped_norm", "noise_scale"):
        np.testing.assert_allclose(res.reports[key][0], ref[key], rtol=1e-5, err_msg=key)
    assert np.all(ref["raw_norm"] > 0.005)  # the clip binds on every report (the failure)


def _laplace_reports(rounds: int, epsilon: float = 1.0, n_sub: int = 450):
    cfg = a3c.PGCA3CConfig(
        epsilon=epsilon, rounds=rounds, n_submissions=n_sub, stop_at_success=False
    )
    return cfg, a3c.train_pgc_a3c(cfg, 2, 5, record_reports=True).reports


@pytest.mark.parametrize("rounds", [1, 3])
def test_training_noise_scale_is_clip_times_rounds_over_epsilon(rounds):
    """Mean |noise| per coordinate estimates the Laplace scale C T / epsilon (224 x 450 draws,
    relative s.e. about 0.3%): spending epsilon instead of epsilon/T per round, or halving the
    scale at the call site, is off by a factor of 2 or 3 and fails."""
    cfg, rep = _laplace_reports(rounds)
    expected = cfg.clip_value * rounds / cfg.epsilon
    assert np.nanmean(rep["noise_scale"]) == pytest.approx(expected, rel=0.02)


def test_training_clip_is_l1_half_c():
    """Every clipped report has L1 norm min(|g|_1, C/2) (eq. 19): clipping at C fails."""
    cfg, rep = _laplace_reports(1)
    expected = np.minimum(rep["raw_norm"], cfg.clip_value / 2)
    np.testing.assert_allclose(rep["clipped_norm"], expected, rtol=1e-5)


def _ledger(epsilons=(1.0,)):
    """The chapter's releases at ``epsilons`` recorded in a fresh report (raises as the run does)."""
    ctx = Context(OnoProfile.quick(epsilons=list(epsilons)), Report("ono2020", "quick"))
    for entry in chapter.Ono2020Chapter().releases(ctx):
        ctx.report.ledger(entry)
    return ctx.report.entries


def test_ledger_events_give_back_every_epsilon_and_cross_checks_are_upper_bounds():
    entries = _ledger((1.0, 5.0, 10.0, math.inf))
    assert len(entries) == 3 * 2 + 2
    for e in entries:
        assert e.cross_check.kind == "upper bound"
        again = event_from_dict(json.loads(json.dumps(event_to_dict(e.event))))
        assert again.epsilon(e.delta) == pytest.approx(e.epsilon, rel=1e-12)
    prs10 = next(e for e in entries if "d_hat = 4" in e.release)
    assert prs10.event.bits == prs10.compositions == 4
    total = entries[-1]
    assert (total.unit, total.event.reports) == ("user", 3)
    # the grid's exact epsilon, from discrete_laplace alone: at most the target, within its slack
    t = dl.grid_scale(0.01, 1.0 / 3, a3c.D)
    assert total.epsilon == pytest.approx(3 * dl.grid_epsilon(0.01, a3c.D, t), rel=1e-12)
    assert 1.0 - 1e-4 < total.epsilon <= 1.0
    laplace = [e for e in entries if e.release.startswith("one gradient report (Laplace")]
    assert len(laplace) == 3
    for e, target in zip(laplace, (1.0, 5.0, 10.0), strict=True):
        t = dl.grid_scale(0.01, target, a3c.D)
        assert e.epsilon == dl.grid_epsilon(0.01, a3c.D, t) <= target
        assert e.event.noise_scale == pytest.approx(
            0.01 / target * dl.noise_inflation(0.01, target, a3c.D), rel=1e-12
        )
        assert f"{dl.noise_inflation(0.01, target, a3c.D):.6f} x" in e.noise


def test_weakened_clip_or_scale_breaks_the_ledger(monkeypatch):
    """The ledger's events and cross-checks use the mechanism's clip and scale: weakening either
    raises."""
    _ledger()
    original = loc.laplace_grid_scale
    monkeypatch.setattr(
        loc,
        "laplace_grid_scale",
        lambda clip, eps, d, step=dl.DEFAULT_STEP: original(clip, eps, d, step) / 2,
    )
    with pytest.raises(CheckFailed):
        _ledger()


def test_ledger_per_round_budget_is_the_mechanisms(monkeypatch):
    """The multi-round entry is the composition of its per-round report (epsilon/T each):
    composed with epsilon per report instead, it is not."""

    def composes() -> bool:
        *_, one_round, all_rounds = _ledger()
        return math.isclose(
            all_rounds.epsilon, chapter.LEDGER_ROUNDS * one_round.epsilon, rel_tol=1e-12
        )

    assert composes()
    original = chapter.laplace_event
    monkeypatch.setattr(
        chapter,
        "laplace_event",
        lambda eps, reports=1: original(eps * reports if reports > 1 else eps, reports),
    )
    assert not composes()


def test_weakened_clip_breaks_the_ledger(monkeypatch):
    original = loc.clip_l1
    monkeypatch.setattr(loc, "clip_l1", lambda g, bound: original(g, 2 * bound))
    with pytest.raises(CheckFailed):
        _ledger()


def test_weakened_prs_flip_breaks_the_ledger(monkeypatch):
    original = loc.sign_probability
    monkeypatch.setattr(
        loc, "sign_probability", lambda u, eps, d_hat, clip: original(u, 2 * eps, d_hat, clip)
    )
    with pytest.raises(CheckFailed):
        _ledger()


def test_exact_ratios():
    # grid release: antipodal clipped inputs +-C/2 e_1 round to +-rint(C/2 / step) grid units,
    # +-(C/2d)(1, ..., 1) to +-rint(C/(2d) / step) in each of the d coordinates
    step = dl.DEFAULT_STEP
    units = max(2 * round(0.005 / step), 2 * 112 * round(0.005 / 112 / step))
    exact = units / dl.grid_scale(0.01, 2.0, 112, step)
    assert loc.laplace_worst_log_ratio(2.0, 0.01, 112) == pytest.approx(float(exact), rel=1e-15)
    assert 2.0 - 1e-4 < loc.laplace_worst_log_ratio(2.0, 0.01, 112) <= 2.0
    assert loc.laplace_worst_log_ratio(2.0, 0.01, 112, floating_point=True) == pytest.approx(2.0)
    assert loc.prs_worst_log_ratio(10.0, 4) == pytest.approx(10.0)
    assert loc.prs_worst_log_ratio(5.0, 2, per_coordinate_epsilon=5.0) == pytest.approx(10.0)


def test_no_clip_divergence_leaves_the_batch():
    cfg = a3c.PGCA3CConfig(
        epsilon=math.inf, clip=math.inf, eta=50.0, n_submissions=300, stop_at_success=False
    )
    res = a3c.train_pgc_a3c(cfg, 2, 0)
    assert res.diverged.all()  # overflowing gradients: the trials stop, no exception
    played = ~np.isnan(res.scores)
    assert 0 < played.sum() < res.scores.size and np.isinf(res.first_success).all()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_trials": 0},
        {"n_trials": 7, "trials_per_seed": 5},
        {"epsilons": [0.0]},
        {"variants": ["nope"]},
        {"variants": ["no_clip"]},
        {"n_submissions": "many"},
    ],
)
def test_profile_rejects_bad_values(kwargs):
    with pytest.raises(ValueError):
        OnoProfile.quick(**kwargs)


def test_profile_rejects_unknown_parameter():
    with pytest.raises(ValueError, match="unknown"):
        OnoProfile.from_parameters("quick", n_runs=3)


def test_paper_profile_is_the_papers_scale():
    p = OnoProfile.paper()
    assert (p.n_trials, p.n_submissions) == (20, 90_000)
    assert dataclasses.replace(p, n_trials=40).n_trials == 40


def _trials(k_lap, k_prs, n=20, eps=1.0, baseline=None):
    """``n`` trials per arm at ``eps`` (Laplace ``k_lap`` successes, PRS ``k_prs``) and, with
    ``baseline``, the non-private Laplace arm with that many successes."""
    arms = [("laplace", eps, k_lap), ("prs", eps, k_prs)]
    arms += [] if baseline is None else [("laplace", math.inf, baseline)]
    rows = [
        {
            "variant": "paper",
            "mechanism": m,
            "epsilon": e,
            "trial": i,
            "first_success": 100.0 if i < k else math.inf,
            "success": i < k,
        }
        for m, e, k in arms
        for i in range(n)
    ]
    return pd.DataFrame(rows)


def _decide(trials, cap=PAPER_CAP, recorded_run=False):
    """The chapter's claims (``claims.CLAIMS``, as the skeleton decides them) on ``trials``, live
    at budget ``cap`` or as the recorded paper run."""
    curves = pd.DataFrame(columns=["mechanism", "buffer_size", "trial", "submission", "avg_score"])
    state = OnoState(trials=trials, curves=curves)
    if recorded_run:
        state.paper_trials, state.paper_curves = trials, curves
        state.recorded = Recorded({"git_commit": "abc"}, cap, "recorded run")
    ctx = Context(OnoProfile.quick(n_submissions=cap), Report("ono2020", "quick"), state=state)
    out = {}
    for ev in chapter.Ono2020Chapter().evidence(ctx):
        for spec in claims.CLAIMS:
            claim = ev.decide(ctx, spec)
            if claim is not None:
                assert claim.statement.endswith(spec.statement) and spec.source
                out[claim.key] = ctx.claims[claim.key] = claim
    return ctx, out


def test_zero_of_n_against_zero_of_n_is_untestable():
    _, decided = _decide(_trials(0, 0))
    assert PAPER_RUN.suffix not in "".join(decided)  # no recorded run: no recorded claims
    assert decided["prs_beats_laplace_eps1"].verdict == "untestable"
    assert decided["laplace_eps1_learns"].verdict == "not reproduced"
    assert decided["laplace_eps1_learns"].interval == pytest.approx((0.0, 0.16843), abs=1e-4)


def test_recorded_claims_carry_the_recorded_run_and_feed_the_erratum():
    """The recorded literal set-up: the baseline at 0/20 is not reproduced (its own finding, the
    erratum); the private claims on it are untestable, with the baseline's count as the reason."""
    ctx, decided = _decide(_trials(0, 0, baseline=0), recorded_run=True)
    base = decided["baseline_learns_paper"]
    assert (base.verdict, base.profile, base.commit) == ("not reproduced", "paper", "abc")
    assert base.evidence.startswith("recorded run; threshold 0.5: half the paper's 20/20")
    paper = decided["laplace_eps1_learns_paper"]
    assert (paper.verdict, paper.profile, paper.commit, paper.evidence) == (
        "untestable",
        "paper",
        "abc",
        "recorded run",
    )
    assert "non-private baseline does not learn (0/20 against the paper's 20/20" in paper.reason
    for key in (
        "prs_beats_laplace_eps1_paper",
        "median_fst_laplace_eps1_paper",
        "buffer_helps_prs_paper",
    ):
        assert decided[key].verdict == "untestable" and "baseline" in decided[key].reason
    erratum = next(e for e in claims.ERRATA if e.key == "learning_not_reproduced")
    assert erratum.applies(ctx)
    item = erratum.make(ctx)
    assert item.statement.startswith("The stated hyper-parameters do not learn")
    assert item.evidence.startswith("recorded run: ") and "baseline_learns_paper" in item.evidence
    assert "laplace_eps1_learns_paper" not in item.evidence
    live_ctx, _ = _decide(_trials(20, 20))
    assert not erratum.applies(live_ctx)


def test_private_claims_are_decided_when_the_baseline_learns():
    """With the baseline at 20/20, the private claims go through the four-state rule: a count
    like the paper's 16/20 is reproduced against half of it (0.40), 3/20 is not reproduced, 8/20
    inconclusive (its interval (0.19, 0.64) contains 0.40)."""

    def claim(k_lap, key="laplace_eps1_learns"):
        return _decide(_trials(k_lap, 17, baseline=20))[1][key]

    assert claim(16).verdict == "reproduced" and claim(16).threshold == pytest.approx(0.40)
    assert claim(3).verdict == "not reproduced"
    assert claim(8).verdict == "inconclusive"
    assert "half the paper's 16/20 = 0.80 (Table 2)" in claim(16).evidence
    assert claim(16, "baseline_learns").threshold == pytest.approx(0.5)
    beats = claim(16, "prs_beats_laplace_eps1")
    assert beats.threshold == pytest.approx(0.025) and beats.verdict == "inconclusive"
    fst = claim(16, "median_fst_laplace_eps1")
    assert fst.threshold == pytest.approx(2 * 18377.0) and fst.verdict == "reproduced"
    assert "twice the paper's median 18,377.0 (Table 1)" in fst.evidence


def test_every_claim_has_a_papers_source_and_a_threshold_from_it():
    """Every decided claim is in one of the four states; every decided one names its threshold,
    which is half the printed ratio / difference or twice the printed median, or 0 (Figure 2)."""
    _, decided = _decide(_trials(16, 17, baseline=20))
    assert {c.verdict for c in decided.values()} <= {
        "reproduced",
        "not reproduced",
        "inconclusive",
        "untestable",
    }
    for spec in claims.CLAIMS:
        assert "Table" in spec.source or "Figure" in spec.source
    for c in decided.values():
        if c.verdict != "untestable":
            assert c.threshold is not None, c.key


def test_success_ratio_claim_at_a_small_budget():
    """Below the paper's budget a ratio is a lower bound: above the threshold it reproduces,
    otherwise nothing can be said."""

    def verdict(k, cap, n=20):
        ev = Evidence(
            LIVE, OnoProfile.quick(), data=claims.TrialData(_trials(k, k, n=n), pd.DataFrame(), cap)
        )
        return claims.success_ratio("laplace", 1.0)(None, ev).verdict

    assert verdict(20, 10_000) == "reproduced"
    assert verdict(0, 10_000) == "untestable"
    assert verdict(0, PAPER_CAP) == "not reproduced"
    assert verdict(4, PAPER_CAP, n=4) == "untestable"


def test_paper_hours_measured_for_a_full_run_projected_for_a_subset():
    """A full run on 2 workers reports its own wall time; a 10,000-submission run on 1 worker is
    scaled by 9 (budget) and halved (2 workers). Older records name the workers ``cpus``."""
    full = {"parameters": {"n_submissions": PAPER_CAP}, "wall_time_s": 1800.0, "cpus": 2}
    subset = {
        "parameters": {"n_submissions": 10_000},
        "wall_time_s": 3600.0,
        "cpus": 8,
        "workers": 1,
    }
    assert recorded.projected_paper_hours(full) == pytest.approx(0.5)
    assert recorded.projected_paper_hours(subset) == pytest.approx(4.5)


def test_record_paper_cli_writes_the_tidy_tables_and_the_starting_commit(tmp_path, monkeypatch):
    """``record-paper`` at a tiny budget: both CSVs with the issue's columns, and a run record
    (through ``RunRecord``) with every field of the committed record, naming the commit read when
    the run started (not when it ended)."""
    commits = iter(["start", "end"])
    monkeypatch.setattr(recorded, "current_commit", lambda: next(commits))
    recorded.main(
        [
            "record-paper",
            "--n-submissions",
            "20",
            "--workers",
            "1",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--out",
            str(tmp_path / "results"),
        ]
    )
    trials = pd.read_csv(tmp_path / "results" / recorded.TRIALS_CSV)
    curves = pd.read_csv(tmp_path / "results" / recorded.CURVES_CSV)
    assert list(trials.columns) == [
        "variant",
        "mechanism",
        "epsilon",
        "gravity",
        "trial",
        "first_success",
        "success",
        "env_steps",
    ]
    assert list(curves.columns) == [
        "variant",
        "mechanism",
        "epsilon",
        "trial",
        "submission",
        "avg_score",
    ]
    assert len(trials) == 13 * 20
    record = json.loads((tmp_path / recorded.RECORD_JSON).read_text())
    assert record["git_commit"] == "start" and recorded.worker_count(record) == 1
    committed = json.loads(
        (
            Path(__file__).resolve().parents[2] / "book" / "measurements" / recorded.RECORD_JSON
        ).read_text()
    )
    assert set(committed) - {"restamped"} <= set(record)  # a re-stamp adds its evidence
    assert record["produced_by"] == ["privrl.papers.ono2020.runs"]
    assert record["files"] == [recorded.TRIALS_CSV, recorded.CURVES_CSV]


def test_figures_draw_without_layout_warnings():
    """The house style's constrained layout lays the figures out: no ``tight_layout`` warning."""
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    from privrl.papers.ono2020 import plots, tables

    curves = pd.DataFrame(
        [
            {
                "mechanism": m,
                "buffer_size": b,
                "trial": t,
                "submission": s,
                "avg_score": 10.0 + t + s / 100,
            }
            for m in ("laplace", "prs")
            for b in (1, 100)
            for t in range(3)
            for s in (50, 100, 150)
        ]
    )
    trials = _trials(5, 10)
    stats = {
        "raw_norm_q10": 1.0,
        "raw_norm_q50": 2.0,
        "raw_norm_q90": 3.0,
        "update_norm": 0.1,
        "actor_share": 0.3,
        "majority_fraction": 0.8,
    }
    diagnostics = pd.DataFrame(
        [
            {"variant": v, "epsilon": e, "trial": t, "submission": s, **stats}
            for v, e in (("paper", math.inf), ("paper", 1.0), ("no_clip", math.inf))
            for t in range(2)
            for s in (50, 100)
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fig in (
            plots.plot_figure2(curves),
            plots.plot_figure3(tables.success_ratio_curves(trials, 1000)),
            plots.plot_failure(diagnostics),
        ):
            fig.canvas.draw()
            matplotlib.pyplot.close(fig)


def test_the_action_selection_ambiguity_names_every_variant_that_samples():
    """The erratum 'hyperparameters' publishes this text: it names each sampling variant."""
    from privrl.papers.ono2020.profile import AMBIGUITIES
    from privrl.papers.ono2020.trials import VARIANTS

    text = dict(AMBIGUITIES)["action selection"]
    sampling = [v for v, c in VARIANTS.items() if c.get("action_selection") == "sample"]
    assert len(sampling) == 5
    assert all((v if v != "reference" else "the reference set-up") in text for v in sampling)


def test_random_play_never_reaches_the_target_score():
    """Validity condition 1 for success (eq. 26): 1,000 episodes of uniformly random actions
    score 22 +- 11 steps, none above 134 of the 200 (target 195); a mean of 10 random
    episodes stays below 43 in every window of a 90,000-submission trial but with probability
    0.001, so the success claims at every budget pass the condition."""
    from privrl.chapter.validity import random_play_reach
    from privrl.papers.ono2020.measures import RANDOM_PLAY_EPISODES, random_play_scores

    mean, sd, largest = random_play_scores()
    assert 15 < mean < 30 and largest < a3c.PGCA3CConfig.target
    reach = random_play_reach(mean, sd, RANDOM_PLAY_EPISODES, a3c.PGCA3CConfig.window, PAPER_CAP)
    assert reach < 50
    for budget in (OnoProfile.quick().n_submissions, PAPER_CAP):
        assert claims.random_play_condition(budget) is None
