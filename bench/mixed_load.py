"""Mixed load: workers creating tasks while a supervisor keeps listing queues over a big backlog.

Counting a queue's 200,000 pending tasks (`n_tasks`) takes SQLite about 11 ms; this measures what
that listing does to everyone else's requests. Two wrk processes run at once against
`queuedesk serve` (SQLite): create-task at 16 connections, and list queues on one connection.

    .venv/bin/python bench/mixed_load.py [--duration 10] [--json bench/results/mixed_load.json]
"""

import argparse
import json
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.http_load import peak_rss_mb, start_queuedesk, wrk  # noqa: E402
from tests.support import KEYS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds of load")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install wrk)")
    with tempfile.TemporaryDirectory() as tmp:
        server, _keys, _history, work = start_queuedesk(Path(tmp), workers=1)
        assert server.process is not None
        env = {"QD_KEY": KEYS["admin"]}
        try:
            alone = wrk(f"{server.url}{work}/tasks/create", "create.lua", 16, args.duration, env)
            with ThreadPoolExecutor(2) as pool:
                creating = pool.submit(
                    wrk, f"{server.url}{work}/tasks/create", "create.lua", 16, args.duration, env
                )
                listing = pool.submit(wrk, f"{server.url}/orgs/1/queues", "get.lua", 1, args.duration, env)
                mixed, lists = creating.result(), listing.result()
            rss = peak_rss_mb(server.process.pid)
        finally:
            server.stop()
    figures = {
        "create alone (16 connections)": _figure(alone),
        "create while listing (16 connections)": _figure(mixed),
        "list queues meanwhile (1 connection)": _figure(lists),
        "server_peak_rss_mb": round(rss, 1),
    }
    for name, figure in figures.items():
        print(f"{name:40} {figure}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


def _figure(result: dict) -> dict[str, float]:
    return {
        "requests_per_second": round(result["rps"], 1),
        "p50_ms": round(result["p50"], 2),
        "p99_ms": round(result["p99"], 2),
        "errors": result["errors"],
    }


if __name__ == "__main__":
    main()
