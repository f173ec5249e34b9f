"""HTTP load on `queuedesk serve` (SQLite) and on the floor app, with wrk as the load generator.

Scenarios: create-task, list-completed (limit 50) at offset 0 and deep, list queues, and the worker
cycle (claim + complete, one API key per connection). Each at several connection counts; every
QueueDesk figure is also given as a share of the floor's. Prints a table and writes JSON.

    .venv/bin/python bench/http_load.py [--duration 5] [--json bench/results/http_load.json]

Needs `wrk` (Debian: apt-get install wrk).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from tests.fill import fill_completed, fill_new  # noqa: E402
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess, free_port, run_cli  # noqa: E402

LUA = Path(__file__).parent / "lua"
COMPLETED = 100_000  # completed tasks in the history queue
NEW_TASKS = 200_000  # new tasks for the worker cycle to claim


@dataclass
class Figure:
    target: str
    scenario: str
    connections: int
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int
    tasks_per_second: float | None = None
    peak_rss_mb: float | None = None


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(
    url: str, script: str, connections: int, duration: float, env: dict[str, str], threads: int | None = None
) -> dict:
    # One wrk thread unless told otherwise: it drives the floor at its full rate (13,000 req/s), and
    # on two cores a second thread takes turns with the server on its core (p99 at 64 connections
    # went from 13 ms to 53 ms with -t2, the server itself never taking over 10 ms on a request).
    threads = threads or 1
    out = subprocess.run(
        [
            "wrk",
            f"-t{threads}",
            f"-c{connections}",
            f"-d{int(duration)}s",
            "--latency",
            "-s",
            str(LUA / script),
            url,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    if out.returncode != 0:
        raise RuntimeError(f"wrk failed on {url}: {out.stdout}{out.stderr}")
    out = out.stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    worker = re.search(r"WORKER completed=(\d+) claimed=(\d+) empty=(\d+) failed=(\d+)", out)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        "p50": _ms(latency["50"]),
        "p99": _ms(latency["99"]),
        "errors": (int(errors.group(1)) if errors else 0)
        + (sum(map(int, socket_errors.groups())) if socket_errors else 0),
        "completed": int(worker.group(1)) if worker else None,
        "failed": int(worker.group(4)) if worker else 0,
    }


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


def start_floor(directory: Path) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    db = directory / "floor.db"
    import sqlite3

    from bench.floor import connect

    conn = connect(str(db))
    conn.execute("BEGIN")
    now = int(time.time() * 1e6)
    conn.executemany(
        "INSERT INTO tasks (queue_id, status, data, created_at, completed_at) VALUES (1, 'completed', ?, ?, ?)",
        (
            (json.dumps({"paragraph": f"done {n}", "category": "red", "photo": None}), now, now + n)
            for n in range(COMPLETED)
        ),
    )
    conn.executemany(
        "INSERT INTO tasks (queue_id, status, data, created_at) VALUES (1, 'new', ?, ?)",
        (
            (json.dumps({"paragraph": f"todo {n}", "category": None, "photo": None}), now)
            for n in range(NEW_TASKS)
        ),
    )
    conn.execute("COMMIT")
    conn.close()
    del sqlite3
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "floor.py"), str(db), str(port)], text=True
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            httpx.get(f"{url}/orgs/1/queues", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.05)
    return process, url


def start_queuedesk(directory: Path, workers: int) -> tuple[ServerProcess, list[str], str, str]:
    server = ServerProcess(directory / "queuedesk.db", [*UNLIMITED], seed=ROLES_SEED).start()
    admin = server.client("admin")
    history = admin.post("/orgs/1/queues", json={"name": "history", "data": CORE_BLOCKS}).json()["id"]
    work = admin.post("/orgs/1/queues", json={"name": "work", "data": CORE_BLOCKS}).json()["id"]
    for n in range(97):  # 100 queues in all, as an organization with many processes has
        admin.post("/orgs/1/queues", json={"name": f"other {n}", "data": CORE_BLOCKS}).raise_for_status()
    fill_completed(
        server.db_url,
        history,
        COMPLETED,
        "wes@acme.test",
        lambda n: {"paragraph": f"done {n}", "category": "red", "photo": None},
    )
    fill_new(
        server.db_url, work, NEW_TASKS, lambda n: {"paragraph": f"todo {n}", "category": None, "photo": None}
    )
    keys = []
    for n in range(workers):
        made = run_cli(
            ["keys", "create", "--db", server.db_url, "--email", f"bench{n}@acme.test", "--org", "Acme"]
        )
        keys.append(made.stdout.strip())
    return server, keys, f"/orgs/1/queues/{history}", f"/orgs/1/queues/{work}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--only", help="run only scenarios whose name contains this")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install wrk)")
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        server, keys, history, work = start_queuedesk(directory, workers=64)
        floor, floor_url = start_floor(directory)
        assert server.process is not None
        targets = {
            "queuedesk": (server.url, server.process.pid, history, work),
            "floor": (floor_url, floor.pid, "/orgs/1/queues/1", "/orgs/1/queues/1"),
        }
        scenarios = [
            ("create-task", "create.lua", "{work}/tasks/create", (1, 16, 32, 64)),
            (
                "list-completed offset 0",
                "get.lua",
                "{history}/tasks/completed?limit=50&offset=0",
                (1, 16, 64),
            ),
            (
                "list-completed offset 50000",
                "get.lua",
                "{history}/tasks/completed?limit=50&offset=50000",
                (1, 16, 64),
            ),
            ("list queues (100)", "get.lua", "/orgs/1/queues", (1, 16, 64)),
            ("worker cycle", "worker.lua", "{work}", (1, 16, 64)),
        ]
        try:
            for name, script, path, connection_counts in scenarios:
                if args.only and args.only not in name:
                    continue
                for connections in connection_counts:
                    for target, (base, pid, hist, wq) in targets.items():
                        url = base + path.format(history=hist, work=wq)
                        env = {
                            "QD_KEY": KEYS["admin"],
                            "QD_KEYS": ",".join(keys[:connections]),
                            "QD_QUEUE": wq,
                        }
                        threads = connections if script == "worker.lua" else None
                        result = wrk(
                            base if script == "worker.lua" else url,
                            script,
                            connections,
                            args.duration,
                            env,
                            threads,
                        )
                        rps = result["rps"]
                        per_task = None
                        if result["completed"] is not None:
                            per_task = round(result["completed"] / args.duration, 1)
                        figures.append(
                            Figure(
                                target,
                                name,
                                connections,
                                round(rps, 1),
                                round(result["p50"], 2),
                                round(result["p99"], 2),
                                result["errors"] + result["failed"],
                                per_task,
                                round(peak_rss_mb(pid), 1),
                            )
                        )
                        print(_line(figures[-1], figures), flush=True)
        finally:
            server.stop()
            floor.terminate()
            floor.wait()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(f) for f in figures], indent=2) + "\n")


def _line(figure: Figure, figures: list[Figure]) -> str:
    text = (
        f"{figure.target:10} {figure.scenario:28} c={figure.connections:<3} {figure.requests_per_second:9.1f} req/s "
        f"p50 {figure.p50_ms:7.2f} ms  p99 {figure.p99_ms:7.2f} ms  errors {figure.errors}  rss {figure.peak_rss_mb} MB"
    )
    if figure.tasks_per_second is not None:
        text += f"  tasks/s {figure.tasks_per_second}"
    if figure.target == "floor":
        ours = next(
            f
            for f in reversed(figures)
            if f.target == "queuedesk"
            and f.scenario == figure.scenario
            and f.connections == figure.connections
        )
        text += f"  -> queuedesk at {ours.requests_per_second / figure.requests_per_second:.0%} of the floor"
    return text


if __name__ == "__main__":
    main()
