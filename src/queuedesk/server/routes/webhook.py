"""A6 read and A7 set the webhook target; `DELETE` removes it (B9)."""

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.server.access import Action, authorize
from queuedesk.server.errors import error
from queuedesk.server.http import JSONResponse, empty, json_object, read_json
from queuedesk.server.routes import db_of, settings_of
from queuedesk.server.store import queues
from queuedesk.server.webhook_targets import address_problem, shape_problem


async def get_webhook(request: Request) -> Response:
    caller = await authorize(request, Action.READ_WEBHOOK)
    assert caller.queue is not None
    return JSONResponse({"target": caller.queue.webhook_target or ""})


async def set_webhook(request: Request) -> Response:
    caller = await authorize(request, Action.WRITE_WEBHOOK)
    assert caller.queue is not None
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


async def delete_webhook(request: Request) -> Response:
    caller = await authorize(request, Action.WRITE_WEBHOOK)
    assert caller.queue is not None
    await db_of(request).write(queues.set_webhook, caller.queue.id, None)
    return empty()
