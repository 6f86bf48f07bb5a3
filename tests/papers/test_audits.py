"""Tests of the Audits chapter (privrl.papers.audits): every release's audit set-up and its
weakened variant, and the chapter's run on the skeleton (checks only).

Quick size, fixed seeds; the audit method itself is tested in tests/core/test_audit.py.
"""

from __future__ import annotations

import inspect
import math

import pytest

from privrl.chapter.profile import Profile
from privrl.papers import audits as package
from privrl.papers.audits import chapter, checks, plots, profile, releases, runs, tables
from privrl.papers.audits.profile import AuditsProfile
from privrl.papers.audits.releases import AUDITS, LEDGER_LINKS, WEAKENINGS


@pytest.mark.parametrize("name", list(AUDITS))
def test_release_audit_and_its_weakened_variant(name):
    """Quick size, seed 0: no audited lower bound exceeds its claim; every weakened variant's does."""
    base = AUDITS[name]("quick", 0)
    weak = AUDITS[name]("quick", 1, weakened=True)
    assert base.epsilon_lower <= base.claimed_epsilon
    assert weak.epsilon_lower > weak.claimed_epsilon
    assert weak.claimed_epsilon == base.claimed_epsilon  # the weakened release keeps the claim
    assert weak.release == f"{name} ({WEAKENINGS[name]})"
    if not math.isnan(base.exact_epsilon):
        assert base.epsilon_lower <= base.exact_epsilon + 1e-9


@pytest.mark.parametrize(
    "name, exact",
    [("pgc_laplace", 1.0), ("pgc_bit_flip", 1.0), ("pgc_prs", 1.0)],
)
def test_local_reports_exact_ratio_equals_per_report_budget(name, exact):
    """Per-report epsilon of a 2-round run of epsilon 2 is 1, and so is the exact worst-case ratio."""
    assert AUDITS[name]("quick", 0).exact_epsilon == pytest.approx(exact)


def test_removing_the_laplace_clip_doubles_the_exact_ratio():
    """Inputs of L1 norm C are C apart after the clip to C/2 (eq. 20), 2C apart without it."""
    assert AUDITS["pgc_laplace"]("quick", 1, weakened=True).exact_epsilon == pytest.approx(2.0)


def test_every_release_has_a_weakening_and_every_ledger_link_an_audit():
    assert list(WEAKENINGS) == list(AUDITS)
    linked = [name for names in LEDGER_LINKS.values() for name in names]
    assert set(linked) <= set(AUDITS) and len(linked) == len(set(linked))


def test_weakenings_go_through_library_parameters_not_patches():
    """Issue item: no ``unittest.mock`` in the chapter's code."""
    for module in (package, chapter, checks, plots, profile, releases, runs, tables):
        assert "mock" not in inspect.getsource(module), module.__name__


def test_profile_rejects_unknown_releases_and_keeps_the_given_order():
    with pytest.raises(ValueError, match="unknown"):
        AuditsProfile.quick(releases=("gaussian", "no_such_release"))
    assert AuditsProfile.quick().names() == list(AUDITS)
    assert AuditsProfile.quick(releases=("pgc_prs", "gaussian")).names() == ["pgc_prs", "gaussian"]


def test_run_rejects_another_profile_type():
    with pytest.raises(ValueError, match="AuditsProfile"):
        chapter.run(Profile())


def test_run_makes_checks_only_with_the_seeds_of_run_audits():
    """Two releases: three checks for the one with an exact epsilon, in row order; no claims,
    ledger entries or errata; the i-th release audited with seeds 2 i and 2 i + 1."""
    result = chapter.run(AuditsProfile.quick(releases=("pgc_bit_flip", "gaussian")))
    report = result.report
    assert [c.key for c in report.checks] == [
        "pgc_bit_flip_lower", "pgc_bit_flip_weakened", "pgc_bit_flip_exact",
        "gaussian_lower", "gaussian_weakened",
    ]
    assert all(c.passed for c in report.checks)
    assert not report.claims and not report.entries and not report.errata
    table = result.table("audits")
    assert list(table.release) == ["pgc_bit_flip", "gaussian"]
    assert table.epsilon_lower.iloc[1] == AUDITS["gaussian"]("quick", 2).epsilon_lower
    assert table.weakened_lower.iloc[1] == AUDITS["gaussian"]("quick", 3, weakened=True).epsilon_lower
    assert "wall_time_s" in result.extra


def test_tables_and_figure():
    table = runs.run_audits("quick", 0, ["pgc_bit_flip"])
    shown = tables.display_table(table)
    assert list(shown.release) == ["pgc_bit_flip"] and shown["runs per input"][0] == "2 x 50,000"
    assert tables.recorded_table(None) is None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plots.plot_audits(table, ax)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["pgc_bit_flip"]
    plt.close(fig)
