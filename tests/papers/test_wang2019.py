"""Tests of the Wang and Hegde (2019) chapter package: profile, calibrations as run, the ledger's
events and cross-checks, claims (live and recorded) and errata."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
import string
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from privrl.chapter.decided import Decided
from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.paper_numbers import paper_number
from privrl.chapter.report import Report
from privrl.chapter.sentences import NOT_DECIDED, sentences_list
from privrl.chapter.skeleton import Context
from privrl.chapter.sweep import seed_for
from privrl.chapter.verdicts import Claim
from privrl.core.accounting.events import NoGuarantee
from privrl.core.algorithms.functional_q import DPSGDConfig, FunctionalNoiseConfig
from privrl.papers.wang2019 import calibration, chapter, checks, claims, plots, runs
from privrl.papers.wang2019.profile import CURVE_COLUMNS, WangProfile
from privrl.papers.wang2019.runs import privacy_config, run_learning_curve
from privrl.papers.wang2019.state import WangState

SMALL = {"episodes": 12, "dpsgd_warmup": 500, "epsilons": (0.9,)}


@pytest.fixture(scope="module")
def small():
    p = WangProfile.quick(**SMALL)
    return p, calibration.privacy_table(p)


def _context(p: WangProfile, **tables: pd.DataFrame) -> Context[WangState]:
    """A run's context at ``p`` whose state holds ``tables`` and the recorded paper-profile run
    (:meth:`~privrl.papers.wang2019.chapter.Wang2019Chapter.prepare`)."""
    ctx = Context(
        p, Report("wang2019", p.profile, seed=p.seed, config=p.as_dict()), state=WangState(**tables)
    )
    chapter.Wang2019Chapter().prepare(ctx)
    return ctx


def test_profile_is_typed_and_validated():
    p = WangProfile.paper()
    assert p.n_trials == 10 and p.episodes == 100 and p.gp_sigmas == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    assert p.n_updates == 5000 - 128 + 1 and p.paper_updates == 39
    assert p.dpsgd_steps == 5000 - 1000 + 1
    with pytest.raises(ValueError, match="unknown"):
        WangProfile.from_parameters("quick", sigma=1.0)
    with pytest.raises(ValueError, match="epsilons"):
        WangProfile.quick(epsilons=(-1.0,))
    with pytest.raises(ValueError, match="dpsgd_warmup"):
        WangProfile.quick(episodes=5, dpsgd_warmup=500)
    with pytest.raises(ValueError, match="protocol"):
        WangProfile.quick(protocol="mine")
    with pytest.raises(ValueError, match="WangProfile"):
        chapter.run({"profile": "quick"})


def test_every_noise_in_the_runs_is_the_calibrated_one(small):
    """Figure 2's run configs carry each method's calibrated noise into its own config field."""
    p, table = small
    configs = runs.figure2_configs(p, table)
    for config in configs[:-1]:
        row = table[
            (table.method == config["variant"]) & (table.epsilon_target == config["epsilon"])
        ]
        privacy = privacy_config(config)
        value = {
            "functional": "gp_sigma",
            "output": "output_std",
            "input": "reward_std",
            "dpsgd": "noise_multiplier",
        }[config["method"]]
        assert getattr(privacy, value) == pytest.approx(float(row.value.iloc[0]))
        if isinstance(privacy, FunctionalNoiseConfig):
            assert privacy.gp_beta == pytest.approx(float(row.gp_beta.iloc[0]))
            assert privacy.target_path == "independent" and privacy.path_reset == "episode"
        if isinstance(privacy, DPSGDConfig):
            assert privacy.warmup == p.dpsgd_warmup
    assert configs[-1]["method"] == "none"


def test_dpsgd_steps_actually_taken_stay_within_the_claim(small):
    """Recompute the epsilon of the DP-SGD steps one Figure 2 run took, from the run's own record
    of sampling rates, and compare with the claimed epsilon. Starting the steps at the first
    batch (the old bug: warm-up not passed through) exceeds the claim, so the test can fail."""
    p, table = small
    config = next(c for c in runs.figure2_configs(p, table) if c.get("variant") == "dpsgd")
    z = config["noise_multiplier"]
    curve = run_learning_curve(config, seed_for(0, 0))
    assert curve.dp_steps.sum() == p.n_samples - p.dpsgd_warmup + 1
    assert calibration.recorded_dpsgd_epsilon(curve, z, p.delta) <= 0.9
    buggy = run_learning_curve({**config, "warmup": p.batch_size}, seed_for(0, 0))
    assert calibration.recorded_dpsgd_epsilon(buggy, z, p.delta) > 0.9


def test_calibration_table_is_within_target_and_states_relations(small):
    p, table = small
    assert (table.delta <= p.delta).all()
    main = table[table.method == "functional"].iloc[0]
    assert main.compositions == p.n_updates and main.calibrated_updates == p.n_updates
    assert main.n_paths == 4 * p.episodes
    tb = table[table.method == "functional (T/B)"].iloc[0]
    assert tb.calibrated_updates == p.paper_updates and tb.epsilon > 0.9
    assert set(table.relation) == {"replace-one reward function", "add/remove transition"}
    # every epsilon is its event's, and no baseline spends more than its target
    for row in table.itertuples():
        assert row.event.epsilon(row.delta) == pytest.approx(row.epsilon, rel=1e-9)
        if row.method != "functional (T/B)":
            assert row.epsilon <= row.epsilon_target * (1 + 1e-12)
            assert row.epsilon >= row.epsilon_target * (1 - 1e-3)
        check = row.cross_check
        assert check.kind == "upper bound"
        if row.method == "dpsgd":
            assert check.epsilon is None and "known once" in check.method
        else:
            assert check.epsilon <= row.epsilon * 1.01


def test_ledger_entries_carry_events_and_the_steps_taken(small):
    """Every calibration row becomes a ledger entry whose event gives back its epsilon; the
    DP-SGD entry's cross-check is the epsilon of the steps taken once the runs are done."""
    p, table = small
    table = table.copy()
    ctx = _context(p, privacy=table)
    entries = list(chapter.Wang2019Chapter().releases(ctx))
    assert len(entries) == len(table) and all(isinstance(e, LedgerEntry) for e in entries)
    assert all(e.problems(0.01) == [] for e in entries)
    assert {e.audit for e in entries} == {
        "audits:gp_update",
        "",
        "audits:input_perturbation",
        "audits:dpsgd_run",
    }
    algorithm1 = [e for e in entries if e.release.startswith("Q function trained by functional")]
    assert len(algorithm1) == 2 and all(  # "functional" and "functional (T/B)" at epsilon 0.9
        "rests on Lemma 6's premise" in e.accountant and "erratum update_premise" in e.accountant
        for e in algorithm1
    )
    assert all("premise" not in e.accountant for e in entries if e not in algorithm1)
    calibration.with_steps_taken(table, 0.9, 0.61)
    dpsgd = [e for e in chapter.Wang2019Chapter().releases(ctx) if e.relation == "add/remove"]
    assert [e.cross_check.epsilon for e in dpsgd] == [0.61]
    assert dpsgd[0].cross_check.method == calibration.STEPS_TAKEN
    # every entry's epsilon is its calibration row's event's; none can be stated beside it
    for entry, row in zip(entries, table.itertuples(), strict=True):
        assert entry.epsilon == (row.event.epsilon(row.delta) if entry.guaranteed else math.inf)
    with pytest.raises(ValueError, match="epsilon"):
        dataclasses.replace(entries[0], epsilon=2 * entries[0].epsilon)


