"""Long SQLite reads and writes run in work processes of the serving process
(`store/work_processes.py`), against a real `queuedesk serve`: a reader started with the server,
the writer when first needed, each replaced when it dies, stopped with the server without a word on its log. SQLite alone: PostgreSQL has no
work processes."""

import asyncio
import contextlib
import functools
import multiprocessing
import os
import shutil
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine

from queuedesk.server.store.work_processes import WorkProcesses
from tests.conftest import make_queue
from tests.support import ROLES_SEED, ServerProcess


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


def queue_path(admin: httpx.Client) -> str:
    org = admin.get("/me").json()["organization_id"]
    queues = admin.get(f"/orgs/{org}/queues").json()
    return f"/orgs/{org}/queues/{queues[0]['id'] if queues else make_queue(admin, org)['id']}"


def stats(server: ServerProcess) -> int:
    """A long read: the buckets of the queue's stats."""
    with server.client("admin") as admin:
        answer = admin.get(f"{queue_path(admin)}/stats")
        assert answer.status_code == 200, answer.text
        return len(answer.json()["completed"])


def flush(server: ServerProcess) -> int:
    """A long write: the queue's pending tasks (three made first) flushed; how many were pending after."""
    with server.client("admin") as admin:
        path = queue_path(admin)
        for n in range(3):
            assert (
                admin.post(f"{path}/tasks/create", json={"data": {"paragraph": f"p{n}"}}).status_code == 200
            )
        assert admin.put(f"{path}/flush").status_code == 200
        return admin.get(path).json()["n_tasks"]


def wait_for_work_processes(server: ServerProcess, count: int) -> set[int]:
    deadline = time.monotonic() + 30  # a reader's start takes 0.8 s of imports; longer under load
    while len(found := server.work_processes()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_a_reader_starts_with_the_server_the_writer_when_needed_and_a_killed_one_is_replaced(
    server: ServerProcess,
) -> None:
    warm = wait_for_work_processes(server, 1)
    assert len(warm) == 1  # started a couple of seconds after the server, before any long read
    assert stats(server) == 32  # 8 hours in 15-minute buckets
    readers = server.work_processes()
    assert warm <= readers and len(readers) <= 2  # a second one if the stats came before it was up
    assert flush(server) == 0
    both = server.work_processes()
    assert len(both) == len(readers) + 1 and readers < both  # and a writer

    for pid in both:
        os.kill(pid, signal.SIGKILL)
    assert stats(server) == 32  # answered by a fresh reader, not a 500
    assert flush(server) == 0  # and flushed by a fresh writer
    replaced = server.work_processes()
    assert len(replaced) >= 2 and not replaced & both
    assert "Traceback" not in server.log()


def test_stopping_the_server_stops_its_work_processes_without_a_traceback(server: ServerProcess) -> None:
    """ctrl+c reaches every process of the terminal's group: the work processes ignore it and the
    server stops them."""
    assert server.process is not None
    stats(server)
    flush(server)
    readers = wait_for_work_processes(server, 2)
    assert len(readers) >= 2
    for pid in [*readers, server.process.pid]:
        os.kill(pid, signal.SIGINT)
    server.process.wait(timeout=15)
    deadline = time.monotonic() + 5
    while any(alive(reader) for reader in readers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(reader) for reader in readers)
    log = server.log()
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log


def test_a_killed_server_leaves_no_work_process_behind(server: ServerProcess) -> None:
    """A pool's worker waits on a queue whose other end it holds too: without its own check it
    outlived a killed server for good (found orphaned after this session's benches)."""
    assert server.process is not None
    stats(server)
    flush(server)
    workers = wait_for_work_processes(server, 2)
    assert len(workers) >= 2
    server.process.kill()
    server.process.wait()
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)


def tasks_in_the_file_alone(database: Path, scratch: Path) -> int | None:
    """How many tasks the database file itself holds, its WAL left out: what checkpoints copied into
    it. None when the copy caught a checkpoint half way (try again)."""
    copy = scratch / "file-alone.db"
    shutil.copyfile(database, copy)
    try:
        with contextlib.closing(sqlite3.connect(copy)) as conn:  # no WAL beside the copy
            return conn.execute("SELECT count(*) FROM tasks").fetchone()[0]
    except sqlite3.DatabaseError:
        return None
    finally:
        copy.unlink()


