"""The ASGI application: routes, the error envelope everywhere, and the database's lifetime."""

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.server.access_cache import AccessCache
from queuedesk.server.asgi import App, Endpoint, Route, Router, envelope
from queuedesk.server.dispatcher import Dispatcher
from queuedesk.server.errors import error
from queuedesk.server.http import JSONResponse, too_large
from queuedesk.server.openapi import openapi_document
from queuedesk.server.routes import account, queues, stats, tasks, webhook, webhook_ping, work
from queuedesk.server.settings import MAX_BODY_BYTES, Settings
from queuedesk.server.store.database import DatabaseUnavailable, is_connection_error, open_database

log = logging.getLogger("queuedesk.server")

GC_YOUNGEST = 20_000  # allocations between collections of the youngest generation (Python's default: 700)
GC_OLDER = 50

QUEUE = "/orgs/{org}/{kind}/{queue}"


def _part_a(path: str, endpoint: Endpoint, *methods: str) -> list[Route]:
    """Part A paths are served under `/queues` and under the legacy `/workflows`."""
    return [Route(path.replace("{kind}", kind), endpoint, methods) for kind in ("queues", "workflows")]


def _part_b(path: str, endpoint: Endpoint, *methods: str) -> Route:
    return Route(path.replace("{kind}", "queues"), endpoint, methods)


async def serve_openapi(request: Request) -> Response:
    return JSONResponse(openapi_document())


ROUTES: list[Route] = [
    Route("/healthz", account.healthz, ("GET",)),
    Route("/openapi.json", serve_openapi, ("GET",)),
    Route("/me", account.me, ("GET",)),
    *_part_a("/orgs/{org}/{kind}", queues.list_queues, "GET"),
    _part_b("/orgs/{org}/{kind}", queues.create_queue, "POST"),
    *_part_a(QUEUE, queues.get_queue, "GET"),
    _part_b(QUEUE, queues.update_queue, "PATCH"),
    *_part_a(QUEUE + "/flush", queues.flush, "PUT"),
    *_part_a(QUEUE + "/tasks/create", tasks.create_task, "POST"),
    *_part_a(QUEUE + "/tasks/completed", tasks.completed_tasks, "GET"),
    _part_b(QUEUE + "/tasks", tasks.pending_tasks, "GET"),
    _part_b(QUEUE + "/tasks/import", tasks.import_tasks, "POST"),
    _part_b(QUEUE + "/tasks/next", work.claim_next, "POST"),
    _part_b(QUEUE + "/tasks/{task}", tasks.get_task, "GET"),
    _part_b(QUEUE + "/tasks/{task}/heartbeat", work.heartbeat, "POST"),
    _part_b(QUEUE + "/tasks/{task}/release", work.release, "POST"),
    _part_b(QUEUE + "/tasks/{task}/complete", work.complete, "POST"),
    *_part_a(QUEUE + "/webhook", webhook.get_webhook, "GET"),
    *_part_a(QUEUE + "/webhook", webhook.set_webhook, "PUT", "PATCH"),
    _part_b(QUEUE + "/webhook", webhook.delete_webhook, "DELETE"),
    _part_b(QUEUE + "/webhook/secret", webhook.get_secret, "GET"),
    _part_b(QUEUE + "/webhook/secret/rotate", webhook.rotate_secret, "POST"),
    _part_b(QUEUE + "/webhook/deliveries", webhook.list_deliveries, "GET"),
    _part_b(QUEUE + "/webhook/deliveries/{delivery}", webhook.get_delivery, "GET"),
    _part_b(QUEUE + "/webhook/deliveries/{delivery}/redeliver", webhook.redeliver, "POST"),
    _part_b(QUEUE + "/webhook/test", webhook_ping.test_webhook, "POST"),
    _part_b(QUEUE + "/stats", stats.get_stats, "GET"),
]


async def on_database_error(request: Request, exc: Exception) -> Response | None:
    """The database went away (a restart, a network cut): 503, and the transaction was rolled back."""
    if not is_connection_error(exc):
        return None
    log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc)
    return envelope(error(503, "unavailable", "The database is unavailable right now; try again shortly."))


def _settle_garbage_collector() -> None:
    """Everything made at start (modules, routes, the schema) lives as long as the process: frozen,
    the collector stops walking it over and over; a larger youngest generation means a collection
    every few hundred requests rather than every few. Together ≈7% of a task creation's time."""
    gc.freeze()
    gc.set_threshold(GC_YOUNGEST, GC_OLDER, GC_OLDER)


def create_app(settings: Settings) -> App:
    @asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        app.state.db = await open_database(settings.db_url, pool_size=settings.db_pool_size)
        app.state.access_cache = AccessCache()
        app.state.dispatcher = Dispatcher(app.state.db, allow_private=settings.allow_private_webhooks)
        await app.state.dispatcher.start()
        _settle_garbage_collector()
        try:
            yield
        finally:
            await app.state.dispatcher.stop()
            await app.state.db.close()

    app = App(
        Router(ROUTES),
        lifespan,
        error_handlers={
            OSError: on_database_error,
            SQLAlchemyError: on_database_error,
            DatabaseUnavailable: on_database_error,
        },
        max_body_bytes=MAX_BODY_BYTES,
        body_too_large=too_large,
    )
    app.state.settings = settings
    return app
