"""Consensus storage (B21): answers, each consensus task's state, and the counts of answers that
wait (B4's X-Tasks-Answered). The rules that combine them are `server/rules/consensus.py`; the
claim order is `store/claim_order.py`."""

from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.server.store.sql import Sql, one, rows, run
from queuedesk.server.store.types import to_micros

COLLECTING, DISPUTED, SETTLED, DECIDED = "collecting", "disputed", "settled", "decided"


def answer_set(worker_ids: Iterable[int]) -> str:
    """The workers who answered, as the claim order groups them: ",12,57," ("" for none)."""
    ids = sorted(set(worker_ids))
    return "," + ",".join(str(i) for i in ids) + "," if ids else ""


class Answer(NamedTuple):
    worker_id: int
    email: str
    name: str | None
    data: dict[str, Any]
    answered_at: int  # micros
    work_micros: int | None


ANSWERED = Sql("SELECT 1 FROM task_answers WHERE task_id = :task_id AND worker_id = :user_id")
INSERT_ANSWER = Sql(
    """INSERT INTO task_answers (task_id, worker_id, queue_id, worker_email, data, answered_at, work_micros)
    VALUES (:task_id, :user_id, :queue_id, :email, :data, :at, :micros)"""
)
ANSWERS = Sql(
    """SELECT a.worker_id, a.worker_email, u.name, a.data, a.answered_at, a.work_micros FROM task_answers a
    LEFT JOIN users u ON u.id = a.worker_id WHERE a.task_id = :task_id ORDER BY a.answered_at, a.worker_id"""
)
SET_AGREED = Sql("UPDATE task_answers SET agreed = :agreed WHERE task_id = :task_id AND worker_id = :user_id")


def has_answered(conn: Connection, task_id: int, user_id: int) -> bool:
    return one(conn, ANSWERED, task_id=task_id, user_id=user_id) is not None


def add_answer(
    conn: Connection,
    queue_id: int,
    task_id: int,
    user_id: int,
    email: str,
    data: dict[str, Any],
    now: datetime,
    claimed_at: int | None,
) -> None:
    at = to_micros(now)
    run(
        conn,
        INSERT_ANSWER,
        task_id=task_id,
        user_id=user_id,
        queue_id=queue_id,
        email=email,
        data=orjson.dumps(data).decode(),
        at=at,
        micros=None if claimed_at is None else at - claimed_at,
    )


