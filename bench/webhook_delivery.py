"""Webhook delivery under load: N completions across Q queues, each queue with its own receiver.

Checks that every event arrives exactly once (all receivers answer 2xx) and prints the
completion-to-arrival latency (server `completed_at` to the receiver's clock, same machine).

    .venv/bin/python bench/webhook_delivery.py [--completions 1000] [--queues 10] [--workers 16]
"""

import argparse
import concurrent.futures
import json
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.receiver import Receiver
from tests.support import CORE_BLOCKS, ROLES_SEED, ServerProcess, run_cli


def run(completions: int, queue_count: int, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "bench.db", ["--allow-private-webhooks"], seed=ROLES_SEED).start()
        receivers = [Receiver().start() for _ in range(queue_count)]
        try:
            return _measure(server, receivers, completions, workers)
        finally:
            server.stop()
            for receiver in receivers:
                receiver.stop()


def _measure(
    server: ServerProcess, receivers: list[Receiver], completions: int, workers: int
) -> dict[str, float]:
    admin = server.client("admin")
    paths = []
    for i, receiver in enumerate(receivers):
        queue = admin.post("/orgs/1/queues", json={"name": f"bench {i}", "data": CORE_BLOCKS}).json()
        path = f"/orgs/1/queues/{queue['id']}"
        admin.put(f"{path}/webhook", json={"target": receiver.url}).raise_for_status()
        per_queue = completions // len(receivers) + (1 if i < completions % len(receivers) else 0)
        tasks = [{"data": {"paragraph": f"{i}-{n}"}} for n in range(per_queue)]
        admin.post(f"{path}/tasks/import", json={"source": "manual", "tasks": tasks}).raise_for_status()
        paths.append(path)
    keys = []
    for n in range(workers):
        made = run_cli(
            ["keys", "create", "--db", server.db_url, "--email", f"w{n}@acme.test", "--org", "Acme"]
        )
        keys.append(made.stdout.strip())
    completed_at: dict[int, datetime] = {}
    lock = threading.Lock()

    def work(n: int) -> None:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {keys[n]}"}) as client:
            for path in paths[n % len(paths) :] + paths[: n % len(paths)]:
                while (claim := client.post(f"{path}/tasks/next")).status_code == 200:
                    task_id = claim.json()["id"]
                    done = client.post(f"{path}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
                    done.raise_for_status()
                    with lock:
                        completed_at[task_id] = datetime.fromisoformat(done.json()["completed_at"])

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(work, range(workers)))
    elapsed = time.monotonic() - started
    deadline = time.monotonic() + 60
    while sum(len(r.received) for r in receivers) < completions and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1)  # anything more would be a duplicate
    arrivals = [(json.loads(item.body)["id"], item) for r in receivers for item in r.received]
    ids = [task_id for task_id, _ in arrivals]
    assert len(completed_at) == completions, f"{len(completed_at)} completed, expected {completions}"
    assert sorted(ids) == sorted(completed_at), f"{len(ids)} arrivals for {completions} completions"
    wall_offset = time.time() - time.monotonic()
    latencies = sorted(
        (item.at + wall_offset - completed_at[task_id].timestamp()) * 1000 for task_id, item in arrivals
    )
    return {
        "completions": completions,
        "queues": len(receivers),
        "workers": workers,
        "completions_per_second": round(completions / elapsed, 1),
        "latency_ms_median": round(statistics.median(latencies), 1),
        "latency_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1], 1),
        "latency_ms_max": round(latencies[-1], 1),
        "duplicates": len(ids) - len(set(ids)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--completions", type=int, default=1000)
    parser.add_argument("--queues", type=int, default=10)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    figures = run(args.completions, args.queues, args.workers)
    for key, value in figures.items():
        print(f"{key:26} {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
