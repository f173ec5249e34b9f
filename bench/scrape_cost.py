"""What a /metrics scrape costs, and what it costs the others: a real `queuedesk serve` on SQLite
with 1,000 and with 1,000,000 pending tasks (made by the database itself before the server starts).

For each size: the scrape's statements (from the gauges' unit of work, counted on the same file),
its latency over `--scrapes` scrapes, and others' p99 (GET of a queue by a worker, back to back)
with a scrape every second beside them and without, in interleaved rounds of `--seconds` each.

    .venv/bin/python bench/scrape_cost.py [--sizes 1000 1000000] [--rounds 4] [--seconds 8]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, event, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from queuedesk.server.store import schema  # noqa: E402
from queuedesk.server.store.gauges import read_gauges  # noqa: E402
from tests.support import KEYS, ROLES_SEED, free_port  # noqa: E402

TOKEN = "bench-metrics-token"


def fill(url: str, pending: int) -> int:
    """The schema, and `pending` new tasks in one queue; the statements a scrape's gauges issue."""
    engine = create_engine(url)
    with engine.begin() as conn:
        schema.upgrade(conn)
        conn.execute(text("INSERT INTO organizations (name, created_at) VALUES ('Acme', 0)"))
        conn.execute(
            text(
                "INSERT INTO queues (organization_id, name, description, blocks, created_at) "
                "VALUES (1, 'backlog', '', '[]', 0)"
            )
        )
        conn.execute(
            text(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :pending) "
                "INSERT INTO tasks (queue_id, status, data, source, created_at) SELECT 1, 'new', '{}', 'api', i FROM n"
            ),
            {"pending": pending},
        )
        conn.execute(text("UPDATE queues SET n_tasks = :pending WHERE id = 1"), {"pending": pending})
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, statement, *_a: seen.append(statement))
    with engine.begin() as conn:
        read_gauges(conn)
    engine.dispose()
    return len(seen)


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) >= 100 else max(values)


def others(url: str, seconds: float, scraping: bool) -> tuple[list[float], list[float]]:
    """Others' latencies (ms) for `seconds`, with a scrape a second beside them or not; the scrapes'."""
    stop = threading.Event()
    scrapes: list[float] = []

    def scrape() -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as client:
            while not stop.wait(1.0):
                started = time.perf_counter()
                assert client.get("/metrics").status_code == 200
                scrapes.append((time.perf_counter() - started) * 1000)

    scraper = threading.Thread(target=scrape) if scraping else None
    if scraper is not None:
        scraper.start()
    latencies = []
    with httpx.Client(
        base_url=url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=30
    ) as client:
        path = "/orgs/1/queues/1"
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            assert client.get(path).status_code == 200
            latencies.append((time.perf_counter() - started) * 1000)
    stop.set()
    if scraper is not None:
        scraper.join()
    return latencies, scrapes


def run(size: int, args: argparse.Namespace, directory: Path) -> dict:
    db = directory / f"{size}.db"
    url_db = f"sqlite:///{db}"
    statements = fill(url_db, size)
    seed = directory / "seed.json"
    seed.write_text(
        json.dumps(ROLES_SEED)
    )  # keys for the others: the seed finds its organization Acme, the backlog's
    port = free_port()
    command = [sys.executable, "-m", "queuedesk", "serve", "--db", url_db, "--port", str(port)]
    command += [
        "--seed",
        str(seed),
        "--metrics-token",
        TOKEN,
        "--rate-limit",
        "off",
        "--log-level",
        "warning",
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        time.sleep(3)  # the reader processes are started 2 s after the start
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as client:
            scrape_ms = []
            for _ in range(args.scrapes):
                started = time.perf_counter()
                answer = client.get("/metrics")
                scrape_ms.append((time.perf_counter() - started) * 1000)
            gauge = 'queuedesk_tasks_pending{organization_id="1",queue_id="1"} '
            shown = next(line for line in answer.text.splitlines() if line.startswith(gauge))
            assert float(shown.removeprefix(gauge)) == size, shown
        ratios = []
        for round_ in range(args.rounds):
            got = {}
            for scraping in (False, True) if round_ % 2 == 0 else (True, False):
                got[scraping] = others(url, args.seconds, scraping)
            without, with_ = p99(got[False][0]), p99(got[True][0])
            ratios.append(with_ / without)
            print(
                f"  {size:>9,} round {round_ + 1}: others' p99 {without:.2f} ms without scrapes, "
                f"{with_:.2f} ms with ({with_ / without:.2f}x; {len(got[True][0])} requests, "
                f"{len(got[True][1])} scrapes beside)  load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
        return {
            "pending": size,
            "statements": statements,
            "scrape_ms_median": round(statistics.median(scrape_ms), 2),
            "scrape_ms_max": round(max(scrape_ms), 2),
            "p99_ratio_median": round(statistics.median(ratios), 3),
            "p99_ratios": [round(r, 3) for r in ratios],
        }
    finally:
        server.terminate()
        server.wait(timeout=40)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--scrapes", type=int, default=30)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        results = [run(size, args, Path(tmp)) for size in args.sizes]
    for result in results:
        print(json.dumps(result))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