def _decoded(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def answers_of(conn: Connection, task_id: int) -> list[Answer]:
    """The task's answers, oldest first."""
    return [
        Answer(worker_id, email, name, _decoded(data), at, micros)
        for worker_id, email, name, data, at, micros in rows(conn, ANSWERS, task_id=task_id)
    ]


def mark_agreed(conn: Connection, task_id: int, agreed: dict[int, bool]) -> None:
    """Whether each worker's answer held every final value. In worker order: the trigger counts each
    in its worker's row of `answer_hours`, and two tasks settling at once (on PostgreSQL) must take
    the rows of the workers they share in the same order, or each waits for the other."""
    for user_id in sorted(agreed):
        run(conn, SET_AGREED, agreed=agreed[user_id], task_id=task_id, user_id=user_id)


# --- each task's state ----------------------------------------------------------------------------

SET_STATE = Sql(
    """INSERT INTO consensus_tasks (task_id, queue_id, state, answer_set, n_answers, decided_by, state_at)
    VALUES (:task_id, :queue_id, :state, :answer_set, :n, :decided_by, :at)
    ON CONFLICT (task_id) DO UPDATE SET state = excluded.state, answer_set = excluded.answer_set,
    n_answers = excluded.n_answers, decided_by = excluded.decided_by, state_at = excluded.state_at"""
)
RETURNED = Sql(
    """INSERT INTO consensus_tasks (task_id, queue_id, state, answer_set, n_answers)
    VALUES (:task_id, :queue_id, 'collecting', '', 0) ON CONFLICT (task_id) DO NOTHING"""
)
ADOPT_OPEN = Sql(
    """INSERT INTO consensus_tasks (task_id, queue_id, state, answer_set, n_answers)
    SELECT t.id, t.queue_id, 'collecting', '', 0 FROM tasks t WHERE t.queue_id = :queue_id
    AND t.status IN ('open', 'in_progress') AND NOT EXISTS (SELECT 1 FROM consensus_tasks c WHERE c.task_id = t.id)"""
)
STATE = Sql("SELECT state, decided_by FROM consensus_tasks WHERE task_id = :task_id")


class TaskState(NamedTuple):
    state: str
    decided_by: int | None


def set_state(
    conn: Connection,
    queue_id: int,
    task_id: int,
    state: str,
    worker_ids: Iterable[int],
    now: datetime,
    decided_by: int | None = None,
) -> None:
    ids = sorted(set(worker_ids))
    run(
        conn,
        SET_STATE,
        task_id=task_id,
        queue_id=queue_id,
        state=state,
        answer_set=answer_set(ids) if state == COLLECTING else "",
        n=len(ids),
        decided_by=decided_by,
        at=to_micros(now),
    )


def returned(conn: Connection, queue_id: int, task_id: int) -> None:
    """A task given back before anyone answered it: claimable again among the tasks without answers."""
    run(conn, RETURNED, task_id=task_id, queue_id=queue_id)


def adopt_open_tasks(conn: Connection, queue_id: int) -> None:
    """A queue taking consensus on: its tasks given back earlier (or held now) join the claim order."""
    run(conn, ADOPT_OPEN, queue_id=queue_id)


def state_of(conn: Connection, task_id: int) -> TaskState | None:
    found = one(conn, STATE, task_id=task_id)
    return None if found is None else TaskState(found[0], found[1])


# --- answers waiting, per worker --------------------------------------------------------------------

MOVE_WAITING = Sql(
    """INSERT INTO answer_counts (queue_id, worker_id, waiting) VALUES (:queue_id, :user_id, :delta)
    ON CONFLICT (queue_id, worker_id) DO UPDATE SET waiting = answer_counts.waiting + :delta"""
)
WAITING = Sql("SELECT waiting FROM answer_counts WHERE queue_id = :queue_id AND worker_id = :user_id")
RECOUNT_DROP = Sql("DELETE FROM answer_counts WHERE queue_id = :queue_id")
RECOUNT = Sql(
    """INSERT INTO answer_counts (queue_id, worker_id, waiting) SELECT a.queue_id, a.worker_id, count(*)
    FROM task_answers a JOIN consensus_tasks c ON c.task_id = a.task_id
    WHERE a.queue_id = :queue_id AND c.state IN ('collecting', 'disputed') GROUP BY a.queue_id, a.worker_id"""
)


def move_waiting(conn: Connection, queue_id: int, deltas: dict[int, int]) -> None:
    """Each worker's answers waiting moved by their delta, in worker order (two transactions moving
    the same workers' rows take their locks in the same order, so never wait on each other in a ring)."""
    for user_id in sorted(deltas):
        if deltas[user_id]:
            run(conn, MOVE_WAITING, queue_id=queue_id, user_id=user_id, delta=deltas[user_id])


def waiting(conn: Connection, queue_id: int, user_id: int) -> int:
    found = one(conn, WAITING, queue_id=queue_id, user_id=user_id)
    return int(found[0]) if found else 0


# --- flush and prune --------------------------------------------------------------------------------

DROP_FLUSHED_ANSWERS = Sql(
    """DELETE FROM task_answers WHERE queue_id = :queue_id
    AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_answers.task_id)"""
)
DROP_FLUSHED_STATES = Sql(
    """DELETE FROM consensus_tasks WHERE queue_id = :queue_id
    AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = consensus_tasks.task_id)"""
)


def drop_orphans(conn: Connection, queue_id: int) -> None:
    """After a flush or a prune deleted tasks: their answers and states go, and the counts of answers
    waiting are counted again (from the queue's answers to tasks still pending)."""
    run(conn, DROP_FLUSHED_ANSWERS, queue_id=queue_id)
    run(conn, DROP_FLUSHED_STATES, queue_id=queue_id)
    run(conn, RECOUNT_DROP, queue_id=queue_id)
    run(conn, RECOUNT, queue_id=queue_id)


def drop_tasks(conn: Connection, task_ids: list[int]) -> None:
    """The answers and states of tasks deleted (the prune), after the tasks themselves (so that the
    rollups' triggers still know them for consensus tasks as they go)."""
    for start in range(0, len(task_ids), 500):
        listed = ", ".join(str(int(task_id)) for task_id in task_ids[start : start + 500])
        run(conn, Sql(f"DELETE FROM task_answers WHERE task_id IN ({listed})"))
        run(conn, Sql(f"DELETE FROM consensus_tasks WHERE task_id IN ({listed})"))


# --- what people see --------------------------------------------------------------------------------


def answer_body(answer: Answer) -> dict[str, Any]:
    """One answer in the `consensus` object (timestamps as micros, for `serialize`)."""
    return {
        "worker": answer.email,
        "name": answer.name,
        "data": answer.data,
        "answered_at": answer.answered_at,
        "seconds": None if answer.work_micros is None else round(answer.work_micros / 1_000_000, 3),
    }
