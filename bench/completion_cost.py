"""What the stats rollups add to a completion: the worker's claim + complete (B4 + B7) over httpx,
one at a time, on two servers side by side: one running another checkout's code (`--before-src`,
e.g. the commit before the rollups, exported with `git archive`) and one this checkout's. The two
take turns in chunks of 20 cycles, so the machine's load falls on both alike.

    git archive 7c59423 src | tar -x -C /tmp/before
    .venv/bin/python bench/completion_cost.py --before-src /tmp/before/src [--cycles 1000] [--backend sqlite]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess  # noqa: E402

CHUNK = 20


def _start(db: Path, src: str, backend: str) -> ServerProcess:
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = src
    try:
        return ServerProcess(db, [*UNLIMITED], seed=ROLES_SEED, backend=backend).start()
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved


def _queue(server: ServerProcess, tasks: int) -> str:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
        org = admin.get("/me").json()["organization_id"]
        queue = admin.post(f"/orgs/{org}/queues", json={"name": "Cycle", "data": CORE_BLOCKS}).json()
        qpath = f"/orgs/{org}/queues/{queue['id']}"
        for first in range(0, tasks, 1000):
            items = [{"data": {"paragraph": f"report {n}"}} for n in range(first, min(tasks, first + 1000))]
            admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": items}).raise_for_status()
    return qpath


def _cycles(worker: httpx.Client, qpath: str, n: int, cycle: list[float], complete: list[float]) -> None:
    for _ in range(n):
        started = time.perf_counter()
        task = worker.post(f"{qpath}/tasks/next").json()
        claimed = time.perf_counter()
        worker.post(
            f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}
        ).raise_for_status()
        done = time.perf_counter()
        cycle.append((done - started) * 1000)
        complete.append((done - claimed) * 1000)


def _summary(took: list[float]) -> str:
    ordered = sorted(took)
    return f"median {statistics.median(ordered):6.2f} ms   p95 {ordered[int(len(ordered) * 0.95)]:6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-src", required=True, help="the src/ directory of the code to compare with")
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    servers = {
        "before": _start(tmp / "before.db", args.before_src, args.backend),
        "after": _start(tmp / "after.db", str(ROOT / "src"), args.backend),
    }
    try:
        paths = {name: _queue(server, args.cycles + CHUNK) for name, server in servers.items()}
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in servers}
        workers = {
            name: httpx.Client(
                base_url=s.url, headers={"Authorization": f"Token {KEYS['worker']}"}, timeout=60
            )
            for name, s in servers.items()
        }
        for name in servers:
            _cycles(workers[name], paths[name], CHUNK, [], [])  # warm up
        for _ in range(args.cycles // CHUNK):
            for name in servers:
                _cycles(workers[name], paths[name], CHUNK, *times[name])
    finally:
        for server in servers.values():
            server.stop()
    print(f"{args.cycles} claim + complete cycles each, {args.backend}, interleaved in chunks of {CHUNK}")
    for name, (cycle, complete) in times.items():
        print(f"{name:7} claim + complete: {_summary(cycle)}   complete alone: {_summary(complete)}")


if __name__ == "__main__":
    main()
