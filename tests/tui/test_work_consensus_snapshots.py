"""SVG snapshots of the worker's screen in a consensus queue (B21) at 80x24 and 200x60: every task
of the queue answered by this worker and waiting for others, which the screen says (not "the queue
is empty"), with the status line counting answers recorded. `--snapshot-update` rewrites them."""

from collections.abc import Iterator

import pytest

from tests.api.test_client_consensus import needs_b21
from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.tui.test_snapshots import MINUTE, NOON, steps

SIZES = [(80, 24), (200, 60)]
BLOCKS = [
    {"id": "caption", "name": "Caption", "type": "text", "text": {"read_only": True}},
    {
        "id": "animal",
        "name": "Animal",
        "type": "single_selection",
        "single_selection": {"options": [{"id": "cat", "name": "Cat"}, {"id": "dog", "name": "Dog"}]},
    },
]


@pytest.fixture(scope="module")
def answered_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("work-consensus") / "qd.db", seed=ROLES_SEED).start()
    needs_b21(server)
    admin, wes = server.client("admin"), server.client("worker")
    org = admin.get("/me").json()["organization_id"]
    body = {"name": "Animals", "data": BLOCKS, "consensus": {"answers": 2}}
    queue = admin.post(f"/orgs/{org}/queues", json=body).json()
    path = f"/orgs/{org}/queues/{queue['id']}"
    tasks = [{"data": {"caption": caption}} for caption in ("On the sofa", "Behind the fence", "In the snow")]
    admin.post(f"{path}/tasks/import", json={"source": "manual", "tasks": tasks}).raise_for_status()
    for _ in tasks:  # Wes answers all three: each waits for a second worker
        task = wes.post(f"{path}/tasks/next").json()
        wes.post(f"{path}/tasks/{task['id']}/complete", json={"data": {"animal": "cat"}}).raise_for_status()
    execute_sql(server.db_url, f"UPDATE queues SET created_at = {NOON} + id * 7 * {MINUTE}")
    admin.close()
    wes.close()
    yield server
    server.stop()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_work_screen_says_the_answers_wait_for_other_workers(
    snap_compare, answered_server: ServerProcess, size: tuple[int, int]
) -> None:
    assert snap_compare(
        app_for(answered_server, "worker"), terminal_size=size, run_before=steps(*"/Animals", "enter", "w")
    )
