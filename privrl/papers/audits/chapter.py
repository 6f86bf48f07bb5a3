r"""The Audits chapter: empirical lower bounds on the epsilon of every release in the book.

The chapter makes checks only (no claims of a paper, no releases of its own, so no ledger
entries): :mod:`~privrl.papers.audits.checks` audits every release set up in
:mod:`~privrl.papers.audits.releases` and its weakened variant with
:func:`privrl.core.audit.audit_release`, and checks each lower bound against the claim; the
other chapters' ledger entries name these audits (``audit="audits:<release>"``,
:data:`~privrl.papers.audits.releases.LEDGER_LINKS`).
"""

from __future__ import annotations

import math

from privrl.chapter.skeleton import Chapter, Context
from privrl.papers.audits.checks import audit_every_release, check_audited_bounds
from privrl.papers.audits.profile import AuditsProfile
from privrl.papers.audits.releases import UNDETECTABLE
from privrl.papers.audits.state import AuditsState


class AuditsChapter(
    Chapter,
    name="audits",
    profile_type=AuditsProfile,
    checks=(audit_every_release, check_audited_bounds),
    state_type=AuditsState,
):
    """Audit every release, then check the bounds (:mod:`~privrl.papers.audits.checks`)."""

    def finish(self, ctx: Context[AuditsState]) -> None:
        """Glue the number of releases audited, the largest ratio of audited lower bound to claim,
        the number of weakenings listed as undetectable, the smallest ratio of a checked weakened
        variant's bound to the claim, and the audits' wall time."""
        table = ctx.state.audits
        checked = table[~table.release.isin(list(UNDETECTABLE))]
        ctx.glue("n_releases", len(table))
        ctx.glue("max_ratio", float((table.epsilon_lower / table.claimed_epsilon).max()))
        ctx.glue("n_undetectable", len(table) - len(checked))
        ctx.glue(
            "min_weakened_ratio",
            float((checked.weakened_lower / checked.claimed_epsilon).min())
            if len(checked)
            else math.nan,
        )
        ctx.glue("seconds", ctx.state.seconds)


run = AuditsChapter().run
