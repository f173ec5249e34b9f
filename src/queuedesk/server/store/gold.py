"""Gold tasks (B22): their creation, claims, scored answers, counters and lists.

A gold task is a row of `tasks` with the status 'gold' all its life, beside its `gold_tasks` row
(expected values, retired, answers and correct answers). A claim holds it through the task's own
`assigned_to` and lease, so B5, B6 and B7 find its holder as for any task. Claiming a gold task
walks the queue's gold tasks only (`ix_tasks_queue_status_id` at status 'gold'), never its ordinary
work: its cost follows the number of gold tasks the caller has answered, whatever the backlog.
"""

from datetime import datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.server.store.records import Page, QueueRecord
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.tasks import TASK_COLUMNS, TASK_FROM, full_data, task_row
from queuedesk.server.store.types import to_micros

CANDIDATES = 8

INSERT_TASK = Sql(
    """INSERT INTO tasks (queue_id, status, data, source, created_at)
    VALUES (:queue_id, 'gold', :data, :source, :created_at) RETURNING id"""
)
INSERT_GOLD = Sql(
    "INSERT INTO gold_tasks (task_id, queue_id, expected, retired, answered, correct) "
    "VALUES (:task_id, :queue_id, :expected, FALSE, 0, 0)"
)


def create(
    conn: Connection,
    queue: QueueRecord,
    data: dict[str, Any],
    expected: dict[str, Any],
    source: str,
    now: datetime,
) -> int:
    """A gold task: not pending work (the queue's `n_tasks` does not move), its id."""
    row = one(
        conn,
        INSERT_TASK,
        queue_id=queue.id,
        data=orjson.dumps(full_data(queue, data)).decode(),
        source=source,
        created_at=to_micros(now),
    )
    assert row is not None
    run(conn, INSERT_GOLD, task_id=row[0], queue_id=queue.id, expected=orjson.dumps(expected).decode())
    return int(row[0])


class GoldState(NamedTuple):
    expected: dict[str, Any]
    retired: bool
    answered: int
    correct: int


STATE = Sql("SELECT expected, retired, answered, correct FROM gold_tasks WHERE task_id = :task_id")


def state(conn: Connection, task_id: int) -> GoldState | None:
    """The gold task's expected values and counts; None for a task that is not gold."""
    found = one(conn, STATE, task_id=task_id)
    if found is None:
        return None
    return GoldState(orjson.loads(found[0]), bool(found[1]), int(found[2]), int(found[3]))


STATES = Sql(
    "SELECT task_id, expected, retired, answered, correct FROM gold_tasks WHERE queue_id = :queue_id "
    "AND task_id >= :first AND task_id <= :last"
)


def states(conn: Connection, queue_id: int, task_ids: list[int]) -> dict[int, GoldState]:
    if not task_ids:
        return {}
    found = rows(conn, STATES, queue_id=queue_id, first=min(task_ids), last=max(task_ids))
    wanted = set(task_ids)
    return {
        row[0]: GoldState(orjson.loads(row[1]), bool(row[2]), int(row[3]), int(row[4]))
        for row in found
        if row[0] in wanted
    }


