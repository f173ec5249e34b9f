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
from queuedesk.server import serialize
from queuedesk.server.refusals import (
    AlreadyCompleted,
    ClaimLimit,
    InvalidTaskData,
    NotAssignee,
    NotClaimed,
    TaskNotFound,
)
from queuedesk.server.store import audit, deliveries, drafts, tasks, users
from queuedesk.server.store.records import Principal, QueueRecord

CLAIM_LIMIT = 3  # live claims one caller may hold in one queue by claiming ahead (B4)
MAX_EXCLUDE = 10  # task ids a claim ahead may exclude
TAKE_ATTEMPTS = 8  # candidates a claim tries when others keep taking them first


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
    """The caller's oldest claim not in `exclude`, renewed, or the next claimable task; else
    (None, tasks held by others). With `exclude` (claiming ahead), a new task only while the caller
    holds fewer than CLAIM_LIMIT live claims in the queue, and never the caller's own expired claim."""
    lease_until = now + lease
    if exclude:
        own = _own_claim_ahead(conn, queue_id, user_id, now, lease_until, exclude)
    else:
        own = tasks.own_claim(conn, queue_id, user_id)
        if own is not None and not tasks.renew_own(conn, own, user_id, lease_until):
            own = None
    if own is not None:
        return _found(conn, queue_id, own, user_id), 0
    for _attempt in range(TAKE_ATTEMPTS):
        candidate = tasks.next_claimable(conn, queue_id, user_id, now, others_only=bool(exclude))
        if candidate is None:
            break
        if tasks.take(conn, candidate, user_id, now, lease_until):
            return _found(conn, queue_id, candidate, user_id), 0
    return None, tasks.held_by_others(conn, queue_id, user_id, now)


def _own_claim_ahead(
    conn: Connection,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease_until: datetime,
    exclude: frozenset[int],
) -> int | None:
    """The id of the caller's oldest claim not excluded, renewed; None when a new task may be
    claimed; ClaimLimit when the caller already holds CLAIM_LIMIT live claims."""
    # Two claims ahead at once must not both count two claims and take a third and a fourth.
    tasks.lock_claims_of(conn, queue_id, user_id)
    # At most MAX_EXCLUDE claims are excluded, so the first one that is not is among the first
    # MAX_EXCLUDE + 1; when none is, all were read.
    held = tasks.own_claims(conn, queue_id, user_id, now, MAX_EXCLUDE + 1)
    for claim in held:
        if claim.task_id not in exclude and tasks.renew_own(conn, claim.task_id, user_id, lease_until):
            return claim.task_id
    live = [claim.task_id for claim in held if claim.live]
    if len(live) >= CLAIM_LIMIT:
        raise ClaimLimit(live)
    return None


def _held(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, *, admin_may: bool = False
) -> tasks.HeldState:
    """The task, if the caller holds it (an expired lease counts until someone else claims)."""
    state = tasks.held_state(conn, queue_id, task_id)
    if state is None:
        raise TaskNotFound(task_id)
    if state.status == "completed":
        raise AlreadyCompleted(task_id)
    if state.status != "in_progress":
        raise NotClaimed(task_id)
    if state.assigned_to != principal.user_id and not (admin_may and principal.role == "admin"):
        raise NotAssignee(task_id)
    return state


def heartbeat(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, now: datetime, lease: timedelta
) -> dict[str, Any]:
    """B5: the holder's lease runs `lease` from now."""
    _held(conn, queue_id, task_id, principal)
    tasks.renew(conn, task_id, now + lease)
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
    held = _held(conn, queue.id, task_id, principal, admin_may=True)
    if held.assigned_to is not None and held.assigned_to != principal.user_id:
        _record_release_of_another(conn, queue.id, task_id, principal, held.assigned_to)
    if draft is not None:
        problems = first_problems(task_data_problems(queue.blocks, draft, allow_empty=True))
        if problems:
            raise InvalidTaskData(problems)
        drafts.save(conn, queue.id, task_id, principal.user_id, draft, now)
    tasks.reopen(conn, task_id)
    return _found(conn, queue.id, task_id, principal.user_id)


def _record_release_of_another(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, holder_id: int
) -> None:
    """An admin gave back a task someone else held: the audit log says whose it was."""
    holder = users.find_user(conn, principal.organization_id, holder_id)
    detail = {
        "holder": None if holder is None else {"email": holder.email, "name": holder.name},
    }
    audit.record(conn, principal, "task.release", queue_id, {"task_id": task_id}, detail)


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
    held = _held(conn, queue.id, task_id, principal)
    merged = {**held.data, **data}
    problems = first_problems(
        itertools.chain(
            task_data_problems(queue.blocks, data, allow_empty=True),
            (
                p
                for p in task_data_problems(queue.blocks, merged, enforce_required=True, allow_empty=True)
                if p.code == "missing_required"
            ),
        )
    )
    if problems:
        raise InvalidTaskData(problems)
    tasks.mark_completed(conn, task_id, tasks.full_data(queue, merged), principal.email, now)
    drafts.drop_for_task(conn, task_id)
    row = _found(conn, queue.id, task_id)
    # The count and the event are part of the completion: all commit, or nothing does.
    target = tasks.count_completion(conn, queue.id)
    if target is None:
        return Completion(row, event_written=False)
    deliveries.enqueue(conn, queue.id, task_id, target, orjson.dumps(serialize.task(row)), now)
    return Completion(row, event_written=True)