def test_the_serving_process_never_checkpoints_a_reader_process_does(
    server: ServerProcess, tmp_path: Path
) -> None:
    """SQLite's default would have the loop's own commit copy the WAL into the file and sync both
    once it passed 1,000 pages; here that waits for a reader process, stopped for a while."""
    database, scratch = server.db_path, tmp_path / "scratch"
    scratch.mkdir()
    wait_for_work_processes(server, 1)  # with it the checkpoints began
    with ThreadPoolExecutor(4) as long_reads:  # both readers up (a checkpoint would start the second)
        deadline = time.monotonic() + 30
        while len(server.work_processes()) < 2 and time.monotonic() < deadline:
            list(long_reads.map(lambda _: stats(server), range(4)))
    readers = server.work_processes()
    assert len(readers) == 2
    before = tasks_in_the_file_alone(database, scratch)
    assert before is not None
    for pid in readers:
        os.kill(pid, signal.SIGSTOP)
    try:
        with server.client("admin") as admin:
            path = queue_path(admin)
            for n in range(500):  # ≈5 MB of WAL: past 1,000 pages
                made = admin.post(f"{path}/tasks/create", json={"data": {"paragraph": f"{n} " + "x" * 8_000}})
                assert made.status_code == 200, made.text
        time.sleep(1.5)  # three rounds of the checkpointer
        assert tasks_in_the_file_alone(database, scratch) == before  # the loop copied nothing
    finally:
        for pid in readers:
            os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + 30
    while tasks_in_the_file_alone(database, scratch) != before + 500 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert tasks_in_the_file_alone(database, scratch) == before + 500  # the reader checkpointed


def test_a_request_whose_key_use_is_due_does_not_wait_for_another_organizations_long_write(
    server: ServerProcess,
) -> None:
    """A key's use is written once a minute, by the request; on SQLite a write waits for a long one
    (here a flush whose writer process is stopped). Another organization's read must not wait for
    it: the use is written once the long write is done."""
    readers = wait_for_work_processes(server, 1)
    assert flush(server) == 0  # the writer started
    (writer,) = server.work_processes() - readers
    os.kill(writer, signal.SIGSTOP)
    stuck = threading.Thread(target=flush, args=(server,))
    try:
        stuck.start()
        time.sleep(0.5)  # the flush is under way, in the stopped writer
        with server.client("other_admin") as globex:
            globex.timeout = httpx.Timeout(5)
            me = globex.get("/me")  # Globex's key used for the first time here: its use is due
            assert me.status_code == 200, me.text
            org = me.json()["organization_id"]
            people = globex.get(f"/orgs/{org}/users").json()
            user = next(u["id"] for u in people if u["email"] == me.json()["email"])
            keys = f"/orgs/{org}/users/{user}/keys"
            assert globex.get(keys).json()[0]["last_used_at"] is None  # not written yet
    finally:
        os.kill(writer, signal.SIGCONT)
        stuck.join(30)
    with server.client("other_admin") as globex:
        deadline = time.monotonic() + 10
        while globex.get(keys).json()[0]["last_used_at"] is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert globex.get(keys).json()[0]["last_used_at"] is not None  # written after the flush


def test_the_serving_process_moves_the_work_on_its_one_thread(server: ServerProcess) -> None:
    """No thread beside the event loop carries units of work to the processes (a pool's manager
    thread did, and took the interpreter lock from the loop for each: others' reads waited)."""
    assert server.process is not None
    wait_for_work_processes(server, 1)
    assert stats(server) == 32
    assert flush(server) == 0
    tasks = Path(f"/proc/{server.process.pid}/task").iterdir()
    names = [(task / "comm").read_text().strip() for task in tasks]
    # uvloop's own threads (name resolution, file calls) run no Python.
    assert [name for name in names if name != "libuv-worker"] == ["python"], names


def _echo(_conn: object, data: bytes) -> bytes:
    """A unit of work (module-level: it goes to the process by name)."""
    return data


async def test_a_unit_larger_than_the_pipe_never_holds_up_the_event_loop(tmp_path: Path) -> None:
    """A unit's arguments and its answer pass through the pipe as the loop finds it ready. Sent in
    one blocking write, 4 MB to a process that reads nothing yet (still importing; here stopped for
    a second) held the loop until the process read it all."""
    database = f"sqlite:///{tmp_path / 'work.db'}"
    processes = WorkProcesses(functools.partial(create_engine, database), 1, 0, "BEGIN")
    try:
        assert await processes.run(_echo, b"ready") == b"ready"
        (child,) = [p for p in multiprocessing.active_children() if p.name == "queuedesk-work"]
        assert child.pid is not None
        stopped = threading.Event()
        stopped.set()
        os.kill(child.pid, signal.SIGSTOP)

        def resume() -> None:
            stopped.clear()
            os.kill(child.pid, signal.SIGCONT)  # type: ignore[arg-type]

        ticks_while_stopped = 0

        async def tick() -> None:
            nonlocal ticks_while_stopped
            while True:
                await asyncio.sleep(0.01)
                if stopped.is_set():
                    ticks_while_stopped += 1

        ticker = asyncio.create_task(tick())
        resumer = threading.Timer(1.0, resume)
        resumer.start()
        try:
            data = os.urandom(4_000_000)
            assert await asyncio.wait_for(processes.run(_echo, data), timeout=30) == data
        finally:
            resumer.join()
            ticker.cancel()
        assert ticks_while_stopped >= 10, ticks_while_stopped
    finally:
        processes.close()
