"""The audit log (B20): what people did, written in the transaction of the action it records.

`record` is the one writer: every audited action calls it with its own connection, so the event
commits with the action or not at all. An event never holds a secret, a key, task values or a
review's note; webhook targets go through `masked_target` first.
"""

from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.api.models import AUDIT_ACTIONS
from queuedesk.api.timestamps import format_timestamp, utcnow
from queuedesk.server.rules.webhook_targets import masked
from queuedesk.server.store import accounts
from queuedesk.server.store.embedded import embedded
from queuedesk.server.store.records import Page, Principal, QueueRecord
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.types import to_micros

ACTIONS = AUDIT_ACTIONS

INSERT = Sql(
    """INSERT INTO audit_events (organization_id, at, actor_id, actor_email, actor_name, action, queue_id,
    subject, detail) VALUES (:org_id, :at, :actor_id, :actor_email, :actor_name, :action, :queue_id,
    :subject, :detail)"""
)
ORGANIZATION_OF_QUEUE = Sql("SELECT organization_id FROM queues WHERE id = :queue_id")


def record(
    conn: Connection,
    actor: Principal | None,
    action: str,
    queue_id: int | None,
    subject: dict[str, Any],
    detail: dict[str, Any],
    *,
    organization_id: int | None = None,
    at: datetime | None = None,
) -> None:
    """Write one event in the caller's transaction. `actor` None: a command run on the server's
    host, which names the organization (or a queue, whose organization it is)."""
    assert action in ACTIONS, action
    if actor is not None:
        organization_id = actor.organization_id
    elif organization_id is None and queue_id is not None:
        found = one(conn, ORGANIZATION_OF_QUEUE, queue_id=queue_id)
        organization_id = found[0] if found else None
    if organization_id is None:
        raise ValueError(f"an audit event of {action} without an actor needs its organization")
    run(
        conn,
        INSERT,
        org_id=organization_id,
        at=to_micros(at or utcnow()),
        actor_id=None if actor is None else actor.user_id,
        actor_email=None if actor is None else actor.email,
        actor_name=None if actor is None else actor.name,
        action=action,
        queue_id=queue_id,
        subject=orjson.dumps(subject).decode(),
        detail=orjson.dumps(detail).decode(),
    )


def record_queue_created(conn: Connection, actor: Principal | None, queue: QueueRecord) -> None:
    detail = {"name": queue.name, "blocks": [block.id for block in queue.blocks]}
    record(
        conn,
        actor,
        "queue.create",
        queue.id,
        {"queue_id": queue.id},
        detail,
        organization_id=queue.organization_id,
    )


def record_import(
    conn: Connection,
    actor: Principal | None,
    queue: QueueRecord,
    source: str,
    ids: list[int],
    import_id: int | None = None,
) -> None:
    """`import.commit`: how many tasks, from which source, their first and last id (B8, B18, a seed)."""
    record_import_span(
        conn, actor, queue, source, len(ids), min(ids, default=None), max(ids, default=None), import_id
    )


def record_import_span(
    conn: Connection,
    actor: Principal | None,
    queue: QueueRecord,
    source: str,
    created: int,
    first_id: int | None,
    last_id: int | None,
    import_id: int | None = None,
) -> None:
    """`import.commit` from the count and the first and last id (a commit need not list its ids)."""
    subject = {"queue_id": queue.id} if import_id is None else {"queue_id": queue.id, "import_id": import_id}
    detail = {"created": created, "source": source, "first_id": first_id, "last_id": last_id}
    record(conn, actor, "import.commit", queue.id, subject, detail, organization_id=queue.organization_id)


def record_host_user(
    conn: Connection, organization_id: int, user_id: int, email: str, name: str, role: str
) -> None:
    """A user made by a command on the server's host (`admin-keys create`, a seed): no actor."""
    subject = {"user_id": user_id, "email": email}
    record(
        conn,
        None,
        "user.create",
        None,
        subject,
        {"name": name, "role": role},
        organization_id=organization_id,
    )


def record_host_key(conn: Connection, action: str, key_id: int) -> None:
    """A key issued or revoked by a command on the server's host: no actor, the key's organization."""
    owner = accounts.key_owner(conn, key_id)
    assert owner is not None, "the key was just issued or revoked"
    organization_id, user_id, email, prefix = owner
    subject = {"user_id": user_id, "email": email, "key_id": key_id, "prefix": prefix}
    record(conn, None, action, None, subject, {}, organization_id=organization_id)


def masked_target(target: str | None) -> str | None:
    """A webhook address with any password in it replaced by `***` (`user:***@host`)."""
    return masked(target) if target else target


class Filters(NamedTuple):
    action: str | None = None
    actor: str | None = None  # an email, any case
    queue_id: int | None = None
    since: datetime | None = None


def _where(organization_id: int, filters: Filters) -> tuple[str, dict[str, Any]]:
    where = ["organization_id = :org_id"]
    params: dict[str, Any] = {"org_id": organization_id}
    if filters.action is not None:
        where.append("action = :action")
        params["action"] = filters.action
    if filters.actor is not None:
        where.append("lower(actor_email) = :actor")
        params["actor"] = filters.actor.lower()
    if filters.queue_id is not None:
        where.append("queue_id = :queue_id")
        params["queue_id"] = filters.queue_id
    if filters.since is not None:
        where.append("at >= :since")
        params["since"] = to_micros(filters.since)
    return " AND ".join(where), params


