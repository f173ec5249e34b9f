"""B15 queue stats: completions per time bucket, the queue's work now, and each worker's pace.

One range scan of the completions index (`queue_id, completed_at`) covers the period; buckets and
medians are worked out here rather than in SQL, where the two databases' median functions differ.
"""

from datetime import datetime, timedelta
from statistics import median
from typing import Any

from sqlalchemy import Connection

from queuedesk.server.store import reviews
from queuedesk.server.store.sql import Sql, rows
from queuedesk.server.store.types import to_micros

COMPLETIONS = Sql(
    """SELECT completed_by, completed_at, work_micros FROM tasks
    WHERE queue_id = :queue_id AND completed_at >= :since AND completed_at < :until"""
)
# In progress means a live claim; a claim whose lease ran out is pending again for the next claim.
WORK_NOW = Sql(
    """SELECT count(*), coalesce(sum(CASE WHEN status = 'in_progress' AND lease_expires_at > :now
    THEN 1 ELSE 0 END), 0) FROM tasks WHERE queue_id = :queue_id AND status IN ('new', 'open', 'in_progress')"""
)
NAMES = Sql("SELECT email, name FROM users WHERE organization_id = :org_id")


class _Worker:
    __slots__ = ("completed", "last", "seconds")

    def __init__(self) -> None:
        self.completed = 0
        self.last = 0
        self.seconds: list[float] = []


def queue_stats(
    conn: Connection, org_id: int, queue_id: int, since: datetime, bucket: timedelta, now: datetime
) -> dict[str, Any]:
    start, until, width = to_micros(since), to_micros(now), int(bucket.total_seconds() * 1_000_000)
    buckets = [0] * max(1, -(-(until - start) // width))
    workers: dict[str, _Worker] = {}
    for email, completed_at, work_micros in rows(
        conn, COMPLETIONS, queue_id=queue_id, since=start, until=until + 1
    ):
        buckets[min((completed_at - start) // width, len(buckets) - 1)] += 1
        worker = workers.get(email)
        if worker is None:
            worker = workers[email] = _Worker()
        worker.completed += 1
        worker.last = max(worker.last, completed_at)
        if work_micros is not None and work_micros >= 0:
            worker.seconds.append(work_micros / 1_000_000)
    pending, in_progress = rows(conn, WORK_NOW, queue_id=queue_id, now=until)[0]
    verdicts = reviews.verdicts_by_worker(conn, queue_id, start, until + 1)
    for email in verdicts:
        workers.setdefault(email, _Worker())  # reviewed in the period, completed before it
    names = dict(rows(conn, NAMES, org_id=org_id)) if workers else {}
    by_worker = [
        {
            "email": email,
            "name": names.get(email),
            "completed": worker.completed,
            "median_seconds": round(median(worker.seconds), 3) if worker.seconds else None,
            "last_completed_at": worker.last or None,
            **_verdicts(verdicts.get(email, {})),
        }
        for email, worker in sorted(workers.items(), key=lambda item: (-item[1].completed, item[0] or ""))
    ]
    return {
        "since": start,
        "bucket_minutes": int(bucket.total_seconds() // 60),
        "pending": pending - in_progress,
        "in_progress": in_progress,
        "completed": buckets,
        "by_worker": by_worker,
        "reviews_pending": reviews.waiting(conn, queue_id),
    }


def _verdicts(states: dict[str, int]) -> dict[str, int]:
    """B19's counts of one worker: reviewed, then each verdict."""
    accepted, corrected, redone = (states.get(state, 0) for state in reviews.VERDICT_STATES)
    return {
        "reviewed": accepted + corrected + redone,
        "accepted": accepted,
        "corrected": corrected,
        "redone": redone,
    }
