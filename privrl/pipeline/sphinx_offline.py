"""A Sphinx extension for the book (listed in ``_config.yml``): no Thebe, nothing remote.

Jupyter Book always loads ``sphinx_thebe``, which adds to every page an inline script declaring
``const THEBE_JS_URL = "https://unpkg.com/..."`` (twice with Sphinx 7: the browser reports
"Identifier 'THEBE_JS_URL' has already been declared"), a loader that would fetch thebe from
unpkg, its CSS, and a ``text/x-thebe-config`` block whose Binder repository is an unrelated
example repository. The book is read offline and has no live code (each chapter's summary box
says how to rerun it), so every handler of ``sphinx_thebe`` is disconnected and its CSS dropped:
no page carries Thebe or Binder.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

#: The module whose event handlers and CSS are removed.
THEBE = "sphinx_thebe"


def _drop_thebe(app: Sphinx) -> None:
    """Disconnect every event handler of :data:`THEBE` and drop the CSS it registered."""
    for listeners in app.events.listeners.values():
        for listener in list(listeners):
            if getattr(listener.handler, "__module__", "") == THEBE:
                app.disconnect(listener.id)
    app.registry.css_files = [
        (name, attrs)
        for name, attrs in app.registry.css_files
        if not str(name).startswith("sphinx-thebe")
    ]


def setup(app: Sphinx) -> dict[str, Any]:
    _drop_thebe(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
