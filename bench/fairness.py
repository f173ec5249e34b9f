"""Whether one organization's long work holds up another's: `GET /orgs/{globex}/queues` timed one
request at a time on an unloaded server, then while Acme's admin keeps doing one long thing:

- `stats`: B15 stats over 7 days in hourly buckets on a queue with `--total` completions in them;
- `import`: reading the progress of an import session of `--total` staged rows whose first row is
  missing (the case that used to recount every row);
- `commit`: committing import sessions of `--total` rows (a long write), one after another;
- `light`: reading its queue (one short row) again and again, the reference for `import`: what any
  other client's requests sent back to back cost on the one event loop (and on this machine's cores,
  which Acme's client shares).

    .venv/bin/python bench/fairness.py [--mode stats|import|commit|light] [--total 1000000] [--rounds 300]
        [--other read|write] [--src DIR] [--backend sqlite|postgresql]

`--src DIR` runs another checkout's code (e.g. /work/main/src, to compare). `--other write` times
the other organization creating tasks instead of listing its queues (import and commit modes).

Globex's requests are timed by wrk (one connection, one request at a time, for `--seconds`), whose
own cost is next to nothing; `--measure python` times `--rounds` requests from this process with
httpx as before (its own work, about 1 ms of Python a request, then weighs on the p99 on a small
machine). Acme's requests come from a process of their own, as they would from another machine;
`--load-in-thread` sends them from a thread of this process, as before (the timed requests then
also wait for this process's interpreter lock).
"""

import argparse
import asyncio
import itertools
import json
import multiprocessing
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.completions import rollups_after  # noqa: E402
from bench.request_timing import seeded_queues  # noqa: E402
from queuedesk.server.store import rollups  # noqa: E402
from queuedesk.server.store.database import normalize_url  # noqa: E402
from tests.support import KEYS, ServerProcess  # noqa: E402
from tests.support.postgres import drop_databases  # noqa: E402
from tests.support.sql import execute_sql, query_value  # noqa: E402

HOUR = 3_600_000_000  # microseconds
LUA = ROOT / "bench" / "lua"
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


def fill_postgres(db_url: str, queue_id: int, total: int) -> None:
    """As `fill`, in a PostgreSQL database: the rows made by the database (its random numbers seeded),
    the rollups' triggers off meanwhile and the rollups rebuilt after, as `rollups_after` does."""
    now = int(time.time() * 1_000_000)
    emails = " || ".join(["'worker'", f"(n % {WORKERS})::text", "'@acme.test'"])
    insert = f"""
        INSERT INTO tasks (queue_id, status, data, source, created_at, completed_at, completed_by,
            assigned_at, work_micros)
        SELECT {queue_id}, 'completed', '{{"paragraph":"p"}}', 'bench', at - work - 1000, at, {emails},
            at - work, work
        FROM (SELECT n, {now} - (60000000 + floor(random() * {166 * HOUR - 60_000_000}))::bigint AS at,
                     (5000000 + floor(random() * 295000000))::bigint AS work
              FROM generate_series(1, {total}) AS n) AS made"""

    async def run() -> None:
        engine = create_async_engine(normalize_url(db_url))
        try:
            async with engine.begin() as conn:
                await conn.run_sync(rollups.drop_triggers)
                await conn.execute(text("SELECT setseed(0.7)"))
                await conn.execute(text(insert))
                await conn.execute(text(f"UPDATE queues SET completed_count = {total} WHERE id = {queue_id}"))
                await conn.run_sync(rollups.rebuild)
                await conn.run_sync(rollups.install)
        finally:
            await engine.dispose()

    asyncio.run(run())


def timings(client: httpx.Client, path: str, rounds: int, body: dict | None = None) -> list[float]:
    """Milliseconds of each `GET path` (or `POST path` with `body`), one at a time, sorted."""
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        (client.get(path) if body is None else client.post(path, json=body)).raise_for_status()
        took.append((time.perf_counter() - started) * 1000)
    return sorted(took)


class Timed(NamedTuple):
    p50: float  # milliseconds
    p99: float
    slowest: float
    requests: int

    def __str__(self) -> str:
        return (
            f"p50 {self.p50:8.2f} ms   p99 {self.p99:8.2f} ms   slowest {self.slowest:8.1f} ms"
            f"   ({self.requests:,} requests)"
        )