def _synthetic_curves(
    effect: float, n_seeds: int = 8, released: float | None = None, transition: float | None = None
) -> pd.DataFrame:
    """Curves with an ``effect`` in the training return (the paper's metric), ``released`` (default:
    the same) in the released function's return; ``transition``: the transition-level DP-SGD
    arm's level above Algorithm 1's (default: ``-effect``, like every baseline). The noise is one
    draw per (seed, episode, metric), shared by every arm: a null effect is exactly zero."""
    rng = np.random.default_rng(0)
    released = effect if released is None else released
    transition = -effect if transition is None else transition
    noise = rng.normal(size=(n_seeds, 12, 2))
    arms = [
        dict(
            method="functional",
            sigma=sigma,
            resample=resample,
            epsilon=np.nan,
            variant="functional",
            drop=sigma + (resample == "never"),
        )
        for sigma in (0.0, 0.2, 1.0)
        for resample in ("every", "never")
    ]
    arms += [
        dict(
            method=variant.split(" ")[0],
            sigma=np.nan,
            resample="every",
            epsilon=0.45,
            variant=variant,
            drop=0.0 if variant == "functional" else 1.0,
        )
        for variant in ("functional", "input", "dpsgd (reward fn)")
    ]
    rows = []
    for seed, ep in itertools.product(range(n_seeds), range(12)):
        for arm in arms:
            train, release = 20 - effect * arm["drop"], 20 - released * arm["drop"]
            rows.append(
                {
                    **{k: v for k, v in arm.items() if k != "drop"},
                    "seed": seed,
                    "episode": ep,
                    "protocol": "authors",
                    "train_return": train + noise[seed, ep, 0],
                    "eval_return": release + noise[seed, ep, 1],
                }
            )
        rows.append(
            {
                "method": "dpsgd",
                "sigma": np.nan,
                "resample": "every",
                "epsilon": 0.45,
                "variant": "dpsgd",
                "seed": seed,
                "episode": ep,
                "protocol": "authors",
                "train_return": 20 + transition + noise[seed, ep, 0],
                "eval_return": 20 + transition + noise[seed, ep, 1],
            }
        )
    return pd.DataFrame(rows)


