"""The worker's keys in a real terminal while the app is stalled (issue 25): the installed command in
tmux, stopped (SIGSTOP) while keys are typed and continued (SIGCONT), so that it reads them all at
once, as after a stall on a loaded machine or an SSH link; what the server recorded is checked.

The app runs as a child of the pane's shell: tmux continues at once a pane's own process that stops
(its SIGCHLD handler), so stopping that process would stall nothing.
"""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import make_queue
from tests.support import Organization
from tests.support.tmux import Pane, needs_tmux
from tests.tui.test_tmux_terminal_safety import app_pid
from tests.tui.test_work import MESSAGE, NOTE, add_tasks, completed
from tests.tui.test_work_keys import KIND, PRIORITY

pytestmark = [needs_tmux, pytest.mark.tmux, pytest.mark.slow]

QUEUEDESK = Path(sys.executable).parent / "queuedesk"


@pytest.fixture
def worker_terminal(own_org: Organization, tmp_path: Path) -> Iterator[Pane]:
    """The app as the worker of an organization of the test's own (its queue is the only one)."""
    pane = Pane("stalled", f"qd-stalled-{os.getpid()}-{time.monotonic_ns()}")
    env = {
        "QUEUEDESK_URL": own_org.server.url,
        "QUEUEDESK_TOKEN": own_org.key("worker"),
        "QUEUEDESK_CONFIG": str(tmp_path / "config.toml"),
        "QUEUEDESK_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
    }
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    command = f"{QUEUEDESK}; sleep 30"  # not `exec`: the app is the shell's child (see above)
    subprocess.run(
        [*pane.tmux, "new-session", "-d", "-s", pane.name, "-x", "120", "-y", "40", *env_args, command],
        check=True,
    )
    try:
        yield pane
    finally:
        pane.kill_server()


@contextmanager
def stalled(pane: Pane) -> Iterator[None]:
    """The app stopped for what is typed inside: it reads it all at once when continued."""
    pid = app_pid(pane)
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def open_work(pane: Pane, queue: dict, first_text: str) -> None:
    pane.wait_for(queue["name"], timeout=30)  # the start under load; the organization's one queue
    pane.keys("w")
    pane.wait_for(first_text, timeout=30)


def test_escape_then_tab_out_of_a_text_field_typed_during_a_stall_moves_on_to_the_next_field(
    worker_terminal: Pane, own_org: Organization
) -> None:
    admin, org_id = own_org.client("admin"), own_org.id
    queue = make_queue(admin, org_id, [MESSAGE, KIND, NOTE, PRIORITY], label="Stalled")
    first, _second = add_tasks(admin, org_id, queue, [{"message": f"STALLED-{m}"} for m in "ab"])
    pane = worker_terminal
    open_work(pane, queue, "STALLED-a")
    pane.keys("1")
    pane.wait_for("● Red")  # the task takes keys: its first field has the focus
    with stalled(pane):
        # Read together, ESC TAB was shift+tab to Textual: back to Kind, where the 3 then went.
        pane.keys("Tab")
        pane.keys("-l", "abc")
        pane.keys("Escape")
        pane.keys("Tab")
        pane.keys("3")
        pane.keys("Enter")
    pane.wait_for("STALLED-b")
    pane.keys("Escape")  # leaving sends what waits for the undo grace
    pane.wait_for("Stalled", timeout=15)
    deadline = time.monotonic() + 20
    while first not in completed(admin, org_id, queue) and time.monotonic() < deadline:
        time.sleep(0.1)
    sent = completed(admin, org_id, queue)[first]["data"]
    assert (sent["kind"], sent["note"], sent["priority"]) == ("red", "abc", "high"), sent
