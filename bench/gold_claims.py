"""The claim in a queue with a gold share (B22) against one without, at 1,000,000 pending each.

Two queues, each with `--pending` ordinary tasks; the gold one has `gold_percent` 50 and `--gold`
gold tasks, of which the worker has answered all but `--unanswered` (so each gold claim skips the
answered ones). Timed through HTTP: the worker's claim + release cycle on each queue, in interleaved
rounds. Half the gold queue's claims serve a gold task (the share), half ordinary work.

The tasks and answers are written with SQL (a million tasks through HTTP would take minutes).

    .venv/bin/python bench/gold_claims.py [--pending 1000000] [--backend sqlite|postgresql]
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


def _fill(queue_id: int, pending: int, now: int) -> list[str]:
    data = json.dumps({"paragraph": "report", "category": None, "photo": None})
    return [
        f"""INSERT INTO tasks (queue_id, status, data, source, created_at)
        SELECT {queue_id}, 'new', '{data}', 'manual', {now} FROM ({_series(pending)}) s""",
        f"UPDATE queues SET n_tasks = n_tasks + {pending} WHERE id = {queue_id}",
    ]


def _series(n: int) -> str:
    return f"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) SELECT x FROM c"


def _gold(queue_id: int, gold: int, answered: int, worker_id: int, email: str, now: int) -> list[str]:
    data = json.dumps({"paragraph": "gold", "category": None, "photo": None})
    expected = json.dumps({"category": "a"})
    return [
        f"""INSERT INTO tasks (queue_id, status, data, source, created_at)
        SELECT {queue_id}, 'gold', '{data}', 'api', {now} FROM ({_series(gold)}) s""",
        f"""INSERT INTO gold_tasks (task_id, queue_id, expected, retired, answered, correct)
        SELECT id, {queue_id}, '{expected}', FALSE, 0, 0 FROM tasks WHERE queue_id = {queue_id} AND status = 'gold'""",
        f"""INSERT INTO gold_answers (task_id, worker_id, queue_id, worker_email, answered_at, data, expected,
        correct, wrong) SELECT id, {worker_id}, {queue_id}, '{email}', {now}, '{data}', '{expected}', FALSE,
        '["category"]' FROM tasks WHERE queue_id = {queue_id} AND status = 'gold' ORDER BY id LIMIT {answered}""",
    ]


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
            await conn.execute("ANALYZE")
        finally:
            await conn.close()

    asyncio.run(run())


def _cycle(client: httpx.Client, qpath: str, n: int, ids: set[int] | None = None) -> tuple[list[float], int]:
    took = []
    ids = set() if ids is None else ids
    for _ in range(n):
        started = time.perf_counter()
        claimed = client.post(f"{qpath}/tasks/next")
        assert claimed.status_code == 200, claimed.text
        task_id = claimed.json()["id"]
        client.post(f"{qpath}/tasks/{task_id}/release").raise_for_status()
        took.append(time.perf_counter() - started)
        ids.add(task_id)
    return took, len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pending", type=int, default=1_000_000)
    parser.add_argument("--gold", type=int, default=1000)
    parser.add_argument("--unanswered", type=int, default=10)
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
            made = {}
            now = int(time.time() * 1_000_000)
            statements: list[str] = []
            for name, percent in (("plain", 0), ("gold", 50)):
                body = {"name": name, "data": CORE_BLOCKS, "gold_percent": percent}
                queue = admin.post(f"/orgs/{org}/queues", json=body)
                queue.raise_for_status()
                made[name] = queue.json()["id"]
                statements += _fill(made[name], args.pending, now)
            statements += _gold(made["gold"], args.gold, args.gold - args.unanswered, users[me], me, now)
            started = time.perf_counter()
            _sql(server.db_url, statements)
            fill_seconds = time.perf_counter() - started
            rounds = []
            served = {}
            ids: set[int] = set()
            for _round in range(args.rounds):
                # One cycle on each queue in turn: the machine's drift touches both alike.
                plain, gold = [], []
                for _cycle_n in range(args.cycles):
                    plain += _cycle(worker, f"/orgs/{org}/queues/{made['plain']}", 1)[0]
                    took, _n = _cycle(worker, f"/orgs/{org}/queues/{made['gold']}", 1, ids)
                    gold += took
                served["distinct_tasks_in_gold_queue"] = len(ids)
                rounds.append(
                    {"plain_ms": statistics.median(plain) * 1000, "gold_ms": statistics.median(gold) * 1000}
                )
            answers = admin.get(f"/orgs/{org}/queues/{made['gold']}/gold/answers", params={"limit": 1}).json()
    finally:
        server.stop()
        drop_databases()
    result = {
        "backend": args.backend,
        "pending_per_queue": args.pending,
        "gold_tasks": args.gold,
        "gold_answered_by_the_worker": answers["count"],
        "fill_seconds": round(fill_seconds, 1),
        "cycles_per_round": args.cycles,
        "rounds": rounds,
        "plain_claim_release_median_ms": round(statistics.median(r["plain_ms"] for r in rounds), 3),
        "gold_claim_release_median_ms": round(statistics.median(r["gold_ms"] for r in rounds), 3),
        "ratio_per_round": [round(r["gold_ms"] / r["plain_ms"], 2) for r in rounds],
        **served,
    }
    for key, value in result.items():
        print(f"{key:36} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
