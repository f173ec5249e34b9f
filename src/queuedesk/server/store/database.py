"""Running storage work: each unit of work is a plain function of a connection, run in one
transaction, and the same functions serve both databases.

- SQLite (the embedded default): one connection in WAL mode, used from the event loop's thread;
  writes start with `BEGIN IMMEDIATE`, so a unit of work never has to upgrade its lock half-way.
  Reads that may go through many rows (`scan`) run in reader processes with read-only connections
  of their own, so the event loop keeps serving while SQLite counts. Writes that may go through
  many rows (`long_write`) run in a writer process with a connection of its own; meanwhile other
  writes wait for it without holding up the loop, and reads go on from the WAL's last commit
  (`work_processes.py`).
- PostgreSQL: an asyncpg connection pool; each unit of work runs through `run_sync` on one pooled
  connection in one transaction. Several server processes can share the database.
"""

import asyncio
import contextlib
import functools
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.pool import ConnectionPoolEntry, SingletonThreadPool, StaticPool

from queuedesk.server.private_files import private_directory, private_file
from queuedesk.server.settings import default_data_directory
from queuedesk.server.store import schema
from queuedesk.server.store.transaction import in_transaction
from queuedesk.server.store.work_processes import WorkProcesses

log = logging.getLogger("queuedesk.server")

P = ParamSpec("P")
T = TypeVar("T")
Work = Callable[Concatenate[Connection, P], T]

DEFAULT_POOL_SIZE = 10
SQLITE_READERS = 2  # processes (each with its own connection) for long SQLite reads
# PostgreSQL: one key for the advisory lock that lets one process at a time create or upgrade the schema.
SCHEMA_LOCK = 0x5155_4555_4445_534B
# "1": on SQLite, a second SQL statement in `Database.statement` fails before it runs (the tests set it).
STATEMENT_GUARD_ENV = "QUEUEDESK_STATEMENT_GUARD"


class DatabaseUnavailable(Exception):
    """The database cannot be reached (at start, or while serving); the message says why."""


class NotOneStatement(RuntimeError):
    """A unit of work run with `Database.statement` started a second SQL statement. SQLite runs it
    without BEGIN, so the two would not be atomic: run the unit with `write` (or `read`)."""


