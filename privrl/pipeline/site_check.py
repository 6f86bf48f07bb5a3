"""The built HTML must be free of debris: raw MyST, Python reprs, and scripts from the network.

A MyST directive or role that was not parsed (a back-ticked info string, Markdown output rendered
as CommonMark, a role inside a code span) reaches the reader as raw text such as "```{prf:lemma}"
or "{cite}`key`"; a printed ``Path`` or module object reaches the reader as ``PosixPath('...')``;
a script loaded from a CDN leaves an offline reader with raw TeX. :func:`scan_html` finds all of
them in the text content (scripts and styles excluded) and the script/stylesheet tags of every
page of a built book; :func:`check_html` raises :class:`BookDebris` naming page and snippet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

#: Text that must not appear in a page's text content: unparsed MyST and Python reprs.
TEXT_MARKERS: tuple[str, ...] = (
    "```{",
    ":::{",
    "{cite}`",
    "{cite:",
    "{glue",
    "{prf:",
    "{doc}`",
    "{ref}`",
    "{numref}`",
    "{eq}`",
    "{download}`",
    "PosixPath(",
    "<module ",
    " object at 0x",
)
#: A URL a page must not load code or styles from (the book reads offline).
REMOTE = re.compile(r"^(https?:)?//", re.IGNORECASE)
SNIPPET = 60


@dataclass(frozen=True)
class Finding:
    """One piece of debris: the page (relative to the HTML root), what, and the text around it."""

    page: str
    what: str
    snippet: str

    def __str__(self) -> str:
        return f"{self.page}: {self.what}: ...{self.snippet}..."


class BookDebris(RuntimeError):
    """The built book shows raw MyST, a Python repr, or loads a script from the network."""


class _PageParser(HTMLParser):
    """Collects a page's text content (outside script/style) and its remote scripts/styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.remote: list[str] = []
        self.inline_urls: list[str] = []
        self._skip = 0
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "script" and REMOTE.match(a.get("src", "")):
            self.remote.append(f'<script src="{a["src"]}">')
        if tag == "link" and "stylesheet" in a.get("rel", "") and REMOTE.match(a.get("href", "")):
            self.remote.append(f'<link rel="stylesheet" href="{a["href"]}">')
        if tag in ("script", "style"):
            self._skip += 1
            self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)
        elif self._in_script:
            self.inline_urls += re.findall(r"https?://cdn[^\s\"'<>]*", data)


def scan_page(html: str, page: str) -> list[Finding]:
    """Debris in one page's HTML source."""
    parser = _PageParser()
    parser.feed(html)
    parser.close()
    text = "".join(parser.text)
    found = [Finding(page, "remote resource", tag) for tag in parser.remote]
    found += [Finding(page, "CDN URL in an inline script", url) for url in parser.inline_urls]
    for marker in TEXT_MARKERS:
        start = 0
        while (i := text.find(marker, start)) >= 0:
            snippet = " ".join(text[max(0, i - SNIPPET // 2) : i + SNIPPET].split())
            found.append(Finding(page, f"raw {marker.strip()!r}", snippet))
            start = i + len(marker)
    return found


def scan_html(html_dir: str | Path) -> list[Finding]:
    """Debris in every page of a built book (``_build/html``), in page order."""
    root = Path(html_dir)
    if not root.is_dir():
        raise ValueError(f"html_dir: no built book at {root}")
    found: list[Finding] = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("_static", "_sources"):
            continue
        found += scan_page(path.read_text(encoding="utf-8", errors="replace"), rel.as_posix())
    return found


def check_html(html_dir: str | Path, limit: int = 40) -> None:
    """Raise :class:`BookDebris` listing (up to ``limit``) the debris :func:`scan_html` finds."""
    found = scan_html(html_dir)
    if found:
        shown = "\n  ".join(map(str, found[:limit]))
        more = f"\n  ... and {len(found) - limit} more" if len(found) > limit else ""
        raise BookDebris(
            f"the built book at {html_dir} has {len(found)} piece(s) of raw MyST, "
            f"Python reprs or remote scripts:\n  {shown}{more}"
        )


__all__ = ["BookDebris", "Finding", "TEXT_MARKERS", "check_html", "scan_html", "scan_page"]
