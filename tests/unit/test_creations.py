"""Creations that arrive together are written in one SQLite transaction (`server/jobs/creations.py`);
when that transaction fails, each is tried on its own, so only the failing creation fails."""

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from queuedesk.api.timestamps import utcnow
from queuedesk.server.jobs.creations import Creations
from queuedesk.server.store import accounts, queues
from queuedesk.server.store.database import SQLiteDatabase, open_database
from queuedesk.server.store.records import QueueRecord
from queuedesk.server.store.sql import Sql, one
from tests.support import CORE_BLOCKS

PENDING = Sql(
    "SELECT n_tasks, (SELECT count(*) FROM tasks WHERE queue_id = :queue_id) FROM queues WHERE id = :queue_id"
)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[SQLiteDatabase]:
    db = await open_database(f"sqlite:///{tmp_path / 'creations.db'}")
    assert isinstance(db, SQLiteDatabase)
    yield db
    await db.close()


async def _queue(db: SQLiteDatabase) -> QueueRecord:
    def make(conn) -> QueueRecord:  # type: ignore[no-untyped-def]
        org = accounts.create_organization(conn, "Creations", utcnow())
        return queues.create_queue(conn, org, "together", "", CORE_BLOCKS, utcnow())

    return await db.write(make)


async def test_creations_of_one_turn_share_a_transaction_and_each_gets_its_row(
    database: SQLiteDatabase,
) -> None:
    queue = await _queue(database)
    transactions = 0
    write = database.write

    async def counted(fn, *args):  # type: ignore[no-untyped-def]
        nonlocal transactions
        transactions += 1
        return await write(fn, *args)

    database.write = counted  # type: ignore[method-assign]
    creations = Creations(database)
    rows = await asyncio.gather(
        *(creations.create(queue, {"paragraph": f"p{n}"}, "api", utcnow()) for n in range(10))
    )
    assert transactions == 1
    assert [row["data"]["paragraph"] for row in rows] == [f"p{n}" for n in range(10)]
    assert len({row["id"] for row in rows}) == 10
    assert await database.read(lambda conn: one(conn, PENDING, queue_id=queue.id)) == (10, 10)


async def test_a_failing_creation_fails_alone(database: SQLiteDatabase) -> None:
    queue = await _queue(database)
    gone = replace(queue, id=queue.id + 1000)  # no such queue: its INSERT breaks the foreign key
    creations = Creations(database)
    good, bad, other = await asyncio.gather(
        creations.create(queue, {"paragraph": "good"}, "api", utcnow()),
        creations.create(gone, {"paragraph": "bad"}, "api", utcnow()),
        creations.create(queue, {"paragraph": "other"}, "api", utcnow()),
        return_exceptions=True,
    )
    assert isinstance(bad, sqlite3.IntegrityError)
    assert isinstance(good, dict) and good["data"]["paragraph"] == "good"
    assert isinstance(other, dict) and other["data"]["paragraph"] == "other"
    assert await database.read(lambda conn: one(conn, PENDING, queue_id=queue.id)) == (2, 2)
