"""The rules a built page must keep for a reader (:data:`RULES`), measured in Chromium at 1,400 px.

:func:`page_violations` measures one loaded playwright page (viewport :data:`VIEWPORT`) and
returns a :class:`Violation` per broken rule and element; :func:`site_violations` does it for
every page of a built site served offline (:mod:`privrl.pipeline.browser`). Folded content
(``<details>``) is opened to be measured. Definitions: the column is the ``<article>``'s content
box; a scroll box an element between a table or figure and the column whose ``overflow-x`` is
``auto`` or ``scroll``; a figure an ``<img>`` or outermost ``<svg>`` outside MathJax, at least
:data:`MIN_FIGURE_PX` in both sides, whose caption opens with "Fig. N" or "Figure N"; a bad
cell shows ``nan``, ``inf``, ``None`` or a value cut with "..."; a verdict table has a "verdict"
header cell, a claims table a "claim" one too; a summary box is of class :data:`SUMMARY_BOX`,
its words the runs of non-space characters of its text (title included, formulas none), and it
starts within the first screen; a table of class :data:`WHOLE_WORDS_CLASS` (the ledger) breaks
no word across lines except after a hyphen and fits the column, a scroll box or not. On the
landing page (at most :data:`MAX_SCREENS` screens) the verdict table is folded and every table
fits the column without a scroll box.

Command line (a report, not enforced)::

    python -m privrl.pipeline.page_rules _build/html"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privrl.pipeline.browser import block_other_origins, launch, serve, site_pages

#: The reader's window: a 1,400 px wide desktop screen.
VIEWPORT = {"width": 1400, "height": 900}
#: The landing page's height limit, in viewport heights.
MAX_SCREENS = 3
#: The class of a chapter's summary box, and the box's word limit.
SUMMARY_BOX = "summary-box"
MAX_SUMMARY_WORDS = 200
#: The narrowest a claims table's claim column may be, in CSS px at :data:`VIEWPORT`'s width.
MIN_CLAIM_PX = 250
#: The class of a table whose cells wrap between words only (``book/_static/privrl.css``).
WHOLE_WORDS_CLASS = "privrl-whole-words"
#: An image or SVG smaller than this (CSS px) on either side is an icon, not a figure.
MIN_FIGURE_PX = 50
#: The rules, by name, in words.
RULES = {
    "fits-column": "no table or figure wider than its column outside a scroll box",
    "numbered-caption": "every figure has a numbered caption",
    "clean-cells": "no table cell shows nan, inf, None or a value cut with '...'",
    "landing": f"the landing page is at most {MAX_SCREENS} screens tall, its verdict table "
    "folded, every table within the column",
    "code-fits": "no code block scrolls sideways",
    "summary-words": f"every summary box has at most {MAX_SUMMARY_WORDS} words",
    "summary-first": "every summary box starts within the page's first screen",
    "claim-width": f"a claims table's claim column is at least {MIN_CLAIM_PX} px wide",
    "whole-words": "a table that keeps its words whole breaks none and fits the column",
}


@dataclass(frozen=True)
class Violation:
    """One broken rule: the page, the rule (a key of :data:`RULES`), the element (a short
    selector and the start of its text) and the measured value."""

    page: str
    rule: str
    element: str
    value: str

    def __str__(self) -> str:
        return f"{self.page}: {self.rule}: {self.element}: {self.value}"


# Runs in the loaded page: waits for MathJax and the images, then measures every rule. The
# landing measures come first, with <details> as the page shows them; then every <details> is
# opened and the widths are measured.
MEASURE = r"""async ([boxClass, minFigure, wholeClass]) => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = Array.from(document.images);
  for (const img of images) { img.loading = "eager"; }
  await Promise.all(images.map(img => img.decode().catch(() => null)));
  const words = s => s.replace(/\s+/g, " ").trim();
  const describe = el => {
    let name = el.tagName.toLowerCase();
    if (el.id) { name += "#" + el.id; }
    else if (el.classList.length) { name += "." + el.classList[0]; }
    const src = el.getAttribute("src");
    const text = src ? src.split("/").pop() : words(el.innerText || el.textContent).slice(0, 50);
    return text ? `${name} "${text}"` : name;
  };
  const shown = el => el.getClientRects().length > 0 && el.checkVisibility()
    && !el.closest("details:not([open])");
  const column = document.querySelector("article.bd-article") || document.querySelector("article")
    || document.querySelector("[role=main]") || document.body;
  const out = {height: document.documentElement.scrollHeight, screen: window.innerHeight};
  out.verdictTables = Array.from(document.querySelectorAll("table"))
    .filter(t => Array.from(t.querySelectorAll("th")).some(th => /verdict/i.test(th.textContent)))
    .filter(shown).map(t => ({el: describe(t), rows: t.querySelectorAll("tbody tr").length}));
  out.boxes = Array.from(document.getElementsByClassName(boxClass)).map(box => {
    const clone = box.cloneNode(true);
    clone.querySelectorAll("mjx-assistive-mml, script, style").forEach(e => e.remove());
    clone.querySelectorAll("p, div, li, dt, dd, tr, td, th, br, h1, h2, h3, h4, h5, h6")
      .forEach(e => e.after(" "));
    return {el: describe(box), words: words(clone.textContent).split(" ").filter(Boolean).length,
            top: Math.round(box.getBoundingClientRect().top + window.scrollY)};
  });
  const bad = new RegExp(["(^|[^A-Za-z0-9_])(nan|NaN|NAN|-?inf|-?Inf)(?![A-Za-z0-9_])",
    "(^|[\\[(,\\s])None([\\]),]|$)", "(\\.\\.\\.|\u2026)$"].join("|"));
  out.cells = Array.from(column.querySelectorAll("td, th")).map(c => {
    const text = words(c.textContent);
    const m = text.match(bad);
    return m && {el: describe(c.closest("table")), text: text, at: m.index, match: m[0]};
  }).filter(Boolean);
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  out.claims = Array.from(column.querySelectorAll("table")).map(t => {
    const heads = Array.from(t.querySelectorAll("th")).map(th => words(th.textContent));
    const at = heads.findIndex(h => /^claim$/i.test(h));
    if (at < 0 || !heads.some(h => /^verdict$/i.test(h))) { return null; }
    return {el: describe(t), width: Math.round(t.querySelectorAll("th")[at]
      .getBoundingClientRect().width)};
  }).filter(Boolean);
  const style = getComputedStyle(column);
  const box = column.getBoundingClientRect();
  const left = box.left + parseFloat(style.paddingLeft);
  const right = box.right - parseFloat(style.paddingRight);
  const scrolled = el => {
    for (let a = el.parentElement; a && a !== column; a = a.parentElement) {
      if (["auto", "scroll"].includes(getComputedStyle(a).overflowX)) { return true; }
    }
    return false;
  };
  const figures = Array.from(column.querySelectorAll("img, svg"))
    .filter(el => !el.closest("mjx-container")
      && !(el.tagName === "svg" && el.parentElement.closest("svg")))
    .filter(el => {
      const r = el.getBoundingClientRect();
      return r.width >= minFigure && r.height >= minFigure;
    });
  out.wide = [...column.querySelectorAll("table"), ...figures].filter(shown).map(el => {
    const r = el.getBoundingClientRect();
    return {el: describe(el), width: Math.round(r.width), column: Math.round(right - left),
            over: r.left < left - 1 || r.right > right + 1, scrolled: scrolled(el)};
  }).filter(w => w.over);
  out.whole = Array.from(column.querySelectorAll("table." + wholeClass)).map(t => {
    const broken = [];
    const walker = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.data.matchAll(/[^\s-]+-?/g)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const tops = new Set(Array.from(r.getClientRects()).filter(x => x.width > 0)
          .map(x => Math.round(x.top)));
        if (tops.size > 1) { broken.push(m[0]); }
      }
    }
    const r = t.getBoundingClientRect();
    return {el: describe(t), broken: broken, width: Math.round(r.width),
            column: Math.round(right - left), over: r.left < left - 1 || r.right > right + 1};
  }).filter(w => w.broken.length || w.over);
  out.code = Array.from(column.querySelectorAll("pre")).filter(shown)
    .filter(p => p.scrollWidth > p.clientWidth + 1)
    .map(p => ({el: describe(p), width: p.scrollWidth, shown: p.clientWidth}));
  out.uncaptioned = figures.map(el => {
    const holder = el.closest("figure, div.figure");
    const caption = holder && holder.querySelector("figcaption, .caption");
    const text = caption ? words(caption.textContent) : "";
    return {el: describe(el), caption: text};
  }).filter(f => !/^(Fig\.|Figure)\s*\d+(\.\d+)*/.test(f.caption));
  return out;
}"""


def page_violations(page: Any, name: str, *, landing: bool = False) -> list[Violation]:
    """The violations of :data:`RULES` on ``page`` (a loaded playwright page whose viewport is
    :data:`VIEWPORT` wide), reported under ``name``; ``landing`` adds the landing-page rule."""
    width = (page.viewport_size or {}).get("width")
    if width != VIEWPORT["width"]:
        raise ValueError(f"page: viewport must be {VIEWPORT['width']} px wide, got {width}")
    got = page.evaluate(MEASURE, [SUMMARY_BOX, MIN_FIGURE_PX, WHOLE_WORDS_CLASS])
    screen = VIEWPORT["height"]
    found = [
        Violation(name, "fits-column", w["el"], f"{w['width']} px in a {w['column']} px column")
        for w in got["wide"]
        if not w["scrolled"]
    ]
    found += [
        Violation(name, "code-fits", c["el"], f"{c['width']} px of code in {c['shown']} px")
        for c in got["code"]
    ]
    found += [
        Violation(
            name,
            "numbered-caption",
            f["el"],
            f"caption {f['caption'][:60]!r}" if f["caption"] else "no caption",
        )
        for f in got["uncaptioned"]
    ]
    found += [
        Violation(name, "clean-cells", c["el"], _shown_at(c["text"], c["at"], c["match"]))
        for c in got["cells"]
    ]
    if landing:
        limit = MAX_SCREENS * got["screen"]
        if got["height"] > limit:
            found.append(
                Violation(
                    name,
                    "landing",
                    "page height",
                    f"{got['height']} px > {MAX_SCREENS} x {got['screen']} px",
                )
            )
        found += [
            Violation(name, "landing", t["el"], f"verdict table unfolded, {t['rows']} rows")
            for t in got["verdictTables"]
        ]
        found += [
            Violation(
                name,
                "landing",
                w["el"],
                f"{w['width']} px in a {w['column']} px column: scrolls sideways",
            )
            for w in got["wide"]
            if w["scrolled"]
        ]
    found += [
        Violation(name, "summary-words", b["el"], f"{b['words']} words")
        for b in got["boxes"]
        if b["words"] > MAX_SUMMARY_WORDS
    ]
    found += [
        Violation(name, "summary-first", b["el"], f"starts at {b['top']} px > {screen} px")
        for b in got["boxes"]
        if b["top"] > screen
    ]
    found += [
        Violation(
            name,
            "whole-words",
            w["el"],
            f"{w['width']} px in a {w['column']} px column"
            if w["over"]
            else f"{len(w['broken'])} words broken, e.g. {w['broken'][:3]}",
        )
        for w in got["whole"]
    ]
    found += [
        Violation(name, "claim-width", c["el"], f"claim column {c['width']} px < {MIN_CLAIM_PX} px")
        for c in got["claims"]
        if c["width"] < MIN_CLAIM_PX
    ]
    return found


def _shown_at(text: str, at: int, match: str) -> str:
    """``match`` and up to 30 characters of the cell's text either side of it."""
    start, end = max(0, at - 30), at + len(match) + 30
    snippet = ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")
    return f"{match.strip(' ([,')!r} in {snippet!r}"