# Every walk of the gold tasks orders by (status, id): the order of `ix_tasks_queue_status_id` itself,
# so PostgreSQL reads that index's range of gold tasks; ordered by id alone it may walk the primary
# key instead, filtering a million ordinary tasks. The caller's own gold claim (live or expired, as
# B4's own claim):
OWN = Sql(
    "SELECT id, lease_expires_at FROM tasks WHERE queue_id = :queue_id AND status = 'gold' AND assigned_to = :user_id "
    "ORDER BY status, id LIMIT 1"
)
RENEW_OWN = Sql(
    "UPDATE tasks SET lease_expires_at = :lease WHERE id = :task_id AND status = 'gold' "
    "AND assigned_to = :user_id"
)
# The oldest gold tasks the caller may take: not retired, not answered by them, held by nobody (or
# by someone else whose lease expired).
NEXT = Sql(
    f"""SELECT t.id FROM tasks t JOIN gold_tasks g ON g.task_id = t.id
    WHERE t.queue_id = :queue_id AND t.status = 'gold' AND g.retired = FALSE
    AND t.id >= :start AND (t.assigned_to IS NULL OR (t.lease_expires_at <= :now AND t.assigned_to <> :user_id))
    AND NOT EXISTS (SELECT 1 FROM gold_answers a WHERE a.task_id = t.id AND a.worker_id = :user_id)
    ORDER BY t.status, t.id LIMIT {CANDIDATES}"""
)
# The worker's first gold task not answered and not retired, from where their walk starts: the
# answered ones before it are passed once, and the walk starts after them from then on.
FIRST_OPEN = Sql(
    """SELECT t.id FROM tasks t JOIN gold_tasks g ON g.task_id = t.id
    WHERE t.queue_id = :queue_id AND t.status = 'gold' AND t.id >= :start AND g.retired = FALSE
    AND NOT EXISTS (SELECT 1 FROM gold_answers a WHERE a.task_id = t.id AND a.worker_id = :user_id)
    ORDER BY t.status, t.id LIMIT 1"""
)
LAST_GOLD = Sql(
    "SELECT id FROM tasks WHERE queue_id = :queue_id AND status = 'gold' ORDER BY status DESC, id DESC LIMIT 1"
)
MOVE_START = Sql(
    """UPDATE gold_claims SET gold_from = :start WHERE queue_id = :queue_id AND worker_id = :user_id
    AND gold_from < :start"""
)
LOCK = Sql(
    """SELECT id FROM tasks WHERE id = :task_id AND status = 'gold'
    AND (assigned_to IS NULL OR lease_expires_at <= :now) {skip_locked}"""
)
TAKE = Sql(
    """UPDATE tasks SET assigned_to = :user_id, assigned_at = :now, lease_expires_at = :lease
    WHERE id = :task_id AND status = 'gold' AND (assigned_to IS NULL OR lease_expires_at <= :now)"""
)


class OwnClaim(NamedTuple):
    task_id: int
    lease_expires_at: int | None  # stored micros


def own_claim(conn: Connection, queue_id: int, user_id: int) -> OwnClaim | None:
    """The caller's gold claim in the queue, live or expired (a worker holds at most one)."""
    found = one(conn, OWN, queue_id=queue_id, user_id=user_id)
    return None if found is None else OwnClaim(int(found[0]), found[1])


# B4's 204: gold tasks under other workers' live claims count among the tasks held.
HELD_BY_OTHERS = Sql(
    """SELECT count(*) FROM tasks WHERE queue_id = :queue_id AND status = 'gold'
    AND lease_expires_at > :now AND assigned_to <> :user_id"""
)


def held_by_others(conn: Connection, queue_id: int, user_id: int, now: datetime) -> int:
    found = one(conn, HELD_BY_OTHERS, queue_id=queue_id, user_id=user_id, now=to_micros(now))
    return int(found[0]) if found else 0


def renew_own(conn: Connection, task_id: int, user_id: int, lease_until: datetime) -> bool:
    return run(conn, RENEW_OWN, lease=to_micros(lease_until), task_id=task_id, user_id=user_id) == 1


def next_gold(
    conn: Connection, queue_id: int, user_id: int, now: datetime, lease_until: datetime, start: int = 0
) -> int | None:
    """Claim the oldest gold task the caller has not answered; None when there is none. `start`: the
    caller's walk starts there (every gold task below it is answered by them or retired)."""
    now_us = to_micros(now)
    first = one(conn, FIRST_OPEN, queue_id=queue_id, user_id=user_id, start=start)
    if first is None:  # all answered: the walk starts after the last gold task
        last = one(conn, LAST_GOLD, queue_id=queue_id)
        first = (int(last[0]) + 1,) if last and last[0] is not None else None
    if first is not None and first[0] > start:
        start = int(first[0])
        run(conn, MOVE_START, start=start, queue_id=queue_id, user_id=user_id)
    candidates = rows(conn, NEXT, queue_id=queue_id, user_id=user_id, now=now_us, start=start)
    for (task_id,) in candidates:
        if conn.dialect.name == "postgresql" and one(conn, LOCK, task_id=task_id, now=now_us) is None:
            continue
        taken = run(conn, TAKE, user_id=user_id, now=now_us, lease=to_micros(lease_until), task_id=task_id)
        if taken == 1:
            return int(task_id)
    return None


