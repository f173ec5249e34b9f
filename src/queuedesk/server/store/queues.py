"""Queues, with `n_tasks` read from the queue's counter (kept by every change of a task's state in
`store/tasks.py`) and `active_users` from the live claims on every read."""

from collections import defaultdict
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, update

from queuedesk.api.models import Block
from queuedesk.server.store import access_version
from queuedesk.server.store.deliveries import ensure_secret
from queuedesk.server.store.records import QueueRecord
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.tables import queues
from queuedesk.server.store.types import from_micros, to_micros


@lru_cache(maxsize=4096)
def _parse_blocks(raw: str) -> tuple[list[Block], list[dict[str, Any]]]:
    """Blocks parsed once per distinct definition, not on every request."""
    loaded = orjson.loads(raw)
    return [Block.model_validate(b) for b in loaded], loaded


# B22: a queue with a gold share or gold tasks. Gold is served only under a share, so a queue that
# has neither holds no gold claim and its B4 and B7 need no gold statement. The record is kept while
# the access version stands still: a change of `gold_percent` moves it (`update_queue`); a gold task
# created in a queue without a share needs no new record, as none is served until a share is set.
# (A gold claim needs a gold task committed before it, so a record read after a share went back to
# 0 still sees the task its holder holds.)
GOLD_USED = """(gold_percent > 0 OR EXISTS (SELECT 1 FROM tasks g WHERE g.queue_id = queues.id
    AND g.status = 'gold'))"""
QUEUE = Sql(
    f"""SELECT id, organization_id, name, description, blocks, created_at, webhook_target, consensus,
    consensus_used, {GOLD_USED} FROM queues WHERE id = :queue_id AND organization_id = :org_id"""
)
QUEUE_BY_NAME = Sql(
    f"""SELECT id, organization_id, name, description, blocks, created_at, webhook_target, consensus,
    consensus_used, {GOLD_USED} FROM queues WHERE name = :name AND organization_id = :org_id"""
)


def _record(row: tuple[Any, ...]) -> QueueRecord:
    blocks, raw = _parse_blocks(row[4])
    return QueueRecord(
        id=row[0],
        organization_id=row[1],
        name=row[2],
        description=row[3],
        blocks=blocks,
        raw_blocks=raw,
        created_at=from_micros(row[5]),
        webhook_target=row[6],
        consensus=None if row[7] is None else orjson.loads(row[7]),
        consensus_used=bool(row[8]),
        gold_used=bool(row[9]),
    )


def get_queue(conn: Connection, organization_id: int, queue_id: int) -> QueueRecord | None:
    row = one(conn, QUEUE, queue_id=queue_id, org_id=organization_id)
    return None if row is None else _record(row)


def find_queue_by_name(conn: Connection, organization_id: int, name: str) -> QueueRecord | None:
    row = one(conn, QUEUE_BY_NAME, name=name, org_id=organization_id)
    return None if row is None else _record(row)


# n_tasks is the queue's counter: counting a backlog of 1,000,000 on every listing took 168 ms.
QUEUES = Sql(
    "SELECT id, name, created_at, n_tasks, review_percent, gold_percent FROM queues WHERE organization_id = :org_id "
    "ORDER BY id"
)
# Live claims of tasks and of gold tasks (B22: a worker on a gold task is as active as any other).
# With the moment each active user's last live claim lapses: the listing changes then, with no write.
ACTIVE_USERS = Sql(
    """SELECT q.id, u.name, max(t.lease_expires_at) FROM queues q
    JOIN tasks t ON t.queue_id = q.id AND t.status IN ('in_progress', 'gold')
    JOIN users u ON u.id = t.assigned_to WHERE q.organization_id = :org_id AND t.lease_expires_at > :now
    GROUP BY q.id, u.name"""
)
ONE_PENDING_COUNT = Sql(
    "SELECT n_tasks, review_percent, consensus, gold_percent FROM queues WHERE id = :queue_id"
)
ONE_ACTIVE_USERS = Sql(
    """SELECT DISTINCT u.name FROM tasks t JOIN users u ON u.id = t.assigned_to
    WHERE t.queue_id = :queue_id AND t.status IN ('in_progress', 'gold') AND t.lease_expires_at > :now"""
)


QueueSummaryRow = tuple[int, str, int, int, list[str], int, int]


class QueueListing(NamedTuple):
    queues: list[QueueSummaryRow]
    lapses_at: int | None  # micros: when the first active user's last live claim lapses


def list_queues(conn: Connection, organization_id: int, now: datetime) -> QueueListing:
    """(id, name, created_at as stored micros, n_tasks, active_users, review_percent,
    gold_percent) per queue:
    tuples, shaped once by `serialize.queue_summaries` (a dict here and another there cost more
    than the SQL on a listing of 100 queues)."""
    found = rows(conn, QUEUES, org_id=organization_id)
    if not found:
        return QueueListing([], None)
    active: dict[int, list[str]] = defaultdict(list)
    lapses_at = None
    for queue_id, name, lapses in rows(conn, ACTIVE_USERS, org_id=organization_id, now=to_micros(now)):
        active[queue_id].append(name)
        lapses_at = lapses if lapses_at is None else min(lapses_at, lapses)
    summaries = [
        (
            queue_id,
            name,
            created_at,
            pending,
            sorted(active[queue_id]) if queue_id in active else [],
            review,
            gold,
        )
        for queue_id, name, created_at, pending, review, gold in found
    ]
    return QueueListing(summaries, lapses_at)


