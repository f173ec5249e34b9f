"""Bulk data for tests and benchmarks: tasks written straight into a QueueDesk database, the queue's
counters (`completed_count`, `n_tasks`) kept as the server keeps them.

Going through the API would take minutes for the volumes some tests need (20,000 tasks) and the
benchmarks need (1,000,000); the rows are made with the same tables and value encodings the server
uses, and everything that reads them afterwards goes over HTTP to a real server.
"""

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, insert, select, update

from queuedesk.api.timestamps import utcnow
from queuedesk.server.store.database import open_database
from queuedesk.server.store.tables import queues, tasks, users

BATCH = 10_000


def fill_completed(
    db_url: str,
    queue_id: int,
    count: int,
    completed_by: str,
    data: Callable[[int], dict[str, Any]],
    source: str = "manual",
) -> None:
    """`count` completed tasks in `queue_id`, completed one millisecond apart, newest last."""
    asyncio.run(_fill(db_url, queue_id, count, completed_by, data, source))


async def _fill(
    db_url: str,
    queue_id: int,
    count: int,
    completed_by: str,
    data: Callable[[int], dict[str, Any]],
    source: str,
) -> None:
    database = await open_database(db_url)
    start = utcnow() - timedelta(milliseconds=count)

    def user_id(conn: Connection) -> int:
        return conn.execute(select(users.c.id).where(users.c.email == completed_by)).scalar_one()

    assignee = await database.read(user_id)
    for first in range(0, count, BATCH):
        rows = [
            {
                "queue_id": queue_id,
                "status": "completed",
                "data": data(n),
                "source": source,
                "created_at": start + timedelta(milliseconds=n),
                "completed_at": start + timedelta(milliseconds=n, microseconds=500),
                "completed_by": completed_by,
                "assigned_to": assignee,
                "assigned_at": start + timedelta(milliseconds=n),
            }
            for n in range(first, min(first + BATCH, count))
        ]
        await database.write(lambda conn, rows=rows: conn.execute(insert(tasks), rows))
    await database.write(
        lambda conn: conn.execute(
            update(queues)
            .where(queues.c.id == queue_id)
            .values(completed_count=queues.c.completed_count + count)
        )
    )
    await database.close()


def fill_new(db_url: str, queue_id: int, count: int, data: Callable[[int], dict[str, Any]]) -> None:
    """`count` new (unclaimed) tasks in `queue_id`."""
    asyncio.run(_fill_new(db_url, queue_id, count, data))


async def _fill_new(db_url: str, queue_id: int, count: int, data: Callable[[int], dict[str, Any]]) -> None:
    database = await open_database(db_url)
    now = utcnow()
    for first in range(0, count, BATCH):
        rows = [
            {"queue_id": queue_id, "status": "new", "data": data(n), "source": "manual", "created_at": now}
            for n in range(first, min(first + BATCH, count))
        ]
        await database.write(lambda conn, rows=rows: _insert_pending(conn, queue_id, rows))
    await database.close()


def _insert_pending(conn: Connection, queue_id: int, rows: list[dict[str, Any]]) -> None:
    """The rows and the queue's pending count, in one transaction (as the server's import does)."""
    conn.execute(insert(tasks), rows)
    conn.execute(update(queues).where(queues.c.id == queue_id).values(n_tasks=queues.c.n_tasks + len(rows)))
