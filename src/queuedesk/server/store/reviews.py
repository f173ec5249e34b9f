"""Reviews' storage (B19): the draw's rows, review claims (the shared claim statements of
`store/claims.py` on this table), verdicts, the list of reviews and their counts for stats. The rules
that combine them are in `server/rules/review.py`."""

from datetime import datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.server.store.claims import Claims, ClaimTable
from queuedesk.server.store.embedded import embedded
from queuedesk.server.store.records import Page, QueueRecord
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.tasks import TASK_COLUMNS, TASK_FROM, task_row
from queuedesk.server.store.types import to_micros

PENDING, IN_REVIEW = "pending", "in_review"
VERDICT_STATES = ("accepted", "corrected", "redone", "decided")  # decided: a disputed task (B21)

CLAIMS = Claims(
    ClaimTable(
        table="reviews",
        key="task_id",
        state="state",
        fresh=PENDING,
        returned=(),  # a released review is pending again
        held=IN_REVIEW,
        holder="reviewer_id",
        since="claimed_at",
        lease="lease_expires_at",
    )
)

DRAW = Sql("INSERT INTO reviews (task_id, queue_id, state) VALUES (:task_id, :queue_id, 'pending')")


def draw(conn: Connection, queue_id: int, task_id: int) -> None:
    """The completed task waits for a reviewer."""
    run(conn, DRAW, task_id=task_id, queue_id=queue_id)


class ReviewState(NamedTuple):
    state: str
    reviewer_id: int | None
    lease_expires_at: int | None  # stored microseconds


STATE = Sql("SELECT state, reviewer_id, lease_expires_at FROM reviews WHERE task_id = :task_id {lock}")


def locked_state(conn: Connection, task_id: int) -> ReviewState | None:
    """The task's review as it stands, locked for the rest of the transaction (PostgreSQL)."""
    row = one(conn, STATE, task_id=task_id)
    return None if row is None else ReviewState(*row)


GIVE_BACK = Sql(
    """UPDATE reviews SET state = 'pending', reviewer_id = NULL, claimed_at = NULL, lease_expires_at = NULL
    WHERE task_id = :task_id"""
)


def give_back(conn: Connection, task_id: int) -> None:
    """Pending again, held by nobody."""
    run(conn, GIVE_BACK, task_id=task_id)


class Verdict(NamedTuple):
    state: str  # one of VERDICT_STATES
    reviewer_id: int
    at: datetime
    note: str | None
    original: dict[str, Any] | None
    redo_task_id: int | None


RECORD = Sql(
    """UPDATE reviews SET state = :state, reviewer_id = :reviewer_id, reviewed_at = :at, note = :note,
    original = :original, redo_task_id = :redo_task_id, lease_expires_at = NULL WHERE task_id = :task_id"""
)
RECORD_NEW = Sql(
    """INSERT INTO reviews (task_id, queue_id, state, reviewer_id, reviewed_at, note, original, redo_task_id)
    VALUES (:task_id, :queue_id, :state, :reviewer_id, :at, :note, :original, :redo_task_id)"""
)


def record(conn: Connection, queue_id: int, task_id: int, verdict: Verdict, *, drawn: bool) -> None:
    """The verdict on the task's review row (`drawn`), or on a new one (a spot check)."""
    values = {
        "task_id": task_id,
        "state": verdict.state,
        "reviewer_id": verdict.reviewer_id,
        "at": to_micros(verdict.at),
        "note": verdict.note,
        "original": None if verdict.original is None else orjson.dumps(verdict.original).decode(),
        "redo_task_id": verdict.redo_task_id,
    }
    if drawn:
        run(conn, RECORD, **values)
    else:
        run(conn, RECORD_NEW, queue_id=queue_id, **values)


# B21: disputed tasks first. Their reviews, through the consensus state's index: the queue's disputed
# tasks, each pending or claimed for review (as many claimed as there are reviewers).
DISPUTED_REVIEW = Sql(
    """SELECT r.task_id FROM consensus_tasks c JOIN reviews r ON r.task_id = c.task_id
    WHERE c.queue_id = :queue_id AND c.state = 'disputed' AND (r.state = 'pending'
    OR (r.state = 'in_review' AND r.lease_expires_at <= :now AND (r.reviewer_id IS NULL OR r.reviewer_id <> :user_id)))
    AND NOT EXISTS (SELECT 1 FROM task_answers a WHERE a.task_id = c.task_id AND a.worker_id = :user_id)
    ORDER BY c.task_id LIMIT 8"""
)


def disputed_first(
    conn: Connection, queue_id: int, user_id: int, now: datetime, lease_until: datetime, attempts: int
) -> int | None:
    """A review claim that serves the queue's disputed tasks before sampled completed work."""
    for (task_id,) in rows(conn, DISPUTED_REVIEW, queue_id=queue_id, user_id=user_id, now=to_micros(now)):
        if CLAIMS.take(conn, task_id, user_id, now, lease_until):
            return int(task_id)
    for _attempt in range(attempts):
        candidate = CLAIMS.next_claimable(conn, queue_id, user_id, now, others_only=True)
        if candidate is None:
            return None
        if CLAIMS.take(conn, candidate, user_id, now, lease_until):
            return candidate
    return None


WEBHOOK_TARGET = Sql("SELECT webhook_target FROM queues WHERE id = :queue_id")


