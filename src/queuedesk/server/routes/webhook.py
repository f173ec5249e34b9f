"""A6 read and A7 set the webhook target; `DELETE` removes it (B9)."""

from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.timestamps import utcnow
from queuedesk.server import serialize
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import JSONResponse, empty, json_object, page_body, paging, read_json
from queuedesk.server.http_errors import error, not_found
from queuedesk.server.refusals import DeliveryNotFound
from queuedesk.server.routes import db_of, settings_of
from queuedesk.server.store import deliveries, queues
from queuedesk.server.webhook_targets import address_problem, masked, shape_problem


def _shown_target(caller: QueueCaller, target: str) -> str:
    """Admins see the target as set; supervisors without its password (the secret is admins' too)."""
    return target if caller.principal.role == "admin" else masked(target)


def _shown_delivery(caller: QueueCaller, row: dict[str, Any]) -> dict[str, Any]:
    shown = serialize.delivery(row)
    shown["target"] = _shown_target(caller, shown["target"])
    return shown


async def get_webhook(request: Request, caller: QueueCaller) -> Response:
    return JSONResponse({"target": _shown_target(caller, caller.queue.webhook_target or "")})


async def set_webhook(request: Request, caller: QueueCaller) -> Response:
    body = json_object(await read_json(request), allowed=("target",), required=("target",))
    target = body["target"]
    if target is not None and not isinstance(target, str):
        raise error(400, "invalid_value", "'target' must be a URL string, \"\" or null.", field="target")
    if target:
        problem = shape_problem(target)
        if problem is None and not settings_of(request).allow_private_webhooks:
            problem = await address_problem(target)
        if problem is not None:
            raise error(400, "invalid_value", problem, field="target")
    await db_of(request).write(queues.set_webhook, caller.queue.id, target or None)
    return empty()


async def delete_webhook(request: Request, caller: QueueCaller) -> Response:
    await db_of(request).write(queues.set_webhook, caller.queue.id, None)
    return empty()


async def get_secret(request: Request, caller: QueueCaller) -> Response:
    secret = await db_of(request).read(deliveries.get_secret, caller.queue.id)
    if secret is None:
        raise not_found("This queue has no webhook secret yet: set a webhook first.")
    return JSONResponse({"secret": secret})


async def rotate_secret(request: Request, caller: QueueCaller) -> Response:
    secret = await db_of(request).write(deliveries.rotate_secret, caller.queue.id, utcnow())
    return JSONResponse({"secret": secret})


async def list_deliveries(request: Request, caller: QueueCaller) -> Response:
    offset, limit = paging(request.query_params)
    page = await db_of(request).scan(deliveries.list_deliveries, caller.queue.id, offset, limit)
    items = [_shown_delivery(caller, row) for row in page.rows]
    return JSONResponse(
        page_body(request, settings_of(request), offset, limit, page.count, "deliveries", items)
    )


async def get_delivery(request: Request, caller: QueueCaller) -> Response:
    """One delivery with every attempt it took (status code, error, duration)."""
    delivery_id = request.path_params["delivery"]

    def read(conn: Connection) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        found = deliveries.get_delivery(conn, caller.queue.id, delivery_id)
        return found, deliveries.list_attempts(conn, delivery_id) if found else []

    row, attempts = await db_of(request).read(read)
    if row is None:
        raise DeliveryNotFound(delivery_id)
    return JSONResponse(
        {**_shown_delivery(caller, row), "attempt_log": [serialize.attempt(a) for a in attempts]}
    )


async def redeliver(request: Request, caller: QueueCaller) -> Response:
    delivery_id = request.path_params["delivery"]
    row = await db_of(request).write(deliveries.redeliver, caller.queue.id, delivery_id, utcnow())
    if row is None:
        raise DeliveryNotFound(delivery_id)
    request.app.state.dispatcher.wake()
    return JSONResponse(serialize.delivery(row))
