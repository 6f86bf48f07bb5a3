"""The chapters' front matter (book/chapters/<name>.yml): every file the book has loads, and
a malformed one is refused with the field named."""

from pathlib import Path

import pytest

from privrl.chapter.front import CHAPTERS, front_matter, load
from privrl.chapter.records import SOURCE_ROOT

GOOD = """
claims: "The paper claims X."
bottom_line: "X holds at the paper's scale."
evidence: {x_claim: fig-toy-x}
departures:
  - {what: seeds, paper: "30", ours: "10", reason: "time", link: toy-errata}
"""


@pytest.mark.parametrize(
    "path", sorted((SOURCE_ROOT / CHAPTERS).glob("*.yml")), ids=lambda p: p.stem
)
def test_every_front_matter_loads(path: Path) -> None:
    fm = front_matter(path.stem)
    assert fm.claims and fm.bottom_line
    assert list(fm.departures_frame().columns) == ["what", "paper", "ours", "reason", "see"]


def test_front_matter_reads_fields(tmp_path: Path) -> None:
    (tmp_path / "toy.yml").write_text(GOOD)
    fm = load(tmp_path / "toy.yml", "toy")
    assert fm.evidence == {"x_claim": "fig-toy-x"}
    assert fm.departures_frame().loc[0, "see"] == "{ref}`toy-errata`"


@pytest.mark.parametrize(
    "broken, field",
    [
        (GOOD.replace("claims:", "claim:"), "claim"),
        (
            GOOD.replace('bottom_line: "X holds at the paper\'s scale."', 'bottom_line: ""'),
            "bottom_line",
        ),
        (GOOD.replace("fig-toy-x", "'not a label'"), "evidence"),
        (GOOD.replace("reason:", "why:"), "why"),
        (GOOD.replace("link: toy-errata", "link: '#x'"), "link"),
    ],
)
def test_malformed_front_matter_is_refused(tmp_path: Path, broken: str, field: str) -> None:
    (tmp_path / "toy.yml").write_text(broken)
    with pytest.raises(ValueError, match=field):
        load(tmp_path / "toy.yml", "toy")
