"""The page rules (:mod:`privrl.pipeline.page_rules`) on tiny synthetic pages in Chromium.

One page keeps every rule and shows no violation; each broken page changes one part of it and
shows exactly one violation, of the rule it breaks. The pages are written into a temporary folder
and served from localhost with every other origin blocked, as the browser test serves the book.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from privrl.chapter.tables import format_table
from privrl.pipeline import page_rules
from privrl.pipeline.browser import block_other_origins, serve
from privrl.pipeline.page_rules import MAX_SUMMARY_WORDS, VIEWPORT, Violation, page_violations

pytestmark = pytest.mark.slow

FIGURE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200">'
    '<rect width="300" height="200" fill="#ccc"/></svg>'
)


def _table(rows: int, cells: tuple[str, ...] = ("0.12", "3"), header=("method", "value")) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" for _ in range(rows))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _summary(words: int) -> str:
    return (
        '<div class="admonition summary-box"><p class="admonition-title">Summary</p><p>'
        + " ".join(["word"] * (words - 1))
        + "</p></div>"
    )


def _claims(claim_px: int | None = None) -> str:
    """A 20-row claims table over the column, its claim the widest cell, or (``claim_px``) its
    claim column squeezed to that width."""
    table = _table(
        20, ("A claim of the paper, in the paper's words, " * 3, "reproduced"), ("claim", "verdict")
    ).replace("<table>", '<table style="width: 100%">')
    if claim_px is None:
        return table
    return table.replace("<th>claim</th>", f'<th style="width: {claim_px}px">claim</th>')


WIDE_TABLE = _table(2, ("x" * 4,) * 12, ("column",) * 12).replace(
    "<table>", '<table style="width: 1500px">'
)
#: A wide table as a chapter writes it (:func:`privrl.chapter.tables.format_table`): its own
#: scroll box, no noise for epsilon = inf, the missing value explained.
FORMATTED = format_table(
    pd.DataFrame(
        {
            "epsilon": [1.0, float("inf")],
            "epsilon_pld": [float("nan"), 2.5],
            **{f"privacy_cost_{i}": [1234.5678, 0.012345] for i in range(20)},
        }
    ),
    missing="not DP-SGD",
).to_html()

#: The parts of the page that keeps every rule: a 784 px column holding a summary box of the
#: limit's length, a small table, a wide table formatted for reading (in its scroll box), two
#: numbered figures (an image and an inline SVG), an uncaptioned icon, a folded 20-row
#: verdict table, and code that fits (a long line wrapped, as notebook cells wrap theirs).
GOOD = {
    "summary": _summary(MAX_SUMMARY_WORDS),
    "table": _table(3, ("0.12", "no noise")),
    "wide": FORMATTED,
    "figure": (
        '<figure><img src="fig.svg" width="300" height="200"><figcaption><p>'
        '<span class="caption-number">Fig. 4.1 </span>Return against steps.</p>'
        "</figcaption></figure>"
    ),
    "svg": (
        f'<figure>{FIGURE_SVG}<figcaption><p><span class="caption-number">Figure 2 </span>'
        "Ledger.</p></figcaption></figure>"
    ),
    "icon": (
        '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle r="8" cx="8"'
        ' cy="8"/></svg>'
    ),
    "verdicts": "<details><summary>Every verdict</summary>" + _claims() + "</details>",
    "filler": '<div style="height: 300px"></div>',
    "code": (
        "<pre>x = 1</pre>"
        '<div class="cell"><pre style="white-space: pre-wrap">' + "x = 1  # " * 30 + "</pre></div>"
    ),
}
#: The landing page that keeps every rule: the same without the wide table (even scrolled, a
#: table on the landing page must fit its column).
LANDING = {k: v for k, v in GOOD.items() if k != "wide"}

#: One broken part per case: (case, part, replacement, rule broken). A landing case breaks the
#: landing page, measured as the landing page; the others break the chapter page.
BROKEN = [
    ("wide table", "wide", WIDE_TABLE, "fits-column"),
    (
        "wide figure",
        "svg",
        "<figure>"
        + FIGURE_SVG.replace('width="300"', 'width="1200"')
        + "<figcaption><p>Figure 2 Ledger.</p></figcaption></figure>",
        "fits-column",
    ),
    (
        "caption without number",
        "figure",
        '<figure><img src="fig.svg" width="300" height="200">'
        "<figcaption><p>Return against steps.</p></figcaption></figure>",
        "numbered-caption",
    ),
    ("figure without caption", "svg", FIGURE_SVG, "numbered-caption"),
    ("nan cell", "table", _table(1, ("nan", "2")), "clean-cells"),
    ("interval to inf", "table", _table(1, ("[0.5, inf)", "2")), "clean-cells"),
    ("None cell", "table", _table(1, ("None", "2")), "clean-cells"),
    ("cut cell", "table", _table(1, ("the quick brown fox jumps...", "2")), "clean-cells"),
    ("landing too tall", "filler", '<div style="height: 2800px"></div>', "landing"),
    ("verdict table open", "verdicts", _claims(), "landing"),
    ("landing table scrolls", "wide", GOOD["wide"], "landing"),
    ("summary too long", "summary", _summary(MAX_SUMMARY_WORDS + 1), "summary-words"),
    ("code scrolls sideways", "code", "<pre>" + "x = 1  # " * 30 + "</pre>", "code-fits"),
    (
        "summary below the first screen",
        "summary",
        '<div style="height: 1000px"></div>' + _summary(MAX_SUMMARY_WORDS),
        "summary-first",
    ),
    ("claim column squeezed", "verdicts", _claims(claim_px=110), "claim-width"),
]


def _html(parts: dict[str, str]) -> str:
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body { margin: 0 } '
        "article { width: 784px; padding: 0 20px }</style></head><body><main>"
        f'<article class="bd-article">{"".join(parts.values())}</article>'
        "</main></body></html>"
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """The good chapter and landing pages, each broken page (``broken-<i>.html``) and
    ``fig.svg``, served; ``index.html`` redirects to the landing page."""
    folder = tmp_path_factory.mktemp("pages")
    (folder / "fig.svg").write_text(FIGURE_SVG)
    (folder / "good.html").write_text(_html(GOOD))
    (folder / "landing.html").write_text(_html(LANDING))
    for i, (_, part, html, rule) in enumerate(BROKEN):
        base = LANDING if rule == "landing" else GOOD
        (folder / f"broken-{i}.html").write_text(_html(base | {part: html}))
    (folder / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=landing.html">')
    with serve(folder) as base:
        yield base, folder


@pytest.fixture(scope="module")
def context(site, browser):
    context = browser.new_context(viewport=VIEWPORT)
    blocked = block_other_origins(context, site[0])
    yield context
    context.close()
    assert not blocked


def _violations(context, base: str, name: str, landing: bool = False) -> list[Violation]:
    page = context.new_page()
    page.goto(base + name, wait_until="load")
    try:
        return page_violations(page, name, landing=landing)
    finally:
        page.close()


def test_pages_that_keep_every_rule_show_no_violation(site, context):
    assert _violations(context, site[0], "good.html") == []
    assert _violations(context, site[0], "landing.html", landing=True) == []


@pytest.mark.parametrize("i", range(len(BROKEN)), ids=[case for case, *_ in BROKEN])
def test_a_page_breaking_one_rule_shows_exactly_that_violation(site, context, i):
    case, _, _, rule = BROKEN[i]
    found = _violations(context, site[0], f"broken-{i}.html", landing=rule == "landing")
    assert [v.rule for v in found] == [rule], found
    assert found[0].page == f"broken-{i}.html" and found[0].element and found[0].value


def test_violations_name_the_element_and_the_measured_value(site, context):
    by_case = {case: i for i, (case, *_) in enumerate(BROKEN)}
    (wide,) = _violations(context, site[0], f"broken-{by_case['wide table']}.html")
    assert wide.element.startswith("table") and wide.value == "1500 px in a 784 px column"
    (words,) = _violations(context, site[0], f"broken-{by_case['summary too long']}.html")
    assert words.element.startswith("div.admonition") and words.value == "201 words"
    (tall,) = _violations(context, site[0], f"broken-{by_case['landing too tall']}.html", True)
    assert tall.value.endswith(f"> 3 x {VIEWPORT['height']} px")
    (cell,) = _violations(context, site[0], f"broken-{by_case['nan cell']}.html")
    assert cell.element.startswith("table") and cell.value == "'nan' in 'nan'"
    (cell,) = _violations(context, site[0], f"broken-{by_case['interval to inf']}.html")
    assert cell.value == "'inf' in '[0.5, inf)'"
    (late,) = _violations(
        context, site[0], f"broken-{by_case['summary below the first screen']}.html"
    )
    assert late.value.startswith("starts at 10") and late.value.endswith(
        f" px > {VIEWPORT['height']} px"
    )  # 1,000 px of filler and the box's margin
    (claim,) = _violations(context, site[0], f"broken-{by_case['claim column squeezed']}.html")
    assert claim.element.startswith("table") and claim.value.endswith(" px < 250 px")


def test_a_page_narrower_than_the_readers_window_is_refused(site, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(site[0] + "good.html")
    with pytest.raises(ValueError, match="page: viewport must be 1400 px wide"):
        page_violations(page, "good.html")
    context.close()


def test_the_site_report_lists_every_page_and_checks_the_landing_page_only(site, browser):
    assert page_rules.landing_page(site[1]) == "landing.html"
    found = page_rules.site_violations(site[1], browser)
    assert sorted(found) == sorted(
        ["good.html", "landing.html", *(f"broken-{i}.html" for i in range(len(BROKEN)))]
    )
    out = page_rules.report(found)
    tall = next(i for i, (case, *_) in enumerate(BROKEN) if case == "landing too tall")
    assert f"broken-{tall}.html" not in out  # not the landing page: its height is not limited
    assert "good.html" not in out and "landing.html" not in out
    assert (
        "totals: fits-column 2, numbered-caption 2, clean-cells 4, landing 0, "
        "code-fits 1, summary-words 1, summary-first 1, claim-width 1, whole-words 0 (17 pages)"
    ) in out
