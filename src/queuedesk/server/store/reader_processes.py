"""Long SQLite reads (`scan`) in processes of their own, each with a read-only connection.

A reader thread shared the server's interpreter lock: whenever it ran Python between SQLite's steps
(turning a stats answer's rows into buckets, say) the event loop waited for it, and other
organizations' one-row requests took 2.5-3 ms at p99 instead of 0.4 ms while one organization read
its 7-day stats again and again (`bench/fairness.py`). A process has an interpreter of its own.

The processes start on the first long read (each costs about 0.8 s of imports and 45 MB), a second
only when two long reads run at once. A unit of work goes to them by name (a module-level
function), with its arguments and its answer pickled. One that dies (killed, out of memory) is
replaced: the read it was doing is tried once more on a fresh pool.
"""

import asyncio
import contextlib
import functools
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine

from queuedesk.server.store.embedded import reading_in_a_reader_process

P = ParamSpec("P")
T = TypeVar("T")
Work = Callable[Concatenate[Connection, P], T]

_engine: Engine | None = None  # in a reader process: its read-only connection


def _start_reader(make_engine: Callable[[], Engine], niceness: int) -> None:
    # ctrl+c reaches the whole process group: the serving process stops its readers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, niceness)  # the serving process's requests come first
    reading_in_a_reader_process()
    global _engine
    _engine = make_engine()


def _read(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    assert _engine is not None, "a reader process is started by _start_reader"
    with _engine.connect() as conn:
        driver = conn.connection.dbapi_connection
        assert driver is not None
        driver.execute("BEGIN")  # one snapshot for the count and the page
        try:
            return fn(conn, *args, **kwargs)
        finally:
            driver.execute("COMMIT")


class ReaderProcesses:
    """Up to `size` reader processes, started when first needed."""

    def __init__(self, make_engine: Callable[[], Engine], size: int, niceness: int) -> None:
        self._make_engine = make_engine
        self._size = size
        self._niceness = niceness
        self._pool: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self._size,
                # Not fork: the serving process has threads and an open database connection.
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_reader,
                initargs=(self._make_engine, self._niceness),
            )
        return self._pool

    async def read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        work = functools.partial(_read, fn, args, kwargs)
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
