"""B24's PATCH of a task (priority, due date; B22's gold values and retiring) and B25's assignment."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.blocks import Problem
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import serialize
from queuedesk.server.http.http_errors import invalid
from queuedesk.server.http.plumbing import JSONResponse, bad_parameter, json_object, read_json
from queuedesk.server.routes import db_of
from queuedesk.server.routes.gold import GOLD_FIELDS, gold_changes, only_admins
from queuedesk.server.rules import consensus_view, gold, schedule
from queuedesk.server.store.records import Principal, QueueRecord
from queuedesk.server.store.tasks import Schedule, ScheduleFilter
from queuedesk.server.store.types import to_micros

PATCH_FIELDS = (*schedule.PATCH_FIELDS, *GOLD_FIELDS)


def _schedule_changes(body: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    changes: dict[str, Any] = {}
    problems: list[Problem] = []
    if "priority" in body:
        problem = schedule.priority_problem(body["priority"], "priority")
        if problem is not None:
            problems.append(problem)
        changes["priority"] = body["priority"]
    if "due_at" in body:
        due, problem = schedule.due_micros(body["due_at"], "due_at")
        if problem is not None:
            problems.append(problem)
        changes["due_at"] = due
    return changes, problems


async def schedule_of(request: Request, caller: QueueCaller, asked: schedule.Requested) -> Schedule:
    """A new task's fields, its reservation looked up (a read only when there is one)."""
    if asked.reserved_email is None:
        return Schedule(asked.priority, asked.due_at)
    return await db_of(request).read(schedule.one_schedule, caller.principal.organization_id, asked)


def pending_filter(params: Mapping[str, str], principal: Principal, now: datetime) -> ScheduleFilter:
    """B2's `overdue=true` and `reserved_for` (an email, or `me`)."""
    overdue = params.get("overdue")
    if overdue not in (None, "true", "false"):
        raise bad_parameter("overdue", f"'overdue' takes true or false, not {overdue[:60]!r}")
    reserved = params.get("reserved_for")
    if reserved == "me":
        reserved = principal.email
    if reserved is not None and (not reserved or len(reserved) > 320 or "\x00" in reserved):
        raise bad_parameter("reserved_for", "'reserved_for' must be an email address or 'me'")
    return ScheduleFilter(to_micros(now) if overdue == "true" else None, reserved)


def _task_view(conn: Connection, queue: QueueRecord, task_id: int, viewer: Principal) -> dict[str, Any]:
    """The task as B3 shows it to the caller."""
    row = consensus_view.task_with_review(conn, queue, task_id, viewer)
    gold.attach(conn, queue.id, [row], viewer)
    return row


async def patch_task(request: Request, caller: QueueCaller) -> Response:
    """B24 (admins): `priority`, `due_at`, and B22's `gold`, `retired`, in one transaction."""
    only_admins(caller, "change a task")
    body = json_object(await read_json(request), allowed=PATCH_FIELDS)
    planned, problems = _schedule_changes(body)
    golden, gold_problems = gold_changes(caller, body)
    problems += gold_problems
    if not body:
        problems.append(Problem("no_data", None, f"give at least one of {', '.join(PATCH_FIELDS)}"))
    if problems:
        raise invalid(problems)
    task_id = request.path_params["task"]
    now = utcnow()

    def change(conn: Connection) -> tuple[dict[str, Any], bool]:
        queued = bool(planned) and schedule.patch(conn, caller.queue, task_id, caller.principal, planned, now)
        if golden:
            gold.patch(conn, caller.queue, task_id, caller.principal, golden)
        return _task_view(conn, caller.queue, task_id, caller.principal), queued

    row, queued = await db_of(request).write(change)
    if queued:
        request.app.state.dispatcher.wake()
    if planned.get("due_at") is not None:  # the overdue job sleeps no longer than until it
        request.app.state.overdue.wake()
    return JSONResponse(serialize.task(row, with_assignment=True))


async def assign(request: Request, caller: QueueCaller) -> Response:
    """B25 (admins and supervisors): `{"to": email | null}` reserves the task for that person or
    lifts its reservation."""
    body = json_object(await read_json(request), allowed=("to",), required=("to",))
    to = body["to"]
    problem = schedule.email_problem(to, "to")
    if problem is not None:
        raise invalid([problem])
    task_id = request.path_params["task"]

    def reserve(conn: Connection) -> dict[str, Any]:
        schedule.assign(conn, caller.queue, task_id, caller.principal, to)
        return _task_view(conn, caller.queue, task_id, caller.principal)

    row = await db_of(request).write(reserve)
    return JSONResponse(serialize.task(row, with_assignment=True))
