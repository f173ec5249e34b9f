"""Retries against a real flaky upstream: a loopback HTTP proxy in front of the real server.

The proxy reads each request the client sends, records it, and then does what its plan says for that
request: forward it to the server, close the connection without answering (before or after the server
got the request), or answer a gateway status itself. Idempotent requests must survive that; creating
and completing a task must never be sent twice.
"""

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import IO
from urllib.parse import urlsplit

import httpx
import pytest

from queuedesk.api.client import QueueDeskClient, RetryPolicy
from queuedesk.api.client import retries as client_retries
from queuedesk.api.errors import ConnectionFailed, RateLimited, ServerError, Timeout
from tests.fill import fill_completed
from tests.support import KEYS, ServerProcess

FAST = RetryPolicy(attempts=4, base_delay=0.01, max_delay=0.05)

# What the proxy can do with one request.
FORWARD = "forward"
DROP = "drop"  # read the request, close the connection without answering; the server never sees it
LOSE_ANSWER = "lose_answer"  # forward it, let the server act, close without passing the answer on
HANG = "hang"  # forward it, let the server act, hold the answer back past the client's time-out
HANG_SECONDS = 3.0
SHORT_TIMEOUT = 1.0

GATEWAY_BODY = b"<html><body><h1>%d</h1>upstream trouble</body></html>"
REASONS = {429: "Too Many Requests", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}


