"""Soak: minutes of mixed load from 32 clients against a real `queuedesk serve`, with a webhook
receiver that fails 10% of the time.

The clients create and import tasks, claim, heartbeat, release and complete them, list queues,
pending work, history, stats and deliveries, flush a queue and change webhooks, each pausing a
little between requests (a steady load, not a saturating one). Afterwards the outbox is drained
(deliveries whose next retry is minutes away are redelivered by hand) and the script checks:

- no answer was a 5xx and no request failed to connect;
- every completed task reached the receiver with a 2xx (by its unique `webhook-id`);
- the server's RSS, sampled every 5 s, one line a minute printed as it comes (`--rss-log` also
  appends it to a file), and whether it levels off (the second half's growth against the first's).

It exits 1 when a check fails. Not part of the test run.

    .venv/bin/python bench/soak.py [--minutes 10] [--db sqlite|postgresql|URL] [--json FILE]
"""

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import (  # noqa: E402
    CORE_BLOCKS,
    KEYS,
    ROLES_SEED,
    ServerProcess,
    drop_databases,
    free_port,
    queuedesk_command,
)

CLIENTS = 32
WORKERS, CREATORS, LISTERS = 20, 8, 2  # and one flusher, one webhook changer
QUEUES = 4  # plus the scratch queue, which the flusher empties
FAIL_RATE = 0.10
OPTIONS = ("red", "blue", "green")
RSS_EVERY = 5.0
START_TIMEOUT = 300  # seconds for the server to answer: a niced server on a loaded machine starts slowly


# --- the receiver: a process of its own -----------------------------------------------------------------


