"""Fixtures of the pipeline tests: headless Chromium (:mod:`privrl.pipeline.browser`)."""

from __future__ import annotations

import pytest

from privrl.pipeline.browser import launch


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through playwright; fails (not skips) when it is missing."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        try:
            browser = launch(p)
        except FileNotFoundError as e:
            pytest.fail(str(e))
        yield browser
        browser.close()
