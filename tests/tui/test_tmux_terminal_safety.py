"""Issue 26 in a real terminal: against a server holding a hostile task (each row of the issue's
table) and names written before the server refused control characters, the app and the CLI leave
the terminal as they found it — its title, its clipboard (tmux with set-clipboard on), the screen
mode and what is on the screen — and show the hostile text as symbols.

Each test runs on a private tmux server (`tmux -L`), so `set-clipboard on` and the buffers are its own.
"""

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import KEYS
from tests.support.tmux import Pane, needs_tmux
from tests.tui.test_terminal_text import Hostile, hostile  # noqa: F401 - the module's server and data

pytestmark = [needs_tmux, pytest.mark.tmux, pytest.mark.slow]

QUEUEDESK = Path(sys.executable).parent / "queuedesk"
TITLE = "qd-title-as-found"


@pytest.fixture
def terminal(hostile: Hostile, tmp_path: Path) -> Iterator[Pane]:  # noqa: F811
    pane = Pane("safety", f"qd-safety-{os.getpid()}-{time.monotonic_ns()}")
    env = {
        "QUEUEDESK_URL": hostile.server.url,
        "QUEUEDESK_TOKEN": KEYS["admin"],
        "QUEUEDESK_CONFIG": str(tmp_path / "config.toml"),
        "QUEUEDESK_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "PS1": "$ ",
        # The shell here started with COLUMNS=80 from somewhere in the test run; the app believes it.
        "COLUMNS": "160",
        "LINES": "50",
    }
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    subprocess.run(
        [*pane.tmux, "new-session", "-d", "-s", pane.name, "-x", "160", "-y", "50", *env_args, "sh"],
        check=True,
    )
    try:
        pane.ask("set-option", "-g", "set-clipboard", "on")
        pane.keys(rf"printf '\033]2;{TITLE}\033\\'; clear", "Enter")
        deadline = time.monotonic() + 10
        while title(pane) != TITLE and time.monotonic() < deadline:
            time.sleep(0.05)
        assert title(pane) == TITLE
        yield pane
    finally:
        pane.kill_server()


def title(pane: Pane) -> str:
    return pane.ask("display", "-p", "-t", pane.name, "#{pane_title}").strip()


def as_found(pane: Pane, *, alternate: bool) -> None:
    """The title as set before, nothing on the clipboard, the screen mode as expected."""
    assert title(pane) == TITLE, pane.text()
    assert pane.ask("list-buffers") == "", pane.ask("list-buffers")
    on = pane.ask("display", "-p", "-t", pane.name, "#{alternate_on}").strip()
    assert on == ("1" if alternate else "0"), pane.text()


