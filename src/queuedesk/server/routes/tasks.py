"""A1 create, A2 completed history, B2 pending list, B3 one task, B8 import."""

import re
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.blocks import Problem, first_problems, task_data_problems
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import serialize
from queuedesk.server.http.http_errors import forbidden, invalid
from queuedesk.server.http.plumbing import (
    JSONResponse,
    bad_parameter,
    json_object,
    moment_parameter,
    order_parameter,
    page_body,
    paging,
    read_json,
    search_parameter,
    sort_parameter,
)
from queuedesk.server.routes import creations_of, db_of, gold, settings_of
from queuedesk.server.rules import consensus_view, work
from queuedesk.server.rules import gold as gold_rules
from queuedesk.server.store import audit, tasks
from queuedesk.server.store import gold as gold_store
from queuedesk.server.store.records import Principal, QueueRecord

MAX_IMPORT = 10_000
CSV_SOURCE = re.compile(r"[^/\\\x00-\x1f]{1,251}\.csv")  # fullmatch: `$` would let a newline end it
PENDING_STATUSES = ("new", "open", "in_progress")
SCAN_OFFSET = 10_000  # from here a history page skips enough index entries to be a long read


async def create_task(request: Request, caller: QueueCaller) -> Response:
    body = json_object(await read_json(request, required=False) or {}, allowed=("data", "gold"))
    if body.get("gold") is not None:  # B22: a gold task (`"gold": null` is an ordinary one)
        return await gold.create(request, caller, body)
    work.check_new_task(caller.queue, body.get("data"))
    # the INSERT and the queue's pending count, in one transaction with the others of this moment
    row = await creations_of(request).create(caller.queue, body["data"], "api", utcnow())
    return JSONResponse(serialize.task(row))


async def completed_tasks(request: Request, caller: QueueCaller) -> Response:
    params = request.query_params
    completed_by = params.get("completed_by")
    if completed_by == "me":
        completed_by = caller.principal.email
    if caller.principal.role == "worker" and completed_by != caller.principal.email:
        raise forbidden("A worker may only list its own completed tasks: add completed_by=me.")
    offset, limit = paging(params)
    if completed_by is not None and (not completed_by or "\x00" in completed_by):
        raise bad_parameter("completed_by", "'completed_by' must be an email address or 'me'")
    start = moment_parameter(params, "start_date", end_of_day=False)
    end = moment_parameter(params, "end_date", end_of_day=True)
    q = search_parameter(params)
    oldest_first = order_parameter(params, "desc") == "asc"
    sort = sort_parameter(params, tasks.COMPLETED_SORTS)
    # The first pages of the unfiltered history are quick on the loop; a deep offset or a filtered
    # count goes through many rows, so it runs on a reader.
    filtered = completed_by is not None or start is not None or end is not None or q is not None
    long = offset >= SCAN_OFFSET or filtered or sort != tasks.COMPLETED_SORTS[0]
    db = db_of(request)
    page = await (db.scan if long else db.read)(
        tasks.list_completed, caller.queue, offset, limit, completed_by, start, end, q, oldest_first, sort
    )
    items = [serialize.task(row) for row in page.rows]
    return JSONResponse(page_body(request, settings_of(request), offset, limit, page.count, "tasks", items))


def _statuses(raw: str | None) -> tuple[str, ...]:
    if raw is None:
        return PENDING_STATUSES
    chosen = tuple(s.strip() for s in raw.split(",") if s.strip())
    wrong = [s for s in chosen if s not in PENDING_STATUSES]
    if wrong or not chosen:
        raise bad_parameter(
            "status", f"'status' takes a comma list of {', '.join(PENDING_STATUSES)}, not {raw[:60]!r}"
        )
    return chosen


async def pending_tasks(request: Request, caller: QueueCaller) -> Response:
    params = request.query_params
    offset, limit = paging(params)
    if params.get("gold") == "true":  # B22: the gold tasks instead
        return await gold.list_gold(request, caller, offset, limit)
    if params.get("gold") not in (None, "false"):
        raise bad_parameter("gold", f"'gold' takes true or false, not {params['gold'][:60]!r}")
    statuses = _statuses(params.get("status"))
    q = search_parameter(params)
    newest_first = order_parameter(params, "asc") == "desc"
    sort = sort_parameter(params, tasks.PENDING_SORTS)
    state = _consensus_state(params.get("consensus"), caller.queue)

    page = await db_of(request).scan(
        consensus_view.list_pending,
        caller.queue,
        caller.principal,
        tasks.PendingQuery(statuses, offset, limit, q, newest_first, sort, state),
    )
    items = [serialize.task(row, with_assignment=True) for row in page.rows]
    return JSONResponse(page_body(request, settings_of(request), offset, limit, page.count, "tasks", items))


