"""Import sessions: an import in several requests, all or nothing.

Rows are staged in `import_rows`, which no list or claim reads; committing moves every staged row
into `tasks` in one transaction and keeps the answer (the ids) on the session, so committing again
answers the same. Each function is one unit of work: run it with `Database.write`.

On PostgreSQL the session's row is locked (`FOR UPDATE`) by staging and committing, so a chunk never
lands in a session while it is being committed and two commits never both insert.
"""

from collections.abc import Callable
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, text

from queuedesk.server.store import upgrade_v12
from queuedesk.server.store.embedded import embedded
from queuedesk.server.store.records import QueueRecord
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.tasks import count_pending, full_data
from queuedesk.server.store.types import from_micros, to_micros

STAGED_FOR = timedelta(hours=24)  # a staged session lives this long after its last chunk
ANSWER_KEPT_FOR = timedelta(days=7)  # a committed session answers re-runs this long


class Session(NamedTuple):
    id: int
    key: str
    status: str  # staged | committed
    source: str
    total: int
    staged: int
    next_offset: int
    created_at: datetime
    expires_at: datetime
    committed_at: datetime | None
    created: int | None
    ids: Any  # the created tasks' ids as stored JSON (`embedded`), written into answers as they are


class CommitOutcome(Enum):
    COMMITTED = "committed"  # by this call
    ALREADY = "already"  # by an earlier call: the same answer
    INCOMPLETE = "incomplete"  # rows are missing: nothing done


SESSION_COLUMNS = "id, key, status, source, total, created_at, expires_at, committed_at, created, ids, staged_rows, first_missing"
BY_KEY = Sql(
    f"SELECT {SESSION_COLUMNS} FROM import_sessions WHERE queue_id = :queue_id AND key = :key {{lock}}"
)
BY_ID_WHERE = "WHERE id = :session_id AND queue_id = :queue_id AND expires_at > :now"
BY_ID = Sql(f"SELECT {SESSION_COLUMNS} FROM import_sessions {BY_ID_WHERE} {{lock}}")
# The same row without its ids: a committed session's may be a million numbers (megabytes of text).
BY_ID_WITHOUT_IDS = Sql(
    f"SELECT {SESSION_COLUMNS.replace(', ids,', ', NULL,')} FROM import_sessions {BY_ID_WHERE} {{lock}}"
)
CREATE = Sql(
    """INSERT INTO import_sessions (queue_id, key, source, total, status, created_at, expires_at)
    VALUES (:queue_id, :key, :source, :total, 'staged', :now, :expires_at)
    ON CONFLICT (queue_id, key) DO NOTHING"""
)
DROP_EXPIRED = Sql("DELETE FROM import_sessions WHERE expires_at <= :now")
# An expired session's key is freed for a new session by renaming it (one short row), never by
# deleting its staged rows in the request: a million of them once stopped the server for 1.39 s.
# `~` is never in a key a client gives.
RETIRED_KEY = "~expired~"
RETIRE_EXPIRED_KEY = Sql(
    """UPDATE import_sessions SET key = :retired || CAST(id AS VARCHAR(20))
    WHERE queue_id = :queue_id AND key = :key AND expires_at <= :now"""
)
EXPIRED = Sql("SELECT id, total FROM import_sessions WHERE expires_at <= :now ORDER BY id LIMIT :limit")
DROP_EXPIRED_SESSION = Sql("DELETE FROM import_sessions WHERE id = :session_id AND expires_at <= :now")
STAGED_IN = Sql(
    """SELECT count(*) FROM import_rows WHERE session_id = :session_id
    AND position >= :start AND position < :stop"""
)
FIRST_GAP_FROM = Sql(upgrade_v12.FIRST_GAP_FROM)
PROGRESS = Sql(
    """UPDATE import_sessions SET staged_rows = staged_rows + :added, first_missing = :first_missing,
    expires_at = :expires_at WHERE id = :session_id"""
)
# Re-sent rows (the same session and position) change nothing: the first staging stands.
STAGE = text(
    """INSERT INTO import_rows (session_id, position, data, gold) VALUES (:session_id, :position, :data, :gold)
    ON CONFLICT (session_id, position) DO NOTHING"""
)
MOVE_ROWS = Sql(
    """INSERT INTO tasks (queue_id, status, data, source, created_at)
    SELECT :queue_id, CASE WHEN gold IS NULL THEN 'new' ELSE 'gold' END, data, :source, :now
    FROM import_rows WHERE session_id = :session_id
    ORDER BY position RETURNING id"""
)
# PostgreSQL: the same, with the ids listed by the database: 200,000 rows each turned into a Python
# int on the event loop (where PostgreSQL's units run) held others' requests up for ~50 ms.
MOVE_ROWS_LISTED = Sql(
    f"""WITH moved AS ({MOVE_ROWS.source})
    SELECT count(*), min(id), max(id), coalesce('[' || string_agg(id::text, ',' ORDER BY id) || ']', '[]')
    FROM moved"""
)
# SQLite: the same without a row per task coming back into Python. The write transaction holds the
# whole database and `tasks` is AUTOINCREMENT, so one statement's ids follow each other: the last
# one and the number inserted say them all.
MOVE_ROWS_QUIETLY = Sql(MOVE_ROWS.source.removesuffix(" RETURNING id"))
LAST_ID = Sql("SELECT last_insert_rowid()")
MARK_COMMITTED = Sql(
    """UPDATE import_sessions SET status = 'committed', committed_at = :now, expires_at = :expires_at,
    created = :created, ids = :ids WHERE id = :session_id"""
)
# A committed session's staged rows are dead (nothing reads them): they go after the commit, a
# batch of positions per transaction, so the commit itself stays as short as it can be.
DROP_ROWS = Sql(
    "DELETE FROM import_rows WHERE session_id = :session_id AND position >= :start AND position < :stop"
)
DROP_BATCH = 20_000