def of(took: list[float]) -> Timed:
    """The figures of requests timed one by one (milliseconds, sorted)."""
    p99 = took[min(len(took) - 1, int(len(took) * 0.99))]
    return Timed(took[len(took) // 2], p99, took[-1], len(took))


def _wrk_ms(figure: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", figure).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk_timed(url: str, key: str, seconds: float, body: dict | None) -> Timed:
    """wrk on one connection for `seconds`: `GET url`, or `POST url` with `body`."""
    script = "get.lua" if body is None else "post.lua"
    env = {**os.environ, "QD_KEY": key, "QD_BODY": json.dumps(body or {})}
    command = ["wrk", "-t1", "-c1", f"-d{seconds:g}s", "--latency", "-s", str(LUA / script), url]
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"wrk saw failed requests on {url}:\n{out}")
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE))
    slowest = re.search(r"^\s+Latency\s+\S+\s+\S+\s+(\S+)", out, re.MULTILINE)
    count = re.search(r"(\d+) requests in", out)
    assert slowest and count, out
    return Timed(
        _wrk_ms(latency["50"]), _wrk_ms(latency["99"]), _wrk_ms(slowest.group(1)), int(count.group(1))
    )


def other_timed(
    args: argparse.Namespace, client: httpx.Client, path: str, body: dict | None = None
) -> Callable[[], Timed]:
    """How Globex's requests are timed: by wrk, or from this process (`--measure python`)."""
    if args.measure == "wrk":
        url = f"{client.base_url}".rstrip("/") + path
        return lambda: wrk_timed(url, KEYS["other_admin"], args.seconds, body)
    return lambda: of(timings(client, path, args.rounds, body))


