"""B20: the organization's audit log, for admins."""

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.server.http.plumbing import (
    JSONResponse,
    bad_parameter,
    int_parameter,
    moment_parameter,
    order_parameter,
    page_body,
    paging,
    sort_parameter,
)
from queuedesk.server.http.serialize import ts
from queuedesk.server.routes import db_of, settings_of
from queuedesk.server.store import audit
from queuedesk.server.store.records import Principal


def _filters(request: Request) -> audit.Filters:
    params = request.query_params
    action = params.get("action")
    if action is not None and action not in audit.ACTIONS:
        raise bad_parameter(
            "action", f"'action' must be one of {', '.join(audit.ACTIONS)}, not {action[:60]!r}"
        )
    actor = params.get("actor")
    if actor is not None and (not actor or len(actor) > 320 or "\x00" in actor):
        raise bad_parameter("actor", "'actor' must be an email address")
    queue_id = int_parameter(params, "queue_id", 0, 1, 10**18 - 1) if "queue_id" in params else None
    since = moment_parameter(params, "since", end_of_day=False)
    return audit.Filters(action, actor, queue_id, since)


async def list_events(request: Request, principal: Principal) -> Response:
    offset, limit = paging(request.query_params)
    filters = _filters(request)
    sort = sort_parameter(request.query_params, audit.AUDIT_SORTS)
    oldest_first = order_parameter(request.query_params, "desc") == "asc"
    page = await db_of(request).scan(
        audit.list_events, principal.organization_id, filters, offset, limit, sort, oldest_first
    )
    events = [{**event, "at": ts(event["at"])} for event in page.rows]
    return JSONResponse(page_body(request, settings_of(request), offset, limit, page.count, "events", events))
