"""B15 queue stats: completions per time bucket, the queue's work now, and each worker's pace.

Read from the rollups the triggers keep (store/rollups.py), never from every completion of the
period: the buckets from completions per minute, each worker's count and median from their
completions per hour and per day by bins of 16 seconds of work, then by whole seconds in the one or
two bins that hold the middle. What no whole minute (buckets) or hour (workers) covers, at most half
a minute or half an hour at each end, is read from the completions themselves (see stats_cover.py).
So a median is exact to the second, as when it was worked out from every completion.
"""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection

from queuedesk.server.store import reviews
from queuedesk.server.store.rollups import BIN_SECONDS, DAY, HOUR, MINUTE, NO_TIME
from queuedesk.server.store.sql import Sql, one, rows
from queuedesk.server.store.stats_cover import Nodes, Piece, Raw, cover
from queuedesk.server.store.types import to_micros

# In progress means a live claim; a claim whose lease ran out is pending again for the next claim.
WORK_NOW = Sql(
    """SELECT count(*), coalesce(sum(CASE WHEN status = 'in_progress' AND lease_expires_at > :now
    THEN 1 ELSE 0 END), 0) FROM tasks WHERE queue_id = :queue_id AND status IN ('new', 'open', 'in_progress')"""
)
NAMES = Sql("SELECT email, name FROM users WHERE organization_id = :org_id")
# The hour of a worker's latest completion up to :hi, and that completion when the rollup knows it.
LATEST_HOUR = Sql(
    """SELECT hour, last_at FROM worker_hours WHERE queue_id = :queue_id AND worker = :worker
    AND hour >= :lo AND hour <= :hi AND n > 0 ORDER BY hour DESC LIMIT 1"""
)
LATEST_IN = Sql(
    """SELECT completed_at FROM tasks WHERE queue_id = :queue_id AND completed_at >= :lo AND completed_at < :hi
    AND coalesce(completed_by, '') = :worker ORDER BY completed_at DESC LIMIT 1"""
)
WORK_SPANS = (HOUR, DAY)


def _values(names: str, rows_: list[tuple[int, ...]]) -> str:
    """A CTE of integer rows (ours, never a caller's text) for the statements below to join."""
    listed = ", ".join("(" + ", ".join(str(int(v)) for v in row) + ")" for row in rows_)
    return f"WITH v({names}) AS (VALUES {listed})"


