"""The rules of B24 (priority and due dates) and B25 (reservations): which values a task may be
created or changed with, the PATCH and the assignment with their audit events, and noticing that a
due date has passed (`n_overdue` by trigger, the `task.overdue` event through the outbox).

Every function that takes a connection runs in one transaction.
"""

from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection

from queuedesk.api.blocks import Problem
from queuedesk.server.http import serialize
from queuedesk.server.rules.refusals import AlreadyCompleted, InvalidTaskData, TaskNotFound
from queuedesk.server.store import audit, deliveries, queues, schedule, tasks
from queuedesk.server.store.records import Principal, QueueRecord
from queuedesk.server.store.tasks import Schedule
from queuedesk.server.store.types import from_micros, to_micros

FIELDS = ("priority", "due_at", "reserved_for")  # beside `data` in A1, B8 and every import path
PATCH_FIELDS = ("priority", "due_at")  # B24's PATCH (B22's `gold` and `retired` join them)
MIN_PRIORITY, MAX_PRIORITY = -1000, 1000
MAX_TIMESTAMP = 40  # characters of a due date
OVERDUE = "task.overdue"
ORDERS = ("oldest", "least_confident")  # a queue's `order`


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def priority_problem(value: Any, field: str) -> Problem | None:
    if type(value) is not int or not MIN_PRIORITY <= value <= MAX_PRIORITY:  # bool is not a priority
        return Problem(
            "invalid_value",
            field,
            f"'priority' is an integer from {MIN_PRIORITY} to {MAX_PRIORITY}, not {_shown(value)}",
        )
    return None


def due_micros(value: Any, field: str) -> tuple[int | None, Problem | None]:
    """A due date: an ISO 8601 date-time (UTC when it names no offset) or null -> stored micros."""
    if value is None:
        return None, None
    wrong = Problem(
        "invalid_value",
        field,
        f"'due_at' is an ISO 8601 date-time such as 2026-12-08T17:00:00Z, or null; not {_shown(value)}",
    )
    if not isinstance(value, str) or not value.isascii() or len(value) > MAX_TIMESTAMP or "T" not in value:
        return None, wrong
    try:
        moment = datetime.fromisoformat(value)
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
        return to_micros(moment), None
    except (ValueError, OverflowError):
        return None, wrong


def email_problem(value: Any, field: str) -> Problem | None:
    if value is not None and (not isinstance(value, str) or not 0 < len(value) <= 320 or "\x00" in value):
        return Problem(
            "invalid_value", field, f"an email address of the organization or null, not {_shown(value)}"
        )
    return None


class Requested(NamedTuple):
    """A new task's B24/B25 fields as given (the reservation an email, not yet looked up)."""

    priority: int = 0
    due_at: int | None = None
    reserved_email: str | None = None


NOTHING = Requested()


def requested(item: dict[str, Any], prefix: str = "") -> tuple[Requested, list[Problem]]:
    """The fields of one task (`prefix`: where it sits in the body, e.g. "tasks[3]."), and their problems."""
    problems: list[Problem] = []
    priority = item.get("priority", 0)
    found = priority_problem(priority, f"{prefix}priority")
    if found is not None:
        problems.append(found)
        priority = 0
    due, wrong = due_micros(item.get("due_at"), f"{prefix}due_at")
    if wrong is not None:
        problems.append(wrong)
    email = item.get("reserved_for")
    wrong = email_problem(email, f"{prefix}reserved_for")
    if wrong is not None:
        problems.append(wrong)
        email = None
    return Requested(priority, due, email), problems


def not_for_gold(field: str = "gold") -> Problem:
    return Problem(
        "invalid_value",
        field,
        "a gold task takes no priority, due date or reservation: B22's share serves it",
    )


def item_problems(item: dict[str, Any], prefix: str) -> list[Problem]:
    """An imported task's B24/B25 fields' problems (the reservation is looked up later)."""
    asked, problems = requested(item, prefix)
    if item.get("gold") is not None and asked != NOTHING:
        problems.append(not_for_gold(f"{prefix}gold"))
    return problems


def _not_assignable(email: str, field: str) -> Problem:
    return Problem(
        "invalid_value",
        field,
        f"{email[:320]!r} is not an enabled worker or admin of this organization: a task is reserved "
        "for someone who can claim it",
    )


def schedules(
    conn: Connection, organization_id: int, asked: list[Requested], fields: list[str]
) -> list[Schedule]:
    """Each request with its reservation looked up (`fields[i]`: where task i's `reserved_for` sits);
    InvalidTaskData naming each email that is not an enabled worker or admin of the organization."""
    people = schedule.assignees(conn, organization_id, {a.reserved_email for a in asked if a.reserved_email})
    problems = [
        _not_assignable(a.reserved_email, field)
        for a, field in zip(asked, fields, strict=True)
        if a.reserved_email and a.reserved_email not in people
    ]
    if problems:
        raise InvalidTaskData(problems[:100])
    made = []
    for a in asked:
        person = people.get(a.reserved_email) if a.reserved_email else None
        made.append(
            Schedule(
                a.priority,
                a.due_at,
                None if person is None else person.user_id,
                None if person is None else person.email,
            )
        )
    return made


