"""The webhook outbox: events written with completions, claimed by dispatchers, and their log."""

import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, select, update

from queuedesk.server.jobs.signing import new_secret
from queuedesk.server.store.records import Page
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.tables import deliveries, delivery_attempts, queues
from queuedesk.server.store.types import from_micros, to_micros

ROTATION_OVERLAP = timedelta(hours=24)
LOG_COLUMNS = (
    deliveries.c.id,
    deliveries.c.event_id,
    deliveries.c.type,
    deliveries.c.task_id,
    deliveries.c.target,
    deliveries.c.status,
    deliveries.c.attempts,
    deliveries.c.last_status_code,
    deliveries.c.last_error,
    deliveries.c.next_attempt_at,
    deliveries.c.created_at,
    deliveries.c.delivered_at,
)


def new_event_id() -> str:
    return "msg_" + secrets.token_hex(12)


# --- secrets ------------------------------------------------------------------------------------


def ensure_secret(conn: Connection, queue_id: int) -> None:
    """A queue gets its signing secret with its first webhook, and keeps it across target changes."""
    conn.execute(
        update(queues)
        .where(queues.c.id == queue_id, queues.c.webhook_secret.is_(None))
        .values(webhook_secret=new_secret())
    )


def get_secret(conn: Connection, queue_id: int) -> str | None:
    return conn.execute(select(queues.c.webhook_secret).where(queues.c.id == queue_id)).scalar()


def rotate_secret(conn: Connection, queue_id: int, now: datetime) -> str:
    current = get_secret(conn, queue_id)
    fresh = new_secret()
    conn.execute(
        update(queues)
        .where(queues.c.id == queue_id)
        .values(
            webhook_secret=fresh,
            webhook_previous_secret=current,
            webhook_previous_expires_at=None if current is None else now + ROTATION_OVERLAP,
        )
    )
    return fresh


SIGNING_SECRETS = Sql(
    """SELECT webhook_secret, webhook_previous_secret, webhook_previous_expires_at
    FROM queues WHERE id = :queue_id"""
)


def signing_secrets(conn: Connection, queue_id: int, now: datetime) -> list[str]:
    row = one(conn, SIGNING_SECRETS, queue_id=queue_id)
    if row is None:
        return []
    current, previous, previous_expires_at = row
    found = [current] if current else []
    if previous and previous_expires_at and previous_expires_at > to_micros(now):
        found.append(previous)
    return found


# --- events -------------------------------------------------------------------------------------


COMPLETED = "task.completed"  # the completion callback; review verdicts send task.corrected and task.redo
ENQUEUE = Sql(
    """INSERT INTO deliveries (queue_id, task_id, event_id, type, target, payload, status, attempts, retry_step,
    next_attempt_at, created_at) VALUES (:queue_id, :task_id, :event_id, :type, :target, :payload, 'pending',
    0, 0, :now, :now)"""
)


def enqueue(
    conn: Connection,
    queue_id: int,
    task_id: int,
    target: str,
    payload: bytes,
    now: datetime,
    event_type: str = COMPLETED,
) -> str:
    """Queue an event for the webhook (in the transaction of what it tells); its id."""
    event_id = new_event_id()
    run(
        conn,
        ENQUEUE,
        queue_id=queue_id,
        task_id=task_id,
        event_id=event_id,
        type=event_type,
        target=target,
        payload=payload.decode(),
        now=to_micros(now),
    )
    return event_id


# B10's `sort`: the column the log is ordered by (the first the default), ties by id.
DELIVERY_SORTS = ("id", "status", "attempts", "task_id")


def list_deliveries(
    conn: Connection, queue_id: int, offset: int, limit: int, oldest_first: bool = False, sort: str = "id"
) -> Page:
    """The queue's delivery log, newest first (or oldest first, or by another of `DELIVERY_SORTS`)."""
    condition = deliveries.c.queue_id == queue_id
    count = conn.execute(select(func.count()).select_from(deliveries).where(condition)).scalar_one()
    columns = [deliveries.c[sort]] if sort != "id" else []
    order = [c.asc() if oldest_first else c.desc() for c in (*columns, deliveries.c.id)]
    rows = conn.execute(select(*LOG_COLUMNS).where(condition).order_by(*order).offset(offset).limit(limit))
    return Page(count, [dict(row._mapping) for row in rows])


def get_delivery(conn: Connection, queue_id: int, delivery_id: int) -> dict[str, Any] | None:
    row = conn.execute(
        select(*LOG_COLUMNS).where(deliveries.c.id == delivery_id, deliveries.c.queue_id == queue_id)
    ).first()
    return None if row is None else dict(row._mapping)


def list_attempts(conn: Connection, delivery_id: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(
            delivery_attempts.c.attempted_at,
            delivery_attempts.c.status_code,
            delivery_attempts.c.error,
            delivery_attempts.c.duration_ms,
        )
        .where(delivery_attempts.c.delivery_id == delivery_id)
        .order_by(delivery_attempts.c.id)
    )
    return [dict(row._mapping) for row in rows]


def redeliver(
    conn: Connection, queue_id: int, delivery_id: int, now: datetime, target: str | None = None
) -> dict[str, Any] | None:
    """Pending again, due now, with a fresh retry schedule; the attempt count keeps growing. With
    `target`, sent there from now on (its event id stays)."""
    changes: dict[str, Any] = {
        "status": "pending",
        "next_attempt_at": now,
        "retry_step": 0,
        "delivered_at": None,
    }
    if target is not None:
        changes["target"] = target
    result = conn.execute(
        update(deliveries)
        .where(deliveries.c.id == delivery_id, deliveries.c.queue_id == queue_id)
        .values(**changes)
    )
    if result.rowcount != 1:
        return None
    return get_delivery(conn, queue_id, delivery_id)


