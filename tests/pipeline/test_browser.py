"""The built book in a real browser, offline: Debian's Chromium driven by playwright's Python API.

Every page of the book built by the session's ``built_book`` fixture is served from a localhost
static server; every request to any other origin is blocked (the book must read from a USB stick).
On every page: math typeset by the bundled MathJax (no raw TeX left), every image loaded, no
console error, no raw MyST marker or Python repr in the text, every internal link resolving to an
existing page and anchor; and the page rules of issue 35 (:mod:`privrl.pipeline.page_rules`:
columns, captions, cells, summary boxes, landing page), shown failing on deliberately broken
copies of built pages. The server and the browser: :mod:`privrl.pipeline.browser` and
``tests/pipeline/conftest.py``. ``bash dev.sh`` installs Chromium (``apt-get install chromium``)
when ``/usr/bin/chromium`` is missing and it runs as root.
"""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from privrl.pipeline import page_rules
from privrl.pipeline.browser import site_pages
from privrl.pipeline.site_check import TEXT_MARKERS

pytestmark = pytest.mark.slow

# Runs in the page once it has loaded: waits for MathJax, then reports what the test asserts on.
INSPECT = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = Array.from(document.images);
  for (const img of images) { img.loading = "eager"; }
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  const math = Array.from(document.querySelectorAll(".math, span.math, div.math"));
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll("mjx-container, script, style, mjx-assistive-mml").forEach(e => e.remove());
  const proseClone = clone.cloneNode(true);
  proseClone.querySelectorAll("pre, code").forEach(e => e.remove());
  return {
    mathjax: !!(window.MathJax && MathJax.startup),
    math: math.length,
    untypeset: math.filter(e => !e.querySelector("mjx-container")).map(e => e.textContent.slice(0, 80)),
    typeset: document.querySelectorAll("mjx-container").length,
    brokenImages: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    images: images.length,
    text: clone.textContent,
    prose: proseClone.textContent,
    links: Array.from(document.querySelectorAll("a[href]")).map(a => a.href),
  };
}"""


@dataclass
class Visited:
    """One visit of every built page at 1,400 px (:func:`page_rules.site_violations`), looked at
    twice: the page rules' ``violations`` by page, and by page what :data:`INSPECT` reported,
    the console errors and the requests to other origins blocked while it loaded."""

    html: Path
    base: str = ""
    violations: dict[str, list[page_rules.Violation]] = field(default_factory=dict)
    inspected: dict[str, dict] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    blocked: dict[str, list[str]] = field(default_factory=dict)

    def visit(self, rel: str, page) -> Callable[[list[str]], None]:
        errors = self.errors.setdefault(rel, [])
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))

        def loaded(blocked: list[str]) -> None:
            self.base = page.url[: len(page.url) - len(rel)]
            self.inspected[rel] = page.evaluate(INSPECT)
            self.blocked[rel] = blocked

        return loaded


@pytest.fixture(scope="module")
def visited(built_book: Path, browser) -> Visited:
    seen = Visited(built_book / "html")
    seen.violations = page_rules.site_violations(seen.html, browser, seen.visit)
    return seen


@functools.cache
def _anchors(path: Path) -> frozenset[str]:
    return frozenset(re.findall(r'\sid="([^"]+)"', path.read_text(encoding="utf-8")))


def _broken_links(links: list[str], base: str, html: Path) -> list[str]:
    """Links into the site that name a missing file or a missing anchor."""
    broken = []
    for link in links:
        if not link.startswith(base):
            continue
        parts = urlsplit(link)
        rel = unquote(parts.path[len(urlsplit(base).path) :]) or "index.html"
        target = html / rel
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{link} (no file {rel})")
        elif (
            parts.fragment
            and target.suffix == ".html"
            and unquote(parts.fragment) not in _anchors(target)
        ):
            broken.append(f"{link} (no anchor #{parts.fragment})")
    return broken


def _around(text: str, marker: str) -> str:
    i = text.index(marker)
    return text[max(0, i - 40) : i + 60]


def test_every_page_reads_offline_in_chromium(visited: Visited):
    html, base = visited.html, visited.base
    pages, redirects = site_pages(html)
    assert "book/intro.html" in pages and len(pages) >= 5
    assert all((html / target).is_file() for target in redirects.values()), redirects
    assert sorted(visited.inspected) == sorted(pages) and base.startswith("http://")
    problems: dict[str, list[str]] = {}
    typeset_total = 0
    for rel in pages:
        got = visited.inspected[rel]
        found = [f"console error: {e}" for e in visited.errors[rel]]
        found += [f"blocked network request: {u}" for u in visited.blocked[rel]]
        if got["math"] and not got["mathjax"]:
            found.append("MathJax not loaded")
        found += [f"math not typeset: {t!r}" for t in got["untypeset"][:5]]
        prose, text = " ".join(got["prose"].split()), " ".join(got["text"].split())
        found += [
            f"raw TeX {raw!r}: ...{_around(prose, raw)}..."
            for raw in ("$$", "$\\", "\\(", "\\[")
            if raw in prose
        ]
        found += [f"image not loaded: {src}" for src in got["brokenImages"]]
        found += [f"raw {m!r}: ...{_around(text, m)}..." for m in TEXT_MARKERS if m in text]
        found += [f"broken link: {b}" for b in _broken_links(got["links"], base, html)]
        typeset_total += got["typeset"]
        if found:
            problems[rel] = found
    assert typeset_total > 0, "no formula was typeset anywhere: MathJax did not run"
    assert not problems, "\n".join(f"{page}:\n  " + "\n  ".join(p) for page, p in problems.items())


# --- the page rules (issue 35) on the built site ------------------------------------------------

#: Whether the chapters' pages (``notebooks/*.html``) are held to the page rules (since issue 35's
#: chapter work was merged; set it to False only to print, not fail, a chapter's violations while
#: its page is rebuilt). Every other page (landing, ledger, errata, reproducibility, ...) is
#: always held.
CHAPTERS_COMPLY = True


def _held(rel: str) -> bool:
    return CHAPTERS_COMPLY or not rel.startswith("notebooks/")


def test_every_built_page_keeps_the_page_rules_at_1400_px(visited: Visited):
    """Every page of the built site, at 1,400 px (:mod:`privrl.pipeline.page_rules`): no table
    or figure wider than its column outside a scroll box, every figure with a numbered caption,
    no nan, inf or cut cell, every summary box at most 200 words, and the landing page at most
    3 screens tall with its verdicts folded and its tables within the column."""
    found = visited.violations
    assert page_rules.landing_page(visited.html) in found
    held = {rel: v for rel, v in found.items() if v and _held(rel)}
    pending = {rel: v for rel, v in found.items() if v and not _held(rel)}
    if pending:
        print(
            "chapter pages not yet held to the page rules (CHAPTERS_COMPLY = False):\n"
            + page_rules.report(pending)
        )
    assert not held, page_rules.report(held)


#: A style that breaks words anywhere in the tables that keep them whole.
ANYWHERE = (
    f"<style>table.{page_rules.WHOLE_WORDS_CLASS} td * {{ overflow-wrap: anywhere !important; }}"
    "</style>"
)


def _break(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name}: {old!r} not found"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_page_rules_fail_on_deliberately_broken_built_pages(
    built_book: Path, browser, tmp_path: Path
):
    """The built landing, ledger and errata pages, each broken on purpose, fail the rule they
    break: the landing page's verdicts unfolded, a nan cell, a 201-word summary box and a word
    of 400 letters broken across lines (its table's cells told to break anywhere) on the ledger
    page, a wide uncaptioned figure and a code line of 270 characters on the errata page."""
    html, site = built_book / "html", tmp_path / "html"
    shutil.copytree(html / "_static", site / "_static")
    landing = page_rules.landing_page(html)
    for rel in (landing, "book/ledger.html", "book/errata.html", "index.html"):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(html / rel, site / rel)
    _break(
        site / landing,
        '<details class="sd-sphinx-override sd-dropdown',
        '<details open class="sd-sphinx-override sd-dropdown',
    )
    _break(site / "book/ledger.html", "<td><p>", "<td><p>nan ")
    _break(site / "book/ledger.html", "<td><p>", "<td><p>" + "w" * 400 + " ")
    _break(site / "book/ledger.html", "</head>", ANYWHERE + "</head>")
    box = (
        '<div class="admonition summary-box"><p class="admonition-title">Summary</p><p>'
        + " ".join(["word"] * 200)
        + "</p></div>"
    )
    _break(site / "book/ledger.html", 'id="privacy-ledger">', 'id="privacy-ledger">' + box)
    _break(
        site / "book/errata.html",
        'id="claims-not-reproduced">',
        'id="claims-not-reproduced"><svg xmlns="http://www.w3.org/2000/svg" width="1500" '
        'height="300"><rect width="1500" height="300"/></svg>'
        '<div class="highlight"><pre>' + "x = 1  # " * 30 + "</pre></div>",
    )
    found = page_rules.site_violations(site, browser)
    rules = {rel: {v.rule for v in found[rel]} for rel in found}
    assert "landing" in rules[landing], found[landing]
    assert any("verdict table unfolded" in v.value for v in found[landing])
    assert rules["book/ledger.html"] == {"clean-cells", "summary-words", "whole-words"}, found
    assert any("words broken" in v.value for v in found["book/ledger.html"]), found
    assert rules["book/errata.html"] == {"fits-column", "numbered-caption", "code-fits"}, found
