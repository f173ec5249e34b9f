"""Connection limits of one server process: how long a client may take, and how many it may hold.

Uvicorn's HTTP protocol waits for ever for a request that trickles in, and for the first request of
a new connection; it only times out a kept-alive connection between requests. `guarded_protocol`
makes its httptools protocol close a connection whose request line and headers are not in within
the header timeout (counted from the connection, or from the first byte of a later request), and
one whose body is not complete within the body timeout. Beyond `max_connections` a new connection
is answered 503 with the error envelope and `Retry-After`, and closed; well beyond it (the
`overflow`), it is closed at once, so the process never runs out of file descriptors.
"""

import asyncio
import json
import logging
import resource
from typing import Any

from queuedesk.compat.uvicorn_private import HttpToolsProtocol
from queuedesk.server.settings import Settings

log = logging.getLogger("queuedesk.server")

REFUSED_LINGER = 1.0  # seconds a refused connection may still send its request before it is closed
FILE_RESERVE = 256  # descriptors besides the connections: database, log, webhook deliveries, listeners


def overflow(max_connections: int) -> int:
    """How many connections past the cap are still answered 503 rather than dropped."""
    return max(64, max_connections // 16)


def files_needed(max_connections: int) -> int:
    return max_connections + overflow(max_connections) + FILE_RESERVE


def _refusal(max_connections: int) -> bytes:
    body = json.dumps(
        {
            "status_code": 503,
            "errors": [
                {
                    "code": "unavailable",
                    "message": f"The server holds its most connections ({max_connections}); try again shortly.",
                }
            ],
        }
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def guarded_protocol(
    header_timeout: float, body_timeout: float, max_connections: int
) -> type[HttpToolsProtocol]:
    """Uvicorn's httptools protocol with the timeouts and the connection cap."""
    refusal = _refusal(max_connections)
    ceiling = max_connections + overflow(max_connections)

    class GuardedProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            count = len(self.connections)
            if count > ceiling:
                transport.abort()
            elif count > max_connections:
                self._refuse()
            else:
                self._expect(header_timeout)

        def _refuse(self) -> None:
            """Answer 503 at once; read (and drop) what the client sends for a moment, so that closing
            does not reset the connection before the answer is read."""
            self._refused = True
            self.transport.write(refusal)
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self._expect(REFUSED_LINGER)

        def _expect(self, seconds: float) -> None:
            self._forget_deadline()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _forget_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if not self._refused:
                super().data_received(data)

        def eof_received(self) -> None:
            if self._refused:
                self.transport.close()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._deadline is None:  # a later request on a kept-alive connection
                self._expect(header_timeout)

        def on_headers_complete(self) -> None:
            self._expect(body_timeout)
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._forget_deadline()
            super().on_message_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._forget_deadline()
            super().connection_lost(exc)

    return GuardedProtocol


def raise_open_file_limit(max_connections: int) -> int:
    """Raise the soft limit on open files to what `max_connections` needs, up to the hard limit.
    Returns the number of connections the limit allows (`max_connections`, or fewer, with a warning)."""
    needed = files_needed(max_connections)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("cannot raise the open-file limit from %d to %d: %s", soft, target, exc)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return max_connections
    allowed = max(1, (soft - FILE_RESERVE) * 16 // 17)
    log.warning(
        "the open-file limit (%d, hard %s) allows about %d connections, not %d: serving at most %d "
        "(raise the hard limit, e.g. `ulimit -Hn`, to serve more)",
        soft,
        "unlimited" if hard == resource.RLIM_INFINITY else hard,
        allowed,
        max_connections,
        allowed,
    )
    return allowed


def connection_options(settings: Settings) -> dict[str, Any]:
    """Uvicorn's options for the settings' limits (raising the open-file limit first)."""
    cap = raise_open_file_limit(settings.max_connections)
    return {
        "http": guarded_protocol(settings.header_timeout, settings.body_timeout, cap),
        "timeout_keep_alive": settings.keep_alive_timeout,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        "proxy_headers": True,
    }
