"""The rules of consensus (B21): a claim in the consensus order, an answer in place of a completion,
the judgment with the settings in force at each answer, settling in the answer's transaction, the
`decide` verdict on a disputed task, and what each reader sees of a task's answers.

Every function runs in one transaction. An answer and a decision lock the task's row first
(`tasks.held_state`), so two answers that arrive together on two servers are judged one after the
other, and the one that settles the task queues its single completion event.
"""

from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import Connection

from queuedesk.server.http import serialize
from queuedesk.server.rules import claiming, consensus_view
from queuedesk.server.rules.agreement import Judgment, holds_all, judge, shares
from queuedesk.server.rules.consensus_settings import default_blocks, settings_of
from queuedesk.server.rules.refusals import (
    AlreadyAnswered,
    AlreadyCompleted,
    ClaimLimit,
    DeciderAnswered,
    NotAssignee,
    NotClaimed,
    NotDisputed,
    TaskNotFound,
)
from queuedesk.server.rules.review_draw import drawn_for_review
from queuedesk.server.rules.work import Completion, checked_completion
from queuedesk.server.store import claim_order, consensus, deliveries, drafts, queues, reviews, tasks
from queuedesk.server.store.consensus import DECIDED, DISPUTED, SETTLED, Answer
from queuedesk.server.store.records import Principal, QueueRecord

# --- claims ---------------------------------------------------------------------------------------


