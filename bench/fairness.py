"""Whether one organization's long work holds up another's: `GET /orgs/{globex}/queues` timed one
request at a time on an unloaded server, then while Acme's admin keeps doing one long thing:

- `stats`: B15 stats over 7 days in hourly buckets on a queue with `--total` completions in them;
- `import`: reading the progress of an import session of `--total` staged rows whose first row is
  missing (the case that used to recount every row);
- `commit`: committing import sessions of `--total` rows (a long write), one after another.

    .venv/bin/python bench/fairness.py [--mode stats|import|commit] [--total 1000000] [--rounds 300]
        [--other read|write] [--src DIR]

`--src DIR` runs another checkout's code (e.g. /work/main/src, to compare). `--other write` times
the other organization creating tasks instead of listing its queues (import and commit modes).
"""

import argparse
import os
import random
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.completions import rollups_after  # noqa: E402
from bench.request_timing import seeded_queues  # noqa: E402
from tests.support import KEYS, ServerProcess  # noqa: E402

HOUR = 3_600_000_000  # microseconds
WORKERS = 20


def fill(db_path: Path, queue_id: int, total: int) -> None:
    """`total` completions spread over the last 166 hours, each with a working time of 5 s to 5 min."""
    now = int(time.time() * 1_000_000)
    rng = random.Random(7)
    emails = [f"worker{n}@acme.test" for n in range(WORKERS)]

    def rows():
        for _ in range(total):
            at = now - rng.randrange(60_000_000, 166 * HOUR)
            work = rng.randrange(5_000_000, 300_000_000)
            yield (queue_id, '{"paragraph":"p"}', at - work - 1000, at, rng.choice(emails), at - work, work)

    with rollups_after(db_path), sqlite3.connect(db_path) as conn:
        conn.executemany(
            "INSERT INTO tasks (queue_id, status, data, source, created_at, completed_at, completed_by, "
            "assigned_at, work_micros) VALUES (?, 'completed', ?, 'bench', ?, ?, ?, ?, ?)",
            rows(),
        )
        conn.execute("UPDATE queues SET completed_count = ? WHERE id = ?", (total, queue_id))


def timings(client: httpx.Client, path: str, rounds: int, body: dict | None = None) -> list[float]:
    """Milliseconds of each `GET path` (or `POST path` with `body`), one at a time, sorted."""
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        (client.get(path) if body is None else client.post(path, json=body)).raise_for_status()
        took.append((time.perf_counter() - started) * 1000)
    return sorted(took)


def summary(took: list[float]) -> str:
    p99 = took[min(len(took) - 1, int(len(took) * 0.99))]
    return f"p50 {took[len(took) // 2]:8.1f} ms   p99 {p99:8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--src", help="run this src/ directory's queuedesk instead (e.g. main's)")
    parser.add_argument("--mode", choices=("stats", "import", "commit"), default="stats")
    parser.add_argument(
        "--other",
        choices=("read", "write"),
        default="read",
        help="what the other organization times (import and commit): listing its queues, or creating a task",
    )
    args = parser.parse_args()
    if args.src:
        os.environ["PYTHONPATH"] = f"{args.src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    if args.mode != "stats":
        imports_beside_reads(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "fair.db"
        org, (queue,) = seeded_queues(db_path, ["Big"])
        fill(db_path, queue["id"], args.total)
        server = ServerProcess(db_path, [*UNLIMITED]).start()
        try:
            globex = httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['other_admin']}"}
            )
            acme = httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=120
            )
            other = f"/orgs/{globex.get('/me').json()['organization_id']}/queues"
            since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 7 * 86400 + 60))
            stats = f"/orgs/{org}/queues/{queue['id']}/stats?bucket_minutes=60&since={since}"
            assert sum(acme.get(stats).json()["completed"]) == args.total
            timings(globex, other, 20)  # warm up
            quiet = timings(globex, other, args.rounds)
            stats_took = timings(acme, stats, 5)
            print(f"stats, 7 days in hours, alone:       {summary(stats_took)}")
            print(f"other organization, unloaded:        {summary(quiet)}")
            stop = threading.Event()
            asked: list[float] = []

            def keep_asking() -> None:
                while not stop.is_set():
                    started = time.perf_counter()
                    acme.get(stats).raise_for_status()
                    asked.append((time.perf_counter() - started) * 1000)

            asker = threading.Thread(target=keep_asking)
            asker.start()
            loaded = timings(globex, other, args.rounds)
            stop.set()
            asker.join()
            print(f"other organization, stats running:   {summary(loaded)}")
            print(f"stats while measured:                {summary(sorted(asked))} ({len(asked)} requests)")
            ratio = loaded[int(len(loaded) * 0.99)] / quiet[int(len(quiet) * 0.99)]
            print(f"p99 loaded / unloaded: {ratio:.2f}")
        finally:
            server.stop()


