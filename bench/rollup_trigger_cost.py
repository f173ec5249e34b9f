"""What the stats rollups' triggers cost a completion inside SQLite: the completing UPDATE and its
commit, timed one transaction at a time on a queue that already holds `--total` completions, with
the triggers and (the reference, in the same run, turn about) with them set aside.

    .venv/bin/python bench/rollup_trigger_cost.py [--total 1000000] [--rounds 4] [--per-round 250]
"""

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fairness import fill  # noqa: E402
from bench.request_timing import seeded_queues  # noqa: E402

COMPLETE = (
    "UPDATE tasks SET status = 'completed', data = '{}', completed_at = ?, completed_by = ?, "
    "lease_expires_at = NULL, work_micros = ? - assigned_at WHERE id = ?"
)


def claimed(conn: sqlite3.Connection, queue_id: int, count: int) -> list[int]:
    now = int(time.time() * 1_000_000)
    conn.execute("BEGIN")
    ids = [
        conn.execute(
            "INSERT INTO tasks (queue_id, status, data, source, created_at, assigned_at) "
            "VALUES (?, 'in_progress', '{}', 'bench', ?, ?) RETURNING id",
            (queue_id, now, now - 5_000_000),
        ).fetchone()[0]
        for _ in range(count)
    ]
    conn.execute("COMMIT")
    return ids


def complete(conn: sqlite3.Connection, ids: list[int]) -> list[float]:
    took = []
    for task_id in ids:
        now = int(time.time() * 1_000_000)
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(COMPLETE, (now, f"worker{task_id % 20}@acme.test", now, task_id))
        conn.execute("COMMIT")
        took.append((time.perf_counter() - started) * 1_000_000)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--per-round", type=int, default=250)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "cost.db"
        _org, (queue,) = seeded_queues(db_path, ["Big"])
        fill(db_path, queue["id"], args.total)
        conn = sqlite3.connect(db_path, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        triggers = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'qd_rollup%'"
        ).fetchall()
        times: dict[str, list[float]] = {"with the triggers": [], "without (reference)": []}
        for _ in range(args.rounds):
            for name in times:
                if name.startswith("without"):
                    for trigger, _sql in triggers:
                        conn.execute(f"DROP TRIGGER {trigger}")
                times[name] += complete(conn, claimed(conn, queue["id"], args.per_round))
                if name.startswith("without"):
                    for _trigger, sql in triggers:
                        conn.execute(sql)
        conn.close()
    print(f"{args.total:,} completions in the queue; {args.rounds * args.per_round} completions each")
    for name, took in times.items():
        ordered = sorted(took)
        print(
            f"{name:22} median {statistics.median(ordered):7.0f} us   p95 {ordered[int(len(ordered) * 0.95)]:7.0f} us"
        )


if __name__ == "__main__":
    main()