@dataclass(frozen=True)
class Answer:
    """Answer this status instead of forwarding."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None

    def encode(self) -> bytes:
        body = self.body if self.body is not None else GATEWAY_BODY % self.status
        lines = [f"HTTP/1.1 {self.status} {REASONS.get(self.status, 'Error')}"]
        lines += [f"{name}: {value}" for name, value in self.headers]
        if not any(name.lower() == "content-type" for name, _ in self.headers):
            lines.append("Content-Type: text/html")
        lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def rate_limited(retry_after: str = "0") -> Answer:
    body = json.dumps(
        {"status_code": 429, "errors": [{"code": "rate_limited", "message": "Too many requests, slow down"}]}
    ).encode()
    return Answer(429, (("Retry-After", retry_after), ("Content-Type", "application/json")), body)


@dataclass
class Seen:
    method: str
    path: str
    action: str


@dataclass
class Request:
    method: str
    target: str
    head_lines: list[bytes]
    body: bytes

    def for_upstream(self) -> bytes:
        kept = [line for line in self.head_lines[1:] if not line.lower().startswith(b"connection:")]
        return b"\r\n".join([self.head_lines[0], *kept, b"Connection: close", b"", b""]) + self.body


def read_request(reader: IO[bytes]) -> Request | None:
    """One HTTP/1.1 request from the client, or None when the client closed the connection."""
    first = reader.readline()
    if not first:
        return None
    lines = [first.rstrip(b"\r\n")]
    while True:
        line = reader.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        lines.append(line.rstrip(b"\r\n"))
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
        assert name.strip().lower() != b"transfer-encoding", "the proxy handles Content-Length bodies only"
    method, target, _version = lines[0].decode("latin-1").split(" ", 2)
    return Request(method, target, lines, reader.read(length) if length else b"")


@dataclass
class FlakyProxy:
    """A loopback HTTP proxy in front of `upstream` that misbehaves as planned, request by request."""

    upstream: str
    plan: deque[str | Answer] = field(default_factory=deque)
    seen: list[Seen] = field(default_factory=list)
    connections: int = 0
    _listener: socket.socket | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _open: set[socket.socket] = field(default_factory=set)
    _threads: list[threading.Thread] = field(default_factory=list)

    @property
    def url(self) -> str:
        assert self._listener is not None
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def then(self, *actions: str | Answer) -> "FlakyProxy":
        """The next requests get these actions, in order; every later one is forwarded."""
        with self._lock:
            self.plan.extend(actions)
        return self

    def requests(self, path_part: str = "") -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if path_part in s.path]

    def reset(self) -> None:
        with self._lock:
            self.plan.clear()
            self.seen.clear()

    def start(self) -> "FlakyProxy":
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._spawn(self._accept_loop)
        return self

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(timeout=5)
        if self._listener is not None:
            self._listener.close()

    def _spawn(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._open.add(conn)
            self._spawn(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(30)
        try:
            with conn, conn.makefile("rb") as reader:
                while not self._stopping.is_set():
                    request = read_request(reader)
                    if request is None:
                        return
                    with self._lock:
                        action = self.plan.popleft() if self.plan else FORWARD
                        name = action if isinstance(action, str) else str(action.status)
                        self.seen.append(Seen(request.method, urlsplit(request.target).path, name))
                    if action == DROP:
                        return
                    if isinstance(action, Answer):
                        conn.sendall(action.encode())  # and keep the connection for the retry
                        continue
                    answer = self._forward(request)
                    if action == LOSE_ANSWER:
                        return
                    if action == HANG:
                        self._stopping.wait(HANG_SECONDS)
                        return
                    conn.sendall(answer)
                    return  # the answer says `Connection: close`
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(conn)

    def _forward(self, request: Request) -> bytes:
        parts = urlsplit(self.upstream)
        with socket.create_connection((parts.hostname, parts.port), timeout=30) as upstream:
            upstream.sendall(request.for_upstream())
            chunks = []
            while chunk := upstream.recv(65536):
                chunks.append(chunk)
        raw = b"".join(chunks)
        head, _, body = raw.partition(b"\r\n\r\n")
        lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")]
        return b"\r\n".join([*lines, b"Connection: close", b"", b""]) + body


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[FlakyProxy]:
    made = FlakyProxy(server.url).start()
    yield made
    made.stop()


@asynccontextmanager
async def connected(
    proxy: FlakyProxy, org_id: int, retry: RetryPolicy = FAST, timeout: float = 30
) -> AsyncIterator[QueueDeskClient]:
    """A client through the proxy that has already asked `/me`, so the plan meets the request under test."""
    async with QueueDeskClient(proxy.url, KEYS["admin"], org_id, retry=retry, timeout=timeout) as client:
        assert await client.supports_extensions()
        proxy.reset()
        yield client


async def fill(server: ServerProcess, queue_id: int, count: int, data_fn) -> None:
    """`fill_completed` runs its own event loop, so it runs in a thread here."""
    await asyncio.to_thread(fill_completed, server.db_url, queue_id, count, "ada@acme.test", data_fn)


def pending(admin: httpx.Client, qpath: str) -> list[dict]:
    response = admin.get(f"{qpath}/tasks", params={"limit": 1000})
    assert response.status_code == 200, response.text
    return response.json()["tasks"]


def claimed_task(admin: httpx.Client, qpath: str, paragraph: str = "to do") -> dict:
    created = admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": paragraph}})
    assert created.status_code == 200, created.text
    claim = admin.post(f"{qpath}/tasks/next")
    assert claim.status_code == 200, claim.text
    assert claim.json()["id"] == created.json()["id"]
    return claim.json()


FAULTS = {
    "dropped": DROP,
    "503": Answer(503),
    "502": Answer(502),
    "504": Answer(504),
    "429": rate_limited("0"),
}


# --- idempotent requests are retried and succeed ------------------------------------------------


async def test_queues_survive_dropped_connections(proxy, org_id, queue) -> None:
    async with connected(proxy, org_id) as qd:
        proxy.then(DROP, DROP)
        before = proxy.connections
        queues = await qd.queues()
    assert queue["id"] in [q.id for q in queues]
    seen = proxy.requests("/queues")
    assert [(s.method, s.action) for s in seen] == [("GET", DROP), ("GET", DROP), ("GET", FORWARD)]
    assert proxy.connections - before == 3, "each dropped connection is replaced by a new one"


async def test_get_survives_a_time_out(proxy, org_id, queue) -> None:
    async with connected(proxy, org_id, timeout=SHORT_TIMEOUT) as qd:
        proxy.then(HANG)
        detail = await qd.queue(queue["id"])
    assert detail.id == queue["id"]
    assert [b.id for b in detail.data] == [b["id"] for b in queue["data"]]
    assert [s.action for s in proxy.requests(f"/queues/{queue['id']}")] == [HANG, FORWARD]


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
async def test_completed_tasks_survive_one_fault(proxy, server, org_id, queue, fault) -> None:
    await fill(server, queue["id"], 3, lambda n: {"paragraph": f"done {n}"})
    async with connected(proxy, org_id) as qd:
        proxy.then(FAULTS[fault])
        page = await qd.completed_tasks(queue["id"], limit=2)
    assert page.count == 3
    assert [t.data["paragraph"] for t in page.tasks] == ["done 2", "done 1"]
    seen = proxy.requests("/tasks/completed")
    expected = FAULTS[fault] if isinstance(FAULTS[fault], str) else str(FAULTS[fault].status)
    assert [s.action for s in seen] == [expected, FORWARD], seen


async def test_retry_after_zero_is_honoured(proxy, org_id, queue, monkeypatch) -> None:
    """With Retry-After: 0 the client retries at once, not after its own (here 30 s) backoff."""
    monkeypatch.setattr(client_retries.random, "uniform", lambda _low, high: high)  # no lucky jitter
    slow = RetryPolicy(attempts=2, base_delay=30, max_delay=30)
    async with connected(proxy, org_id, retry=slow) as qd:
        proxy.then(rate_limited("0"))
        started = time.monotonic()
        queues = await asyncio.wait_for(qd.queues(), timeout=5)
        elapsed = time.monotonic() - started
    assert queue["id"] in [q.id for q in queues]
    assert [s.action for s in proxy.requests("/queues")] == ["429", FORWARD]
    assert elapsed < 2, f"Retry-After: 0 was not honoured; the retry waited {elapsed:.1f}s"


@pytest.mark.parametrize("fault", ["dropped", "503", "504"])
async def test_flush_is_retried(proxy, server, admin, org_id, qpath, queue, fault) -> None:
    for n in range(3):
        assert admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": f"p{n}"}}).status_code == 200
    await fill(server, queue["id"], 1, lambda _n: {"paragraph": "kept"})
    async with connected(proxy, org_id) as qd:
        proxy.then(FAULTS[fault])
        await qd.flush(queue["id"])
    assert pending(admin, qpath) == []
    completed = admin.get(f"{qpath}/tasks/completed").json()
    assert completed["count"] == 1 and completed["tasks"][0]["data"]["paragraph"] == "kept"
    seen = proxy.requests("/flush")
    assert [s.method for s in seen] == ["PUT", "PUT"]
    assert seen[-1].action == FORWARD


@pytest.mark.parametrize("fault", ["dropped", "502", "429"])
async def test_set_webhook_is_retried(proxy, admin, org_id, qpath, queue, fault) -> None:
    target = "http://127.0.0.1:9/resilience-hook"
    async with connected(proxy, org_id) as qd:
        proxy.then(FAULTS[fault], FAULTS[fault])
        await qd.set_webhook(queue["id"], target)
        assert (await qd.webhook(queue["id"])).target == target
    assert admin.get(f"{qpath}/webhook").json() == {"target": target}
    puts = [s for s in proxy.requests("/webhook") if s.method == "PUT"]
    assert len(puts) == 3
    assert puts[-1].action == FORWARD


async def test_heartbeat_is_retried(proxy, admin, org_id, qpath, queue) -> None:
    task = claimed_task(admin, qpath)
    async with connected(proxy, org_id) as qd:
        proxy.then(DROP, Answer(503), Answer(502))
        assignment = await qd.heartbeat(queue["id"], task["id"])
    assert assignment.assigned_to == "ada@acme.test"
    assert assignment.lease_expires_at is not None
    seen = proxy.requests("/heartbeat")
    assert [(s.method, s.action) for s in seen] == [
        ("POST", DROP),
        ("POST", "503"),
        ("POST", "502"),
        ("POST", FORWARD),
    ]
    assert admin.get(f"{qpath}/tasks/{task['id']}").json()["status"] == "in_progress"


# --- non-idempotent requests are sent once --------------------------------------------------------

CREATE_FAULTS = {
    "dropped": (DROP, ConnectionFailed, 0),
    "answer_lost": (LOSE_ANSWER, ConnectionFailed, 1),
    "timed_out": (HANG, Timeout, 1),
    "503": (Answer(503), ServerError, 0),
    "502": (Answer(502), ServerError, 0),
    "504": (Answer(504), ServerError, 0),
    "429": (rate_limited("0"), RateLimited, 0),
}


@pytest.mark.parametrize("fault", list(CREATE_FAULTS), ids=list(CREATE_FAULTS))
async def test_create_task_is_never_retried(proxy, admin, org_id, qpath, queue, fault) -> None:
    action, error, created = CREATE_FAULTS[fault]
    async with connected(proxy, org_id, timeout=SHORT_TIMEOUT) as qd:
        proxy.then(action)  # a second attempt would be forwarded and succeed
        with pytest.raises(error) as raised:
            await qd.create_task(queue["id"], {"paragraph": f"only once ({fault})"})
    seen = proxy.requests("/tasks/create")
    assert [(s.method, s.action) for s in seen] == [("POST", action if isinstance(action, str) else fault)]
    assert f"Creating a task in queue {queue['id']} failed" in str(raised.value)
    tasks = pending(admin, qpath)
    assert [t["data"]["paragraph"] for t in tasks] == [f"only once ({fault})"] * created
    assert all(t["source"] == "api" for t in tasks)


COMPLETE_FAULTS = {
    "dropped": (DROP, ConnectionFailed, "in_progress"),
    "answer_lost": (LOSE_ANSWER, ConnectionFailed, "completed"),
    "timed_out": (HANG, Timeout, "completed"),
    "503": (Answer(503), ServerError, "in_progress"),
    "504": (Answer(504), ServerError, "in_progress"),
    "429": (rate_limited("0"), RateLimited, "in_progress"),
}


@pytest.mark.parametrize("fault", list(COMPLETE_FAULTS), ids=list(COMPLETE_FAULTS))
async def test_complete_is_never_retried(proxy, admin, org_id, qpath, queue, fault) -> None:
    action, error, status = COMPLETE_FAULTS[fault]
    task = claimed_task(admin, qpath)
    async with connected(proxy, org_id, timeout=SHORT_TIMEOUT) as qd:
        proxy.then(action)
        with pytest.raises(error) as raised:
            await qd.complete(queue["id"], task["id"], {"category": "red"})
    seen = proxy.requests("/complete")
    assert [(s.method, s.action) for s in seen] == [("POST", action if isinstance(action, str) else fault)]
    assert f"Completing task {task['id']} failed" in str(raised.value)
    after = admin.get(f"{qpath}/tasks/{task['id']}").json()
    assert after["status"] == status
    completed = admin.get(f"{qpath}/tasks/completed").json()
    assert completed["count"] == (1 if status == "completed" else 0)
    if status == "completed":
        assert after["data"]["category"] == "red" and after["completed_by"] == "ada@acme.test"


# --- giving up ------------------------------------------------------------------------------------


async def test_gives_up_on_connections_after_attempts(proxy, org_id) -> None:
    policy = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.02)
    async with connected(proxy, org_id, retry=policy) as qd:
        proxy.then(*[DROP] * 10)
        before = proxy.connections
        with pytest.raises(ConnectionFailed) as raised:
            await qd.queues()
    assert [s.action for s in proxy.requests("/queues")] == [DROP] * 3
    assert proxy.connections - before == 3
    message = str(raised.value)
    assert message.startswith("Listing queues failed: cannot reach " + proxy.url), message
    assert "Check the server URL and that the server is running." in message
    assert raised.value.status is None


@pytest.mark.parametrize("status", [502, 503, 504])
async def test_gives_up_on_server_errors_after_attempts(proxy, org_id, queue, status) -> None:
    async with connected(proxy, org_id) as qd:
        proxy.then(*[Answer(status)] * 10)
        with pytest.raises(ServerError) as raised:
            await qd.completed_tasks(queue["id"])
    assert [s.action for s in proxy.requests("/tasks/completed")] == [str(status)] * FAST.attempts
    assert raised.value.status == status
    message = str(raised.value)
    assert message.startswith(
        f"Listing completed tasks of queue {queue['id']} failed: the server answered {status}"
    )
    assert f"with a web page ({status})" in message and "<" not in message  # its title, never its HTML
    assert "The server failed; its log has details." in message


async def test_gives_up_when_rate_limited_after_attempts(proxy, org_id, queue) -> None:
    async with connected(proxy, org_id) as qd:
        proxy.then(*[rate_limited("0")] * 10)
        with pytest.raises(RateLimited) as raised:
            await qd.flush(queue["id"])
    assert [s.action for s in proxy.requests("/flush")] == ["429"] * FAST.attempts
    assert raised.value.status == 429
    assert raised.value.code == "rate_limited"
    message = str(raised.value)
    assert message.startswith(f"Flushing queue {queue['id']} failed: Too many requests, slow down"), message
    assert "The server asks to slow down" in message


async def test_unreachable_server_fails_after_attempts(org_id) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"  # bound, not listening: refused
        started = time.monotonic()
        async with QueueDeskClient(url, KEYS["admin"], org_id, retry=FAST) as qd:
            with pytest.raises(ConnectionFailed) as raised:
                await qd.queues()
    assert time.monotonic() - started < 5
    assert f"cannot reach {url}" in str(raised.value)
