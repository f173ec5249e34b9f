"""The worker's loop in the app on a consensus queue (B21, answers 2) against a plain queue: time from
the submit key to the next task on screen, and the sustained rate, in interleaved rounds on one
server (a fresh queue of each kind per round, the same blocks and tasks).

In the consensus queue each submit records an answer (the task stays open for a second worker) and
the screen counts answers recorded; in the plain one each submit completes its task.

    .venv/bin/python bench/tui_work_consensus.py --rounds 5 --tasks 100 [--json bench/results/tui_work_consensus.json]
"""

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bench import UNLIMITED
from bench.tui_work import TimedWorkScreen, timed_loop
from queuedesk.api.config import AppSettings
from queuedesk.tui.app import QueueDeskApp
from queuedesk.tui.clock import ManualClock
from queuedesk.tui.settings import Target
from tests.support import CORE_BLOCKS, KEYS, ROLES_SEED, ServerProcess


def new_queue(admin: httpx.Client, name: str, tasks: int, consensus: dict[str, Any] | None) -> int:
    body: dict[str, Any] = {"name": name, "data": CORE_BLOCKS}
    if consensus is not None:
        body["consensus"] = consensus
    made = admin.post("/orgs/1/queues", json=body)
    made.raise_for_status()
    queue_id: int = made.json()["id"]
    items = [{"data": {"paragraph": f"report {n}"}} for n in range(tasks + 20)]
    admin.post(
        f"/orgs/1/queues/{queue_id}/tasks/import", json={"source": "manual", "tasks": items}
    ).raise_for_status()
    return queue_id


async def one_round(server: ServerProcess, queue_id: int, tasks: int) -> dict[str, float]:
    clock = ManualClock()
    TimedWorkScreen.painted = []
    app = QueueDeskApp(Target(server.url, KEYS["worker"], None), settings=AppSettings(), clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None or not app.known_queues:
            await pilot.pause(0.01)
        queue = next(q for q in app.known_queues if q.id == queue_id)
        app.push_screen(TimedWorkScreen(queue))
        while getattr(app.screen, "current", None) is None:
            await asyncio.sleep(0.001)
        screen: Any = app.screen
        timed_loop(screen)
        began = time.perf_counter()
        for n in range(tasks):
            while (not screen.ahead and n < tasks - 1) or not screen.ready:
                await asyncio.sleep(0.001)  # a human takes seconds per task: the prefetch is done
            previous = screen.current.id
            await pilot.press("1", "enter")
            while screen.current is None or screen.current.id == previous or not screen.ready:
                if n == tasks - 1:
                    break
                await asyncio.sleep(0.0005)
            await pilot.pause()
            if n % 2 == 1:
                clock.advance(6)  # the undo grace runs out: the held submissions go
        total = time.perf_counter() - began
        clock.advance(6)
        await app.workers.wait_for_complete()
        status = str(screen.query_one("#work-status").render())
    waits = TimedWorkScreen.painted
    return {
        "submit_to_next_median_ms": statistics.median(waits) * 1000,
        "per_task_ms": total / tasks * 1000,
        "status": status.splitlines()[0],  # type: ignore[dict-item]
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = ServerProcess(Path(tempfile.mkdtemp()) / "qd.db", [*UNLIMITED], seed=ROLES_SEED).start()
    rounds: list[dict[str, Any]] = []
    try:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Token {KEYS['admin']}"}) as admin:
            for number in range(args.rounds):
                measured: dict[str, Any] = {}
                kinds = [("plain", None), ("consensus", {"answers": 2})]
                for kind, consensus in kinds if number % 2 == 0 else kinds[::-1]:  # interleaved
                    queue_id = new_queue(admin, f"{kind} {number}", args.tasks, consensus)
                    measured[kind] = asyncio.run(one_round(server, queue_id, args.tasks))
                ratio = measured["consensus"]["per_task_ms"] / measured["plain"]["per_task_ms"]
                rounds.append(
                    {**{f"{k}_{m}": v for k in measured for m, v in measured[k].items()}, "ratio": ratio}
                )
                print(
                    f"round {number + 1}: plain {measured['plain']['per_task_ms']:.1f} ms/task "
                    f"(next on screen {measured['plain']['submit_to_next_median_ms']:.1f} ms), consensus "
                    f"{measured['consensus']['per_task_ms']:.1f} ms/answer "
                    f"(next {measured['consensus']['submit_to_next_median_ms']:.1f} ms): {ratio:.3f}x"
                )
    finally:
        server.stop()
    ratios = [r["ratio"] for r in rounds]
    result = {
        "rounds": args.rounds,
        "tasks_per_round": args.tasks,
        "ratio_median": round(statistics.median(ratios), 3),
        "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)],
        "plain_status": rounds[-1]["plain_status"],
        "consensus_status": rounds[-1]["consensus_status"],
        "per_round": [{k: v if isinstance(v, str) else round(v, 2) for k, v in r.items()} for r in rounds],
    }
    print(f"consensus / plain per answer: median {result['ratio_median']}x, rounds {result['ratio_range']}")
    print(f"status lines: {result['plain_status']!r} / {result['consensus_status']!r}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
