"""B4 claim, B5 heartbeat, B6 release and B7 complete: the worker's cycle."""

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.blocks import Problem
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import serialize
from queuedesk.server.http.http_errors import error, invalid
from queuedesk.server.http.plumbing import JSONResponse, header, json_object, read_json
from queuedesk.server.jobs.turn_writes import TurnWrites
from queuedesk.server.routes import db_of, settings_of
from queuedesk.server.rules import consensus, gold, work
from queuedesk.server.rules.claiming import MAX_EXCLUDE


def _data_object(body: dict[str, Any]) -> dict[str, Any]:
    data = body.get("data")
    if not isinstance(data, dict):
        raise error(400, "no_data", "'data' must be a JSON object of block values.", field="data")
    return data


def _draft(body: Any) -> dict[str, Any] | None:
    """A release's optional `{"data": {...}}`: None without a body or with `"data": null`."""
    if body is None:
        return None
    body = json_object(body, allowed=("data",))
    return None if body.get("data") is None else _data_object(body)


MAX_TASK_ID = 10**18 - 1  # ids are at most 18 digits, as in paths


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def claim_exclude(body: Any) -> frozenset[int]:
    """The task ids of a claim ahead's `{"exclude": [...]}` (B4, B19); empty without a body."""
    if body is None:
        return frozenset()
    raw = json_object(body, allowed=("exclude",)).get("exclude", [])
    if not isinstance(raw, list):
        raise error(
            400, "invalid_value", f"'exclude' must be a list of task ids, not {_show(raw)}", "exclude"
        )
    if len(raw) > MAX_EXCLUDE:
        raise error(
            400,
            "invalid_value",
            f"'exclude' may list at most {MAX_EXCLUDE} task ids, not {len(raw)}",
            "exclude",
        )
    problems = [
        Problem("invalid_value", f"exclude[{i}]", f"a task id is a positive integer, not {_show(value)}")
        for i, value in enumerate(raw)
        if type(value) is not int or not 1 <= value <= MAX_TASK_ID  # bool is not a task id
    ]
    if problems:
        raise invalid(problems)
    return frozenset(raw)


# A claim in a transaction: (queue id, user id, now, lease, excluded ids) -> (the task or None, held;
# or the 204's headers).
Claim = Callable[
    [Connection, int, int, datetime, timedelta, frozenset[int]],
    tuple[dict[str, Any] | None, int | dict[str, str]],
]


def turn_writes(request: Request) -> TurnWrites:
    """The app's writer of the claims and completions of a turn, made on first use."""
    state = request.app.state
    writes: TurnWrites | None = getattr(state, "turn_writes", None)
    if writes is None:
        writes = state.turn_writes = TurnWrites(db_of(request))
    return writes


async def claimed(request: Request, caller: QueueCaller, claim: Claim, held_header: str) -> Response:
    """B4's and B19's claim: the caller's own claim again, or the next one; else 204 saying in
    `held_header` how many others hold."""
    # The plain claim (wrk and most clients send no body) does not wait for a body to read.
    exclude = (
        frozenset()
        if header(request, b"content-length") == "0"
        else claim_exclude(await read_json(request, required=False))
    )
    row, held = await turn_writes(request).write(
        claim,
        caller.queue.id,
        caller.principal.user_id,
        utcnow(),
        settings_of(request).lease,
        exclude,
    )
    if row is None:
        headers = held if isinstance(held, dict) else {held_header: str(held)}
        return Response(status_code=204, headers=headers)
    return JSONResponse(serialize.task(row, with_assignment=True))


async def claim_next(request: Request, caller: QueueCaller) -> Response:
    if caller.queue.consensus_used:
        return await claimed(request, caller, _consensus_claim(caller), "X-Tasks-Held")
    if caller.queue.gold_used:  # B22's share of gold tasks
        return await claimed(request, caller, gold.claim_next, "X-Tasks-Held")
    return await claimed(request, caller, work.claim_next, "X-Tasks-Held")


def _consensus_claim(caller: QueueCaller) -> Claim:
    """B4 in a consensus queue (B21), in `Claim`'s shape."""

    def claim(
        conn: Connection,
        queue_id: int,
        user_id: int,
        now: datetime,
        lease: timedelta,
        exclude: frozenset[int],
    ) -> tuple[dict[str, Any] | None, int | dict[str, str]]:
        return consensus.claim_next(conn, caller.queue, caller.principal, now, lease, exclude)

    return claim


async def heartbeat(request: Request, caller: QueueCaller) -> Response:
    row = await db_of(request).write(
        work.heartbeat,
        caller.queue.id,
        request.path_params["task"],
        caller.principal,
        utcnow(),
        settings_of(request).lease,
    )
    return JSONResponse(serialize.task(row, with_assignment=True)["assignment"])


async def release(request: Request, caller: QueueCaller) -> Response:
    draft = _draft(await read_json(request, required=False))
    row = await db_of(request).write(
        work.release, caller.queue, request.path_params["task"], caller.principal, draft, utcnow()
    )
    return JSONResponse(serialize.task(row, with_assignment=True))


async def complete(request: Request, caller: QueueCaller) -> Response:
    body = json_object(await read_json(request), allowed=("data",), required=("data",))
    data = _data_object(body)
    # B21: an answer; B22: a gold answer, in a queue where gold may be held; else the completion.
    queue = caller.queue
    complete = (
        consensus.answer if queue.consensus_used else gold.complete if queue.gold_used else work.complete
    )
    completion: work.Completion = await turn_writes(request).write(
        complete, caller.queue, request.path_params["task"], caller.principal, data, utcnow()
    )
    if completion.event_written:
        request.app.state.dispatcher.wake()
    return JSONResponse(serialize.task(completion.task))
