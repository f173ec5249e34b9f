"""Tasks' storage: creation, history, pending work, and the statements of the claim / heartbeat /
release / complete cycle (the claim's own statements are `CLAIMS`, shared with reviews: see
`store/claims.py`). The rules that combine them (who may complete, what a claim returns) are in
`server/rules/work.py` and `server/rules/claiming.py`.

Every function here runs inside one transaction (see `database.py`). These are the hottest queries of the service, so they are plain SQL (see `sql.py`).
"""

from datetime import datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, insert

from queuedesk.server.store import drafts
from queuedesk.server.store.claims import Claims, ClaimTable
from queuedesk.server.store.embedded import embedded
from queuedesk.server.store.records import Page, QueueRecord
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.tables import tasks
from queuedesk.server.store.types import to_micros

PENDING = ("new", "open", "in_progress")
GOLD = "gold"  # the status of a gold task (B22) all its life; never listed, counted or flushed as work

TASK_COLUMNS = """t.id, t.status, t.created_at, t.completed_at, t.completed_by, q.name, t.queue_id, t.data,
    t.source, t.assigned_to, u.email, u.name, t.assigned_at, t.lease_expires_at, d.data"""
# The draft is the viewer's own (B6): `:viewer_id` is the caller's user id (0 reads none).
TASK_FROM = """FROM tasks t JOIN queues q ON q.id = t.queue_id LEFT JOIN users u ON u.id = t.assigned_to
    LEFT JOIN task_drafts d ON d.task_id = t.id AND d.user_id = :viewer_id"""


def _json(value: Any) -> Any:
    """Stored JSON text embedded as it is (orjson.Fragment), or the value already decoded."""
    return embedded(value) if isinstance(value, str | bytes) else value


def task_row(row: tuple[Any, ...]) -> dict[str, Any]:
    """A task row for `serialize.task`: timestamps as stored microseconds, data as its stored JSON."""
    status = row[1]
    if status == GOLD:  # B22: a gold task shows as any other: held, or open for the next claim
        status = "open" if row[9] is None else "in_progress"
    return {
        "id": row[0],
        "status": status,
        "created_at": row[2],
        "completed_at": row[3],
        "completed_by": row[4],
        "queue_name": row[5],
        "queue_id": row[6],
        "data": _json(row[7]),
        "source": row[8],
        "assigned_to": row[9],
        "assignee_email": row[10],
        "assignee_name": row[11],
        "assigned_at": row[12],
        "lease_expires_at": row[13],
        "draft": _json(row[14]),
    }


GET_TASK = Sql(f"SELECT {TASK_COLUMNS} {TASK_FROM} WHERE t.id = :task_id AND t.queue_id = :queue_id")
TASK_EXISTS = Sql("SELECT 1 FROM tasks WHERE id = :task_id AND queue_id = :queue_id")


def get_task(conn: Connection, queue_id: int, task_id: int, viewer_id: int = 0) -> dict[str, Any] | None:
    """The task, with `viewer_id`'s draft of it (None for anyone who saved none)."""
    row = one(conn, GET_TASK, task_id=task_id, queue_id=queue_id, viewer_id=viewer_id)
    return None if row is None else task_row(row)


def task_exists(conn: Connection, queue_id: int, task_id: int) -> bool:
    return one(conn, TASK_EXISTS, task_id=task_id, queue_id=queue_id) is not None


def full_data(queue: QueueRecord, data: dict[str, Any]) -> dict[str, Any]:
    """Every block of the queue present, null where not supplied."""
    return {block.id: data.get(block.id) for block in queue.blocks}


INSERT_TASK = Sql(
    """INSERT INTO tasks (queue_id, status, data, source, created_at)
    VALUES (:queue_id, 'new', :data, :source, :created_at) RETURNING id"""
)
# The queue's count of pending tasks (`queues.n_tasks`) moves in the same transaction as the tasks:
# +1 on create, +n on import, -1 on complete (with `completed_count`), -n on flush. A claim, an
# expired lease taken over and a release move a task between pending states, so they leave it alone.
COUNT_PENDING = Sql("UPDATE queues SET n_tasks = n_tasks + :delta WHERE id = :queue_id")


