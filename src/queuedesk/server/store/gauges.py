"""What the metrics' gauges read (server/ops/metrics.py): one statement for every queue, each of
its parts a counter or one indexed lookup per queue, never a count of a backlog. A scrape reads
the same rows at 1,000 and at 1,000,000 pending tasks."""

from dataclasses import dataclass

from sqlalchemy import Connection, text

from queuedesk.api.timestamps import utcnow
from queuedesk.server.store.types import to_micros

PENDING_STATUSES = ("new", "open", "in_progress")


def _oldest_task(status: str) -> str:
    # The lowest id of a status is the index's first entry under (queue_id, status): no count.
    return (
        "(SELECT created_at FROM tasks WHERE id = (SELECT min(id) FROM tasks "
        f"WHERE queue_id = q.id AND status = '{status}'))"
    )


GAUGES = f"""SELECT q.organization_id, q.id, q.n_tasks,
  {", ".join(_oldest_task(status) for status in PENDING_STATUSES)},
  coalesce(b.reviews_pending, 0), coalesce(b.webhook_pending, 0),
  (SELECT created_at FROM deliveries WHERE id = (SELECT min(id) FROM deliveries
    WHERE queue_id = q.id AND status = 'pending'))
FROM queues q LEFT JOIN queue_backlogs b ON b.queue_id = q.id ORDER BY q.id"""


@dataclass(frozen=True)
class QueueGauges:
    organization_id: int
    queue_id: int
    tasks_pending: int
    oldest_pending_age: float  # seconds; 0 when nothing is pending
    reviews_pending: int
    webhook_pending: int
    webhook_oldest_age: float


@dataclass(frozen=True)
class Gauges:
    queues: list[QueueGauges]


def _age(now: int, *created: int | None) -> float:
    known = [micros for micros in created if micros is not None]
    return max(0.0, (now - min(known)) / 1_000_000) if known else 0.0


def read_gauges(conn: Connection) -> Gauges:
    now = to_micros(utcnow())
    queues = [
        QueueGauges(
            organization_id=row[0],
            queue_id=row[1],
            tasks_pending=row[2],
            oldest_pending_age=_age(now, row[3], row[4], row[5]),
            reviews_pending=row[6],
            webhook_pending=row[7],
            webhook_oldest_age=_age(now, row[8]),
        )
        for row in conn.execute(text(GAUGES))
    ]
    return Gauges(queues)
