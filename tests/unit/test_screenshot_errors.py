"""scripts/screenshots.py pictures no screen that shows an error: what counts as one."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


@pytest.fixture(scope="module")
def screenshots():
    spec = importlib.util.spec_from_file_location("screenshots_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("notifications", "log", "wrong"),
    [
        ([], "", 0),
        ([("information", "Task 12 created")], "INFO queuedesk: serving sqlite", 0),
        ([("error", "Reading stats: Server error")], "", 1),
        ([("warning", "Unsent work file")], "", 1),
        ([], "2026-11-23 ERROR queuedesk.server: unexpected error on GET /stats", 1),
        ([], "Traceback (most recent call last):\n  File x\nZeroDivisionError", 1),
        ([("error", "x")], "ERROR y\nTraceback (most recent call last):", 3),
    ],
)
def test_a_warning_an_error_or_a_server_error_is_wrong(screenshots, notifications, log, wrong) -> None:
    assert len(screenshots.errors_shown(notifications, log)) == wrong