def count_pending(conn: Connection, queue_id: int, delta: int) -> None:
    if delta:
        run(conn, COUNT_PENDING, delta=delta, queue_id=queue_id)


class NewTask(NamedTuple):
    queue: QueueRecord
    data: dict[str, Any]
    source: str
    now: datetime


def create_task(
    conn: Connection, queue: QueueRecord, data: dict[str, Any], source: str, now: datetime
) -> dict[str, Any]:
    """The INSERT and the queue's pending count: two statements, so run it with `Database.write`."""
    row = _insert_new(conn, queue, data, source, now)
    count_pending(conn, queue.id, 1)
    return row


def create_tasks(conn: Connection, batch: list[NewTask]) -> list[dict[str, Any]]:
    """Several creations in one transaction: each task's INSERT, then each queue's pending count
    moved once by the number created in it."""
    created = [_insert_new(conn, *new) for new in batch]
    per_queue: dict[int, int] = {}
    for new in batch:
        per_queue[new.queue.id] = per_queue.get(new.queue.id, 0) + 1
    for queue_id, count in per_queue.items():
        count_pending(conn, queue_id, count)
    return created


def _insert_new(
    conn: Connection, queue: QueueRecord, data: dict[str, Any], source: str, now: datetime
) -> dict[str, Any]:
    full = full_data(queue, data)
    row = one(
        conn,
        INSERT_TASK,
        queue_id=queue.id,
        data=orjson.dumps(full).decode(),
        source=source,
        created_at=to_micros(now),
    )
    assert row is not None
    return {
        "id": row[0],
        "status": "new",
        "created_at": to_micros(now),
        "completed_at": None,
        "completed_by": None,
        "queue_name": queue.name,
        "queue_id": queue.id,
        "data": full,
        "source": source,
        "assigned_to": None,
        "assignee_email": None,
        "assignee_name": None,
        "assigned_at": None,
        "lease_expires_at": None,
        "draft": None,
    }


def import_tasks(
    conn: Connection, queue: QueueRecord, items: list[dict[str, Any]], source: str, now: datetime
) -> list[int]:
    if not items:
        return []
    values = [
        {
            "queue_id": queue.id,
            "status": "new",
            "data": full_data(queue, data),
            "source": source,
            "created_at": now,
        }
        for data in items
    ]
    result = conn.execute(insert(tasks).returning(tasks.c.id, sort_by_parameter_order=True), values)
    ids = list(result.scalars())
    count_pending(conn, queue.id, len(ids))
    return ids


# A search (`q`) matches a task whose value of any block holds the text, in any case: strings as
# written, lists and objects as their JSON. SQLite folds with Python's casefold (see database.py),
# PostgreSQL with lower(); the parameter comes folded the same way.
SEARCH = {
    "sqlite": "EXISTS (SELECT 1 FROM json_each(data) WHERE instr(qd_fold(CAST(value AS TEXT)), :q) > 0)",
    "postgresql": "EXISTS (SELECT 1 FROM jsonb_each_text(CAST(data AS jsonb)) WHERE strpos(lower(value), :q) > 0)",
}


# B2's `consensus` filter (B21): through the consensus state's own index, not every pending task.
CONSENSUS_FILTER = {
    "collecting": "id IN (SELECT c.task_id FROM consensus_tasks c WHERE c.queue_id = :queue_id "
    "AND c.state = 'collecting' AND c.n_answers > 0)",
    "disputed": "id IN (SELECT c.task_id FROM consensus_tasks c WHERE c.queue_id = :queue_id "
    "AND c.state = 'disputed')",
}


def search_term(dialect: str, q: str) -> str:
    return q.casefold() if dialect == "sqlite" else q.lower()


def _history_filter(
    completed_by: str | None, start: datetime | None, end: datetime | None, q: str | None, dialect: str
) -> tuple[str, dict[str, Any]]:
    where = "queue_id = :queue_id AND completed_at IS NOT NULL"
    params: dict[str, Any] = {}
    if q is not None:
        where += " AND " + SEARCH[dialect]
        params["q"] = search_term(dialect, q)
    if completed_by is not None:
        where += " AND completed_by = :completed_by"
        params["completed_by"] = completed_by
    if start is not None:
        where += " AND completed_at >= :start"
        params["start"] = to_micros(start)
    if end is not None:
        where += " AND completed_at <= :end"
        params["end"] = to_micros(end)
    return where, params


