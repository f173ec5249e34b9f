"""Debian's chromium driven by Playwright, as the browser tests use it (never a downloaded browser).
A module that imports from here is in the `browser` tier (tests.support.tiers)."""

import functools
import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@functools.cache
def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; it is in the dev extra)"
    if not Path(CHROMIUM).exists():
        return "chromium is not installed (apt-get install -y chromium)"
    return None