# --- the dispatcher's side ------------------------------------------------------------------------


# The claim is one statement: the due rows (locked and skipped by other dispatchers on PostgreSQL)
# are marked as this owner's and handed back.
CLAIM_DUE = Sql(
    """UPDATE deliveries SET claimed_by = :owner, claimed_until = :until WHERE id IN (
        SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= :now
        AND (claimed_until IS NULL OR claimed_until < :now)
        ORDER BY next_attempt_at, id LIMIT :limit {skip_locked})
    RETURNING id, queue_id, event_id, target, payload, attempts, retry_step"""
)
CLAIMED_COLUMNS = ("id", "queue_id", "event_id", "target", "payload", "attempts", "retry_step")


def claim_due(
    conn: Connection, owner: str, now: datetime, hold: timedelta, limit: int
) -> list[dict[str, Any]]:
    """Take up to `limit` due deliveries for `owner` until `now + hold`; nobody else sends them meanwhile."""
    found = rows(conn, CLAIM_DUE, owner=owner, until=to_micros(now + hold), now=to_micros(now), limit=limit)
    secrets_of: dict[int, list[str]] = {}
    claimed = []
    for row in sorted(found):
        item = dict(zip(CLAIMED_COLUMNS, row, strict=True))
        queue_id = item["queue_id"]
        if queue_id not in secrets_of:
            secrets_of[queue_id] = signing_secrets(conn, queue_id, now)
        item["secrets"] = secrets_of[queue_id]
        claimed.append(item)
    return claimed


LOG_ATTEMPT = Sql(
    """INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, error, duration_ms)
    VALUES (:delivery_id, :attempted_at, :status_code, :error, :duration_ms)"""
)
# What `outcome` leaves out stays as it is (coalesce); `next_attempt_at` is always given.
APPLY_OUTCOME = Sql(
    """UPDATE deliveries SET attempts = attempts + 1, last_status_code = :status_code, last_error = :error,
    claimed_by = NULL, claimed_until = NULL, status = coalesce(:status, status),
    delivered_at = coalesce(:delivered_at, delivered_at), next_attempt_at = :next_attempt_at,
    retry_step = coalesce(:retry_step, retry_step)
    WHERE id = :delivery_id AND claimed_by = :owner"""
)
OUTCOME_KEYS = {"status", "delivered_at", "next_attempt_at", "retry_step"}


def _micros_or_none(moment: datetime | None) -> int | None:
    return None if moment is None else to_micros(moment)


def record_attempt(
    conn: Connection,
    delivery_id: int,
    owner: str,
    attempted_at: datetime,
    status_code: int | None,
    error: str | None,
    duration_ms: int,
    outcome: dict[str, Any],
) -> bool:
    """Log the attempt and apply `outcome` (status, next time...) if `owner` still holds the row."""
    assert set(outcome) <= OUTCOME_KEYS and "next_attempt_at" in outcome, outcome
    run(
        conn,
        LOG_ATTEMPT,
        delivery_id=delivery_id,
        attempted_at=to_micros(attempted_at),
        status_code=status_code,
        error=error,
        duration_ms=duration_ms,
    )
    changed = run(
        conn,
        APPLY_OUTCOME,
        status_code=status_code,
        error=error,
        status=outcome.get("status"),
        delivered_at=_micros_or_none(outcome.get("delivered_at")),
        next_attempt_at=_micros_or_none(outcome["next_attempt_at"]),
        retry_step=outcome.get("retry_step"),
        delivery_id=delivery_id,
        owner=owner,
    )
    return changed == 1


def release_claims(conn: Connection, owner: str, delivery_ids: list[int] | None = None) -> None:
    """Give rows back unsent (shutdown): they stay pending and are due at once."""
    condition = deliveries.c.claimed_by == owner
    if delivery_ids is not None:
        condition = condition & deliveries.c.id.in_(delivery_ids)
    conn.execute(update(deliveries).where(condition).values(claimed_by=None, claimed_until=None))


def release_claims_of_dead(conn: Connection, owners: list[str]) -> int:
    if not owners:
        return 0
    result = conn.execute(
        update(deliveries)
        .where(deliveries.c.claimed_by.in_(owners))
        .values(claimed_by=None, claimed_until=None)
    )
    return result.rowcount


def claim_owners(conn: Connection) -> list[str]:
    return list(
        conn.execute(
            select(deliveries.c.claimed_by).where(deliveries.c.claimed_by.is_not(None)).distinct()
        ).scalars()
    )


NEXT_DUE = Sql("SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending' AND claimed_by IS NULL")
NEXT_LAPSE = Sql(
    "SELECT min(claimed_until) FROM deliveries WHERE status = 'pending' AND claimed_by IS NOT NULL"
)


def next_due(conn: Connection) -> datetime | None:
    """When the next pending delivery falls due (or its claim lapses), for the dispatcher's sleep."""
    candidates = [
        row[0] for row in (one(conn, NEXT_DUE), one(conn, NEXT_LAPSE)) if row and row[0] is not None
    ]
    return from_micros(min(candidates)) if candidates else None