# `sort` (A2, B2): the column a list is ordered by, the first the default. Each is an ORDER BY of
# the table aliased `{t}` (empty or `t.`), in `{way}`; a missing value sorts last either way.
COMPLETED_SORTS = ("completed_at", "completed_by", "id")
PENDING_SORTS = ("id", "status", "holder")
_HOLDER_NAME = "(SELECT h.name FROM users h WHERE h.id = {t}assigned_to)"
_ORDER_BY = {
    "completed_at": "{t}completed_at {way}, {t}id {way}",
    "completed_by": "({t}completed_by IS NULL), {t}completed_by {way}, {t}completed_at {way}, {t}id {way}",
    "id": "{t}id {way}",
    "status": "{t}status {way}, {t}id {way}",
    "holder": f"({_HOLDER_NAME} IS NULL), {_HOLDER_NAME} {{way}}, {{t}}id {{way}}",
}


def _order_by(sort: str, way: str, alias: str = "") -> str:
    return _ORDER_BY[sort].format(t=alias, way=way)


_history: dict[tuple[str, bool, str], tuple[Sql, Sql]] = {}
COMPLETED_COUNT = Sql("SELECT completed_count FROM queues WHERE id = :queue_id")


# A history page needs neither the queue's name (the caller has it) nor the assignee, so no joins;
# the page's ids come from the covering index first, so a deep offset skips index entries only.
HISTORY_COLUMNS = "t.id, t.status, t.created_at, t.completed_at, t.completed_by, t.queue_id, t.data, t.source"


def _history_statements(where: str, oldest_first: bool, sort: str) -> tuple[Sql, Sql]:
    """The count and the page for one combination of filters and order (made once each)."""
    key = (where, oldest_first, sort)
    if key not in _history:
        way = "ASC" if oldest_first else "DESC"
        count = Sql(f"SELECT count(*) FROM tasks WHERE {where}")
        page = Sql(
            f"""SELECT {HISTORY_COLUMNS} FROM tasks t WHERE t.id IN (
                SELECT id FROM tasks WHERE {where}
                ORDER BY {_order_by(sort, way)} LIMIT :limit OFFSET :offset)
            ORDER BY {_order_by(sort, way, "t.")}"""
        )
        _history[key] = (count, page)
    return _history[key]


def _history_task(row: tuple[Any, ...], queue_name: str) -> dict[str, Any]:
    """`task_row` for HISTORY_COLUMNS. Kept apart: padding history rows to `task_row`'s fourteen places
    cost list-completed 8 to 10% (2,590 against 2,860 req/s at 16 connections)."""
    return {
        "id": row[0],
        "status": row[1],
        "created_at": row[2],
        "completed_at": row[3],
        "completed_by": row[4],
        "queue_name": queue_name,
        "queue_id": row[5],
        "data": embedded(row[6]) if isinstance(row[6], str | bytes) else row[6],
        "source": row[7],
    }


def list_completed(
    conn: Connection,
    queue: QueueRecord,
    offset: int,
    limit: int,
    completed_by: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    q: str | None = None,
    oldest_first: bool = False,
    sort: str = "completed_at",
) -> Page:
    """Rows for `serialize.task` without the assignment (which the history does not show); newest
    completion first, or oldest first (or by another of `COMPLETED_SORTS`)."""
    where, params = _history_filter(completed_by, start, end, q, conn.dialect.name)
    count_sql, page_sql = _history_statements(where, oldest_first, sort)
    total = one(conn, COMPLETED_COUNT if not params else count_sql, queue_id=queue.id, **params)
    found = rows(conn, page_sql, queue_id=queue.id, limit=limit, offset=offset, **params)
    return Page(total[0] if total else 0, [_history_task(row, queue.name) for row in found])


_pending: dict[tuple[tuple[str, ...], str | None, bool, str], tuple[Sql, Sql]] = {}
PENDING_COUNT = Sql("SELECT n_tasks FROM queues WHERE id = :queue_id")  # every pending task, kept


