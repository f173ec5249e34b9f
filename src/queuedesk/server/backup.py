"""Backing up and restoring a SQLite database; PostgreSQL has its own tools, named here.

A backup is SQLite's online backup API copying the whole file in one step: the copy reads one
snapshot (one read transaction), so it holds every transaction committed before it began and none
half-way, while the server goes on writing (in WAL mode a reader blocks no writer). Copied in many
small steps instead, SQLite would start over whenever the server wrote in between, and under steady
work might never finish.

A restore never touches the database until the backup has passed `PRAGMA integrity_check` and its
schema version is one this QueueDesk knows; an older one is upgraded on a scratch copy first, so
the database is replaced at most once, by a complete database of the current version.
"""

import contextlib
import glob
import os
import shlex
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError

from queuedesk.server.private_files import private_file
from queuedesk.server.store import schema
from queuedesk.server.store.schema_check import schema_differences

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT = 30.0


class BackupError(Exception):
    """Why a backup or restore was refused or failed; nothing was replaced."""


@dataclass(frozen=True)
class Summary:
    version: int
    tasks: int


@dataclass(frozen=True)
class Restored:
    found_version: int
    summary: Summary
    kept: Path | None  # where the replaced database was kept


def _scratch(near: Path, purpose: str) -> Path:
    """A private file beside `near` for this process's work; leftovers of killed runs removed first."""
    _remove_leftovers(near, purpose)
    return near.with_name(f".{near.name}.{purpose}-{os.getpid()}")


def _remove_leftovers(near: Path, purpose: str) -> None:
    """Scratch files that a backup or restore killed half-way left beside `near` (its process gone)."""
    prefix = f".{near.name}.{purpose}-"
    for leftover in near.parent.glob(f"{glob.escape(prefix)}*"):
        pid = leftover.name.removeprefix(prefix)
        if pid.isdigit() and not _running(int(pid)):
            _remove(leftover)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _remove(path: Path) -> None:
    for leftover in (path, Path(f"{path}-journal"), Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)


@contextlib.contextmanager
def _connect(
    path: Path, *, timeout: float = BUSY_TIMEOUT, read_only: bool = False
) -> Iterator[sqlite3.Connection]:
    if not read_only:
        private_file(path)  # created 0600 before SQLite writes a page of it (or a journal beside it)
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        if read_only:
            conn.execute("PRAGMA query_only=ON")
        yield conn
    finally:
        conn.close()


def summarize(conn: sqlite3.Connection, name: str) -> Summary:
    """Integrity, schema version and task count of a QueueDesk database; BackupError when it fails."""
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise BackupError(f"{name} fails PRAGMA integrity_check: {'; '.join(problems[:5])}")
        version = conn.execute("SELECT version FROM schema_version").fetchone()
        tasks = conn.execute("SELECT count(*) FROM tasks").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{name} is not a QueueDesk database ({exc})") from None
    if version is None:
        raise BackupError(f"{name} is not a QueueDesk database (its schema has no version)")
    return Summary(version[0], tasks)


# --- backup ---------------------------------------------------------------------------------------


def backup(database: Path, target: Path, *, force: bool) -> Summary:
    """Copy the database at `database` (possibly being served) to `target`, a file of its own."""
    if not database.is_file():
        raise BackupError(f"there is no database at {database}")
    if target.exists() and target.resolve() == database.resolve():
        raise BackupError(f"{target} is the database itself: name another file")
    if target.exists() and not force:
        raise BackupError(f"{target} exists: name another file, or pass --force to replace it")
    if target.is_dir():
        raise BackupError(f"{target} is a directory: name a file")
    scratch = _scratch(target, "partial")
    _remove(scratch)
    try:
        with _connect(database, read_only=True) as source, _connect(scratch) as copy:
            source.backup(copy)  # every page in one step: one snapshot
            copy.execute("PRAGMA journal_mode=DELETE")  # the copy is one self-contained file
            summary = summarize(copy, str(target))
        os.replace(scratch, target)
    except sqlite3.Error as exc:
        raise BackupError(f"the backup of {database} failed: {exc}") from None
    finally:
        _remove(scratch)
    return summary


# --- restore --------------------------------------------------------------------------------------


def read_backup(path: Path) -> Summary:
    """The backup's schema version and task count, once it has passed the integrity check."""
    if not path.is_file():
        raise BackupError(f"there is no backup at {path}")
    with path.open("rb") as file:
        if file.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise BackupError(f"{path} is not a SQLite database")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {path}: {exc}") from None
    try:
        summary = summarize(conn, str(path))
    finally:
        conn.close()
    if summary.version > schema.LATEST:
        raise BackupError(
            f"{path} is at schema version {summary.version}, newer than this QueueDesk knows "
            f"({schema.LATEST}): restore it with the QueueDesk that made it, or upgrade QueueDesk"
        )
    return summary


