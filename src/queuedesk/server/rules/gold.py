"""The rules of gold tasks (B22): which expected values a gold task may have, which kind of work a
claim serves, and what B7 on a gold task does.

A claim in a queue without consensus runs here: the caller's own claim (ordinary or gold) again,
else the kind the share says is due, else the other kind. B7 on a gold task records the worker's
answer, scored by B21's equality, and answers them exactly as a completion would.
"""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection

from queuedesk.api.blocks import Problem, first_problems, task_data_problems
from queuedesk.server.rules import claiming, work
from queuedesk.server.rules.agreement import COMPARABLE_TYPES, equal
from queuedesk.server.rules.refusals import AlreadyCompleted, ClaimLimit, InvalidTaskData, TaskNotFound
from queuedesk.server.store import audit, gold, tasks
from queuedesk.server.store.records import Principal, QueueRecord
from queuedesk.server.store.types import to_micros

MAX_PERCENT = 50


def gold_due(user_id: int, queue_id: int, k: int, percent: int) -> bool:
    """Whether the caller's k-th claim in the queue serves a gold task (B22's deterministic share)."""
    mixed = ((user_id * 73856093 + queue_id * 19349663 + k) * 2654435761) % 2**32
    return mixed % 100 < percent


def expected_problems(queue: QueueRecord, expected: Any, field: str = "gold") -> list[Problem]:
    """A gold task's expected values: a non-empty object of the queue's blocks, each a type B21
    compares (not read-only), each value valid for its block."""
    problems = list(first_problems(task_data_problems(queue.blocks, expected, field_name=field)))
    if problems or not isinstance(expected, dict):
        return problems
    by_id = {block.id: block for block in queue.blocks}
    for block_id in expected:
        block = by_id[block_id]
        if block.type not in COMPARABLE_TYPES or block.read_only:
            kinds = ", ".join(sorted(COMPARABLE_TYPES))
            problems.append(
                Problem(
                    "invalid_value",
                    f"{field}.{block_id}",
                    f"block {block_id!r} is a {block.type} block{' (read-only)' if block.read_only else ''}; "
                    f"gold values may be given for blocks a worker fills of the types {kinds}",
                )
            )
    return problems


def check_expected(queue: QueueRecord, expected: Any, field: str = "gold") -> dict[str, Any]:
    problems = expected_problems(queue, expected, field)
    if problems:
        raise InvalidTaskData(problems)
    assert isinstance(expected, dict)
    return expected


def create(
    conn: Connection,
    queue: QueueRecord,
    data: dict[str, Any],
    expected: dict[str, Any],
    source: str,
    now: datetime,
) -> dict[str, Any]:
    """A1 with `gold`: the task as its creator sees it."""
    task_id = gold.create(conn, queue, data, expected, source, now)
    row = tasks.get_task(conn, queue.id, task_id)
    assert row is not None
    return row


def claim_next(
    conn: Connection,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease: timedelta,
    exclude: frozenset[int] = frozenset(),
) -> tuple[dict[str, Any] | None, int]:
    """B4 in a queue without consensus where gold may be held or served (`QueueRecord.gold_used`):
    the caller's gold claim again, else `work.claim_next` with the order of B22 (the due kind first,
    the other when it is exhausted). A live gold claim counts toward the claims ahead's limit, and
    gold tasks others hold count in the 204's `X-Tasks-Held`. k counts the claims made while the
    queue has a share: with none, gold is not served and nothing is counted."""
    own = gold.own_claim(conn, queue_id, user_id)
    if (
        own is not None
        and own.task_id not in exclude
        and gold.renew_own(conn, own.task_id, user_id, now + lease)
    ):
        return tasks.get_task(conn, queue_id, own.task_id, user_id), 0
    own_live = own is not None and own.lease_expires_at is not None and own.lease_expires_at > to_micros(now)

    def next_row(
        conn: Connection, queue_id: int, user_id: int, now: datetime, lease_until: datetime, attempts: int
    ) -> int | None:
        if exclude and own_live:  # claiming ahead: the gold claim is one of the caller's live claims
            assert own is not None
            _below_limit(conn, queue_id, user_id, now, own.task_id)
        percent, k, start = gold.share_and_count(conn, queue_id, user_id)
        ordinary = _ordinary(conn, queue_id, user_id, now, lease_until, attempts, others_only=bool(exclude))
        if percent == 0:  # no share: gold tasks are not served, the claim is not counted
            return ordinary()
        if gold_due(user_id, queue_id, k, percent):
            taken = gold.next_gold(conn, queue_id, user_id, now, lease_until, start) or ordinary()
        else:
            taken = ordinary() or gold.next_gold(conn, queue_id, user_id, now, lease_until, start)
        if taken is not None:
            gold.count_claim(conn, queue_id, user_id)
        return taken

    task_id, held = claiming.claim(
        conn, tasks.CLAIMS, queue_id, user_id, now, lease, exclude, ClaimLimit, next_row
    )
    if task_id is None:
        return None, held + gold.held_by_others(conn, queue_id, user_id, now)
    return tasks.get_task(conn, queue_id, task_id, user_id), 0


