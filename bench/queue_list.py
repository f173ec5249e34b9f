"""A3 list queues on a busy organization: 100 queues, one of them with 1,000,000 pending (new) tasks.
Times `GET /orgs/{org}/queues` over HTTP against `queuedesk serve` on SQLite: p50/p95 latency with
one client, and listings per second with 16 connections (an asyncio httpx loop; wrk is used instead
when it is installed), each beside the same figures for `GET /me` measured in the same run.

    .venv/bin/python bench/queue_list.py [--pending 1000000] [--queues 100] [--rounds 200] [--duration 5]
"""

import argparse
import asyncio
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.request_timing import latencies, median_and_p95, seeded_queues  # noqa: E402
from tests.support import KEYS, ServerProcess  # noqa: E402

LUA = Path(__file__).parent / "lua"
# The cheapest authenticated request (key check, one row, JSON out): the figure each listing is set beside.
REFERENCE_PATH = "/me"


def fill(db_path: Path, queue_id: int, pending: int) -> None:
    """`pending` new tasks written straight into the queue, its counter (when the schema has one) kept."""
    now = int(time.time() * 1_000_000)
    with sqlite3.connect(db_path) as conn:
        conn.executemany(
            "INSERT INTO tasks (queue_id, status, data, source, created_at) VALUES (?, 'new', ?, 'bench', ?)",
            ((queue_id, '{"paragraph":"p"}', now) for _ in range(pending)),
        )
        columns = {row[1] for row in conn.execute("PRAGMA table_info(queues)")}
        if "n_tasks" in columns:
            conn.execute("UPDATE queues SET n_tasks = n_tasks + ? WHERE id = ?", (pending, queue_id))


async def _throughput(url: str, path: str, key: str, connections: int, duration: float) -> tuple[int, int]:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    headers = {"Authorization": f"Token {key}"}
    done = errors = 0
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits) as client:
        stop = time.perf_counter() + duration

        async def loop() -> None:
            nonlocal done, errors
            while time.perf_counter() < stop:
                response = await client.get(path)
                if response.status_code == 200:
                    done += 1
                else:
                    errors += 1

        await asyncio.gather(*(loop() for _ in range(connections)))
    return done, errors


def throughput(url: str, path: str, key: str, connections: int, duration: float) -> dict[str, float]:
    if shutil.which("wrk"):
        out = subprocess.run(
            ["wrk", "-t1", f"-c{connections}", f"-d{int(duration)}s", "-s", str(LUA / "get.lua"), url + path],
            capture_output=True,
            text=True,
            env={"QD_KEY": key, "PATH": "/usr/bin:/bin"},
        ).stdout
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
        return {"listings_per_s": round(rate), "errors": 0, "load": "wrk"}
    asyncio.run(_throughput(url, path, key, connections, 1.0))  # warm
    done, errors = asyncio.run(_throughput(url, path, key, connections, duration))
    return {"listings_per_s": round(done / duration), "errors": errors, "load": "httpx asyncio"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pending", type=int, default=1_000_000)
    parser.add_argument("--queues", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "queues.db"
        org, made = seeded_queues(db_path, [f"Q{n:03}" for n in range(args.queues)])
        started = time.perf_counter()
        fill(db_path, made[0]["id"], args.pending)
        print(f"filled {args.pending:,} pending tasks in {time.perf_counter() - started:.1f} s", flush=True)
        server = ServerProcess(db_path, [*UNLIMITED]).start()
        try:
            path = f"/orgs/{org}/queues"
            with server.client("admin") as admin:
                listed = admin.get(path).json()
                assert len(listed) >= args.queues, len(listed)
                big = next(q for q in listed if q["id"] == made[0]["id"])
                assert big["n_tasks"] == args.pending, big["n_tasks"]
                took = latencies(admin, path, args.rounds)
                reference_took = latencies(admin, REFERENCE_PATH, args.rounds)
            rate = throughput(server.url, path, KEYS["admin"], args.connections, args.duration)
            reference_rate = throughput(
                server.url, REFERENCE_PATH, KEYS["admin"], args.connections, args.duration
            )
        finally:
            server.stop()
    listing = median_and_p95(took)
    figures = {
        "queues": len(listed),
        "pending": args.pending,
        "p50_ms": listing["median_ms"],
        "p95_ms": listing["p95_ms"],
        "connections": args.connections,
        **rate,
        "reference": REFERENCE_PATH,
        "reference_p50_ms": median_and_p95(reference_took)["median_ms"],
        "reference_per_s": reference_rate["listings_per_s"],
    }
    print(
        f"list queues ({len(listed)} queues, {args.pending:,} pending): p50 {figures['p50_ms']} ms, "
        f"p95 {figures['p95_ms']} ms; {figures['listings_per_s']} listings/s at {args.connections} "
        f"connections ({figures['load']}, {figures['errors']} errors)\n"
        f"reference {REFERENCE_PATH} in the same run: p50 {figures['reference_p50_ms']} ms, "
        f"{figures['reference_per_s']}/s; listing/reference: p50 "
        f"{figures['p50_ms'] / figures['reference_p50_ms']:.2f}x, rate "
        f"{figures['listings_per_s'] / max(figures['reference_per_s'], 1):.2f}x"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