def _decided(curves: pd.DataFrame) -> dict[str, Claim]:
    ctx = _context(WangProfile.quick(), curves=curves)
    live = Evidence(LIVE, ctx.profile, data=claims.Curves(curves))
    return {s.key: live.decide(ctx, s) for s in claims.CLAIMS}


def _decide(curves: pd.DataFrame) -> dict[str, str]:
    return {key: c.verdict for key, c in _decided(curves).items()}


def test_claims_are_decided_four_ways():
    strong = _decide(_synthetic_curves(10.0))
    assert strong["fig1_noise_slows"] == "reproduced"
    assert strong["fig1_resample_helps"] == "reproduced"
    assert strong["fig2_beats_dpsgd"] == "reproduced"
    null = _decide(_synthetic_curves(0.0))
    assert null["fig1_noise_slows"] == "inconclusive"  # no effect: the data cannot decide
    assert null["fig2_beats_input"] == "inconclusive"
    reversed_ = _decide(_synthetic_curves(-10.0))
    assert reversed_["fig1_noise_slows"] == "not reproduced"  # the data exclude the claim
    few = _decide(_synthetic_curves(10.0, n_seeds=2))
    assert set(few.values()) == {"untestable"}
    other_eps = _synthetic_curves(10.0).replace({"epsilon": {0.45: 0.9}})
    assert _decide(other_eps)["fig2_beats_input"] == "untestable"


def test_claims_are_decided_on_the_training_return_the_paper_plots():
    """The paper's rows read the training return; the released function's return only decides
    the ``_beyond`` rows: an effect in one metric alone shows in its own rows alone."""
    train_only = _decide(_synthetic_curves(10.0, released=0.0))
    released_only = _decide(_synthetic_curves(0.0, released=10.0))
    for key in ("fig1_noise_slows", "fig1_resample_helps", "fig2_beats_dpsgd", "fig2_beats_input"):
        assert (train_only[key], train_only[f"{key}_beyond"]) == ("reproduced", "inconclusive")
        assert (released_only[key], released_only[f"{key}_beyond"]) == (
            "inconclusive",
            "reproduced",
        )
    # sigma = 0.2 keeps 20 - 1 of 20 in training (above 90%), 20 - 40 x 0.2 = 12 when released
    kept = _decide(_synthetic_curves(5.0, released=40.0))
    assert (kept["fig1_small_sigma"], kept["fig1_small_sigma_beyond"]) == (
        "reproduced",
        "not reproduced",
    )
    # Figure 1 is decided under the authors' protocol: the other protocol's runs do not count
    curves = _synthetic_curves(10.0)
    other = curves[curves.sigma.notna()].assign(protocol="earlier", train_return=0.0)
    assert _decide(pd.concat([curves, other]))["fig1_noise_slows"] == "reproduced"


