"""Slow and idle clients, and the connection cap, against a real `queuedesk serve` over loopback.

Small limits (1-2 s timeouts, 16 connections) keep each test to a few seconds. The database plays
no part here, so SQLite alone.
"""

import json
import re
import resource
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import KEYS, ROLES_SEED, ServerProcess, assert_envelope

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


def test_a_later_request_trickling_on_a_kept_alive_connection_is_closed(timeouts: ServerProcess) -> None:
    """A request that arrives whole sets no timer; the next one, left unfinished by a read, gets
    its header timeout (and then its body timeout) all the same."""
    heads, bodies = _connect(timeouts), _connect(timeouts)
    for sock in (heads, bodies):
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _response(sock).startswith(b"HTTP/1.1 200")
    heads.sendall(b"GET /me HTTP/1.1\r\nHost: x\r\n")
    bodies.sendall(b"POST /me HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
    (head_closed,) = _trickle_until_closed([heads], b"X", HEADER_TIMEOUT + SLACK + 3)
    (body_closed,) = _trickle_until_closed([bodies], b" ", BODY_TIMEOUT + SLACK + 3)
    assert head_closed < HEADER_TIMEOUT + SLACK
    assert body_closed < BODY_TIMEOUT + SLACK


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


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("plain") / "qd.db", seed=ROLES_SEED).start()
    yield server
    server.stop()


def _send_then_answer(server: ServerProcess, *pieces: bytes) -> tuple[int, dict]:
    """Send the pieces, stopping as soon as the server answers, then read its answer."""
    sock = _connect(server)
    try:
        for piece in pieces:
            if select.select([sock], [], [], 0)[0]:  # answered before the request was all sent
                break
            sock.sendall(piece)
    except OSError:  # answered and closed while we were still sending
        pass
    sock.settimeout(10)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data and _whole(data):
                break
    except OSError:
        pass
    sock.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 "), data[:200]
    assert b"content-type: application/json" in head.lower(), head
    return int(head.split()[1]), json.loads(body)


def _whole(data: bytes) -> bool:
    head, _, body = data.partition(b"\r\n\r\n")
    match = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
    return match is not None and len(body) >= int(match.group(1))


def _envelope(status: int, body: dict, expected_status: int, code: str) -> None:
    assert status == expected_status, body
    assert body["status_code"] == expected_status
    assert [e["code"] for e in body["errors"]] == [code], body


def test_a_request_line_over_8_kib_is_a_414_with_the_envelope(plain: ServerProcess) -> None:
    status, body = _send_then_answer(plain, b"GET /" + b"a" * 8200 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    _envelope(status, body, 414, "uri_too_long")


def test_a_request_line_just_under_8_kib_is_served(plain: ServerProcess) -> None:
    status, body = _send_then_answer(plain, b"GET /healthz?" + b"a" * 8000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200, body


def test_a_request_line_growing_in_pieces_is_refused_when_it_passes_8_kib(plain: ServerProcess) -> None:
    pieces = [b"GET /"] + [b"a" * 1024] * 64  # 64 KiB if it were all read
    status, body = _send_then_answer(plain, *pieces)
    _envelope(status, body, 414, "uri_too_long")


def test_more_than_100_headers_is_a_431(plain: ServerProcess) -> None:
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(101))
    status, body = _send_then_answer(plain, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    _envelope(status, body, 431, "headers_too_large")


def test_99_headers_are_served(plain: ServerProcess) -> None:
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(99))
    status, _ = _send_then_answer(plain, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    assert status == 200


def test_headers_over_64_kib_in_all_are_a_431(plain: ServerProcess) -> None:
    headers = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 8000) for i in range(9))
    status, body = _send_then_answer(plain, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    _envelope(status, body, 431, "headers_too_large")


def test_one_endless_header_is_refused_before_it_is_all_sent(plain: ServerProcess) -> None:
    """20 MiB of one header value: the 431 comes back, and the server's memory does not grow by it."""
    assert plain.process is not None
    before = _rss_mib(plain.process.pid)
    pieces = [b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "] + [b"v" * 65536] * 320
    status, body = _send_then_answer(plain, *pieces)
    _envelope(status, body, 431, "headers_too_large")
    assert _rss_mib(plain.process.pid) - before < 10


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    assert match is not None
    return int(match.group(1)) / 1024


def test_a_duplicate_content_length_is_a_400_with_the_envelope(plain: ServerProcess) -> None:
    status, body = _send_then_answer(
        plain, b"POST /me HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}"
    )
    _envelope(status, body, 400, "malformed_request")


def test_a_nul_in_a_header_is_a_400_with_the_envelope(plain: ServerProcess) -> None:
    status, body = _send_then_answer(plain, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n")
    _envelope(status, body, 400, "malformed_request")


def test_after_the_refusals_the_server_still_serves(plain: ServerProcess) -> None:
    _send_then_answer(plain, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n")
    assert httpx.get(f"{plain.url}/healthz").status_code == 200


def test_an_answer_the_client_does_not_read_is_dropped_within_the_send_check(timeouts: ServerProcess) -> None:
    """Issue 43, finding 2: 12 connections that never read held 620 MiB of answers for as long as
    their client kept them open. A client that takes less than 16 KiB a second of a held-up answer
    is cut off at the next check (every 10 s), its buffered answer dropped: it never gets the rest."""
    from queuedesk.server.http.connections import SEND_CHECK

    with timeouts.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        blocks = [{"id": "text", "name": "Text", "type": "text", "text": {}}]
        made = admin.post(f"/orgs/{org}/queues", json={"name": "Large answers", "data": blocks}).json()
        path = f"/orgs/{org}/queues/{made['id']}/tasks"
        for n in range(9):
            assert (
                admin.post(f"{path}/create", json={"data": {"text": f"{n}" + "x" * 400_000}}).status_code
                == 200
            )
        whole = len(admin.get(path, params={"limit": 1000}).content)
    assert whole > 3_000_000
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
    sock.connect(("127.0.0.1", timeouts.port))
    sock.sendall(
        f"GET {path}?limit=1000 HTTP/1.1\r\nHost: x\r\nAuthorization: Token {KEYS['admin']}\r\n\r\n".encode()
    )
    time.sleep(2 * SEND_CHECK + SLACK)  # never reading meanwhile
    received = 0
    sock.settimeout(5)
    try:
        while data := sock.recv(65536):
            received += len(data)
    except TimeoutError:
        pytest.fail(
            f"the connection is still open after {2 * SEND_CHECK + SLACK:.0f} s, {received} bytes read"
        )
    except OSError:
        pass  # reset: the server aborted it
    finally:
        sock.close()
    assert received < whole, (received, whole)
