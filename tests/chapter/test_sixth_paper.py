"""The README's "Adding a sixth paper" guide, kept true: the toy chapter ``toy2024`` (one
mechanism, one claim, one erratum, one ledger entry) is written file for file as the guide says,
runs through ``Chapter.run``, and shows on the landing page, in its summary box and on the
ledger page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from toy2024 import checks
from toy2024.chapter import run
from toy2024.profile import ToyProfile

from privrl.chapter.records import SOURCE_ROOT
from privrl.chapter.verdicts import CheckFailed
from privrl.pipeline.ledger_page import ledger_page
from privrl.pipeline.pages import errata_entries, landing_papers

TOY = Path(__file__).parent / "toy2024"


def _guide() -> str:
    readme = (SOURCE_ROOT / "README.md").read_text()
    return readme.split("### Adding a sixth paper", 1)[1].split("\n### ", 1)[0]


def test_the_guide_lists_the_toy_chapters_files_and_every_registration():
    """The guide's numbered files are exactly the toy's (in a package, ``privrl/papers/NAME/``);
    the two files a chapter adds only when it needs them are named apart from them."""
    guide = _guide()
    numbered = re.findall(r"^\d+\. `privrl/papers/NAME/(\w+\.py)`", guide, flags=re.MULTILINE)
    assert sorted(numbered) == sorted(p.name for p in TOY.glob("*.py")), numbered
    assert len(numbered) == len(set(numbered))
    optional = re.findall(r"^- `privrl/papers/NAME/(\w+\.py)`", guide, flags=re.MULTILINE)
    assert optional == ["sources.py", "plots.py"]
    assert not (TOY / "sources.py").exists() and not (TOY / "plots.py").exists()
    for registration in (
        "notebooks/NAME.ipynb",
        "_toc.yml",
        "book/references/NAME.bib",
        "_config.yml",
        "book/intro.md",
        "README.md",
        "pyproject.toml",
        "tests/papers/test_NAME.py",
        "tests/papers/test_wiring_NAME.py",
        "tests/chapter/toy2024/",
        "privrl/core/",
    ):
        assert f"`{registration}" in guide, registration


def test_the_toy_chapter_runs_through_the_skeleton_into_the_books_pages():
    result = run(ToyProfile.quick())
    report = result.report
    summary = report.summary(wall_time_s=1.0)
    assert set(result.tables) == {"errors"} and result.tables["errors"] is result.state.errors
    (claim,) = report.claims
    assert (claim.key, claim.verdict, claim.profile) == ("error_shrinks", "reproduced", "quick")
    assert claim.commit == report.commit and claim.source == "Section 3, Figure 1"
    assert claim.scale == "quick run (CI scale)"
    # the landing page: one row, its claim with its key beneath, linked to its chapter,
    # decided on this run
    landing = landing_papers([summary], {})
    row = next(line for line in landing.splitlines() if "error shrinks" in line)
    assert row.startswith(
        "| The private mean's error shrinks as n grows<br><small class="
        '"privrl-beneath">{doc}`error_shrinks <../notebooks/toy2024>`</small> |'
    )
    assert row.endswith("| this run (quick profile): 20 trials per arm, quick run (CI scale) |")
    assert "**reproduced**" in row
    assert "**Verdicts: 1 claim: 1 reproduced.**" in landing
    assert "What toy2024 claims, and its verdict\n" in landing  # the run is named in the box
    # the summary box: the same counts, and the command that reruns the chapter
    box = report.summary_box()
    assert "**Verdicts.** 1 claim: 1 reproduced." in box and "`privrl run toy2024`" in box
    assert f"this run of commit `{report.commit}`" in box
    assert "scale as epsilon / Delta" in errata_entries([summary])
    # the ledger page: the release with its epsilon recomputed from its event
    ledger = ledger_page([summary])
    entry = next(line for line in ledger.splitlines() if "the mean of n = 1000 records" in line)
    assert "| 1 (0); from its event: 1 |" in entry and "**Laplace" in ledger


def test_halving_the_toy_releases_noise_fails_its_check(monkeypatch):
    real = checks.laplace_mechanism
    monkeypatch.setattr(
        checks,
        "laplace_mechanism",
        lambda value, sensitivity, eps, rng: real(value, sensitivity / 2, eps, rng),
    )
    with pytest.raises(CheckFailed, match="noise_sd"):
        run(ToyProfile.quick())
