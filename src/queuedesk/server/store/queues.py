"""Queues, with `n_tasks` and `active_users` computed from the tasks on every read."""

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, func, select, update

from queuedesk.api.models import Block
from queuedesk.server.store.deliveries import ensure_secret
from queuedesk.server.store.records import QueueRecord
from queuedesk.server.store.tables import queues, tasks, users

PENDING = ("new", "open", "in_progress")


def _record(row: Row[Any]) -> QueueRecord:
    raw = row.blocks
    return QueueRecord(
        id=row.id,
        organization_id=row.organization_id,
        name=row.name,
        description=row.description,
        blocks=[Block.model_validate(b) for b in raw],
        raw_blocks=raw,
        created_at=row.created_at,
        webhook_target=row.webhook_target,
    )


def get_queue(conn: Connection, organization_id: int, queue_id: int) -> QueueRecord | None:
    row = conn.execute(
        select(queues).where(queues.c.id == queue_id, queues.c.organization_id == organization_id)
    ).first()
    return None if row is None else _record(row)


def find_queue_by_name(conn: Connection, organization_id: int, name: str) -> QueueRecord | None:
    row = conn.execute(
        select(queues).where(queues.c.organization_id == organization_id, queues.c.name == name)
    ).first()
    return None if row is None else _record(row)


def _pending_counts(conn: Connection, queue_ids: list[int]) -> dict[int, int]:
    rows = conn.execute(
        select(tasks.c.queue_id, func.count())
        .where(tasks.c.queue_id.in_(queue_ids), tasks.c.status.in_(PENDING))
        .group_by(tasks.c.queue_id)
    )
    return {queue_id: count for queue_id, count in rows}


def _active_users(conn: Connection, queue_ids: list[int], now: datetime) -> dict[int, list[str]]:
    rows = conn.execute(
        select(tasks.c.queue_id, users.c.name)
        .distinct()
        .select_from(tasks.join(users, tasks.c.assigned_to == users.c.id))
        .where(
            tasks.c.queue_id.in_(queue_ids),
            tasks.c.status == "in_progress",
            tasks.c.lease_expires_at > now,
        )
    )
    active: dict[int, list[str]] = defaultdict(list)
    for queue_id, name in rows:
        active[queue_id].append(name)
    return {queue_id: sorted(names) for queue_id, names in active.items()}


def _summaries(conn: Connection, rows: list[Row[Any]], now: datetime) -> list[dict[str, Any]]:
    ids = [row.id for row in rows]
    counts = _pending_counts(conn, ids) if ids else {}
    active = _active_users(conn, ids, now) if ids else {}
    return [
        {
            "id": row.id,
            "name": row.name,
            "created_at": row.created_at,
            "n_tasks": counts.get(row.id, 0),
            "active_users": active.get(row.id, []),
        }
        for row in rows
    ]


def list_queues(conn: Connection, organization_id: int, now: datetime) -> list[dict[str, Any]]:
    rows = list(
        conn.execute(
            select(queues.c.id, queues.c.name, queues.c.created_at)
            .where(queues.c.organization_id == organization_id)
            .order_by(queues.c.id)
        )
    )
    return _summaries(conn, rows, now)


def queue_detail(conn: Connection, queue: QueueRecord, now: datetime) -> dict[str, Any]:
    row = conn.execute(
        select(queues.c.id, queues.c.name, queues.c.created_at).where(queues.c.id == queue.id)
    ).one()
    summary = _summaries(conn, [row], now)[0]
    return {**summary, "description": queue.description, "data": queue.raw_blocks}


def create_queue(
    conn: Connection,
    organization_id: int,
    name: str,
    description: str,
    blocks: list[dict[str, Any]],
    now: datetime,
    webhook_target: str | None = None,
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
        )
        .returning(queues.c.id)
    ).scalar_one()
    if webhook_target:
        ensure_secret(conn, queue_id)
    record = get_queue(conn, organization_id, queue_id)
    assert record is not None
    return record


def update_queue(conn: Connection, queue_id: int, changes: dict[str, Any]) -> None:
    if changes:
        conn.execute(update(queues).where(queues.c.id == queue_id).values(**changes))


def set_webhook(conn: Connection, queue_id: int, target: str | None) -> None:
    conn.execute(update(queues).where(queues.c.id == queue_id).values(webhook_target=target))
    if target:
        ensure_secret(conn, queue_id)
