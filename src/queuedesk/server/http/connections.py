"""Connection limits of one server process: how long a client may take, and how many it may hold.

Uvicorn's HTTP protocol waits for ever for a request that trickles in, and for the first request of
a new connection; it only times out a kept-alive connection between requests. `guarded_protocol`
makes its httptools protocol close a connection whose request line and headers are not in within
the header timeout (counted from the connection, or from the first byte of a later request), and
one whose body is not complete within the body timeout. A timer is set only when a read leaves a
request unfinished: one that arrives whole (the usual case) costs no timer at all, its times are
noted as plain numbers in case it does not. Beyond `max_connections` a new connection
is answered 503 with the error envelope and `Retry-After`, and closed; well beyond it (the
`overflow`), it is closed at once, so the process never runs out of file descriptors.

An answer is written to a client that reads it: while the transport's buffer is over its high-water
mark (the client is not taking what was sent), the client must take at least `SEND_MIN_RATE` bytes a
second, checked every `SEND_CHECK` seconds; one that does not is cut off (the connection aborted, its
buffered answer dropped at once). Twelve connections that never read once held 620 MiB of answers
for as long as their client kept them open.

The request head is bounded while it is read, so that one connection never holds more than about
72 KiB of it: a request line over 8 KiB is answered 414, headers over 64 KiB in all or more than 100
of them 431, and whatever the parser refuses (a duplicate `Content-Length`, a NUL) 400, each with
the error envelope. The parser is never fed more of one request's head than the limits allow.
"""

import asyncio
import logging
import resource
from typing import Any

import httptools

from queuedesk.compat.uvicorn_private import HttpToolsProtocol
from queuedesk.server.http.raw_answers import envelope_answer
from queuedesk.server.settings import Settings

log = logging.getLogger("queuedesk.server")

REFUSED_LINGER = 1.0  # seconds a refused connection may still send its request before it is closed
DROP_AT_MOST = 256 * 1024  # after a refusal, what is read (and dropped) before reading stops
FILE_RESERVE = 256  # descriptors besides the connections: database, log, webhook deliveries, listeners
MAX_REQUEST_LINE = 8 * 1024
MAX_HEADER_BYTES = 64 * 1024  # names, values and their separators, all headers together
MAX_HEADERS = 100
HEAD_BUDGET = MAX_REQUEST_LINE + MAX_HEADER_BYTES + 64  # the most of one head ever fed to the parser
LINE_OVERHEAD = len("OPTIONS  HTTP/1.1")  # the request line around its target, at the longest
SEND_CHECK = 10.0  # seconds between checks of an answer the client is not reading
SEND_MIN_RATE = 16 * 1024  # bytes a second a client must take of an answer while it is held up

URI_TOO_LONG = envelope_answer(
    414, "uri_too_long", f"The request line is over {MAX_REQUEST_LINE} bytes; shorten the address."
)
HEADERS_TOO_LARGE = envelope_answer(
    431,
    "headers_too_large",
    f"The request's headers are over {MAX_HEADER_BYTES} bytes in all, or more than {MAX_HEADERS}.",
)
MALFORMED = envelope_answer(400, "malformed_request", "The request is not valid HTTP/1.1.")


class _Refused(Exception):
    """Raised from a parser callback to stop parsing and answer `answer`."""

    def __init__(self, answer: bytes) -> None:
        super().__init__()
        self.answer = answer


