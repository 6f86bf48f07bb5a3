"""Toy (2024) as a :class:`~privrl.chapter.skeleton.Chapter`; ``run`` is the notebook's entry."""

from __future__ import annotations

from collections.abc import Iterator

from privrl.chapter.evidence import LIVE, Evidence
from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.skeleton import Chapter, Context
from privrl.chapter.sweep import run_sweep
from privrl.core.accounting.local import LaplaceReportEvent
from toy2024.checks import CHECKS
from toy2024.claims import CLAIMS, ERRATA
from toy2024.profile import PAPER, ToyProfile
from toy2024.state import ToyState
from toy2024.trials import run_mean


class ToyChapter(
    Chapter,
    name=PAPER,
    profile_type=ToyProfile,
    state_type=ToyState,
    checks=CHECKS,
    claims=CLAIMS,
    errata=ERRATA,
):
    """The private mean at each record count of the profile."""

    def sweep(self, ctx: Context[ToyState]) -> None:
        """``n_trials`` releases at each record count, into ``ctx.state.errors``."""
        p = ctx.profile
        configs = [{"n": n, "epsilon": p.epsilon} for n in p.sizes]
        ctx.state.errors = run_sweep(
            run_mean, configs, p.n_trials, p.seed, **{**ctx.sweep_options, "executor": "serial"}
        )

    def releases(self, ctx: Context[ToyState]) -> Iterator[LedgerEntry]:
        """The mean at the largest record count: Laplace of scale (1/n)/epsilon, epsilon-DP."""
        p = ctx.profile
        yield LedgerEntry(
            PAPER,
            f"the mean of n = {p.largest} records",
            "Laplace",
            "replace-one",
            "record",
            f"b = {p.scale:.3g}",
            0.0,
            1,
            "Laplace mechanism: sensitivity / b",
            LaplaceReportEvent(1 / p.largest, p.scale),
            CrossCheck("upper bound", "Dwork and Roth 2014, Thm 3.6", p.epsilon),
        )

    def evidence(self, ctx: Context[ToyState]) -> Iterator[Evidence[ToyState]]:
        """This run, its state as the evidence's typed data (the toy has no recorded run)."""
        yield Evidence(LIVE, ctx.profile, data=ctx.state)

    def finish(self, ctx: Context[ToyState]) -> None:
        """The number the prose reads: the largest count's mean absolute error."""
        errors = ctx.state.errors
        ctx.glue(
            "error_large", float(errors.loc[errors.n == ctx.profile.largest, "abs_error"].mean())
        )


run = ToyChapter().run
