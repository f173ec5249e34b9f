"""What each request leaves behind: its request id (taken from `X-Request-Id` when sane, else
made), an access log line and the HTTP metrics.

The access log line names the route's template, never the path (ids in a template are the
organization's, given as a field), and never a key, a body or a task's values.
"""

import logging
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from queuedesk.server.ops.metrics import Metrics

access = logging.getLogger("queuedesk.access")

REQUEST_ID_HEADER = b"x-request-id"
SANE_REQUEST_ID = re.compile(rb"[A-Za-z0-9._:/+=-]{1,128}")
UNMATCHED = "unmatched"  # the route of a path no route has (404): one label for all of them


def request_id(headers: Iterable[tuple[bytes, bytes]]) -> bytes:
    """The client's X-Request-Id when it is a sane one (letters, digits and `._:/+=-`, at most 128),
    else a new one (16 hex digits)."""
    for name, value in headers:
        if name == REQUEST_ID_HEADER and SANE_REQUEST_ID.fullmatch(value):
            return value
    return os.urandom(8).hex().encode()


class RequestObserver:
    """Told of each request once its answer is sent; writes the access log line and counts it."""

    def __init__(self, metrics: "Metrics | None", access_log: bool = True) -> None:
        self.metrics = metrics
        self.access_log = access_log

    def finished(
        self,
        method: str,
        route: str,
        params: dict[str, int],
        status: int,
        seconds: float,
        request_id: bytes,
    ) -> None:
        if self.metrics is not None:
            self.metrics.request(method, route, params, status, seconds)
        if self.access_log and access.isEnabledFor(logging.INFO):
            access.info(
                "%s %s %d",
                method,
                route,
                status,
                extra={
                    "fields": {
                        "method": method,
                        "route": route,
                        "status": status,
                        "duration_ms": round(seconds * 1000, 3),
                        "organization_id": params.get("org"),
                        "request_id": request_id.decode(),
                    }
                },
            )
