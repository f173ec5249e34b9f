"""Tasks: creation, history, pending work, and the claim / heartbeat / release / complete cycle.

Every function here runs inside one transaction (see `database.py`); the claim is a conditional
update, so two workers can never be handed the same task, even on PostgreSQL where
`FOR UPDATE SKIP LOCKED` lets concurrent claims pass each other instead of waiting.
"""

from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import Connection, Select, and_, delete, func, or_, select, update

from queuedesk.api.blocks import validate_task_data
from queuedesk.server import serialize
from queuedesk.server.errors import conflict, invalid, not_found
from queuedesk.server.store import deliveries
from queuedesk.server.store.records import Page, Principal, QueueRecord
from queuedesk.server.store.tables import queues, tasks, users

PENDING = ("new", "open", "in_progress")
assignee = users.alias("assignee")


def _task_select() -> Select[Any]:
    return select(
        tasks,
        queues.c.name.label("queue_name"),
        assignee.c.email.label("assignee_email"),
        assignee.c.name.label("assignee_name"),
    ).select_from(
        tasks.join(queues, tasks.c.queue_id == queues.c.id).outerjoin(
            assignee, tasks.c.assigned_to == assignee.c.id
        )
    )


def _fetch(conn: Connection, task_ids: list[int]) -> list[dict[str, Any]]:
    """Full rows for these ids, in the order given."""
    if not task_ids:
        return []
    rows = conn.execute(_task_select().where(tasks.c.id.in_(task_ids)))
    by_id = {row.id: dict(row._mapping) for row in rows}
    return [by_id[i] for i in task_ids if i in by_id]


def get_task(conn: Connection, queue_id: int, task_id: int) -> dict[str, Any] | None:
    row = conn.execute(_task_select().where(tasks.c.id == task_id, tasks.c.queue_id == queue_id)).first()
    return None if row is None else dict(row._mapping)


def task_exists(conn: Connection, queue_id: int, task_id: int) -> bool:
    found = conn.execute(
        select(tasks.c.id).where(tasks.c.id == task_id, tasks.c.queue_id == queue_id)
    ).first()
    return found is not None


def _full_data(queue: QueueRecord, data: dict[str, Any]) -> dict[str, Any]:
    """Every block of the queue present, null where not supplied."""
    return {block.id: data.get(block.id) for block in queue.blocks}


def create_task(
    conn: Connection, queue: QueueRecord, data: dict[str, Any], source: str, now: datetime
) -> dict[str, Any]:
    task_id = conn.execute(
        tasks.insert()
        .values(
            queue_id=queue.id,
            status="new",
            data=_full_data(queue, data),
            source=source,
            created_at=now,
        )
        .returning(tasks.c.id)
    ).scalar_one()
    return _fetch(conn, [task_id])[0]


def import_tasks(
    conn: Connection, queue: QueueRecord, items: list[dict[str, Any]], source: str, now: datetime
) -> list[int]:
    if not items:
        return []
    rows = [
        {
            "queue_id": queue.id,
            "status": "new",
            "data": _full_data(queue, data),
            "source": source,
            "created_at": now,
        }
        for data in items
    ]
    result = conn.execute(tasks.insert().returning(tasks.c.id, sort_by_parameter_order=True), rows)
    return list(result.scalars())


