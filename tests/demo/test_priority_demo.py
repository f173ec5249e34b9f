"""The demo's due dates (B24) and reservations (B25) on a real server with the demo's people and
queues: on the first run `Receipt checks` has tasks overdue already and some falling due in the
first minutes, and `Support triage` has tasks reserved for the demo's worker, which reach them first."""

from pathlib import Path

import httpx

from queuedesk.api.timestamps import utcnow
from queuedesk.demo import data, priority_start
from queuedesk.demo.content import RECEIPTS, TRIAGE
from queuedesk.server.store.database import run_once
from tests.api.test_client_priority import needs
from tests.support import ServerProcess

WORKER_KEY = "demo-worker-key-0000000000000003"


async def test_the_first_run_has_overdue_tasks_and_some_reserved_for_the_demos_worker(
    tmp_path: Path, server: ServerProcess
) -> None:
    needs(server, "B24", "B25")  # the suite's server: no demo server started to skip
    await run_once(f"sqlite:///{tmp_path / 'qd.db'}", data.build, utcnow())
    demo = ServerProcess(tmp_path / "qd.db").start()
    admin = httpx.Client(
        base_url=demo.url, headers={"Authorization": f"Token {priority_start.ADMIN_KEY}"}, timeout=30
    )
    wren = httpx.Client(base_url=demo.url, headers={"Authorization": f"Token {WORKER_KEY}"}, timeout=30)
    try:
        made = await priority_start.start_priorities(demo.url)
        assert made == len(priority_start.DUE_RECEIPTS) + len(priority_start.RESERVED)
        queues = {q["name"]: q for q in admin.get("/orgs/1/queues").json()}
        assert queues[RECEIPTS]["n_overdue"] == 2
        triage = f"/orgs/1/queues/{queues[TRIAGE]['id']}"
        mine = wren.get(f"{triage}/tasks", params={"reserved_for": "me"}).json()
        assert mine["count"] == len(priority_start.RESERVED)
        claimed = wren.post(f"{triage}/tasks/next")
        assert claimed.status_code == 200 and claimed.json()["reserved_for"] == priority_start.DEMO_WORKER
    finally:
        admin.close()
        wren.close()
        demo.stop()