def queue_detail(conn: Connection, queue: QueueRecord, now: datetime) -> dict[str, Any]:
    count = one(conn, ONE_PENDING_COUNT, queue_id=queue.id)
    active = sorted(name for (name,) in rows(conn, ONE_ACTIVE_USERS, queue_id=queue.id, now=to_micros(now)))
    return {
        "id": queue.id,
        "name": queue.name,
        "created_at": queue.created_at,
        "n_tasks": count[0] if count else 0,
        "active_users": active,
        "description": queue.description,
        "data": queue.raw_blocks,
        "review_percent": count[1] if count else 0,
        "consensus": orjson.loads(count[2]) if count and count[2] is not None else None,
        "gold_percent": count[3] if count else 0,
    }


def create_queue(
    conn: Connection,
    organization_id: int,
    name: str,
    description: str,
    blocks: list[dict[str, Any]],
    now: datetime,
    webhook_target: str | None = None,
    review_percent: int = 0,
    consensus: dict[str, Any] | None = None,
    gold_percent: int = 0,
) -> QueueRecord:
    queue_id = conn.execute(
        queues.insert()
        .values(
            organization_id=organization_id,
            name=name,
            description=description,
            blocks=blocks,
            created_at=now,
            webhook_target=webhook_target,
            review_percent=review_percent,
            consensus=consensus,
            consensus_used=consensus is not None,
            gold_percent=gold_percent,
        )
        .returning(queues.c.id)
    ).scalar_one()
    if webhook_target:
        ensure_secret(conn, queue_id)
    record = get_queue(conn, organization_id, queue_id)
    assert record is not None
    return record


# `gold_percent` is not among the columns whose change moves the access version by trigger
# (`access_version.WATCHED`), yet the kept queue record's `gold_used` follows it.
BUMP_IF_GOLD_CHANGES = Sql(
    f"""{access_version.BUMP} WHERE EXISTS (SELECT 1 FROM queues WHERE id = :queue_id
    AND gold_percent <> :gold_percent)"""
)


def update_queue(conn: Connection, queue_id: int, changes: dict[str, Any]) -> None:
    if "gold_percent" in changes:
        run(conn, BUMP_IF_GOLD_CHANGES, queue_id=queue_id, gold_percent=changes["gold_percent"])
    if changes:
        conn.execute(update(queues).where(queues.c.id == queue_id).values(**changes))


CURRENT_TARGET = Sql("SELECT webhook_target FROM queues WHERE id = :queue_id {lock}")
CURRENT_REVIEW_PERCENT = Sql("SELECT review_percent FROM queues WHERE id = :queue_id {lock}")
CURRENT_GOLD_PERCENT = Sql("SELECT gold_percent FROM queues WHERE id = :queue_id {lock}")
CURRENT_CONSENSUS = Sql("SELECT consensus FROM queues WHERE id = :queue_id")


def current_consensus(conn: Connection, queue_id: int) -> dict[str, Any] | None:
    """The queue's consensus settings as the database has them in this transaction (B21: a task is
    judged by the settings in force at each answer)."""
    found = one(conn, CURRENT_CONSENSUS, queue_id=queue_id)
    return None if found is None or found[0] is None else orjson.loads(found[0])


def current_review_percent(conn: Connection, queue_id: int) -> int:
    """The queue's review share as the database has it now (locked on PostgreSQL until the
    transaction ends): an update's audit event says what it was."""
    found = one(conn, CURRENT_REVIEW_PERCENT, queue_id=queue_id)
    return int(found[0]) if found else 0


def current_gold_percent(conn: Connection, queue_id: int) -> int:
    """The queue's gold share (B22) as the database has it now (locked on PostgreSQL until the
    transaction ends)."""
    found = one(conn, CURRENT_GOLD_PERCENT, queue_id=queue_id)
    return int(found[0]) if found else 0


def current_target(conn: Connection, queue_id: int) -> str | None:
    """The queue's webhook target as the database has it now (locked on PostgreSQL until the
    transaction ends), None when it has none."""
    found = one(conn, CURRENT_TARGET, queue_id=queue_id)
    return found[0] if found and found[0] else None


def set_webhook(conn: Connection, queue_id: int, target: str | None) -> str | None:
    """The queue's webhook is `target` now (None: none); the target it had before."""
    found = one(conn, CURRENT_TARGET, queue_id=queue_id)
    conn.execute(update(queues).where(queues.c.id == queue_id).values(webhook_target=target))
    if target:
        ensure_secret(conn, queue_id)
    return found[0] if found else None