def test_dpsgd_claim_is_decided_on_the_papers_relation_only():
    """'Ends above DP-SGD' is decided on DP-SGD for neighbouring reward functions; the
    transition-level arm, however good, only decides its own row beyond the paper."""
    decided = _decided(_synthetic_curves(10.0, transition=10.0))
    assert decided["fig2_beats_dpsgd"].verdict == "reproduced"
    assert "dpsgd (reward fn)" in decided["fig2_beats_dpsgd"].statistic
    beyond = decided["fig2_beats_dpsgd_transition_beyond"]
    assert beyond.verdict == "not reproduced" and beyond.statistic.endswith("mean(dpsgd)")
    statement = next(s.statement for s in claims.CLAIMS if s.key == beyond.key)
    assert statement.startswith("Beyond the paper:")
    assert "different neighbouring relation" in statement


def test_claims_have_sources_thresholds_and_paper_twins():
    live = [s.key for s in claims.CLAIMS]
    assert all("Section 4" in s.source and "p. 8" in s.source for s in claims.CLAIMS)
    papers = [k for k in live if not k.endswith("_beyond")]
    assert papers == [
        "fig1_noise_slows",
        "fig1_small_sigma",
        "fig1_resample_helps",
        "fig2_beats_dpsgd",
        "fig2_beats_input",
    ]
    assert {f"{k}_beyond" for k in papers} < set(live)
    for spec in claims.CLAIMS:
        beyond = spec.key.removesuffix("_paper").endswith("_beyond")
        assert spec.statement.startswith("Beyond the paper:") == beyond
    # every decided claim says where its numbers and its threshold come from
    for claim in _decided(_synthetic_curves(10.0)).values():
        assert claim.threshold == 0.0 and "threshold:" in claim.evidence
        assert "10 seeds" not in claim.evidence and "(the paper: 10)" in claim.evidence


def test_paper_claims_are_decided_on_the_recorded_run(monkeypatch):
    recorded = _synthetic_curves(10.0)
    record = {"wall_time_s": 1000.0, "cpus": 2}
    monkeypatch.setattr(claims, "read_paper_curves", lambda: recorded)
    monkeypatch.setattr(
        claims, "recorded_run", lambda name: SimpleNamespace(commit="abc123", record=record)
    )
    monkeypatch.setattr(chapter, "read_pair", lambda: None)  # the pair: test_wang2019_pair
    spec = next(s for s in claims.CLAIMS if s.key == "fig1_noise_slows")
    quick = _context(WangProfile.quick(), curves=recorded)
    _, paper = chapter.Wang2019Chapter().evidence(quick)
    claim = paper.decide(quick, spec)
    assert (claim.key, claim.verdict, claim.profile, claim.commit) == (
        "fig1_noise_slows_paper",
        "reproduced",
        "paper",
        "abc123",
    )
    assert claim.source.endswith(" (recorded paper-profile run)")
    assert quick.state.paper_record is not None and quick.state.paper_record.curves is recorded
    # a paper-profile run decides its own claims; none recorded: nothing to decide
    assert (
        len(
            list(chapter.Wang2019Chapter().evidence(_context(WangProfile.paper(), curves=recorded)))
        )
        == 1
    )
    monkeypatch.setattr(claims, "read_paper_curves", lambda: None)
    assert (
        len(
            list(chapter.Wang2019Chapter().evidence(_context(WangProfile.quick(), curves=recorded)))
        )
        == 1
    )


