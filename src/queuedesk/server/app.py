"""The ASGI application: routes, the error envelope everywhere, and the database's lifetime."""

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from queuedesk.server.access_cache import AccessCache
from queuedesk.server.dispatcher import Dispatcher
from queuedesk.server.errors import ServiceError, error
from queuedesk.server.http import JSONResponse, too_large
from queuedesk.server.openapi import openapi_document
from queuedesk.server.routes import account, queues, tasks, webhook, work
from queuedesk.server.settings import MAX_BODY_BYTES, Settings
from queuedesk.server.store.database import DatabaseUnavailable, is_connection_error, open_database

log = logging.getLogger("queuedesk.server")


class IdConvertor(Convertor[int]):
    """A positive integer that fits a 64-bit column; anything else is not a path we serve (404)."""

    regex = "[1-9][0-9]{0,17}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("id", IdConvertor())

QUEUE = "/orgs/{org:id}/{kind}/{queue:id}"


def _part_a(path: str, endpoint: object, methods: list[str]) -> list[BaseRoute]:
    """Part A paths are served under `/queues` and under the legacy `/workflows`."""
    return [
        Route(path.replace("{kind}", kind), endpoint, methods=methods)  # type: ignore[arg-type]
        for kind in ("queues", "workflows")
    ]


def _part_b(path: str, endpoint: object, methods: list[str]) -> BaseRoute:
    return Route(path.replace("{kind}", "queues"), endpoint, methods=methods)  # type: ignore[arg-type]


async def serve_openapi(request: Request) -> Response:
    return JSONResponse(openapi_document())


ROUTES: list[BaseRoute] = [
    Route("/healthz", account.healthz, methods=["GET"]),
    Route("/openapi.json", serve_openapi, methods=["GET"]),
    Route("/me", account.me, methods=["GET"]),
    *_part_a("/orgs/{org:id}/{kind}", queues.list_queues, ["GET"]),
    _part_b("/orgs/{org:id}/{kind}", queues.create_queue, ["POST"]),
    *_part_a(QUEUE, queues.get_queue, ["GET"]),
    _part_b(QUEUE, queues.update_queue, ["PATCH"]),
    *_part_a(QUEUE + "/flush", queues.flush, ["PUT"]),
    *_part_a(QUEUE + "/tasks/create", tasks.create_task, ["POST"]),
    *_part_a(QUEUE + "/tasks/completed", tasks.completed_tasks, ["GET"]),
    _part_b(QUEUE + "/tasks", tasks.pending_tasks, ["GET"]),
    _part_b(QUEUE + "/tasks/import", tasks.import_tasks, ["POST"]),
    _part_b(QUEUE + "/tasks/next", work.claim_next, ["POST"]),
    _part_b(QUEUE + "/tasks/{task:id}", tasks.get_task, ["GET"]),
    _part_b(QUEUE + "/tasks/{task:id}/heartbeat", work.heartbeat, ["POST"]),
    _part_b(QUEUE + "/tasks/{task:id}/release", work.release, ["POST"]),
    _part_b(QUEUE + "/tasks/{task:id}/complete", work.complete, ["POST"]),
    *_part_a(QUEUE + "/webhook", webhook.get_webhook, ["GET"]),
    *_part_a(QUEUE + "/webhook", webhook.set_webhook, ["PUT", "PATCH"]),
    _part_b(QUEUE + "/webhook", webhook.delete_webhook, ["DELETE"]),
    _part_b(QUEUE + "/webhook/secret", webhook.get_secret, ["GET"]),
    _part_b(QUEUE + "/webhook/secret/rotate", webhook.rotate_secret, ["POST"]),
    _part_b(QUEUE + "/webhook/deliveries", webhook.list_deliveries, ["GET"]),
    _part_b(QUEUE + "/webhook/deliveries/{delivery:id}", webhook.get_delivery, ["GET"]),
    _part_b(QUEUE + "/webhook/deliveries/{delivery:id}/redeliver", webhook.redeliver, ["POST"]),
]

HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}


def _envelope(exc: ServiceError) -> Response:
    return JSONResponse(exc.envelope(), status_code=exc.status, headers=exc.headers)


async def on_service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return _envelope(exc)


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = HTTP_CODES.get(exc.status_code, "error")
    message = {
        404: "Not found.",
        405: f'Method "{request.method}" not allowed.',
    }.get(exc.status_code, exc.detail)
    failure = error(exc.status_code, code, message)
    failure.headers.update(exc.headers or {})
    return _envelope(failure)


async def on_database_error(request: Request, exc: Exception) -> Response:
    """The database went away (a restart, a network cut): 503, and the transaction was rolled back."""
    if is_connection_error(exc):
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc)
        return _envelope(
            error(503, "unavailable", "The database is unavailable right now; try again shortly.")
        )
    return await on_unexpected(request, exc)


async def on_unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return _envelope(error(500, "internal_error", "Internal server error; the server log has details."))


class BodyLimit:
    """Refuse a declared body over the limit before anything reads it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length" and value.isdigit() and int(value) > MAX_BODY_BYTES:
                    await _envelope(too_large())(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def create_app(settings: Settings) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.db = await open_database(settings.db_url, pool_size=settings.db_pool_size)
        app.state.access_cache = AccessCache()
        app.state.dispatcher = Dispatcher(app.state.db, allow_private=settings.allow_private_webhooks)
        await app.state.dispatcher.start()
        try:
            yield
        finally:
            await app.state.dispatcher.stop()
            await app.state.db.close()

    app = Starlette(
        routes=ROUTES,
        lifespan=lifespan,
        exception_handlers={
            ServiceError: on_service_error,
            HTTPException: on_http_error,
            OSError: on_database_error,
            SQLAlchemyError: on_database_error,
            DatabaseUnavailable: on_database_error,
            Exception: on_unexpected,
        },
    )
    app.router.redirect_slashes = False
    app.state.settings = settings
    app.add_middleware(BodyLimit)
    return app
