"""B22 gold tasks: creating one (A1 with `gold`), the list of gold tasks (B2 with `gold=true`), B24's
PATCH of a task with `gold` and `retired`, and `GET …/gold/answers`."""

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.blocks import Problem
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import serialize
from queuedesk.server.http.http_errors import forbidden, invalid
from queuedesk.server.http.plumbing import (
    JSONResponse,
    bad_parameter,
    json_object,
    page_body,
    paging,
    read_json,
)
from queuedesk.server.routes import db_of, settings_of
from queuedesk.server.rules import gold, work
from queuedesk.server.store import gold as gold_store

# B24's PATCH: B22's fields now; `priority` and `due_at` join them with B24.
PATCH_FIELDS = ("gold", "retired")


def only_admins(caller: QueueCaller, what: str) -> None:
    if caller.principal.role != "admin":
        raise forbidden(f"Only an admin may {what}.")


async def create(request: Request, caller: QueueCaller, body: dict[str, Any]) -> Response:
    """A1 with `gold`: a gold task (admins)."""
    only_admins(caller, "create gold tasks")
    work.check_new_task(caller.queue, body.get("data"))
    expected = gold.check_expected(caller.queue, body["gold"])
    row = await db_of(request).write(gold.create, caller.queue, body["data"], expected, "api", utcnow())
    return JSONResponse(serialize.task(row))


async def list_gold(request: Request, caller: QueueCaller, offset: int, limit: int) -> Response:
    """B2 with gold=true (admins and supervisors)."""
    if caller.principal.role == "worker":
        raise forbidden("A worker may not list the gold tasks.")
    page = await db_of(request).read(gold.list_gold, caller.queue.id, offset, limit, caller.principal)
    items = [serialize.task(row, with_assignment=True) for row in page.rows]
    return JSONResponse(page_body(request, settings_of(request), offset, limit, page.count, "tasks", items))


async def patch_task(request: Request, caller: QueueCaller) -> Response:
    only_admins(caller, "change a task")
    body = json_object(await read_json(request), allowed=PATCH_FIELDS)
    problems: list[Problem] = []
    changes: dict[str, Any] = {}
    if not body:
        problems.append(Problem("no_data", None, f"give at least one of {', '.join(PATCH_FIELDS)}"))
    if "gold" in body:
        problems += gold.expected_problems(caller.queue, body["gold"])
        changes["gold"] = body["gold"]
    if "retired" in body:
        if body["retired"] is not True:
            problems.append(
                Problem("invalid_value", "retired", "must be true (a retired gold task stays retired)")
            )
        changes["retired"] = True
    if problems:
        raise invalid(problems)
    row = await db_of(request).write(
        gold.patch, caller.queue, request.path_params["task"], caller.principal, changes
    )
    return JSONResponse(serialize.task(row, with_assignment=True))


async def list_answers(request: Request, caller: QueueCaller) -> Response:
    params = request.query_params
    offset, limit = paging(params)
    worker = params.get("completed_by", params.get("worker"))
    if worker == "me":
        worker = caller.principal.email
    if caller.principal.role == "worker" and worker != caller.principal.email:
        raise forbidden("A worker may only list its own gold answers: add completed_by=me.")
    if worker is not None and (not worker or "\x00" in worker):
        raise bad_parameter("completed_by", "'completed_by' must be an email address or 'me'")
    correct = params.get("correct")
    if correct not in (None, "true", "false"):
        raise bad_parameter("correct", f"'correct' takes true or false, not {correct[:60]!r}")
    scored = None if correct is None else correct == "true"
    page = await db_of(request).scan(gold_store.list_answers, caller.queue.id, offset, limit, worker, scored)
    items = [{**answer, "answered_at": serialize.ts(answer["answered_at"])} for answer in page.rows]
    return JSONResponse(page_body(request, settings_of(request), offset, limit, page.count, "answers", items))
