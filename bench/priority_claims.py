"""B24/B25's claim order at 1,000,000 pending: the claim + completion cycle in a queue whose tasks
all have priority 0, no due date and no reservation ("plain") against one whose tasks have
priorities from -5 to 5, due dates on a third, and reservations on 2% (half for the worker, half
for another) ("ordered"). Timed through HTTP, one cycle on each queue in turn, in rounds.

The tasks are written with SQL (a million tasks through HTTP would take minutes).

    .venv/bin/python bench/priority_claims.py [--pending 1000000] [--backend sqlite|postgresql]
"""

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bench import UNLIMITED
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess
from tests.support.loopback import loopback_client
from tests.support.postgres import drop_databases

NO_DUE = 2**62


def _fill(queue_id: int, pending: int, now: int, ordered: bool, me: int, other: int) -> list[str]:
    data = json.dumps({"paragraph": "report", "category": None, "photo": None})
    if ordered:
        priority = "(x % 11) - 5"
        due = f"CASE WHEN x % 3 = 0 THEN {now} + (x % 100000) * 1000000 ELSE {NO_DUE} END"
        reserved = f"CASE WHEN x % 100 = 0 THEN {me} WHEN x % 100 = 50 THEN {other} ELSE NULL END"
    else:
        priority, due, reserved = "0", str(NO_DUE), "NULL"
    return [
        f"""INSERT INTO tasks (queue_id, status, data, source, created_at, priority, due_at, due_armed,
        reserved_for) SELECT {queue_id}, 'new', '{data}', 'manual', {now}, {priority}, {due}, NULL, {reserved}
        FROM ({_series(pending)}) s""",
        f"UPDATE queues SET n_tasks = n_tasks + {pending} WHERE id = {queue_id}",
    ]


def _series(n: int) -> str:
    return f"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) SELECT x FROM c"


def _sql(db_url: str, statements: list[str]) -> None:
    if db_url.startswith("sqlite:///"):
        conn = sqlite3.connect(db_url.removeprefix("sqlite:///"), timeout=60)
        with conn:
            for statement in statements:
                conn.execute(statement)
            conn.execute("ANALYZE")
        conn.close()
        return

    async def run() -> None:
        import asyncpg

        conn = await asyncpg.connect(db_url)
        try:
            async with conn.transaction():
                await conn.execute("SET LOCAL session_replication_role = replica")
                for statement in statements:
                    await conn.execute(statement)
            # The rows' visibility settled once, as a running database's autovacuum does: else the
            # first claims pay for setting it on the rows they pass.
            await conn.execute("VACUUM ANALYZE")
        finally:
            await conn.close()

    asyncio.run(run())


def _cycle(client: httpx.Client, qpath: str) -> tuple[float, dict]:
    started = time.perf_counter()
    claimed = client.post(f"{qpath}/tasks/next")
    assert claimed.status_code == 200, claimed.text
    task = claimed.json()
    done = client.post(f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
    assert done.status_code == 200, done.text
    return time.perf_counter() - started, task


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pending", type=int, default=1_000_000)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = ServerProcess(
        Path(tempfile.mkdtemp()) / "qd.db", [*UNLIMITED], seed=ROLES_SEED, backend=args.backend
    )
    server.start()
    try:
        with (
            server.client("admin") as admin,
            loopback_client(
                server.url, headers={"Authorization": f"Token {KEYS['worker']}"}, timeout=60
            ) as worker,
        ):
            org = admin.get("/me").json()["organization_id"]
            users = {u["email"]: u["id"] for u in admin.get(f"/orgs/{org}/users").json()}
            me = worker.get("/me").json()["email"]
            other = next(u for e, u in users.items() if e != me and e.startswith("wyn"))
            made = {}
            now = int(time.time() * 1_000_000)
            statements: list[str] = []
            for name in ("plain", "ordered"):
                queue = admin.post(f"/orgs/{org}/queues", json={"name": name, "data": CORE_BLOCKS})
                queue.raise_for_status()
                made[name] = queue.json()["id"]
                statements += _fill(made[name], args.pending, now, name == "ordered", users[me], other)
            started = time.perf_counter()
            _sql(server.db_url, statements)
            fill_seconds = time.perf_counter() - started
            rounds = []
            seen = {"reserved_for_me": 0, "reserved_for_another": 0, "priority_5": 0}
            for _round in range(args.rounds):
                plain, ordered = [], []
                for _n in range(args.cycles):
                    plain.append(_cycle(worker, f"/orgs/{org}/queues/{made['plain']}")[0])
                    took, task = _cycle(worker, f"/orgs/{org}/queues/{made['ordered']}")
                    ordered.append(took)
                    seen["reserved_for_me"] += task["reserved_for"] == me
                    seen["reserved_for_another"] += task["reserved_for"] not in (None, me)
                    seen["priority_5"] += task["priority"] == 5
                rounds.append(
                    {
                        "plain_ms": statistics.median(plain) * 1000,
                        "ordered_ms": statistics.median(ordered) * 1000,
                    }
                )
    finally:
        server.stop()
        drop_databases()
    result = {
        "backend": args.backend,
        "pending_per_queue": args.pending,
        "fill_seconds": round(fill_seconds, 1),
        "cycles_per_round": args.cycles,
        "rounds": rounds,
        "plain_claim_complete_median_ms": round(statistics.median(r["plain_ms"] for r in rounds), 3),
        "ordered_claim_complete_median_ms": round(statistics.median(r["ordered_ms"] for r in rounds), 3),
        "ratio_per_round": [round(r["ordered_ms"] / r["plain_ms"], 2) for r in rounds],
        "ordered_claims": seen,
    }
    for key, value in result.items():
        print(f"{key:36} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
