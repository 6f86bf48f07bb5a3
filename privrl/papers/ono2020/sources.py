"""Ono and Takahashi (2020): the recorded runs whose verdicts replace this run's, in order of
precedence (the chapter's one declaration of them, read by
:func:`~privrl.chapter.decided.decided_claims`), and the suffix of this run's claims on the
reference set-up, which two of them decide."""

from __future__ import annotations

from privrl.chapter.decided import EvidenceSource

#: Suffix of the keys of this run's claims on the reference set-up (:mod:`.reference`).
ON_REFERENCE = "_reference"
#: The recorded arms at the steps with the most tuning successes (:mod:`.tuning`): steps tuned
#: on 10+ trials, it decides the reference set-up's claims before its paper-profile record.
TUNED_RUN = EvidenceSource(
    "reference_tuned",
    ON_REFERENCE + "_tuned",
    "the recorded arms of the reference set-up at their tuned steps",
    decides=ON_REFERENCE,
)
#: The recorded paper-profile run on the paper's set-up.
PAPER_RUN = EvidenceSource("paper", "_paper", "the recorded paper-profile run")
#: The recorded paper-profile run on the reference set-up.
REFERENCE_RUN = EvidenceSource(
    "reference_paper",
    ON_REFERENCE + "_paper",
    "the recorded paper-profile run on the reference set-up",
    decides=ON_REFERENCE,
)
SOURCES: tuple[EvidenceSource, ...] = (TUNED_RUN, PAPER_RUN, REFERENCE_RUN)

__all__ = ["ON_REFERENCE", "PAPER_RUN", "REFERENCE_RUN", "SOURCES", "TUNED_RUN"]
