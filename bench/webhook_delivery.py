"""Webhook delivery under load: completions across Q queues, each queue with its own receiver.

Checks that every event arrives exactly once (all receivers answer 2xx) and prints the
completion-to-arrival latency (server `completed_at` to the receiver's clock, same machine), split
at the moment the attempt began (from the server's attempt log).

With `--rate`, completions are paced: the i-th starts at i / rate seconds (an open loop, as real
workers arrive), so the figure is the latency at that load rather than under saturation. Without
it, every worker claims and completes as fast as it can.

    .venv/bin/python bench/webhook_delivery.py [--completions 2000] [--queues 10] [--workers 16]
        [--rate 200] [--json FILE]
"""

import argparse
import asyncio
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.http_load import peak_rss_mb  # noqa: E402
from tests.support import CORE_BLOCKS, ROLES_SEED, ServerProcess, free_port, run_cli  # noqa: E402


class ReceiverProcess:
    """The receivers in a process of their own, so the load generator here cannot slow them down.

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


def run(completions: int, queue_count: int, workers: int, rate: float | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(
            Path(tmp) / "bench.db", ["--allow-private-webhooks", *UNLIMITED], seed=ROLES_SEED
        ).start()
        receivers = ReceiverProcess(queue_count, Path(tmp))
        try:
            return _measure(server, receivers, completions, workers, rate)
        finally:
            server.stop()
            if receivers.process.poll() is None:
                receivers.process.kill()


def _prepare(
    server: ServerProcess, targets: list[str], completions: int, workers: int
) -> tuple[list[str], list[str]]:
    """One queue per receiver, its share of the tasks imported; one API key per worker."""
    paths = []
    with server.client("admin") as admin:
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
    return paths, keys


async def _complete_one(client: httpx.AsyncClient, path: str) -> tuple[int, datetime] | None:
    """Claim the next task of `path` and complete it; None when the queue is empty."""
    claim = await client.post(f"{path}/tasks/next")
    if claim.status_code != 200:
        return None
    task_id = claim.json()["id"]
    done = await client.post(f"{path}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
    done.raise_for_status()
    return task_id, datetime.fromisoformat(done.json()["completed_at"])


async def _as_fast_as_possible(clients: list[httpx.AsyncClient], paths: list[str]) -> dict[int, datetime]:
    completed: dict[int, datetime] = {}

    async def work(n: int) -> None:
        for path in paths[n % len(paths) :] + paths[: n % len(paths)]:
            while (result := await _complete_one(clients[n], path)) is not None:
                completed[result[0]] = result[1]

    await asyncio.gather(*(work(n) for n in range(len(clients))))
    return completed


async def _paced(
    clients: list[httpx.AsyncClient], paths: list[str], completions: int, rate: float
) -> dict[int, datetime]:
    """The i-th completion starts at i / rate seconds, on whichever worker is free."""
    completed: dict[int, datetime] = {}
    idle: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()
    for client in clients:
        idle.put_nowait(client)

    async def one(client: httpx.AsyncClient, path: str) -> None:
        try:
            result = await _complete_one(client, path)
            assert result is not None, f"{path} ran out of tasks"
            completed[result[0]] = result[1]
        finally:
            idle.put_nowait(client)

    loop = asyncio.get_running_loop()
    started = loop.time()
    running: set[asyncio.Task[None]] = set()
    for i in range(completions):
        wait = started + i / rate - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        client = await idle.get()
        task = asyncio.create_task(one(client, paths[i % len(paths)]))
        running.add(task)
        task.add_done_callback(running.discard)
    await asyncio.gather(*running)
    return completed


async def _load(
    url: str, keys: list[str], paths: list[str], completions: int, rate: float | None
) -> dict[int, datetime]:
    clients = [httpx.AsyncClient(base_url=url, headers={"Authorization": f"Token {key}"}) for key in keys]
    try:
        if rate is None:
            return await _as_fast_as_possible(clients, paths)
        return await _paced(clients, paths, completions, rate)
    finally:
        await asyncio.gather(*(client.aclose() for client in clients))


def _measure(
    server: ServerProcess, receivers: ReceiverProcess, completions: int, workers: int, rate: float | None
) -> dict[str, float]:
    paths, keys = _prepare(server, receivers.urls(), completions, workers)
    cpu_before = _cpu_seconds(server)
    completed_at = asyncio.run(_load(server.url, keys, paths, completions, rate))
    with server.client("admin") as admin:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _delivered(admin, paths) < completions:
            time.sleep(0.2)
    time.sleep(1)  # anything more would be a duplicate
    server_cpu = _cpu_seconds(server) - cpu_before  # claims, completions, deliveries, their logs
    arrivals = receivers.arrivals()
    ids = [task_id for task_id, _ in arrivals]
    assert len(completed_at) == completions, f"{len(completed_at)} completed, expected {completions}"
    assert sorted(ids) == sorted(completed_at), f"{len(ids)} arrivals for {completions} completions"
    latencies = sorted((at - completed_at[task_id].timestamp()) * 1000 for task_id, at in arrivals)
    started = _attempt_starts(server.db_path)
    to_attempt = sorted((started[t] - completed_at[t].timestamp()) * 1000 for t, _ in arrivals)
    to_arrival = sorted((at - started[t]) * 1000 for t, at in arrivals)
    moments = sorted(moment.timestamp() for moment in completed_at.values())
    span = moments[-1] - moments[0]
    return {
        "completions": completions,
        "queues": len(paths),
        "workers": workers,
        "paced_rate": rate or 0,
        "completions_per_second": round((completions - 1) / span, 1) if span > 0 else 0.0,
        "latency_ms_median": round(statistics.median(latencies), 1),
        "latency_ms_p90": round(latencies[int(len(latencies) * 0.90) - 1], 1),
        "latency_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1], 1),
        "latency_ms_max": round(latencies[-1], 1),
        "completion_to_attempt_ms_median": round(statistics.median(to_attempt), 1),
        "completion_to_attempt_ms_p99": round(to_attempt[int(len(to_attempt) * 0.99) - 1], 1),
        "attempt_to_arrival_ms_median": round(statistics.median(to_arrival), 1),
        "attempt_to_arrival_ms_p99": round(to_arrival[int(len(to_arrival) * 0.99) - 1], 1),
        "server_cpu_ms_per_completion": round(server_cpu * 1000 / completions, 3),
        "duplicates": len(ids) - len(set(ids)),
        "server_peak_rss_mb": round(peak_rss_mb(server.process.pid), 1),
    }


def _attempt_starts(db_path: Path) -> dict[int, float]:
    """When the (first) attempt of each task's delivery began, on the server's clock, in seconds."""
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute(
            "SELECT d.task_id, min(a.attempted_at) FROM deliveries d "
            "JOIN delivery_attempts a ON a.delivery_id = d.id GROUP BY d.task_id"
        ).fetchall()
    return {task_id: micros / 1e6 for task_id, micros in rows}


def _cpu_seconds(server: ServerProcess) -> float:
    """User and system CPU time the server process has used so far."""
    assert server.process is not None
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    parser.add_argument("--completions", type=int, default=2000)
    parser.add_argument("--queues", type=int, default=10)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--rate", type=float, help="completions per second, paced (default: unpaced)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    figures = run(args.completions, args.queues, args.workers, args.rate)
    for key, value in figures.items():
        print(f"{key:26} {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
