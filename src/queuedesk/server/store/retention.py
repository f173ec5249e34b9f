"""The queries of retention: which old delivery logs and completed tasks may go, and removing a batch.

A delivery may go once it is finished (delivered or failed; a pending one never goes, whatever its
age), was created before the cutoff and has had no attempt since (a redelivery counts as recent).
A completed task may go once its completion is older than the cutoff; its queue's `completed_count`
moves in the same transaction, so the history's count and `queuedesk doctor` stay right.
"""

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, delete, exists, func, select, update

from queuedesk.server.store.tables import deliveries, delivery_attempts, queues, tasks


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


def delete_deliveries(conn: Connection, ids: list[int], cutoff: datetime) -> tuple[int, int]:
    """Remove those of `ids` that still may go, with their attempts; (deliveries, attempts) removed.

    The rows are locked first on PostgreSQL, so a redelivery racing the prune either waits and then
    finds the delivery gone, or wins and keeps it (pending again, so it no longer may go).
    """
    still = (
        select(deliveries.c.id).where(deliveries.c.id.in_(ids), _delivery_may_go(cutoff)).with_for_update()
    )
    going = list(conn.execute(still).scalars())
    if not going:
        return 0, 0
    attempts = conn.execute(delete(delivery_attempts).where(delivery_attempts.c.delivery_id.in_(going)))
    removed = conn.execute(delete(deliveries).where(deliveries.c.id.in_(going)))
    return removed.rowcount, attempts.rowcount


# --- completed tasks ------------------------------------------------------------------------------


def queues_with_old_completions(conn: Connection, cutoff: datetime) -> list[int]:
    return [queue_id for queue_id, _name, _count in count_prunable(conn, None, cutoff).tasks_by_queue]


def old_completed(conn: Connection, queue_id: int, cutoff: datetime, limit: int) -> list[int]:
    """The queue's oldest `limit` completions before the cutoff (ix_tasks_queue_completed, in order)."""
    found = conn.execute(
        select(tasks.c.id)
        .where(tasks.c.queue_id == queue_id, tasks.c.completed_at < cutoff)
        .order_by(tasks.c.completed_at, tasks.c.id)
        .limit(limit)
    )
    return list(found.scalars())


def delete_completed(conn: Connection, queue_id: int, ids: list[int], cutoff: datetime) -> int:
    """Remove those of `ids` completed before the cutoff and take them off the queue's completed count."""
    removed = conn.execute(
        delete(tasks).where(tasks.c.id.in_(ids), tasks.c.queue_id == queue_id, tasks.c.completed_at < cutoff)
    ).rowcount
    if removed:
        conn.execute(
            update(queues)
            .where(queues.c.id == queue_id)
            .values(completed_count=queues.c.completed_count - removed)
        )
    return removed