def stage_rows(db_path: Path, queue_id: int, key: str, total: int, first: int) -> None:
    """An import session with rows `first` to `total - 1` staged, written into the file directly."""
    now = int(time.time() * 1_000_000)
    with sqlite3.connect(db_path) as conn:
        session = conn.execute(
            "INSERT INTO import_sessions (queue_id, key, source, total, status, created_at, expires_at, "
            "staged_rows, first_missing) VALUES (?, ?, 'bench.csv', ?, 'staged', ?, ?, ?, ?)",
            (queue_id, key, total, now, now + 86_400_000_000, total - first, 0),
        ).lastrowid
        data = '{"paragraph":"p","category":null,"photo":null}'
        conn.executemany(
            "INSERT INTO import_rows (session_id, position, data) VALUES (?, ?, ?)",
            ((session, n, data) for n in range(first, total)),
        )


def imports_beside_reads(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "fair.db"
        org, (queue,) = seeded_queues(db_path, ["Big"])
        server = ServerProcess(db_path, [*UNLIMITED]).start()  # brought to the current schema
        server.stop()
        sessions = 3 if args.mode == "commit" else 1
        for n in range(sessions):
            stage_rows(db_path, queue["id"], f"bench-{n}", args.total, 1 if args.mode == "import" else 0)
        server = ServerProcess(db_path, [*UNLIMITED]).start()
        try:
            globex = httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['other_admin']}"}, timeout=300
            )
            acme = httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=300
            )
            other = f"/orgs/{globex.get('/me').json()['organization_id']}/queues"
            body = None
            if args.other == "write":  # a task in the other organization's first queue
                other = f"{other}/{globex.get(other).json()[0]['id']}/tasks/create"
                body = {"data": {"note": "n"}}
            qpath = f"/orgs/{org}/queues/{queue['id']}"
            paths = [f"{qpath}/imports/{n + 1}" for n in range(sessions)]
            timings(globex, other, 20, body)
            quiet = timings(globex, other, args.rounds, body)
            print(f"other organization, unloaded:        {summary(quiet)}")
            done: list[float] = []
            stop = threading.Event()

            def keep_working() -> None:
                for path in paths if args.mode == "commit" else iter(lambda: paths[0], None):
                    if stop.is_set():
                        return
                    started = time.perf_counter()
                    if args.mode == "commit":
                        acme.post(f"{path}/commit").raise_for_status()
                    else:
                        progress = acme.get(path).json()
                        assert progress["next_offset"] == 0, progress
                    done.append((time.perf_counter() - started) * 1000)

            worker = threading.Thread(target=keep_working)
            worker.start()
            loaded = timings(globex, other, args.rounds, body)
            stop.set()
            worker.join()
            what = f"{args.mode} of {args.total:,} rows"
            print(f"other organization's {args.other}s; slowest while running: {loaded[-1]:.1f} ms")
            print(f"other organization, {what} running: {summary(loaded)}")
            print(f"{what}: {summary(sorted(done))} ({len(done)} requests)")
            ratio = loaded[int(len(loaded) * 0.99)] / quiet[int(len(quiet) * 0.99)]
            print(f"p99 loaded / unloaded: {ratio:.2f}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
