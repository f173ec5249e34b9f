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
once more on a fresh process (a write that died rolled back with its process).
"""

import asyncio
import collections
import contextlib
import functools
import importlib
import multiprocessing
import os
import pickle
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection as PipeEnd
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from sqlalchemy import Connection, Engine

from queuedesk.server.store import pipe_messages
from queuedesk.server.store.embedded import working_in_a_work_process
from queuedesk.server.store.pipe_messages import read_message, write_message
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
    """Exit once the serving process is gone (killed, say, with no chance to stop us), even in the
    middle of a unit: an idle process sees its pipe end, but a busy one would go on with a long
    read, keeping its memory and a read snapshot that stops the WAL from being checkpointed."""
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGKILL)  # at once, from this thread: nothing here needs tidying


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


class WorkProcessDied(Exception):
    """A work process ended (killed, out of memory) before it answered."""


def _serve(conn: PipeEnd, make_engine: Callable[[], Engine], niceness: int, begin: str, server: int) -> None:
    """A work process: units of work read from `conn`, each answer written back, until the serving
    process closes its end."""
    _start(make_engine, niceness, begin, server)
    fd = conn.fileno()
    while True:
        try:
            work = pickle.loads(read_message(fd))
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, work())
        except Exception as exc:
            answer = (False, exc)
        try:
            data = pickle.dumps(answer)
        except Exception as exc:  # an answer or an error that does not pickle
            data = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        try:
            write_message(fd, data)
        except OSError:
            return


class _Process:
    """One work process and the serving process's end of its pipe."""

    def __init__(self, initargs: tuple[Any, ...]) -> None:
        context = multiprocessing.get_context("spawn")  # not fork: the serving process has threads
        self.conn, theirs = context.Pipe(duplex=True)
        self.process = context.Process(
            target=_serve, args=(theirs, *initargs), name="queuedesk-work", daemon=True
        )
        self.process.start()
        theirs.close()
        os.set_blocking(self.conn.fileno(), False)  # the event loop waits for it, never the thread

    async def call(self, work: Callable[[], T]) -> tuple[bool, Any]:
        """Send `work`; (True, its answer) or (False, what it raised). Both go through the pipe as
        the event loop finds it ready: no thread of the serving process waits for it."""
        fd = self.conn.fileno()
        try:
            await pipe_messages.send(fd, pickle.dumps(work))
            return cast(tuple[bool, Any], pickle.loads(await pipe_messages.receive(fd)))
        except (EOFError, OSError) as exc:
            raise WorkProcessDied() from exc

    def stop(self, wait: float) -> None:
        self.conn.close()  # its next read ends it
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(wait)


class WorkProcesses:
    """Up to `size` processes, started when first needed, each running units of work that begin
    with `begin` on a connection `make_engine` makes. The event loop talks to them through pipes it
    watches itself: a thread moving the work would take the interpreter lock from the loop for every
    unit (as `ProcessPoolExecutor`'s did, and others' one-row reads waited for it at p99)."""

    def __init__(self, make_engine: Callable[[], Engine], size: int, niceness: int, begin: str) -> None:
        self._initargs = (make_engine, niceness, begin, os.getpid())
        self._size = size
        self._idle: list[_Process] = []
        self._all: set[_Process] = set()
        self._waiting: collections.deque[asyncio.Future[_Process]] = collections.deque()

    def _spawn(self) -> _Process:
        started = _Process(self._initargs)
        self._all.add(started)
        return started

    def start_one(self) -> None:
        """One process started now, in the background (its imports run beside the caller)."""
        if not self._all:
            self._idle.append(self._spawn())

    async def _take(self) -> _Process:
        if self._idle:
            return self._idle.pop()
        if len(self._all) < self._size:
            return self._spawn()
        waiter: asyncio.Future[_Process] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        return await waiter

    def _give_back(self, process: _Process) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(process)
                return
        self._idle.append(process)

    def _forget(self, process: _Process) -> None:
        self._all.discard(process)
        process.stop(wait=0)

    def _drop(self, process: _Process) -> None:
        """A process that died, or whose unit was abandoned: gone, and its place free."""
        self._forget(process)
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(self._spawn())
                return

    async def run(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._submit(functools.partial(_run, fn, args, kwargs))

    async def checkpoint(self) -> tuple[int, int, int]:
        """Copy the WAL's committed frames into the database file here, off the serving process."""
        return await self._submit(_checkpoint)

    async def _submit(self, work: Callable[[], T]) -> T:
        for attempt in range(2):  # a unit whose process died is tried once more, on a fresh one
            process = await self._take()
            try:
                done, answer = await process.call(work)
            except WorkProcessDied:
                self._drop(process)
                if attempt:
                    raise
                # What killed it (the OOM killer, an operator) may have killed the idle ones too:
                # the retry gets a fresh process, not one that dies the same way.
                for idle in self._idle:
                    self._forget(idle)
                self._idle.clear()
                continue
            except BaseException:  # cancelled midway: its answer would reach the next unit
                self._drop(process)
                raise
            self._give_back(process)
            if not done:
                raise answer
            return cast(T, answer)
        raise AssertionError("unreachable")

    def close(self) -> None:
        for process in list(self._all):
            process.stop(wait=5)
        self._all.clear()
        self._idle.clear()
