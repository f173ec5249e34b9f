"""The ASGI application: the route table's router, the error envelope everywhere, and the database's lifetime."""

import asyncio
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.requests import Request
from starlette.responses import Response

from queuedesk import collector
from queuedesk.api.timestamps import utcnow
from queuedesk.server.access_cache import AccessCache
from queuedesk.server.http.asgi import App, envelope
from queuedesk.server.http.http_errors import error
from queuedesk.server.http.in_flight import InFlight
from queuedesk.server.http.plumbing import too_large
from queuedesk.server.http.rate_limits import RateLimits
from queuedesk.server.http.route_table import router
from queuedesk.server.jobs.creations import Creations
from queuedesk.server.jobs.dispatcher import Dispatcher
from queuedesk.server.jobs.retention import DeliveryRetention
from queuedesk.server.jobs.usage import UsageRecorder
from queuedesk.server.ops.metrics import Metrics
from queuedesk.server.ops.readiness import Readiness
from queuedesk.server.ops.requests import RequestObserver, access_log
from queuedesk.server.queue_listings import QueueListings
from queuedesk.server.settings import DRAIN_DISPATCHER_SECONDS, MAX_BODY_BYTES, Settings
from queuedesk.server.store import imports
from queuedesk.server.store.database import DatabaseUnavailable, is_connection_error, open_database

log = logging.getLogger("queuedesk.server")
RETRY_AFTER_SECONDS = 1
LOOP_WAITS_AT_MOST_SECONDS = 0.0005
START_LONG_WORK_AFTER_SECONDS = 2.0


async def on_database_error(request: Request, exc: Exception) -> Response | None:
    """The database went away (a restart, a network cut), or every pooled connection stayed busy
    for the pool's timeout (PostgreSQL under more load than it serves): 503 with `Retry-After`,
    and the transaction was rolled back (or never begun)."""
    if isinstance(exc, PoolTimeout):
        log.warning("no database connection free on %s %s: %s", request.method, request.url.path, exc)
        refusal = error(
            503, "unavailable", "The server is busy: every database connection is in use; try again shortly."
        )
    elif is_connection_error(exc):
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc)
        refusal = error(503, "unavailable", "The database is unavailable right now; try again shortly.")
    else:
        return None
    refusal.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return envelope(refusal)


def create_app(settings: Settings) -> App:
    metrics = None if settings.metrics_token is None else Metrics(settings.metrics_token)
    readiness = Readiness()
    access = access_log(settings.access_log, settings.log_format)
    observer = None if metrics is None and access is None else RequestObserver(metrics, access)

    @asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        app.state.db = await open_database(settings.db_url, pool_size=settings.db_pool_size)
        app.state.access_cache = AccessCache()
        app.state.queue_listings = QueueListings()
        app.state.creations = Creations(app.state.db)
        app.state.usage = UsageRecorder()
        await app.state.db.write(imports.drop_expired, utcnow())  # and again whenever an import opens
        app.state.rate_limits = RateLimits(settings.rate_limit, settings.auth_failure_limit)
        app.state.in_flight = InFlight(settings.max_in_flight)
        app.state.dispatcher = Dispatcher(
            app.state.db,
            allow_private=settings.allow_private_webhooks,
            on_attempt=None if metrics is None else metrics.delivery,
        )
        await app.state.dispatcher.start()
        retention = None
        if settings.retain_deliveries is not None:
            retention = DeliveryRetention(app.state.db, settings.retain_deliveries)
            retention.start()
        collector.settle_for_serving()
        # A thread beside the loop (a library's: none of ours runs Python, the work processes are
        # reached through pipes the loop watches) holds the interpreter lock up to this long while
        # the loop waits for it (5 ms by default): others' requests took that much longer at p99.
        sys.setswitchinterval(LOOP_WAITS_AT_MOST_SECONDS)
        # Once the start's own work is done (a demo's app is starting beside it).
        long_work = asyncio.get_running_loop().call_later(
            START_LONG_WORK_AFTER_SECONDS, app.state.db.start_long_work
        )
        readiness.started()
        try:
            yield
        finally:
            readiness.drain()
            long_work.cancel()
            if retention is not None:
                await retention.stop()
            await app.state.dispatcher.stop(within=DRAIN_DISPATCHER_SECONDS)
            await app.state.usage.finish()
            await app.state.db.close()
            if observer is not None:
                observer.close()

    app = App(
        router(),
        lifespan,
        error_handlers={
            OSError: on_database_error,
            SQLAlchemyError: on_database_error,
            DatabaseUnavailable: on_database_error,
        },
        max_body_bytes=MAX_BODY_BYTES,
        body_too_large=too_large,
        observer=observer,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.readiness = readiness
    return app
