"""The orders claims offer tasks in.

**Every queue (B4 with B24 and B25)**: `TaskClaims` below. Tasks reserved for the caller first, then
tasks reserved for nobody (never one reserved for someone else); within each, higher `priority`
first, then the earlier due date (none last), then as before: never claimed (`new`) before given
back (`open`) before a claim whose lease expired, oldest first. A task the caller gave back within
the last lease period is skipped, and goes to them again only when nothing else is claimable.
Each of the three kinds is one seek of `ix_tasks_claim_order` (partial: only `new` and `open` tasks
are in it, so claims and completions take tasks out of it and no walk passes held or completed
work) or, for expired claims, a look at the queue's few tasks in progress; the three candidates come
back in one statement, and the first in the order is taken.

**A consensus queue (B4 under B21)** offers tasks one phase after the other:

0. tasks reserved for the caller (B25), in B24's order;
1. tasks that already have answers, oldest first, that the caller has not answered;
2. tasks never claimed (`new`), oldest first;
3. tasks given back before anyone answered them, then claims whose lease expired, oldest first.

Disputed, settled and decided tasks are in none, nor tasks reserved for someone else; phase 2 is in
B24's order (priority, due date, age). A phase yields a few candidates; the claim takes
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

Further orders add a phase or a sort key here (see ORDER_KEYS for B24's `least_confident`).
"""

import time
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection

from queuedesk.server.store.claims import Claim, Claims, ClaimTable
from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.types import to_micros

CANDIDATES = 8  # tasks a phase offers at once
CLAIMABLE = "status IN ('new', 'open')"  # the partial condition of ix_tasks_claim_order, word for word
# B24's order within a reservation: the index's own order after (queue_id, reserved_for).
B24_ORDER = "priority DESC, due_at, status, id"
# A seek says the index's column before them too: PostgreSQL does not take `reserved_for IS NULL` as
# fixing the column, and would sort the whole part instead of walking it (a no-op for the order).
SEEK_ORDER = f"reserved_for, {B24_ORDER}"

