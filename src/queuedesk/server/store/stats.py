"""B15 queue stats: completions per time bucket, the queue's work now, and each worker's pace.

Two grouped range scans of the completions index (`queue_id, completed_at`) cover the period: one
counts the buckets, one each worker's completions by whole seconds of work. A median comes from
that histogram, so it is exact to the second (the two databases' median functions differ, and
sorting every completion of a long period is what made it slow).
"""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection

from queuedesk.server.store import reviews
from queuedesk.server.store.sql import Sql, rows
from queuedesk.server.store.types import to_micros

BUCKETS = Sql(
    """SELECT (completed_at - :since) / :width, count(*) FROM tasks
    WHERE queue_id = :queue_id AND completed_at >= :since AND completed_at < :until GROUP BY 1"""
)
# Each worker's completions by whole seconds of work (NULL: no working time recorded).
WORK_SECONDS = Sql(
    """SELECT completed_by, work_micros / 1000000, count(*), max(completed_at) FROM tasks
    WHERE queue_id = :queue_id AND completed_at >= :since AND completed_at < :until GROUP BY 1, 2"""
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
        self.seconds: dict[int, int] = {}  # whole seconds of work: completions


def histogram_median(counts: dict[int, int]) -> float | None:
    """The median of the values the histogram counts (the mean of the middle two when even)."""
    total = sum(counts.values())
    if not total:
        return None
    middle = ((total - 1) // 2, total // 2)  # 0-based ranks of the middle one or two
    found: list[int] = []
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        while len(found) < 2 and middle[len(found)] < seen:
            found.append(value)
        if len(found) == 2:
            break
    return (found[0] + found[1]) / 2


def queue_stats(
    conn: Connection, org_id: int, queue_id: int, since: datetime, bucket: timedelta, now: datetime
) -> dict[str, Any]:
    """The counts and the medians are worked out by the database (grouped by bucket, and by worker
    and whole seconds of work), so the rows of a long period never cross into Python one by one."""
    start, until, width = to_micros(since), to_micros(now), int(bucket.total_seconds() * 1_000_000)
    buckets = [0] * max(1, -(-(until - start) // width))
    period = {"queue_id": queue_id, "since": start, "until": until + 1}
    for index, count in rows(conn, BUCKETS, width=width, **period):
        buckets[min(index, len(buckets) - 1)] += count
    workers: dict[str, _Worker] = {}
    for email, seconds, count, last in rows(conn, WORK_SECONDS, **period):
        worker = workers.get(email)
        if worker is None:
            worker = workers[email] = _Worker()
        worker.completed += count
        worker.last = max(worker.last, last)
        if seconds is not None and seconds >= 0:
            worker.seconds[seconds] = worker.seconds.get(seconds, 0) + count
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
            "median_seconds": histogram_median(worker.seconds),
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