def test_an_inconclusive_recorded_claim_states_the_trials_and_cpu_cost_that_would_decide_it(
    monkeypatch,
):
    """Missing trials are priced with the recorded run's timing: wall time x CPUs shared by its
    training runs (8 seeds x 10 runs of the synthetic curves), two arms per trial."""
    recorded = _synthetic_curves(0.1)
    record = {"wall_time_s": 800.0, "cpus": 2}
    assert claims.seconds_per_trial(recorded, record) == 2 * 800.0 * 2 / 80
    monkeypatch.setattr(claims, "read_paper_curves", lambda: recorded)
    monkeypatch.setattr(
        claims, "recorded_run", lambda name: SimpleNamespace(commit="abc123", record=record)
    )
    monkeypatch.setattr(chapter, "read_pair", lambda: None)  # the pair: test_wang2019_pair
    spec = next(s for s in claims.CLAIMS if s.key == "fig2_beats_input")
    quick = _context(WangProfile.quick(), curves=recorded)
    _, paper = chapter.Wang2019Chapter().evidence(quick)
    claim = paper.decide(quick, spec)
    assert claim.verdict == "inconclusive" and claim.trials_to_decide > claim.n_trials == 8
    hours = (claim.trials_to_decide - 8) * 40.0 / 3600
    assert f"about {claim.trials_to_decide} trials per arm" in claim.reason
    assert f"({hours:.2g} more CPU hours)" in claim.reason
    assert "40 CPU seconds" in claim.evidence
    with pytest.raises(ValueError, match="wall_time_s"):
        claims.seconds_per_trial(recorded, {"wall_time_s": 0.0, "cpus": 2})


def test_output_perturbation_is_recorded_with_no_guarantee(small):
    """Output perturbation's release is private per queried value only: epsilon = inf, a
    NoGuarantee event, and the relation under which each value is private; every other release
    keeps its finite epsilon."""
    p, table = small
    entries = list(chapter.Wang2019Chapter().releases(_context(p, privacy=table)))
    output = [e for e in entries if "trained by output" in e.release]
    assert len(output) == len(p.epsilons) >= 1
    for entry in output:
        assert entry.epsilon == math.inf and not entry.guaranteed
        assert isinstance(entry.event, NoGuarantee) and entry.recomputed_epsilon() == math.inf
        assert "only each queried value is private" in entry.event.reason
        assert entry.private_under.startswith("replace-one reward function, for each queried Q")
        assert "not for the released Q function" in entry.private_under
        assert entry.cross_check.epsilon is None
    assert all(e.guaranteed and e.problems(0.01) == [] for e in entries if e not in output)


def test_figure2_labels_output_perturbation_no_guarantee():
    """Figure 2's small multiples: one panel per method and epsilon, titled in words with what
    each arm's privacy is, the method's colour the same in every figure; the final-return
    figure has one legend of at most 8 entries, outside the data."""
    curves = _synthetic_curves(10.0)
    two = curves[curves.epsilon.notna()]
    extra = two[two.variant == "input"].assign(variant="output", method="output")
    data = pd.concat([curves, extra]).assign(samples=lambda d: d.episode)
    fig = plots.plot_figure2(data, 1e-4)
    titles = [ax.get_title().split("\n")[0] for ax in fig.axes]
    assert "output perturbation: no guarantee" in titles and "output" not in titles
    assert not fig.legends and all(ax.get_legend() is None for ax in fig.axes)
    methods = [v for v in plots.VARIANT_WORDS if (data.variant == v).any()]
    assert len(fig.axes) == len(methods) * data.epsilon[np.isfinite(data.epsilon)].nunique()
    final = plots.plot_final_methods(data)
    (legend,) = final.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["non-private", *(plots.VARIANT_WORDS[m] for m in methods)]
    assert len(set(plots.COLOURS.values())) == len(plots.COLOURS)


def test_the_pair_figure_draws_every_seed_and_each_arms_interval_in_its_colour():
    curves = _synthetic_curves(10.0)
    pair = curves[curves.variant.isin(["functional", "input"]) & curves.epsilon.notna()]
    fig = plots.plot_pair(pair)
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == [
        "one seed",
        "mean over seeds, 95% interval",
    ]
    ax = fig.axes[0]
    seeds = pair.seed.nunique()
    dots = [line for line in ax.get_lines() if len(line.get_xdata()) == seeds]
    assert [d.get_color() for d in dots] == [plots.COLOURS["functional"], plots.COLOURS["input"]]
    assert f"{seeds} seeds per arm" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Algorithm 1", "input perturbation"]


