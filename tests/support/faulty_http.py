"""A real HTTP front for a real server that answers chosen paths with the contract's 500 envelope
and passes everything else through: a server whose one part fails (tests of what the app shows)."""

import contextlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from tests.support import free_port

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


class FaultyHttp:
    """`failing`: a regular expression of the paths (query included) answered with a 500."""

    def __init__(self, upstream: str, failing: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.failing = re.compile(failing)
        self.port = free_port()
        self.failed = 0  # requests answered with the 500
        self.seen: list[str] = []  # "METHOD /path?query" of each request passed through
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answered(self, path: str, body: bytes) -> bytes:
        """The body passed back for `path` (as the server sent it; a front of another shape changes it)."""
        return body

    def start(self) -> "FaultyHttp":
        front = self
        client = httpx.Client(timeout=30)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length) if length else b""
                if front.failing.search(self.path):
                    front.failed += 1
                    payload = {"status_code": 500, "errors": [{"message": "Internal server error."}]}
                    self._send(500, {"content-type": "application/json"}, json.dumps(payload).encode())
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"host"}}
                answer = client.request(
                    self.command, front.upstream + self.path, headers=headers, content=body
                )
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_BY_HOP}
                front.seen.append(f"{self.command} {self.path}")
                self._send(answer.status_code, kept, front.answered(self.path, answer.content))

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
