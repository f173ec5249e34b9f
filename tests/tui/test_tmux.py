"""The installed `queuedesk` command in a real terminal (tmux): keys in, screen text out."""

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import KEYS, ServerProcess
from tests.support.tmux import Pane, needs_tmux

pytestmark = needs_tmux

QUEUEDESK = Path(sys.executable).parent / "queuedesk"


@pytest.fixture
def terminal(server: ServerProcess, tmp_path: Path) -> Iterator[Pane]:
    name = f"qd-test-{time.monotonic_ns()}"
    env = {
        "QUEUEDESK_URL": server.url,
        "QUEUEDESK_TOKEN": KEYS["admin"],
        "QUEUEDESK_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
    }
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    # After the app exits the shell prints its status and waits, so the test reads what was left behind.
    command = f"{QUEUEDESK}; echo QUEUEDESK-EXIT=$?; sleep 30"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "30", *env_args, command], check=True
    )
    yield Pane(name)
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_the_installed_command_opens_the_app_and_quits_cleanly(terminal: Pane) -> None:
    screen = terminal.wait_for("Categorization")
    assert "Ada (admin)" in screen
    terminal.keys("Enter")
    screen = terminal.wait_for("in progress")
    assert "Pending" in screen and "Completed" in screen
    terminal.keys("3")
    assert "single_selection" in terminal.wait_for("Settings")
    terminal.keys("?")
    terminal.wait_for("What it does")
    terminal.keys("Escape")
    terminal.keys("Escape")
    terminal.wait_for("Sort")
    terminal.keys("C-q")
    after = terminal.wait_for("QUEUEDESK-EXIT=")
    assert "QUEUEDESK-EXIT=0" in after
    assert "Traceback" not in after and "Error" not in after
