"""B15 stats on a big queue: 1,000,000 completed tasks, 10,000 of them in the default 8-hour window
across 20 workers. Times `GET .../stats` (the default period) over HTTP against `queuedesk serve` on
SQLite, beside `GET .../queues/{queue}` (one small read) in the same run as the reference.

    .venv/bin/python bench/stats_query.py [--total 1000000] [--window 10000] [--rounds 40]
"""

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.completions import rollups_after  # noqa: E402
from bench.request_timing import latencies, median_and_p95, seeded_queues  # noqa: E402
from tests.support import ServerProcess  # noqa: E402

HOUR = 3_600_000_000  # microseconds
WORKERS = 20


def fill(db_path: Path, queue_id: int, total: int, window: int) -> None:
    """`total - window` completions over the 30 days before the window, `window` inside its 8 hours."""
    now = int(time.time() * 1_000_000)
    rng = random.Random(7)
    emails = [f"worker{n}@acme.test" for n in range(WORKERS)]

    def rows():
        for n in range(total):
            inside = n >= total - window
            at = (
                now - rng.randrange(1, 8 * HOUR - 60_000_000)
                if inside
                else now - rng.randrange(9 * HOUR, 720 * HOUR)
            )
            work = rng.randrange(5_000_000, 300_000_000)
            yield (queue_id, '{"paragraph":"p"}', at - work - 1000, at, rng.choice(emails), at - work, work)

    with rollups_after(db_path), sqlite3.connect(db_path) as conn:
        conn.executemany(
            "INSERT INTO tasks (queue_id, status, data, source, created_at, completed_at, completed_by, "
            "assigned_at, work_micros) VALUES (?, 'completed', ?, 'bench', ?, ?, ?, ?, ?)",
            rows(),
        )
        conn.execute("UPDATE queues SET completed_count = ? WHERE id = ?", (total, queue_id))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--window", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "stats.db"
        org, (queue,) = seeded_queues(db_path, ["Big"])
        started = time.perf_counter()
        fill(db_path, queue["id"], args.total, args.window)
        print(f"filled {args.total:,} completions in {time.perf_counter() - started:.1f} s", flush=True)
        server = ServerProcess(db_path, [*UNLIMITED]).start()
        try:
            with server.client("admin") as admin:
                qpath = f"/orgs/{org}/queues/{queue['id']}"
                stats = admin.get(f"{qpath}/stats").json()
                assert sum(stats["completed"]) == args.window, sum(stats["completed"])
                assert len(stats["by_worker"]) == WORKERS
                figures = {
                    "stats (8 h, 15 min buckets)": median_and_p95(
                        latencies(admin, f"{qpath}/stats", args.rounds)
                    ),
                    "stats (7 d, 6 h buckets)": median_and_p95(
                        latencies(
                            admin,
                            f"{qpath}/stats?bucket_minutes=360&since="
                            + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 7 * 86400)),
                            args.rounds,
                        )
                    ),
                    "reference: queue detail (A4)": median_and_p95(latencies(admin, qpath, args.rounds)),
                }
        finally:
            server.stop()
    for name, figure in figures.items():
        print(f"{name:32} median {figure['median_ms']:7.2f} ms   p95 {figure['p95_ms']:7.2f} ms")
    if args.json:
        args.json.write_text(json.dumps({"total": args.total, "window": args.window, **figures}, indent=2))


if __name__ == "__main__":
    main()
