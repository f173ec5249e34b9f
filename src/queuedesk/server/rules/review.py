"""The rules of review (B19): review claims (the claim rules of `claiming.py` on the reviews table),
who may renew or release one, and the three verdicts, each with its event in the verdict's
transaction. Storage is `store/reviews.py`; refusals are `domain_errors`.
"""

from datetime import datetime, timedelta
from typing import Any, Literal, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.api.blocks import Problem
from queuedesk.server.http import serialize
from queuedesk.server.rules import claiming, consensus, consensus_view
from queuedesk.server.rules.refusals import (
    AlreadyReviewed,
    DisputedNotReviewable,
    InvalidTaskData,
    NotCompleted,
    ReviewClaimLimit,
    ReviewHeld,
    ReviewNotClaimed,
    TaskNotFound,
)
from queuedesk.server.rules.work import checked_completion
from queuedesk.server.store import audit, deliveries, reviews, tasks
from queuedesk.server.store.records import Principal, QueueRecord
from queuedesk.server.store.types import to_micros

VerdictKind = Literal["accept", "correct", "redo", "decide"]
STATE_OF: dict[str, str] = {
    "accept": "accepted",
    "correct": "corrected",
    "redo": "redone",
    "decide": "decided",
}
EVENT_OF: dict[str, str] = {"correct": "task.corrected", "redo": "task.redo"}
# A redo keeps what the worker was given, not what they answered: read-only blocks, and media and
# addresses (which the task points at).
KEPT_TYPES = frozenset({"image", "audio", "video", "pdf", "embed", "link"})
MAX_NOTE = 2000


def _found(conn: Connection, queue_id: int, task_id: int, viewer_id: int = 0) -> dict[str, Any]:
    row = reviews.task_with_review(conn, queue_id, task_id, viewer_id)
    if row is None:
        raise TaskNotFound(task_id)
    return row


def task_with_review(conn: Connection, queue_id: int, task_id: int, viewer_id: int) -> dict[str, Any]:
    """B3: the task, with its review and the viewer's own draft."""
    return _found(conn, queue_id, task_id, viewer_id)


def claim_next(
    conn: Connection,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease: timedelta,
    exclude: frozenset[int] = frozenset(),
) -> tuple[dict[str, Any] | None, int]:
    """The caller's review claim again, or the oldest pending review; else (None, reviews held by
    other reviewers)."""
    task_id, held = claiming.claim(
        conn, reviews.CLAIMS, queue_id, user_id, now, lease, exclude, ReviewClaimLimit
    )
    if task_id is None:
        return None, held
    return _found(conn, queue_id, task_id), 0


def claim_next_in(
    conn: Connection,
    queue: QueueRecord,
    principal: Principal,
    now: datetime,
    lease: timedelta,
    exclude: frozenset[int] = frozenset(),
) -> tuple[dict[str, Any] | None, int]:
    """In a consensus queue (B21): disputed tasks first (never to someone who answered one), then
    sampled completed work; each task with its `consensus` as the reviewer sees it."""
    task_id, held = claiming.claim(
        conn,
        reviews.CLAIMS,
        queue.id,
        principal.user_id,
        now,
        lease,
        exclude,
        ReviewClaimLimit,
        next_row=reviews.disputed_first,
    )
    if task_id is None:
        return None, held
    row = _found(conn, queue.id, task_id)
    consensus_view.attach(conn, queue, [row], principal)
    return row, 0


def _held(conn: Connection, task_id: int, principal: Principal, *, admin_may: bool = False) -> None:
    """The caller holds the task's review (an expired lease counts until someone else claims it)."""
    state = reviews.locked_state(conn, task_id)
    if state is None or state.state == reviews.PENDING:
        raise ReviewNotClaimed(task_id)
    if state.state in reviews.VERDICT_STATES:
        raise AlreadyReviewed(task_id)
    if state.reviewer_id != principal.user_id and not (admin_may and principal.role == "admin"):
        raise ReviewHeld(task_id)


def heartbeat(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, now: datetime, lease: timedelta
) -> dict[str, Any]:
    """The holder's review lease runs `lease` from now."""
    _held(conn, task_id, principal)
    reviews.CLAIMS.renew(conn, task_id, now + lease)
    return _found(conn, queue_id, task_id)


def release(conn: Connection, queue_id: int, task_id: int, principal: Principal) -> dict[str, Any]:
    """The holder (or an admin) gives the review back: pending again."""
    _held(conn, task_id, principal, admin_may=True)
    reviews.give_back(conn, task_id)
    return _found(conn, queue_id, task_id)


class VerdictRequest(NamedTuple):
    kind: VerdictKind
    data: dict[str, Any] | None  # `correct` only
    note: str | None


class Verdict(NamedTuple):
    task: dict[str, Any]  # with its review
    event_written: bool  # the queue has a webhook and the verdict sends an event


