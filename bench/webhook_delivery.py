"""Webhook delivery under load: N completions across Q queues, each queue with its own receiver.

Checks that every event arrives exactly once (all receivers answer 2xx) and prints the
completion-to-arrival latency (server `completed_at` to the receiver's clock, same machine).

    .venv/bin/python bench/webhook_delivery.py [--completions 1000] [--queues 10] [--workers 16]
"""

import argparse
import concurrent.futures
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import CORE_BLOCKS, ROLES_SEED, ServerProcess, free_port, run_cli  # noqa: E402


class ReceiverProcess:
    """The receivers in a process of their own, so the 16 client threads here cannot slow them down.

    The child answers 200 at once and, when told to stop, writes what arrived (task id, arrival
    time on the shared wall clock) as JSON to a file.
    """

    def __init__(self, count: int, directory: Path) -> None:
        self.ports = [free_port() for _ in range(count)]
        self.output = directory / "arrivals.json"
        code = (
            "import json, sys, time, signal, threading\n"
            "from tests.receiver import Receiver\n"
            "receivers = [Receiver(port=int(p)).start() for p in sys.argv[2:]]\n"
            "stop = threading.Event()\n"
            "signal.signal(signal.SIGTERM, lambda *_: stop.set())\n"
            "print('ready', flush=True)\n"
            "stop.wait()\n"
            "offset = time.time() - time.monotonic()\n"
            "rows = [(json.loads(r.body)['id'], r.at + offset) for rec in receivers for r in rec.received]\n"
            "open(sys.argv[1], 'w').write(json.dumps(rows))\n"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, str(self.output), *map(str, self.ports)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None and self.process.stdout.readline().strip() == "ready"

    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}/hook" for port in self.ports]

    def arrivals(self) -> list[tuple[int, float]]:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        return [tuple(row) for row in json.loads(self.output.read_text())]  # type: ignore[misc]


def run(completions: int, queue_count: int, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "bench.db", ["--allow-private-webhooks"], seed=ROLES_SEED).start()
        receivers = ReceiverProcess(queue_count, Path(tmp))
        try:
            return _measure(server, receivers, completions, workers)
        finally:
            server.stop()
            if receivers.process.poll() is None:
                receivers.process.kill()


def _measure(
    server: ServerProcess, receivers: "ReceiverProcess", completions: int, workers: int
) -> dict[str, float]:
    admin = server.client("admin")
    paths = []
    targets = receivers.urls()
    for i, target in enumerate(targets):
        queue = admin.post("/orgs/1/queues", json={"name": f"bench {i}", "data": CORE_BLOCKS}).json()
        path = f"/orgs/1/queues/{queue['id']}"
        admin.put(f"{path}/webhook", json={"target": target}).raise_for_status()
        per_queue = completions // len(targets) + (1 if i < completions % len(targets) else 0)
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
    while time.monotonic() < deadline and _delivered(admin, paths) < completions:
        time.sleep(0.2)
    time.sleep(1)  # anything more would be a duplicate
    arrivals = receivers.arrivals()
    ids = [task_id for task_id, _ in arrivals]
    assert len(completed_at) == completions, f"{len(completed_at)} completed, expected {completions}"
    assert sorted(ids) == sorted(completed_at), f"{len(ids)} arrivals for {completions} completions"
    latencies = sorted((at - completed_at[task_id].timestamp()) * 1000 for task_id, at in arrivals)
    return {
        "completions": completions,
        "queues": len(targets),
        "workers": workers,
        "completions_per_second": round(completions / elapsed, 1),
        "latency_ms_median": round(statistics.median(latencies), 1),
        "latency_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1], 1),
        "latency_ms_max": round(latencies[-1], 1),
        "duplicates": len(ids) - len(set(ids)),
    }


def _delivered(admin: httpx.Client, paths: list[str]) -> int:
    """Deliveries the server has marked delivered, over every queue (following the log's pages)."""
    done = 0
    for path in paths:
        url: str | None = f"{admin.base_url}{path}/webhook/deliveries?limit=1000"
        while url:
            page = admin.get(url).json()
            done += sum(1 for d in page["deliveries"] if d["status"] == "delivered")
            url = page["next"]
    return done


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