def _session(row: tuple[Any, ...]) -> Session:
    session_id, key, status, source, total, created_at, expires_at, committed_at, created, ids, *progress = (
        row
    )
    staged, next_offset = (created, created) if status == "committed" else progress
    return Session(
        id=session_id,
        key=key,
        status=status,
        source=source,
        total=total,
        staged=staged,
        next_offset=next_offset,
        created_at=from_micros(created_at),
        expires_at=from_micros(expires_at),
        committed_at=None if committed_at is None else from_micros(committed_at),
        created=created,
        ids=None if ids is None else embedded(ids),
    )


def drop_expired(conn: Connection, now: datetime) -> int:
    """Delete staged sessions past their time, and committed ones whose answer is no longer kept
    (with their rows, in one transaction: at the server's start only)."""
    return run(conn, DROP_EXPIRED, now=to_micros(now))


def expired_sessions(conn: Connection, now: datetime, limit: int = 100) -> list[tuple[int, int]]:
    """(id, total) of sessions past their time, oldest first: their rows go a batch at a time
    (`drop_rows`), then the session (`drop_expired_session`)."""
    return [(row[0], row[1]) for row in rows(conn, EXPIRED, now=to_micros(now), limit=limit)]


def drop_expired_session(conn: Connection, session_id: int, now: datetime) -> int:
    """The expired session's row, once its staged rows are gone (whatever is left goes with it)."""
    return run(conn, DROP_EXPIRED_SESSION, session_id=session_id, now=to_micros(now))


def open_session(
    conn: Connection, queue_id: int, key: str, source: str, total: int, now: datetime
) -> Session:
    """The queue's live session with this key, made now if there is none (an expired one with the
    key is renamed out of the way, left for `expired_sessions`). The caller compares its source and
    total with what it asked for."""
    run(conn, RETIRE_EXPIRED_KEY, retired=RETIRED_KEY, queue_id=queue_id, key=key, now=to_micros(now))
    run(
        conn,
        CREATE,
        queue_id=queue_id,
        key=key,
        source=source,
        total=total,
        now=to_micros(now),
        expires_at=to_micros(now + STAGED_FOR),
    )
    row = one(conn, BY_KEY, queue_id=queue_id, key=key)
    assert row is not None  # made above, or there already, in this transaction
    return _session(row)


def get_session(
    conn: Connection, queue_id: int, session_id: int, now: datetime, *, with_ids: bool = True
) -> Session | None:
    """The live session; without `with_ids` its `ids` are None: one short row whatever its size."""
    by_id = BY_ID if with_ids else BY_ID_WITHOUT_IDS
    row = one(conn, by_id, session_id=session_id, queue_id=queue_id, now=to_micros(now))
    return None if row is None else _session(row)


