"""Slow and idle clients, and the connection cap, against a real `queuedesk serve` over loopback.

Small limits (1-2 s timeouts, 16 connections) keep each test to a few seconds. The database plays
no part here, so SQLite alone.
"""

import re
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import ROLES_SEED, ServerProcess, assert_envelope

HEADER_TIMEOUT = 1.0
BODY_TIMEOUT = 2.0
KEEP_ALIVE = 1.0
SLACK = 2.0  # a loaded machine's delay on top of a timeout
CAP = 16
LOW_FILE_LIMIT = 200  # below what 16 connections, their overflow (64) and the reserve (256) need


@pytest.fixture(scope="module")
def timeouts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    flags = [
        *("--header-timeout", str(HEADER_TIMEOUT), "--body-timeout", str(BODY_TIMEOUT)),
        *("--keep-alive-timeout", str(KEEP_ALIVE)),
    ]
    server = ServerProcess(tmp_path_factory.mktemp("timeouts") / "qd.db", flags, seed=ROLES_SEED).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with a connection cap, started with a soft open-file limit lower than the cap needs."""
    flags = ["--max-connections", str(CAP), "--header-timeout", "60"]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (LOW_FILE_LIMIT, hard))
    try:
        server = ServerProcess(tmp_path_factory.mktemp("capped") / "qd.db", flags, seed=ROLES_SEED).start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    yield server
    server.stop()


def _connect(server: ServerProcess) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _closed(sock: socket.socket) -> bool:
    """Whether the server has closed the connection (reading whatever it had sent first)."""
    sock.settimeout(0.05)
    try:
        while data := sock.recv(65536):
            del data
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def _response(sock: socket.socket) -> bytes:
    """One whole answer (status line, headers and a Content-Length body) read from the socket."""
    sock.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head, re.IGNORECASE).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        body += sock.recv(65536)
    return data


def _trickle_until_closed(socks: list[socket.socket], drip: bytes, limit: float) -> list[float]:
    """Send `drip` on every open socket every 0.2 s; the seconds after which each one was closed."""
    started = time.monotonic()
    closed_after: dict[int, float] = {}
    while len(closed_after) < len(socks) and time.monotonic() - started < limit:
        for i, sock in enumerate(socks):
            if i in closed_after:
                continue
            if _closed(sock):
                closed_after[i] = time.monotonic() - started
                continue
            try:
                sock.sendall(drip)
            except OSError:
                closed_after[i] = time.monotonic() - started
        time.sleep(0.2)
    for sock in socks:
        sock.close()
    assert len(closed_after) == len(socks), f"{len(socks) - len(closed_after)} still open after {limit}s"
    return list(closed_after.values())


def test_connections_trickling_headers_are_closed_within_the_header_timeout(timeouts: ServerProcess) -> None:
    socks = [_connect(timeouts) for _ in range(10)]
    for sock in socks:
        sock.sendall(b"GET /me HTTP/1.1\r\nHost: x\r\n")
    closed = _trickle_until_closed(socks, b"X", HEADER_TIMEOUT + SLACK + 3)
    assert max(closed) < HEADER_TIMEOUT + SLACK, closed
    assert httpx.get(f"{timeouts.url}/healthz").status_code == 200


def test_a_trickling_body_is_closed_within_the_body_timeout(timeouts: ServerProcess) -> None:
    sock = _connect(timeouts)
    sock.sendall(
        b"POST /me HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    )
    (closed,) = _trickle_until_closed([sock], b" ", BODY_TIMEOUT + SLACK + 3)
    assert closed < BODY_TIMEOUT + SLACK


def test_a_connection_that_sends_nothing_is_closed(timeouts: ServerProcess) -> None:
    sock = _connect(timeouts)
    started = time.monotonic()
    sock.settimeout(HEADER_TIMEOUT + SLACK + 3)
    assert sock.recv(100) == b""
    assert time.monotonic() - started < HEADER_TIMEOUT + SLACK
    sock.close()


def test_an_idle_kept_alive_connection_is_closed(timeouts: ServerProcess) -> None:
    sock = _connect(timeouts)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert _response(sock).startswith(b"HTTP/1.1 200")
    started = time.monotonic()
    sock.settimeout(KEEP_ALIVE + SLACK + 3)
    assert sock.recv(100) == b""
    assert time.monotonic() - started < KEEP_ALIVE + SLACK
    sock.close()


def test_a_slow_but_steady_client_is_served(timeouts: ServerProcess) -> None:
    """Headers that arrive within the timeout, in pieces, still get their answer."""
    sock = _connect(timeouts)
    for piece in (b"GET /heal", b"thz HTTP/1.1\r\n", b"Host: x\r\n", b"\r\n"):
        sock.sendall(piece)
        time.sleep(HEADER_TIMEOUT / 8)
    assert _response(sock).startswith(b"HTTP/1.1 200")
    sock.close()


def test_beyond_max_connections_a_503_and_normal_requests_still_work(capped: ServerProcess) -> None:
    held = [_connect(capped) for _ in range(CAP)]
    time.sleep(0.3)  # the server accepts them
    with httpx.Client(base_url=capped.url, timeout=10) as client:
        refused = client.get("/healthz")
    body = assert_envelope(refused, 503, "unavailable")
    assert str(CAP) in body["errors"][0]["message"]
    assert refused.headers["retry-after"] == "1"
    # The connections within the cap are served as usual.
    held[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert _response(held[0]).startswith(b"HTTP/1.1 200")
    for sock in held:
        sock.close()
    deadline = time.monotonic() + 5
    while (status := httpx.get(f"{capped.url}/healthz").status_code) != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status == 200


def _soft_open_file_limit(pid: int) -> int:
    limits = Path(f"/proc/{pid}/limits").read_text()
    match = re.search(r"^Max open files\s+(\d+)", limits, re.MULTILINE)
    assert match is not None, limits
    return int(match.group(1))


def test_the_open_file_limit_is_raised_to_what_the_cap_needs(capped: ServerProcess) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    needed = CAP + 64 + 256
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"the hard open-file limit ({hard}) is below {needed}")
    assert capped.process is not None
    assert _soft_open_file_limit(capped.process.pid) >= needed