def _below_limit(conn: Connection, queue_id: int, user_id: int, now: datetime, gold_id: int) -> None:
    """ClaimLimit when the caller's live ordinary claims and their live gold claim reach the limit."""
    ordinary = tasks.CLAIMS.own_claims(conn, queue_id, user_id, now, claiming.MAX_EXCLUDE + 1)
    live = sorted([held.task_id for held in ordinary if held.live] + [gold_id])
    if len(live) >= claiming.CLAIM_LIMIT:
        raise ClaimLimit(live)


def _ordinary(
    conn: Connection,
    queue_id: int,
    user_id: int,
    now: datetime,
    lease_until: datetime,
    attempts: int,
    *,
    others_only: bool,
) -> Any:
    """The oldest claimable ordinary task, taken (as B4 without gold), deferred until called."""

    def take() -> int | None:
        for _attempt in range(attempts):
            candidate = tasks.CLAIMS.next_claimable(conn, queue_id, user_id, now, others_only=others_only)
            if candidate is None:
                return None
            if tasks.CLAIMS.take(conn, candidate, user_id, now, lease_until):
                return candidate
        return None

    return take


def complete(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    data: dict[str, Any],
    now: datetime,
) -> work.Completion:
    """B7: on a gold task, the worker's scored answer; on any other, the completion."""
    state = gold.state(conn, task_id)
    if state is None:
        return work.complete(conn, queue, task_id, principal, data, now)
    if gold.has_answered(conn, task_id, principal.user_id):
        raise AlreadyCompleted(task_id)  # as a second completion of their own task would be
    held = work.held_task(conn, queue.id, task_id, principal)
    merged = work.checked_completion(queue, held.data, data)
    types = {block.id: block.type for block in queue.blocks}
    wrong = [
        block_id
        for block_id, value in state.expected.items()
        if block_id in types and not equal(types[block_id], merged.get(block_id), value)
    ]
    answer = gold.Answer(task_id, queue.id, principal.user_id, principal.email, merged, state.expected, wrong)
    gold.record_answer(conn, answer, now)
    row = tasks.get_task(conn, queue.id, task_id)
    assert row is not None
    # As a completion answers: completed now by the caller, their values, nobody holding it.
    now_us = to_micros(now)
    row.update(
        status="completed",
        completed_at=now_us,
        completed_by=principal.email,
        data=merged,
        assigned_to=None,
        assignee_email=None,
        assignee_name=None,
        assigned_at=None,
        lease_expires_at=None,
        draft=None,
    )
    return work.Completion(row, event_written=False)


def attach(conn: Connection, queue_id: int, found: list[dict[str, Any]], viewer: Principal) -> None:
    """To admins and supervisors, each gold task's expected values and `retired`; to a worker who
    answered a gold task, the task as their completion left it (nothing that tells it is gold)."""
    if not found:
        return
    if viewer.role == "worker":
        for row in found:
            answered = gold.worker_answer(conn, row["id"], viewer.user_id)
            if answered is not None:
                row.update(
                    status="completed",
                    completed_at=answered[0],
                    completed_by=viewer.email,
                    data=answered[1],
                    assigned_to=None,
                    assignee_email=None,
                    assignee_name=None,
                    assigned_at=None,
                    lease_expires_at=None,
                )
        return
    states = gold.states(conn, queue_id, [row["id"] for row in found])
    for row in found:
        state = states.get(row["id"])
        if state is not None:
            row["gold"] = state.expected
            row["retired"] = state.retired


def list_gold(conn: Connection, queue_id: int, offset: int, limit: int, viewer: Principal) -> Any:
    """B2 with gold=true: the queue's gold tasks, oldest first, with their expected values."""
    page = gold.list_gold(conn, queue_id, offset, limit, viewer.user_id)
    attach(conn, queue_id, page.rows, viewer)
    return page


def patch(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    changes: dict[str, Any],
) -> dict[str, Any]:
    """B24's PATCH with B22's `gold` (new expected values; earlier answers keep their score) and
    `retired` (never served again), and a `task.update` audit event saying what changed."""
    held = tasks.held_state(conn, queue.id, task_id)
    if held is None:
        raise TaskNotFound(task_id)
    if held.status == "completed":
        raise AlreadyCompleted(task_id)
    state = gold.state(conn, task_id)
    if state is None:
        raise InvalidTaskData(
            [Problem("invalid_value", next(iter(changes)), f"task {task_id} is not a gold task")]
        )
    detail: dict[str, Any] = {"fields": []}
    if "gold" in changes and changes["gold"] != state.expected:
        gold.set_expected(conn, task_id, changes["gold"])
        detail["fields"].append("gold")
        detail["gold"] = {"from": sorted(state.expected), "to": sorted(changes["gold"])}
    if changes.get("retired") and not state.retired:
        gold.retire(conn, task_id)
        detail["fields"].append("retired")
        detail["retired"] = {"from": False, "to": True}
    audit.record(conn, principal, "task.update", queue.id, {"task_id": task_id}, detail)
    row = tasks.get_task(conn, queue.id, task_id, principal.user_id)
    assert row is not None
    attach(conn, queue.id, [row], principal)
    return row
