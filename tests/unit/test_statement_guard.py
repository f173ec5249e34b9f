"""`Database.statement` runs one SQL statement without BEGIN on SQLite; under tests a second one in
the same unit of work fails before it changes anything, instead of quietly not being atomic."""

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from queuedesk.server.store.database import (
    STATEMENT_GUARD_ENV,
    NotOneStatement,
    SQLiteDatabase,
    open_database,
)
from queuedesk.server.store.sql import Sql, one, run

INSERT = Sql("INSERT INTO guarded (x) VALUES (:x)")


async def _database(path: Path) -> SQLiteDatabase:
    db = await open_database(f"sqlite:///{path}")
    assert isinstance(db, SQLiteDatabase)
    await db.write(lambda conn: conn.execute(text("CREATE TABLE guarded (x INTEGER)")))
    return db


@pytest.fixture
async def guarded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[SQLiteDatabase]:
    monkeypatch.setenv(STATEMENT_GUARD_ENV, "1")
    db = await _database(tmp_path / "guarded.db")
    yield db
    await db.close()


def _rows(conn: Connection) -> list[int]:
    return [row[0] for row in conn.execute(text("SELECT x FROM guarded ORDER BY x"))]


def _two_inserts(conn: Connection) -> None:
    run(conn, INSERT, x=1)
    run(conn, INSERT, x=2)


def _insert_then_core_insert(conn: Connection) -> None:
    run(conn, INSERT, x=1)
    conn.execute(text("INSERT INTO guarded (x) VALUES (2)"))


def _insert_swallowing_errors(conn: Connection) -> None:
    run(conn, INSERT, x=1)
    with contextlib.suppress(Exception):
        run(conn, INSERT, x=2)


def test_the_tests_run_with_the_guard() -> None:
    assert os.environ.get(STATEMENT_GUARD_ENV) == "1"


async def test_one_statement_runs_and_answers(guarded: SQLiteDatabase) -> None:
    run_once = await guarded.statement(run, INSERT, x=7)
    assert run_once == 1
    assert await guarded.statement(one, Sql("SELECT count(*) FROM guarded")) == (1,)
    assert await guarded.read(_rows) == [7]


@pytest.mark.parametrize("work", [_two_inserts, _insert_then_core_insert, _insert_swallowing_errors])
async def test_a_second_statement_fails_before_it_changes_anything(guarded: SQLiteDatabase, work) -> None:
    with pytest.raises(NotOneStatement, match=rf"{work.__name__} ran 2 statements"):
        await guarded.statement(work)
    assert await guarded.read(_rows) == [1]  # the first ran (on its own, as SQLite commits it)
    # the connection is left as it was: no transaction open, the guard off for other work
    await guarded.write(_two_inserts)
    assert await guarded.read(_rows) == [1, 1, 2]


async def test_without_the_guard_both_statements_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the guard is for: unguarded, nothing stops the second statement (nor makes it atomic)."""
    monkeypatch.delenv(STATEMENT_GUARD_ENV)
    db = await _database(tmp_path / "unguarded.db")
    try:
        await db.statement(_two_inserts)
        assert await db.read(_rows) == [1, 2]
    finally:
        await db.close()
