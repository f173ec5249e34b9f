"""The webhook outbox: events written with completions, claimed by dispatchers, and their log."""

import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, select, update

from queuedesk.server.signing import new_secret
from queuedesk.server.store.records import Page
from queuedesk.server.store.tables import deliveries, delivery_attempts, queues

ROTATION_OVERLAP = timedelta(hours=24)
LOG_COLUMNS = (
    deliveries.c.id,
    deliveries.c.event_id,
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


def signing_secrets(conn: Connection, queue_id: int, now: datetime) -> list[str]:
    row = conn.execute(
        select(
            queues.c.webhook_secret, queues.c.webhook_previous_secret, queues.c.webhook_previous_expires_at
        ).where(queues.c.id == queue_id)
    ).first()
    if row is None:
        return []
    found = [row.webhook_secret] if row.webhook_secret else []
    if (
        row.webhook_previous_secret
        and row.webhook_previous_expires_at
        and row.webhook_previous_expires_at > now
    ):
        found.append(row.webhook_previous_secret)
    return found


# --- events -------------------------------------------------------------------------------------


def enqueue(conn: Connection, queue_id: int, task_id: int, target: str, payload: bytes, now: datetime) -> str:
    event_id = new_event_id()
    conn.execute(
        deliveries.insert().values(
            queue_id=queue_id,
            task_id=task_id,
            event_id=event_id,
            target=target,
            payload=payload.decode(),
            status="pending",
            attempts=0,
            retry_step=0,
            next_attempt_at=now,
            created_at=now,
        )
    )
    return event_id


def list_deliveries(conn: Connection, queue_id: int, offset: int, limit: int) -> Page:
    condition = deliveries.c.queue_id == queue_id
    count = conn.execute(select(func.count()).select_from(deliveries).where(condition)).scalar_one()
    rows = conn.execute(
        select(*LOG_COLUMNS).where(condition).order_by(deliveries.c.id.desc()).offset(offset).limit(limit)
    )
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


def redeliver(conn: Connection, queue_id: int, delivery_id: int, now: datetime) -> dict[str, Any] | None:
    """Pending again, due now, with a fresh retry schedule; the attempt count keeps growing."""
    result = conn.execute(
        update(deliveries)
        .where(deliveries.c.id == delivery_id, deliveries.c.queue_id == queue_id)
        .values(status="pending", next_attempt_at=now, retry_step=0, delivered_at=None)
    )
    if result.rowcount != 1:
        return None
    return get_delivery(conn, queue_id, delivery_id)


# --- the dispatcher's side ------------------------------------------------------------------------


def claim_due(
    conn: Connection, owner: str, now: datetime, hold: timedelta, limit: int
) -> list[dict[str, Any]]:
    """Take up to `limit` due deliveries for `owner` until `now + hold`; nobody else sends them meanwhile."""
    due = (
        select(deliveries.c.id)
        .where(
            deliveries.c.status == "pending",
            deliveries.c.next_attempt_at <= now,
            (deliveries.c.claimed_until.is_(None)) | (deliveries.c.claimed_until < now),
        )
        .order_by(deliveries.c.next_attempt_at, deliveries.c.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    ids = list(conn.execute(due).scalars())
    if not ids:
        return []
    conn.execute(
        update(deliveries).where(deliveries.c.id.in_(ids)).values(claimed_by=owner, claimed_until=now + hold)
    )
    rows = conn.execute(
        select(
            deliveries.c.id,
            deliveries.c.queue_id,
            deliveries.c.event_id,
            deliveries.c.target,
            deliveries.c.payload,
            deliveries.c.attempts,
            deliveries.c.retry_step,
        ).where(deliveries.c.id.in_(ids))
    )
    claimed = []
    for row in rows:
        item = dict(row._mapping)
        item["secrets"] = signing_secrets(conn, row.queue_id, now)
        claimed.append(item)
    return claimed


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
    conn.execute(
        delivery_attempts.insert().values(
            delivery_id=delivery_id,
            attempted_at=attempted_at,
            status_code=status_code,
            error=error,
            duration_ms=duration_ms,
        )
    )
    result = conn.execute(
        update(deliveries)
        .where(deliveries.c.id == delivery_id, deliveries.c.claimed_by == owner)
        .values(
            attempts=deliveries.c.attempts + 1,
            last_status_code=status_code,
            last_error=error,
            claimed_by=None,
            claimed_until=None,
            **outcome,
        )
    )
    return result.rowcount == 1


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


def next_due(conn: Connection) -> datetime | None:
    """When the next pending delivery falls due (or its claim lapses), for the dispatcher's sleep."""
    due = conn.execute(
        select(func.min(deliveries.c.next_attempt_at)).where(
            deliveries.c.status == "pending", deliveries.c.claimed_by.is_(None)
        )
    ).scalar()
    lapse = conn.execute(
        select(func.min(deliveries.c.claimed_until)).where(
            deliveries.c.status == "pending", deliveries.c.claimed_by.is_not(None)
        )
    ).scalar()
    candidates = [moment for moment in (due, lapse) if moment is not None]
    return min(candidates) if candidates else None
