"""Running storage work: each unit of work is a plain function of a connection, run in one
transaction.

The same query functions serve both databases. On SQLite (the embedded default) they run on a
writer thread with `BEGIN IMMEDIATE` — one writer at a time, as SQLite wants — and a few reader
threads in WAL mode; one thread hop per request, not per statement.
"""

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import ConnectionPoolEntry

from queuedesk.server.store import schema

P = ParamSpec("P")
T = TypeVar("T")
Work = Callable[Concatenate[Connection, P], T]

READER_THREADS = 4


class Database(Protocol):
    dialect: str

    async def read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...

    async def write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...

    async def close(self) -> None: ...


def sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise ValueError("QueueDesk needs a SQLite file, not an in-memory database")
    return Path(database)


def _sqlite_engine(url: str, begin: str, pool_size: int) -> Engine:
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=0,
        connect_args={"check_same_thread": False, "timeout": 30},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None  # we say BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql(begin)

    return engine


class SQLiteDatabase:
    dialect = "sqlite"

    def __init__(self, url: str) -> None:
        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._writer = _sqlite_engine(url, "BEGIN IMMEDIATE", pool_size=1)
        self._reader = _sqlite_engine(url, "BEGIN", pool_size=READER_THREADS)
        self._write_thread = ThreadPoolExecutor(1, thread_name_prefix="queuedesk-db-write")
        self._read_threads = ThreadPoolExecutor(READER_THREADS, thread_name_prefix="queuedesk-db-read")

    def run_write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        with self._writer.begin() as conn:
            return fn(conn, *args, **kwargs)

    def run_read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        with self._reader.begin() as conn:
            return fn(conn, *args, **kwargs)

    async def read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        call = functools.partial(self.run_read, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._read_threads, call)

    async def write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        call = functools.partial(self.run_write, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._write_thread, call)

    async def close(self) -> None:
        self._write_thread.shutdown(wait=True)
        self._read_threads.shutdown(wait=True)
        self._writer.dispose()
        self._reader.dispose()

    def ping(self, conn: Connection) -> None:
        conn.execute(text("SELECT 1"))


def normalize_url(url: str) -> str:
    """Accept `sqlite:///file.db` and `postgresql://...` as users write them."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def open_database(url: str) -> SQLiteDatabase:
    """Open (and create or upgrade the schema of) the database at `url`."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        database = SQLiteDatabase(url)
        database.run_write(schema.upgrade)
        return database
    raise ValueError(f"unsupported database URL {url!r}: use sqlite:///path/to/file.db")