def exited(pane: Pane, timeout: float = 20) -> tuple[int, str]:
    """The exit status the shell printed after the command (`; echo QD-EXIT-$?-`), and the screen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = pane.text()
        if found := re.search(r"QD-EXIT-(\d+)-", screen):
            return int(found.group(1)), screen
        time.sleep(0.05)
    raise AssertionError(f"the command never ended; the screen:\n{pane.text()}")


def history_rows(screen: str) -> list[str]:
    return [line for line in screen.splitlines() if "ada@acme.test" in line]


def app_pid(pane: Pane) -> int:
    shell = pane.ask("display", "-p", "-t", pane.name, "#{pane_pid}").strip()
    children = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
    assert len(children) == 1, children
    return int(children[0])


def test_the_app_shows_a_hostile_task_as_symbols_and_leaves_the_terminal_as_found(terminal: Pane) -> None:
    terminal.keys(f"{QUEUEDESK}; echo QD-EXIT-$?-", "Enter")
    terminal.wait_for("Hostile work", timeout=30)  # the start under load
    terminal.wait_for("Legacy ␛]0;pwned-title␇\\x9b2J")  # the name column is cut after it
    as_found(terminal, alternate=True)  # the Kitty question at start no longer titles the pane

    terminal.keys("Down")
    time.sleep(0.5)
    terminal.keys("Enter")
    terminal.wait_for("/ Hostile work")
    terminal.wait_for("working now:")  # the queue's counts have come: its tabs take keys
    terminal.keys("2")
    terminal.wait_for("2 tasks, newest first")
    screen = terminal.wait_for("Alpha · <wipe:")
    rows = history_rows(screen)
    assert len(rows) == 2 and "<wipe:␛[2J␛[H><leave_alternate_screen:␛[?1049l>" in rows[0], screen
    assert "␛]0;pwned-title␇\\x9b2J␡⟪U+202E⟫abc" in rows[1], screen
    as_found(terminal, alternate=True)

    terminal.keys("Enter")  # the whole text of the newest task
    screen = terminal.wait_for("in Hostile work · completed")
    for shown in ("<title_bel:␛]0;pwned-title␇>", "<nul_del_bidi:␀␡⟪U+202E⟫abc><c1_csi:\\x9b2J>"):
        assert shown in screen, screen
    as_found(terminal, alternate=True)
    terminal.keys("Escape")
    time.sleep(0.5)
    assert history_rows(terminal.wait_for("2 tasks, newest first")) == rows  # nothing wiped

    terminal.keys("w")
    screen = terminal.wait_for("https://example.com/␛]52;c;cHduZWQtY2xpcA==␛\\")  # the link is no link
    for shown in ("␛]2;pwned-title-st␛\\>", "␛[?1049l>", "␀␡⟪U+202E⟫abc"):
        assert shown in screen, screen
    time.sleep(1)  # a repaint or two (the clipboard was written again at every one)
    as_found(terminal, alternate=True)

    terminal.keys("C-q")
    code, after = exited(terminal)
    assert code == 0, after
    assert "/ work" not in after and "Hostile work" not in after, after  # the last frame left with it
    as_found(terminal, alternate=False)


def test_sigterm_quits_the_app_and_leaves_the_terminal_as_found(terminal: Pane) -> None:
    terminal.keys(f"{QUEUEDESK}; echo QD-EXIT-$?-", "Enter")
    terminal.wait_for("Hostile work", timeout=30)  # the start under load
    subprocess.run(["kill", "-TERM", str(app_pid(terminal))], check=True)
    _, after = exited(terminal)
    assert "Hostile work" not in after, after
    as_found(terminal, alternate=False)


def test_a_crash_leaves_the_terminal_as_found(terminal: Pane) -> None:
    # The app's own start, with a fault put into its first screen's mount.
    crash = (
        "import sys; from queuedesk.tui.app import QueueDeskApp; from queuedesk.cli import main; "
        "QueueDeskApp.on_mount = lambda self: 1 / 0; sys.exit(main())"
    )
    terminal.keys(f"{sys.executable} -c '{crash}'; echo QD-EXIT-$?-", "Enter")
    _, after = exited(terminal)
    assert "ZeroDivisionError" in after, after
    as_found(terminal, alternate=False)


def test_the_cli_shows_hostile_names_and_text_as_symbols_and_leaves_the_terminal_as_found(
    terminal: Pane,
    hostile: Hostile,  # noqa: F811
) -> None:
    commands = [
        "queues",
        "users list",
        f"webhook get {hostile.legacy['id']}",
        f"export {hostile.queue['id']} --format csv",
    ]
    terminal.keys(
        "; ".join(f"{QUEUEDESK} {command}" for command in commands) + "; echo CLI-$((40 + 2))-DONE", "Enter"
    )
    screen = terminal.wait_for("CLI-42-DONE")
    for shown in (
        "Legacy ␛]0;pwned-title␇\\x9b2J␡⟪U+202E⟫abc",  # queues (the first command: never wiped)
        "Old ␛]0;pwned-title␇\\x9b2J␡⟪U+202E⟫abc",  # users list
        "http://example.com/␛]0;pwned-title␇\\x9b2J␡⟪U+202E⟫abc",  # webhook get
        "<clipboard:␛]52;c;cHduZWQtY2xpcA==␛\\>",  # export
        "<nul_del_bidi:␀␡⟪U+202E⟫abc>",
    ):
        assert shown in screen.replace("\n", ""), screen
    as_found(terminal, alternate=False)
