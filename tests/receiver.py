"""A real webhook receiver on loopback for tests: records every request, answers as told."""

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support import free_port


@dataclass
class Received:
    at: float
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """`answer(n)` gives (status, delay in seconds) for the n-th request (0-based)."""

    answer: Callable[[int], tuple[int, float]] = lambda _n: (200, 0.0)
    location: str | None = None
    port: int = field(default_factory=free_port)
    received: list[Received] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> "Receiver":
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                if len(body) < length:
                    return  # the sender went away mid-request (a killed server): no delivery, as for a real receiver
                with receiver._lock:
                    index = len(receiver.received)
                    receiver.received.append(
                        Received(
                            time.monotonic(), self.path, {k.lower(): v for k, v in self.headers.items()}, body
                        )
                    )
                status, delay = receiver.answer(index)
                if delay:
                    time.sleep(delay)
                self.send_response(status)
                if receiver.location is not None:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Length", "2")
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        ThreadingHTTPServer.daemon_threads = True
        ThreadingHTTPServer.request_queue_size = 256  # bursts of deliveries must not overflow the backlog
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def wait_for(self, count: int, timeout: float = 20) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.received) >= count:
                return list(self.received)
            time.sleep(0.02)
        raise AssertionError(f"expected {count} request(s), got {len(self.received)} in {timeout}s")
