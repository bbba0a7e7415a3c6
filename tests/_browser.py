"""The report's browser: Debian's chromium (/usr/bin/chromium, `apt-get install chromium`) driven by Playwright, which
downloads no browser.  One home for the ``browser`` fixture (tests/conftest.py registers it) and ``open_page``.

Without chromium or playwright a test that takes ``browser`` skips, except under CI=true, where it fails: CI can
install both, so a skip there would hide a report nobody looked at.  The fixture is module-scoped: one chromium
per test file that uses it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    missing = None
    if not os.path.exists(CHROMIUM):
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = missing or "playwright is not installed (pip install -e '.[test]')"
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: the report's browser test must run, but {missing}")
        pytest.skip(missing)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def open_page(browser, path: Path):
    """``path`` opened in a 1400x1000 page: ``(page, seconds to load, page errors, requests off file:/data:)``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors, requests = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
    t = time.monotonic()
    page.goto(path.as_uri(), wait_until="load")
    return page, time.monotonic() - t, errors, requests
