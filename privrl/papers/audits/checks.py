"""The Audits chapter's checks, in the order they run: audit every release, then check each
audited lower bound against its claim, its weakened variant and the pair's exact epsilon.

A lower bound above the claim would prove a bug (at 95% confidence, for that pair); the weakened
variant's bound above the claim shows the audit has the power to find one."""

from __future__ import annotations

import math
import time

from privrl.chapter.skeleton import Context
from privrl.papers.audits.releases import UNDETECTABLE
from privrl.papers.audits.runs import run_audits
from privrl.papers.audits.state import AuditsState


def audit_every_release(ctx: Context[AuditsState]) -> None:
    """Run every audit of the profile and its weakened variant into the state's ``audits`` table
    (and their wall time, ``seconds``)."""
    started = time.perf_counter()
    ctx.state.audits = run_audits(ctx.profile.profile, ctx.profile.seed, ctx.profile.names())
    ctx.state.seconds = round(time.perf_counter() - started, 1)


def check_audited_bounds(ctx: Context[AuditsState]) -> None:
    """Per release: the audited lower bound is at most the claimed epsilon, the weakened variant's
    is above it (except for the releases of :data:`~privrl.papers.audits.releases.UNDETECTABLE`,
    listed with why), and (where known) the bound is at most the pair's exact epsilon."""
    for row in ctx.state.audits.itertuples():
        ctx.report.check(
            f"{row.release}_lower",
            f"{row.release}: audited lower bound at most the claimed epsilon",
            row.epsilon_lower,
            at_most=row.claimed_epsilon,
        )
        if row.release not in UNDETECTABLE:
            ctx.report.check(
                f"{row.release}_weakened",
                f"{row.release} with {row.weakening}: audited lower bound "
                "above the claimed epsilon (the audit has power)",
                row.weakened_lower,
                above=row.claimed_epsilon,
            )
        if not math.isnan(row.exact_epsilon):
            ctx.report.check(
                f"{row.release}_exact",
                f"{row.release}: audited lower bound at most the exact epsilon of the pair",
                row.epsilon_lower,
                at_most=row.exact_epsilon + 1e-9,
            )
