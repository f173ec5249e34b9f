"""`queuedesk prune` of 100,000 old deliveries beside a running server on SQLite: how fast it removes
them, and what it does to the server's latency meanwhile.

A fresh database gets `--deliveries` finished deliveries 60 days old (each with `--attempts` attempts)
and a thousand recent ones, written straight into the file. A client then times `GET` of the queue
(key check, one indexed read), one request after another; with `--writer` a second client creates
tasks meanwhile (a write transaction, which on SQLite must wait for a prune batch to end). First for
`--baseline` seconds without a prune, then for as long as the prune runs.

    .venv/bin/python bench/prune.py [--deliveries 100000] [--attempts 2] [--batch-size 1000] [--writer] [--json FILE]
"""

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import ROLES_SEED, ServerProcess, queuedesk_command  # noqa: E402

DAY = 86_400 * 1_000_000


def fill(db_path: Path, queue_id: int, deliveries: int, attempts: int) -> None:
    now = int(time.time() * 1_000_000)
    with sqlite3.connect(db_path, timeout=30) as conn:
        for prefix, count, created in (("old", deliveries, now - 60 * DAY), ("recent", 1000, now - DAY)):
            conn.executemany(
                "INSERT INTO deliveries (queue_id, task_id, event_id, target, payload, status, attempts, "
                "retry_step, created_at, delivered_at) VALUES (?, 0, ?, 'http://127.0.0.1:9/hook', ?, "
                "'delivered', ?, 0, ?, ?)",
                (
                    (
                        queue_id,
                        f"{prefix}-{i}",
                        '{"id": 1, "data": {"paragraph": "p"}}',
                        attempts,
                        created,
                        created,
                    )
                    for i in range(count)
                ),
            )
            for attempt in range(attempts):
                conn.execute(
                    "INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms) "
                    "SELECT id, created_at + ?, 200, 3 FROM deliveries WHERE event_id LIKE ?",
                    (attempt, f"{prefix}-%"),
                )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * share))], 2) if ordered else 0.0


class Clients:
    """A reader (and a writer), each timing one request after another until told to stop."""

    def __init__(self, server: ServerProcess, qpath: str, *, writer: bool) -> None:
        self.server = server
        self.qpath = qpath
        self.took: dict[str, list[float]] = {"get": [], "create": []} if writer else {"get": []}
        self.errors = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def _loop(self, kind: str) -> None:
        with self.server.client("admin") as client:
            while not self._stop.is_set():
                started = time.perf_counter()
                if kind == "get":
                    response = client.get(self.qpath)
                else:
                    response = client.post(f"{self.qpath}/tasks/create", json={"data": {"paragraph": "p"}})
                self.took[kind].append((time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    self.errors += 1

    def start(self) -> "Clients":
        self._threads = [threading.Thread(target=self._loop, args=(kind,)) for kind in self.took]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> dict[str, float]:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        figures: dict[str, float] = {"errors": self.errors}
        for kind, took in self.took.items():
            figures[f"{kind}_requests"] = len(took)
            figures[f"{kind}_p50_ms"] = percentile(took, 0.50)
            figures[f"{kind}_p99_ms"] = percentile(took, 0.99)
            figures[f"{kind}_max_ms"] = percentile(took, 1.0)
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deliveries", type=int, default=100_000)
    parser.add_argument("--attempts", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--baseline", type=float, default=10.0, help="seconds measured without a prune")
    parser.add_argument("--writer", action="store_true", help="a second client creates tasks meanwhile")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "prune.db"
        server = ServerProcess(db_path, seed=ROLES_SEED).start()
        try:
            qpath = "/orgs/1/queues/1"
            started = time.perf_counter()
            fill(db_path, 1, args.deliveries, args.attempts)
            print(
                f"filled {args.deliveries:,} old deliveries in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )

            clients = Clients(server, qpath, writer=args.writer).start()
            time.sleep(args.baseline)
            baseline = clients.stop()

            clients = Clients(server, qpath, writer=args.writer).start()
            began = time.perf_counter()
            done = subprocess.run(
                [
                    *queuedesk_command(),
                    "prune",
                    "--db",
                    server.db_url,
                    "--deliveries-older-than",
                    "30d",
                    "--batch-size",
                    str(args.batch_size),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            wall = time.perf_counter() - began
            during = clients.stop()
            with sqlite3.connect(db_path) as conn:
                left = conn.execute("SELECT count(*) FROM deliveries").fetchone()[0]
        finally:
            server.stop()

    removed = re.search(
        r"removed ([\d,]+) deliveries and ([\d,]+) attempts in ([\d,]+) batches, ([\d.]+) s", done.stdout
    )
    held = re.search(r"held the database (\d+) ms on average, (\d+) ms at most", done.stdout)
    counted = re.search(r"counted in ([\d.]+) s", done.stderr)
    assert held is not None and counted is not None, done.stdout + done.stderr
    assert removed is not None, done.stdout + done.stderr
    rows, attempts, batches, seconds = (float(g.replace(",", "")) for g in removed.groups())
    result = {
        "deliveries": args.deliveries,
        "writer": args.writer,
        "attempts_each": args.attempts,
        "batch_size": args.batch_size,
        "removed": int(rows),
        "attempts_removed": int(attempts),
        "batches": int(batches),
        "delete_phase_s": seconds,
        "deliveries_per_s": round(rows / seconds),
        "rows_per_s_with_attempts": round((rows + attempts) / seconds),
        "prune_command_wall_s": round(wall, 2),
        "count_phase_s": float(counted.group(1)),
        "batch_write_mean_ms": int(held.group(1)),
        "batch_write_max_ms": int(held.group(2)),
        "left": left,
        "baseline": baseline,
        "during_prune": during,
    }
    print(json.dumps(result, indent=2))
    print(
        f"\n{int(rows):,} deliveries (+{int(attempts):,} attempts) in {seconds:.1f} s: "
        f"{rows / seconds:,.0f} deliveries/s; command {wall:.1f} s in all\n"
        f"GET    p50 {baseline['get_p50_ms']} -> {during['get_p50_ms']} ms, "
        f"p99 {baseline['get_p99_ms']} -> {during['get_p99_ms']} ms; a batch held the database "
        f"{held.group(1)} ms on average, {held.group(2)} ms at most",
        file=sys.stderr,
    )
    if args.writer:
        print(
            f"create p50 {baseline['create_p50_ms']} -> {during['create_p50_ms']} ms, "
            f"p99 {baseline['create_p99_ms']} -> {during['create_p99_ms']} ms",
            file=sys.stderr,
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
