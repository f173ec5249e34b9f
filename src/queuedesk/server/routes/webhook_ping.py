"""B16: a signed `ping` to the queue's webhook now, answered with what the receiver said."""

from starlette.requests import Request
from starlette.responses import Response

from queuedesk.api.timestamps import utcnow
from queuedesk.server.access import QueueCaller
from queuedesk.server.http.http_errors import conflict
from queuedesk.server.http.plumbing import JSONResponse
from queuedesk.server.routes import db_of
from queuedesk.server.store import deliveries


async def test_webhook(request: Request, caller: QueueCaller) -> Response:
    target = caller.queue.webhook_target
    if not target:
        raise conflict("conflict", "This queue has no webhook to test: set its target first.")
    secrets_in_use = await db_of(request).read(deliveries.signing_secrets, caller.queue.id, utcnow())
    answer = await request.app.state.dispatcher.ping(caller.queue.id, target, secrets_in_use)
    return JSONResponse(answer)
