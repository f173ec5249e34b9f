"""What each request leaves behind: its request id (taken from `X-Request-Id` when sane, else
made), an access log line and the HTTP metrics.

The access log line names the route's template, never the path (ids in a template are the
organization's, given as a field), and never a key, a body or a task's values.
"""

import asyncio
import logging
import os
import re
import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, BinaryIO

import orjson

if TYPE_CHECKING:
    from queuedesk.server.ops.metrics import Metrics

LOGGER = "queuedesk.access"
FLUSH_AFTER_SECONDS = 0.2
FLUSH_AT_BYTES = 64 * 1024

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


class AccessLog:
    """Access lines as `logs` formats them, written in batches: a line per request through the
    logging module (a record, a formatter, a lock, a write and a flush each) cost a third of a
    create's CPU; here a line is formatted at once and written with the others of the next
    FLUSH_AFTER_SECONDS."""

    def __init__(self, json_lines: bool, stream: BinaryIO | None = None) -> None:
        self._json = json_lines
        self._stream = stream if stream is not None else sys.stderr.buffer
        self._lines: list[bytes] = []
        self._size = 0
        self._second = -1
        self._stamp = ""

    def _time(self, now: float) -> str:
        second = int(now)
        if second != self._second:
            self._second = second
            self._stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._stamp}.{int((now - second) * 1000):03d}Z"

    def write(
        self, method: str, route: str, status: int, seconds: float, org: int | None, rid: bytes
    ) -> None:
        # Every part is JSON-safe as it is: the route is a template of ours (or UNMATCHED), the
        # method a token the HTTP parser took (letters alone; anything else is quoted), the request
        # id one of SANE_REQUEST_ID's characters, the rest numbers. orjson on a dict cost more.
        stamp = self._time(time.time())
        duration = round(seconds * 1000, 3)
        request = rid.decode()
        if not method.isalpha():
            method = orjson.dumps(method).decode()[1:-1]
        if self._json:
            line = (
                f'{{"time":"{stamp}","level":"info","logger":"{LOGGER}","message":"{method} {route} {status}",'
                f'"method":"{method}","route":"{route}","status":{status},"duration_ms":{duration},'
                f'"organization_id":{"null" if org is None else org},"request_id":"{request}"}}\n'
            ).encode()
        else:
            line = (
                f"{stamp} INFO {LOGGER}: {method} {route} {status} duration_ms={duration} "
                f"organization_id={'-' if org is None else org} request_id={request}\n"
            ).encode()
        if not self._lines:
            asyncio.get_running_loop().call_later(FLUSH_AFTER_SECONDS, self.flush)
        self._lines.append(line)
        self._size += len(line)
        if self._size >= FLUSH_AT_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._lines:
            return
        lines, self._lines, self._size = self._lines, [], 0
        try:
            self._stream.write(b"".join(lines))
            self._stream.flush()
        except (OSError, ValueError):  # stderr closed or gone: the lines are lost, serving goes on
            pass


class RequestObserver:
    """Told of each request once its answer is sent; writes the access log line and counts it."""

    def __init__(self, metrics: "Metrics | None", access_log: AccessLog | None) -> None:
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
        if self.access_log is not None:
            self.access_log.write(method, route, status, seconds, params.get("org"), request_id)

    def close(self) -> None:
        if self.access_log is not None:
            self.access_log.flush()


def access_log(enabled: bool, log_format: str) -> AccessLog | None:
    """The access log when asked for and `queuedesk.access` logs at info (`--log-level`)."""
    if not enabled or not logging.getLogger(LOGGER).isEnabledFor(logging.INFO):
        return None
    return AccessLog(json_lines=log_format == "json")