def claim_next(
    conn: Connection,
    queue: QueueRecord,
    principal: Principal,
    now: datetime,
    lease: timedelta,
    exclude: frozenset[int] = frozenset(),
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """B4 in a consensus queue: the caller's claim again, or the next task of the consensus order;
    else (None, the 204's headers: tasks held by others, open tasks the caller has answered)."""
    task_id, held = claiming.claim(
        conn,
        tasks.CLAIMS,
        queue.id,
        principal.user_id,
        now,
        lease,
        exclude,
        ClaimLimit,
        next_row=claim_order.next_task,
    )
    if task_id is None:
        answered = consensus.waiting(conn, queue.id, principal.user_id)
        return None, {"X-Tasks-Held": str(held), "X-Tasks-Answered": str(answered)}
    row = tasks.get_task(conn, queue.id, task_id, principal.user_id)
    if row is None:
        raise TaskNotFound(task_id)
    if principal.role == "worker":  # null to workers, and the task is never one they answered
        row["consensus"] = None
    else:
        consensus_view.attach(conn, queue, [row], principal)
    return row, {}


# --- answers --------------------------------------------------------------------------------------


def _types(queue: QueueRecord) -> dict[str, str]:
    return {block.id: block.type for block in queue.blocks}


def answer(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    data: dict[str, Any],
    now: datetime,
) -> Completion:
    """B7 in a consensus queue: the holder's answer, recorded apart from the task's data (validated
    as B7; the claim ends); the task settles, is disputed, or goes back to `open` for the others.
    With the queue's consensus set to null since, the answer completes the task as B7 always did."""
    held, claimed_at, stored = tasks.held_for_answer(conn, queue.id, task_id)  # the task's row locked
    if held is None:
        raise TaskNotFound(task_id)
    holding = held.status == "in_progress" and held.assigned_to == principal.user_id
    # The holder cannot have answered it (a claim never gives a task the caller answered).
    if not holding and consensus.has_answered(conn, task_id, principal.user_id):
        raise AlreadyAnswered(task_id)
    if held.status == "completed":
        raise AlreadyCompleted(task_id)
    if held.status != "in_progress":
        raise NotClaimed(task_id)
    if held.assigned_to != principal.user_id:
        raise NotAssignee(task_id)
    merged = checked_completion(queue, held.data, data)
    consensus.add_answer(conn, queue.id, task_id, principal.user_id, principal.email, merged, now, claimed_at)
    answers = consensus.answers_of(conn, task_id)
    if stored is None:  # consensus switched off: this answer completes the task
        blocks = tuple(default_blocks(queue.blocks))
        judged = Judgment(
            "settled", shares(_types(queue), blocks, [a.data for a in answers]), len(answers) - 1
        )
        return _complete(conn, queue, task_id, held, answers, judged, blocks, principal, now)
    settings = settings_of(stored)
    judged = judge(settings, _types(queue), [a.data for a in answers])
    if judged.state == "settled":
        return _complete(conn, queue, task_id, held, answers, judged, settings.blocks, principal, now)
    consensus.set_state(conn, queue.id, task_id, judged.state, (a.worker_id for a in answers), now)
    consensus.move_waiting(conn, queue.id, {principal.user_id: 1})
    tasks.reopen(conn, task_id)
    if judged.state == DISPUTED:
        reviews.draw(conn, queue.id, task_id)  # waits in the review loop, served first
    row = {
        "id": task_id,
        "status": "open",
        "created_at": held.created_at,
        "completed_at": None,
        "completed_by": None,
        "queue_name": queue.name,
        "queue_id": queue.id,
        "data": merged,
        "source": held.source,
    }
    return Completion(row, event_written=False)


def _complete(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    held: tasks.HeldState,
    answers: list[Answer],
    judged: Judgment,
    blocks: tuple[str, ...],
    principal: Principal,
    now: datetime,
) -> Completion:
    """The task settled: it completes with the chosen answer's values, by its worker."""
    assert judged.chosen is not None
    chosen = answers[judged.chosen]
    final = checked_completion(queue, held.data, _writable(queue, chosen.data))
    types = _types(queue)
    consensus.mark_agreed(
        conn, task_id, {a.worker_id: holds_all(types, blocks, a.data, final) for a in answers}
    )
    consensus.set_state(conn, queue.id, task_id, SETTLED, (), now)
    others = {a.worker_id: -1 for a in answers if a.worker_id != principal.user_id}
    consensus.move_waiting(conn, queue.id, others)
    row = tasks.mark_completed(conn, queue, task_id, held, final, chosen.email, now)
    drafts.drop_for_task(conn, task_id)
    counted = tasks.count_completion(conn, queue.id)
    if counted.review_percent and drawn_for_review(task_id, counted.review_percent):
        reviews.draw(conn, queue.id, task_id)
    event_written = _enqueue(
        conn, queue, task_id, row, counted.webhook_target, answers, judged, SETTLED, None, now
    )
    mine = {**row, "data": next(a.data for a in answers if a.worker_id == principal.user_id)}
    return Completion(mine, event_written)


def _writable(queue: QueueRecord, values: dict[str, Any]) -> dict[str, Any]:
    """An answer's values of the blocks that are not read-only (read-only ones stay the task's)."""
    return {block.id: values.get(block.id) for block in queue.blocks if not block.read_only}


def _enqueue(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    row: dict[str, Any],
    target: str | None,
    answers: list[Answer],
    judged: Judgment,
    state: str,
    decided_by: str | None,
    now: datetime,
) -> bool:
    """The completion event: the Part A Task plus the `consensus` object."""
    if target is None:
        return False
    body = serialize.task(row)
    body["consensus"] = serialize.consensus(
        consensus_view.consensus_object(state, answers, judged.agreement, decided_by)
    )
    deliveries.enqueue(conn, queue.id, task_id, target, orjson.dumps(body), now)
    return True


# --- the decision on a disputed task ----------------------------------------------------------------


def decide(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    data: dict[str, Any],
    now: datetime,
) -> tuple[dict[str, Any], bool]:
    """The `decide` verdict (B19 under B21): a disputed task completes with the reviewer's values, by
    the reviewer. (The task's row with the event written or not; the review is recorded by the caller.)"""
    held = decidable(conn, queue, task_id, principal)
    final = checked_completion(queue, held.data, data)
    answers = consensus.answers_of(conn, task_id)
    blocks = _blocks_now(conn, queue)
    types = _types(queue)
    consensus.mark_agreed(
        conn, task_id, {a.worker_id: holds_all(types, blocks, a.data, final) for a in answers}
    )
    consensus.set_state(conn, queue.id, task_id, DECIDED, (), now, decided_by=principal.user_id)
    consensus.move_waiting(conn, queue.id, {a.worker_id: -1 for a in answers})
    row = tasks.mark_completed(conn, queue, task_id, held, final, principal.email, now)
    drafts.drop_for_task(conn, task_id)
    counted = tasks.count_completion(conn, queue.id)
    agreement = shares(types, blocks, [a.data for a in answers])
    judged = Judgment("disputed", agreement, None)
    written = _enqueue(
        conn, queue, task_id, row, counted.webhook_target, answers, judged, DECIDED, principal.email, now
    )
    return row, written


def decidable(conn: Connection, queue: QueueRecord, task_id: int, principal: Principal) -> tasks.HeldState:
    """The disputed task, locked, if the caller may decide it: not disputed, or answered by the
    caller, is refused."""
    held = tasks.held_state(conn, queue.id, task_id)
    if held is None:
        raise TaskNotFound(task_id)
    state = consensus.state_of(conn, task_id)
    if held.status == "completed" or state is None or state.state != DISPUTED:
        raise NotDisputed(task_id)
    if consensus.has_answered(conn, task_id, principal.user_id):
        raise DeciderAnswered(task_id)
    return held


def is_disputed(conn: Connection, task_id: int) -> bool:
    state = consensus.state_of(conn, task_id)
    return state is not None and state.state == DISPUTED


def _blocks_now(conn: Connection, queue: QueueRecord) -> tuple[str, ...]:
    stored = queues.current_consensus(conn, queue.id)
    return tuple(stored["blocks"]) if stored else tuple(default_blocks(queue.blocks))
