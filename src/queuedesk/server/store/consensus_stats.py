"""B15's consensus figures (B21): the tasks disputed now, and per worker their answers and the
answers that held every final value (`agreed`), from the rollup `answer_hours` (kept by a trigger on
the answers) and, for the parts of the period no whole hour covers, from the answers of that part."""

from typing import Any

from sqlalchemy import Connection

from queuedesk.server.store.rollups import HOUR
from queuedesk.server.store.sql import Sql, one, rows
from queuedesk.server.store.stats_cover import Nodes, cover

DISPUTED = Sql("SELECT count(*) FROM consensus_tasks WHERE queue_id = :queue_id AND state = 'disputed'")
AGREED_HOURS = Sql(
    """SELECT worker, sum(agreed) FROM answer_hours WHERE queue_id = :queue_id AND hour >= :lo AND hour < :hi
    GROUP BY worker"""
)
AGREED_RAW = Sql(
    """SELECT worker_email, count(*) FROM task_answers WHERE queue_id = :queue_id AND answered_at >= :lo
    AND answered_at < :hi AND agreed GROUP BY worker_email"""
)


def disputed(conn: Connection, queue_id: int) -> int:
    """Tasks disputed now (each waits for a decision: the count is the review loop's own backlog)."""
    found = one(conn, DISPUTED, queue_id=queue_id)
    return int(found[0]) if found else 0


def agreed_by_worker(conn: Connection, queue_id: int, start: int, until: int) -> dict[str, int]:
    """Per worker, their answers given in [start, until] that held every final value."""
    agreed: dict[str, int] = {}
    for piece in cover(start, until + 1, (HOUR,), until + 1):
        if isinstance(piece, Nodes):
            found = rows(conn, AGREED_HOURS, queue_id=queue_id, lo=piece.first, hi=piece.last)
        else:
            found = rows(conn, AGREED_RAW, queue_id=queue_id, lo=piece.start, hi=piece.end)
        for worker, n in found:
            agreed[worker] = agreed.get(worker, 0) + int(n or 0) * piece.sign
    return agreed


def add_answers(
    conn: Connection,
    queue_id: int,
    start: int,
    until: int,
    by_worker: list[dict[str, Any]],
    consensus_used: bool,
) -> None:
    """Each worker's `answers` (in a consensus queue their `completed` counts their answers) and
    `agreed` over the period; 0 in a queue that never had consensus."""
    agreed = agreed_by_worker(conn, queue_id, start, until) if consensus_used else {}
    for entry in by_worker:
        entry["answers"] = entry["completed"] if consensus_used else 0
        entry["agreed"] = agreed.get(entry["email"] or "", 0)
