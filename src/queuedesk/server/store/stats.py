"""B15 queue stats: completions per time bucket, the queue's work now, and each worker's pace.

Read from the rollups the triggers keep (store/rollups.py), never from every completion of the
period: the buckets from completions per minute, each worker's count and median from their
completions per hour and per day by bins of 16 seconds of work, then by whole seconds in the one or
two bins that hold the middle. What no whole minute (buckets) or hour (workers) covers, at most half
a minute or half an hour at each end, is read from the completions themselves (see stats_cover.py).
So a median is exact to the second, as when it was worked out from every completion.
"""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, text

from queuedesk.server.store import consensus_stats, gold, reviews
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
# In a queue that has had consensus (B21) a worker's latest is their latest answer, or completion of
# a task without consensus.
LATEST_IN_APART = Sql(
    """SELECT max(at) FROM (SELECT max(completed_at) AS at FROM tasks t WHERE t.queue_id = :queue_id
    AND t.completed_at >= :lo AND t.completed_at < :hi AND coalesce(t.completed_by, '') = :worker
    AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = t.id)
    UNION ALL SELECT max(answered_at) FROM task_answers WHERE queue_id = :queue_id AND answered_at >= :lo
    AND answered_at < :hi AND worker_email = :worker) found"""
)
WORK_SPANS = (HOUR, DAY)


def _values(names: str, rows_: Sequence[tuple[int, ...]]) -> str:
    """A CTE of integer rows (ours, never a caller's text) for the statements below to join."""
    listed = ", ".join("(" + ", ".join(str(int(v)) for v in row) + ")" for row in rows_)
    return f"WITH v({names}) AS (VALUES {listed})"


def _probe(conn: Connection, table: str, alias: str, columns: str, condition: str) -> str:
    """The rows of `table` (as `alias`, with `columns`) meeting `condition` for each row before it in
    the statement: each a short range of an index. On PostgreSQL a LATERAL subquery behind a fence
    (OFFSET 0): joined, it went through the queue's whole table and filtered (0.06-6 s on 1,000,000
    completions, against 3 ms). SQLite, which has no LATERAL, nests the same loops in a join."""
    if conn.dialect.name == "postgresql":
        return (
            f"CROSS JOIN LATERAL (SELECT {columns} FROM {table} {alias} WHERE {condition} OFFSET 0) {alias}"
        )
    return f"JOIN {table} {alias} ON {condition}"


def _bound(params: dict[str, Any], emails: Sequence[str]) -> list[str]:
    """A placeholder for each worker's email (caller's text: bound, never written into the statement),
    the values added to `params`."""
    names = []
    for n, email in enumerate(emails):
        params[f"w{n}"] = email
        names.append(f":w{n}")
    return names


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

# Whole minutes, each counted in the bucket of its first microsecond (:shift 0) or of its last.
MINUTES_BY_BUCKET = Sql(
    """SELECT (minute * 60000000 + :shift - :since) / :width, sum(n) FROM completion_minutes
    WHERE queue_id = :queue_id AND minute >= :lo AND minute < :hi GROUP BY 1"""
)
RAW_BY_BUCKET = Sql(
    """SELECT (completed_at - :since) / :width, count(*) FROM tasks
    WHERE queue_id = :queue_id AND completed_at >= :lo AND completed_at < :hi GROUP BY 1"""
)


