"""Claims and completions of one turn are written in one SQLite transaction, each in a savepoint
(`server/jobs/turn_writes.py`): every unit sees the ones before it, a refused unit undoes only its
own statements, and any other failure has each unit tried on its own, so only the failing one fails.

Each case is a table row: the units of one turn (what each writes, then whether it is refused or
fails), and what must be stored and answered afterwards."""

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection

from queuedesk.server.jobs.turn_writes import TurnWrites
from queuedesk.server.rules.refusals import NotAssignee
from queuedesk.server.store.database import SQLiteDatabase, open_database
from queuedesk.server.store.sql import Sql, rows, run

MAKE = Sql("CREATE TABLE IF NOT EXISTS turn_marks (name TEXT PRIMARY KEY)")
MARK = Sql("INSERT INTO turn_marks (name) VALUES (:name)")
MARKS = Sql("SELECT name FROM turn_marks ORDER BY name")


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[SQLiteDatabase]:
    db = await open_database(f"sqlite:///{tmp_path / 'turn.db'}")
    assert isinstance(db, SQLiteDatabase)
    await db.write(lambda conn: run(conn, MAKE))
    yield db
    await db.close()


def unit(conn: Connection, name: str, outcome: str) -> list[str]:
    """Write a mark, then: "ok" (answer the marks seen so far), "refused" (a refusal of the rules
    of work), "broken" (any other failure), "duplicate" (SQLite refuses a mark already written)."""
    run(conn, MARK, name=name)
    if outcome == "refused":
        raise NotAssignee(1)
    if outcome == "broken":
        raise RuntimeError(name)
    if outcome == "duplicate":
        run(conn, MARK, name=name)
    return [row[0] for row in rows(conn, MARKS)]


CASES = [
    # units of one turn                                   stored afterwards        answers
    ([("a", "ok"), ("b", "ok"), ("c", "ok")], ["a", "b", "c"], [["a"], ["a", "b"], ["a", "b", "c"]]),
    ([("a", "ok"), ("b", "refused"), ("c", "ok")], ["a", "c"], [["a"], NotAssignee, ["a", "c"]]),
    ([("a", "refused"), ("b", "refused")], [], [NotAssignee, NotAssignee]),
    ([("a", "ok"), ("b", "broken"), ("c", "ok")], ["a", "c"], [["a"], RuntimeError, ["a", "c"]]),
    (
        [("a", "ok"), ("b", "duplicate"), ("c", "refused"), ("d", "ok")],
        ["a", "d"],
        [["a"], sqlite3.IntegrityError, NotAssignee, ["a", "d"]],
    ),
    ([("a", "broken")], [], [RuntimeError]),
    ([("a", "ok")], ["a"], [["a"]]),
]


@pytest.mark.parametrize(("units", "stored", "answers"), CASES)
async def test_a_turns_units_share_a_transaction_and_each_keeps_its_own_outcome(
    database: SQLiteDatabase, units: list[tuple[str, str]], stored: list[str], answers: list[Any]
) -> None:
    transactions = 0
    write = database.write

    async def counted(fn, *args):  # type: ignore[no-untyped-def]
        nonlocal transactions
        transactions += 1
        return await write(fn, *args)

    database.write = counted  # type: ignore[method-assign]
    writes = TurnWrites(database)
    got = await asyncio.gather(
        *(writes.write(unit, name, outcome) for name, outcome in units), return_exceptions=True
    )
    for answer, expected in zip(got, answers, strict=True):
        if isinstance(expected, type):
            assert isinstance(answer, expected), (answer, expected)
        else:
            assert answer == expected
    assert await database.read(lambda conn: [row[0] for row in rows(conn, MARKS)]) == stored
    failed_alone = any(outcome in ("broken", "duplicate") for _, outcome in units) and len(units) > 1
    # One transaction for the turn; after another failure, one more for each unit on its own.
    assert transactions == 1 + (len(units) if failed_alone else 0)


async def test_units_of_later_turns_get_transactions_of_their_own(database: SQLiteDatabase) -> None:
    writes = TurnWrites(database)
    first = await asyncio.gather(writes.write(unit, "a", "ok"), writes.write(unit, "b", "ok"))
    second = await writes.write(unit, "c", "ok")
    assert first == [["a"], ["a", "b"]]
    assert second == ["a", "b", "c"]


async def test_a_unit_whose_request_went_away_before_its_turn_ended_is_not_run(
    database: SQLiteDatabase,
) -> None:
    writes = TurnWrites(database)
    gone = asyncio.ensure_future(writes.write(unit, "gone", "ok"))
    kept = asyncio.ensure_future(writes.write(unit, "kept", "ok"))
    await asyncio.sleep(0)  # both are waiting for the end of the turn
    gone.cancel()
    assert await kept == ["kept"]
    assert await database.read(lambda conn: [row[0] for row in rows(conn, MARKS)]) == ["kept"]