def one_schedule(conn: Connection, organization_id: int, asked: Requested) -> Schedule:
    return schedules(conn, organization_id, [asked], ["reserved_for"])[0]


def overdue_at_creation(found: list[Requested], now: datetime) -> bool:
    """Whether any new task has a due date: the overdue job is then woken, to notice one already
    passed at once and to sleep no longer than until the soonest."""
    return any(a.due_at is not None for a in found)


# --- the PATCH and the assignment ---------------------------------------------------------------


def _locked(conn: Connection, queue_id: int, task_id: int) -> schedule.TaskSchedule:
    found = schedule.task_schedule(conn, queue_id, task_id)
    if found is None:
        raise TaskNotFound(task_id)
    if found.status == "completed":
        raise AlreadyCompleted(task_id)
    return found


def _ts(micros: int | None) -> str | None:
    return None if micros is None else serialize.ts(micros)


def patch(
    conn: Connection,
    queue: QueueRecord,
    task_id: int,
    principal: Principal,
    changes: dict[str, Any],
    now: datetime,
) -> bool:
    """B24's PATCH of `priority` and `due_at` (`changes` holds those given, validated; the due date
    as micros or None) with a `task.update` audit event saying old -> new. A due date already passed
    is noticed at once (counted; its event queued). True when an event was queued."""
    found = _locked(conn, queue.id, task_id)
    detail: dict[str, Any] = {"fields": []}
    if "priority" in changes and changes["priority"] != found.priority:
        schedule.set_priority(conn, task_id, changes["priority"])
        detail["fields"].append("priority")
        detail["priority"] = {"from": found.priority, "to": changes["priority"]}
    queued = False
    if "due_at" in changes and changes["due_at"] != found.due_at:
        schedule.set_due(conn, task_id, changes["due_at"])
        detail["fields"].append("due_at")
        detail["due_at"] = {"from": _ts(found.due_at), "to": _ts(changes["due_at"])}
        if changes["due_at"] is not None and changes["due_at"] <= to_micros(now):
            queued = notice(conn, task_id, queue.id, now)
    audit.record(conn, principal, "task.update", queue.id, {"task_id": task_id}, detail)
    return queued


def assign(
    conn: Connection, queue: QueueRecord, task_id: int, principal: Principal, email: str | None
) -> None:
    """B25: reserve the task for `email` (None lifts the reservation), with a `task.assign` audit
    event saying old -> new. A task already claimed keeps its claim until it ends."""
    person = None if email is None else schedule.assignee(conn, principal.organization_id, email)
    if email is not None and person is None:
        raise InvalidTaskData([_not_assignable(email, "to")])
    found = _locked(conn, queue.id, task_id)
    new_id = None if person is None else person.user_id
    if new_id != found.reserved_for:
        schedule.reserve(conn, task_id, new_id)
    detail = {"from": found.reserved_email, "to": None if person is None else person.email}
    audit.record(conn, principal, "task.assign", queue.id, {"task_id": task_id}, detail)


def task_after(conn: Connection, queue_id: int, task_id: int, viewer: Principal) -> dict[str, Any]:
    row = tasks.get_task(conn, queue_id, task_id, viewer.user_id)
    if row is None:
        raise TaskNotFound(task_id)
    return row


# --- noticing due dates ----------------------------------------------------------------------------


def notice(conn: Connection, task_id: int, queue_id: int, now: datetime) -> bool:
    """Notice the task's passed due date, once: the arm cleared (so `n_overdue` counts it, by
    trigger) and, if it is pending and its queue has a webhook, its `task.overdue` event queued in
    the same transaction. True when an event was queued."""
    noticed = schedule.notice(conn, task_id, to_micros(now))
    if noticed is None or noticed[0] not in tasks.PENDING:
        return False
    target = queues.current_target(conn, queue_id)
    if target is None:
        return False
    row = tasks.get_task(conn, queue_id, task_id)
    assert row is not None
    body = {"type": OVERDUE, "task": serialize.task(row), "due_at": serialize.ts(noticed[1])}
    deliveries.enqueue(conn, queue_id, task_id, target, orjson.dumps(body), now, OVERDUE)
    return True


def notice_due(conn: Connection, now: datetime, limit: int) -> tuple[int, int]:
    """One pass of the overdue job: up to `limit` armed due dates passed by `now` noticed. (tasks
    looked at, events queued)."""
    found = schedule.due(conn, to_micros(now), limit)
    queued = sum(notice(conn, task_id, queue_id, now) for task_id, queue_id in found)
    return len(found), queued


def next_due(conn: Connection) -> datetime | None:
    soonest = schedule.next_due(conn)
    return None if soonest is None else from_micros(soonest)