def list_completed(
    conn: Connection,
    queue_id: int,
    offset: int,
    limit: int,
    completed_by: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> Page:
    conditions = [tasks.c.queue_id == queue_id, tasks.c.completed_at.is_not(None)]
    if completed_by is not None:
        conditions.append(tasks.c.completed_by == completed_by)
    if start is not None:
        conditions.append(tasks.c.completed_at >= start)
    if end is not None:
        conditions.append(tasks.c.completed_at <= end)
    count = conn.execute(select(func.count()).select_from(tasks).where(*conditions)).scalar_one()
    ids = conn.execute(
        select(tasks.c.id)
        .where(*conditions)
        .order_by(tasks.c.completed_at.desc(), tasks.c.id.desc())
        .offset(offset)
        .limit(limit)
    ).scalars()
    return Page(count, _fetch(conn, list(ids)))


def list_pending(conn: Connection, queue_id: int, statuses: tuple[str, ...], offset: int, limit: int) -> Page:
    conditions = [tasks.c.queue_id == queue_id, tasks.c.status.in_(statuses)]
    count = conn.execute(select(func.count()).select_from(tasks).where(*conditions)).scalar_one()
    ids = conn.execute(
        select(tasks.c.id).where(*conditions).order_by(tasks.c.id).offset(offset).limit(limit)
    ).scalars()
    return Page(count, _fetch(conn, list(ids)))


# --- claims -------------------------------------------------------------------------------------


def _claimable(now: datetime) -> Any:
    return or_(
        tasks.c.status.in_(("new", "open")),
        and_(tasks.c.status == "in_progress", tasks.c.lease_expires_at <= now),
    )


def _next_claimable(conn: Connection, queue_id: int, now: datetime) -> int | None:
    """New tasks first, then released ones and expired claims; oldest first in each."""
    for condition in (
        tasks.c.status == "new",
        or_(
            tasks.c.status == "open",
            and_(tasks.c.status == "in_progress", tasks.c.lease_expires_at <= now),
        ),
    ):
        found = conn.execute(
            select(tasks.c.id)
            .where(tasks.c.queue_id == queue_id, condition)
            .order_by(tasks.c.id)
            .limit(1)
            .with_for_update(skip_locked=True)
        ).scalar()
        if found is not None:
            return found
    return None


def claim_next(
    conn: Connection, queue_id: int, user_id: int, now: datetime, lease: timedelta
) -> tuple[dict[str, Any] | None, int]:
    """The caller's own claim, renewed, or the next claimable task; else (None, tasks held)."""
    own = conn.execute(
        select(tasks.c.id)
        .where(
            tasks.c.queue_id == queue_id,
            tasks.c.status == "in_progress",
            tasks.c.assigned_to == user_id,
        )
        .order_by(tasks.c.id)
        .limit(1)
    ).scalar()
    if own is not None:
        conn.execute(update(tasks).where(tasks.c.id == own).values(lease_expires_at=now + lease))
        return _fetch(conn, [own])[0], 0
    for _attempt in range(8):
        candidate = _next_claimable(conn, queue_id, now)
        if candidate is None:
            break
        claimed = conn.execute(
            update(tasks)
            .where(tasks.c.id == candidate, _claimable(now))
            .values(
                status="in_progress",
                assigned_to=user_id,
                assigned_at=now,
                lease_expires_at=now + lease,
            )
        )
        if claimed.rowcount == 1:
            return _fetch(conn, [candidate])[0], 0
    held = conn.execute(
        select(func.count())
        .select_from(tasks)
        .where(
            tasks.c.queue_id == queue_id,
            tasks.c.status == "in_progress",
            tasks.c.lease_expires_at > now,
            tasks.c.assigned_to != user_id,
        )
    ).scalar_one()
    return None, held


def _held_task(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, *, admin_may: bool = False
) -> dict[str, Any]:
    """The task, if the caller holds it (an expired lease counts until someone else claims)."""
    row = conn.execute(
        select(tasks.c.id, tasks.c.status, tasks.c.assigned_to, tasks.c.data)
        .where(tasks.c.id == task_id, tasks.c.queue_id == queue_id)
        .with_for_update()
    ).first()
    if row is None:
        raise not_found(f"Task {task_id} not found in this queue.")
    if row.status == "completed":
        raise conflict("already_completed", f"Task {task_id} is already completed.")
    if row.status != "in_progress":
        raise conflict(
            "not_assignee",
            f"Nobody holds task {task_id}: claim work with POST .../tasks/next first.",
        )
    if row.assigned_to != principal.user_id and not (admin_may and principal.role == "admin"):
        raise conflict("not_assignee", f"Task {task_id} is held by another worker.")
    return dict(row._mapping)


def heartbeat(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, now: datetime, lease: timedelta
) -> dict[str, Any]:
    _held_task(conn, queue_id, task_id, principal)
    conn.execute(update(tasks).where(tasks.c.id == task_id).values(lease_expires_at=now + lease))
    return _fetch(conn, [task_id])[0]


def release(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    draft: dict[str, Any] | None,
) -> dict[str, Any]:
    held = _held_task(conn, queue.id, task_id, principal, admin_may=True)
    values: dict[str, Any] = {
        "status": "open",
        "assigned_to": None,
        "assigned_at": None,
        "lease_expires_at": None,
    }
    if draft:
        problems = validate_task_data(queue.blocks, draft)
        if problems:
            raise invalid(problems)
        values["data"] = {**held["data"], **draft}
    conn.execute(update(tasks).where(tasks.c.id == task_id).values(**values))
    return _fetch(conn, [task_id])[0]


def complete(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    data: dict[str, Any],
    now: datetime,
) -> dict[str, Any]:
    held = _held_task(conn, queue.id, task_id, principal)
    merged = {**held["data"], **data}
    problems = validate_task_data(queue.blocks, data, allow_empty=True)
    problems += [
        p
        for p in validate_task_data(queue.blocks, merged, enforce_required=True, allow_empty=True)
        if p.code == "missing_required"
    ]
    if problems:
        raise invalid(problems)
    conn.execute(
        update(tasks)
        .where(tasks.c.id == task_id)
        .values(
            status="completed",
            data=_full_data(queue, merged),
            completed_at=now,
            completed_by=principal.email,
            lease_expires_at=None,
        )
    )
    row = _fetch(conn, [task_id])[0]
    # The event is part of the completion: both commit, or neither does.
    target = conn.execute(select(queues.c.webhook_target).where(queues.c.id == queue.id)).scalar()
    if target:
        deliveries.enqueue(conn, queue.id, task_id, target, orjson.dumps(serialize.task(row)), now)
    return row


def flush(conn: Connection, queue_id: int) -> int:
    result = conn.execute(delete(tasks).where(tasks.c.queue_id == queue_id, tasks.c.status.in_(PENDING)))
    return result.rowcount
