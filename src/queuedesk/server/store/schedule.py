"""B24's priority and due dates and B25's reservations: a task's fields as a PATCH or an assignment
reads and writes them, who a task may be reserved for, and the statements of the overdue job.

A due date is stored in `tasks.due_at` (NO_DUE: none) and armed in `tasks.due_armed` until its
passing is noticed; noticing clears the arm in the transaction that queues the `task.overdue`
event, with a conditional update, so two servers noticing the same task together queue one event.
The queue's `n_overdue` follows by trigger (store/overdue_counts.py).
"""

from typing import NamedTuple

from sqlalchemy import Connection

from queuedesk.server.store.overdue_counts import NO_DUE
from queuedesk.server.store.sql import Sql, one, rows, run


class TaskSchedule(NamedTuple):
    """A task's state and B24/B25 fields, its row locked (PostgreSQL) for the rest of the transaction."""

    status: str
    priority: int
    due_at: int | None  # micros; None: none
    reserved_for: int | None
    reserved_email: str | None
    assigned_to: int | None


SCHEDULE = Sql(
    """SELECT status, priority, due_at, reserved_for, (SELECT u.email FROM users u WHERE u.id = tasks.reserved_for),
    assigned_to FROM tasks WHERE id = :task_id AND queue_id = :queue_id {lock}"""
)


def task_schedule(conn: Connection, queue_id: int, task_id: int) -> TaskSchedule | None:
    row = one(conn, SCHEDULE, task_id=task_id, queue_id=queue_id)
    if row is None:
        return None
    status, priority, due_at, reserved_for, email, assigned_to = row
    return TaskSchedule(
        status, priority, None if due_at == NO_DUE else due_at, reserved_for, email, assigned_to
    )


SET_PRIORITY = Sql("UPDATE tasks SET priority = :priority WHERE id = :task_id")
# A new due date is armed: its passing is noticed (counted, its event queued) once more.
SET_DUE = Sql("UPDATE tasks SET due_at = :due_at, due_armed = :armed WHERE id = :task_id")


def set_priority(conn: Connection, task_id: int, priority: int) -> None:
    run(conn, SET_PRIORITY, priority=priority, task_id=task_id)


def set_due(conn: Connection, task_id: int, due_at: int | None) -> None:
    run(conn, SET_DUE, due_at=NO_DUE if due_at is None else due_at, armed=due_at, task_id=task_id)


RESERVE = Sql("UPDATE tasks SET reserved_for = :user_id WHERE id = :task_id")
# B21: a reservation covers one answer; the holder's answer lifts it.
LIFT_AFTER_ANSWER = Sql(
    "UPDATE tasks SET reserved_for = NULL WHERE id = :task_id AND reserved_for = :user_id"
)


def reserve(conn: Connection, task_id: int, user_id: int | None) -> None:
    run(conn, RESERVE, user_id=user_id, task_id=task_id)


def lift_after_answer(conn: Connection, task_id: int, user_id: int) -> None:
    run(conn, LIFT_AFTER_ANSWER, task_id=task_id, user_id=user_id)


class Assignee(NamedTuple):
    user_id: int
    email: str


# B25: an enabled worker or admin of the organization; emails match in any case.
ASSIGNEE = Sql(
    """SELECT id, email FROM users WHERE organization_id = :org_id AND lower(email) = lower(:email)
    AND role IN ('worker', 'admin') AND NOT disabled"""
)


def assignee(conn: Connection, organization_id: int, email: str) -> Assignee | None:
    row = one(conn, ASSIGNEE, org_id=organization_id, email=email)
    return None if row is None else Assignee(row[0], row[1])


def assignees(conn: Connection, organization_id: int, emails: set[str]) -> dict[str, Assignee]:
    """Each of `emails` that names an enabled worker or admin, by the email as given."""
    found = {}
    for email in emails:
        person = assignee(conn, organization_id, email)
        if person is not None:
            found[email] = person
    return found


# --- the overdue job --------------------------------------------------------------------------------

# Armed due dates that have passed, soonest first, from the partial index; PostgreSQL skips those
# another server is noticing right now.
DUE = Sql(
    """SELECT id, queue_id FROM tasks WHERE due_armed IS NOT NULL AND due_armed <= :now
    ORDER BY due_armed LIMIT :limit {skip_locked}"""
)
# The mark: only the transaction whose update finds the arm still there queues the event.
NOTICE = Sql(
    """UPDATE tasks SET due_armed = NULL WHERE id = :task_id AND due_armed IS NOT NULL AND due_armed <= :now
    RETURNING status, due_at"""
)
NEXT_DUE = Sql("SELECT min(due_armed) FROM tasks WHERE due_armed IS NOT NULL")


def due(conn: Connection, now_us: int, limit: int) -> list[tuple[int, int]]:
    """(task id, queue id) of armed due dates passed by `now_us`."""
    return [(row[0], row[1]) for row in rows(conn, DUE, now=now_us, limit=limit)]


def notice(conn: Connection, task_id: int, now_us: int) -> tuple[str, int] | None:
    """Clear the task's arm if its due date has passed and nobody cleared it yet: (its status, its
    due date), or None when there was nothing to notice."""
    row = one(conn, NOTICE, task_id=task_id, now=now_us)
    return None if row is None else (row[0], row[1])


def next_due(conn: Connection) -> int | None:
    """The soonest armed due date (micros), None when none is armed."""
    row = one(conn, NEXT_DUE)
    return None if row is None else row[0]