def stage(
    conn: Connection,
    queue: QueueRecord,
    session_id: int,
    offset: int,
    items: list[dict[str, Any]],
    now: datetime,
    gold: list[dict[str, Any] | None] | None = None,
) -> Session | None:
    """Stage `items` at positions `offset`, `offset + 1`, ...; rows already staged there stay as they
    were. `gold` (B22): each row's expected values, None for an ordinary task. A committed session is answered unchanged; None when there is no such live session."""
    row = one(conn, BY_ID_WITHOUT_IDS, session_id=session_id, queue_id=queue.id, now=to_micros(now))
    if row is None:
        return None
    if row[2] == "staged":
        span = {"session_id": session_id, "start": offset, "stop": offset + len(items)}
        (before,) = one(conn, STAGED_IN, **span) or (0,)
        conn.execute(
            STAGE,
            [
                {
                    "session_id": session_id,
                    "position": offset + index,
                    "data": orjson.dumps(full_data(queue, data)).decode(),
                    "gold": None if not gold or gold[index] is None else orjson.dumps(gold[index]).decode(),
                }
                for index, data in enumerate(items)
            ],
        )
        (after,) = one(conn, STAGED_IN, **span) or (0,)
        first_missing = row[-1]
        if offset <= first_missing < offset + len(items):  # the chunk filled the first gap: find the next
            found = one(conn, FIRST_GAP_FROM, session_id=session_id, start=offset + len(items))
            first_missing = found[0] if found is not None else offset + len(items)
        run(
            conn,
            PROGRESS,
            added=after - before,
            first_missing=first_missing,
            expires_at=to_micros(now + STAGED_FOR),
            session_id=session_id,
        )
        row = one(conn, BY_ID_WITHOUT_IDS, session_id=session_id, queue_id=queue.id, now=to_micros(now))
        assert row is not None
    return _session(row)


class Moved(NamedTuple):
    """What a commit made of the staged rows."""

    created: int
    first_id: int | None
    last_id: int | None
    ids: str  # every new task's id in row order, a JSON list


def commit(
    conn: Connection,
    queue_id: int,
    session_id: int,
    now: datetime,
    on_commit: Callable[[Session, Moved], None] | None = None,
) -> tuple[Session, CommitOutcome] | None:
    """Move every staged row into `tasks` (new, in row order) and keep the answer on the session;
    `on_commit` gets the session and what was moved in the same transaction. Nothing is done when rows
    are missing, or when the session was committed before (its answer stands). None when there is
    no such live session."""
    row = one(conn, BY_ID, session_id=session_id, queue_id=queue_id, now=to_micros(now))
    if row is None:
        return None
    session = _session(row)
    if session.status == "committed":
        return session, CommitOutcome.ALREADY
    if session.staged != session.total:
        return session, CommitOutcome.INCOMPLETE
    moved = _move_rows(conn, queue_id, session.source, now, session_id)
    golden = _gold_rows(conn, queue_id, session_id, moved)
    count_pending(conn, queue_id, moved.created - golden)
    run(
        conn,
        MARK_COMMITTED,
        now=to_micros(now),
        expires_at=to_micros(now + ANSWER_KEPT_FOR),
        created=moved.created,
        ids=moved.ids,
        session_id=session_id,
    )
    committed = session._replace(
        status="committed",
        committed_at=now,
        expires_at=now + ANSWER_KEPT_FOR,
        created=moved.created,
        ids=embedded(moved.ids),
    )
    if on_commit is not None:
        on_commit(committed, moved)
    return committed, CommitOutcome.COMMITTED


GOLD_ROWS = Sql(
    "SELECT position, gold FROM import_rows WHERE session_id = :session_id AND gold IS NOT NULL ORDER BY position"
)
ADD_GOLD = Sql(
    "INSERT INTO gold_tasks (task_id, queue_id, expected, retired, answered, correct) "
    "VALUES (:task_id, :queue_id, :expected, FALSE, 0, 0)"
)


def _gold_rows(conn: Connection, queue_id: int, session_id: int, moved: Moved) -> int:
    """B22: the gold tasks among the rows moved (their `status` is 'gold'), given their expected
    values; how many there are (they are no pending work)."""
    found = rows(conn, GOLD_ROWS, session_id=session_id)
    if not found:
        return 0
    ids = orjson.loads(moved.ids)
    for position, expected in found:
        run(conn, ADD_GOLD, task_id=ids[position], queue_id=queue_id, expected=expected)
    return len(found)


def _move_rows(conn: Connection, queue_id: int, source: str, now: datetime, session_id: int) -> Moved:
    """The staged rows made tasks (ids are handed out in row order)."""
    params = {"queue_id": queue_id, "source": source, "now": to_micros(now), "session_id": session_id}
    if conn.dialect.name == "sqlite":
        count = run(conn, MOVE_ROWS_QUIETLY, **params)
        last = one(conn, LAST_ID)
        assert last is not None
        if not count:
            return Moved(0, None, None, "[]")
        first = last[0] - count + 1
        return Moved(count, first, last[0], orjson.dumps(list(range(first, last[0] + 1))).decode())
    listed = one(conn, MOVE_ROWS_LISTED, **params)
    assert listed is not None
    count, first, last, ids = listed
    return Moved(count, first, last, ids)


def drop_rows(conn: Connection, session_id: int, start: int, stop: int) -> int:
    """Remove a committed or expired session's staged rows at positions [start, stop); how many went."""
    return run(conn, DROP_ROWS, session_id=session_id, start=start, stop=stop)
