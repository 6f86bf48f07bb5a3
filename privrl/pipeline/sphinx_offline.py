"""A Sphinx extension for the book (listed in ``_config.yml``): pages that load nothing remote.

Jupyter Book always loads ``sphinx_thebe``, which adds to every page an inline script declaring
``const THEBE_JS_URL = "https://unpkg.com/..."``, twice with Sphinx 7 (the browser reports
"Identifier 'THEBE_JS_URL' has already been declared" on every page), and a loader that would
fetch thebe from unpkg. The book has no live-code buttons, so thebe's page scripts are not added.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _drop_thebe_scripts(app: Sphinx) -> None:
    listeners = app.events.listeners.get("env-before-read-docs", [])
    for listener in list(listeners):
        handler = listener.handler
        if getattr(handler, "__module__", "") == "sphinx_thebe" and handler.__name__ == "init_thebe_core":
            app.disconnect(listener.id)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _drop_thebe_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
