"""SVG snapshots of consensus (B21) at 80x24 and 200x60: the queue editor's consensus settings with
their meaning, a disputed task in review (the answers side by side, the form filled with the most
common answers), and the Stats tab with each worker's agreement and the disputed count.

One server for the module, with one consensus queue (answers 2, at most 3): three tasks settled or
disputed by Wes, Wyn and Ada, one task collecting. The pictures only read (the review picture's claim
is the same supervisor's each time: the server gives it back). Stats are pinned to an hour, as in
test_tab_snapshots.py: the answers are placed at fixed distances before it.
`--snapshot-update` rewrites them; look at the PNGs first.
"""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from textual.pilot import Pilot

from tests.api.test_client_consensus import needs_b21
from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for
from tests.tui.test_snapshots import ready_picture, steps
from tests.tui.test_tab_snapshots import ANCHOR, SECOND, STATS_NOW, micros

SIZES = [(80, 24), (200, 60)]
OPTIONS = [{"id": "cat", "name": "Cat"}, {"id": "dog", "name": "Dog"}, {"id": "fox", "name": "Fox"}]
BLOCKS = [
    {"id": "caption", "name": "Caption", "type": "text", "text": {"read_only": True}},
    {
        "id": "animal",
        "name": "Animal",
        "type": "single_selection",
        "single_selection": {"is_required": True, "options": OPTIONS},
    },
    {
        "id": "size",
        "name": "Size",
        "type": "single_selection",
        "single_selection": {"options": [{"id": "small", "name": "Small"}, {"id": "big", "name": "Big"}]},
    },
]
# (No yes/no block: its two choices are laid out side by side once the form knows its width, which
# a loaded machine may picture late; nor a free-text one: at 80x24 the form would scroll.)
# Each task's caption, then the answers in the order given: (worker, animal, size).
TASKS = [
    (  # three answers, none the same: disputed
        "A blurred shape on the sofa",
        [("worker", "cat", "small"), ("worker2", "dog", "small"), ("admin", "fox", "big")],
    ),
    ("Something behind the fence", [("worker", "dog", "big"), ("worker2", "dog", "big")]),  # settled
    ("A small animal asleep in the snow", [("worker", "fox", "small"), ("worker2", "dog", "small")]),
    ("Two eyes in the dark", [("worker2", "cat", "small")]),  # the last two collect answers
]


@pytest.fixture(scope="module")
def consensus_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("consensus-snapshots") / "qd.db", seed=ROLES_SEED).start()
    try:
        needs_b21(server)
        fill(server)
        pin_answer_times(server.db_url)
        yield server
    finally:  # a skip or a failure while filling it stops it too
        server.stop()


def fill(server: ServerProcess) -> None:
    """The consensus queue and its tasks, answered in turn over HTTP."""
    clients = {role: server.client(role) for role in ("admin", "worker", "worker2")}
    consensus = {"answers": 2, "max_answers": 3, "agreement": 0.5, "blocks": ["animal", "size"]}
    queue = (
        clients["admin"]
        .post(
            "/orgs/1/queues",
            json={"name": "Animals", "description": "Which animal?", "data": BLOCKS, "consensus": consensus},
        )
        .json()
    )
    base = f"/orgs/1/queues/{queue['id']}"
    for caption, answers in TASKS:
        task = clients["admin"].post(f"{base}/tasks/create", json={"data": {"caption": caption}}).json()
        for role, animal, size in answers:
            claimed = clients[role].post(f"{base}/tasks/next").json()
            assert claimed["id"] == task["id"], claimed
            body = {"data": {"animal": animal, "size": size}}
            clients[role].post(f"{base}/tasks/{task['id']}/complete", json=body).raise_for_status()
    for client in clients.values():
        client.close()


def pin_answer_times(db: str) -> None:
    """Every answer (and completion) placed at a fixed distance before the hour the module began in,
    with a fixed working time, as the server's own triggers would have counted it: each answer is
    removed and written again (its rollups follow inserts and deletes)."""
    base = micros(ANCHOR - timedelta(hours=2))
    execute_sql(
        db,
        "CREATE TABLE pinned_answers AS SELECT *, ROW_NUMBER() OVER (ORDER BY answered_at) AS turn FROM task_answers",
    )
    execute_sql(db, "DELETE FROM task_answers")
    columns = "task_id, worker_id, queue_id, worker_email, data, answered_at, work_micros, agreed"
    moved = columns.replace(  # in the order given, 5 minutes apart, each taking its own time
        "answered_at, work_micros", f"{base} + turn * 300 * {SECOND}, (20 + turn * 13) * {SECOND}"
    )
    execute_sql(db, f"INSERT INTO task_answers ({columns}) SELECT {moved} FROM pinned_answers")
    execute_sql(db, "DROP TABLE pinned_answers")
    execute_sql(
        db,
        f"UPDATE tasks SET completed_at = {base} + (id * 600 + 300) * {SECOND} WHERE completed_at IS NOT NULL",
    )


async def editor_on_consensus(pilot: Pilot[None]) -> None:
    await steps("down", "E")(pilot)
    pilot.app.screen.query_one("#consensus-answers").focus()
    await ready_picture(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_editor_consensus_settings(
    snap_compare, consensus_server: ServerProcess, size: tuple[int, int]
) -> None:
    app = app_for(consensus_server, "admin")
    assert snap_compare(app, terminal_size=size, run_before=editor_on_consensus)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_disputed_review(snap_compare, consensus_server: ServerProcess, size: tuple[int, int]) -> None:
    """The first task: three answers, no agreement on Animal; the form starts from Wes's (one each: the earliest)."""
    app = app_for(consensus_server, "supervisor")
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "v"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_with_agreement(snap_compare, consensus_server: ServerProcess, size: tuple[int, int]) -> None:
    app = app_for(consensus_server, "supervisor", now=STATS_NOW)
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "enter", "4"))