COLUMNS = "id, at, actor_email, actor_name, action, queue_id, subject, detail"


# B20's `sort`: the column the log is ordered by (the first the default: the order events were
# written), ties by id; events of the host (no actor) come last either way.
AUDIT_SORTS = ("id", "action", "actor")
_ORDER_BY = {
    "id": "id {way}",
    "action": "action {way}, id {way}",
    "actor": "(actor_email IS NULL), lower(actor_email) {way}, id {way}",
}


@cache
def _statements(where: str, sort: str, oldest_first: bool) -> tuple[Sql, Sql]:
    """The count and the page for one combination of filters and order (sixteen filters at most)."""
    order = _ORDER_BY[sort].format(way="ASC" if oldest_first else "DESC")
    return (
        Sql(f"SELECT count(*) FROM audit_events WHERE {where}"),
        Sql(f"SELECT {COLUMNS} FROM audit_events WHERE {where} ORDER BY {order} LIMIT :limit OFFSET :offset"),
    )


def list_events(
    conn: Connection,
    organization_id: int,
    filters: Filters,
    offset: int,
    limit: int,
    sort: str = "id",
    oldest_first: bool = False,
) -> Page:
    """A page of the organization's events, newest first (the order they were written), or oldest
    first, or by another of `AUDIT_SORTS`."""
    where, params = _where(organization_id, filters)
    count_sql, page_sql = _statements(where, sort, oldest_first)
    total = one(conn, count_sql, **params)
    found = rows(conn, page_sql, limit=limit, offset=offset, **params)
    events = [
        {
            "id": event_id,
            "at": at,
            "actor": None if email is None else {"email": email, "name": name},
            "action": action,
            "queue_id": queue_id,
            "subject": embedded(subject),
            "detail": embedded(detail),
        }
        for event_id, at, email, name, action, queue_id, subject, detail in found
    ]
    return Page(total[0] if total else 0, events)


# --- retention --------------------------------------------------------------------------------

COUNT_OLD = Sql("SELECT count(*) FROM audit_events WHERE at < :cutoff")
OLD_IDS = Sql("SELECT id FROM audit_events WHERE at < :cutoff AND id > :after ORDER BY id LIMIT :limit")
DELETE_RANGE = Sql("DELETE FROM audit_events WHERE id > :after AND id <= :last AND at < :cutoff")


def count_old(conn: Connection, cutoff: datetime) -> int:
    found = one(conn, COUNT_OLD, cutoff=to_micros(cutoff))
    return found[0] if found else 0


def old_events(conn: Connection, cutoff: datetime, after: int, limit: int) -> list[int]:
    """The next `limit` ids past `after` of events older than the cutoff (a read)."""
    return [row[0] for row in rows(conn, OLD_IDS, cutoff=to_micros(cutoff), after=after, limit=limit)]


OLD_BY_ORGANIZATION = Sql(
    """SELECT organization_id, count(*) FROM audit_events WHERE id > :after AND id <= :last AND at < :cutoff
    GROUP BY organization_id"""
)
INSERT_RETURNING = Sql(INSERT.source + " RETURNING id")
SET_DETAIL = Sql("UPDATE audit_events SET detail = :detail WHERE id = :event_id")


class PruneTrace(NamedTuple):
    """The `audit.prune` event a prune left in one organization's log, and how many it removed there."""

    event_id: int
    removed: int


def delete_events(
    conn: Connection, after: int, last: int, cutoff: datetime, traces: dict[int, PruneTrace], now: datetime
) -> tuple[int, dict[int, PruneTrace]]:
    """Remove a batch of old events, and say so in each organization's log in the same transaction:
    one `audit.prune` event per organization and prune (written at the first batch there, its count
    kept up to date by the next), so that no event goes without a trace, even when the prune is
    stopped half way. The traces as they stand after this batch (`traces` is not changed)."""
    counted = rows(conn, OLD_BY_ORGANIZATION, after=after, last=last, cutoff=to_micros(cutoff))
    removed = run(conn, DELETE_RANGE, after=after, last=last, cutoff=to_micros(cutoff))
    now_traces = dict(traces)
    for organization_id, count in counted:
        before = now_traces.get(organization_id)
        total = count + (before.removed if before else 0)
        detail = orjson.dumps({"before": format_timestamp(cutoff), "removed": total}).decode()
        if before is not None:
            run(conn, SET_DETAIL, detail=detail, event_id=before.event_id)
            now_traces[organization_id] = PruneTrace(before.event_id, total)
            continue
        found = one(
            conn,
            INSERT_RETURNING,
            org_id=organization_id,
            at=to_micros(now),
            actor_id=None,
            actor_email=None,
            actor_name=None,
            action="audit.prune",
            queue_id=None,
            subject="{}",
            detail=detail,
        )
        assert found is not None
        now_traces[organization_id] = PruneTrace(int(found[0]), total)
    return removed, now_traces