def _consensus_state(raw: str | None, queue: QueueRecord) -> str | None:
    """B2's `consensus` filter (B21): `collecting` (tasks with answers, waiting for more) or `disputed`."""
    if raw is None:
        return None
    if raw not in ("collecting", "disputed"):
        raise bad_parameter("consensus", f"'consensus' takes collecting or disputed, not {raw[:60]!r}")
    return raw


async def get_task(request: Request, caller: QueueCaller) -> Response:
    task_id = request.path_params["task"]
    row = await db_of(request).read(_task_with_gold, caller.queue, task_id, caller.principal)
    body = serialize.task(row, with_assignment=True)
    if not may_read(caller.principal, body):
        raise forbidden("A worker may read only tasks not completed, or completed by them.")
    return JSONResponse(body)


def _task_with_gold(conn: Connection, queue: QueueRecord, task_id: int, viewer: Principal) -> dict[str, Any]:
    """B3 as consensus_view has it, and B22's view of a gold task."""
    row = consensus_view.task_with_review(conn, queue, task_id, viewer)
    gold_rules.attach(conn, queue.id, [row], viewer)
    return row


def may_read(principal: Principal, task: dict[str, Any]) -> bool:
    """A worker reads a completed task only if they completed it; others read every task."""
    return (
        principal.role != "worker" or task["status"] != "completed" or task["completed_by"] == principal.email
    )


def _import_problems(queue: QueueRecord, body: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of an import, one at a time: the answer reports the first ones and counts all."""
    source = body["source"]
    if not isinstance(source, str) or not (source in ("manual", "connector") or CSV_SOURCE.fullmatch(source)):
        yield Problem(
            "invalid_value", "source", "must be 'manual', 'connector' or a file name ending in .csv"
        )
    items = body["tasks"]
    if not isinstance(items, list):
        yield Problem("invalid_value", "tasks", 'must be a list of {"data": {...}} objects')
        return
    if len(items) > MAX_IMPORT:
        yield Problem("invalid_value", "tasks", f"at most {MAX_IMPORT} tasks per import, not {len(items)}")
        return
    by_id = {block.id: block for block in queue.blocks}
    for index, item in enumerate(items):
        where = f"tasks[{index}]"
        if not isinstance(item, dict) or "data" not in item or not set(item) <= {"data", "gold"}:
            yield Problem("invalid_value", where, f"task {index}: must be an object with 'data' (and 'gold')")
        else:
            yield from task_data_problems(queue.blocks, item["data"], field_name=f"{where}.data", by_id=by_id)
            if item.get("gold") is not None:  # B22
                yield from gold_rules.expected_problems(queue, item["gold"], f"{where}.gold")


async def import_tasks(request: Request, caller: QueueCaller) -> Response:
    body = json_object(await read_json(request), allowed=("source", "tasks"), required=("source", "tasks"))
    problems = first_problems(_import_problems(caller.queue, body))
    if problems:
        raise invalid(problems)
    items = [item["data"] for item in body["tasks"]]
    expected = [item.get("gold") for item in body["tasks"]]
    source = body["source"]

    def import_and_record(conn: Connection) -> list[int]:
        now = utcnow()
        if not any(value is not None for value in expected):
            ids = tasks.import_tasks(conn, caller.queue, items, source, now)
        else:  # B22: gold tasks among them, in the order given
            ids = [
                tasks.import_tasks(conn, caller.queue, [data], source, now)[0]
                if gold_value is None
                else gold_store.create(conn, caller.queue, data, gold_value, source, now)
                for data, gold_value in zip(items, expected, strict=True)
            ]
        audit.record_import(conn, caller.principal, caller.queue, source, ids)
        return ids

    ids = await db_of(request).write(import_and_record)
    return JSONResponse({"created": len(ids), "ids": ids})
