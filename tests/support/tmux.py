"""A tmux pane as the tests drive one: keys in, the screen's text out."""

import shutil
import subprocess
import time

import pytest

needs_tmux = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)"
)


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
