"""Priority, due dates (B24) and reservations (B25) in the app, against a real `queuedesk serve`:
the queue list's Overdue column, the Pending tab's columns and `d` (overdue only), `a` (reserve the
task under the cursor for a person, or nobody) and `e` (its priority and due date, a bad value said
and never sent); the work screen's line with the task's due time and "reserved for you", and the queue screen's
count of the tasks reserved for the worker.

On a server that does not list B24/B25 (the suite's, until it does) the keys say why they do not
apply, in a notification, and the columns are not there; the rest skips until the server lists them."""

from datetime import UTC, datetime, timedelta

import httpx
from textual.widgets import OptionList

from queuedesk.tui.modals.reserve import ReserveScreen
from queuedesk.tui.modals.task_priority import PriorityDueScreen
from queuedesk.tui.panes.pending_view import PendingView
from queuedesk.tui.screens.work import WorkScreen
from queuedesk.tui.widgets.task_deadline import TaskDeadline
from tests.api.test_client_priority import needs
from tests.conftest import make_queue
from tests.support import ServerProcess
from tests.support.pilot import until
from tests.tui.conftest import MakeApp
from tests.tui.test_app import home, open_queue, plain, shows
from tests.tui.test_queue_editor import open_editor

SIZE = (120, 36)


def said(app, text: str) -> bool:  # type: ignore[no-untyped-def]
    return any(text in n.message for n in app._notifications)


async def test_on_a_server_without_them_the_keys_say_why_and_no_column_shows(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    listed = admin.get("/me").json()["features"]
    if "B24" in listed and "B25" in listed:
        return  # the server has both: the other tests here show them
    queue = make_queue(admin, org_id, label="No deadlines")
    admin.post(f"/orgs/{org_id}/queues/{queue['id']}/tasks/create", json={"data": {"paragraph": "p"}})
    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await home(app, pilot)
        assert ("overdue" in dict(screen.table.columns_shown)) == ("B24" in listed)
        await open_queue(app, pilot, queue["id"])
        view = app.screen.query_one(PendingView)
        await until(app, pilot, lambda: view.table.items, "the pending task")
        labels = [label for _, label, _ in view.table.column_spec]
        assert ("Due" in labels) == ("B24" in listed) and ("Reserved" in labels) == ("B25" in listed)
        for key, text in (
            ("d", "Overdue tasks"),
            ("e", "Priorities and due dates"),
            ("a", "Reserving tasks"),
        ):
            feature = "B25" if key == "a" else "B24"
            if feature in listed:
                continue
            await pilot.press(key)
            await until(app, pilot, lambda: said(app, text), f"{key} says why")  # noqa: B023
            assert said(app, f"this server does not have them ({feature}); upgrade the server")
            assert not isinstance(app.screen, ReserveScreen | PriorityDueScreen)


async def test_a_supervisor_reserves_and_an_admin_changes_priority_and_due(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    needs(server, "B24", "B25")
    queue = make_queue(admin, org_id, label="Deadlines")
    path = f"/orgs/{org_id}/queues/{queue['id']}"
    late = datetime.now(UTC) - timedelta(hours=2)
    for body in (
        {"data": {"paragraph": "late one"}, "due_at": late.isoformat(), "priority": 5},
        {"data": {"paragraph": "plain one"}},
    ):
        admin.post(f"{path}/tasks/create", json=body).raise_for_status()
    app = make_app("supervisor")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_queue(app, pilot, queue["id"])
        view = app.screen.query_one(PendingView)
        await until(app, pilot, lambda: len(view.table.items) == 2, "both tasks")
        assert shows(app, "+5") and shows(app, "late")
        await pilot.press("d")
        await until(app, pilot, lambda: len(view.table.items) == 1, "only the overdue one")
        assert shows(app, "Only overdue tasks (d: every task)")
        await pilot.press("d")
        await until(app, pilot, lambda: len(view.table.items) == 2, "every task again")
        view.table.go_to(1)  # the plain one
        await pilot.press("e")  # a supervisor changes no priority
        await until(app, pilot, lambda: said(app, "is for admins"), "e says why")
        await pilot.press("a")
        await until(app, pilot, lambda: isinstance(app.screen, ReserveScreen), "the reservation picker")
        picker = app.screen
        people = picker.query_one("#reserve-people", OptionList)
        await until(app, pilot, lambda: picker.people is not None, "the people read")
        await pilot.press(*"wyn")
        await until(app, pilot, lambda: people.highlighted == 1, "the first match highlighted")
        await pilot.press("enter")
        await until(app, pilot, lambda: said(app, "is reserved for"), "reserved")
        plain_task = [
            t for t in admin.get(f"{path}/tasks").json()["tasks"] if t["data"]["paragraph"] == "plain one"
        ]
        assert plain_task[0]["reserved_for"] == "wyn@acme.test"
        await until(app, pilot, lambda: shows(app, "wyn@acme.test"), "the column shows it")
        await pilot.press("a")
        await until(app, pilot, lambda: isinstance(app.screen, ReserveScreen), "the picker again")
        await pilot.press("enter")  # "Nobody", first and highlighted
        await until(app, pilot, lambda: said(app, "reserved for nobody now"), "lifted")
        task = admin.get(f"{path}/tasks/{plain_task[0]['id']}").json()
        assert task["reserved_for"] is None

    app = make_app("admin")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await open_queue(app, pilot, queue["id"])
        view = app.screen.query_one(PendingView)
        await until(app, pilot, lambda: len(view.table.items) == 2, "both tasks")
        view.table.go_to(1)
        await pilot.press("e")
        await until(app, pilot, lambda: isinstance(app.screen, PriorityDueScreen), "the priority dialog")
        dialog = app.screen
        dialog.query_one("#priority-value").value = "5000"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: said(app, "from -1000 to 1000"), "the refusal said")
        assert isinstance(app.screen, PriorityDueScreen)  # still open: nothing sent
        dialog.query_one("#priority-value").value = "9"  # type: ignore[attr-defined]
        dialog.query_one("#priority-due").value = "+3h"  # type: ignore[attr-defined]
        await pilot.pause()
        assert "Priority 9, due in 2 h" in plain(dialog.query_one("#priority-said")) or "due in 3 h" in plain(
            dialog.query_one("#priority-said")
        )
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: said(app, "priority 9"), "changed")
        changed = [
            t for t in admin.get(f"{path}/tasks").json()["tasks"] if t["data"]["paragraph"] == "plain one"
        ]
        assert changed[0]["priority"] == 9 and changed[0]["due_at"] is not None