class Database(Protocol):
    dialect: str
    # Whether `statement` runs on the event loop's thread without yielding to it (SQLite): what
    # it reads is then as of a moment inside the loop's current turn.
    statement_within_turn: bool

    def change_stamp(self) -> tuple[int, int] | None:
        """A value that differs whenever anything was written to the database since it was
        taken, by anyone; None where the database cannot tell cheaply (PostgreSQL)."""
        ...

    async def read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...

    async def write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...

    async def statement(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn`, which executes exactly one SQL statement (read or write), atomically."""
        ...

    async def scan(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A read that may go through many rows: counting a backlog, skipping to a deep offset."""
        ...

    async def long_write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A write that may go through many rows (an import's commit, a flush), in one transaction
        that keeps others' reads going while it runs."""
        ...

    def writes_wait(self) -> bool:
        """Whether a write now would wait for a long one (SQLite: one writer at a time)."""
        ...

    def start_long_work(self) -> None:
        """Start now what long reads and writes will need (SQLite: a reader process), so that the
        first of them need not wait for it."""
        ...

    async def close(self) -> None: ...


def is_connection_error(exc: BaseException) -> bool:
    """An error that means "the database is not there right now", not a bug."""
    if isinstance(exc, DatabaseUnavailable | OSError | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    name = type(getattr(exc, "orig", None) or exc).__name__
    return "Connection" in name or "CannotConnectNow" in name or "AdminShutdown" in name


# --- SQLite ---------------------------------------------------------------------------------------


def sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise ValueError("QueueDesk needs a SQLite file, not an in-memory database")
    return Path(database)


def _sqlite_engine(url: str, *, readers: int = 0) -> Engine:
    """The one read-write connection; or, with `readers`, one read-only connection per thread."""
    if readers:
        engine = create_engine(
            url,
            poolclass=SingletonThreadPool,
            pool_size=readers,
            connect_args={"check_same_thread": False, "timeout": 30},
        )
    else:
        engine = create_engine(
            url, poolclass=StaticPool, connect_args={"check_same_thread": False, "timeout": 30}
        )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun and ended by SQLiteDatabase
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        # Unicode case folding for searches in task values (SQLite's lower() folds ASCII only).
        dbapi_connection.create_function("qd_fold", 1, _fold, deterministic=True)
        if readers:
            cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    return engine


def _fold(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


class _OneStatementGuard:
    """Watches one connection: SQLite reports each statement as it starts (the trace callback), and
    asks between steps of the running one whether to go on (the progress handler)."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def started(self, sql: str) -> None:
        if not sql.startswith("--"):  # a trigger's program, reported as a comment, is not a statement
            self.statements.append(sql)

    def interrupt(self) -> bool:
        return self.broken

    @property
    def broken(self) -> bool:
        return len(self.statements) > 1

    def describe(self, fn: Callable[..., Any]) -> str:
        ran = "; ".join(sql[:200] for sql in self.statements)
        name = getattr(fn, "__qualname__", repr(fn))
        return f"{name} ran {len(self.statements)} statements in Database.statement, which allows one: {ran}"


CHECKPOINT_EVERY_SECONDS = 0.5
LONG_WORK_NICENESS = 10  # the work processes' niceness: the serving process's requests come first


class SQLiteDatabase:
    """Runs each unit of work on the calling thread — the event loop's — on one connection.

    A unit of work on SQLite takes tens of microseconds (WAL, no fsync per commit), less than the
    hop to a worker thread and back would cost; and one connection on one thread needs no locking
    inside the process. The transaction is begun and ended here on the driver's connection, which
    costs a fraction of opening a SQLAlchemy transaction per request. The price: one long query (a
    deep offset, say) holds up the others while it runs, and a second process writing the same
    file makes this one wait — SQLite is for one `serve` process; several use PostgreSQL.
    """

    dialect = "sqlite"
    statement_within_turn = True

    def __init__(self, url: str) -> None:
        path = sqlite_path(url)
        private_directory(path.parent, tighten_existing=path.parent == default_data_directory())
        private_file(path)  # before SQLite opens it: its WAL and shared memory take its permissions
        self.path = path
        self._engine = _sqlite_engine(url)
        self._checkpointing: asyncio.Task[None] | None = None
        # Driver-level autocommit: SQLAlchemy emits no BEGIN or COMMIT of its own on this connection.
        self._conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        # pysqlite's DBAPI connection is the standard library's own.
        self._driver = cast(sqlite3.Connection, self._conn.connection.dbapi_connection)
        self._readers = WorkProcesses(
            functools.partial(_sqlite_engine, url, readers=1), SQLITE_READERS, LONG_WORK_NICENESS, "BEGIN"
        )
        self._guard_statements = os.environ.get(STATEMENT_GUARD_ENV) == "1"
        # Held while a long write runs in its own process and connection: a write on the loop's
        # connection would otherwise wait for SQLite's lock inside the driver, holding up the loop.
        self._long_write_running = asyncio.Lock()
        self._long_writer = WorkProcesses(
            functools.partial(_sqlite_engine, url), 1, LONG_WORK_NICENESS, "BEGIN IMMEDIATE"
        )

    def change_stamp(self) -> tuple[int, int] | None:
        # The loop connection's own changes, and the data version, which moves with every commit
        # made on any other connection (the long writer's, another process's).
        driver = self._driver
        (version,) = driver.execute("PRAGMA data_version").fetchone()
        return driver.total_changes, version

    def _run(self, begin: str, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return in_transaction(self._conn, self._driver, begin, fn, *args, **kwargs)

    async def read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run("BEGIN", fn, *args, **kwargs)

    async def write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        if self._long_write_running.locked():
            async with self._long_write_running:
                return self._run("BEGIN IMMEDIATE", fn, *args, **kwargs)
        return self._run("BEGIN IMMEDIATE", fn, *args, **kwargs)

    async def long_write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        async with self._long_write_running:
            return await self._long_writer.run(fn, *args, **kwargs)

    async def statement(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        # One statement is a transaction of its own in SQLite's autocommit mode: atomic, and rolled
        # back by SQLite itself if it fails. Saves the BEGIN and COMMIT round trips into the driver.
        # It does not wait for a long write (the one statement served is the access version's read,
        # which WAL serves beside a writer): a write here meanwhile would wait inside the driver.
        if self._guard_statements:
            return self._one_statement(fn, *args, **kwargs)
        return fn(self._conn, *args, **kwargs)

    def _one_statement(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn`, with a second statement interrupted before it changes anything, and NotOneStatement."""
        guard = _OneStatementGuard()
        driver = self._driver
        driver.set_trace_callback(guard.started)
        driver.set_progress_handler(guard.interrupt, 1)
        try:
            result = fn(self._conn, *args, **kwargs)
        except Exception as exc:
            if guard.broken:
                raise NotOneStatement(guard.describe(fn)) from exc
            raise
        finally:
            driver.set_trace_callback(None)
            driver.set_progress_handler(None, 0)
        if guard.broken:  # the interruption was caught and ignored inside `fn`
            raise NotOneStatement(guard.describe(fn))
        return result

    async def scan(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        # A hop to a reader process costs a fraction of a millisecond (the work and its answer
        # pickled); a scan costs milliseconds of SQLite and Python the event loop need not wait for.
        return await self._readers.run(fn, *args, **kwargs)

    def writes_wait(self) -> bool:
        return self._long_write_running.locked()

    def start_long_work(self) -> None:
        self._readers.start_one()
        # Serving, the loop's commits no longer checkpoint: SQLite would copy the WAL into the file
        # and sync both, on the loop, at whichever commit found the WAL past 1,000 pages (every
        # couple of hundred writes; after a long write, its tens of megabytes). A reader does it.
        self._driver.execute("PRAGMA wal_autocheckpoint=0")
        self._checkpointing = asyncio.get_running_loop().create_task(self._keep_checkpointing())

    async def _keep_checkpointing(self) -> None:
        """Checkpoint what the loop's connection wrote, every `CHECKPOINT_EVERY_SECONDS` it wrote
        something. A passive checkpoint waits for nobody and nobody waits for it. The long writer's
        own commits checkpoint in its process as SQLite does by default: not a second one meanwhile."""
        written = self._driver.total_changes
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY_SECONDS)
            if self._driver.total_changes == written or self._long_write_running.locked():
                continue
            written = self._driver.total_changes
            try:
                await self._readers.checkpoint()
            except Exception:  # the next round tries again; the WAL meanwhile only grows
                log.exception("checkpoint failed")

    async def close(self) -> None:
        if self._checkpointing is not None:
            self._checkpointing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointing
        self._readers.close()
        self._long_writer.close()
        self._conn.close()
        self._engine.dispose()


# --- PostgreSQL -------------------------------------------------------------------------------------


class PostgresDatabase:
    dialect = "postgresql"
    statement_within_turn = False

    def __init__(self, url: str, pool_size: int = DEFAULT_POOL_SIZE) -> None:
        from sqlalchemy.ext.asyncio import create_async_engine  # needs the postgres extra (greenlet)

        self._engine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=max(2, pool_size // 2),
            pool_pre_ping=True,  # a connection that died with the server is replaced, not handed out
            pool_timeout=10,
            connect_args={"timeout": 10, "command_timeout": 60},
        )

    def change_stamp(self) -> tuple[int, int] | None:
        return None

    async def _run(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        async with self._engine.begin() as conn:
            return await conn.run_sync(fn, *args, **kwargs)

    async def read(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(fn, *args, **kwargs)

    async def write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(fn, *args, **kwargs)

    async def statement(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(fn, *args, **kwargs)

    async def scan(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(fn, *args, **kwargs)

    async def long_write(self, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(fn, *args, **kwargs)  # a pooled connection of its own already

    def writes_wait(self) -> bool:
        return False  # a long write holds its own rows only

    def start_long_work(self) -> None:
        pass  # the pool's connections are made as they are needed

    async def close(self) -> None:
        await self._engine.dispose()


def _locked_upgrade(conn: Connection) -> tuple[int, int]:
    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
    return schema.upgrade(conn)


# --- opening -----------------------------------------------------------------------------------------


def normalize_url(url: str) -> str:
    """Accept `sqlite:///file.db` and `postgresql://...` as users write them."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def describe(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        return make_url(normalize_url(url)).render_as_string(hide_password=True)
    except Exception:
        return url


async def open_database(url: str, *, pool_size: int = DEFAULT_POOL_SIZE) -> SQLiteDatabase | PostgresDatabase:
    """Open the database at `url`, creating or upgrading its schema; DatabaseUnavailable when it cannot."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        database: SQLiteDatabase | PostgresDatabase = SQLiteDatabase(url)
        upgrade: Work[[], tuple[int, int]] = schema.upgrade
    elif url.startswith("postgresql+asyncpg://"):
        try:
            database = PostgresDatabase(url, pool_size)
        except ImportError as exc:
            raise ValueError(
                f"PostgreSQL support is not installed ({exc}): pip install 'queuedesk[postgres]'"
            ) from None
        upgrade = _locked_upgrade
    else:
        raise ValueError(
            f"unsupported database URL {url!r}: use sqlite:///path/file.db or postgresql://user@host/name"
        )
    try:
        await database.write(upgrade)
    except schema.SchemaTooNew:
        await database.close()
        raise
    except Exception as exc:
        await database.close()
        if is_connection_error(exc):
            cause = getattr(exc, "orig", None) or exc
            raise DatabaseUnavailable(f"cannot reach the database {describe(url)}: {cause}") from exc
        raise
    return database


async def run_once(url: str, fn: Work[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Open the database, run one unit of work in a write transaction, close it."""
    database = await open_database(url, pool_size=1)
    try:
        return await database.write(fn, *args, **kwargs)
    finally:
        await database.close()
