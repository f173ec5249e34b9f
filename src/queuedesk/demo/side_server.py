"""A tiny HTTP server inside the demo: the task pictures and a webhook receiver.

Kept apart from the service so that the service serves its API and nothing else. It answers
`GET /images/photo-N.png` with the demo's pictures and `POST /webhook` like a colleague's
integration would: mostly 200, now and then a 503 or a slow answer, so the delivery log shows
retries too. Loopback only; a request it does not know gets a 404.
"""

import asyncio
import contextlib

from queuedesk.demo.images import number_of, picture

MAX_HEADER_BYTES = 16 * 1024
MAX_BODY_BYTES = 1024 * 1024
FAIL_EVERY = 9  # every ninth webhook delivery is answered 503 (the dispatcher retries it)
SLOW_EVERY = 7  # every seventh takes a moment


class SideServer:
    def __init__(self, *, slow_seconds: float = 0.8) -> None:
        self.port = 0
        self.received = 0  # webhook deliveries seen
        self.slow_seconds = slow_seconds
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        # Closing a connection ends its handler (a read sees the end); cancelling the handler instead
        # would make asyncio log the cancellation as an error.
        for writer in list(self._connections.values()):
            writer.close()
        await asyncio.gather(*self._connections, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self._server.wait_closed()
        self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            while await self._one_request(reader, writer):
                pass
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            pass
        finally:
            self._connections.pop(task, None)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEADER_BYTES:
            return False
        lines = head.decode("latin-1").split("\r\n")
        method, path, _version = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        if length > MAX_BODY_BYTES:
            await self._answer(writer, 413, b"too large")
            return False
        if length:
            await reader.readexactly(length)
        status, body, content_type = await self._route(method, path)
        await self._answer(writer, status, body, content_type, head_only=method == "HEAD")
        return headers.get("connection", "").lower() != "close"

    async def _route(self, method: str, path: str) -> tuple[int, bytes, str]:
        if method in ("GET", "HEAD") and path.startswith("/images/"):
            number = number_of(path[len("/images/") :])
            if number is None:
                return 404, b"no such picture", "text/plain"
            return 200, picture(number), "image/png"
        if method == "POST" and path == "/webhook":
            self.received += 1
            if self.received % FAIL_EVERY == 0:
                return 503, b"busy, try again", "text/plain"
            if self.received % SLOW_EVERY == 0:
                await asyncio.sleep(self.slow_seconds)
            return 200, b'{"ok": true}', "application/json"
        return 404, b"not found", "text/plain"

    @staticmethod
    async def _answer(
        writer: asyncio.StreamWriter,
        status: int,
        body: bytes,
        content_type: str = "text/plain",
        *,
        head_only: bool = False,
    ) -> None:
        reason = {200: "OK", 404: "Not Found", 413: "Payload Too Large", 503: "Service Unavailable"}[status]
        head = (
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Cache-Control: max-age=86400\r\n\r\n"
        )
        writer.write(head.encode() + (b"" if head_only else body))
        await writer.drain()
