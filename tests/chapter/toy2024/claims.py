"""The toy paper's claims (:data:`CLAIMS`, as the paper makes them) and errata (:data:`ERRATA`)."""

from __future__ import annotations

from privrl.chapter.evidence import Evidence
from privrl.chapter.skeleton import ClaimSpec, Context, ErratumSpec
from privrl.chapter.verdicts import Outcome, Sample, Threshold, decide_difference
from toy2024.state import ToyState


def decide_error_shrinks(ctx: Context[ToyState], ev: Evidence[ToyState]) -> Outcome:
    """Mean absolute error at the largest n below the one at the smallest (bootstrap 95%
    interval of the difference, threshold 0: the paper states no size)."""
    errors = ev.data.errors
    small, large = min(ev.profile.sizes), max(ev.profile.sizes)
    at = {n: errors.loc[errors.n == n, "abs_error"].to_numpy() for n in (small, large)}
    return decide_difference(
        Sample(at[large], f"error at n = {large}"),
        Sample(at[small], f"error at n = {small}"),
        Threshold(0.0, "less"),
        seed=ev.profile.seed,
    )


def eq2_evidence(ctx: Context[ToyState]) -> str:
    """The erratum's evidence: the scale Lemma 1 needs at the profile's largest record count."""
    p = ctx.profile
    return f"Lemma 1's proof needs Delta / epsilon: {p.scale:.3g} at n = {p.largest}."


CLAIMS: tuple[ClaimSpec, ...] = (
    ClaimSpec(
        "error_shrinks",
        "The private mean's error shrinks as n grows",
        "Section 3, Figure 1",
        decide_error_shrinks,
    ),
)

ERRATA: tuple[ErratumSpec, ...] = (
    ErratumSpec(
        "eq2_scale",
        "wrong",
        "Eq. (2) prints the Laplace scale as epsilon / Delta.",
        eq2_evidence,
    ),
)
