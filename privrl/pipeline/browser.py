"""A built site in headless Chromium, offline: a localhost static server and the browser.

:func:`serve` serves a folder on ``127.0.0.1`` (a free port); :func:`launch` starts Debian's
Chromium (:data:`CHROMIUM`) through playwright's Python API (a test dependency, imported when
called); :func:`site_pages` lists a built site's pages; :func:`block_other_origins` aborts,
and lists, every request of a browser context that leaves the served origin (the book must
read from a USB stick). The browser test and the page rules (:mod:`privrl.pipeline.page_rules`)
share them.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


REDIRECT = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.IGNORECASE)


def site_pages(html: Path) -> tuple[list[str], dict[str, str]]:
    """The pages of a built site (paths relative to ``html``, sorted), and its redirect stubs
    (``index.html`` -> the root page) with their targets; ``_static`` and ``_sources`` left out."""
    pages, redirects = [], {}
    for path in sorted(html.rglob("*.html")):
        rel = path.relative_to(html)
        if rel.parts[0] in ("_static", "_sources"):
            continue
        stub = REDIRECT.search(path.read_text(encoding="utf-8")[:500])
        if stub:
            redirects[rel.as_posix()] = (rel.parent / stub.group(1)).as_posix()
        else:
            pages.append(rel.as_posix())
    return pages, redirects


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextmanager
def serve(folder: str | Path) -> Iterator[str]:
    """Serve ``folder`` on localhost while the block runs; yields the base URL (ending in ``/``)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"folder: {folder} is not a directory")
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless, started by ``playwright`` (``sync_playwright()``'s value).

    Raises ``FileNotFoundError`` naming the install command when :data:`CHROMIUM` is missing."""
    if not CHROMIUM.exists():
        raise FileNotFoundError(
            f"{CHROMIUM} is missing: `apt-get install chromium` (bash dev.sh does it as root)"
        )
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)


def block_other_origins(context: Any, base: str) -> list[str]:
    """Abort every request of ``context`` outside ``base`` (``data:`` and ``blob:`` URLs pass);
    returns the list the blocked URLs are appended to, for the caller to inspect or clear."""
    blocked: list[str] = []

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if url.startswith((base, "data:", "blob:")):
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort()

    context.route("**/*", route)
    return blocked