# The share's k: the caller's claims in the queue, made while it had a share, that gave them a task
# not already theirs.
CLAIMS_READ = Sql(
    """SELECT q.gold_percent, c.claims, c.gold_from FROM queues q
    LEFT JOIN gold_claims c ON c.queue_id = q.id AND c.worker_id = :user_id WHERE q.id = :queue_id"""
)
# One statement, so two claims of one caller at once never both insert the first row.
CLAIMS_BUMP = Sql(
    """INSERT INTO gold_claims (queue_id, worker_id, claims) VALUES (:queue_id, :user_id, 1)
    ON CONFLICT (queue_id, worker_id) DO UPDATE SET claims = gold_claims.claims + 1"""
)


class Share(NamedTuple):
    percent: int  # the queue's gold_percent
    k: int  # the caller's claims under a share so far that gave them a task not already theirs
    start: int  # where the caller's walk of the gold tasks starts


def share_and_count(conn: Connection, queue_id: int, user_id: int) -> Share:
    """The queue's gold share and the caller's k, as they are in this transaction."""
    found = one(conn, CLAIMS_READ, queue_id=queue_id, user_id=user_id)
    if found is None:
        return Share(0, 0, 0)
    return Share(int(found[0]), int(found[1] or 0), int(found[2] or 0))


def count_claim(conn: Connection, queue_id: int, user_id: int) -> None:
    """One more claim that gave the caller a task not already theirs."""
    run(conn, CLAIMS_BUMP, queue_id=queue_id, user_id=user_id)


ANSWERED = Sql("SELECT 1 FROM gold_answers WHERE task_id = :task_id AND worker_id = :user_id")
INSERT_ANSWER = Sql(
    """INSERT INTO gold_answers (task_id, worker_id, queue_id, worker_email, answered_at, data, expected,
    correct, wrong) VALUES (:task_id, :user_id, :queue_id, :email, :now, :data, :expected, :correct, :wrong)"""
)
SCORE = Sql(
    "UPDATE gold_tasks SET answered = answered + 1, correct = correct + :correct WHERE task_id = :task_id"
)
LET_GO = Sql(
    "UPDATE tasks SET assigned_to = NULL, assigned_at = NULL, lease_expires_at = NULL WHERE id = :task_id"
)
MINUTE_BUMP = Sql(
    """INSERT INTO gold_minutes (queue_id, worker, minute, answered, correct)
    VALUES (:queue_id, :email, :minute, 1, :correct)
    ON CONFLICT (queue_id, worker, minute) DO UPDATE SET answered = gold_minutes.answered + 1,
    correct = gold_minutes.correct + :correct"""
)
DROP_DRAFT = Sql("DELETE FROM task_drafts WHERE task_id = :task_id AND user_id = :user_id")


WORKER_ANSWER = Sql(
    "SELECT answered_at, data FROM gold_answers WHERE task_id = :task_id AND worker_id = :user_id"
)


def worker_answer(conn: Connection, task_id: int, user_id: int) -> tuple[int, Any] | None:
    """(answered_at as stored micros, the values) of the worker's answer to the task, if any."""
    found = one(conn, WORKER_ANSWER, task_id=task_id, user_id=user_id)
    return None if found is None else (int(found[0]), orjson.loads(found[1]))


def has_answered(conn: Connection, task_id: int, user_id: int) -> bool:
    return one(conn, ANSWERED, task_id=task_id, user_id=user_id) is not None


class Answer(NamedTuple):
    task_id: int
    queue_id: int
    worker_id: int
    email: str
    data: dict[str, Any]
    expected: dict[str, Any]
    wrong: list[str]


def record_answer(conn: Connection, answer: Answer, now: datetime) -> None:
    """The scored answer, the task's and the minute's counts, and the task free for the next worker."""
    correct = 0 if answer.wrong else 1
    now_us = to_micros(now)
    run(
        conn,
        INSERT_ANSWER,
        task_id=answer.task_id,
        user_id=answer.worker_id,
        queue_id=answer.queue_id,
        email=answer.email,
        now=now_us,
        data=orjson.dumps(answer.data).decode(),
        expected=orjson.dumps(answer.expected).decode(),
        correct=bool(correct),
        wrong=orjson.dumps(answer.wrong).decode(),
    )
    run(conn, SCORE, correct=correct, task_id=answer.task_id)
    run(conn, LET_GO, task_id=answer.task_id)
    run(conn, DROP_DRAFT, task_id=answer.task_id, user_id=answer.worker_id)
    minute = now_us // 60_000_000
    params = {"queue_id": answer.queue_id, "email": answer.email, "minute": minute, "correct": correct}
    run(conn, MINUTE_BUMP, **params)