def overflow(max_connections: int) -> int:
    """How many connections past the cap are still answered 503 rather than dropped."""
    return max(64, max_connections // 16)


def files_needed(max_connections: int) -> int:
    return max_connections + overflow(max_connections) + FILE_RESERVE


def _refusal(max_connections: int) -> bytes:
    return envelope_answer(
        503,
        "unavailable",
        f"The server holds its most connections ({max_connections}); try again shortly.",
        retry_after=1,
    )


def guarded_protocol(
    header_timeout: float, body_timeout: float, max_connections: int
) -> type[HttpToolsProtocol]:
    """Uvicorn's httptools protocol with the timeouts and the connection cap."""
    refusal = _refusal(max_connections)
    ceiling = max_connections + overflow(max_connections)

    class GuardedProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _deadline_phase = ""  # what the timer is for: "head", "body" or "refused"
        _refused = False
        _dropped = 0  # bytes read and dropped after a refusal
        _in_head = True  # reading a request line and headers (or waiting for them)
        _in_message = False  # a request has begun and is not complete
        _head_since = 0.0  # when the head's clock started (the connection, or a request's first byte)
        _body_since = 0.0  # when the headers were complete
        _head_bytes = 0
        _send_check: asyncio.TimerHandle | None = None
        _send_left = 0  # bytes still buffered at the last check of a held-up answer

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            count = len(self.connections)
            if count > ceiling:
                transport.abort()
            elif count > max_connections:
                self._refuse()
            else:
                self._head_since = self.loop.time()
                self._expect("head", self._head_since + header_timeout)

        def _refuse(self, answer: bytes = refusal) -> None:
            """Answer at once; read (and drop) what the client sends for a moment, so that closing
            does not reset the connection before the answer is read."""
            if self._refused:
                return
            self._refused = True
            self.transport.write(answer)
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self._expect("refused", self.loop.time() + REFUSED_LINGER)

        def _expect(self, phase: str, when: float) -> None:
            self._forget_deadline()
            self._deadline = self.loop.call_at(when, self._too_slow)
            self._deadline_phase = phase

        def _forget_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
                self._deadline_phase = ""

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def _watch_unfinished(self) -> None:
            """After a read that left a request unfinished: its timer, counted from when its head
            (or its body) began."""
            if self._refused:
                return
            if self._in_head:
                if self._deadline_phase != "head":
                    self._expect("head", self._head_since + header_timeout)
            elif self._deadline_phase != "body":
                self._expect("body", self._body_since + body_timeout)

        def data_received(self, data: bytes) -> None:
            if self._refused:
                self._dropped += len(data)
                if self._dropped > DROP_AT_MOST:  # a client that keeps sending: no more reading
                    self.transport.pause_reading()
                return
            self._unset_keepalive_if_required()
            try:
                self._feed(data)
            except _Refused as exc:
                self._refuse(exc.answer)
            except httptools.HttpParserError as exc:
                refused = exc.__context__
                self._refuse(refused.answer if isinstance(refused, _Refused) else MALFORMED)
            except httptools.HttpParserUpgrade:
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
            else:
                if self._in_message:  # left unfinished by this read (the usual request is complete)
                    self._watch_unfinished()

        def _feed(self, data: bytes) -> None:
            """Feed the parser no more of a request's head than HEAD_BUDGET; the body as it comes."""
            while data:
                if not self._in_head:
                    self.parser.feed_data(data)
                    return
                room = HEAD_BUDGET - self._head_bytes
                if len(data) <= room:  # the usual case: no copy of the bytes
                    piece, data = data, b""
                else:
                    piece, data = data[:room], data[room:]
                self._head_bytes += len(piece)
                self.parser.feed_data(piece)
                if self._in_head and self._head_bytes >= HEAD_BUDGET:
                    raise _Refused(HEADERS_TOO_LARGE)

        def send_400_response(self, msg: str) -> None:
            self._refuse(MALFORMED)

        def on_url(self, url: bytes) -> None:
            if len(self.url) + len(url) + LINE_OVERHEAD > MAX_REQUEST_LINE:
                raise _Refused(URI_TOO_LONG)
            super().on_url(url)

        def eof_received(self) -> None:
            if self._refused:
                self.transport.close()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_message = True
            if self._deadline_phase != "head":  # a later request: its clock starts at its first byte
                self._head_since = self.loop.time()

        def on_headers_complete(self) -> None:
            # Counted once they are all in (the parser was never fed more than HEAD_BUDGET of them),
            # not one by one: the byte sum only when the head fed could hold that many bytes.
            if len(self.headers) > MAX_HEADERS or (
                self._head_bytes > MAX_HEADER_BYTES
                and sum(len(name) + len(value) + 4 for name, value in self.headers) > MAX_HEADER_BYTES
            ):
                raise _Refused(HEADERS_TOO_LARGE)
            self._in_head = False
            self._body_since = self.loop.time()
            if self._deadline_phase == "head":  # the head is in: its clock stops
                self._forget_deadline()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._in_head, self._in_message, self._head_bytes = True, False, 0
            self._forget_deadline()
            super().on_message_complete()

        def pause_writing(self) -> None:
            super().pause_writing()
            self._watch_send()

        def resume_writing(self) -> None:
            self._forget_send_check()
            super().resume_writing()

        def _watch_send(self) -> None:
            self._forget_send_check()
            self._send_left = self.transport.get_write_buffer_size()
            self._send_check = self.loop.call_later(SEND_CHECK, self._check_send)

        def _check_send(self) -> None:
            """The client is still not taking the answer: cut it off unless it took enough since."""
            self._send_check = None
            if self.transport.is_closing() and self.transport.get_write_buffer_size() == 0:
                return
            taken = self._send_left - self.transport.get_write_buffer_size()
            if taken < SEND_MIN_RATE * SEND_CHECK:
                self.transport.abort()  # drops the buffered answer; close() would wait to send it
                return
            self._watch_send()

        def _forget_send_check(self) -> None:
            if self._send_check is not None:
                self._send_check.cancel()
                self._send_check = None

        def connection_lost(self, exc: Exception | None) -> None:
            self._forget_deadline()
            self._forget_send_check()
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
