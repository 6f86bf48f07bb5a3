"""The Frontier chapter (beyond the papers), on the skeleton of :mod:`privrl.chapter.skeleton`.

:func:`run` executes a :class:`~privrl.papers.frontier.profile.FrontierProfile`: the sweep is
the map of :func:`privrl.papers.frontier.runs.run_map` (calibrate, tune on public seeds,
replicates); the sweep checks (:mod:`~privrl.papers.frontier.checks`) verify every release's
noise against its target; every release is a ledger entry (:mod:`~privrl.papers.frontier.
privacy`), those of the recorded paper-profile run too. The chapter makes no claims of its own
(no paper to reproduce): its findings are computed (:func:`~privrl.papers.frontier.analysis.
findings`) on the recorded paper-profile map when there is one, else on this run's, and glued;
the map carries every method's own noiseless floor and GPOPE without noise at its own tuned
settings, so the error is split into its parts (:func:`~privrl.papers.frontier.analysis.
privacy_cost`) on the same data.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.records import recorded_run
from privrl.chapter.skeleton import Chapter, Context
from privrl.papers.frontier import analysis
from privrl.papers.frontier.checks import SWEEP_CHECKS
from privrl.papers.frontier.privacy import ledger_entries
from privrl.papers.frontier.profile import PAPER, FrontierProfile
from privrl.papers.frontier.record import recorded_tables
from privrl.papers.frontier.runs import run_map
from privrl.papers.frontier.state import FrontierState, ShownMap

#: Where the map the prose reads comes from.
RECORDED, LIVE_RUN = "the recorded paper-profile run", "this run"


class FrontierChapter(
    Chapter,
    name=PAPER,
    profile_type=FrontierProfile,
    sweep_checks=SWEEP_CHECKS,
    state_type=FrontierState,
):
    """The map, its checks, its releases and its findings."""

    def sweep(self, ctx: Context[FrontierState]) -> None:
        """This run's map (tables ``calibration``, ``steps``, ``lams``, ``points``) and, beside a
        run of another profile, the recorded paper-profile map (``recorded``). A current record
        at the profile's delta gives the noise multipliers it calibrated
        (:func:`~privrl.papers.frontier.runs.calibrations`; ``calibration_source`` says whence);
        the sweep check ``check_calibration`` holds them to their targets either way."""
        p, state = ctx.profile, ctx.state
        recorded = recorded_tables() if p.profile != "paper" else None
        run = recorded_run(PAPER, "paper") if recorded is not None else None
        reuse = (
            run is not None and run.stale is False and run.record["parameters"]["delta"] == p.delta
        )
        known = recorded["calibration"] if reuse else None
        tables = run_map(p, known, **ctx.sweep_options)
        state.calibration, state.steps = tables["calibration"], tables["steps"]
        state.lams, state.points = tables["lams"], tables["points"]
        state.recorded = recorded
        state.calibration_source = (
            f"read from the recorded paper-profile run (commit `{run.commit}`) where it has them, "
            "else calibrated by this run"
            if run is not None and reuse
            else "calibrated by this run"
        )

    def releases(self, ctx: Context[FrontierState]) -> Iterator[LedgerEntry]:
        """This run's releases and, when the map shown is the recorded one, its releases."""
        state = ctx.state
        yield from ledger_entries(ctx.profile, state.calibration, state.points, LIVE_RUN)
        if state.recorded is not None:
            yield from ledger_entries(
                FrontierProfile.paper(),
                state.recorded["calibration"],
                state.recorded["points"],
                RECORDED,
            )

    def finish(self, ctx: Context[FrontierState]) -> None:
        """Glue the findings of the map shown (recorded if there is one) and keep it, with its
        winners, price (against each method's own noiseless version and the non-private
        estimate) and cost (:func:`~privrl.papers.frontier.analysis.privacy_cost`), as
        ``shown``; the tuned settings (``steps``, ``lams``) give the tuning findings."""
        state, recorded = ctx.state, ctx.state.recorded
        points = recorded["points"] if recorded is not None else state.points
        steps = recorded["steps"] if recorded is not None else state.steps
        lams = recorded["lams"] if recorded is not None else state.lams
        calibration = recorded["calibration"] if recorded is not None else state.calibration
        source = RECORDED if recorded is not None else LIVE_RUN
        found = analysis.findings(points)
        state.shown = ShownMap(
            points=points,
            source=source,
            price=found.pop("price"),
            winners=analysis.winners(points),
            cost=analysis.privacy_cost(points),
        )
        ctx.glue("map_source", source)
        shown = FrontierProfile.paper() if recorded is not None else ctx.profile
        ctx.glue("target_episodes", f"{shown.target_episodes:,}")
        ctx.glue(
            "quick_note",
            ""
            if recorded is not None or ctx.profile.profile == "paper"
            else " (a quick slice: too small to decide anything; no recorded map yet)",
        )
        tuned = analysis.tuning_findings(steps, tuple(calibration.iterations.unique()))
        for key, value in {**found, **tuned, **analysis.lam_findings(lams)}.items():
            ctx.glue(re.sub(r"[^A-Za-z0-9_]+", "_", key).strip("_"), value)


run = FrontierChapter().run

__all__ = ["FrontierChapter", "LIVE_RUN", "RECORDED", "run"]
