"""Long SQLite work in processes of their own: reads that may go through many rows (`scan`), each
reader with a read-only connection, and writes that may (`long_write`: a flush, an import's commit),
one writer with a connection of its own. A reader also checkpoints the WAL for the serving
process, whose own commits never do (`checkpoint`).

On a thread this work shared the server's interpreter lock: whenever it ran Python (turning a stats
answer's rows into buckets; listing, dumping and reading back an import's 200,000 ids) the event
loop waited for it, and other organizations' one-row requests took 2.5-7 ms at p99 instead of
0.4-1.4 ms while one organization did it again and again (`bench/fairness.py`). A process has an
interpreter of its own.

A process costs about 0.8 s of imports as it starts and 49 MB: the server starts one reader a
couple of seconds after its own start (`start_one`), the writer when first needed, a second reader
only when two long reads run at once. A unit of work goes to them by name (a module-level
function), with its arguments and its answer pickled; stored JSON comes back as it was read
(`embedded.py`). One that dies (killed, out of memory) is replaced: the unit it was running is tried
once more on a fresh pool (a write that died rolled back with its process).
"""

import asyncio
import contextlib
import functools
import importlib
import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from sqlalchemy import Connection, Engine

from queuedesk.server.store.embedded import working_in_a_work_process
from queuedesk.server.store.transaction import in_transaction

P = ParamSpec("P")
T = TypeVar("T")
Work = Callable[Concatenate[Connection, P], T]

# In a work process: its connection, and how each unit's transaction begins.
_engine: Engine | None = None
_begin = "BEGIN"
PARENT_CHECK_SECONDS = 0.5


# What the units of work need, imported as a process starts rather than by its first unit.
PRELOADED = (
    "queuedesk.server.store.long_writes",
    "queuedesk.server.store.stats",
    "queuedesk.server.store.deliveries",
    "queuedesk.server.store.retention",
)


def _start(make_engine: Callable[[], Engine], niceness: int, begin: str, server: int) -> None:
    # ctrl+c reaches the whole process group: the serving process stops its work processes itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(server,), name="queuedesk-end-with-server", daemon=True).start()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, niceness)  # the serving process's requests come first
    working_in_a_work_process()
    global _engine, _begin
    _engine, _begin = make_engine(), begin
    for name in PRELOADED:
        importlib.import_module(name)
    with _engine.connect():  # its connection made (and its pragmas run) before the first unit
        pass


def _end_with(server: int) -> None:
    """Exit once the serving process is gone (killed, say, with no chance to stop us): a pool's
    worker waits on a queue whose other end it holds too, so it would otherwise wait for good,
    keeping its memory and a read snapshot that stops the WAL from being checkpointed."""
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGKILL)  # at once, from this thread: nothing here needs tidying


def _nothing() -> None:
    pass


def _run(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    assert _engine is not None, "a work process is started by _start"
    with _engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")  # begun and ended here
        driver = cast(sqlite3.Connection, conn.connection.dbapi_connection)
        return in_transaction(conn, driver, _begin, fn, *args, **kwargs)


def _checkpoint() -> tuple[int, int, int]:
    """A passive checkpoint, outside any transaction: (1 when it could not finish, the WAL's frames,
    the frames now copied into the database file)."""
    assert _engine is not None, "a work process is started by _start"
    with _engine.connect() as conn:
        driver = cast(sqlite3.Connection, conn.connection.dbapi_connection)
        busy, frames, copied = driver.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return busy, frames, copied


class WorkProcesses:
    """Up to `size` processes, started when first needed, each running units of work that begin
    with `begin` on a connection `make_engine` makes."""

    def __init__(self, make_engine: Callable[[], Engine], size: int, niceness: int, begin: str) -> None:
        self._initargs = (make_engine, niceness, begin, os.getpid())
        self._size = size
        self._pool: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self._size,
                # Not fork: the serving process has threads and open database connections.
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start,
                initargs=self._initargs,
            )
        return self._pool

    def start_one(self) -> None:
        """One process started now, in the background (its imports run beside the caller)."""
        self._started().submit(_nothing)

    async def run(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._submit(functools.partial(_run, fn, args, kwargs))

    async def checkpoint(self) -> tuple[int, int, int]:
        """Copy the WAL's committed frames into the database file here, off the serving process."""
        return await self._submit(_checkpoint)

    async def _submit(self, work: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._started(), work)
        except BrokenProcessPool:
            broken, self._pool = self._pool, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self._started(), work)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