async def test_the_worker_sees_the_due_time_and_that_the_task_is_reserved_for_them(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    needs(server, "B24", "B25")
    queue = make_queue(admin, org_id, label="Mine")
    path = f"/orgs/{org_id}/queues/{queue['id']}"
    due = datetime(2026, 11, 23, 7, 30, tzinfo=UTC)  # two hours before the app's clock
    body = {"data": {"paragraph": "for wes"}, "due_at": due.isoformat(), "reserved_for": "wes@acme.test"}
    admin.post(f"{path}/tasks/create", json=body).raise_for_status()
    app = make_app("worker")
    async with app.run_test(size=SIZE) as pilot:
        await open_queue(app, pilot, queue["id"])
        await until(app, pilot, lambda: shows(app, "1 reserved for you"), "the count of the worker's own")
        await pilot.press("w")
        await until(app, pilot, lambda: isinstance(app.screen, WorkScreen) and app.screen.ready, "the task")
        line = app.screen.query_one(TaskDeadline)
        await until(app, pilot, lambda: line.display, "the deadline line")
        assert plain(line) == "overdue 2 h · reserved for you"


async def test_the_editor_sets_the_claim_order_and_says_what_it_means(
    make_app: MakeApp, server: ServerProcess, admin: httpx.Client, org_id: int
) -> None:
    needs(server, "B24")
    queue = make_queue(admin, org_id, label="Ordered")
    path = f"/orgs/{org_id}/queues/{queue['id']}"
    app = make_app("admin")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_editor(app, pilot, "E", queue["id"])
        assert "then the earliest due date" in plain(screen.query_one("#order-meaning"))
        screen.query_one("#queue-order").focus()
        await pilot.press("down")
        await until(app, pilot, lambda: screen.edit.order == "least_confident", "the order chosen")
        assert "lowest suggestion score" in plain(screen.query_one("#order-meaning"))
        assert "least confident first" in plain(screen.query_one("#editor-status"))
        await pilot.press("ctrl+s")
        await until(app, pilot, lambda: not isinstance(app.screen, type(screen)), "saved")
    assert admin.get(path).json()["order"] == "least_confident"
    audit = {"queue_id": queue["id"], "action": "queue.update"}
    (event,) = admin.get(f"/orgs/{org_id}/audit", params=audit).json()["events"]
    assert "order" in event["detail"]["fields"]