def webhook_target(conn: Connection, queue_id: int) -> str | None:
    """The queue's webhook target as it is in this transaction."""
    row = one(conn, WEBHOOK_TARGET, queue_id=queue_id)
    return row[0] if row is not None and row[0] else None


# --- tasks with their review ----------------------------------------------------------------------

REVIEW_COLUMNS = "r.state, ru.email, r.reviewed_at, r.note, r.original, r.redo_task_id, r.lease_expires_at"
REVIEW_FROM = "LEFT JOIN reviews r ON r.task_id = t.id LEFT JOIN users ru ON ru.id = r.reviewer_id"
N_TASK_COLUMNS = len(TASK_COLUMNS.split(","))


def _with_review(row: tuple[Any, ...]) -> dict[str, Any]:
    task = task_row(row[:N_TASK_COLUMNS])
    state, reviewer, reviewed_at, note, original, redo_task_id, lease = row[N_TASK_COLUMNS:]
    task["review"] = (
        None
        if state is None
        else {
            "state": state,
            "reviewer": reviewer,
            "reviewed_at": reviewed_at,
            "note": note,
            "original": None if original is None else embedded(original),
            "redo_task_id": redo_task_id,
            "lease_expires_at": lease if state == IN_REVIEW else None,
        }
    )
    return task


TASK_WITH_REVIEW = Sql(
    f"""SELECT {TASK_COLUMNS}, {REVIEW_COLUMNS} {TASK_FROM} {REVIEW_FROM}
    WHERE t.id = :task_id AND t.queue_id = :queue_id"""
)


def task_with_review(
    conn: Connection, queue_id: int, task_id: int, viewer_id: int = 0
) -> dict[str, Any] | None:
    """A task row for `serialize.task` with its `review` (None when it has none) and `viewer_id`'s
    draft of it (B6)."""
    row = one(conn, TASK_WITH_REVIEW, task_id=task_id, queue_id=queue_id, viewer_id=viewer_id)
    return None if row is None else _with_review(row)


class ReviewFilters(NamedTuple):
    states: tuple[str, ...] = VERDICT_STATES
    completed_by: str | None = None
    reviewer: str | None = None  # an email


def _review_filter(filters: ReviewFilters) -> tuple[str, dict[str, Any]]:
    listed = ", ".join(f"'{s}'" for s in VERDICT_STATES if s in filters.states)
    where = f"r.queue_id = :queue_id AND r.state IN ({listed})"
    params: dict[str, Any] = {}
    if filters.completed_by is not None:
        where += " AND t.completed_by = :completed_by"
        params["completed_by"] = filters.completed_by
    if filters.reviewer is not None:
        where += " AND ru.email = :reviewer"
        params["reviewer"] = filters.reviewer
    return where, params


_listing: dict[str, tuple[Sql, Sql]] = {}


def _listing_statements(where: str) -> tuple[Sql, Sql]:
    """The count and the page for one combination of filters (made once each)."""
    if where not in _listing:
        joined = "FROM reviews r JOIN tasks t ON t.id = r.task_id LEFT JOIN users ru ON ru.id = r.reviewer_id"
        count = Sql(f"SELECT count(*) {joined} WHERE {where}")
        page = Sql(
            f"""SELECT {TASK_COLUMNS}, {REVIEW_COLUMNS} {TASK_FROM} {REVIEW_FROM}
            WHERE {where} ORDER BY r.reviewed_at DESC, r.task_id DESC LIMIT :limit OFFSET :offset"""
        )
        _listing[where] = (count, page)
    return _listing[where]


def list_reviews(
    conn: Connection, queue: QueueRecord, offset: int, limit: int, filters: ReviewFilters
) -> Page:
    """Reviewed tasks of the queue, newest verdict first (then the highest task id)."""
    where, params = _review_filter(filters)
    count, page = _listing_statements(where)
    total = one(conn, count, queue_id=queue.id, **params)
    found = rows(conn, page, queue_id=queue.id, limit=limit, offset=offset, viewer_id=0, **params)
    return Page(total[0] if total else 0, [_with_review(row) for row in found])


# --- stats ----------------------------------------------------------------------------------------

WAITING = Sql("SELECT count(*) FROM reviews WHERE queue_id = :queue_id AND state IN ('pending', 'in_review')")
VERDICTS_BY_WORKER = Sql(
    """SELECT t.completed_by, r.state, count(*) FROM reviews r JOIN tasks t ON t.id = r.task_id
    WHERE r.queue_id = :queue_id AND r.reviewed_at >= :since AND r.reviewed_at < :until
    AND r.state <> 'decided' GROUP BY t.completed_by, r.state"""
)


def waiting(conn: Connection, queue_id: int) -> int:
    """Reviews without a verdict yet: pending or claimed."""
    row = one(conn, WAITING, queue_id=queue_id)
    return row[0] if row else 0


def verdicts_by_worker(
    conn: Connection, queue_id: int, since: int, until: int
) -> dict[str | None, dict[str, int]]:
    """Per worker (the task's completer), verdicts given in [since, until) by state; micros bounds."""
    counts: dict[str | None, dict[str, int]] = {}
    for email, state, n in rows(conn, VERDICTS_BY_WORKER, queue_id=queue_id, since=since, until=until):
        counts.setdefault(email, {})[state] = n
    return counts
