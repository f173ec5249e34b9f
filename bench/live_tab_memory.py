"""Memory of the app with a live view open and refreshing fast: its RSS must stay flat.

A queue with a webhook and a delivery log (deliveries failing against a closed port, so each has a
status, an error and a next try) and pending and completed tasks; the app as its admin on one view
(`--tab`: a tab of the queue screen, or the queue list), refreshing every 0.2 s (about 300 refreshes
a minute, 60 times the default). RSS is read every 10 s after a warm-up; the figures are the growth
from the first reading after the warm-up to the last, and the refreshes really made (the poller's
count: a starved app makes fewer).

    .venv/bin/python bench/live_tab_memory.py --tab webhook --minutes 10 --json bench/results/live_tab_memory_webhook.json
"""

import argparse
import asyncio
import json
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.widgets import TabbedContent

from queuedesk.api.config import AppSettings
from queuedesk.api.models import Queue
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.screens.queue import QueueScreen
from queuedesk.tui.settings import Target
from tests.support import KEYS, ROLES_SEED, ServerProcess

REFRESH = 0.2
SAMPLE_EVERY = 10.0


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def prepare(server: ServerProcess, deliveries: int) -> Queue:
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
        org = admin.get("/me").json()["organization_id"]
        queue = admin.get(f"/orgs/{org}/queues").json()[0]
        path = f"/orgs/{org}/queues/{queue['id']}"
        target = f"http://127.0.0.1:{closed_port()}/hook"
        admin.put(f"{path}/webhook", json={"target": target}).raise_for_status()
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Token {KEYS['worker']}"}
        ) as worker:
            for n in range(deliveries):
                admin.post(f"{path}/tasks/create", json={"data": {"paragraph": f"m{n}"}}).raise_for_status()
                task = worker.post(f"{path}/tasks/next").json()
                worker.post(f"{path}/tasks/{task['id']}/complete", json={"data": {"category": "red"}})
        for n in range(deliveries):  # and as many waiting, for the Pending tab
            admin.post(f"{path}/tasks/create", json={"data": {"paragraph": f"w{n}"}}).raise_for_status()
        return Queue.model_validate(admin.get(path).json())


TABS = {
    "pending": "tab-pending",
    "completed": "tab-completed",
    "stats": "tab-stats",
    "webhook": "tab-webhook",
    "queues": None,  # the queue list itself
}


async def measure(
    server: ServerProcess, queue: Queue, tab: str, minutes: float, warmup: float
) -> dict[str, Any]:
    settings = AppSettings(refresh_seconds=REFRESH)
    app = QueueDeskApp(Target(server.url, KEYS["admin"], None), settings=settings)
    readings: list[tuple[float, float]] = []
    async with app.run_test(size=(200, 60)) as pilot:
        while app.session is None:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        if TABS[tab] is not None:
            app.push_screen(QueueScreen(queue))
            await pilot.pause(0.5)
            app.screen.query_one(TabbedContent).active = TABS[tab]
        screen = app.screen
        started = time.monotonic()
        await pilot.pause(warmup)
        polls = screen.poller.polls  # type: ignore[attr-defined]
        while time.monotonic() - started < warmup + minutes * 60:
            readings.append((time.monotonic() - started, rss_mb()))
            await pilot.pause(SAMPLE_EVERY)
        readings.append((time.monotonic() - started, rss_mb()))
        assert app.screen is screen
        refreshes = screen.poller.polls - polls  # type: ignore[attr-defined]
    first, last = readings[0][1], readings[-1][1]
    return {
        "tab": tab,
        "refresh_seconds": REFRESH,
        "minutes": minutes,
        "refreshes": refreshes,
        "rss_first_mb": round(first, 1),
        "rss_last_mb": round(last, 1),
        "growth_mb": round(last - first, 1),
        "readings": [(round(t, 1), round(m, 1)) for t, m in readings],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tab", choices=sorted(TABS), default="webhook")
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before the first reading")
    parser.add_argument("--deliveries", type=int, default=30)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = ServerProcess(Path(folder) / "qd.db", ["--allow-private-webhooks"], seed=ROLES_SEED).start()
        try:
            queue = prepare(server, args.deliveries)
            result = asyncio.run(measure(server, queue, args.tab, args.minutes, args.warmup))
        finally:
            server.stop()
    print(
        f"{args.tab} view, refresh every {REFRESH} s for {args.minutes:g} min ({result['refreshes']} "
        f"refreshes): RSS {result['rss_first_mb']} -> {result['rss_last_mb']} MB "
        f"({result['growth_mb']:+} MB)"
    )
    for at, mb in result["readings"]:
        print(f"  {at:7.1f} s  {mb:6.1f} MB")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
