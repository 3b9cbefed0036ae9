"""Fixtures shared by the report tests that drive a real browser."""

from __future__ import annotations

import pytest
from headless_chromium import ARGS, CHROMIUM


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module (starting it costs about a second)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()
