"""A tmux pane as the tests drive one: keys in, the screen's text out. A module that imports from
here is in the `tmux` tier (tests.support.tiers)."""

import subprocess
import time

import pytest

# The `tmux` tier; tests.support.tiers also skips its tests, saying why, where tmux is missing.
needs_tmux = pytest.mark.tmux


class Pane:
    def __init__(self, name: str) -> None:
        self.name = name

    def text(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(self, needle: str, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.text()
            if needle in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{needle!r} never appeared; the screen:\n{self.text()}")

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
