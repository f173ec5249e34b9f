"""The order a consensus queue's claim (B4 under B21) offers tasks in, one phase after the other:

1. tasks that already have answers, oldest first, that the caller has not answered;
2. tasks never claimed (`new`), oldest first;
3. tasks given back before anyone answered them, then claims whose lease expired, oldest first.

Disputed, settled and decided tasks are in none. A phase yields a few candidates; the claim takes
the first it can lock (PostgreSQL skips one another claim has locked) and that is still claimable
for the caller when the update runs.

"Not answered by me" without a scan: tasks with answers are grouped by the set of workers who
answered them (`consensus_tasks.answer_set`, in the index `(queue_id, state, answer_set,
task_id)`). Phase 1 walks the distinct sets (one index seek each, a loose index scan) and skips
every set the caller belongs to in one step; in each other set it takes the oldest task not held.
Its cost follows the number of distinct sets of answerers among the tasks collecting, not the
number of tasks: a worker who answered the first 100,000 tasks alone is one set, skipped in one
seek. The sets stay few by design, as the phase gives tasks with answers out first: with w
workers, a task collecting is answered by fewer than m of them, and they are drained as fast as
they appear.

Further orders (priority, due dates, reservations, gold) add a phase or a sort key here.
"""

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection

from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.types import to_micros

CANDIDATES = 8  # tasks a phase offers at once

# The caller's set contains ",<id>,"; instr and strpos are the two databases' names for it.
_CONTAINS = {"sqlite": "instr(g.k, :me)", "postgresql": "strpos(g.k, :me)"}
_OPEN_TO_ME = """(t.status = 'open' OR (t.status = 'in_progress' AND t.lease_expires_at <= :now
    AND (t.assigned_to IS NULL OR t.assigned_to <> :user_id)))"""


# Within a set, its oldest task: the set is written as a range of one value, so that ordering by
# (answer_set, task_id) is the claims index's own order and only that index serves it. (With an
# equality PostgreSQL may walk the primary key instead, filtering: at 100,000 tasks in one set that
# took 17-27 ms against 0.05 ms.) The fence (OFFSET 0) keeps PostgreSQL from running the
# subquery twice, once for the filter and once for the value.
_FENCE = {"sqlite": "LIMIT -1 OFFSET 0", "postgresql": "OFFSET 0"}


def _answered_first(dialect: str) -> Sql:
    return Sql(
        f"""WITH RECURSIVE g(k) AS (
            SELECT (SELECT min(answer_set) FROM consensus_tasks
                WHERE queue_id = :queue_id AND state = 'collecting' AND answer_set > '')
            UNION ALL
            SELECT (SELECT min(c.answer_set) FROM consensus_tasks c
                WHERE c.queue_id = :queue_id AND c.state = 'collecting' AND c.answer_set > g.k)
            FROM g WHERE g.k IS NOT NULL)
        SELECT f.first FROM (
            SELECT (SELECT c.task_id FROM consensus_tasks c JOIN tasks t ON t.id = c.task_id
                WHERE c.queue_id = :queue_id AND c.state = 'collecting' AND c.answer_set >= g.k
                AND c.answer_set <= g.k AND {_OPEN_TO_ME} ORDER BY c.answer_set, c.task_id LIMIT 1) AS first
            FROM g WHERE g.k IS NOT NULL AND {_CONTAINS[dialect]} = 0 {_FENCE[dialect]}) f
        WHERE f.first IS NOT NULL ORDER BY f.first LIMIT {CANDIDATES}"""
    )


ANSWERED_FIRST = {dialect: _answered_first(dialect) for dialect in _CONTAINS}
NEVER_CLAIMED = Sql(
    "SELECT id FROM tasks WHERE queue_id = :queue_id AND status = 'new' ORDER BY id LIMIT 1 {skip_locked}"
)
GIVEN_BACK = Sql(
    f"""SELECT c.task_id FROM consensus_tasks c JOIN tasks t ON t.id = c.task_id
    WHERE c.queue_id = :queue_id AND c.state = 'collecting' AND c.answer_set = '' AND {_OPEN_TO_ME}
    ORDER BY c.task_id LIMIT {CANDIDATES}"""
)
# Claims whose lease ran out (a task with answers among them is also in phase 1): the queue's tasks
# in progress, as many as there are claims, never all of its tasks.
EXPIRED = Sql(
    f"""SELECT t.id FROM tasks t WHERE t.queue_id = :queue_id AND t.status = 'in_progress'
    AND t.lease_expires_at <= :now AND (t.assigned_to IS NULL OR t.assigned_to <> :user_id)
    AND NOT EXISTS (SELECT 1 FROM task_answers a WHERE a.task_id = t.id AND a.worker_id = :user_id)
    AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = t.id AND c.state <> 'collecting')
    ORDER BY t.id LIMIT {CANDIDATES}"""
)

# Taking a candidate: lock it (PostgreSQL: skip it when another claim holds the lock), then take it
# if it is still claimable for the caller, read anew: not answered by them, not disputed or done.
LOCK = Sql(
    """SELECT id FROM tasks WHERE id = :task_id AND (status IN ('new', 'open')
    OR (status = 'in_progress' AND lease_expires_at <= :now)) {skip_locked}"""
)
TAKE = Sql(
    """UPDATE tasks SET status = 'in_progress', assigned_to = :user_id, assigned_at = :now, lease_expires_at = :lease
    WHERE id = :task_id AND (status IN ('new', 'open') OR (status = 'in_progress' AND lease_expires_at <= :now))
    AND NOT EXISTS (SELECT 1 FROM task_answers a WHERE a.task_id = tasks.id AND a.worker_id = :user_id)
    AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = tasks.id AND c.state <> 'collecting')"""
)

Phase = Callable[[Connection, int, int, int], list[int]]


def _answered_first_phase(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    statement = ANSWERED_FIRST[conn.dialect.name]
    found = rows(conn, statement, queue_id=queue_id, now=now, user_id=user_id, me=f",{user_id},")
    return [row[0] for row in found]


def _never_claimed(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    found = one(conn, NEVER_CLAIMED, queue_id=queue_id)
    return [] if found is None else [found[0]]


def _given_back(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    found = rows(conn, GIVEN_BACK, queue_id=queue_id, now=now, user_id=user_id)
    found += rows(conn, EXPIRED, queue_id=queue_id, now=now, user_id=user_id)
    return sorted({row[0] for row in found})[:CANDIDATES]


PHASES: tuple[Phase, ...] = (_answered_first_phase, _never_claimed, _given_back)


def take(conn: Connection, task_id: int, user_id: int, now: datetime, lease_until: datetime) -> bool:
    now_us = to_micros(now)
    # SQLite has no row locks (a write transaction holds the database): the update's own check is enough.
    if conn.dialect.name == "postgresql" and one(conn, LOCK, task_id=task_id, now=now_us) is None:
        return False
    changed = run(conn, TAKE, user_id=user_id, now=now_us, lease=to_micros(lease_until), task_id=task_id)
    return changed == 1


def next_task(
    conn: Connection, queue_id: int, user_id: int, now: datetime, lease_until: datetime, attempts: int
) -> int | None:
    """Claim the first task the order offers the caller; None when none is claimable."""
    now_us = to_micros(now)
    for _attempt in range(attempts):
        offered = False
        for phase in PHASES:
            for task_id in phase(conn, queue_id, user_id, now_us):
                offered = True
                if take(conn, task_id, user_id, now, lease_until):
                    return task_id
        if not offered:
            return None
    return None
