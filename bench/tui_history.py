"""The completed history over 50,000 tasks in the app: first page, next page, memory after all of it.

The app runs headless (Textual's test driver, the same code path as a terminal) against a real
`queuedesk serve` on SQLite; the figures beside it are the server's own answer time for the same
page over plain httpx, measured in the same run.

    .venv/bin/python bench/tui_history.py --tasks 50000 --json bench/results/tui_history.json

What is timed is what a user waits for, up to the frame that shows it:
- first page: from opening the queue (straight to the Completed tab, as `2` does) to the frame that
  shows the newest task's row;
- next page: from the cursor reaching the row at which the next page is fetched (20 from the end of
  the window) until the page is in and the frame that shows its first row (the cursor moved onto it
  as soon as it came, as a user holding `down` would) has been painted. A frame counts once the
  compositor has rendered it and turned it into what a terminal driver writes (the test driver
  writes nothing, so that part is done here), and the row is found in the painted screen's text.
  The time until the page is merely in the table is given beside it (`next_page_in_*`).
- memory: the peak RSS of a process that runs only the app (the bench forks it after filling the
  database, so the server's and the filler's libraries are not counted), after every page went by.
"""

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from textual.widgets import TabbedContent

from bench import UNLIMITED
from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.settings import Target
from queuedesk.tui.widgets.paged_table import NEAR, PagedTable
from tests.support import KEYS, ROLES_SEED, ServerProcess

TIMEOUT = 30.0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Frames:
    """Every frame the app paints, timed; and the first one that shows a given row of a table."""

    def __init__(self, app: QueueDeskApp) -> None:
        self.app = app
        self.count = 0
        self.target: tuple[PagedTable, str] | None = None
        self.shown_at: float | None = None
        self._display = app._display
        app._display = self._paint  # type: ignore[method-assign]

    def _paint(self, screen: Any, renderable: Any) -> None:
        self._display(screen, renderable)
        if renderable is None or self.app._batch_count:
            return
        # What the terminal driver would do with the update (the test driver skips it).
        if hasattr(renderable, "render_segments"):
            renderable.render_segments(self.app.console)
        now = time.perf_counter()
        self.count += 1
        if self.target is not None and self.shown_at is None and self._shows(*self.target):
            self.shown_at = now

    def _shows(self, table: PagedTable, first_cell: str) -> bool:
        region = table.region
        lines = self.app.screen._compositor.render_strips()[region.y : region.bottom]
        return any(strip.text.split()[:1] == [first_cell] for strip in lines)

    def expect(self, table: PagedTable, first_cell: str) -> None:
        """From now on, note the first frame that shows the row whose first cell is this."""
        self.target, self.shown_at = (table, first_cell), None

    async def shown(self) -> float:
        """When that frame was painted."""
        began = time.perf_counter()
        while self.shown_at is None:
            if time.perf_counter() - began > TIMEOUT:
                lines = [s.text for s in self.app.screen._compositor.render_strips()]
                raise RuntimeError(
                    f"never painted: {self.target} in {self.count} frames\n" + "\n".join(lines)
                )
            await asyncio.sleep(0.001)
        self.target = None
        return self.shown_at


async def until(condition: Any, what: str) -> float:
    began = time.perf_counter()
    while not condition():
        if time.perf_counter() - began > TIMEOUT:
            raise RuntimeError(f"never happened: {what}")
        await asyncio.sleep(0.001)
    return time.perf_counter()


def ms(seconds: list[float], at: float) -> float:
    return round(sorted(seconds)[min(len(seconds) - 1, int(len(seconds) * at))] * 1000, 1)


async def run_app(url: str, queue_id: int, newest: int) -> dict[str, Any]:
    app = QueueDeskApp(Target(url, KEYS["admin"], None), settings=AppSettings(), clock=ManualClock())
    async with app.run_test(size=(120, 40)) as pilot:
        frames = Frames(app)
        while app.session is None or not app.known_queues:
            await pilot.pause(0.01)
        queue = next(q for q in app.known_queues if q.id == queue_id)

        began = time.perf_counter()
        app.open_queue(queue)
        await until(
            lambda: isinstance(app.screen, QueueScreen) and app.screen.query("#history"), "the screen"
        )
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        table = screen.history
        frames.expect(table, str(newest))
        page_in = asyncio.create_task(until(lambda: bool(table.items), "the first page"))
        tabs = screen.query_one(TabbedContent)
        painted = frames.count
        await until(lambda: frames.count > painted + 1, "the queue screen painted")
        while frames.shown_at is None:
            # The Completed tab, as `2` does, once the screen is painted; again, as a user would,
            # should a late focus of the pending table bring its tab back (it did before b1dd31c).
            if tabs.active != "tab-completed":
                screen.action_tab("tab-completed")
            await asyncio.sleep(0.001)
        first_in = await page_in
        first_shown = await frames.shown()

        shown: list[float] = []
        loaded: list[float] = []
        seen: set[int] = set()
        while table.end < table.total:
            seen.update(int(t.id) for t in table.items)
            end, start = table.end, table.start
            t0 = time.perf_counter()
            table.move_cursor(row=max(0, len(table.items) - NEAR))
            t_in = await until(
                lambda end=end, start=start: not table.busy and (table.end != end or table.start != start),
                "the next page",
            )
            first_new = table.items[end - table.start]
            frames.expect(table, str(first_new.id))
            table.move_cursor(row=end - table.start)
            t_shown = await frames.shown()
            loaded.append(t_in - t0)
            shown.append(t_shown - t0)
        seen.update(int(t.id) for t in table.items)
        return {
            "first_page_s": round(first_shown - began, 3),
            "first_page_in_s": round(first_in - began, 3),
            "next_page_median_ms": round(statistics.median(shown) * 1000, 1),
            "next_page_p95_ms": ms(shown, 0.95),
            "next_page_max_ms": round(max(shown) * 1000, 1),
            "next_page_in_median_ms": round(statistics.median(loaded) * 1000, 1),
            "next_page_in_p95_ms": ms(loaded, 0.95),
            "pages": len(shown) + 1,
            "frames": frames.count,
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


def newest_task(server: ServerProcess, queue_id: int) -> int:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as client:
        answer = client.get(f"/orgs/1/queues/{queue_id}/tasks/completed", params={"limit": 1})
        return int(answer.raise_for_status().json()["tasks"][0]["id"])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=50_000)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--app", nargs=3, metavar=("URL", "QUEUE", "NEWEST"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.app:  # the child: only the app
        url, queue_id, newest = args.app
        print(json.dumps(asyncio.run(run_app(url, int(queue_id), int(newest)))))
        return

    from tests.fill import fill_completed  # the server's store: not in the app's process

    work = Path(tempfile.mkdtemp())
    server = ServerProcess(work / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    try:
        fill_completed(
            server.db_url,
            1,
            args.tasks,
            "wes@acme.test",
            lambda n: {"paragraph": f"report {n}", "category": "red"},
        )
        load_before = load()
        child = subprocess.run(
            [sys.executable, __file__, "--app", server.url, "1", str(newest_task(server, 1))],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode:
            sys.exit(f"the app's run failed:\n{child.stderr}")
        result = json.loads(child.stdout.strip().splitlines()[-1])
        result["server_page_median_ms"] = server_page_ms(server, 1)
        result["tasks"] = args.tasks
        result["load_before"] = load_before
        result["load_after"] = load()
    finally:
        server.stop()
    for key, value in result.items():
        print(f"{key:24} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