def _pending_statements(
    statuses: tuple[str, ...], search: str | None, newest_first: bool, sort: str
) -> tuple[Sql, Sql]:
    chosen = tuple(sorted(set(statuses)))
    key = (chosen, search, newest_first, sort)
    if key not in _pending:
        listed = ", ".join(f"'{s}'" for s in chosen if s in PENDING)
        where = f"queue_id = :queue_id AND status IN ({listed})"
        if search is not None:
            where += f" AND {search}"
        way = "DESC" if newest_first else "ASC"
        count = Sql(f"SELECT count(*) FROM tasks WHERE {where}")
        page = Sql(
            f"""SELECT {TASK_COLUMNS} {TASK_FROM} WHERE t.id IN (
                SELECT id FROM tasks WHERE {where} ORDER BY {_order_by(sort, way)} LIMIT :limit OFFSET :offset)
            ORDER BY {_order_by(sort, way, "t.")}"""
        )
        _pending[key] = (count, page)
    return _pending[key]


class PendingQuery(NamedTuple):
    """What a B2 page asks for (the parameters of `list_pending` after the queue and viewer)."""

    statuses: tuple[str, ...]
    offset: int
    limit: int
    q: str | None
    newest_first: bool
    sort: str
    consensus_state: str | None


def list_pending(
    conn: Connection,
    queue_id: int,
    statuses: tuple[str, ...],
    offset: int,
    limit: int,
    viewer_id: int = 0,
    q: str | None = None,
    newest_first: bool = False,
    sort: str = "id",
    consensus_state: str | None = None,
) -> Page:
    """A page of pending tasks, oldest first (or newest first, or by another of `PENDING_SORTS`),
    each with `viewer_id`'s draft of it; with `consensus_state` (B21), only the tasks collecting
    answers (with at least one) or only the disputed ones."""
    dialect = conn.dialect.name
    search = None if q is None else SEARCH[dialect]
    if consensus_state is not None:
        search = " AND ".join(filter(None, [search, CONSENSUS_FILTER[consensus_state]]))
    count_sql, page_sql = _pending_statements(statuses, search, newest_first, sort)
    term = {} if q is None else {"q": search_term(dialect, q)}
    # Unfiltered, the queue's own count answers: counting a million pending rows took 0.8 s.
    every_pending = q is None and consensus_state is None and set(statuses) >= set(PENDING)
    total = one(conn, PENDING_COUNT if every_pending else count_sql, queue_id=queue_id, **term)
    found = rows(conn, page_sql, queue_id=queue_id, limit=limit, offset=offset, viewer_id=viewer_id, **term)
    return Page(total[0] if total else 0, [task_row(row) for row in found])


# --- claims -------------------------------------------------------------------------------------

# Claims (B4): the shared claim statements (store/claims.py) on this table.
CLAIMS = Claims(
    ClaimTable(
        table="tasks",
        key="id",
        state="status",
        fresh="new",
        returned=("open",),
        held="in_progress",
        holder="assigned_to",
        since="assigned_at",
        lease="lease_expires_at",
    )
)


class HeldState(NamedTuple):
    status: str
    assigned_to: int | None
    data: dict[str, Any]
    created_at: int  # as stored (microseconds)
    source: str


HELD = Sql(
    """SELECT status, assigned_to, data, created_at, source FROM tasks
    WHERE id = :task_id AND queue_id = :queue_id {lock}"""
)


def held_state(conn: Connection, queue_id: int, task_id: int) -> HeldState | None:
    """The task's status, holder, data and what a completion leaves as it is, locked for the rest of
    the transaction (PostgreSQL)."""
    row = one(conn, HELD, task_id=task_id, queue_id=queue_id)
    if row is None:
        return None
    status, assigned_to, data, created_at, source = row
    decoded = orjson.loads(data) if isinstance(data, str | bytes) else data
    return HeldState(status, assigned_to, decoded, created_at, source)