def test_errata_read_only_numbers_the_checks_glue(small):
    p, _ = small
    ctx = _context(p)
    checks.check_calibration(ctx)
    fields = {
        name
        for e in claims.ERRATA
        for text in (e.statement, e.evidence)
        for _, name, _, _ in string.Formatter().parse(text)
        if name
    }
    glued_by_prop10 = {"p10_n", "p10_linear_ratio", "p10_bias_ratio", "p10_ou_ratio"}
    assert fields - glued_by_prop10 <= set(ctx.values)
    ctx.values.update(dict.fromkeys(glued_by_prop10, 1.0))
    assert all(e.applies(ctx) and e.make(ctx).evidence for e in claims.ERRATA)


def test_curves_table_has_the_recorded_columns(tmp_path):
    fig1 = pd.DataFrame(
        {
            "gp_sigma": [0.2],
            "resample": ["every"],
            "seed": [0],
            "episode": [0],
            "samples": [50],
            "train_return": [1.0],
            "eval_return": [2.0],
            "method": ["functional"],
            "protocol": ["authors"],
        }
    )
    fig2 = pd.DataFrame(
        {
            "variant": ["dpsgd (reward fn)"],
            "seed": [0],
            "episode": [0],
            "samples": [50],
            "train_return": [1.0],
            "eval_return": [2.0],
            "method": ["dpsgd"],
            "epsilon": [0.45],
            "protocol": [None],
        }
    )
    curves = runs.curves_table(fig1, fig2)
    assert list(curves.columns[: len(CURVE_COLUMNS)]) == list(CURVE_COLUMNS)
    assert curves.method.tolist() == ["functional", "dpsgd"]
    path = runs.write_paper_curves(curves, tmp_path / "c.csv")
    assert runs.read_paper_curves(path).shape == curves.shape
    with pytest.raises(ValueError, match="columns"):
        runs.write_paper_curves(curves.drop(columns="eval_return"), tmp_path / "d.csv")


def test_profile_fields_are_all_typed():
    hints = {f.name: f.type for f in dataclasses.fields(WangProfile)}
    assert "sigma" not in hints and "gp_sigmas" in hints


def test_figure1_runs_the_chosen_protocol_and_the_other_at_the_largest_amplitude():
    p = WangProfile.quick()
    configs = runs.figure1_configs(p)
    seen = {(c["protocol"], c["gp_sigma"], c["resample"]): privacy_config(c) for c in configs}
    authors = seen[("authors", 1.0, "every")]
    assert (authors.target_path, authors.path_reset) == ("independent", "episode")
    assert seen[("authors", 0.0, "never")].path_reset == "never"
    earlier = seen[("earlier", 1.0, "every")]
    assert (earlier.target_path, earlier.path_reset) == ("shared", "updates")
    assert ("earlier", 0.0, "every") not in seen
    assert calibration.n_paths_drawn(p) == 4 * p.episodes
    assert calibration.n_paths_drawn(dataclasses.replace(p, protocol="earlier")) == 2 * p.n_samples


def test_the_chapter_is_the_skeleton_with_the_packages_parts():
    ch = chapter.Wang2019Chapter
    assert (ch.name, ch.profile_type) == ("wang2019", WangProfile)
    assert ch.checks == checks.CHECKS and ch.claims == claims.CLAIMS
    assert ch.errata == claims.ERRATA
    assert chapter.run.__self__.__class__ is ch


