"""The demo's gold tasks (B22) on a real server with the demo's people and queues: on the first run
`Support triage` gets its gold share and gold tasks, and the colleagues answer some at once, most
right and some wrong, so each worker's gold accuracy shows in the stats from the first minute."""

import asyncio
import time
from pathlib import Path

import httpx

from queuedesk.api.timestamps import utcnow
from queuedesk.demo import bots, data, gold_start
from queuedesk.server.store.database import run_once
from tests.api.test_client_gold import needs_b22
from tests.support import ServerProcess


async def test_the_first_run_shows_gold_accuracy(tmp_path: Path, server: ServerProcess) -> None:
    needs_b22(server)  # the suite's server: no demo server started to skip
    await run_once(f"sqlite:///{tmp_path / 'qd.db'}", data.build, utcnow())
    demo = ServerProcess(tmp_path / "qd.db").start()
    admin = httpx.Client(
        base_url=demo.url, headers={"Authorization": f"Token {gold_start.ADMIN_KEY}"}, timeout=30
    )
    colleagues = bots.Colleagues(demo.url, "http://127.0.0.1:9", pace=0.02, first_run=True)
    try:
        triage = next(q for q in admin.get("/orgs/1/queues").json() if q["name"] == gold_start.GOLD_QUEUE)
        path = f"/orgs/1/queues/{triage['id']}"
        started = time.monotonic()
        colleagues.start()
        deadline = time.monotonic() + 60
        while (
            admin.get(path).json().get("gold_percent") != gold_start.GOLD_PERCENT
            and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.2)
        await colleagues.stop()
        print(f"gold set up and answered in {time.monotonic() - started:.1f} s")
        gold = admin.get(f"{path}/tasks", params={"gold": "true", "limit": 100}).json()
        assert gold["count"] == gold_start.GOLD_TASKS
        answers = admin.get(f"{path}/gold/answers", params={"limit": 1000}).json()["answers"]
        assert colleagues.gold_answered_at_start > 0
        assert any(a["correct"] for a in answers) and any(not a["correct"] for a in answers), answers
        stats = admin.get(f"{path}/stats").json()
        measured = [w for w in stats["by_worker"] if w["gold_answered"]]
        assert measured and sum(w["gold_correct"] for w in measured) < sum(
            w["gold_answered"] for w in measured
        )
    finally:
        await colleagues.stop()
        admin.close()
        demo.stop()
