"""The headless Chromium the browser tests share: Debian's binary, driven by playwright.

The tests use the system `chromium` (never `playwright install`, which downloads a
browser) with networking, updates and sync switched off, so a page that reaches out
fails instead of silently loading something. A module whose tests need the browser sets
`pytestmark = NEEDS_CHROMIUM` and asks for the `browser` fixture (tests/report/conftest.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
NEEDS_CHROMIUM = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt chromium)"),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None,
        reason="needs the playwright Python package (pip install playwright; no browser download)",
    ),
]
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
