"""Requests in flight per API key against a real `queuedesk serve` over loopback (issue 43, finding 2).

A request is held in flight by a client that does not read its answer: a page of ~3.6 MiB to a
socket with a small receive window stays in the server's send buffer (the send check cuts such a
client off only after 10 s, longer than each round here). The server's cap is 3 (`--max-in-flight`).
"""

import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.support import KEYS, ROLES_SEED, ServerProcess, assert_envelope

CAP = 3
WAIT = 20.0  # seconds for the server to take up the held requests (8 s ran out at load 13)


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    flags = ["--max-in-flight", str(CAP)]
    server = ServerProcess(tmp_path_factory.mktemp("in_flight") / "qd.db", flags, seed=ROLES_SEED).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def large_page(capped: ServerProcess) -> str:
    """The path of a page of pending tasks of ~3.6 MiB, which a worker may read."""
    with capped.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        blocks = [{"id": "text", "name": "Text", "type": "text", "text": {}}]
        made = admin.post(f"/orgs/{org}/queues", json={"name": "Large answers", "data": blocks}).json()
        path = f"/orgs/{org}/queues/{made['id']}/tasks"
        for n in range(9):
            created = admin.post(f"{path}/create", json={"data": {"text": f"{n}" + "x" * 400_000}})
            assert created.status_code == 200
    return f"{path}?limit=1000"


def _hold(server: ServerProcess, path: str, role: str = "worker") -> socket.socket:
    """A request for `path` whose client reads only its status line, then nothing."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
    sock.settimeout(WAIT)
    sock.connect(("127.0.0.1", server.port))
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Token {KEYS[role]}\r\n\r\n".encode()
    )
    return sock


def _status(sock: socket.socket) -> int:
    line = b""
    while len(line) < 12:
        line += sock.recv(12 - len(line))
    return int(line[9:12])


def _read_to_the_end(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)  # a wide window now
    sock.settimeout(30)
    while sock.recv(1 << 20):
        pass


def _refused_while_held(server: ServerProcess, role: str = "worker") -> httpx.Response:
    """A small request with the key, sent until the server has taken up the held ones (429)."""
    with server.client(role) as client:
        deadline = time.monotonic() + WAIT
        while True:
            answer = client.get("/me")
            if answer.status_code == 429 or time.monotonic() > deadline:
                return answer
            time.sleep(0.05)


def _round(server: ServerProcess, path: str) -> list[socket.socket]:
    """CAP held requests with the worker's key: each admitted (200), the next one refused (429),
    another key served meanwhile."""
    held = [_hold(server, path) for _ in range(CAP)]
    assert [_status(sock) for sock in held] == [200] * CAP  # a leaked slot would make one a 429
    refused = _refused_while_held(server)
    assert refused.status_code == 429, refused.text
    assert_envelope(refused, 429, "rate_limited")
    assert refused.headers["Retry-After"] == "1"
    assert "in flight" in refused.text
    with server.client("supervisor") as other:
        assert other.get("/me").status_code == 200
    return held


def test_one_key_past_its_cap_is_refused_and_every_slot_comes_back(
    capped: ServerProcess, large_page: str
) -> None:
    held = _round(capped, large_page)
    for sock in held:  # read to the end: the answers are sent, the slots back
        _read_to_the_end(sock)
        sock.close()
    with capped.client("worker") as worker:
        assert worker.get("/me").status_code == 200
        for _ in range(2 * CAP):  # refusals after the key: their slots come back too
            assert worker.get(large_page.replace("/tasks", "0/tasks")).status_code == 404
    held = _round(capped, large_page)
    for sock in held:  # gone mid-answer
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()
    held = _round(capped, large_page)  # every slot back after the clients that went away
    for sock in held:
        sock.close()
