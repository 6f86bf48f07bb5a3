"""The Frontier chapter (beyond the papers), on the skeleton of :mod:`privrl.chapter.skeleton`.

:func:`run` executes a :class:`~privrl.papers.frontier.profile.FrontierProfile`: the sweep is
the map of :func:`privrl.papers.frontier.runs.run_map` (calibrate, tune on public seeds,
replicates); the sweep checks (:mod:`~privrl.papers.frontier.checks`) verify every release's
noise against its target; every release is a ledger entry (:mod:`~privrl.papers.frontier.
privacy`), those of the recorded paper-profile run too. The chapter makes no claims of its own
(no paper to reproduce): its findings are computed (:func:`~privrl.papers.frontier.analysis.
findings`) on the recorded paper-profile map when there is one, else on this run's, and glued;
beside the recorded map, GPOPE without noise on its datasets when that is recorded
(:mod:`~privrl.papers.frontier.noiseless`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pandas as pd

from privrl.chapter.ledger import LedgerEntry
from privrl.chapter.skeleton import Chapter, Context
from privrl.papers.frontier import analysis, noiseless
from privrl.papers.frontier.checks import SWEEP_CHECKS
from privrl.papers.frontier.privacy import ledger_entries
from privrl.papers.frontier.profile import PAPER, FrontierProfile
from privrl.papers.frontier.record import recorded_tables
from privrl.papers.frontier.runs import run_map

#: Where the map the prose reads comes from.
RECORDED, LIVE_RUN = "the recorded paper-profile run", "this run"


class FrontierChapter(Chapter, name=PAPER, profile_type=FrontierProfile,
                      sweep_checks=SWEEP_CHECKS):
    """The map, its checks, its releases and its findings."""

    def sweep(self, ctx: Context) -> None:
        """This run's map (tables ``calibration``, ``steps``, ``points``) and, beside a run of
        another profile, the recorded paper-profile map (``extra["recorded"]``)."""
        ctx.tables.update(run_map(ctx.profile, **ctx.sweep_options))
        recorded = recorded_tables() if ctx.profile.profile != "paper" else None
        ctx.extra["recorded"] = recorded

    def releases(self, ctx: Context) -> Iterator[LedgerEntry]:
        """This run's releases and, when the map shown is the recorded one, its releases."""
        yield from ledger_entries(ctx.profile, ctx.tables["calibration"], ctx.tables["points"],
                                  LIVE_RUN)
        recorded = ctx.extra.get("recorded")
        if recorded is not None:
            yield from ledger_entries(FrontierProfile.paper(), recorded["calibration"],
                                      recorded["points"], RECORDED)

    def finish(self, ctx: Context) -> None:
        """Glue the findings of the map shown (recorded if there is one) and keep its tables in
        ``extra``: ``map_points``, ``map_source``, ``winners``, ``price`` and, beside the
        recorded map when GPOPE without noise is recorded on its datasets, ``optimisation``
        (:func:`~privrl.papers.frontier.noiseless.optimisation_share`; ``None`` otherwise)."""
        recorded = ctx.extra.get("recorded")
        points: pd.DataFrame = (recorded["points"] if recorded is not None
                                else ctx.tables["points"])
        source = RECORDED if recorded is not None else LIVE_RUN
        found = analysis.findings(points)
        ctx.extra.update(map_points=points, map_source=source, price=found.pop("price"),
                         winners=analysis.winners(points), profile=ctx.profile)
        ctx.glue("map_source", source)
        shown = FrontierProfile.paper() if recorded is not None else ctx.profile
        ctx.glue("target_episodes", f"{shown.target_episodes:,}")
        ctx.glue("quick_note", "" if recorded is not None or ctx.profile.profile == "paper"
                 else " (a quick slice: too small to decide anything; no recorded map yet)")
        for key, value in found.items():
            ctx.glue(re.sub(r"[^A-Za-z0-9_]+", "_", key).strip("_"), value)
        free = noiseless.recorded_noiseless() if recorded is not None else None
        share = None if free is None else noiseless.optimisation_share(points, free)
        ctx.extra["optimisation"] = share


run = FrontierChapter().run

__all__ = ["FrontierChapter", "LIVE_RUN", "RECORDED", "run"]