SET_EXPECTED = Sql("UPDATE gold_tasks SET expected = :expected WHERE task_id = :task_id")
RETIRE = Sql("UPDATE gold_tasks SET retired = TRUE WHERE task_id = :task_id")


def set_expected(conn: Connection, task_id: int, expected: dict[str, Any]) -> None:
    run(conn, SET_EXPECTED, expected=orjson.dumps(expected).decode(), task_id=task_id)


def retire(conn: Connection, task_id: int) -> None:
    run(conn, RETIRE, task_id=task_id)


# B2 with gold=true: the queue's gold tasks, oldest first.
LIST_COUNT = Sql("SELECT count(*) FROM tasks WHERE queue_id = :queue_id AND status = 'gold'")
LIST_PAGE = Sql(
    f"""SELECT {TASK_COLUMNS} {TASK_FROM} WHERE t.queue_id = :queue_id AND t.status = 'gold'
    ORDER BY t.status, t.id LIMIT :limit OFFSET :offset"""
)


def list_gold(conn: Connection, queue_id: int, offset: int, limit: int, viewer_id: int) -> Page:
    total = one(conn, LIST_COUNT, queue_id=queue_id)
    found = rows(conn, LIST_PAGE, queue_id=queue_id, limit=limit, offset=offset, viewer_id=viewer_id)
    return Page(total[0] if total else 0, [task_row(row) for row in found])


ANSWER_COLUMNS = "task_id, worker_email, answered_at, data, expected, correct, wrong"


def list_answers(
    conn: Connection, queue_id: int, offset: int, limit: int, worker: str | None, correct: bool | None
) -> Page:
    """GET .../gold/answers: newest first (then task id), filtered by worker and by score."""
    where = "queue_id = :queue_id"
    params: dict[str, Any] = {"queue_id": queue_id}
    if worker is not None:
        where += " AND worker_email = :worker"
        params["worker"] = worker
    if correct is not None:
        where += " AND correct = :correct"
        params["correct"] = correct
    total = one(conn, Sql(f"SELECT count(*) FROM gold_answers WHERE {where}"), **params)
    page = Sql(
        f"""SELECT {ANSWER_COLUMNS} FROM gold_answers WHERE {where}
        ORDER BY answered_at DESC, task_id DESC LIMIT :limit OFFSET :offset"""
    )
    found = rows(conn, page, limit=limit, offset=offset, **params)
    return Page(total[0] if total else 0, [_answer(row) for row in found])


def _answer(row: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "task_id": row[0],
        "worker": row[1],
        "answered_at": row[2],
        "data": orjson.loads(row[3]),
        "expected": orjson.loads(row[4]),
        "correct": bool(row[5]),
        "wrong": orjson.loads(row[6]),
    }


# B15: per worker, gold answers and correct ones over [since, now), from the minutes' counts (the
# answers of the first, partial minute read from their own index).
WORKER_MINUTES = Sql(
    """SELECT worker, sum(answered), sum(correct) FROM gold_minutes
    WHERE queue_id = :queue_id AND minute >= :first_minute GROUP BY worker"""
)
WORKER_EDGE = Sql(
    """SELECT worker_email, count(*), sum(CASE WHEN correct THEN 1 ELSE 0 END) FROM gold_answers
    WHERE queue_id = :queue_id AND answered_at >= :since AND answered_at < :edge GROUP BY worker_email"""
)


def per_worker(conn: Connection, queue_id: int, since: datetime) -> dict[str, tuple[int, int]]:
    """{worker email: (gold answered, gold correct)} since `since`."""
    since_us = to_micros(since)
    first_minute = -(-since_us // 60_000_000)  # the first whole minute from `since` on
    counts: dict[str, tuple[int, int]] = {}
    for worker, answered, correct in rows(conn, WORKER_MINUTES, queue_id=queue_id, first_minute=first_minute):
        counts[worker] = (int(answered or 0), int(correct or 0))
    edge = first_minute * 60_000_000
    if edge > since_us:
        for worker, answered, correct in rows(
            conn, WORKER_EDGE, queue_id=queue_id, since=since_us, edge=edge
        ):
            before = counts.get(worker, (0, 0))
            counts[worker] = (before[0] + int(answered or 0), before[1] + int(correct or 0))
    return counts
