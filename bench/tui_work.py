"""The worker's loop in the app: time from the submit key to the next task on screen, and a scripted
worker's sustained rate over many tasks, beside the server's own claim + complete round trip.

The app runs headless (Textual's test driver, the same code as in a terminal) against a real
`queuedesk serve` on SQLite. Submissions wait out the undo grace on a manual clock that the script
advances, so the figures are the app's own cost, not the grace.

    .venv/bin/python bench/tui_work.py --tasks 500 --json bench/results/tui_work.json
"""

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

from textual.worker import WorkerCancelled

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QUEUEDESK_DATA_DIR", tempfile.mkdtemp())

import httpx

from bench import UNLIMITED
from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.settings import Target
from tests.support import KEYS, ROLES_SEED, ServerProcess


class TimedWorkScreen(WorkScreen):
    """Notes when the submit key is acted on and when the next task's frame has been drawn."""

    submitted_at = 0.0
    painted: ClassVar[list[float]] = []

    def action_submit(self) -> None:
        TimedWorkScreen.submitted_at = time.perf_counter()
        super().action_submit()

    def _show(self, task, values=None, seconds=0.0) -> None:  # type: ignore[no-untyped-def]
        super()._show(task, values, seconds)
        if TimedWorkScreen.submitted_at:
            since = TimedWorkScreen.submitted_at
            self.call_after_refresh(lambda: TimedWorkScreen.painted.append(time.perf_counter() - since))
            TimedWorkScreen.submitted_at = 0.0


def timed_loop(screen: object) -> None:
    """Where the screen's task loop puts a task on screen (`TaskLoop.show`), the time since the submit
    is taken after the next paint (before the loop was composed, `_show` above did it)."""
    loop = getattr(screen, "loop", None)
    if loop is None:
        return
    show = loop.show

    def timed_show(task, values=None, seconds=0.0) -> None:  # type: ignore[no-untyped-def]
        show(task, values, seconds)
        if TimedWorkScreen.submitted_at:
            since = TimedWorkScreen.submitted_at
            screen.call_after_refresh(lambda: TimedWorkScreen.painted.append(time.perf_counter() - since))  # type: ignore[attr-defined]
            TimedWorkScreen.submitted_at = 0.0

    loop.show = timed_show


async def run(server: ServerProcess, tasks: int) -> dict[str, float]:
    clock = ManualClock()
    app = QueueDeskApp(Target(server.url, KEYS["worker"], None), settings=AppSettings(), clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or not app.known_queues:
            await pilot.pause(0.01)
        app.push_screen(TimedWorkScreen(app.known_queues[0]))
        while getattr(app.screen, "current", None) is None:
            await asyncio.sleep(0.001)
        screen = app.screen
        timed_loop(screen)
        prefetched = 0
        began = time.perf_counter()
        for n in range(tasks):
            while (not screen.ahead and n < tasks - 1) or not screen.ready:  # type: ignore[attr-defined]
                await asyncio.sleep(0.001)  # a human takes seconds per task: the prefetch is done
            previous = screen.current.id  # type: ignore[attr-defined]
            prefetched += bool(screen.ahead)  # type: ignore[attr-defined]
            await pilot.press("1", "enter")
            while screen.current is None or screen.current.id == previous or not screen.ready:  # type: ignore[attr-defined]
                if n == tasks - 1:
                    break
                await asyncio.sleep(0.0005)
            await pilot.pause()  # the frame with the new task is drawn
            if n % 2 == 1:
                clock.advance(6)  # the undo grace runs out: the held submissions go
        total = time.perf_counter() - began
        clock.advance(6)
        # A check the app replaced by a newer one (the task on screen's, every 5 s) ends cancelled.
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
    waits = TimedWorkScreen.painted
    return {
        "tasks": tasks,
        "measured_transitions": len(waits),
        "submit_to_next_median_ms": round(statistics.median(waits) * 1000, 1),
        "submit_to_next_p95_ms": round(sorted(waits)[int(len(waits) * 0.95)] * 1000, 1),
        "prefetched_share": round(prefetched / tasks, 3),
        "sustained_tasks_per_s": round(tasks / total, 1),
    }


def server_cycle_ms(server: ServerProcess, queue_id: int, rounds: int = 200) -> float:
    times = []
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['worker2']}"}) as client:
        for _ in range(rounds):
            start = time.perf_counter()
            task = client.post(f"/orgs/1/queues/{queue_id}/tasks/next").json()
            client.post(
                f"/orgs/1/queues/{queue_id}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}
            )
            times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=500)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = ServerProcess(Path(tempfile.mkdtemp()) / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    try:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
            items = [{"data": {"paragraph": f"report {n}"}} for n in range(args.tasks + 400)]
            admin.post(
                "/orgs/1/queues/1/tasks/import", json={"source": "manual", "tasks": items}
            ).raise_for_status()
        result = asyncio.run(run(server, args.tasks))
        result["server_claim_complete_median_ms"] = server_cycle_ms(server, 1)
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
            done = admin.get(
                "/orgs/1/queues/1/tasks/completed", params={"completed_by": "wes@acme.test", "limit": 1}
            )
            result["completed_by_the_app"] = done.json()["count"]
    finally:
        server.stop()
    for key, value in result.items():
        print(f"{key:34} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
