"""B19 review: claim the next review, renew or release it, give a verdict, list the reviews."""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection
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
from queuedesk.server.routes.work import Claim, claimed
from queuedesk.server.rules import review
from queuedesk.server.store import reviews

VERDICTS = ("accept", "correct", "redo", "decide")
# `verdict=` takes a verdict or the state it leaves, e.g. `correct` or `corrected`.
VERDICT_FILTER = {**review.STATE_OF, **{state: state for state in review.STATE_OF.values()}}


async def claim_next(request: Request, caller: QueueCaller) -> Response:
    if caller.queue.consensus_used:
        return await claimed(request, caller, _disputed_first(caller), "X-Reviews-Held")
    return await claimed(request, caller, review.claim_next, "X-Reviews-Held")


def _disputed_first(caller: QueueCaller) -> Claim:
    def claim(
        conn: Connection,
        queue_id: int,
        user_id: int,
        now: datetime,
        lease: timedelta,
        exclude: frozenset[int],
    ) -> tuple[dict[str, Any] | None, int | dict[str, str]]:
        return review.claim_next_in(conn, caller.queue, caller.principal, now, lease, exclude)

    return claim


async def heartbeat(request: Request, caller: QueueCaller) -> Response:
    row = await db_of(request).write(
        review.heartbeat,
        caller.queue.id,
        request.path_params["task"],
        caller.principal,
        utcnow(),
        settings_of(request).lease,
    )
    return JSONResponse(serialize.task(row, with_assignment=True)["review"])


async def release(request: Request, caller: QueueCaller) -> Response:
    row = await db_of(request).write(
        review.release, caller.queue.id, request.path_params["task"], caller.principal
    )
    return JSONResponse(serialize.task(row, with_assignment=True))


def _verdict_request(body: Any) -> review.VerdictRequest:
    body = json_object(body, allowed=("verdict", "data", "note"), required=("verdict",))
    kind, data, note = body["verdict"], body.get("data"), body.get("note")
    problems = []
    if kind not in VERDICTS:
        problems.append(
            Problem("invalid_value", "verdict", f"'verdict' must be one of {', '.join(VERDICTS)}")
        )
    elif kind == "correct" and not isinstance(data, dict):
        problems.append(
            Problem("no_data", "data", "A correction needs 'data', an object of the values to change.")
        )
    elif kind == "decide" and not isinstance(data, dict):
        problems.append(
            Problem("no_data", "data", "A decision needs 'data', an object of the task's values.")
        )
    elif kind not in ("correct", "decide") and data is not None:
        problems.append(
            Problem("invalid_value", "data", f"'data' goes with 'correct' only, not with {kind!r}")
        )
    if note is not None and (not isinstance(note, str) or len(note) > review.MAX_NOTE or "\x00" in note):
        problems.append(
            Problem(
                "invalid_value", "note", f"'note' must be a string of at most {review.MAX_NOTE} characters"
            )
        )
    if problems:
        raise invalid(problems)
    return review.VerdictRequest(kind, data, note or None)


async def give_verdict(request: Request, caller: QueueCaller) -> Response:
    wanted = _verdict_request(await read_json(request))
    verdict = await db_of(request).write(
        review.give_verdict, caller.queue, request.path_params["task"], caller.principal, wanted, utcnow()
    )
    if verdict.event_written:
        request.app.state.dispatcher.wake()
    return JSONResponse(serialize.task(verdict.task, with_assignment=True))


def _person(request: Request, caller: QueueCaller, name: str) -> str | None:
    """An email filter: `me` is the caller."""
    value = request.query_params.get(name)
    if value == "me":
        return caller.principal.email
    if value is not None and (not value or "\x00" in value or len(value) > 320):
        raise bad_parameter(name, f"'{name}' must be an email address or 'me'")
    return value


def _states(raw: str | None) -> tuple[str, ...]:
    if raw is None:
        return reviews.VERDICT_STATES
    chosen = [part.strip() for part in raw.split(",") if part.strip()]
    wrong = [part for part in chosen if part not in VERDICT_FILTER]
    if wrong or not chosen:
        raise bad_parameter(
            "verdict",
            f"'verdict' takes a comma list of accept, correct, redo, decide (or accepted, ...), not {raw[:60]!r}",
        )
    return tuple(VERDICT_FILTER[part] for part in chosen)


async def list_reviews(request: Request, caller: QueueCaller) -> Response:
    completed_by = _person(request, caller, "completed_by")
    if caller.principal.role == "worker" and completed_by != caller.principal.email:
        raise forbidden("A worker may only list the reviews of its own work: add completed_by=me.")
    offset, limit = paging(request.query_params)
    filters = reviews.ReviewFilters(
        _states(request.query_params.get("verdict")), completed_by, _person(request, caller, "reviewer")
    )
    page = await db_of(request).scan(reviews.list_reviews, caller.queue, offset, limit, filters)
    items = [serialize.task(row, with_assignment=True) for row in page.rows]
    return JSONResponse(page_body(request, settings_of(request), offset, limit, page.count, "tasks", items))