def landing_page(html: str | Path) -> str:
    """The landing page of a built site: the page ``index.html`` redirects to, or itself."""
    _, redirects = site_pages(Path(html))
    return redirects.get("index.html", "index.html")


#: What a caller does on each page besides the rules, in the same visit: called with the page's
#: name and the page before it loads, it returns what to do once the page has loaded, called with
#: the requests to other origins blocked while it loaded.
Visit = Callable[[str, Any], Callable[[list[str]], None]]


def site_violations(
    html: str | Path, browser: Any, visit: Visit | None = None
) -> dict[str, list[Violation]]:
    """Every page of the built site ``html`` (a folder), served on localhost with every other
    origin blocked, measured by :func:`page_violations` in ``browser`` (playwright's Chromium),
    after ``visit``'s own look at the page if given; returns the violations by page, each page
    listed."""
    html = Path(html)
    pages, _ = site_pages(html)
    landing = landing_page(html)
    found: dict[str, list[Violation]] = {}
    with serve(html) as base:
        context = browser.new_context(viewport=VIEWPORT)
        blocked = block_other_origins(context, base)
        for rel in pages:
            page = context.new_page()
            blocked.clear()
            loaded = visit(rel, page) if visit is not None else None
            page.goto(base + rel, wait_until="load")
            if loaded is not None:
                loaded(list(blocked))
            found[rel] = page_violations(page, rel, landing=rel == landing)
            page.close()
        context.close()
    return found


def report(found: dict[str, list[Violation]]) -> str:
    """Text of the violations of :func:`site_violations`, then their counts by page and rule."""
    lines = [str(v) for violations in found.values() for v in violations]
    lines += ["", "violations by page and rule:"]
    for rel, violations in found.items():
        counts = Counter(v.rule for v in violations)
        if counts:
            lines.append(f"  {rel}: " + ", ".join(f"{r} {counts[r]}" for r in RULES if counts[r]))
    totals = Counter(v.rule for violations in found.values() for v in violations)
    lines.append(
        "totals: " + ", ".join(f"{r} {totals[r]}" for r in RULES) + f" ({len(found)} pages)"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print :func:`report` for a built site; returns 0 (the rules are not enforced yet)."""
    parser = argparse.ArgumentParser(
        prog="python -m privrl.pipeline.page_rules", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("html", type=Path, help="the built site's HTML folder (_build/html)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        found = site_violations(args.html, browser)
        browser.close()
    print(report(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
