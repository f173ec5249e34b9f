"""B1 `GET /me` and B14 `GET /healthz`."""

from sqlalchemy import Connection, text
from starlette.requests import Request
from starlette.responses import Response

from queuedesk import __version__
from queuedesk.server.http.http_errors import error
from queuedesk.server.http.plumbing import JSONResponse
from queuedesk.server.routes import db_of
from queuedesk.server.store.records import Principal

# B1's `features`: the Part B sections from B19 on that this server serves, so that a client can tell
# what an older QueueDesk lacks. One place: a section is named here once it is served whole.
FEATURES = ("B19", "B20", "B21", "B22")


async def me(request: Request, principal: Principal) -> Response:
    return JSONResponse(
        {
            "email": principal.email,
            "name": principal.name,
            "role": principal.role,
            "organization_id": principal.organization_id,
            "organization": principal.organization,
            "server": "queuedesk",
            "version": __version__,
            "features": list(FEATURES),
        }
    )


def _ping(conn: Connection) -> None:
    conn.execute(text("SELECT 1"))


async def healthz(request: Request) -> Response:
    try:
        await db_of(request).read(_ping)
    except Exception as exc:
        raise error(503, "unavailable", f"The database does not answer: {exc}") from None
    return JSONResponse({"status": "ok"})