# The queue's consensus settings come with it, read in the same statement (a subquery: only the
# task's row is locked).
HELD_FOR_ANSWER = Sql(
    """SELECT status, assigned_to, data, created_at, source, assigned_at,
    (SELECT q.consensus FROM queues q WHERE q.id = :queue_id) FROM tasks
    WHERE id = :task_id AND queue_id = :queue_id {lock}"""
)


class HeldForAnswer(NamedTuple):
    held: HeldState | None
    claimed_at: int | None  # stored micros; None when nobody holds it
    consensus: dict[str, Any] | None  # the queue's settings in this transaction


def held_for_answer(conn: Connection, queue_id: int, task_id: int) -> HeldForAnswer:
    """`held_state`, when the current claim was taken (a B21 answer's seconds run from it), and the
    queue's consensus settings as they are in force now (B21: each answer is judged by them)."""
    row = one(conn, HELD_FOR_ANSWER, task_id=task_id, queue_id=queue_id)
    if row is None:
        return HeldForAnswer(None, None, None)
    status, assigned_to, data, created_at, source, assigned_at, consensus = row
    decoded = orjson.loads(data) if isinstance(data, str | bytes) else data
    settings = None if consensus is None else orjson.loads(consensus)
    return HeldForAnswer(HeldState(status, assigned_to, decoded, created_at, source), assigned_at, settings)


SET_DATA = Sql("UPDATE tasks SET data = :data WHERE id = :task_id")


def set_data(conn: Connection, task_id: int, data: dict[str, Any]) -> None:
    """Replace a task's values (a review's correction)."""
    run(conn, SET_DATA, data=orjson.dumps(data).decode(), task_id=task_id)


RELEASE = Sql(
    """UPDATE tasks SET status = CASE WHEN status = 'gold' THEN 'gold' ELSE 'open' END, assigned_to = NULL,
    assigned_at = NULL, lease_expires_at = NULL WHERE id = :task_id"""
)


def reopen(conn: Connection, task_id: int) -> None:
    """Back to `open` (a gold task stays gold), held by nobody."""
    run(conn, RELEASE, task_id=task_id)


COMPLETE = Sql(
    """UPDATE tasks SET status = 'completed', data = :data, completed_at = :now, completed_by = :email,
    lease_expires_at = NULL, work_micros = :now - assigned_at WHERE id = :task_id"""
)
COUNT_COMPLETION = Sql(
    """UPDATE queues SET completed_count = completed_count + 1, n_tasks = n_tasks - 1 WHERE id = :queue_id
    RETURNING webhook_target, review_percent"""
)


def mark_completed(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    held: HeldState,
    data: dict[str, Any],
    email: str,
    now: datetime,
) -> dict[str, Any]:
    """The held task completed with `data` by `email`: its row for `serialize.task` (Part A's shape,
    no assignment), made from what was written and `held` rather than read back."""
    text = orjson.dumps(data).decode()
    completed_at = to_micros(now)
    run(conn, COMPLETE, data=text, now=completed_at, email=email, task_id=task_id)
    return {
        "id": task_id,
        "status": "completed",
        "created_at": held.created_at,
        "completed_at": completed_at,
        "completed_by": email,
        "queue_name": queue.name,
        "queue_id": queue.id,
        "data": embedded(text),
        "source": held.source,
    }


class Counted(NamedTuple):
    webhook_target: str | None
    review_percent: int


def count_completion(conn: Connection, queue_id: int) -> Counted:
    """Move one task from the queue's pending count to its completed count; the queue's webhook
    target, if any, and its review share, as they are in this transaction."""
    row = one(conn, COUNT_COMPLETION, queue_id=queue_id)
    return Counted(row[0] or None, row[1]) if row is not None else Counted(None, 0)


FLUSH = Sql("DELETE FROM tasks WHERE queue_id = :queue_id AND status = :status")


def flush(conn: Connection, queue_id: int) -> dict[str, int]:
    """Delete the queue's pending tasks; how many of each status went (one range of
    ix_tasks_queue_status_id each)."""
    deleted = {status: run(conn, FLUSH, queue_id=queue_id, status=status) for status in PENDING}
    # By the rows deleted, not to zero: a task created meanwhile in another transaction still counts.
    count_pending(conn, queue_id, -sum(deleted.values()))
    drafts.drop_flushed(conn, queue_id)
    return deleted
