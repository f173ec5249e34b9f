"""The demo's consensus queue (B21) on a real server with the demo's people and queues: on the first
run its settings are set and photos are disputed before anyone starts, so the review loop has
disputes at once; the colleagues answer it blind and now and then differ, and the simulated
reviewer leaves its reviews to the person trying the demo."""

import asyncio
import time
from pathlib import Path

import httpx

from queuedesk.api.timestamps import utcnow
from queuedesk.demo import bots, consensus_start, data
from queuedesk.demo.content import CONSENSUS_QUEUE
from queuedesk.server.store.database import run_once
from tests.api.test_client_consensus import needs_b21
from tests.support import ServerProcess


async def test_the_first_run_has_disputes_to_decide_and_colleagues_answer_blind(tmp_path: Path) -> None:
    # The demo's database as its first run builds it (pending photos), then served.
    await run_once(f"sqlite:///{tmp_path / 'qd.db'}", data.build, utcnow())
    server = ServerProcess(tmp_path / "qd.db").start()
    admin = httpx.Client(
        base_url=server.url, headers={"Authorization": f"Token {consensus_start.ADMIN_KEY}"}, timeout=30
    )
    colleagues = bots.Colleagues(server.url, "http://127.0.0.1:9", pace=0.02, first_run=True)
    try:
        needs_b21(server, consensus_start.ADMIN_KEY)
        photos = next(q for q in admin.get("/orgs/1/queues").json() if q["name"] == CONSENSUS_QUEUE)
        path = f"/orgs/1/queues/{photos['id']}"
        reviewed_before = admin.get(f"{path}/reviews", params={"limit": 1}).json()["count"]  # the history's
        started = time.monotonic()
        colleagues.start()
        deadline = time.monotonic() + 60
        while colleagues.completed < 20 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await colleagues.stop()
        print(f"set up and 20 answers in {time.monotonic() - started:.1f} s")
        assert (
            colleagues.answered_at_start
            == 3 * consensus_start.DISPUTED_AT_START + consensus_start.ONE_ANSWER_AT_START
        )
        settings = admin.get(path).json()["consensus"]
        assert (settings["answers"], settings["max_answers"]) == (2, 3)
        disputed = admin.get(f"{path}/tasks", params={"consensus": "disputed", "limit": 100}).json()
        assert disputed["count"] >= consensus_start.DISPUTED_AT_START  # each three colleagues, three verdicts
        for task in disputed["tasks"][: consensus_start.DISPUTED_AT_START]:
            verdicts = [a["data"]["verdict"] for a in task["consensus"]["answers"]]
            assert len(verdicts) == 3 and len(set(verdicts)) == 3, verdicts
        reviews = admin.get(f"{path}/reviews", params={"limit": 1}).json()
        assert reviews["count"] == reviewed_before  # the simulated reviewer leaves this queue to the person
        first = admin.post(f"{path}/reviews/next")  # the review loop serves a dispute first
        assert first.status_code == 200 and first.json()["consensus"]["state"] == "disputed"
    finally:
        await colleagues.stop()
        admin.close()
        server.stop()
