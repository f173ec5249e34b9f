"""`GET /readyz` (Part C): ready once the database answers, the schema is current and the webhook
dispatcher runs; 503 `starting` before (or while the database does not answer), `draining` once a
SIGTERM came."""

import asyncio
import enum
import logging
import time

from sqlalchemy import Connection, select
from starlette.requests import Request
from starlette.responses import Response

from queuedesk.server.http.plumbing import JSONResponse
from queuedesk.server.store.schema import LATEST
from queuedesk.server.store.tables import schema_version

log = logging.getLogger("queuedesk.server")
ASK_THE_DATABASE_SECONDS = 2.0  # a load balancer's check gives up after a few seconds
SAY_WHY_EVERY = 30.0  # seconds between log lines saying why the server is not ready


class Phase(enum.StrEnum):
    STARTING = "starting"
    READY = "ready"
    DRAINING = "draining"


class Readiness:
    """The process's phase: starting until the lifespan has opened everything, draining from the
    first SIGTERM on. Whether it is ready besides is asked of the database at each look."""

    def __init__(self) -> None:
        self.phase = Phase.STARTING
        self._said_at = -SAY_WHY_EVERY

    def started(self) -> None:
        if self.phase is Phase.STARTING:
            self.phase = Phase.READY

    def drain(self) -> None:
        self.phase = Phase.DRAINING

    def not_ready(self, why: str) -> None:
        """Say why, now and then (a load balancer asks every few seconds)."""
        now = time.monotonic()
        if now - self._said_at >= SAY_WHY_EVERY:
            self._said_at = now
            log.warning("not ready: %s", why)


def _schema_version(conn: Connection) -> int | None:
    return conn.execute(select(schema_version.c.version)).scalar_one_or_none()


def _answer(phase: Phase) -> Response:
    return JSONResponse({"status": phase.value}, status_code=200 if phase is Phase.READY else 503)


async def readyz(request: Request) -> Response:
    state = request.app.state
    readiness: Readiness = state.readiness
    if readiness.phase is not Phase.READY:
        return _answer(readiness.phase)
    if not state.dispatcher.running:
        readiness.not_ready("the webhook dispatcher is not running")
        return _answer(Phase.STARTING)
    try:
        async with asyncio.timeout(ASK_THE_DATABASE_SECONDS):
            version = await state.db.read(_schema_version)
    except TimeoutError:
        readiness.not_ready(f"the database did not answer within {ASK_THE_DATABASE_SECONDS:g} s")
        return _answer(Phase.STARTING)
    except Exception as exc:
        readiness.not_ready(f"the database does not answer: {exc}")
        return _answer(Phase.STARTING)
    if version != LATEST:
        readiness.not_ready(f"the schema is at version {version}, this server serves version {LATEST}")
        return _answer(Phase.STARTING)
    return _answer(Phase.READY)