# The caller's set contains ",<id>,"; instr and strpos are the two databases' names for it.
_CONTAINS = {"sqlite": "instr(g.k, :me)", "postgresql": "strpos(g.k, :me)"}
_OPEN_TO_ME = """(t.status = 'open' OR (t.status = 'in_progress' AND t.lease_expires_at <= :now
    AND (t.assigned_to IS NULL OR t.assigned_to <> :user_id))) AND (t.reserved_for IS NULL OR t.reserved_for = :user_id)"""


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
# Never claimed, reserved for nobody, in B24's order (the claim order's index: its partial
# condition is repeated for SQLite to use it; `status || ''` keeps SQLite from taking `status` as a
# seek, which would make it sort every task of the queue for the order's last columns).
NEVER_CLAIMED = Sql(
    f"""SELECT id FROM tasks WHERE queue_id = :queue_id AND reserved_for IS NULL AND {CLAIMABLE}
    AND status || '' = 'new' ORDER BY {SEEK_ORDER} LIMIT 1 {{skip_locked}}"""
)
# Phase 0 (B25): reserved for the caller, not answered by them, not disputed or done.
RESERVED_FOR_ME = Sql(
    f"""SELECT t.id FROM tasks t WHERE t.queue_id = :queue_id AND t.reserved_for = :user_id AND {CLAIMABLE}
    AND NOT EXISTS (SELECT 1 FROM task_answers a WHERE a.task_id = t.id AND a.worker_id = :user_id)
    AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = t.id AND c.state <> 'collecting')
    ORDER BY {SEEK_ORDER} LIMIT {CANDIDATES}"""
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
    AND (t.reserved_for IS NULL OR t.reserved_for = :user_id)
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
    AND (reserved_for IS NULL OR reserved_for = :user_id)
    AND NOT EXISTS (SELECT 1 FROM task_answers a WHERE a.task_id = tasks.id AND a.worker_id = :user_id)
    AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = tasks.id AND c.state <> 'collecting')"""
)

Phase = Callable[[Connection, int, int, int], list[int]]


def _answered_first_phase(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    statement = ANSWERED_FIRST[conn.dialect.name]
    found = rows(conn, statement, queue_id=queue_id, now=now, user_id=user_id, me=f",{user_id},")
    return [row[0] for row in found]


def _reserved_for_me(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    return [row[0] for row in rows(conn, RESERVED_FOR_ME, queue_id=queue_id, user_id=user_id)]


def _never_claimed(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    found = one(conn, NEVER_CLAIMED, queue_id=queue_id)
    return [] if found is None else [found[0]]


def _given_back(conn: Connection, queue_id: int, user_id: int, now: int) -> list[int]:
    found = rows(conn, GIVEN_BACK, queue_id=queue_id, now=now, user_id=user_id)
    found += rows(conn, EXPIRED, queue_id=queue_id, now=now, user_id=user_id)
    return sorted({row[0] for row in found})[:CANDIDATES]


PHASES: tuple[Phase, ...] = (_reserved_for_me, _answered_first_phase, _never_claimed, _given_back)


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


# --- every queue: B4 with B24 and B25 ----------------------------------------------------------------

# A queue's `order` -> the sort within a reservation. "least_confident" (B24) sorts by priority, then
# the task's lowest suggestion score (tasks without a scored suggestion after), then as "oldest":
# until B23 stores that score on the task (and an index in this order serves it), it claims as
# "oldest". THE PLACE IT PLUGS IN: a column (e.g. `min_score`, NULLs as 2.0 like NO_DUE) put between
# `priority DESC` and `due_at` here and in a second partial index, and `TaskClaims` choosing the
# statements of the queue's order.
ORDER_KEYS = {"oldest": B24_ORDER, "least_confident": B24_ORDER}

# Not a task the caller gave back within the last lease period (see `tasks.released_by`).
_NOT_RECENTLY_MINE = "(released_by IS NULL OR released_by <> :user_id OR released_until <= :now)"
# Expired claims: only the queue's tasks in progress are looked at (as many as there are claims).
# With `others_only` (claiming ahead), not the caller's own expired claim, which they still show.
_EXPIRED = """SELECT id, CASE WHEN reserved_for IS NULL THEN 1 ELSE 0 END AS phase, priority, due_at, 'x' AS rank
    FROM tasks WHERE queue_id = :queue_id AND status = 'in_progress' AND lease_expires_at <= :now
    AND (reserved_for IS NULL OR reserved_for = :user_id){others}
    ORDER BY phase, {order} LIMIT 1 {{skip_locked}}"""
_NOT_MINE = " AND (assigned_to IS NULL OR assigned_to <> :user_id)"


def _candidates(order: str, others_only: bool, *, with_expired: bool = True) -> Sql:
    """The first task reserved for the caller, the first reserved for nobody, the first expired
    claim: (id, phase, priority, due_at, rank) each, in one statement (PostgreSQL locks each,
    skipping those other claims hold)."""
    seek = f"""SELECT id, {{phase}} AS phase, priority, due_at, status AS rank FROM tasks
        WHERE queue_id = :queue_id AND reserved_for {{whose}} AND {CLAIMABLE} AND {_NOT_RECENTLY_MINE}
        ORDER BY reserved_for, {order} LIMIT 1 {{{{skip_locked}}}}"""
    expired = _EXPIRED.format(others=_NOT_MINE if others_only else "", order=order.replace("status, ", ""))
    if not with_expired:  # no lease has run out (see TaskClaims.own_claim): the two seeks alone
        return Sql(
            f"""WITH mine AS ({seek.format(phase=0, whose="= :user_id")}),
            anyone AS ({seek.format(phase=1, whose="IS NULL")})
            SELECT * FROM mine UNION ALL SELECT * FROM anyone"""
        )
    return Sql(
        f"""WITH mine AS ({seek.format(phase=0, whose="= :user_id")}),
        anyone AS ({seek.format(phase=1, whose="IS NULL")}),
        expired AS ({expired})
        SELECT * FROM mine UNION ALL SELECT * FROM anyone UNION ALL SELECT * FROM expired"""
    )


# Nothing else claimable: the caller's own recent give-backs, reserved for them first. The same two
# seeks without the filter: when the first statement found nothing, the caller's recent give-backs
# are all that is left in these two parts of the index.
def _given_back_by_me(order: str) -> Sql:
    seek = f"""SELECT id, {{phase}} AS phase FROM tasks WHERE queue_id = :queue_id AND reserved_for {{whose}}
        AND {CLAIMABLE} ORDER BY reserved_for, {order} LIMIT 1 {{{{skip_locked}}}}"""
    return Sql(
        f"""WITH mine AS ({seek.format(phase=0, whose="= :user_id")}),
        anyone AS ({seek.format(phase=1, whose="IS NULL")})
        SELECT id FROM (SELECT * FROM mine UNION ALL SELECT * FROM anyone) both_parts ORDER BY phase LIMIT 1"""
    )


_OWN_ORDER = "priority DESC, due_at, id"
_SCANNED = "queuedesk.claim_scan"  # conn.info: what own_claim saw of the queue's tasks in progress
_SCAN_FRESH = 1.0  # seconds: older, it is not used  # the caller's held claims (B24: in the claim order too)


class TaskClaims(Claims):
    """B4's claim statements on `tasks`: the shared ones, with B24's and B25's order."""

    def __init__(self, spec: ClaimTable) -> None:
        super().__init__(spec)
        order = ORDER_KEYS["oldest"]
        self._candidates = {flag: _candidates(order, flag) for flag in (False, True)}
        self._given_back_by_me = _given_back_by_me(order)
        self._reserved_one = Sql(
            f"SELECT id FROM tasks WHERE queue_id = :queue_id AND reserved_for = :user_id AND {CLAIMABLE} LIMIT 1"
        )
        mine = "queue_id = :queue_id AND status = 'in_progress' AND assigned_to = :user_id"
        self._own = Sql(f"SELECT id FROM tasks WHERE {mine} ORDER BY {_OWN_ORDER} LIMIT 1")
        self._in_progress = Sql(
            "SELECT max(CASE WHEN assigned_to = :user_id THEN 1 ELSE 0 END), min(lease_expires_at) FROM tasks "
            "WHERE queue_id = :queue_id AND status = 'in_progress'"
        )
        self._seeks = _candidates(order, False, with_expired=False)
        self._own_claims = Sql(
            f"SELECT id, lease_expires_at FROM tasks WHERE {mine} ORDER BY {_OWN_ORDER} LIMIT :limit"
        )
        self._take = Sql(
            """UPDATE tasks SET status = 'in_progress', assigned_to = :user_id, assigned_at = :now,
            lease_expires_at = :lease WHERE id = :task_id
            AND (status IN ('new', 'open') OR (status = 'in_progress' AND lease_expires_at <= :now))
            AND (reserved_for IS NULL OR reserved_for = :user_id)"""
        )

    def own_claim(self, conn: Connection, queue_id: int, user_id: int) -> int | None:
        """The caller's first claim in the claim order (live or expired). Most claims find none: one
        look at the queue's tasks in progress says so, and when their soonest lease runs out, which
        the claim that follows in this transaction uses (`next_claimable`: no expired claim to look
        for before then). Only a caller holding some sorts them."""
        found = one(conn, self._in_progress, queue_id=queue_id, user_id=user_id)
        holds, soonest = found if found is not None else (None, None)
        conn.info[_SCANNED] = (time.monotonic(), queue_id, user_id, soonest)
        if not holds:
            return None
        return super().own_claim(conn, queue_id, user_id)

    def _none_expired(self, conn: Connection, queue_id: int, user_id: int, now_us: int) -> bool:
        """Whether `own_claim`, just before in this transaction, found no lease run out by `now_us`.
        (Every claim without `exclude` runs `own_claim` right before this, on the same connection,
        which holds one unit of work at a time; what it saw is used once, and only just after.)"""
        scanned = conn.info.pop(_SCANNED, None)
        if (
            scanned is None
            or time.monotonic() - scanned[0] > _SCAN_FRESH
            or scanned[1:3] != (queue_id, user_id)
        ):
            return False
        return scanned[3] is None or scanned[3] > now_us

    def has_reserved_for(self, conn: Connection, queue_id: int, user_id: int) -> bool:
        """Whether a task not held is reserved for the caller (one seek of the claim order's index)."""
        return one(conn, self._reserved_one, queue_id=queue_id, user_id=user_id) is not None

    def next_claimable(
        self, conn: Connection, queue_id: int, user_id: int, now: datetime, *, others_only: bool
    ) -> int | None:
        """The first claimable task in the order above; the caller's own recent give-backs only
        when there is nothing else."""
        now_us = to_micros(now)
        none_expired = not others_only and self._none_expired(conn, queue_id, user_id, now_us)
        statement = self._seeks if none_expired else self._candidates[others_only]
        found = rows(conn, statement, queue_id=queue_id, user_id=user_id, now=now_us)
        if found:
            rank = {"new": 0, "open": 1}
            first = min(found, key=lambda r: (r[1], -r[2], r[3], rank.get(r[4], 2), r[0]))
            return int(first[0])
        again = one(conn, self._given_back_by_me, queue_id=queue_id, user_id=user_id, now=now_us)
        return None if again is None else int(again[0])


__all__ = ["Claim", "TaskClaims"]
