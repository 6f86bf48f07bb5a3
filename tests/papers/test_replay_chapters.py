"""The replay audit (privrl.core.replay) on every chapter's own releases, through the chapters'
code paths (their specs: chapter_replay.py): the value before the noise moves by at most the
sensitivity the chapter's noise is calibrated to, on targeted neighbours under the chapter's
relation, with the same control flow; a spec with its sensitivity halved fails, and so do the
Audits chapter's weakened releases whose weakening moves the value. A release where the audit
finds the sensitivity exceeded (wang2019's Algorithm 1 at its T/B calibration) is expected to
fail, with what was found (chapter_replay.WANG_VIOLATIONS)."""

from __future__ import annotations

import dataclasses
import functools

import chapter_replay as cr
import pytest

from privrl.core.replay import ReplayAuditError, replay_audit

pytestmark = pytest.mark.filterwarnings("ignore::privrl.ClippedDataWarning")

CHAPTERS = {
    "balle2016": cr.balle2016,
    "xie2019": cr.xie2019,
    "frontier": cr.frontier,
    "ono2020": cr.ono2020,
    "gohari2021": cr.gohari2021,
    "wang2019": cr.wang2019,
    "audits": cr.audit_releases,
}
#: The smallest move the targeted neighbours find, as a fraction of the sensitivity: below it the
#: neighbours (or the injection of the data) would not exercise the release.
SMALLEST_WORST = 0.05


@functools.cache
def releases(chapter: str) -> tuple[cr.ChapterRelease, ...]:
    return tuple(CHAPTERS[chapter]())


@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_every_chapter_release_passes_its_replay_audit(chapter):
    found = releases(chapter)
    assert found, chapter
    for release in found:
        if release.violation:
            with pytest.raises(ReplayAuditError, match="beyond the sensitivity"):
                replay_audit(release.spec, release.data)
            continue
        report = replay_audit(release.spec, release.data)
        assert report.pairs >= 1 and report.flow_checked >= 1, report
        assert SMALLEST_WORST <= report.worst <= 1.0 + 1e-9, report


#: Releases whose neighbours move the value by at least half the sensitivity (by chapter), so
#: that halving it must fail.
TIGHT = {
    "xie2019": ("GPOPE (chain, Figure 1 a)", "GPOPE (Mountain Car on-policy, Figure 2 a)"),
    "frontier": ("GPOPE (chain, n = 5 and 10, PLD and RDP)", "GPOPE (Mountain Car on-policy)"),
    "ono2020": ("laplace report (paper, epsilon 1)", "prs report (paper, epsilon 1)"),
    "gohari2021": (
        "teacher answer (student.run_agent)",
        "teacher answer (fast_student.run_agent_fast)",
    ),
    "audits": (
        "gaussian",
        "gpope",
        "gp_update",
        "input_perturbation",
        "dpsgd_step",
        "pgc_laplace",
        "pgc_bit_flip",
        "pgc_prs",
        "dirichlet",
    ),
}


@pytest.mark.parametrize("chapter, name", [(c, n) for c, names in TIGHT.items() for n in names])
def test_a_halved_sensitivity_fails_the_audit(chapter, name):
    (release,) = [r for r in releases(chapter) if r.spec.name == f"{chapter}: {name}"]
    spec = release.spec
    halved = dataclasses.replace(spec, sensitivity=lambda d: spec.bound(d) / 2)
    with pytest.raises(ReplayAuditError, match="beyond the sensitivity"):
        replay_audit(halved, release.data)


def test_the_audits_chapters_weakened_releases_that_move_the_value_fail():
    """Sensitivity passed halved (gaussian), the L1 clip skipped (pgc_laplace), clipped in L2
    (pgc_laplace_dense): the release code moves its value beyond what its noise covers."""
    weakened = cr.audit_releases(weakened=True)
    assert len(weakened) == 3
    for release in weakened:
        with pytest.raises(ReplayAuditError, match="beyond the sensitivity"):
            replay_audit(release.spec, release.data)