def verdict(pairs: list[tuple[Timed, Timed]]) -> None:
    """The median p99 unloaded and loaded over the pairs, their ratio, and each pair's."""
    quiet = sorted(q.p99 for q, _ in pairs)[len(pairs) // 2]
    loaded = sorted(lo.p99 for _, lo in pairs)[len(pairs) // 2]
    each = ", ".join(f"{lo.p99 / q.p99:.2f}" for q, lo in pairs)
    print(
        f"p99 unloaded {quiet:.2f} ms, loaded {loaded:.2f} ms (medians): loaded / unloaded {loaded / quiet:.2f}"
    )
    print(f"each pair: {each}")


def keep_doing(
    base_url: str, key: str, mode: str, paths: list[str], started: Any, stop: Any, out: Any
) -> None:
    """Acme's long work, one request after another until `stop` (or, committing, the last
    session): stats or an import's progress read again and again, or each session committed.
    Sends the milliseconds each request took to `out`."""
    client = httpx.Client(base_url=base_url, headers={"Authorization": f"Token {key}"}, timeout=300)
    took: list[float] = []
    started.set()
    for path in paths if mode == "commit" else itertools.repeat(paths[0]):
        if stop.is_set():
            break
        begun = time.perf_counter()
        if mode == "commit":
            client.post(f"{path}/commit").raise_for_status()
        elif mode == "import":
            progress = client.get(path).json()
            assert progress["next_offset"] == 0, progress
        else:
            client.get(path).raise_for_status()
        took.append((time.perf_counter() - begun) * 1000)
    out.put(took)


def timed_beside_load(
    args: argparse.Namespace, server_url: str, mode: str, paths: list[str], measure: Callable[[], Timed]
) -> tuple[Timed, list[float]]:
    """`measure()` while Acme's admin keeps doing `mode` on `paths`: (what it timed, Acme's times)."""
    if args.load_in_thread:
        import queue as queues

        started_, stop_, out_ = threading.Event(), threading.Event(), queues.Queue()
        runner: Any = threading.Thread(
            target=keep_doing, args=(server_url, KEYS["admin"], mode, paths, started_, stop_, out_)
        )
    else:
        context = multiprocessing.get_context("spawn")
        started_, stop_, out_ = context.Event(), context.Event(), context.Queue()
        runner = context.Process(
            target=keep_doing, args=(server_url, KEYS["admin"], mode, paths, started_, stop_, out_)
        )
    runner.start()
    started_.wait(60)
    time.sleep(0.2)  # its first request under way
    loaded = measure()
    stop_.set()
    done = sorted(out_.get(timeout=600))
    runner.join()
    return loaded, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1000, help="requests timed with --measure python")
    parser.add_argument("--seconds", type=float, default=6, help="how long wrk times (--measure wrk)")
    parser.add_argument(
        "--measure",
        choices=("wrk", "python"),
        default="wrk" if shutil.which("wrk") else "python",
        help="what times Globex's requests (default: wrk when installed)",
    )
    parser.add_argument("--pairs", type=int, default=3, help="unloaded and loaded timings, in turn")
    parser.add_argument(
        "--sessions",
        type=int,
        default=4,
        help="import sessions committed while timed, per pair (commit mode)",
    )
    parser.add_argument("--src", help="run this src/ directory's queuedesk instead (e.g. main's)")
    parser.add_argument(
        "--load-in-thread",
        action="store_true",
        help="Acme's requests from a thread of this process (the bench before 2026-11-28's session 14)",
    )
    parser.add_argument("--mode", choices=("stats", "import", "commit", "light"), default="stats")
    parser.add_argument(
        "--other",
        choices=("read", "write"),
        default="read",
        help="what the other organization times (import and commit): listing its queues, or creating a task",
    )
    parser.add_argument(
        "--backend",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="the server's database (postgresql: the tests' local server, a database of its own)",
    )
    args = parser.parse_args()
    if args.src:
        os.environ["PYTHONPATH"] = f"{args.src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    if args.mode != "stats":
        imports_beside_reads(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "fair.db"
        org, (queue,) = seeded_queues(db_path, ["Big"], args.backend)
        server = ServerProcess(db_path, [*UNLIMITED], backend=args.backend)
        if args.backend == "postgresql":
            fill_postgres(server.db_url, queue["id"], args.total)
        else:
            fill(db_path, queue["id"], args.total)
        server.start()
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
            measure = other_timed(args, globex, other)
            stats_took = timings(acme, stats, 5)
            print(f"Globex's reads timed by {args.measure}, {args.pairs} pairs (unloaded, then loaded)")
            print(f"stats, 7 days in hours, alone:       {of(stats_took)}")
            pairs = []
            for _ in range(args.pairs):
                quiet = measure()
                print(f"other organization, unloaded:        {quiet}")
                loaded, asked = timed_beside_load(args, server.url, "stats", [stats], measure)
                print(f"other organization, stats running:   {loaded}")
                print(f"stats while measured:                {of(asked)}")
                pairs.append((quiet, loaded))
            verdict(pairs)
        finally:
            server.stop()
            drop_databases()


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


def stage_rows_in_postgres(db_url: str, queue_id: int, key: str, total: int, first: int) -> None:
    """As `stage_rows`, in a PostgreSQL database, its rows made by the database itself."""
    now = int(time.time() * 1_000_000)
    session = query_value(
        db_url,
        "INSERT INTO import_sessions (queue_id, key, source, total, status, created_at, expires_at, "
        f"staged_rows, first_missing) VALUES ({queue_id}, '{key}', 'bench.csv', {total}, 'staged', "
        f"{now}, {now + 86_400_000_000}, {total - first}, 0) RETURNING id",
    )
    execute_sql(
        db_url,
        "INSERT INTO import_rows (session_id, position, data) SELECT "
        f'{session}, n, \'{{"paragraph":"p","category":null,"photo":null}}\' '
        f"FROM generate_series({first}, {total - 1}) AS n",
    )


def imports_beside_reads(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "fair.db"
        org, (queue,) = seeded_queues(db_path, ["Big"], args.backend)
        server = ServerProcess(db_path, [*UNLIMITED], backend=args.backend).start()  # the current schema
        server.stop()
        sessions = args.sessions * args.pairs if args.mode == "commit" else 1
        for n in range(sessions):
            first = 1 if args.mode == "import" else 0
            if args.backend == "postgresql":
                stage_rows_in_postgres(server.db_url, queue["id"], f"bench-{n}", args.total, first)
            else:
                stage_rows(db_path, queue["id"], f"bench-{n}", args.total, first)
        server = ServerProcess(db_path, [*UNLIMITED], backend=args.backend).start()
        try:
            globex = httpx.Client(
                base_url=server.url, headers={"Authorization": f"Token {KEYS['other_admin']}"}, timeout=300
            )
            other = f"/orgs/{globex.get('/me').json()['organization_id']}/queues"
            body = None
            if args.other == "write":  # a task in the other organization's first queue
                other = f"{other}/{globex.get(other).json()[0]['id']}/tasks/create"
                body = {"data": {"note": "n"}}
            qpath = f"/orgs/{org}/queues/{queue['id']}"
            paths = [qpath] if args.mode == "light" else [f"{qpath}/imports/{n + 1}" for n in range(sessions)]
            timings(globex, other, 20, body)
            measure = other_timed(args, globex, other, body)
            print(
                f"Globex's {args.other}s timed by {args.measure}, {args.pairs} pairs (unloaded, then loaded)"
            )
            pairs = []
            for pair in range(args.pairs):
                quiet = measure()
                print(f"other organization, unloaded:        {quiet}")
                started = time.perf_counter()
                mine = (
                    paths[pair * args.sessions : (pair + 1) * args.sessions]
                    if args.mode == "commit"
                    else paths
                )
                loaded, done = timed_beside_load(args, server.url, args.mode, mine, measure)
                measured = time.perf_counter() - started
                what = f"{args.mode} of {args.total:,} rows"
                print(f"other organization, {what} running: {loaded}")
                print(f"{what}: {of(done)}, {sum(done) / 1000:.1f} s of the {measured:.1f} s measured")
                pairs.append((quiet, loaded))
            verdict(pairs)
        finally:
            server.stop()
            drop_databases()


if __name__ == "__main__":
    main()
