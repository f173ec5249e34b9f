"""The review loop in the app (B19): time from the verdict key to the next review on screen, beside
the server's own review claim + verdict round trip, measured in the same run.

The app runs headless (Textual's test driver) as the supervisor against a real `queuedesk serve` on
SQLite; every completion of the queue is drawn (review 100 %), done by the worker over HTTP
beforehand. Each review is accepted with `a`; verdicts wait out the undo grace on a manual clock
the script advances, so the figures are the app's own cost. The reference is the admin claiming
and accepting reviews of the same queue over httpx, one at a time, in rounds between the app's.

    .venv/bin/python bench/tui_review.py --reviews 300 --json bench/results/tui_review.json
"""

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QUEUEDESK_DATA_DIR", tempfile.mkdtemp())

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench import UNLIMITED
from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.screens.review import ReviewScreen
from queuedesk.tui.settings import Target
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess


@dataclass
class Stopwatch:
    """From a verdict key acted on to the frame that shows the next review."""

    started: float = 0.0
    laps: list[float] = field(default_factory=list)

    def start(self) -> None:
        self.started = time.perf_counter()

    def stop_after_paint(self, screen: ReviewScreen) -> None:
        if self.started:
            since, self.started = self.started, 0.0
            screen.call_after_refresh(lambda: self.laps.append(time.perf_counter() - since))


WATCH = Stopwatch()


class TimedReviewScreen(ReviewScreen):
    def action_verdict(self, verdict: Any) -> None:
        WATCH.start()
        super().action_verdict(verdict)

    def _show(self, task: Any, values: dict[str, Any] | None = None, seconds: float = 0.0) -> None:
        super()._show(task, values, seconds)
        WATCH.stop_after_paint(self)


def timed_loop(screen: ReviewScreen) -> None:
    """Where the screen's task loop puts a review on screen (`TaskLoop.show`), the stopwatch stops
    after the next paint (before the loop was composed, `_show` above did it)."""
    loop = getattr(screen, "loop", None)
    if loop is None:
        return
    show = loop.show

    def timed_show(task: Any, values: dict[str, Any] | None = None, seconds: float = 0.0) -> None:
        show(task, values, seconds)
        WATCH.stop_after_paint(screen)

    loop.show = timed_show


def milliseconds(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(ordered[max(int(len(ordered) * 0.95) - 1, 0)] * 1000, 1),
    }


def server_reviews(client: httpx.Client, qpath: str, rounds: int) -> list[float]:
    """The admin's claim + accept, `rounds` times: each cycle's seconds."""
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        task = client.post(f"{qpath}/reviews/next").json()
        client.post(f"{qpath}/tasks/{task['id']}/review", json={"verdict": "accept"}).raise_for_status()
        took.append(time.perf_counter() - started)
    return took


async def review_in_app(server: ServerProcess, queue_id: int, reviews: int, reference: Any) -> dict[str, Any]:
    clock = ManualClock()
    app = QueueDeskApp(Target(server.url, KEYS["supervisor"], None), settings=AppSettings(), clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or not any(q.id == queue_id for q in app.known_queues):
            await pilot.pause(0.01)
        app.push_screen(TimedReviewScreen(next(q for q in app.known_queues if q.id == queue_id)))
        screen = app.screen
        assert isinstance(screen, TimedReviewScreen)
        timed_loop(screen)
        began = time.perf_counter()
        for n in range(reviews):
            while not screen.ready or (not screen.review.ahead and n < reviews - 1):
                await asyncio.sleep(0.001)  # a reviewer reads for seconds: the claim ahead is in
            previous = screen.current.id if screen.current else None
            await pilot.press("a")
            while n < reviews - 1 and (
                screen.current is None or screen.current.id == previous or not screen.ready
            ):
                await asyncio.sleep(0.0005)
            await pilot.pause()  # the frame with the new review is drawn
            if n % 2 == 1:
                clock.advance(6)  # the undo grace runs out: the held verdicts go
            if n % 50 == 0:
                await asyncio.to_thread(reference)  # the server's own cycle, interleaved
        total = time.perf_counter() - began
        clock.advance(6)
        await screen.leave()
        await app.workers.wait_for_complete()
    return {"sustained_reviews_per_s": round(reviews / total, 1), **milliseconds(WATCH.laps)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reviews", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = ServerProcess(Path(tempfile.mkdtemp()) / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    reference_rounds = 20
    total = args.reviews + reference_rounds * (args.reviews // 50 + 1) + 10
    times: list[float] = []
    try:
        admin = httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=60
        )
        worker = httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {KEYS['worker']}"}, timeout=60
        )
        with admin, worker:
            queue = admin.post(
                "/orgs/1/queues", json={"name": "Bench review", "data": CORE_BLOCKS, "review_percent": 100}
            ).json()
            qpath = f"/orgs/1/queues/{queue['id']}"
            items = [{"data": {"paragraph": f"report {n}"}} for n in range(total)]
            admin.post(f"{qpath}/tasks/import", json={"source": "manual", "tasks": items}).raise_for_status()
            for _ in range(total):
                task = worker.post(f"{qpath}/tasks/next").json()
                worker.post(
                    f"{qpath}/tasks/{task['id']}/complete", json={"data": {"category": "red"}}
                ).raise_for_status()
            result: dict[str, Any] = {"reviews": args.reviews}
            app = asyncio.run(
                review_in_app(
                    server,
                    queue["id"],
                    args.reviews,
                    lambda: times.extend(server_reviews(admin, qpath, reference_rounds)),
                )
            )
            result.update({f"verdict_to_next_{k}": v for k, v in app.items() if k.endswith("_ms")})
            result["sustained_reviews_per_s"] = app["sustained_reviews_per_s"]
            result.update({f"server_claim_verdict_{k}": v for k, v in milliseconds(times).items()})
            result["reviewed_on_server"] = admin.get(f"{qpath}/reviews", params={"limit": 1}).json()["count"]
    finally:
        server.stop()
    text = json.dumps(result, indent=2) + "\n"
    sys.stdout.write(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
