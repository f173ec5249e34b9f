"""SVG snapshots of priority, due dates (B24) and reservations (B25) at 80x24 and 200x60: the queue
list with each queue's overdue count, the Pending tab with priority, due and reserved-for columns,
the reservation picker over it, and the work screen on an overdue task reserved for the worker.

One server for the module. Overdue tasks are due before the app's clock (2026-11-23 09:30 UTC) and
so, for the server, in the past for good; the others are due years after it, so the pictures do not
depend on the time they run at. Creation times are set behind the server's back as in
test_snapshots.py. While the server does not list B24 and B25 these skip (`needs`).
`--snapshot-update` rewrites them; look at the PNGs first.
"""

from collections.abc import Iterator

import pytest
from textual.pilot import Pilot

from queuedesk.tui.modals.reserve import ReserveScreen
from queuedesk.tui.screens.work import WorkScreen
from tests.api.test_client_priority import needs
from tests.support import ROLES_SEED, ServerProcess, execute_sql
from tests.support.pilot import app_for, until
from tests.tui.test_snapshots import MINUTE, NOON, ready_picture, steps

SIZES = [(80, 24), (200, 60)]
LATE_2H = "2026-11-23T07:30:00Z"
LATE_2D = "2026-11-21T09:30:00Z"
LATER = "2030-12-01T09:30:00Z"
TEXT = [{"id": "text", "name": "Request", "type": "text", "text": {"read_only": True}}]
# Each queue: its name and its tasks (text, priority, due_at, reserved_for).
QUEUES = [
    (
        "Support",
        [
            ("Refund not received", 10, LATE_2D, None),
            ("Password reset loops", 0, LATE_2H, "wes@acme.test"),
            ("Invoice address wrong", 5, LATER, None),
            ("App crashes on start", 0, None, "wyn@acme.test"),
            ("Feature question", -5, None, None),
        ],
    ),
    ("Receipts", [("Taxi receipt", 0, LATER, None), ("Hotel receipt", 0, None, None)]),
    ("Checks", [("ID check", 0, LATE_2H, None)]),
]


# The work picture's queue: the worker may claim only the task reserved for them, so what is on screen
# does not depend on the order their claims (the one on screen and the one claimed ahead) come back in.
WORK_QUEUES = [
    (
        "Support",
        [
            ("Password reset loops", 0, LATE_2H, "wes@acme.test"),
            ("App crashes on start", 0, None, "wyn@acme.test"),
        ],
    )
]


def started(
    tmp_path_factory: pytest.TempPathFactory, queues: list[tuple[str, list[tuple]]] = QUEUES
) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("priority-snapshots") / "qd.db", seed=ROLES_SEED).start()
    try:
        needs(server, "B24", "B25")
        fill(server, queues)
        yield server
    finally:  # a skip or a failure while filling it stops it too
        server.stop()


@pytest.fixture(scope="module")
def deadline_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from started(tmp_path_factory)


@pytest.fixture  # each work picture's own: a task the worker gave back (as the app quits) goes to
def work_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:  # them last (B24)
    yield from started(tmp_path_factory, WORK_QUEUES)


def fill(server: ServerProcess, queues: list[tuple[str, list[tuple]]]) -> None:
    admin = server.client("admin")
    try:
        for name, tasks in queues:
            created = admin.post("/orgs/1/queues", json={"name": name, "description": name, "data": TEXT})
            created.raise_for_status()
            base = f"/orgs/1/queues/{created.json()['id']}"
            for text, priority, due, reserved in tasks:
                body = {"data": {"text": text}, "priority": priority, "due_at": due, "reserved_for": reserved}
                admin.post(f"{base}/tasks/create", json=body).raise_for_status()
    finally:
        admin.close()
    execute_sql(server.db_url, f"UPDATE queues SET created_at = {NOON} + id * 7 * {MINUTE}")
    execute_sql(server.db_url, f"UPDATE tasks SET created_at = {NOON} + id * {MINUTE}")


async def overdue_counted(pilot: Pilot[None]) -> None:
    """The queue list once the server counted the overdue tasks (within its 60 s, as of its clock)."""
    app = pilot.app
    await until(
        app, pilot, lambda: sum(q.n_overdue for q in getattr(app.screen, "queues", [])) == 3, "counted"
    )
    await ready_picture(pilot)


async def reserve_picker(pilot: Pilot[None]) -> None:
    await steps("down", "enter", "down", "down", "down")(pilot)  # Support's fourth task
    await pilot.press("a")
    app = pilot.app
    await until(app, pilot, lambda: isinstance(app.screen, ReserveScreen) and app.screen.people, "people")
    await ready_picture(pilot)


async def work_on_reserved(pilot: Pilot[None]) -> None:
    await steps("down", "enter")(pilot)  # Support
    await pilot.press("w")
    app = pilot.app
    await until(app, pilot, lambda: isinstance(app.screen, WorkScreen) and app.screen.ready, "the task")
    await ready_picture(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_queues_with_overdue_counts(
    snap_compare, deadline_server: ServerProcess, size: tuple[int, int]
) -> None:
    app = app_for(deadline_server, "supervisor")
    assert snap_compare(app, terminal_size=size, run_before=overdue_counted)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_pending_with_priority_due_and_reserved(
    snap_compare, deadline_server: ServerProcess, size: tuple[int, int]
) -> None:
    app = app_for(deadline_server, "supervisor")
    assert snap_compare(app, terminal_size=size, run_before=steps("down", "enter"))  # Support


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_reservation_picker(snap_compare, deadline_server: ServerProcess, size: tuple[int, int]) -> None:
    app = app_for(deadline_server, "supervisor")
    assert snap_compare(app, terminal_size=size, run_before=reserve_picker)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_work_on_an_overdue_task_reserved_for_the_worker(
    snap_compare, work_server: ServerProcess, size: tuple[int, int]
) -> None:
    app = app_for(work_server, "worker")
    assert snap_compare(app, terminal_size=size, run_before=work_on_reserved)