def test_the_paper_recorder_writes_its_curves_and_run_record(tmp_path, monkeypatch):
    """``record_paper_curves`` writes the curves into the book's results folder and its run
    record (a RunRecord naming the file) into ``book/measurements/``."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book" / "measurements").mkdir(parents=True)
    (tmp_path / "_config.yml").write_text("title: test\n")
    monkeypatch.chdir(tmp_path)
    curves = pd.DataFrame([dict.fromkeys(CURVE_COLUMNS, 1.0)])
    ran = []

    def fake_run(profile, **kw):
        ran.append(profile)
        return SimpleNamespace(table=lambda name: curves)

    monkeypatch.setattr(chapter, "run", fake_run)
    csv = chapter.record_paper_curves(executor="serial")
    assert ran == [WangProfile.paper()]
    assert csv == tmp_path / "book" / "measurements" / "results" / "wang2019-paper-curves.csv"
    assert pd.read_csv(csv).shape == curves.shape
    record = json.loads((tmp_path / "book" / "measurements" / "wang2019-paper.json").read_text())
    assert (record["notebook"], record["profile"], record["files"]) == (
        "wang2019",
        "paper",
        ["wang2019-paper-curves.csv"],
    )
    assert {"git_commit", "git_dirty", "wall_time_s", "versions"} <= set(record)


def test_dpsgd_pld_epsilon_is_beside_and_below_the_rdp_figure(small):
    """Beyond the paper: DP-SGD's PLD epsilon at per-step rates, recomputed with dp-accounting's
    PLD accountant from the same noise multiplier, is below the RDP epsilon the ledger keeps;
    only the DP-SGD row carries it."""
    import dp_accounting

    from privrl.core.accounting import functional_noise as fn

    p, table = small
    row = table[table.method == "dpsgd"].iloc[0]
    blocks = fn.growing_memory_fine_blocks(p.batch_size, p.n_samples, p.dpsgd_warmup)
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(fn.dpsgd_steps_event(row.value, blocks))
    assert row.epsilon_pld == pytest.approx(acc.get_epsilon(p.delta), rel=1e-9)
    assert row.epsilon_pld < row.epsilon
    assert table[table.method != "dpsgd"].epsilon_pld.isna().all()


def test_final_sigma_marks_the_papers_sigma_and_claims_read_the_decided_verdicts():
    """The paper's "especially when sigma < 0.4" is drawn as a dashed black level at the value
    its data file states; the sentences under a figure quote the paper and give the verdicts the
    book reports (a sentence no claim decides says so, never a typed verdict)."""
    curves = _synthetic_curves(10.0).assign(samples=lambda d: d.episode)
    stated = paper_number("wang2019", "fig1_converges_below_sigma").value
    fig = plots.plot_final_sigma(curves, "authors", stated)
    marks = [
        line for ax in fig.axes for line in ax.get_lines() if line.get_label().startswith("paper")
    ]
    assert len(marks) == 2 and all(m.get_xdata()[0] == stated == 0.4 for m in marks)
    decided = [
        Decided(
            "fig1_noise_slows",
            Claim(
                key="fig1_noise_slows_paper",
                statement="s",
                verdict="reproduced",
                statistic="d",
                value=1.0,
                interval=(0.5, 1.5),
                n_trials=10,
                reason="r",
            ),
        )
    ]
    text = sentences_list(
        "wang2019",
        {"fig1_noise_needs_samples": ["fig1_noise_slows"], "suggested_reset": []},
        decided,
    )
    first, second = text.splitlines()
    assert "line 668" in first and "*reproduced* (`fig1_noise_slows`)" in first
    assert "increase of the noise level" in first
    assert second.endswith(f"Our verdict: {NOT_DECIDED}.")
    with pytest.raises(ValueError, match="fig1_resample_helps"):
        sentences_list("wang2019", {"suggested_reset": ["fig1_resample_helps"]}, decided)


def test_the_bottom_line_states_the_recorded_pairs_numbers():
    """The front matter's bottom line is typed once from the recorded pair: it must keep saying
    what the pair's verdict says."""
    from privrl.chapter.front import front_matter
    from privrl.papers.wang2019.pair import read_pair

    recorded = read_pair()
    assert recorded is not None, "the pair is recorded"
    curves, _ = recorded
    data = SimpleNamespace(data=SimpleNamespace(curves=curves, seconds_per_trial=None))
    outcome = claims.beats("input", "train_return")(None, data)
    line = " ".join(front_matter("wang2019").bottom_line.split())
    lo, hi = outcome.interval
    assert outcome.verdict == "inconclusive" and outcome.n_trials == 50
    assert f"stays inconclusive on {outcome.n_trials} seeds per arm" in line
    assert f"{outcome.value:.2f} [{lo:.2f}, {hi:.2f}]" in line
    needed = re.search(r"about (\d+) trials per arm", outcome.reason).group(1)
    assert f"about {needed} seeds per arm would decide it" in line
