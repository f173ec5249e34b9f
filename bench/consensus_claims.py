"""The consensus claim's "not answered by me" at 100,000 answered (B21): a worker has answered the
first 100,000 tasks of a consensus queue in claim order (tasks still collecting: nobody else has
answered them), and one later task has an answer of another worker. Each of the worker's claims
must skip the 100,000 and hand out that task. Timed: the worker's claim + release cycle on that
queue, against the same cycle on a plain queue, in interleaved rounds; and, for reference, the
plain "NOT EXISTS" walk of the tasks in claim order that the answer-set index avoids.

The answers are written with SQL (100,000 answers through HTTP would take minutes); everything timed
goes through HTTP.

    .venv/bin/python bench/consensus_claims.py [--answered 100000] [--backend sqlite|postgresql]
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bench import UNLIMITED
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess
from tests.support.loopback import loopback_client
from tests.support.postgres import drop_databases

# The walk the answer sets avoid: tasks with answers in claim order, each checked for the caller's.
NAIVE = """SELECT t.id FROM tasks t JOIN consensus_tasks c ON c.task_id = t.id WHERE t.queue_id = {q}
    AND c.state = 'collecting' AND c.n_answers > 0 AND t.status = 'open'
    AND NOT EXISTS (SELECT 1 FROM task_answers a WHERE a.task_id = t.id AND a.worker_id = {w})
    ORDER BY t.id LIMIT 1"""


def _fill_statements(
    queue_id: int, worker_id: int, other_id: int, first: int, last: int, email: str
) -> list[str]:
    """The worker's answers to tasks first..last-1, and the other worker's answer to task `last`."""
    now = int(time.time() * 1_000_000)
    data = json.dumps({"paragraph": None, "category": "red", "photo": None}).replace("'", "''")
    return [
        f"""INSERT INTO task_answers (task_id, worker_id, queue_id, worker_email, data, answered_at, work_micros)
        SELECT id, {worker_id}, {queue_id}, '{email}', '{data}', {now}, 1000000 FROM tasks
        WHERE queue_id = {queue_id} AND id >= {first} AND id < {last}""",
        f"""INSERT INTO consensus_tasks (task_id, queue_id, state, answer_set, n_answers)
        SELECT id, {queue_id}, 'collecting', ',{worker_id},', 1 FROM tasks
        WHERE queue_id = {queue_id} AND id >= {first} AND id < {last}""",
        f"""INSERT INTO task_answers (task_id, worker_id, queue_id, worker_email, data, answered_at, work_micros)
        VALUES ({last}, {other_id}, {queue_id}, 'other@acme.test', '{data}', {now}, 1000000)""",
        f"""INSERT INTO consensus_tasks (task_id, queue_id, state, answer_set, n_answers)
        VALUES ({last}, {queue_id}, 'collecting', ',{other_id},', 1)""",
        f"UPDATE tasks SET status = 'open' WHERE queue_id = {queue_id} AND id >= {first} AND id <= {last}",
    ]


def _sql(db_url: str, statements: list[str], query: str | None = None) -> tuple[Any, float]:
    """Run the statements; then the query, timed (its first column and seconds)."""
    if db_url.startswith("sqlite:///"):
        conn = sqlite3.connect(db_url.removeprefix("sqlite:///"), timeout=60)
        with conn:
            for statement in statements:
                conn.execute(statement)
        started = time.perf_counter()
        found = conn.execute(query).fetchone() if query else None
        took = time.perf_counter() - started
        conn.close()
        return (found[0] if found else None), took

    async def run() -> tuple[Any, float]:
        import asyncpg

        conn = await asyncpg.connect(db_url)
        try:
            async with conn.transaction():
                # The rollups' triggers stay out of this bulk write: 100,000 answers of one worker in
                # one transaction update the same rollup rows 100,000 times each, which PostgreSQL
                # does in quadratic time (each update walks the row's versions of this transaction).
                await conn.execute("SET LOCAL session_replication_role = replica")
                for statement in statements:
                    await conn.execute(statement)
            await conn.execute("ANALYZE")
            started = time.perf_counter()
            found = await conn.fetchval(query) if query else None
            return found, time.perf_counter() - started
        finally:
            await conn.close()

    return asyncio.run(run())


def _cycle(client: httpx.Client, qpath: str, expected: int | None, n: int) -> list[float]:
    took = []
    for _ in range(n):
        started = time.perf_counter()
        claimed = client.post(f"{qpath}/tasks/next")
        assert claimed.status_code == 200, claimed.text
        task_id = claimed.json()["id"]
        assert expected is None or task_id == expected, (task_id, expected)
        client.post(f"{qpath}/tasks/{task_id}/release").raise_for_status()
        took.append(time.perf_counter() - started)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answered", type=int, default=100_000)
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
            other = next(email for email in users if email != me and email.startswith("w"))
            made = {}
            for name, extra in (("plain", {}), ("consensus", {"consensus": {"answers": 2}})):
                queue = admin.post(f"/orgs/{org}/queues", json={"name": name, "data": CORE_BLOCKS, **extra})
                queue.raise_for_status()
                made[name] = queue.json()["id"]
                qpath = f"/orgs/{org}/queues/{made[name]}"
                for start in range(0, args.answered + 10, 10_000):
                    count = min(10_000, args.answered + 10 - start)
                    items = [{"data": {"paragraph": f"report {start + n}"}} for n in range(count)]
                    admin.post(
                        f"{qpath}/tasks/import", json={"source": "manual", "tasks": items}
                    ).raise_for_status()
            cq = f"/orgs/{org}/queues/{made['consensus']}"
            first = admin.get(f"{cq}/tasks", params={"limit": 1}).json()["tasks"][0]["id"]
            last = first + args.answered
            statements = _fill_statements(made["consensus"], users[me], users[other], first, last, me)
            _found, _ = _sql(server.db_url, statements)
            naive_found, naive_seconds = _sql(
                server.db_url, [], NAIVE.format(q=made["consensus"], w=users[me])
            )
            assert naive_found == last, (naive_found, last)
            rounds = []
            for _round in range(args.rounds):
                plain = _cycle(worker, f"/orgs/{org}/queues/{made['plain']}", None, args.cycles)
                consensus = _cycle(worker, cq, last, args.cycles)
                rounds.append(
                    {
                        "plain_ms": statistics.median(plain) * 1000,
                        "consensus_ms": statistics.median(consensus) * 1000,
                    }
                )
    finally:
        server.stop()
        drop_databases()
    result = {
        "backend": args.backend,
        "answered_by_the_worker": args.answered,
        "cycles_per_round": args.cycles,
        "rounds": rounds,
        "plain_claim_release_median_ms": round(statistics.median(r["plain_ms"] for r in rounds), 3),
        "consensus_claim_release_median_ms": round(statistics.median(r["consensus_ms"] for r in rounds), 3),
        "ratio_per_round": [round(r["consensus_ms"] / r["plain_ms"], 2) for r in rounds],
        "naive_not_exists_walk_ms": round(naive_seconds * 1000, 1),
    }
    for key, value in result.items():
        print(f"{key:36} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
