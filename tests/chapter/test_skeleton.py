"""The Chapter skeleton runs a paper's pieces in order and records what they return."""

from __future__ import annotations

from dataclasses import dataclass, replace

import dp_accounting
import pytest

from privrl.chapter.evidence import Evidence
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.profile import Profile
from privrl.chapter.skeleton import Chapter, ClaimSpec, Context, ErratumSpec, not_reproduced
from privrl.chapter.verdicts import CheckFailed, Sample, Threshold, decide_threshold
from privrl.core.accounting.events import DpAccountingEvent

EVENT = DpAccountingEvent(dp_accounting.GaussianDpEvent(2.0), "pld", "add/remove")


@dataclass(frozen=True)
class DemoProfile(Profile):
    n_trials: int = 6
    shift: float = 0.0
    PAPER_SCALE = {"n_trials": 20}


def check_positive(ctx: Context) -> None:
    ctx.report.check("positive", "the shift is non-negative", ctx.profile.shift, at_least=0.0)
    ctx.values["order"].append("check")


def decide_small(ctx: Context, ev: Evidence):
    samples = [ev.profile.shift + 0.1 * i for i in range(ev.profile.n_trials)]
    return decide_threshold(Sample(samples), Threshold(1.0, "less"))


CLAIM = ClaimSpec("small", "The values are below one", "Figure 1", decide_small)


class Demo(Chapter):
    name = "demo"
    profile_type = DemoProfile
    checks = (check_positive,)
    claims = (CLAIM,)
    errata = (
        ErratumSpec("always", "ambiguous", "A statement", "{n} trials"),
        not_reproduced(CLAIM),
    )

    def prepare(self, ctx: Context) -> None:
        ctx.values["order"] = ["prepare"]

    def sweep(self, ctx: Context) -> None:
        ctx.values["order"].append("sweep")
        ctx.values["n"] = ctx.profile.n_trials

    def releases(self, ctx: Context):
        ctx.values["order"].append("releases")
        eps = EVENT.epsilon(1e-6)
        yield LedgerEntry(
            "demo",
            "theta",
            "Gaussian",
            "add/remove",
            "record",
            "z = 2",
            1e-6,
            1,
            "dp-accounting PLD",
            EVENT,
            CrossCheck("upper bound", "RDP", eps),
        )

    def evidence(self, ctx: Context):
        ctx.values["order"].append("evidence")
        return super().evidence(ctx)

    def finish(self, ctx: Context) -> None:
        ctx.values["order"].append("finish")


def _order(chapter: type[Chapter]) -> list[str]:
    seen = {}

    class Watched(chapter):
        def finish(self, ctx: Context) -> None:
            super().finish(ctx)
            seen.update(ctx.values)

    Watched().run(DemoProfile.quick())
    return seen["order"]


def test_the_skeleton_runs_checks_sweep_releases_claims_errata_in_order():
    result = Demo().run(DemoProfile.quick())
    report = result.report
    assert [c.key for c in report.checks] == ["positive"]
    assert [c.key for c in report.claims] == ["small"] and report.claims[0].verdict == "reproduced"
    assert [e.key for e in report.errata] == ["always"] and report.errata[0].evidence == "6 trials"
    assert len(report.entries) == 1 and result.wall_time_s > 0
    assert _order(Demo) == ["prepare", "check", "sweep", "releases", "evidence", "finish"]
    far = Demo().run(DemoProfile.quick(shift=2.0)).report
    assert far.claims[0].verdict == "not reproduced"
    assert [e.key for e in far.errata] == ["always", "small_not_reproduced"]


def test_the_skeleton_rejects_a_wrong_profile_and_a_failed_check():
    with pytest.raises(ValueError, match="DemoProfile"):
        Demo().run(object())
    with pytest.raises(CheckFailed, match="positive"):
        Demo().run(DemoProfile.quick(shift=-1.0))


def test_a_claim_decided_again_on_a_recorded_run_is_keyed_and_stamped_by_its_evidence():
    """One spec, two evidence sources: the recorded run's claim carries its key suffix, its
    profile's statement and data, its commit and words, and the source's note."""
    recorded = DemoProfile.paper(shift=2.0)

    class Recorded(Demo):
        claims = (
            ClaimSpec(
                "small", lambda p: f"{p.n_trials} values are below one", "Fig. 1", decide_small
            ),
        )

        def evidence(self, ctx: Context):
            yield from super().evidence(ctx)
            yield Evidence(
                "paper",
                recorded,
                "abc123",
                evidence_lead="recorded run",
                suffix="_paper",
                source_note=" (recorded)",
            )
            yield None  # a source this run does not have
            yield Evidence("design", recorded, "def456", suffix="_design", record="design")

    report = Recorded().run(DemoProfile.quick()).report
    live, paper, design = report.claims
    # a record read into the paper's typed profile is stamped with its own profile's name
    assert (design.key, design.profile, design.n_trials) == ("small_design", "design", 20)
    assert (live.key, live.statement, live.source) == ("small", "6 values are below one", "Fig. 1")
    assert (live.profile, live.commit, live.verdict) == ("quick", report.commit, "reproduced")
    assert (paper.key, paper.statement) == ("small_paper", "20 values are below one")
    assert (paper.profile, paper.commit, paper.source) == ("paper", "abc123", "Fig. 1 (recorded)")
    assert paper.verdict == "not reproduced" and paper.n_trials == 20
    assert paper.evidence == "recorded run"
    # the scale: the quick run says so; a record without a "scale" of its own is paper scale
    assert (live.scale, paper.scale) == ("quick run (CI scale)", "paper scale")


