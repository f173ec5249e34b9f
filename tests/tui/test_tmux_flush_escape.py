"""`F` then `escape` at once, 50 times in a row, in a real terminal: the flush guard is left while
it is still counting (the server's answers are held by a proxy), and the app never stops."""

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import KEYS, ServerProcess
from tests.support.delay_proxy import DelayProxy
from tests.support.tmux import Pane, needs_tmux

pytestmark = needs_tmux

QUEUEDESK = Path(sys.executable).parent / "queuedesk"
ROUNDS = 50


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[DelayProxy]:
    made = DelayProxy(server.port).start()
    yield made
    made.stop()


@pytest.fixture
def terminal(proxy: DelayProxy, tmp_path: Path) -> Iterator[Pane]:
    socket = f"qd-flush-{time.monotonic_ns()}"
    env = {
        "QUEUEDESK_URL": f"http://127.0.0.1:{proxy.port}",
        "QUEUEDESK_TOKEN": KEYS["admin"],
        "QUEUEDESK_CONFIG": str(tmp_path / "config.toml"),
        "QUEUEDESK_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
    }
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    command = f"{QUEUEDESK}; echo QUEUEDESK-EXIT=$?; sleep 30"
    subprocess.run(
        ["tmux", "-L", socket, "new-session", "-d", "-s", "qd", "-x", "100", "-y", "30", *env_args, command],
        check=True,
    )
    pane = Pane("qd", socket)
    yield pane
    pane.kill_server()


def gone(terminal: Pane, needle: str, what: str, timeout: float = 15) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = terminal.text()
        if needle not in screen:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{what}:\n{terminal.text()}")


def test_f_then_escape_at_once_50_times_never_stops_the_app(terminal: Pane, proxy: DelayProxy) -> None:
    terminal.wait_for("Categorization", timeout=30)
    terminal.wait_for("Refresh", timeout=30)  # the list's footer: its keys are live
    for round_ in range(ROUNDS):
        proxy.hold()  # the guard's count waits for the server
        terminal.keys("F")
        terminal.wait_for("Type the queue's name", timeout=15)
        terminal.keys("Escape")
        screen = gone(terminal, "Type the queue's name", f"round {round_}: the guard stayed")
        proxy.release()
        assert "Traceback" not in screen and "NoMatches" not in screen, f"round {round_}:\n{screen}"
    time.sleep(0.5)  # the cancelled counts' answers arrive meanwhile
    assert "QUEUEDESK-EXIT" not in terminal.text(), terminal.text()
    terminal.keys("C-q")
    after = terminal.wait_for("QUEUEDESK-EXIT=", timeout=15)
    assert "QUEUEDESK-EXIT=0" in after and "Traceback" not in after, after
