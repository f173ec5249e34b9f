"""Create-task with no network: the ASGI app called directly, QueueDesk's and the floor's.

What an HTTP run cannot separate: how much of a request is the application itself. Each app gets
the same create-task request (headers, body) as a direct ASGI call in a loop on one event loop,
after a warm-up; the figure is microseconds per request.

    .venv/bin/python bench/inprocess.py [--requests 30000]
"""

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.floor import connect, make_app  # noqa: E402
from queuedesk.server.app import create_app  # noqa: E402
from queuedesk.server.settings import Settings  # noqa: E402
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess  # noqa: E402

BODY = b'{"data": {"paragraph": "The printer is on fire", "category": "red"}}'
Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"authorization", f"Token {KEYS['admin']}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(BODY)).encode()),
        ],
    }


async def _per_request_us(app: Asgi, path: str, requests: int) -> float:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    for _ in range(500):
        await app(_scope(path), receive, send)
    started = time.perf_counter()
    for _ in range(requests):
        await app(_scope(path), receive, send)
    elapsed = time.perf_counter() - started
    assert set(statuses) == {200}, f"not every request succeeded: {sorted(set(statuses))}"
    return elapsed / requests * 1e6


async def _queuedesk(directory: Path, requests: int) -> float:
    server = ServerProcess(
        directory / "queuedesk.db", [*UNLIMITED], seed=ROLES_SEED
    ).start()  # seeds, then stops
    with server.client("admin") as admin:
        queue = admin.post("/orgs/1/queues", json={"name": "work", "data": CORE_BLOCKS}).json()["id"]
    server.stop()
    app = create_app(Settings(db_url=server.db_url, rate_limit=None))
    started = asyncio.Event()
    stopping = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if not started.is_set():
            return {"type": "lifespan.startup"}
        await stopping.wait()
        return {"type": "lifespan.shutdown"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    lifespan = asyncio.create_task(app({"type": "lifespan"}, receive, send))  # type: ignore[arg-type]
    await started.wait()
    try:
        return await _per_request_us(app, f"/orgs/1/queues/{queue}/tasks/create", requests)  # type: ignore[arg-type]
    finally:
        stopping.set()
        await lifespan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        queuedesk = asyncio.run(_queuedesk(directory, args.requests))
        floor = asyncio.run(
            _per_request_us(
                make_app(connect(str(directory / "floor.db"))), "/orgs/1/queues/1/tasks/create", args.requests
            )
        )
    print(f"queuedesk  {queuedesk:6.1f} µs per create-task")
    print(f"floor      {floor:6.1f} µs per create-task")


if __name__ == "__main__":
    main()
