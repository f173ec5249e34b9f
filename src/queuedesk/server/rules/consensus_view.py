"""What each reader sees of a consensus task (B21): to admins and supervisors the `consensus`
object (state, every answer, the agreement per compared block, who decided); to workers null, and
their own answer in `data` while the task waits for others, never another's."""

from typing import Any

import orjson
from sqlalchemy import Connection

from queuedesk.server.rules.agreement import shares
from queuedesk.server.rules.consensus_settings import default_blocks
from queuedesk.server.rules.refusals import TaskNotFound
from queuedesk.server.store import reviews, tasks
from queuedesk.server.store.consensus import COLLECTING, Answer, answer_body
from queuedesk.server.store.records import Page, Principal, QueueRecord
from queuedesk.server.store.sql import Sql, rows


def consensus_object(
    state: str, answers: list[Answer], agreement: dict[str, float], decided_by: str | None
) -> dict[str, Any]:
    return {
        "state": state,
        "answers": [answer_body(a) for a in answers],
        "agreement": agreement,
        "decided_by": decided_by,
    }


STATES_OF = "SELECT c.task_id, c.state, u.email FROM consensus_tasks c LEFT JOIN users u ON u.id = c.decided_by WHERE c.task_id IN ({ids})"
ANSWERS_OF = """SELECT a.task_id, a.worker_id, a.worker_email, u.name, a.data, a.answered_at, a.work_micros
    FROM task_answers a LEFT JOIN users u ON u.id = a.worker_id WHERE a.task_id IN ({ids})
    ORDER BY a.task_id, a.answered_at, a.worker_id"""


def attach(conn: Connection, queue: QueueRecord, found: list[dict[str, Any]], viewer: Principal) -> None:
    """Part B's `consensus` on each task row of a consensus queue: the whole object to admins and
    supervisors; to a worker null, with their own answer in `data` while the task waits for others."""
    if not queue.consensus_used or not found:
        return
    ids = ", ".join(str(int(row["id"])) for row in found)
    answers: dict[int, list[Answer]] = {}
    for task_id, worker_id, email, name, data, at, micros in rows(conn, Sql(ANSWERS_OF.format(ids=ids))):
        decoded = orjson.loads(data) if isinstance(data, str | bytes) else data
        answers.setdefault(task_id, []).append(Answer(worker_id, email, name, decoded, at, micros))
    if viewer.role == "worker":
        for row in found:
            row["consensus"] = None
            if row["status"] != "completed":
                mine = [a for a in answers.get(row["id"], []) if a.worker_id == viewer.user_id]
                if mine:
                    row["data"] = mine[0].data
        return
    states = {task_id: (state, email) for task_id, state, email in rows(conn, Sql(STATES_OF.format(ids=ids)))}
    stored = queue.consensus
    blocks = tuple(stored["blocks"]) if stored else tuple(default_blocks(queue.blocks))
    types = {block.id: block.type for block in queue.blocks}
    for row in found:
        state, decided_by = states.get(row["id"], (COLLECTING, None))
        given = answers.get(row["id"], [])
        row["consensus"] = consensus_object(
            state, given, shares(types, blocks, [a.data for a in given]), decided_by
        )


def list_pending(conn: Connection, queue: QueueRecord, viewer: Principal, query: tasks.PendingQuery) -> Page:
    """B2's page, each task as `viewer` sees it."""
    found = tasks.list_pending(
        conn,
        queue.id,
        query.statuses,
        query.offset,
        query.limit,
        viewer.user_id,
        query.q,
        query.newest_first,
        query.sort,
        query.consensus_state,
    )
    attach(conn, queue, found.rows, viewer)
    return found


def task_with_review(conn: Connection, queue: QueueRecord, task_id: int, viewer: Principal) -> dict[str, Any]:
    """B3: the task with its review, the viewer's draft, and its consensus as the viewer sees it."""
    found = reviews.task_with_review(conn, queue.id, task_id, viewer.user_id)
    if found is None:
        raise TaskNotFound(task_id)
    attach(conn, queue, [found], viewer)
    return found