def _may_review(
    conn: Connection, queue_id: int, task_id: int, principal: Principal, now: datetime
) -> tuple[dict[str, Any], bool]:
    """The completed task's values, locked, and whether it was drawn (has a review row). Refused when
    it is not completed, already reviewed, or under another reviewer's live review claim."""
    held = tasks.held_state(conn, queue_id, task_id)
    if held is None:
        raise TaskNotFound(task_id)
    if held.status != "completed":
        raise NotCompleted(task_id)
    state = reviews.locked_state(conn, task_id)
    if state is None:
        return held.data, False  # a spot check
    if state.state in reviews.VERDICT_STATES:
        raise AlreadyReviewed(task_id)
    live = state.lease_expires_at is not None and state.lease_expires_at > to_micros(now)
    if state.state == reviews.IN_REVIEW and state.reviewer_id != principal.user_id and live:
        raise ReviewHeld(task_id)
    return held.data, True


def _redo_data(queue: QueueRecord, values: dict[str, Any]) -> dict[str, Any]:
    """What a redone task starts from: the values the worker was given, none they answered."""
    return {
        block.id: values.get(block.id)
        for block in queue.blocks
        if block.read_only or block.type in KEPT_TYPES
    }


def give_verdict(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    request: VerdictRequest,
    now: datetime,
) -> Verdict:
    """accept, correct or redo a completed task, with its event (correct, redo) and its audit entry;
    in a consensus queue, `decide` a disputed task (B21)."""
    if request.kind == "decide" or queue.consensus_used:
        decided = _consensus_verdict(conn, queue, task_id, principal, request, now)
        if decided is not None:
            return decided
    current, drawn = _may_review(conn, queue.id, task_id, principal, now)
    current = tasks.full_data(queue, current)
    original: dict[str, Any] | None = None
    redo_task_id: int | None = None
    if request.kind == "correct":
        corrected = checked_completion(queue, current, request.data or {})
        if corrected == current:
            raise InvalidTaskData(
                [
                    Problem(
                        "invalid_value",
                        "data",
                        "A correction must change at least one value; to keep them, accept.",
                    )
                ]
            )
        tasks.set_data(conn, task_id, corrected)
        original = current
    elif request.kind == "redo":
        redo_task_id = tasks.create_task(conn, queue, _redo_data(queue, current), "review", now)["id"]
    verdict = reviews.Verdict(
        STATE_OF[request.kind], principal.user_id, now, request.note, original, redo_task_id
    )
    reviews.record(conn, queue.id, task_id, verdict, drawn=drawn)
    _audit_verdict(conn, principal, queue.id, task_id, request.kind, redo_task_id)
    row = _found(conn, queue.id, task_id)
    event = EVENT_OF.get(request.kind)
    target = reviews.webhook_target(conn, queue.id) if event else None
    if event is None or target is None:
        return Verdict(row, event_written=False)
    body = {
        "type": event,
        "task": serialize.task(row),
        "original": current,
        "redo_task_id": redo_task_id,
        "reviewer": principal.email,
        "note": request.note,
    }
    deliveries.enqueue(conn, queue.id, task_id, target, orjson.dumps(body), now, event_type=event)
    return Verdict(row, event_written=True)


def _consensus_verdict(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    request: VerdictRequest,
    now: datetime,
) -> Verdict | None:
    """`decide` on a disputed task, or the refusal of a verdict that does not fit (B21): accept,
    correct and redo on a disputed task, decide on any other. None: an ordinary review follows."""
    if request.kind != "decide":
        if consensus.is_disputed(conn, task_id):
            raise DisputedNotReviewable(task_id)
        return None
    consensus.decidable(conn, queue, task_id, principal)
    state = reviews.locked_state(conn, task_id)
    live = (
        state is not None and state.lease_expires_at is not None and state.lease_expires_at > to_micros(now)
    )
    if (
        state is not None
        and state.state == reviews.IN_REVIEW
        and state.reviewer_id != principal.user_id
        and live
    ):
        raise ReviewHeld(task_id)
    _row, written = consensus.decide(conn, queue, task_id, principal, request.data or {}, now)
    verdict = reviews.Verdict(STATE_OF["decide"], principal.user_id, now, request.note, None, None)
    reviews.record(conn, queue.id, task_id, verdict, drawn=state is not None)
    _audit_verdict(conn, principal, queue.id, task_id, "decide", None)
    row = _found(conn, queue.id, task_id)
    consensus_view.attach(conn, queue, [row], principal)
    return Verdict(row, event_written=written)


def _audit_verdict(
    conn: Connection, principal: Principal, queue_id: int, task_id: int, kind: str, redo_task_id: int | None
) -> None:
    """The `review.verdict` audit event (B20), in the verdict's transaction: no task values, no note."""
    audit.record(
        conn,
        principal,
        "review.verdict",
        queue_id,
        {"task_id": task_id, "redo_task_id": redo_task_id},
        {"verdict": kind},
    )
