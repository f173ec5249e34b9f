"""The rules of work: what a claim hands out, who may renew, release or complete a task, and which
block values a task may be created, released or completed with.

Each action is a function of one connection, which the handler runs in one transaction
(`db.write(work.complete, ...)`); the storage it uses is `store/tasks.py`, and what it refuses is
raised as `refusals`, which the error layer answers.
"""

import itertools
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.api.blocks import first_problems, task_data_problems
from queuedesk.server.http import serialize
from queuedesk.server.rules import claiming, consensus_view
from queuedesk.server.rules.read_only import changed_read_only_values
from queuedesk.server.rules.refusals import (
    AlreadyCompleted,
    ClaimLimit,
    InvalidTaskData,
    NotAssignee,
    NotClaimed,
    TaskNotFound,
)
from queuedesk.server.rules.review_draw import drawn_for_review
from queuedesk.server.store import audit, consensus, deliveries, drafts, reviews, tasks, users
from queuedesk.server.store.records import Principal, QueueRecord


def check_new_task(queue: QueueRecord, data: Any) -> None:
    """A new task's values (A1): known blocks, each valid; required ones may still be empty."""
    problems = first_problems(task_data_problems(queue.blocks, data))
    if problems:
        raise InvalidTaskData(problems)


def _found(conn: Connection, queue_id: int, task_id: int, viewer_id: int = 0) -> dict[str, Any]:
    row = tasks.get_task(conn, queue_id, task_id, viewer_id)
    if row is None:  # only if it was deleted within this transaction, which nothing does
        raise TaskNotFound(task_id)
    return row


def claim_next(
    conn: Connection,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease: timedelta,
    exclude: frozenset[int] = frozenset(),
) -> tuple[dict[str, Any] | None, int]:
    """B4: the caller's task (its own claim again, or the next claimable one); else (None, tasks
    held by others)."""
    task_id, held = claiming.claim(conn, tasks.CLAIMS, queue_id, user_id, now, lease, exclude, ClaimLimit)
    if task_id is None:
        return None, held
    return _found(conn, queue_id, task_id, user_id), 0


def held_task(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, *, admin_may: bool = False
) -> tasks.HeldState:
    """The task, if the caller holds it (an expired lease counts until someone else claims)."""
    state = tasks.held_state(conn, queue_id, task_id)
    if state is None:
        raise TaskNotFound(task_id)
    if state.status == "completed":
        raise AlreadyCompleted(task_id)
    held = state.status == "in_progress" or (state.status == tasks.GOLD and state.assigned_to is not None)
    if not held:
        raise NotClaimed(task_id)
    if state.assigned_to != principal.user_id and not (admin_may and principal.role == "admin"):
        raise NotAssignee(task_id)
    return state


def heartbeat(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, now: datetime, lease: timedelta
) -> dict[str, Any]:
    """B5: the holder's lease runs `lease` from now."""
    held_task(conn, queue_id, task_id, principal)
    tasks.CLAIMS.renew(conn, task_id, now + lease)
    return _found(conn, queue_id, task_id)


def release(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    draft: dict[str, Any] | None,
    now: datetime,
) -> dict[str, Any]:
    """B6: the holder (or an admin) hands the task back. A draft is kept apart from the task's data,
    as the releaser's own; a `data` object replaces their earlier draft (an empty one removes it),
    no `data` leaves it as it was."""
    held = held_task(conn, queue.id, task_id, principal, admin_may=True)
    if held.assigned_to is not None and held.assigned_to != principal.user_id:
        _record_release_of_another(conn, queue.id, task_id, principal, held.assigned_to)
    if draft is not None:
        problems = first_problems(task_data_problems(queue.blocks, draft, allow_empty=True))
        if problems:
            raise InvalidTaskData(problems)
        drafts.save(conn, queue.id, task_id, principal.user_id, draft, now)
    tasks.reopen(conn, task_id)
    if queue.consensus_used:  # B21: back in the consensus order (among tasks without answers if none)
        consensus.returned(conn, queue.id, task_id)
    row = _found(conn, queue.id, task_id, principal.user_id)
    consensus_view.attach(conn, queue, [row], principal)
    return row


def _record_release_of_another(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, holder_id: int
) -> None:
    """An admin gave back a task someone else held: the audit log says whose it was."""
    holder = users.find_user(conn, principal.organization_id, holder_id)
    detail = {
        "holder": None if holder is None else {"email": holder.email, "name": holder.name},
    }
    audit.record(conn, principal, "task.release", queue_id, {"task_id": task_id}, detail)


def checked_completion(queue: QueueRecord, current: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """`data` merged over the task's `current` values, every block present: valid as B7 wants it
    (each value fits its block, every required block filled), else InvalidTaskData."""
    merged = {**current, **data}
    problems = first_problems(
        itertools.chain(
            task_data_problems(queue.blocks, data, allow_empty=True),
            changed_read_only_values(queue.blocks, current, data),
            (
                p
                for p in task_data_problems(queue.blocks, merged, enforce_required=True, allow_empty=True)
                if p.code == "missing_required"
            ),
        )
    )
    if problems:
        raise InvalidTaskData(problems)
    return tasks.full_data(queue, merged)


class Completion(NamedTuple):
    task: dict[str, Any]
    event_written: bool  # the queue has a webhook, so the outbox holds a new event


def complete(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    data: dict[str, Any],
    now: datetime,
) -> Completion:
    """B7: the holder completes the task with values that, merged over its own, fill every required block."""
    held = held_task(conn, queue.id, task_id, principal)
    merged = checked_completion(queue, held.data, data)
    row = tasks.mark_completed(conn, queue, task_id, held, merged, principal.email, now)
    drafts.drop_for_task(conn, task_id)
    # The count, the draw and the event are part of the completion: all commit, or nothing does.
    counted = tasks.count_completion(conn, queue.id)
    if drawn_for_review(task_id, counted.review_percent):
        reviews.draw(conn, queue.id, task_id)
    if counted.webhook_target is None:
        return Completion(row, event_written=False)
    deliveries.enqueue(
        conn, queue.id, task_id, counted.webhook_target, orjson.dumps(serialize.task(row)), now
    )
    return Completion(row, event_written=True)
