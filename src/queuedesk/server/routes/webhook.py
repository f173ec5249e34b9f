"""A6 read and A7 set the webhook target; `DELETE` removes it (B9)."""

from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http import serialize
from queuedesk.server.http.http_errors import conflict, error, not_found
from queuedesk.server.http.plumbing import (
    JSONResponse,
    empty,
    json_object,
    order_parameter,
    page_body,
    paging,
    read_json,
    sort_parameter,
)
from queuedesk.server.http.serialize import ts
from queuedesk.server.routes import db_of, settings_of
from queuedesk.server.rules.refusals import DeliveryNotFound
from queuedesk.server.rules.webhook_targets import address_problem, masked, shape_problem
from queuedesk.server.store import audit, deliveries, queues
from queuedesk.server.store.audit import masked_target


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
    await db_of(request).write(_set_and_record, caller, target or None)
    return empty()


def _set_and_record(conn: Connection, caller: QueueCaller, target: str | None) -> None:
    previous = queues.set_webhook(conn, caller.queue.id, target)
    action = "webhook.set" if target else "webhook.remove"
    detail = {"target": masked_target(target), "previous": masked_target(previous)}
    audit.record(conn, caller.principal, action, caller.queue.id, {"queue_id": caller.queue.id}, detail)


async def delete_webhook(request: Request, caller: QueueCaller) -> Response:
    await db_of(request).write(_set_and_record, caller, None)
    return empty()


async def get_secret(request: Request, caller: QueueCaller) -> Response:
    secret = await db_of(request).read(deliveries.get_secret, caller.queue.id)
    if secret is None:
        raise not_found("This queue has no webhook secret yet: set a webhook first.")
    return JSONResponse({"secret": secret})


async def rotate_secret(request: Request, caller: QueueCaller) -> Response:
    def rotate(conn: Connection) -> str:
        now = utcnow()
        had_one = deliveries.get_secret(conn, caller.queue.id) is not None
        secret = deliveries.rotate_secret(conn, caller.queue.id, now)
        # Never the secrets: only until when the one replaced keeps signing.
        detail = {"previous_signs_until": ts(now + deliveries.ROTATION_OVERLAP) if had_one else None}
        audit.record(
            conn, caller.principal, "webhook.rotate", caller.queue.id, {"queue_id": caller.queue.id}, detail
        )
        return secret

    secret = await db_of(request).write(rotate)
    return JSONResponse({"secret": secret})


async def list_deliveries(request: Request, caller: QueueCaller) -> Response:
    offset, limit = paging(request.query_params)
    oldest_first = order_parameter(request.query_params, "desc") == "asc"
    sort = sort_parameter(request.query_params, deliveries.DELIVERY_SORTS)
    page = await db_of(request).scan(
        deliveries.list_deliveries, caller.queue.id, offset, limit, oldest_first, sort
    )
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


def _to_current_target(body: Any) -> bool:
    """B11's optional `{"target": "current"}`: no body, `{}` or `"target": null` keep the delivery's own."""
    if body is None:
        return False
    target = json_object(body, allowed=("target",)).get("target")
    if target not in (None, "current"):
        raise error(
            400,
            "invalid_value",
            "'target' may only be \"current\" (the queue's webhook now); leave it out for the delivery's own.",
            field="target",
        )
    return target == "current"


async def redeliver(request: Request, caller: QueueCaller) -> Response:
    delivery_id = request.path_params["delivery"]
    db = db_of(request)
    if await db.read(deliveries.get_delivery, caller.queue.id, delivery_id) is None:
        raise DeliveryNotFound(delivery_id)  # the object (404) before the body (400)
    to_current = _to_current_target(await read_json(request, required=False))

    def redeliver(conn: Connection) -> dict[str, Any] | None:
        before = deliveries.get_delivery(conn, caller.queue.id, delivery_id)
        if before is None:
            return None
        target = None
        if to_current:
            target = queues.current_target(conn, caller.queue.id)
            if target is None:
                raise conflict(
                    "conflict",
                    "The queue has no webhook now: set one, or redeliver to the delivery's own target.",
                )
        row = deliveries.redeliver(conn, caller.queue.id, delivery_id, utcnow(), target)
        if row is None:  # pruned meanwhile
            return None
        subject = {"delivery_id": row["id"], "event_id": row["event_id"], "task_id": row["task_id"]}
        detail = {"target": masked_target(row["target"])}
        if row["target"] != before["target"]:
            detail["previous_target"] = masked_target(before["target"])
        audit.record(conn, caller.principal, "delivery.redeliver", caller.queue.id, subject, detail)
        return row

    row = await db.write(redeliver)
    if row is None:
        raise DeliveryNotFound(delivery_id)
    request.app.state.dispatcher.wake()
    return JSONResponse(serialize.delivery(row))
