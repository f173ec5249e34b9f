"""The Pending tab and claims: who holds each task and whether their lease ran out stay on screen at
80 columns, and an admin gives back a task someone else holds (B6), which the audit log records;
a supervisor sees the same but cannot release."""

from datetime import UTC, datetime, timedelta

import httpx

from queuedesk.tui.modals.confirm import ConfirmScreen
from queuedesk.tui.screens.queue import QueueScreen
from tests.support import ServerProcess
from tests.support.pilot import app_for, screen_text, settle, until
from tests.tui.test_app import create, open_queue, qpath, task_row

NARROW = (80, 24)


def held_queue(fresh, admin: httpx.Client, worker: httpx.Client, org: int, tasks: int) -> tuple[dict, dict]:
    """A new queue of `tasks` tasks, the first claimed by Wes; the queue and his claim."""
    queue = fresh("Held")
    create(admin, org, queue, tasks)
    task = worker.post(f"{qpath(org, queue)}/tasks/next")
    assert task.status_code == 200, task.text
    return queue, task.json()


def later_than_the_lease(task: dict) -> datetime:
    """The app's clock a minute after the claim's lease ends (the app judges 'expired' by it)."""
    expires = datetime.fromisoformat(task["assignment"]["lease_expires_at"].replace("Z", "+00:00"))
    return expires.astimezone(UTC) + timedelta(minutes=1)


async def pending_row(app, pilot, screen: QueueScreen, task_id: int, status: str) -> list[str]:
    def shown() -> bool:
        rows = [str(screen.pending.get_row_at(i)[0]) for i in range(screen.pending.row_count)]
        return str(task_id) in rows and task_row(screen.pending, task_id)[1] == status

    await until(app, pilot, shown, f"task {task_id} shown as {status}")
    return task_row(screen.pending, task_id)


async def test_an_admin_releases_a_claim_whose_lease_expired(
    server: ServerProcess, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    queue, task = held_queue(fresh, admin, worker, org_id, 2)
    app = app_for(server, "admin", now=later_than_the_lease(task))
    async with app.run_test(size=NARROW, notifications=True) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        row = await pending_row(app, pilot, screen, task["id"], "lease expired")
        assert row[2] == "Wes"
        painted = screen_text(app)
        assert "lease expired" in painted and "Wes" in painted  # on screen at 80 columns, not cut
        await until(app, pilot, lambda: "x Release" in screen_text(app), "the footer offers it")

        await pilot.press("x")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the release is confirmed")
        assert "held by Wes" in screen_text(app) and "lease has expired" in screen_text(app)
        await pilot.click("#confirm-run")
        row = await pending_row(app, pilot, screen, task["id"], "open")
        assert row[2] == "—"
        assert any("released" in str(n.message) for n in app._notifications)

    state = admin.get(f"{qpath(org_id, queue)}/tasks/{task['id']}").json()
    assert state["status"] == "open" and state["assignment"]["assigned_to"] is None
    events = admin.get(f"/orgs/{org_id}/audit", params={"action": "task.release", "queue_id": queue["id"]})
    (event,) = events.json()["events"]
    assert event["actor"]["email"] == "ada@acme.test" and event["subject"]["task_id"] == task["id"]
    assert event["detail"]["holder"]["email"] == "wes@acme.test"


async def test_release_is_asked_before_it_is_done(
    server: ServerProcess, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    """Cancel (which has the focus) releases nothing; a live claim shows as in progress."""
    queue, task = held_queue(fresh, admin, worker, org_id, 1)
    app = app_for(server, "admin", now=datetime.now(UTC))
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        await pending_row(app, pilot, screen, task["id"], "in_progress")
        await pilot.press("x")
        await until(app, pilot, lambda: isinstance(app.screen, ConfirmScreen), "the release is confirmed")
        await pilot.press("enter")  # on Cancel
        await settle(app, pilot)
        assert app.screen is screen
    assert admin.get(f"{qpath(org_id, queue)}/tasks/{task['id']}").json()["status"] == "in_progress"


async def test_a_supervisor_sees_the_holder_and_lease_but_cannot_release(
    server: ServerProcess, admin: httpx.Client, worker: httpx.Client, org_id: int, fresh
) -> None:
    queue, task = held_queue(fresh, admin, worker, org_id, 2)
    app = app_for(server, "supervisor", now=later_than_the_lease(task))
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_queue(app, pilot, queue["id"])
        row = await pending_row(app, pilot, screen, task["id"], "lease expired")
        assert row[2] == "Wes"
        assert "Release" not in screen_text(app).splitlines()[-1]
        await pilot.press("x")
        await settle(app, pilot)
        assert app.screen is screen
    assert admin.get(f"{qpath(org_id, queue)}/tasks/{task['id']}").json()["status"] == "in_progress"