def test_every_verdict_names_its_scale_the_records_own_words_where_it_states_them(monkeypatch):
    """A record whose run JSON states a ``scale`` stamps it on every claim decided on it; an
    evidence given a scale states that one; a live paper-profile run is at paper scale. The
    verdicts are the same whatever the scale says."""
    from privrl.chapter import evidence as evidence_module
    from privrl.chapter.records import RecordedRun

    words = "10 of the paper's 30 seeds, 450 of its 4,000 roll-outs"
    run = RecordedRun(
        "demo", "paper", {"git_commit": "abc123", "scale": words}, None, False, (), ""
    )
    monkeypatch.setattr(
        evidence_module,
        "recorded_run",
        lambda name, profile: run if (name, profile) == ("demo", "paper") else None,
    )
    recorded = DemoProfile.paper(shift=2.0)

    class Scaled(Demo):
        def evidence(self, ctx: Context):
            yield from super().evidence(ctx)
            yield Evidence("paper", recorded, "abc123", suffix="_paper")
            yield Evidence("given", recorded, "def456", suffix="_given", scale="one seed")

    live, paper, given = Scaled().run(DemoProfile.quick()).report.claims
    assert (live.scale, paper.scale, given.scale) == ("quick run (CI scale)", words, "one seed")
    assert (live.verdict, paper.verdict, given.verdict) == (
        "reproduced",
        "not reproduced",
        "not reproduced",
    )
    (own,) = Demo().run(DemoProfile.paper()).report.claims
    assert own.scale == "paper scale" and own.profile == "paper"


def test_the_checks_share_one_generator_seeded_by_the_profile():
    draws = []

    class Drawing(Demo):
        checks = (lambda ctx: draws.append(ctx.rng.random()), check_positive)

    Drawing().run(DemoProfile.quick(seed=3))
    Drawing().run(DemoProfile.quick(seed=3))
    Drawing().run(DemoProfile.quick(seed=4))
    assert draws[0] == draws[1] != draws[2]


def test_a_release_whose_cross_check_exceeds_its_events_epsilon_fails_the_run():
    class Doubled(Demo):
        def releases(self, ctx: Context):
            (entry,) = super().releases(ctx)
            yield replace(entry, cross_check=CrossCheck("upper bound", "RDP", 2 * entry.epsilon))

    with pytest.raises(CheckFailed, match="cross-check"):
        Doubled().run(DemoProfile.quick())


def test_the_declarative_attributes_given_as_class_keywords_are_the_class_attributes():
    class Stated(
        Chapter,
        name="stated",
        profile_type=DemoProfile,
        checks=Demo.checks,
        claims=Demo.claims,
        errata=Demo.errata,
    ):
        prepare, sweep, releases, finish = Demo.prepare, Demo.sweep, Demo.releases, Demo.finish

    assert (Stated.name, Stated.profile_type, Stated.sweep_checks) == ("stated", DemoProfile, ())
    assert Stated.checks is Demo.checks and Stated.claims is Demo.claims
    ours, theirs = Stated().run(DemoProfile.quick()).report, Demo().run(DemoProfile.quick()).report
    assert [c.verdict for c in ours.claims] == [c.verdict for c in theirs.claims] == ["reproduced"]
    assert ours.paper == "stated"


def test_a_chapter_with_an_unknown_keyword_or_without_a_name_is_an_error():
    with pytest.raises(TypeError, match=r"unknown chapter attribute\(s\) \['claim'\]"):

        class Misspelt(Chapter, name="x", profile_type=DemoProfile, claim=()):
            pass

    with pytest.raises(TypeError, match=r"needs \['name'\]"):

        class Nameless(Chapter, profile_type=DemoProfile):
            pass


def test_sweep_options_are_the_runs_executor_cache_and_progress():
    ctx = Context(DemoProfile.quick(), None, executor="pool", cache_dir="/tmp/c", progress=True)
    assert ctx.sweep_options == {"executor": "pool", "cache_dir": "/tmp/c", "progress": True}


def test_a_chapters_typed_state_passes_between_steps_and_its_frames_are_the_returned_tables():
    import pandas as pd

    @dataclass
    class DemoState:
        runs: pd.DataFrame | None = None
        mean: float = 0.0

    class Stateful(Chapter, name="stateful", profile_type=DemoProfile, state_type=DemoState):
        def sweep(self, ctx: Context[DemoState]) -> None:
            ctx.state.runs = pd.DataFrame({"x": [1.0, 3.0]})

        def finish(self, ctx: Context[DemoState]) -> None:
            assert ctx.state.runs is not None
            ctx.state.mean = float(ctx.state.runs["x"].mean())

    result = Stateful().run(DemoProfile.quick())
    assert isinstance(result.state, DemoState) and result.state.mean == 2.0
    assert list(result.tables) == ["runs"] and result.wall_time_s > 0
    first, second = Stateful().run(DemoProfile.quick()), Stateful().run(DemoProfile.quick())
    assert first.state is not second.state