def serve_receiver(port: int, fail_rate: float) -> None:
    """Answer 500 to `fail_rate` of the requests at random, 200 to the rest; `GET /received` tells
    which events (webhook-id → task id) were answered 2xx, and how many requests came."""
    lock = threading.Lock()
    delivered: dict[str, int] = {}
    counts: Counter[str] = Counter()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            failing = random.random() < fail_rate
            with lock:
                counts["requests"] += 1
                if failing:
                    counts["answered_500"] += 1
                else:
                    event = self.headers.get("webhook-id", "")
                    if event in delivered:
                        counts["duplicates"] += 1
                    delivered[event] = json.loads(body)["id"]
            self.send_response(500 if failing else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            with lock:
                body = json.dumps({"events": delivered, **counts}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()


def start_receiver(fail_rate: float) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--receiver", str(port), "--fail-rate", str(fail_rate)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process, port


# --- the server --------------------------------------------------------------------------------------


def worker_key(n: int) -> str:
    return f"soak-worker-{n:02d}-0123456789abcdef"


def soak_seed() -> dict[str, Any]:
    """The tests' seed, with a worker (and key) of its own for each working client."""
    seed = json.loads(json.dumps(ROLES_SEED))
    seed["organizations"][0]["users"] += [
        {"email": f"soak{n}@acme.test", "name": f"Soak {n}", "role": "worker", "api_key": worker_key(n)}
        for n in range(WORKERS)
    ]
    return seed


def serve_options() -> list[str]:
    """`--rate-limit off` when this QueueDesk has the option (the soak measures the server, not the limit)."""
    shown = subprocess.run([*queuedesk_command(), "serve", "--help"], capture_output=True, text=True)
    return ["--rate-limit", "off"] if "--rate-limit" in shown.stdout else []


def start_server(directory: Path, db: str) -> ServerProcess:
    args = ["--allow-private-webhooks", *serve_options()]
    if db == "sqlite":
        server = ServerProcess(directory / "soak.db", args, seed=soak_seed())
    elif db == "postgresql":
        server = ServerProcess(directory / "soak.db", args, seed=soak_seed(), backend="postgresql")
    else:
        server = ServerProcess(directory / "soak.db", args, seed=soak_seed(), database_url=db)
    return server.start(timeout=START_TIMEOUT)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# --- the load ----------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Every answer by operation and status; what was completed; what went wrong."""

    answers: Counter[tuple[str, int]] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)  # no answer: connection errors, time-outs
    server_errors: list[str] = field(default_factory=list)  # the first few 5xx, for the report
    completed: set[int] = field(default_factory=set)
    created: int = 0

    def count(self, operation: str, response: httpx.Response) -> httpx.Response:
        self.answers[(operation, response.status_code)] += 1
        if response.status_code >= 500 and len(self.server_errors) < 20:
            self.server_errors.append(f"{operation} {response.status_code} {response.text[:300]}")
        return response

    @property
    def five_xx(self) -> int:
        return sum(n for (_, status), n in self.answers.items() if status >= 500)

    @property
    def requests(self) -> int:
        return sum(self.answers.values())


@dataclass
class Soak:
    url: str
    org: int
    queues: list[int]  # the last one is the scratch queue, flushed now and then
    hooks: list[str]
    pause: float
    until: float
    tally: Tally = field(default_factory=Tally)

    def path(self, queue_id: int) -> str:
        return f"/orgs/{self.org}/queues/{queue_id}"

    def client(self, key: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, headers={"Authorization": f"Token {key}"}, timeout=30)

    async def call(
        self, client: httpx.AsyncClient, operation: str, method: str, url: str, **kwargs: Any
    ) -> httpx.Response | None:
        try:
            return self.tally.count(operation, await client.request(method, url, **kwargs))
        except httpx.HTTPError as exc:
            self.tally.failures[f"{operation}: {type(exc).__name__}"] += 1
            return None

    async def loop(
        self, n: int, key: str, step: Callable[[httpx.AsyncClient, random.Random], Awaitable[None]]
    ) -> None:
        rng = random.Random(n)
        async with self.client(key) as client:
            while time.monotonic() < self.until:
                await step(client, rng)
                await asyncio.sleep(self.pause * rng.uniform(0.5, 1.5))

    async def work(self, client: httpx.AsyncClient, rng: random.Random) -> None:
        path = self.path(rng.choice(self.queues))
        claimed = await self.call(client, "claim", "POST", f"{path}/tasks/next")
        if claimed is None or claimed.status_code != 200:
            if rng.random() < 0.2:
                await self.call(client, "pending", "GET", f"{path}/tasks", params={"limit": 20})
            return
        task = claimed.json()["id"]
        roll = rng.random()
        if roll < 0.1:
            await self.call(client, "heartbeat", "POST", f"{path}/tasks/{task}/heartbeat")
        if roll < 0.05:
            await self.call(client, "release", "POST", f"{path}/tasks/{task}/release")
            return
        done = await self.call(
            client,
            "complete",
            "POST",
            f"{path}/tasks/{task}/complete",
            json={"data": {"category": rng.choice(OPTIONS)}},
        )
        if done is not None and done.status_code == 200:
            self.tally.completed.add(task)
        if rng.random() < 0.05:
            await self.call(
                client,
                "own history",
                "GET",
                f"{path}/tasks/completed",
                params={"completed_by": "me", "limit": 20},
            )

    async def create(self, client: httpx.AsyncClient, rng: random.Random) -> None:
        path = self.path(rng.choice(self.queues))
        if rng.random() < 0.05:
            tasks = [{"data": {"paragraph": f"imported {rng.random()}"}} for _ in range(20)]
            made = await self.call(
                client, "import", "POST", f"{path}/tasks/import", json={"source": "soak.csv", "tasks": tasks}
            )
            if made is not None and made.status_code == 200:
                self.tally.created += made.json()["created"]
            return
        data = {"paragraph": f"soak {rng.random()}", "photo": "https://example.com/p.png"}
        made = await self.call(client, "create", "POST", f"{path}/tasks/create", json={"data": data})
        if made is not None and made.status_code == 200:
            self.tally.created += 1

    async def list(self, client: httpx.AsyncClient, rng: random.Random) -> None:
        path = self.path(rng.choice(self.queues))
        choice = rng.randrange(6)
        if choice == 0:
            await self.call(client, "list queues", "GET", f"/orgs/{self.org}/queues")
        elif choice == 1:
            await self.call(client, "get queue", "GET", path)
        elif choice == 2:
            offset = rng.choice((0, 0, 0, 100, 1000))
            await self.call(
                client, "history", "GET", f"{path}/tasks/completed", params={"offset": offset, "limit": 50}
            )
        elif choice == 3:
            await self.call(client, "pending", "GET", f"{path}/tasks", params={"limit": 50})
        elif choice == 4:
            await self.call(client, "stats", "GET", f"{path}/stats")
        else:
            await self.call(client, "deliveries", "GET", f"{path}/webhook/deliveries", params={"limit": 50})

    async def flush_now_and_then(self, client: httpx.AsyncClient, rng: random.Random) -> None:
        if rng.random() < self.pause / 20:  # about every 20 s
            await self.call(client, "flush", "PUT", f"{self.path(self.queues[-1])}/flush")
        else:
            await self.call(client, "list queues", "GET", f"/orgs/{self.org}/queues")

    async def change_webhooks(self, client: httpx.AsyncClient, rng: random.Random) -> None:
        path = self.path(rng.choice(self.queues))
        roll = rng.random()
        if roll < self.pause / 3:  # about every 3 s: another target (every target is the receiver)
            await self.call(
                client, "set webhook", "PUT", f"{path}/webhook", json={"target": rng.choice(self.hooks)}
            )
        elif roll < self.pause / 3 + self.pause / 60:  # about every minute
            await self.call(client, "rotate secret", "POST", f"{path}/webhook/secret/rotate")
        else:
            await self.call(client, "get webhook", "GET", f"{path}/webhook")

    async def run(self) -> None:
        steps = [(worker_key(n), self.work) for n in range(WORKERS)]
        steps += [(KEYS["admin"], self.create)] * CREATORS + [(KEYS["supervisor"], self.list)] * LISTERS
        steps += [(KEYS["admin"], self.flush_now_and_then), (KEYS["admin"], self.change_webhooks)]
        assert len(steps) == CLIENTS
        await asyncio.gather(*(self.loop(n, key, step) for n, (key, step) in enumerate(steps)))


async def sample_rss(
    pid: int, until: float, samples: list[tuple[float, float]], tally: Tally, log: Path | None
) -> None:
    """RSS every RSS_EVERY seconds; at each whole minute one line, printed (and appended to `log`)
    as it comes, so a soak cut short still shows how memory went."""
    started = time.monotonic()
    minute = 0
    while True:
        now = time.monotonic()
        samples.append((now - started, rss_mb(pid)))
        if now - started >= minute * 60 or now >= until:
            when = f"end {(now - started) / 60:5.1f}" if now >= until else f"minute {minute:3d}"
            line = (
                f"{when}  rss {samples[-1][1]:6.1f} MB  peak {max(mb for _, mb in samples):6.1f} MB"
                f"  requests {tally.requests}  5xx {tally.five_xx}  failed {sum(tally.failures.values())}"
                f"  completions {len(tally.completed)}  load {os.getloadavg()[0]:.1f}"
            )
            print(line, flush=True)
            if log is not None:
                with log.open("a") as out:
                    out.write(line + "\n")
            minute += 1
        if now >= until:
            return
        await asyncio.sleep(min(RSS_EVERY, max(0.0, until - now)))


def levels_off(per_minute: list[float]) -> tuple[bool, float, float]:
    """Whether memory levelled off: the growth over the second half of the run, against the first
    half's (from minute 1, after the start's own allocations). Levelled off when the second half
    grew by under 2 MB, or by under a quarter of the first half's growth."""
    if len(per_minute) < 5:
        return False, 0.0, 0.0
    middle = len(per_minute) // 2
    first = per_minute[middle] - per_minute[1]
    second = per_minute[-1] - per_minute[middle]
    return second < 2.0 or second < first / 4, round(first, 1), round(second, 1)


def prepare(server: ServerProcess, receiver_port: int) -> tuple[int, list[int], list[str]]:
    hooks = [f"http://127.0.0.1:{receiver_port}/hook/{name}" for name in ("a", "b")]
    with server.client("admin") as admin:
        org = admin.get("/me").json()["organization_id"]
        queues = []
        for n in range(QUEUES + 1):
            name = "soak scratch" if n == QUEUES else f"soak {n}"
            made = admin.post(f"/orgs/{org}/queues", json={"name": name, "data": CORE_BLOCKS})
            made.raise_for_status()
            queues.append(made.json()["id"])
            admin.put(
                f"/orgs/{org}/queues/{queues[-1]}/webhook", json={"target": hooks[0]}
            ).raise_for_status()
    return org, queues, hooks


# --- draining and checking ---------------------------------------------------------------------------


def received(receiver_port: int) -> dict[str, Any]:
    return httpx.get(f"http://127.0.0.1:{receiver_port}/received", timeout=30).json()


def undelivered(
    admin: httpx.Client, org: int, queues: list[int], missing: set[int]
) -> list[tuple[int, int, str]]:
    """(queue, delivery id, next_attempt_at) of every delivery still pending for a missing task."""
    found = []
    for queue in queues:
        url: str | None = f"/orgs/{org}/queues/{queue}/webhook/deliveries?limit=1000"
        while url:
            page = admin.get(url).json()
            found += [
                (queue, d["id"], d["next_attempt_at"] or "")
                for d in page["deliveries"]
                if d["status"] != "delivered" and d["task_id"] in missing
            ]
            url = page["next"]
    return found


def drain(
    server: ServerProcess,
    receiver_port: int,
    org: int,
    queues: list[int],
    completed: set[int],
    seconds: float,
) -> int:
    """Wait for the outbox to deliver every completion; a delivery whose next retry is minutes away
    (after two failures in a row) is redelivered by hand. Returns how many were."""
    deadline = time.monotonic() + seconds
    redelivered: set[int] = set()
    with server.client("admin") as admin:
        while time.monotonic() < deadline:
            missing = completed - set(received(receiver_port)["events"].values())
            if not missing:
                break
            time.sleep(5)
            soon = time.time() + 10
            for queue, delivery, due in undelivered(admin, org, queues, missing):
                due_at = datetime.fromisoformat(due.replace("Z", "+00:00")).timestamp() if due else 0.0
                if due_at > soon:
                    admin.post(f"/orgs/{org}/queues/{queue}/webhook/deliveries/{delivery}/redeliver")
                    redelivered.add(delivery)
    return len(redelivered)


def soak(minutes: float, db: str, pause: float, drain_seconds: float, rss_log: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        receiver, receiver_port = start_receiver(FAIL_RATE)
        try:
            server = start_server(Path(tmp), db)
        except BaseException:  # no server: the receiver is not left running
            receiver.terminate()
            receiver.wait(timeout=10)
            raise
        try:
            assert server.process is not None
            org, queues, hooks = prepare(server, receiver_port)
            until = time.monotonic() + minutes * 60
            load = Soak(server.url, org, queues, hooks, pause, until)
            samples: list[tuple[float, float]] = []
            cpu_before = time.process_time()

            async def both() -> None:
                await asyncio.gather(
                    load.run(), sample_rss(server.process.pid, until, samples, load.tally, rss_log)
                )  # type: ignore[union-attr]

            started = time.monotonic()
            asyncio.run(both())
            elapsed = time.monotonic() - started
            load_cpu = time.process_time() - cpu_before
            by_hand = drain(server, receiver_port, org, queues, load.tally.completed, drain_seconds)
            got = received(receiver_port)
            with server.client("admin") as admin:
                server_completed = sum(
                    admin.get(f"/orgs/{org}/queues/{q}/tasks/completed", params={"limit": 1}).json()["count"]
                    for q in queues
                )
            return report(load.tally, got, samples, elapsed, by_hand, server_completed, load_cpu, db, pause)
        finally:
            server.stop()
            receiver.terminate()
            receiver.wait(timeout=10)
            if db == "postgresql":
                drop_databases()


def minute_samples(samples: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The first sample at or after each whole minute (minute 0 is the start)."""
    chosen: list[tuple[float, float]] = []
    for at, mb in samples:
        if at >= len(chosen) * 60:
            chosen.append((at, mb))
    return chosen


def report(
    tally: Tally,
    got: dict[str, Any],
    samples: list[tuple[float, float]],
    elapsed: float,
    by_hand: int,
    server_completed: int,
    load_cpu: float,
    db: str,
    pause: float,
) -> dict[str, Any]:
    delivered_tasks = set(got["events"].values())
    at_minute_1 = next((mb for at, mb in samples if at >= 60), samples[-1][1])
    per_minute = [round(mb, 1) for at, mb in minute_samples(samples)]
    level, first_half, second_half = levels_off(per_minute)
    by_operation: dict[str, dict[str, int]] = {}
    for (operation, status), n in sorted(tally.answers.items()):
        by_operation.setdefault(operation, {})[str(status)] = n
    return {
        "database": db,
        "clients": CLIENTS,
        "pause_seconds": pause,
        "minutes": round(elapsed / 60, 2),
        "requests": tally.requests,
        "requests_per_second": round(tally.requests / elapsed, 1),
        "responses_5xx": tally.five_xx,
        "failed_requests": sum(tally.failures.values()),
        "failures": dict(tally.failures),
        "first_5xx": tally.server_errors[:5],
        "tasks_created": tally.created,
        "completions": len(tally.completed),
        "completions_on_server": server_completed,
        "completions_delivered": len(tally.completed & delivered_tasks),
        "completions_not_delivered": len(tally.completed - delivered_tasks),
        "receiver_requests": got.get("requests", 0),
        "receiver_answered_500": got.get("answered_500", 0),
        "receiver_duplicate_2xx": got.get("duplicates", 0),
        "redelivered_by_hand_after_the_load": by_hand,
        "server_rss_mb_minute_1": round(at_minute_1, 1),
        "server_rss_mb_end": round(samples[-1][1], 1),
        "server_rss_mb_peak": round(max(mb for _, mb in samples), 1),
        "server_rss_mb_per_minute": per_minute,
        "rss_levels_off": level,
        "rss_growth_mb_first_half": first_half,
        "rss_growth_mb_second_half": second_half,
        "load_generator_cpu_seconds": round(load_cpu, 1),
        "answers": by_operation,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="minutes of load (default 10)")
    parser.add_argument(
        "--db",
        default="sqlite",
        help="sqlite (default), postgresql (a fresh database on the tests' server) or a URL",
    )
    parser.add_argument(
        "--pause", type=float, default=0.05, help="seconds each client waits between steps (0.05)"
    )
    parser.add_argument(
        "--drain-seconds", type=float, default=300.0, help="how long to wait for the outbox (300)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--rss-log", type=Path, help="append each minute's RSS line to this file as it comes")
    parser.add_argument("--receiver", type=int, help=argparse.SUPPRESS)  # run as the receiver on this port
    parser.add_argument("--fail-rate", type=float, default=FAIL_RATE, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.receiver:
        serve_receiver(args.receiver, args.fail_rate)
        return
    figures = soak(args.minutes, args.db, args.pause, args.drain_seconds, args.rss_log)
    for key, value in figures.items():
        print(f"{key:36} {value}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    ok = (
        figures["responses_5xx"] == 0
        and figures["failed_requests"] == 0
        and figures["completions_not_delivered"] == 0
        and figures["completions_on_server"] == figures["completions"]
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
