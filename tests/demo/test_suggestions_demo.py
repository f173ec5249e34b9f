"""The demo's suggestions (B23) on a real server with the demo's people and queues: the shop's
integration sends each new `Support triage` message with the model's team (and now and then a note),
the colleagues complete them, and the stats count each agent's suggestions accepted."""

import asyncio
import time
from pathlib import Path

import httpx

from queuedesk.api.timestamps import utcnow
from queuedesk.demo import bots, data, gold_start
from queuedesk.demo.content import TRIAGE
from queuedesk.demo.suggestions_start import MODEL
from queuedesk.server.store.database import run_once
from tests.support import ServerProcess


async def test_the_integration_sends_suggestions_and_the_stats_count_them(tmp_path: Path) -> None:
    await run_once(f"sqlite:///{tmp_path / 'qd.db'}", data.build, utcnow())
    demo = ServerProcess(tmp_path / "qd.db").start()
    admin = httpx.Client(
        base_url=demo.url, headers={"Authorization": f"Token {gold_start.ADMIN_KEY}"}, timeout=30
    )
    colleagues = bots.Colleagues(demo.url, "http://127.0.0.1:9", pace=0.02, first_run=False)
    try:
        triage = next(q for q in admin.get("/orgs/1/queues").json() if q["name"] == TRIAGE)
        path = f"/orgs/1/queues/{triage['id']}"
        # The seeded messages flushed: the integration's (suggested) ones are the next to work on.
        assert admin.put(f"{path}/flush").status_code == 200
        started = time.monotonic()
        colleagues.start()
        deadline = time.monotonic() + 90
        agents: list[dict] = []
        while time.monotonic() < deadline:
            agents = admin.get(f"{path}/stats").json().get("by_agent") or []
            if any(a["agent"] == MODEL and a["offered"] >= 3 for a in agents):
                break
            await asyncio.sleep(0.3)
        await colleagues.stop()
        print(f"suggested, completed and counted in {time.monotonic() - started:.1f} s")
        model = next(a for a in agents if a["agent"] == MODEL)
        assert model["offered"] >= 3 and 0 < model["accepted"] <= model["offered"], agents
        newest = admin.get(f"{path}/tasks/completed", params={"limit": 5}).json()[
            "tasks"
        ]  # the integration's
        outcomes = [admin.get(f"{path}/tasks/{t['id']}").json()["suggestion_outcome"] for t in newest]
        assert any(outcomes), outcomes
    finally:
        await colleagues.stop()
        admin.close()
        demo.stop()
