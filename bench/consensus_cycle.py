"""The worker's cycle per answer on a consensus queue (B21, answers 2) against a plain queue's per
completion, on one server, in interleaved rounds: each round, the same workers (each its own key, a
thread each) claim and complete (plain) or claim and answer (consensus) as fast as they can for the
same number of cycles. Printed: cycles per second and the median cycle of each, per round, and the
ratio of the medians (consensus / plain; the target is ≤ 1.2).

    .venv/bin/python bench/consensus_cycle.py [--rounds 5] [--workers 8] [--cycles 150] [--backend sqlite]
"""

import argparse
import copy
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import UNLIMITED
from tests.support import CORE_BLOCKS, ROLES_SEED, ServerProcess
from tests.support.loopback import loopback_client
from tests.support.postgres import drop_databases


def _key(n: int) -> str:
    return f"acme-cycler-{n:04d}-0123456789"


def _seed(workers: int) -> dict[str, Any]:
    seed = copy.deepcopy(ROLES_SEED)
    seed["organizations"][0]["users"] += [
        {"email": f"cycler{n}@acme.test", "name": f"Cycler {n}", "role": "worker", "api_key": _key(n)}
        for n in range(workers)
    ]
    return seed


def _cpu(pid: int) -> float:
    """The process's CPU seconds so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run(url: str, qpath: str, workers: int, cycles: int) -> tuple[float, list[float]]:
    """(cycles per second over all workers, every cycle's seconds)."""
    took: list[float] = []
    lock = threading.Lock()

    def one(n: int) -> None:
        mine = []
        with loopback_client(url, headers={"Authorization": f"Token {_key(n)}"}, timeout=60) as client:
            for _ in range(cycles):
                started = time.perf_counter()
                claimed = client.post(f"{qpath}/tasks/next")
                assert claimed.status_code == 200, claimed.status_code
                task_id = claimed.json()["id"]
                done = client.post(f"{qpath}/tasks/{task_id}/complete", json={"data": {"category": "red"}})
                assert done.status_code == 200, done.text
                mine.append(time.perf_counter() - started)
        with lock:
            took.extend(mine)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(workers)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(took) / (time.perf_counter() - started), took


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--cycles", type=int, default=150, help="cycles per worker per round")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = ServerProcess(
        Path(tempfile.mkdtemp()) / "qd.db", [*UNLIMITED], seed=_seed(args.workers), backend=args.backend
    ).start()
    rounds = []
    try:
        with server.client("admin") as admin:
            org = admin.get("/me").json()["organization_id"]
            paths = {}
            needed = args.rounds * args.workers * args.cycles
            for name, extra in (("plain", {}), ("consensus", {"consensus": {"answers": 2}})):
                made = admin.post(f"/orgs/{org}/queues", json={"name": name, "data": CORE_BLOCKS, **extra})
                made.raise_for_status()
                paths[name] = f"/orgs/{org}/queues/{made.json()['id']}"
                for start in range(0, needed, 10_000):
                    items = [
                        {"data": {"paragraph": f"r{n}"}} for n in range(start, min(needed, start + 10_000))
                    ]
                    admin.post(
                        f"{paths[name]}/tasks/import", json={"source": "manual", "tasks": items}
                    ).raise_for_status()
        for _round in range(args.rounds):
            figures: dict[str, Any] = {}
            for name in ("plain", "consensus"):
                assert server.process is not None
                cpu = _cpu(server.process.pid)
                rate, took = _run(server.url, paths[name], args.workers, args.cycles)
                cpu_us = (_cpu(server.process.pid) - cpu) / len(took) * 1e6
                figures[name] = {
                    "per_second": round(rate, 1),
                    "median_ms": round(statistics.median(took) * 1000, 3),
                    "server_cpu_us_per_cycle": round(cpu_us),
                }
            figures["ratio"] = round(figures["consensus"]["median_ms"] / figures["plain"]["median_ms"], 3)
            figures["cpu_ratio"] = round(
                figures["consensus"]["server_cpu_us_per_cycle"] / figures["plain"]["server_cpu_us_per_cycle"],
                3,
            )
            rounds.append(figures)
            print(json.dumps(figures), flush=True)
    finally:
        server.stop()
        drop_databases()
    result = {
        "backend": args.backend,
        "workers": args.workers,
        "cycles_per_worker_per_round": args.cycles,
        "rounds": rounds,
        "median_ratio": statistics.median(r["ratio"] for r in rounds),
        "ratio_range": [min(r["ratio"] for r in rounds), max(r["ratio"] for r in rounds)],
        "median_cpu_ratio": statistics.median(r["cpu_ratio"] for r in rounds),
        "cpu_ratio_range": [min(r["cpu_ratio"] for r in rounds), max(r["cpu_ratio"] for r in rounds)],
    }
    print(json.dumps({k: v for k, v in result.items() if k != "rounds"}))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
