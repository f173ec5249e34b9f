"""The completed history over 50,000 tasks in the app: first page, next page, memory after all of it.

The app runs headless (Textual's test driver, the same code path as a terminal) against a real
`queuedesk serve` on SQLite; the figures beside it are the server's own answer time for the same
page over plain httpx, measured in the same run.

    .venv/bin/python bench/tui_history.py --tasks 50000 --json bench/results/tui_history.json
"""

import argparse
import asyncio
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import AppSettings, Target
from queuedesk.tui.widgets.paged_table import PagedTable
from tests.fill import fill_completed
from tests.support import KEYS, ROLES_SEED, ServerProcess


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def wait_loaded(
    app: QueueDeskApp, table: PagedTable, rows_before: int, start: int, timeout: float = 30
) -> float:
    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        await asyncio.sleep(0.001)
        if not table.busy and (table.end != rows_before or table.start != start) and table.items:
            return time.perf_counter() - began
    raise RuntimeError("the page never came")


async def run(server: ServerProcess, queue_id: int, tasks: int) -> dict[str, float]:
    app = QueueDeskApp(Target(server.url, KEYS["admin"], None), settings=AppSettings(), clock=ManualClock())
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or not app.known_queues:
            await pilot.pause(0.01)
        queue = next(q for q in app.known_queues if q.id == queue_id)
        began = time.perf_counter()
        app.open_queue(queue)
        while True:
            await asyncio.sleep(0.001)
            found = app.screen.query("#history")
            if found and found.first(PagedTable).items:
                break
        first_page = time.perf_counter() - began
        await pilot.press("2")
        table = app.screen.query_one("#history", PagedTable)
        next_pages = []
        seen: set[int] = set()
        while table.end < table.total:
            seen.update(int(t.id) for t in table.items)
            end, start = table.end, table.start
            table.move_cursor(row=len(table.items) - 1)
            next_pages.append(await wait_loaded(app, table, end, start))
        seen.update(int(t.id) for t in table.items)
        return {
            "first_page_s": round(first_page, 3),
            "next_page_median_ms": round(statistics.median(next_pages) * 1000, 1),
            "next_page_p95_ms": round(sorted(next_pages)[int(len(next_pages) * 0.95)] * 1000, 1),
            "pages": len(next_pages) + 1,
            "distinct_tasks_seen": len(seen),
            "rows_kept_at_end": len(table.items),
            "peak_rss_mb": round(peak_rss_mb(), 1),
        }


def server_page_ms(server: ServerProcess, queue_id: int) -> float:
    times = []
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as client:
        for offset in range(0, 5000, 100):
            began = time.perf_counter()
            client.get(
                f"/orgs/1/queues/{queue_id}/tasks/completed", params={"offset": offset, "limit": 100}
            ).raise_for_status()
            times.append(time.perf_counter() - began)
    return round(statistics.median(times) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=50_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    server = ServerProcess(work / "qd.db", seed=ROLES_SEED).start()
    try:
        fill_completed(
            server.db_url,
            1,
            args.tasks,
            "wes@acme.test",
            lambda n: {"paragraph": f"report {n}", "category": "red"},
        )
        result = asyncio.run(run(server, 1, args.tasks))
        result["server_page_median_ms"] = server_page_ms(server, 1)
        result["tasks"] = args.tasks
    finally:
        server.stop()
    for key, value in result.items():
        print(f"{key:24} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