def _signed_sum(conn: Connection, statement: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    return rows(conn, Sql(statement), **params)


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


# --- buckets ----------------------------------------------------------------------------------------


def _buckets(conn: Connection, queue_id: int, start: int, until: int, width: int) -> list[int]:
    """Completions per bucket of `width` from `start`; the last bucket runs to `until` inclusive."""
    count = max(1, -(-(until - start) // width))
    buckets = [0] * count
    minutes: list[tuple[int, ...]] = []
    raw: list[tuple[int, ...]] = []
    for k in range(count):
        low = start + k * width
        high = until + 1 if k == count - 1 else low + width
        for piece in cover(low, high, (MINUTE,), until + 1):
            if isinstance(piece, Nodes):
                minutes.append((k, piece.first, piece.last, piece.sign))
            else:
                raw.append((k, piece.start, piece.end, piece.sign))
    queue = {"queue_id": queue_id}
    if minutes:
        for k, n in _signed_sum(
            conn,
            f"""{_values("k, lo, hi, sign", minutes)} SELECT v.k, sum(m.n * v.sign) FROM v
            JOIN completion_minutes m ON m.queue_id = :queue_id AND m.minute >= v.lo AND m.minute < v.hi
            GROUP BY v.k""",
            queue,
        ):
            buckets[k] += int(n)
    if raw:
        for k, n in _signed_sum(
            conn,
            f"""{_values("k, lo, hi, sign", raw)} SELECT v.k, sum(v.sign) FROM v
            JOIN tasks t ON t.queue_id = :queue_id AND t.completed_at >= v.lo AND t.completed_at < v.hi
            GROUP BY v.k""",
            queue,
        ):
            buckets[k] += int(n)
    return buckets


# --- workers ----------------------------------------------------------------------------------------


class _Worker:
    __slots__ = ("bins", "completed", "seconds")

    def __init__(self) -> None:
        self.completed = 0
        self.bins: dict[int, int] = {}  # bins of BIN_SECONDS of work: completions
        self.seconds: dict[int, int] = {}  # whole seconds of work read from the completions: completions

    def add(self, bin_: int, n: int) -> None:
        self.completed += n
        self.bins[bin_] = self.bins.get(bin_, 0) + n

    def middle(self) -> tuple[int, int, int] | None:
        """(completions below the bins of the middle, the first second of those bins, the first
        second past them); None without a working time."""
        timed = sorted((b, n) for b, n in self.bins.items() if b != NO_TIME and n)
        total = sum(n for _b, n in timed)
        if not total:
            return None
        wanted, seen, below = [(total - 1) // 2, total // 2], 0, 0
        found: list[int] = []
        for b, n in timed:
            if not found:
                below = seen
            seen += n
            while wanted and wanted[0] < seen:
                wanted.pop(0)
                found.append(b)
            if not wanted:
                break
        return below, found[0] * BIN_SECONDS, (found[-1] + 1) * BIN_SECONDS


def _node_rows(pieces: list[Piece]) -> list[tuple[int, ...]]:
    return [(p.span // 1_000_000, p.first, p.last, p.sign) for p in pieces if isinstance(p, Nodes)]


def _raw_rows(pieces: list[Piece]) -> list[tuple[int, ...]]:
    return [(p.start, p.end, p.sign) for p in pieces if isinstance(p, Raw)]


def _workers(conn: Connection, queue_id: int, start: int, until: int) -> dict[str, _Worker]:
    pieces = cover(start, until + 1, WORK_SPANS, until + 1)
    nodes, raw = _node_rows(pieces), _raw_rows(pieces)
    queue = {"queue_id": queue_id}
    workers: dict[str, _Worker] = {}
    if nodes:
        for worker, bin_, n in _signed_sum(
            conn,
            f"""{_values("span, lo, hi, sign", nodes)} SELECT b.worker, b.bin, sum(b.n * v.sign) FROM v
            JOIN work_bins b ON b.queue_id = :queue_id AND b.span = v.span AND b.node >= v.lo AND b.node < v.hi
            GROUP BY b.worker, b.bin""",
            queue,
        ):
            if n:
                workers.setdefault(worker, _Worker()).add(bin_, int(n))
    if raw:
        for worker, seconds, n in _signed_sum(
            conn,
            f"""{_values("lo, hi, sign", raw)} SELECT coalesce(t.completed_by, ''), t.work_micros / 1000000,
            sum(v.sign) FROM v JOIN tasks t ON t.queue_id = :queue_id AND t.completed_at >= v.lo
            AND t.completed_at < v.hi GROUP BY 1, 2""",
            queue,
        ):
            if n:
                timed = seconds is not None and seconds >= 0
                entry = workers.setdefault(worker, _Worker())
                entry.add(seconds // BIN_SECONDS if timed else NO_TIME, int(n))
                if timed:
                    entry.seconds[seconds] = entry.seconds.get(seconds, 0) + int(n)
    return {email: worker for email, worker in workers.items() if worker.completed > 0}


def _median(conn: Connection, queue_id: int, nodes: list[tuple[int, ...]], email: str, worker: _Worker) -> float | None:
    middle = worker.middle()
    if middle is None:
        return None
    below, low, high = middle
    counts = {s: n for s, n in worker.seconds.items() if low <= s < high}
    if nodes:
        for seconds, n in _signed_sum(
            conn,
            f"""{_values("span, lo, hi, sign", nodes)} SELECT s.seconds, sum(s.n * v.sign) FROM v
            JOIN work_seconds s ON s.queue_id = :queue_id AND s.span = v.span AND s.node >= v.lo
            AND s.node < v.hi AND s.worker = :worker AND s.seconds >= :low AND s.seconds < :high
            GROUP BY s.seconds""",
            {"queue_id": queue_id, "worker": email, "low": low, "high": high},
        ):
            counts[seconds] = counts.get(seconds, 0) + int(n)
    timed = sum(n for b, n in worker.bins.items() if b != NO_TIME)
    counts[-1] = below  # stand-ins for the completions below and above the middle bins
    counts[high] = timed - below - sum(n for s, n in counts.items() if s != -1)
    return histogram_median(counts)


def _last_completed(conn: Connection, queue_id: int, email: str, start: int, until: int) -> int | None:
    """The worker's latest completion in [start, until]: the rollup's when it knows it, else read
    from that hour's completions."""
    lo, hi = start // HOUR, until // HOUR
    while hi >= lo:
        found = one(conn, LATEST_HOUR, queue_id=queue_id, worker=email, lo=lo, hi=hi)
        if found is None:
            return None
        hour, last = found
        if last is not None and start <= last <= until:
            return int(last)
        if last is None or last > until:
            inside = one(
                conn,
                LATEST_IN,
                queue_id=queue_id,
                worker=email,
                lo=max(hour * HOUR, start),
                hi=min((hour + 1) * HOUR, until + 1),
            )
            if inside is not None:
                return int(inside[0])
        hi = hour - 1
    return None


def queue_stats(
    conn: Connection, org_id: int, queue_id: int, since: datetime, bucket: timedelta, now: datetime
) -> dict[str, Any]:
    start, until, width = to_micros(since), to_micros(now), int(bucket.total_seconds() * 1_000_000)
    buckets = _buckets(conn, queue_id, start, until, width)
    workers = _workers(conn, queue_id, start, until)
    nodes = _node_rows(cover(start, until + 1, WORK_SPANS, until + 1))
    pending, in_progress = rows(conn, WORK_NOW, queue_id=queue_id, now=until)[0]
    verdicts = reviews.verdicts_by_worker(conn, queue_id, start, until + 1)
    names = dict(rows(conn, NAMES, org_id=org_id)) if workers or verdicts else {}
    by_worker = [
        {
            "email": email or None,
            "name": names.get(email),
            "completed": worker.completed,
            "median_seconds": _median(conn, queue_id, nodes, email, worker),
            "last_completed_at": _last_completed(conn, queue_id, email, start, until),
            **_verdicts(verdicts.get(email or None, {})),
        }
        for email, worker in sorted(workers.items(), key=lambda item: (-item[1].completed, item[0]))
    ]
    for email in sorted(set(verdicts) - {e or None for e in workers}, key=lambda e: e or ""):
        # reviewed in the period, completed before it
        by_worker.append(
            {
                "email": email,
                "name": names.get(email),
                "completed": 0,
                "median_seconds": None,
                "last_completed_at": None,
                **_verdicts(verdicts[email]),
            }
        )
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
