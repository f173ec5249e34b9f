"""A simulated colleague stopped while its claim is on its way gives back what the server claimed
(the demo's quit left a task claimed once in a full run)."""

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from queuedesk.api.client import QueueDeskClient
from queuedesk.demo.bots import claim_or_give_back
from tests.conftest import make_queue
from tests.support import KEYS, ROLES_SEED, ServerProcess
from tests.tui.test_queues_screen import HoldingProxy


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / "qd.db", seed=ROLES_SEED).start()
    yield server
    server.stop()


async def test_a_claim_cancelled_on_its_way_is_given_back(served: ServerProcess) -> None:
    admin = httpx.Client(base_url=served.url, headers={"Authorization": f"Token {KEYS['admin']}"}, timeout=10)
    queue = make_queue(admin, 1, name="Claimed on the way")
    qpath = f"/orgs/1/queues/{queue['id']}"
    assert admin.post(f"{qpath}/tasks/create", json={"data": {"paragraph": "one"}}).status_code == 200
    proxy = HoldingProxy(served.port).start()
    try:
        async with QueueDeskClient(f"http://127.0.0.1:{proxy.port}", KEYS["worker"], 1, timeout=10) as client:
            await client.queues()  # connected; the next answer is held back
            proxy.answers.clear()
            asked = proxy.requests
            claiming = asyncio.create_task(claim_or_give_back(client, queue["id"]))
            for _ in range(200):
                if proxy.requests > asked:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)  # the server has claimed it; its answer waits in the proxy
            claiming.cancel()
            proxy.answers.set()
            with pytest.raises(asyncio.CancelledError):
                await claiming
        (task,) = admin.get(f"{qpath}/tasks").json()["tasks"]
        assert task["status"] != "in_progress", task
    finally:
        proxy.answers.set()
        proxy.stop()
        admin.close()
