"""The Audits chapter's profile: which releases to audit; the profile's name (``quick`` or
``paper``) sets the runs per audit (:data:`privrl.papers.audits.releases.SIZES`)."""

from __future__ import annotations

from dataclasses import dataclass

from privrl.chapter.profile import Profile
from privrl.papers.audits.releases import AUDITS


@dataclass(frozen=True)
class AuditsProfile(Profile):
    """The Audits chapter: ``releases`` to audit (empty = all of
    :data:`~privrl.papers.audits.releases.AUDITS`, in that order)."""

    releases: tuple[str, ...] = ()

    def validate(self) -> None:
        unknown = sorted(set(self.releases) - set(AUDITS))
        if unknown:
            raise ValueError(f"releases: unknown {unknown}; known: {sorted(AUDITS)}")

    def names(self) -> list[str]:
        """The releases to audit, in the order they run."""
        return list(self.releases) or list(AUDITS)
