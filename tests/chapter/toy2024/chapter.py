"""Toy (2024) as a :class:`~privrl.chapter.skeleton.Chapter`; ``run`` is the notebook's entry."""

from __future__ import annotations

from collections.abc import Iterator

from privrl.chapter.ledger import CrossCheck, LedgerEntry
from privrl.chapter.skeleton import Chapter, Context
from privrl.chapter.sweep import run_sweep
from privrl.core.accounting.local import LaplaceReportEvent
from toy2024.checks import CHECKS
from toy2024.claims import CLAIMS, ERRATA
from toy2024.profile import PAPER, ToyProfile
from toy2024.trials import run_mean


class ToyChapter(
    Chapter, name=PAPER, profile_type=ToyProfile, checks=CHECKS, claims=CLAIMS, errata=ERRATA
):
    """The private mean at each record count of the profile."""

    def sweep(self, ctx: Context) -> None:
        """``n_trials`` releases at each record count; the largest count and its noise scale
        for the erratum's template."""
        p = ctx.profile
        configs = [{"n": n, "epsilon": p.epsilon} for n in p.sizes]
        ctx.tables["errors"] = run_sweep(
            run_mean, configs, p.n_trials, p.seed, **{**ctx.sweep_options, "executor": "serial"}
        )
        ctx.glue("n", max(p.sizes))
        ctx.glue("scale", 1 / (max(p.sizes) * p.epsilon))

    def releases(self, ctx: Context) -> Iterator[LedgerEntry]:
        """The mean at the largest record count: Laplace of scale (1/n)/epsilon, epsilon-DP."""
        p, n = ctx.profile, max(ctx.profile.sizes)
        scale = 1 / (n * p.epsilon)
        yield LedgerEntry(
            PAPER,
            f"the mean of n = {n} records",
            "Laplace",
            "replace-one",
            "record",
            f"b = {scale:.3g}",
            0.0,
            1,
            "Laplace mechanism: sensitivity / b",
            LaplaceReportEvent(1 / n, scale),
            CrossCheck("upper bound", "Dwork and Roth 2014, Thm 3.6", p.epsilon),
        )

    def finish(self, ctx: Context) -> None:
        """The number the prose reads: the largest count's mean absolute error."""
        errors = ctx.tables["errors"]
        ctx.glue(
            "error_large", float(errors.loc[errors.n == max(ctx.profile.sizes), "abs_error"].mean())
        )


run = ToyChapter().run
