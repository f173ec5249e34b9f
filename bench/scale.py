"""Latency at scale: one queue with 1,000,000 completed tasks among 100 queues, on SQLite.

Measures, with wrk on one connection (so each figure is one request's latency, not a queue's):
list-completed (limit 50) at offset 0 and at offset 500,000, list queues (n_tasks and
active_users for all 100), and claim (the worker cycle's first half) — and the server's peak RSS.

    .venv/bin/python bench/scale.py [--tasks 1000000] [--json bench/results/scale.json]
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import UNLIMITED  # noqa: E402
from bench.http_load import peak_rss_mb, wrk  # noqa: E402
from tests.fill import fill_completed, fill_new  # noqa: E402
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess, run_cli  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1_000_000, help="completed tasks in the big queue")
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args()
    figures: dict[str, object] = {"completed_tasks": args.tasks, "queues": 100}
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "scale.db", [*UNLIMITED], seed=ROLES_SEED).start()
        try:
            admin = server.client("admin")
            big = admin.post("/orgs/1/queues", json={"name": "big", "data": CORE_BLOCKS}).json()["id"]
            for n in range(98):
                admin.post(
                    "/orgs/1/queues", json={"name": f"queue {n}", "data": CORE_BLOCKS}
                ).raise_for_status()
            started = time.monotonic()
            fill_completed(
                server.db_url,
                big,
                args.tasks,
                "wes@acme.test",
                lambda n: {"paragraph": f"done {n}", "category": "red", "photo": None},
            )
            fill_new(
                server.db_url,
                big,
                50_000,
                lambda n: {"paragraph": f"todo {n}", "category": None, "photo": None},
            )
            figures["fill_seconds"] = round(time.monotonic() - started, 1)
            worker = run_cli(
                ["keys", "create", "--db", server.db_url, "--email", "scale@acme.test", "--org", "Acme"]
            ).stdout.strip()
            assert server.process is not None
            path = f"/orgs/1/queues/{big}"
            checks = {
                "list-completed offset 0": ("get.lua", f"{path}/tasks/completed?limit=50&offset=0"),
                "list-completed offset 500000": (
                    "get.lua",
                    f"{path}/tasks/completed?limit=50&offset={args.tasks // 2}",
                ),
                "list queues (100)": ("get.lua", "/orgs/1/queues"),
                "worker cycle (claim + complete)": ("worker.lua", ""),
            }
            for name, (script, url_path) in checks.items():
                env = {"QD_KEY": KEYS["admin"], "QD_KEYS": worker, "QD_QUEUE": path}
                result = wrk(server.url + url_path, script, 1, args.duration, env, threads=1)
                figures[name] = {
                    "p50_ms": round(result["p50"], 2),
                    "p99_ms": round(result["p99"], 2),
                    "requests_per_second": round(result["rps"], 1),
                    "errors": result["errors"] + result["failed"],
                }
                print(
                    f"{name:34} p50 {result['p50']:7.2f} ms  p99 {result['p99']:7.2f} ms  ({result['rps']:.0f} req/s on one connection)",
                    flush=True,
                )
            figures["peak_rss_mb"] = round(peak_rss_mb(server.process.pid), 1)
            print(f"{'server peak RSS':34} {figures['peak_rss_mb']} MB")
        finally:
            server.stop()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
