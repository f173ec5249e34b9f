"""`queuedesk demo` as a person runs it: in a real terminal (tmux), quit with ctrl+q.

It must open on the queue list with the demo's queues, show counts that change as the simulated
colleagues work, and leave nothing behind: no process, no listening port, no claim held, the lock
free. A second demo while one runs joins it, and `--fresh` does not wipe it.
"""

import json
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.support import QUEUEDESK, children_of, demo_environment, port_open, process_alive, wait_until
from tests.support.tmux import Pane, needs_tmux

pytestmark = needs_tmux

QUEUES = ("Photo moderation", "Support triage", "Receipt checks")


def start(data_dir: Path, *arguments: str) -> Pane:
    name = f"qd-demo-{time.monotonic_ns()}"
    env = demo_environment(data_dir, QUEUEDESK_DEMO_PACE="0.1")
    env_args = [
        arg
        for key, value in env.items()
        if key.startswith(("QUEUEDESK_", "XDG_", "TERM"))
        for arg in ("-e", f"{key}={value}")
    ]
    command = f"{QUEUEDESK} demo {' '.join(arguments)}; echo QUEUEDESK-EXIT=$?; sleep 30"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "110", "-y", "30", *env_args, command], check=True
    )
    return Pane(name)


@pytest.fixture
def panes() -> Iterator[list[Pane]]:
    made: list[Pane] = []
    yield made
    for pane in made:
        subprocess.run(["tmux", "kill-session", "-t", pane.name], capture_output=True)


def pending_counts(screen: str) -> dict[str, int]:
    counts = {}
    for name in QUEUES:
        found = re.search(rf"{name}\s+(\d+)", screen)
        if found:
            counts[name] = int(found.group(1))
    return counts


def test_demo_opens_lives_and_leaves_nothing_behind(tmp_path: Path, panes: list[Pane]) -> None:
    pane = start(tmp_path)
    panes.append(pane)
    first = pane.wait_for("Receipt checks", timeout=60)
    assert "Alex Admin (admin)" in first
    before = pending_counts(first)
    assert set(before) == set(QUEUES), first
    # The colleagues work and the integration adds tasks: the counts move (live refresh every 5 s).
    deadline = time.monotonic() + 40
    while pending_counts(pane.text()) == before:
        assert time.monotonic() < deadline, f"the counts never changed from {before}:\n{pane.text()}"
        time.sleep(0.5)

    running = json.loads((tmp_path / "demo.lock").read_text())
    service_pid, port = running["pid"], int(running["url"].rsplit(":", 1)[1])
    side_port = int(json.loads((tmp_path / "demo-state.json").read_text())["side_base"].rsplit(":", 1)[1])
    assert port_open(port) and port_open(side_port)

    # A second demo joins the running one (and --fresh does not wipe it).
    second = start(tmp_path, "--fresh", "--role", "worker")
    panes.append(second)
    second.wait_for("Wren Worker (worker)", timeout=60)
    assert set(pending_counts(second.wait_for("Receipt checks", timeout=30))) == set(QUEUES)
    assert json.loads((tmp_path / "demo.lock").read_text()) == running  # the same service, not a new one
    second.keys("C-q")
    second.wait_for("QUEUEDESK-EXIT=0", timeout=30)
    assert "already running" in second.text()
    assert process_alive(service_pid), "quitting the joined demo stopped the first one's service"

    pane.keys("C-q")
    pane.wait_for("QUEUEDESK-EXIT=0", timeout=30)
    wait_until(lambda: not process_alive(service_pid), 10, "the service process ended")
    assert not port_open(port) and not port_open(side_port)
    shell = int(
        subprocess.run(
            ["tmux", "display", "-p", "-t", pane.name, "#{pane_pid}"], capture_output=True, text=True
        ).stdout
    )
    assert [
        pid for pid in children_of(shell) if "sleep" not in Path(f"/proc/{pid}/cmdline").read_text()
    ] == []
    assert (tmp_path / "demo.lock").read_text() == ""  # the lock is free (and says nobody runs)
    with sqlite3.connect(tmp_path / "demo.db") as db:
        held = db.execute("SELECT count(*) FROM tasks WHERE status = 'in_progress'").fetchone()[0]
        completed = db.execute("SELECT count(*) FROM tasks WHERE status = 'completed'").fetchone()[0]
    assert held == 0, "the colleagues left tasks claimed"
    assert completed > 3400  # the history plus what the colleagues did
    log = (tmp_path / "demo.log").read_text()
    assert "ERROR" not in log and "Traceback" not in log, log
