"""What the single-server read benchmarks share: a seeded database with queues made over HTTP, and
one client's request latencies with their median and 95th percentile."""

import statistics
import time
from pathlib import Path
from typing import Any

import httpx

from bench import UNLIMITED
from tests.support import CORE_BLOCKS, ROLES_SEED, ServerProcess


def seeded_queues(
    db_path: Path, names: list[str], backend: str = "sqlite"
) -> tuple[int, list[dict[str, Any]]]:
    """The roles seed and one queue per name made through the API; the server is stopped after, so
    the caller can write rows straight into the database before serving it again (PostgreSQL: the
    database `ServerProcess` names after `db_path`)."""
    server = ServerProcess(db_path, [*UNLIMITED], seed=ROLES_SEED, backend=backend).start()
    try:
        with server.client("admin") as admin:
            org = admin.get("/me").json()["organization_id"]
            made = [
                admin.post(f"/orgs/{org}/queues", json={"name": name, "data": CORE_BLOCKS}).json()
                for name in names
            ]
    finally:
        server.stop()
    return org, made


def latencies(client: httpx.Client, path: str, rounds: int, *, warm: int = 10) -> list[float]:
    """Milliseconds per `GET path`, one request at a time, after `warm` untimed ones."""
    for _ in range(warm):
        client.get(path).raise_for_status()
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.get(path).raise_for_status()
        took.append((time.perf_counter() - started) * 1000)
    return took


def median_and_p95(took: list[float]) -> dict[str, float]:
    ordered = sorted(took)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[max(int(len(ordered) * 0.95) - 1, 0)], 2),
    }
