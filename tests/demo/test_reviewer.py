"""The demo's simulated people at work on a real server with the demo's people and queues: the
colleagues slip now and then, the reviewer checks the fifth of their work drawn for review, and
what it corrects is what the task's inputs settle."""

import asyncio
import time
from pathlib import Path

import httpx

from queuedesk.demo import bots, data
from queuedesk.demo.content import QUEUES, expected
from tests.support import ServerProcess


async def test_the_reviewer_accepts_good_work_and_corrects_or_redoes_slips(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(bots, "SLIP_CHANCE", 0.5)  # slips often enough to be caught in a short run
    server = ServerProcess(tmp_path / "qd.db", seed=data.seed_document()).start()
    colleagues = bots.Colleagues(server.url, "http://127.0.0.1:9", pace=0.02)
    admin = httpx.Client(
        base_url=server.url, headers={"Authorization": "Token demo-admin-key-0000000000000001"}, timeout=30
    )
    try:
        queues = {q["name"]: q for q in admin.get("/orgs/1/queues").json() if q["name"] in QUEUES}
        assert {q["review_percent"] for q in queues.values()} == {20}
        colleagues.start()
        deadline = time.monotonic() + 120
        while colleagues.reviewed < 12 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await colleagues.stop()
        assert colleagues.reviewed >= 12
        verdicts: dict[str, int] = {}
        for name, queue in queues.items():
            page = admin.get(f"/orgs/1/queues/{queue['id']}/reviews", params={"limit": 1000}).json()
            for task in page["tasks"]:
                review = task["review"]
                assert review["reviewer"] == "noor@demo.test"
                verdicts[review["state"]] = verdicts.get(review["state"], 0) + 1
                settled = expected(name, task["data"])
                if review["state"] == "corrected":
                    assert review["original"] != task["data"] and review["note"]
                    assert all(task["data"][k] == v for k, v in settled.items())  # now right
                if review["state"] == "accepted":
                    assert all(task["data"][k] == v for k, v in settled.items())  # was right
                if review["state"] == "redone":
                    assert review["redo_task_id"] is not None and review["note"]
        assert (
            verdicts.get("accepted", 0) > 0 and verdicts.get("corrected", 0) + verdicts.get("redone", 0) > 0
        )
    finally:
        await colleagues.stop()
        admin.close()
        server.stop()