def _buckets(conn: Connection, queue_id: int, start: int, until: int, width: int) -> list[int]:
    """Completions per bucket of `width` from `start`; the last bucket runs to `until` inclusive.

    Whole minutes come from the rollup. A bucket boundary inside a minute (when `start` is not on
    one) puts that minute in one of its two buckets: the part that belongs to the other, the
    shorter side of the boundary (at most 30 seconds), is counted from the completions and moved.
    The minutes cut by `start` and by the end are counted from the completions."""
    count = max(1, -(-(until - start) // width))
    buckets = [0] * count

    def add(index: int, n: int) -> None:
        buckets[min(max(index, 0), count - 1)] += int(n)

    end = until + 1
    lo, hi = -(-start // MINUTE), end // MINUTE  # the whole minutes of the period
    queue = {"queue_id": queue_id, "since": start, "width": width}
    if lo >= hi:
        for index, n in rows(conn, RAW_BY_BUCKET, lo=start, hi=end, **queue):
            add(index, n)
        return buckets
    phase = start % MINUTE  # where each boundary falls in its minute
    by_end = 0 < phase < MINUTE // 2
    for index, n in rows(conn, MINUTES_BY_BUCKET, shift=MINUTE - 1 if by_end else 0, lo=lo, hi=hi, **queue):
        add(index, n)
    for edge_lo, edge_hi in ((start, lo * MINUTE), (hi * MINUTE, end)):
        if edge_lo < edge_hi:
            for index, n in rows(conn, RAW_BY_BUCKET, lo=edge_lo, hi=edge_hi, **queue):
                add(index, n)
    if phase:
        moved = []
        for k in range(1, count):
            boundary = start + k * width
            minute = boundary // MINUTE
            if lo <= minute < hi:
                moved.append(
                    (k, minute * MINUTE, boundary) if by_end else (k, boundary, (minute + 1) * MINUTE)
                )
        if moved:
            completions = _probe(
                conn,
                "tasks",
                "t",
                "t.id",
                "t.queue_id = :queue_id AND t.completed_at >= v.lo AND t.completed_at < v.hi",
            )
            found = _signed_sum(
                conn,
                f"""{_values("k, lo, hi", moved)} SELECT v.k, count(*) FROM v {completions} GROUP BY v.k""",
                {"queue_id": queue_id},
            )
            for k, n in found:  # counted in bucket k (by its end) but before its boundary, or the reverse
                add(k, -n if by_end else n)
                add(k - 1, n if by_end else -n)
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


def _raw_sources(apart: bool) -> list[tuple[str, str, str, str, str]]:
    """Where the parts of the period no rollup covers are read from: the completions (in a consensus
    queue, those of tasks without consensus, and the answers instead: B21)."""
    completions = "t.queue_id = :queue_id AND t.completed_at >= v.lo AND t.completed_at < v.hi"
    if not apart:
        return [("tasks", "t", "t.completed_by, t.work_micros", completions, "t.completed_by")]
    return [
        (
            "tasks",
            "t",
            "t.completed_by, t.work_micros",
            f"{completions} AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = t.id)",
            "t.completed_by",
        ),
        (
            "task_answers",
            "a",
            "a.worker_email, a.work_micros",
            "a.queue_id = :queue_id AND a.answered_at >= v.lo AND a.answered_at < v.hi",
            "a.worker_email",
        ),
    ]


def _workers(conn: Connection, queue_id: int, pieces: list[Piece], apart: bool = False) -> dict[str, _Worker]:
    """Each worker's completions by bins of working time over the pieces of the period (`apart`: a
    consensus queue, whose workers' answers count instead of its completions)."""
    nodes, raw = _node_rows(pieces), _raw_rows(pieces)
    queue = {"queue_id": queue_id}
    workers: dict[str, _Worker] = {}
    if nodes:
        bins = _probe(
            conn,
            "work_bins",
            "b",
            "b.worker, b.bin, b.n",
            "b.queue_id = :queue_id AND b.span = v.span AND b.node >= v.lo AND b.node < v.hi",
        )
        for worker, bin_, n in _signed_sum(
            conn,
            f"""{_values("span, lo, hi, sign", nodes)} SELECT b.worker, b.bin, sum(b.n * v.sign) FROM v {bins}
            GROUP BY b.worker, b.bin""",
            queue,
        ):
            if n:
                workers.setdefault(worker, _Worker()).add(bin_, int(n))
    for table, alias, columns, condition, who in _raw_sources(apart) if raw else ():
        completions = _probe(conn, table, alias, columns, condition)
        for worker, seconds, n in _signed_sum(
            conn,
            f"""{_values("lo, hi, sign", raw)} SELECT coalesce({who}, ''), {alias}.work_micros / 1000000,
            sum(v.sign) FROM v {completions} GROUP BY 1, 2""",
            queue,
        ):
            if n:
                timed = seconds is not None and seconds >= 0
                entry = workers.setdefault(worker, _Worker())
                entry.add(seconds // BIN_SECONDS if timed else NO_TIME, int(n))
                if timed:
                    entry.seconds[seconds] = entry.seconds.get(seconds, 0) + int(n)
    return {email: worker for email, worker in workers.items() if worker.completed > 0}


def _medians(
    conn: Connection, queue_id: int, nodes: list[tuple[int, ...]], workers: dict[str, _Worker]
) -> dict[str, float | None]:
    """Each worker's median: the whole seconds of the one or two bins holding their middle, read
    for every worker at once, node by node (each a short range of the key: node, worker, seconds)."""
    middles = {email: middle for email, worker in workers.items() if (middle := worker.middle())}
    counts = {
        email: {s: n for s, n in workers[email].seconds.items() if low <= s < high}
        for email, (_below, low, high) in middles.items()
    }
    each = [(span, node, sign) for span, lo, hi, sign in nodes for node in range(lo, hi)]
    if each and middles:
        params: dict[str, Any] = {"queue_id": queue_id}
        wanted = [
            f"({name}, {int(low)}, {int(high)})"
            for name, (_below, low, high) in zip(_bound(params, list(middles)), middles.values(), strict=True)
        ]
        seconds_of = _probe(
            conn,
            "work_seconds",
            "s",
            "s.worker, s.seconds, s.n",
            "s.queue_id = :queue_id AND s.span = v.span AND s.node = v.node AND s.worker = w.worker "
            "AND s.seconds >= w.low AND s.seconds < w.high",
        )
        for email, seconds, n in _signed_sum(
            conn,
            f"""{_values("span, node, sign", each)}, w(worker, low, high) AS (VALUES {", ".join(wanted)})
            SELECT s.worker, s.seconds, sum(s.n * v.sign) FROM w CROSS JOIN v {seconds_of}
            GROUP BY s.worker, s.seconds""",
            params,
        ):
            found = counts[email]
            found[seconds] = found.get(seconds, 0) + int(n)
    medians: dict[str, float | None] = {}
    for email, worker in workers.items():
        if email not in middles:
            medians[email] = None
            continue
        below, _low, high = middles[email]
        found = counts[email]
        timed = sum(n for b, n in worker.bins.items() if b != NO_TIME)
        above = timed - below - sum(found.values())
        found[-1], found[high] = below, above  # stand-ins for the completions around the middle bins
        medians[email] = histogram_median(found)
    return medians


def _last_completions(
    conn: Connection, queue_id: int, emails: list[str], start: int, until: int, apart: bool = False
) -> dict[str, int | None]:
    """Each worker's latest completion in [start, until]. The rollup's latest hour for all of them in
    one statement (a statement per worker was most of an answer's round trips); worker by worker, as
    `_last_completed` does, only where that hour's latest completion is unknown or past `until`."""
    if not emails:
        return {}
    params: dict[str, Any] = {"queue_id": queue_id, "lo": start // HOUR, "hi": until // HOUR}
    listed = ", ".join(f"({name})" for name in _bound(params, emails))
    latest = {
        worker: (hour, last)
        for worker, hour, last in rows(
            conn,
            Sql(f"""WITH v(worker) AS (VALUES {listed}),
            m AS (SELECT v.worker, (SELECT max(h.hour) FROM worker_hours h WHERE h.queue_id = :queue_id
                AND h.worker = v.worker AND h.hour >= :lo AND h.hour <= :hi AND h.n > 0) AS hour FROM v)
            SELECT m.worker, m.hour, (SELECT h.last_at FROM worker_hours h WHERE h.queue_id = :queue_id
                AND h.worker = m.worker AND h.hour = m.hour) FROM m"""),
            **params,
        )
    }
    found: dict[str, int | None] = {}
    for email in emails:
        hour, last = latest.get(email, (None, None))
        if hour is None:
            found[email] = None
        elif last is not None and start <= last <= until:
            found[email] = int(last)
        else:
            found[email] = _last_completed(conn, queue_id, email, start, until, apart)
    return found


def _last_completed(
    conn: Connection, queue_id: int, email: str, start: int, until: int, apart: bool = False
) -> int | None:
    """The worker's latest completion in [start, until]: the rollup's when it knows it, else read
    from that hour's completions (`apart`: a consensus queue's, from its answers too)."""
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
                LATEST_IN_APART if apart else LATEST_IN,
                queue_id=queue_id,
                worker=email,
                lo=max(hour * HOUR, start),
                hi=min((hour + 1) * HOUR, until + 1),
            )
            if inside is not None and inside[0] is not None:
                return int(inside[0])
        hi = hour - 1
    return None


def queue_stats(
    conn: Connection,
    org_id: int,
    queue_id: int,
    since: datetime,
    bucket: timedelta,
    now: datetime,
    consensus_used: bool = False,
) -> dict[str, Any]:
    if conn.dialect.name == "postgresql":
        # Many short index ranges: compiling them (JIT, for their estimated cost) took 70-90 ms of the answer.
        conn.execute(text("SET LOCAL jit = off"))
    start, until, width = to_micros(since), to_micros(now), int(bucket.total_seconds() * 1_000_000)
    buckets = _buckets(conn, queue_id, start, until, width)
    pieces = cover(start, until + 1, WORK_SPANS, until + 1)
    workers = _workers(conn, queue_id, pieces, consensus_used)
    nodes = _node_rows(pieces)
    pending, in_progress = rows(conn, WORK_NOW, queue_id=queue_id, now=until)[0]
    verdicts = reviews.verdicts_by_worker(conn, queue_id, start, until + 1)  # None: no completer
    names = dict(rows(conn, NAMES, org_id=org_id)) if workers or verdicts else {}
    medians = _medians(conn, queue_id, nodes, workers)
    last_completions = _last_completions(conn, queue_id, list(workers), start, until, consensus_used)
    by_worker = [
        {
            "email": email or None,
            "name": names.get(email),
            "completed": worker.completed,
            "median_seconds": medians[email],
            "last_completed_at": last_completions[email],
            **_verdicts(verdicts.get(email or None, {})),
        }
        for email, worker in sorted(workers.items(), key=lambda item: (-item[1].completed, item[0]))
    ]
    for email in sorted(set(verdicts) - {e or None for e in workers}, key=lambda e: e or ""):
        # reviewed in the period, completed before it
        by_worker.append(
            {
                "email": email,
                "name": names.get(email) if email else None,
                "completed": 0,
                "median_seconds": None,
                "last_completed_at": None,
                **_verdicts(verdicts[email]),
            }
        )
    consensus_stats.add_answers(conn, queue_id, start, until, by_worker, consensus_used)
    _add_gold(conn, org_id, queue_id, since, by_worker, names)
    return {
        "since": start,
        "bucket_minutes": int(bucket.total_seconds() // 60),
        "pending": pending - in_progress,
        "in_progress": in_progress,
        "completed": buckets,
        "by_worker": by_worker,
        "reviews_pending": reviews.waiting(conn, queue_id),
        "disputed": consensus_stats.disputed(conn, queue_id) if consensus_used else 0,
    }


def _add_gold(
    conn: Connection,
    org_id: int,
    queue_id: int,
    since: datetime,
    by_worker: list[dict[str, Any]],
    names: dict[str, str],
) -> None:
    """B22: each worker's gold answers and correct ones over the period (from their per-minute
    counts); a worker who answered only gold tasks in it is listed too."""
    counts = gold.per_worker(conn, queue_id, since)
    listed = {entry["email"] for entry in by_worker}
    missing = sorted(set(counts) - listed)
    if missing and not names:
        names.update(rows(conn, NAMES, org_id=org_id))
    for email in missing:
        by_worker.append(
            {
                "email": email,
                "name": names.get(email),
                "completed": 0,
                "median_seconds": None,
                "last_completed_at": None,
                **_verdicts({}),
                "answers": 0,
                "agreed": 0,
            }
        )
    for entry in by_worker:
        entry["gold_answered"], entry["gold_correct"] = counts.get(entry["email"] or "", (0, 0))


def _verdicts(states: dict[str, int]) -> dict[str, int]:
    """B19's counts of one worker: reviewed, then each verdict."""
    accepted, corrected, redone = (states.get(state, 0) for state in ("accepted", "corrected", "redone"))
    return {
        "reviewed": accepted + corrected + redone,
        "accepted": accepted,
        "corrected": corrected,
        "redone": redone,
    }
