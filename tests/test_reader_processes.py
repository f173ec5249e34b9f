"""Long SQLite reads run in reader processes of the serving process (`store/reader_processes.py`),
against a real `queuedesk serve`: started on the first long read, replaced when one dies, stopped
with the server without a word on its log. SQLite alone: PostgreSQL has no reader processes."""

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import make_queue
from tests.support import ROLES_SEED, ServerProcess


def children(pid: int) -> set[int]:
    """The reader processes `pid` started, from any of its threads (not multiprocessing's resource
    tracker, which a spawned process comes with)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with open(task / "children") as listed:
            found.update(int(child) for child in listed.read().split())
    return {child for child in found if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()}


def alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except FileNotFoundError:
        return False


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path / "qd.db", seed=ROLES_SEED).start()
    yield running
    running.stop()


def stats(server: ServerProcess) -> int:
    with server.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        queue = admin.get(f"/orgs/{org}/queues").json()
        queue_id = queue[0]["id"] if queue else make_queue(admin, org)["id"]
        answer = admin.get(f"/orgs/{org}/queues/{queue_id}/stats")
        assert answer.status_code == 200, answer.text
        return len(answer.json()["completed"])


def test_the_first_long_read_starts_a_reader_process_and_a_killed_one_is_replaced(
    server: ServerProcess,
) -> None:
    assert server.process is not None
    assert children(server.process.pid) == set()  # nothing started before a long read
    assert stats(server) == 32  # 8 hours in 15-minute buckets
    readers = children(server.process.pid)
    assert len(readers) == 1

    for reader in readers:
        os.kill(reader, signal.SIGKILL)
    assert stats(server) == 32  # answered by a fresh reader, not a 500
    replaced = children(server.process.pid)
    assert replaced and not replaced & readers
    assert "Traceback" not in server.log()


def test_stopping_the_server_stops_its_readers_without_a_traceback(server: ServerProcess) -> None:
    """ctrl+c reaches every process of the terminal's group: the readers ignore it and the server
    stops them."""
    assert server.process is not None
    stats(server)
    readers = children(server.process.pid)
    assert readers
    for pid in [*readers, server.process.pid]:
        os.kill(pid, signal.SIGINT)
    server.process.wait(timeout=15)
    deadline = time.monotonic() + 5
    while any(alive(reader) for reader in readers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(reader) for reader in readers)
    log = server.log()
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log
