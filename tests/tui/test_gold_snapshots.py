"""SVG snapshots of gold tasks (B22) for supervisors and admins at 80x24 and 200x60: the queue
editor's gold share with its meaning, and the Stats tab with each worker's gold accuracy.

One server for the module, with one queue of gold tasks only (a gold share of 10%): Wes answers two
(one wrong), Wyn one. Gold answers complete nothing, so the chart is empty and the pictures do not
depend on the time they run at; the stats clock stands before the hour, as in test_tab_snapshots.py
(the server counts the answers given since, up to its own now).
While the server does not list B22 these skip (`needs_b22`). `--snapshot-update` rewrites them;
look at the PNGs first.
"""

from collections.abc import Iterator

import pytest
from textual.pilot import Pilot

from tests.api.test_client_gold import needs_b22
from tests.support import ROLES_SEED, ServerProcess
from tests.support.pilot import app_for
from tests.tui.test_snapshots import ready_picture, steps
from tests.tui.test_tab_snapshots import STATS_NOW

SIZES = [(80, 24), (200, 60)]
OPTIONS = [{"id": "cat", "name": "Cat"}, {"id": "dog", "name": "Dog"}, {"id": "fox", "name": "Fox"}]
# (No yes/no block: its two choices are laid out side by side once the form knows its width, which
# a loaded machine may picture late.)
BLOCKS = [
    {"id": "caption", "name": "Caption", "type": "text", "text": {"read_only": True}},
    {
        "id": "animal",
        "name": "Animal",
        "type": "single_selection",
        "single_selection": {"is_required": True, "options": OPTIONS},
    },
]
# Each gold task: its caption and expected animal; then the answers in turn: (worker, animal).
GOLD = [("A cat on the sofa", "cat"), ("A dog behind the fence", "dog")]
ANSWERS = [("worker", "cat"), ("worker", "fox"), ("worker2", "cat")]


@pytest.fixture(scope="module")
def gold_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("gold-snapshots") / "qd.db", seed=ROLES_SEED).start()
    try:
        needs_b22(server)
        fill(server)
        yield server
    finally:  # a skip or a failure while filling it stops it too
        server.stop()


def fill(server: ServerProcess) -> None:
    """The gold queue, its gold tasks, and the answers given over HTTP."""
    clients = {role: server.client(role) for role in ("admin", "worker", "worker2")}
    try:
        body = {"name": "Animals", "description": "Which animal?", "data": BLOCKS, "gold_percent": 10}
        created = clients["admin"].post("/orgs/1/queues", json=body)
        created.raise_for_status()
        base = f"/orgs/1/queues/{created.json()['id']}"
        for caption, animal in GOLD:
            gold = {"data": {"caption": caption}, "gold": {"animal": animal}}
            clients["admin"].post(f"{base}/tasks/create", json=gold).raise_for_status()
        for role, animal in ANSWERS:
            claimed = clients[role].post(f"{base}/tasks/next")
            assert claimed.status_code == 200, claimed.text
            done = {"data": {"animal": animal}}
            clients[role].post(f"{base}/tasks/{claimed.json()['id']}/complete", json=done).raise_for_status()
    finally:
        for client in clients.values():
            client.close()


async def editor_on_gold(pilot: Pilot[None]) -> None:
    await steps("down", "E")(pilot)
    pilot.app.screen.query_one("#gold-percent").focus()
    await ready_picture(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_editor_gold_share(snap_compare, gold_server: ServerProcess, size: tuple[int, int]) -> None:
    app = app_for(gold_server, "admin")
    assert snap_compare(app, terminal_size=size, run_before=editor_on_gold)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_with_gold_accuracy(snap_compare, gold_server: ServerProcess, size: tuple[int, int]) -> None:
    app = app_for(gold_server, "supervisor", now=STATS_NOW)
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "enter", "4"))