def _upgrade_and_check(path: Path, name: str) -> None:
    """Bring the copy to the latest schema; BackupError unless it then has every table, column and
    index the current schema has."""
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            schema.upgrade(conn)
            differences = schema_differences(conn)
    except SQLAlchemyError as exc:
        raise BackupError(f"{name} cannot be upgraded to schema version {schema.LATEST}: {exc}") from None
    finally:
        engine.dispose()
    if differences:
        shown = "; ".join(differences[:5]) + (
            f"; and {len(differences) - 5} more" if len(differences) > 5 else ""
        )
        raise BackupError(f"{name} does not hold QueueDesk's schema: {shown}; nothing was replaced")


@contextlib.contextmanager
def exclusive(database: Path) -> Iterator[sqlite3.Connection]:
    """The database, held so that no other connection can open it until the block ends.

    Leaving WAL mode needs every other connection closed, and a running `queuedesk serve` keeps one
    open for as long as it runs (idle or not) — so failing here means a server, or some other
    program, has the file open. Exclusive locking mode then keeps the lock until we let go: a
    server started meanwhile waits, rather than reading a half-restored file.
    """
    private_file(database)
    conn = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        conn.close()
        if "locked" in str(exc) or "busy" in str(exc):
            raise BackupError(
                f"{database} is in use by another process (is `queuedesk serve` running on it?): "
                "stop the server first, then restore"
            ) from None
        raise BackupError(f"cannot open {database}: {exc}") from None
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise BackupError(f"{database} is not a SQLite database ({exc}); nothing was replaced") from None
    try:
        yield conn
    finally:
        conn.close()


def restore(backup_path: Path, database: Path, *, keep: bool, now: datetime) -> Restored:
    """Replace `database` with the backup at `backup_path` (upgraded when older)."""
    found = read_backup(backup_path)
    if database.exists() and database.resolve() == backup_path.resolve():
        raise BackupError(f"{backup_path} is the database itself: nothing to restore")
    database.parent.mkdir(parents=True, exist_ok=True)
    existed = database.exists()
    scratch = _scratch(database, "restoring")
    _remove(scratch)
    kept: Path | None = None
    restored = False
    try:
        with exclusive(database) as target:
            with _connect(backup_path, read_only=True) as source, _connect(scratch) as copy:
                source.backup(copy)
            _upgrade_and_check(scratch, str(backup_path))
            has_tables = target.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
            if keep and has_tables:
                kept = database.with_name(f"{database.name}.replaced-{now.strftime('%Y%m%dT%H%M%SZ')}")
                with _connect(kept) as copy:
                    target.backup(copy)
            with _connect(scratch, read_only=True) as upgraded:
                upgraded.backup(target)
            summary = summarize(target, str(database))
            restored = True
    except sqlite3.Error as exc:
        raise BackupError(f"the restore into {database} failed: {exc}") from None
    finally:
        _remove(scratch)
        if not existed and not restored:
            _remove(database)  # the empty file the attempt made
    return Restored(found.version, summary, kept)


# --- PostgreSQL -----------------------------------------------------------------------------------


def _plain_url(url: str) -> tuple[str, bool]:
    """The URL as libpq takes it (no driver, no password) and whether it had a password."""
    parsed = make_url(url)
    plain = URL.create(
        "postgresql", parsed.username, None, parsed.host, parsed.port, parsed.database, parsed.query
    )
    return plain.render_as_string(hide_password=False), parsed.password is not None


def postgres_advice(url: str, file: str, *, restoring: bool) -> str:
    plain, had_password = _plain_url(url)
    if restoring:
        command = (
            f"pg_restore --clean --if-exists --no-owner --dbname={shlex.quote(plain)} {shlex.quote(file)}"
        )
        what = "restore it with pg_restore (QueueDesk upgrades an older schema when `serve` starts)"
    else:
        command = f"pg_dump --format=custom --file={shlex.quote(file)} {shlex.quote(plain)}"
        what = "back it up with pg_dump (a consistent snapshot while servers run)"
    lines = [f"this database is PostgreSQL: {what}:", f"  {command}"]
    if had_password:
        lines.append("  (give the password in PGPASSWORD or ~/.pgpass, not on the command line)")
    return "\n".join(lines)
