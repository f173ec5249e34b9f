"""The queries of retention: which old delivery logs and completed tasks may go, and removing a batch.

A delivery may go once it is finished (delivered or failed; a pending one never goes, whatever its
age), was created before the cutoff and has had no attempt since (a redelivery counts as recent).
A completed task may go once its completion is older than the cutoff; its queue's `completed_count`
moves in the same transaction, so the history's count and `queuedesk doctor` stay right.
"""

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, exists, func, select

from queuedesk.server.store import consensus
from queuedesk.server.store.sql import Sql, rows, run
from queuedesk.server.store.tables import deliveries, delivery_attempts, queues, tasks
from queuedesk.server.store.types import to_micros


def _delivery_may_go(cutoff: datetime) -> ColumnElement[bool]:
    recent = delivery_attempts.alias("recent")  # apart from the attempts a count joins
    attempted_since = (
        exists()
        .where(recent.c.delivery_id == deliveries.c.id, recent.c.attempted_at >= cutoff)
        .correlate(deliveries)
    )
    return (deliveries.c.status != "pending") & (deliveries.c.created_at < cutoff) & ~attempted_since


@dataclass
class Prunable:
    """What a prune would remove (and the old pending deliveries it keeps)."""

    deliveries: int = 0
    attempts: int = 0
    pending_kept: int = 0
    # (queue id, queue name, completed tasks older than the cutoff), for queues that have some.
    tasks_by_queue: list[tuple[int, str, int]] = field(default_factory=list)

    @property
    def tasks(self) -> int:
        return sum(count for _id, _name, count in self.tasks_by_queue)


def count_prunable(
    conn: Connection, delivery_cutoff: datetime | None, task_cutoff: datetime | None
) -> Prunable:
    found = Prunable()
    if delivery_cutoff is not None:
        may_go = _delivery_may_go(delivery_cutoff)
        found.deliveries = conn.execute(
            select(func.count()).select_from(deliveries).where(may_go)
        ).scalar_one()
        found.attempts = conn.execute(
            select(func.count())
            .select_from(
                delivery_attempts.join(deliveries, delivery_attempts.c.delivery_id == deliveries.c.id)
            )
            .where(may_go)
        ).scalar_one()
        found.pending_kept = conn.execute(
            select(func.count())
            .select_from(deliveries)
            .where(deliveries.c.status == "pending", deliveries.c.created_at < delivery_cutoff)
        ).scalar_one()
    if task_cutoff is not None:
        old = (
            select(func.count())
            .select_from(tasks)
            .where(tasks.c.queue_id == queues.c.id, tasks.c.completed_at < task_cutoff)
            .correlate(queues)
            .scalar_subquery()
        )  # one range of ix_tasks_queue_completed per queue
        rows = conn.execute(select(queues.c.id, queues.c.name, old).order_by(queues.c.id))
        found.tasks_by_queue = [(queue_id, name, count) for queue_id, name, count in rows if count]
    return found


# --- deliveries ---------------------------------------------------------------------------------


def old_deliveries(conn: Connection, cutoff: datetime, after: int, limit: int) -> list[int]:
    """The next `limit` ids past `after` that may go (a read; the delete checks them again)."""
    found = conn.execute(
        select(deliveries.c.id)
        .where(deliveries.c.id > after, _delivery_may_go(cutoff))
        .order_by(deliveries.c.id)
        .limit(limit)
    )
    return list(found.scalars())


# The write works on the id range a read found (`after` < id <= `last`), checking each row again; plain
# SQL, as building a 1,000-id IN list with SQLAlchemy took twice as long as SQLite took to delete.
_MAY_GO = (
    "d.id > :after AND d.id <= :last AND d.status <> 'pending' AND d.created_at < :cutoff AND NOT EXISTS "
    "(SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.attempted_at >= :cutoff)"
)
LOCK_RANGE = Sql(f"SELECT d.id FROM deliveries d WHERE {_MAY_GO} {{lock}}")
DELETE_RANGE_ATTEMPTS = Sql(
    f"DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT d.id FROM deliveries d WHERE {_MAY_GO})"
)
DELETE_RANGE = Sql(f"DELETE FROM deliveries WHERE id IN (SELECT d.id FROM deliveries d WHERE {_MAY_GO})")


def delete_deliveries(conn: Connection, after: int, last: int, cutoff: datetime) -> tuple[int, int]:
    """Remove the deliveries of ids `after` < id <= `last` that still may go, with their attempts;
    (deliveries, attempts) removed.

    On PostgreSQL the rows are locked first, so none changes between the two deletes: a redelivery
    racing the prune either waits and then finds the delivery gone, or wins and keeps it (pending
    again, so it no longer may go). On SQLite the write transaction holds the whole database.
    """
    bounds = {"after": after, "last": last, "cutoff": to_micros(cutoff)}
    if conn.dialect.name == "postgresql" and not rows(conn, LOCK_RANGE, **bounds):
        return 0, 0
    attempts = run(conn, DELETE_RANGE_ATTEMPTS, **bounds)
    return run(conn, DELETE_RANGE, **bounds), attempts


# --- completed tasks ------------------------------------------------------------------------------


def queues_with_old_completions(conn: Connection, cutoff: datetime) -> list[int]:
    return [queue_id for queue_id, _name, _count in count_prunable(conn, None, cutoff).tasks_by_queue]


DELETE_OLDEST_COMPLETED = Sql(
    """DELETE FROM tasks WHERE id IN (SELECT id FROM tasks WHERE queue_id = :queue_id AND completed_at < :cutoff
    ORDER BY completed_at, id LIMIT :limit) RETURNING id"""
)
UNCOUNT_COMPLETED = Sql("UPDATE queues SET completed_count = completed_count - :removed WHERE id = :queue_id")


def delete_completed(conn: Connection, queue_id: int, cutoff: datetime, limit: int) -> int:
    """Remove the queue's oldest `limit` completions before the cutoff (found through
    ix_tasks_queue_completed) and take them off its completed count; how many went."""
    ids = [
        row[0]
        for row in rows(
            conn, DELETE_OLDEST_COMPLETED, queue_id=queue_id, cutoff=to_micros(cutoff), limit=limit
        )
    ]
    removed = len(ids)
    consensus.drop_tasks(conn, ids)  # their answers and consensus states go with them (B21)
    if removed:
        run(conn, UNCOUNT_COMPLETED, removed=removed, queue_id=queue_id)
    return removed
